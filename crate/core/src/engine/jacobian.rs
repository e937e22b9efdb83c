//! Sparse point Jacobians over dof chains (MuJoCo's `mj_bodyChain`, `mj_mergeChain`,
//! `mj_jacSparse`, `mj_jacDifPair`). A Jacobian block holds 3 rows of `NV` columns, where the
//! columns are the chain's dofs in increasing order.

use crate::data::Data;
use crate::math::cross;
use crate::model::Model;

/// The world velocity of a point per unit of a dof's velocity, `cdof_lin + cdof_ang × off`
/// (`cdof` the dof's 6 motion components, `off` the point's offset from its subtree's centre of
/// mass): one column of the point's Jacobian.
#[inline]
pub fn point_col(cdof: &[f64], off: &[f64; 3]) -> [f64; 3] {
    let t = cross(&[cdof[0], cdof[1], cdof[2]], off);
    [cdof[3] + t[0], cdof[4] + t[1], cdof[5] + t[2]]
}

/// Dofs that move `body`, increasing. Returns the chain length.
pub fn body_chain(m: &Model, body: usize, chain: &mut [i32]) -> usize {
    if m.body_simple[body] != 0 {
        let n = m.body_dofnum[body] as usize;
        let adr = m.body_dofadr[body];
        for (i, c) in chain.iter_mut().take(n).enumerate() {
            *c = adr + i as i32;
        }
        return n;
    }
    let b = m.body_weldid[body] as usize;
    if m.body_dofnum[b] == 0 {
        return 0;
    }
    let mut da = m.body_dofadr[b] + m.body_dofnum[b] - 1;
    let mut n = 0;
    while da >= 0 {
        chain[n] = da;
        n += 1;
        da = m.dof_parentid[da as usize];
    }
    chain[..n].reverse();
    n
}

/// Union of the dof chains of two bodies, increasing.
pub fn merge_chain(m: &Model, chain: &mut [i32], b1: usize, b2: usize, skipcommon: bool) -> usize {
    let b1 = m.body_weldid[b1] as usize;
    let b2 = m.body_weldid[b2] as usize;
    if m.body_dofnum[b1] == 0 && m.body_dofnum[b2] == 0 {
        return 0;
    }
    let mut da1 = m.body_dofadr[b1] + m.body_dofnum[b1] - 1;
    let mut da2 = m.body_dofadr[b2] + m.body_dofnum[b2] - 1;
    if m.body_dofnum[b1] == 0 {
        da1 = -1;
    }
    if m.body_dofnum[b2] == 0 {
        da2 = -1;
    }
    let mut n = 0;
    while da1 >= 0 || da2 >= 0 {
        let da = da1.max(da2);
        if skipcommon && da1 == da && da2 == da {
            break;
        }
        chain[n] = da;
        if da1 == da {
            da1 = m.dof_parentid[da1 as usize];
        }
        if da2 == da {
            da2 = m.dof_parentid[da2 as usize];
        }
        n += 1;
    }
    chain[..n].reverse();
    n
}

/// Chain of two simple bodies: the lower body's dofs, then the other's.
pub fn merge_chain_simple(m: &Model, chain: &mut [i32], b1: usize, b2: usize) -> usize {
    let (b1, b2) = if b1 > b2 { (b2, b1) } else { (b1, b2) };
    let n1 = m.body_dofnum[b1] as usize;
    let n2 = m.body_dofnum[b2] as usize;
    if n1 == 0 && n2 == 0 {
        return 0;
    }
    for i in 0..n1 {
        chain[i] = m.body_dofadr[b1] + i as i32;
    }
    for i in 0..n2 {
        chain[n1 + i] = m.body_dofadr[b2] + i as i32;
    }
    n1 + n2
}

/// Translational Jacobian of `point` on `body` into `jacp` (3 × nv_chain).
pub fn jac_sparse(
    m: &Model,
    d: &Data,
    jacp: &mut [f64],
    point: &[f64; 3],
    body: usize,
    chain: &[i32],
    skipcommon: bool,
) {
    let nv = chain.len();
    jacp[..3 * nv].fill(0.0);
    let root = m.body_rootid[body] as usize;
    let offset = [
        point[0] - d.subtree_com[3 * root],
        point[1] - d.subtree_com[3 * root + 1],
        point[2] - d.subtree_com[3 * root + 2],
    ];
    let b = m.body_weldid[body] as usize;
    if m.body_dofnum[b] == 0 {
        return;
    }
    let mut da = m.body_dofadr[b] + m.body_dofnum[b] - 1;
    let mut ci = nv as i32 - 1;
    while da >= 0 {
        while ci >= 0 && chain[ci as usize] > da {
            ci -= 1;
        }
        if ci < 0 || chain[ci as usize] != da {
            if skipcommon {
                da = m.dof_parentid[da as usize];
                continue;
            }
            // the chain was built for this body: every ancestor dof is in it
            da = m.dof_parentid[da as usize];
            continue;
        }
        let v = point_col(&d.cdof[6 * da as usize..6 * da as usize + 6], &offset);
        let col = ci as usize;
        jacp[col] = v[0];
        jacp[col + nv] = v[1];
        jacp[col + 2 * nv] = v[2];
        da = m.dof_parentid[da as usize];
    }
}

/// Jacobian of a simple body's point, written with a sign at column offset `start`.
pub fn jac_sparse_simple(
    m: &Model,
    d: &Data,
    jacdif: &mut [f64],
    point: &[f64; 3],
    body: usize,
    second: bool,
    nv: usize,
    start: usize,
) {
    let root = m.body_rootid[body] as usize;
    let offset = [
        point[0] - d.subtree_com[3 * root],
        point[1] - d.subtree_com[3 * root + 1],
        point[2] - d.subtree_com[3 * root + 2],
    ];
    if m.body_dofnum[body] == 0 {
        return;
    }
    let end = (m.body_dofadr[body] + m.body_dofnum[body]) as usize;
    for (ci, da) in (start..).zip(m.body_dofadr[body] as usize..end) {
        let v = point_col(&d.cdof[6 * da..6 * da + 6], &offset);
        if second {
            jacdif[ci] = v[0];
            jacdif[ci + nv] = v[1];
            jacdif[ci + 2 * nv] = v[2];
        } else {
            jacdif[ci] = -v[0];
            jacdif[ci + nv] = -v[1];
            jacdif[ci + 2 * nv] = -v[2];
        }
    }
}

/// Scratch for Jacobian differences, sized by nv.
#[derive(Debug, Clone, Default)]
pub struct JacScratch {
    pub chain: Vec<i32>,
    pub jac1: Vec<f64>,
    pub jac2: Vec<f64>,
    pub jacdif: Vec<f64>,
    /// Dense accumulators of the two vertex-equality rows of one vertex (kept zero between uses).
    pub dense0: Vec<f64>,
    pub dense1: Vec<f64>,
}

impl JacScratch {
    #[cold]
    pub fn new(nv: usize) -> Self {
        JacScratch {
            chain: crate::data::zeros(nv.max(1)),
            jac1: crate::data::zeros::<f64>(3 * nv.max(1)),
            jac2: crate::data::zeros::<f64>(3 * nv.max(1)),
            jacdif: crate::data::zeros::<f64>(3 * nv.max(1)),
            dense0: crate::data::zeros::<f64>(nv),
            dense1: crate::data::zeros::<f64>(nv),
        }
    }
}

/// Translational Jacobian difference `J(b2, pos2) − J(b1, pos1)` on the merged chain; the chain
/// is left in `s.chain` and the difference in `s.jacdif`. Returns the chain length.
pub fn jac_dif_pair(
    m: &Model,
    d: &Data,
    s: &mut JacScratch,
    b1: usize,
    b2: usize,
    pos1: &[f64; 3],
    pos2: &[f64; 3],
    skipcommon: bool,
) -> usize {
    if m.nv == 0 {
        return 0;
    }
    let simple = m.body_simple[b1] != 0 && m.body_simple[b2] != 0;
    let nv = if simple {
        merge_chain_simple(m, &mut s.chain, b1, b2)
    } else {
        merge_chain(m, &mut s.chain, b1, b2, skipcommon)
    };
    if nv == 0 {
        return 0;
    }
    if simple {
        s.jacdif[..3 * nv].fill(0.0);
        let n1 = m.body_dofnum[b1] as usize;
        let n2 = m.body_dofnum[b2] as usize;
        jac_sparse_simple(
            m,
            d,
            &mut s.jacdif,
            pos1,
            b1,
            false,
            nv,
            if b1 < b2 { 0 } else { n2 },
        );
        jac_sparse_simple(
            m,
            d,
            &mut s.jacdif,
            pos2,
            b2,
            true,
            nv,
            if b2 < b1 { 0 } else { n1 },
        );
    } else {
        let chain = &s.chain[..nv];
        jac_sparse(m, d, &mut s.jac1, pos1, b1, chain, skipcommon);
        jac_sparse(m, d, &mut s.jac2, pos2, b2, chain, skipcommon);
        for k in 0..3 * nv {
            s.jacdif[k] = s.jac2[k] - s.jac1[k];
        }
    }
    nv
}
