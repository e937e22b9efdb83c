//! The discrete metric's constant bending factor (`mj_setConst`'s `setEfm0Factor`): the
//! factor of `M + (h² + h·β)·K_bend` over the vertex dofs of the flexes with bending, which
//! MuJoCo 3.15.0 uses as the CG preconditioner of those dofs when the per-step metric covers no
//! vertex triple (bending-only flexes). Made once, at the model's timestep and with its spring
//! and damper flags, as MuJoCo does.

use crate::engine::elastic::bending_stencil;
use crate::engine::metric::Efm0;
use crate::engine::sparse_chol::SparseLdl;
use crate::model::Model;

/// Whether flex `f`'s bending enters `efm0`: a dim-2, non-rigid, non-interpolated flex with
/// bending coefficients.
fn bends(m: &Model, f: usize) -> bool {
    m.flex_dim[f] == 2 && m.flex_rigid[f] == 0 && m.flex_interp[f] == 0 && m.flex_bendingadr[f] >= 0
}

/// The first dof of vertex `v`'s body, or None for a vertex without joints.
fn vert_dof(m: &Model, v: usize) -> Option<usize> {
    let b = m.flex_vertbodyid[v];
    (b >= 0 && m.body_dofnum[b as usize] > 0).then(|| m.body_dofadr[b as usize] as usize)
}

/// Calls `f(r, c, q)` for every same-coordinate coupling `q = (s1 + s2·β)·b_ij` (kg, as the
/// masses it is added to) between dofs `r` and `c` of the bending stencils (both orders, and the
/// diagonal), with `s1`, `s2` of [`crate::engine::metric::stiffness_scales`].
fn couplings(m: &Model, mut f: impl FnMut(usize, usize, f64)) {
    let (s1, s2) = crate::engine::metric::stiffness_scales(m);
    for fl in 0..m.nflex {
        if !bends(m, fl) {
            continue;
        }
        let scale = s1 + s2 * m.flex_damping[fl];
        let va = m.flex_vertadr[fl] as usize;
        let bend = &m.flex_bending[m.flex_bendingadr[fl] as usize..];
        let ea = m.flex_edgeadr[fl] as usize;
        for e in 0..m.flex_edgenum[fl] as usize {
            let Some(stencil) = bending_stencil(m, ea + e) else {
                continue;
            };
            for (i, &vi) in stencil.iter().enumerate() {
                let Some(di) = vert_dof(m, va + vi as usize) else {
                    continue;
                };
                for (j, &vj) in stencil.iter().enumerate() {
                    let Some(dj) = vert_dof(m, va + vj as usize) else {
                        continue;
                    };
                    let q = scale * bend[17 * e + 4 * i + j];
                    for c in 0..3 {
                        f(di + c, dj + c, q);
                    }
                }
            }
        }
    }
}

/// Sets `nefm0dof`, `efm0_dofid` and `efm0`: the dofs of the vertices with joints of the
/// flexes with bending, with the point mass and armature on the diagonal and, per bending
/// stencil, the same-coordinate couplings `(h² + h·β)·b_ij`. A vertex body with other than 3
/// dofs is not modelled: then there is no factor and CG keeps its backbone preconditioner.
pub fn set_efm0(m: &mut Model) {
    m.nefm0dof = 0;
    m.efm0_dofid.clear();
    m.efm0 = None;
    let nv = m.nv;
    let mut diag = vec![1.0; nv];
    let mut covered = vec![false; nv];
    for f in 0..m.nflex {
        if !bends(m, f) {
            continue;
        }
        let va = m.flex_vertadr[f] as usize;
        for v in va..va + m.flex_vertnum[f] as usize {
            let Some(adr) = vert_dof(m, v) else { continue };
            if m.body_dofnum[m.flex_vertbodyid[v] as usize] != 3 {
                return;
            }
            for i in adr..adr + 3 {
                covered[i] = true;
                diag[i] = m.body_mass[m.dof_bodyid[i] as usize] + m.dof_armature[i];
            }
        }
    }
    let mut dofs = Vec::new();
    for (i, &c) in covered.iter().enumerate() {
        if c {
            dofs.push(i);
            m.efm0_dofid.push(i as i32);
        }
    }
    if dofs.is_empty() {
        return;
    }
    // the strict lower triangle as a list per row in flat arrays (`head[r]`, then `next`), a
    // pair met twice is summed by the factorization
    const END: usize = usize::MAX;
    let (mut head, mut next, mut col, mut val) =
        (vec![END; nv], Vec::new(), Vec::new(), Vec::new());
    couplings(m, |r, c, q| {
        if r == c {
            diag[r] += q;
        } else if c < r {
            next.push(head[r]);
            head[r] = col.len();
            col.push(c);
            val.push(q);
        }
    });
    let mut ldl = SparseLdl::default();
    let mut lower = Vec::with_capacity(val.len());
    ldl.start(nv);
    for &first in &head {
        let mut k = first;
        while k != END {
            ldl.push(col[k]);
            lower.push(val[k]);
            k = next[k];
        }
        ldl.end_row();
    }
    ldl.analyze();
    ldl.factor(crate::math::MINVAL, &lower, &diag, &mut |_, _| {});
    m.nefm0dof = dofs.len();
    m.efm0 = Some(Efm0 { ldl, dofs });
}
