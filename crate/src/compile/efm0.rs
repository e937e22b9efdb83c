//! The discrete metric's constant bending factor (`mj_setConst`'s `setEfm0Factor`): the
//! factor of `M + (h² + h·β)·K_bend` over the vertex dofs of the flexes with bending, which
//! MuJoCo 3.15.0 uses as the CG preconditioner of those dofs when the per-step metric covers no
//! vertex triple (bending-only flexes). Made once, at the model's timestep and with its spring
//! and damper flags, as MuJoCo does.

use crate::engine::elastic::bending_stencil;
use crate::engine::metric::Efm0;
use crate::engine::rchol::RevChol;
use crate::error::{Error, Result};
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

/// Calls `f(r, c, q)` for the dof pairs of two vertices of a bending stencil (both orders):
/// `q = (s1 + s2·β)·b_ij` (kg, as the masses it is added to) between the same coordinates, and
/// between two different vertices an explicit 0 for the other coordinate pairs, with `s1`, `s2`
/// of [`crate::engine::metric::stiffness_scales`]. MuJoCo 3.15.0's `efm0` has the whole 3×3
/// block of two vertices in its pattern, and a vertex's own block diagonal; the zeros change
/// no value of the matrix, but the factor's elimination walk, and so the order of its sums,
/// follows the pattern (with the same-coordinate pattern alone, some fill values of `efm0_L`
/// parted from MuJoCo's by ~1e-12 relative).
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
                    for a in 0..3 {
                        for b in 0..3 {
                            if a == b {
                                f(di + a, dj + b, q);
                            } else if di != dj {
                                f(di + a, dj + b, 0.0);
                            }
                        }
                    }
                }
            }
        }
    }
}

/// Sets `nefm0dof`, `efm0_dofid` and `efm0`: the dofs of the vertices with joints of the
/// flexes with bending, with the point mass and armature on the diagonal and, per bending
/// stencil, the same-coordinate couplings `(h² + h·β)·b_ij` (on the pattern of whole vertex
/// blocks, as MuJoCo's). A vertex body with other than 3
/// dofs is not modelled: then there is no factor and CG keeps its backbone preconditioner.
/// A rank-deficient factor is MuJoCo 3.15.0's compile error.
pub fn set_efm0(m: &mut Model) -> Result<()> {
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
                return Ok(());
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
        return Ok(());
    }
    // K = s·K_bend per dof row, each pair's terms summed in stencil order, its columns then
    // ascending (`mjd_flexStiff_assemble`), on whole 3×3 vertex blocks
    let mut rows: Vec<Vec<(usize, f64)>> = vec![Vec::new(); nv];
    couplings(m, |r, c, q| match rows[r].iter_mut().find(|e| e.0 == c) {
        Some(e) => e.1 += q,
        None => rows[r].push((c, q)),
    });
    for row in &mut rows {
        row.sort_by_key(|e| e.0);
    }
    // compact rows (dofs ascending): H = M + K, the diagonal last as (mass + armature) + K_ii
    let mut compact = vec![usize::MAX; nv];
    for (r, &i) in dofs.iter().enumerate() {
        compact[i] = r;
    }
    let part = |r: usize, upper: bool| -> Vec<(usize, f64)> {
        rows[dofs[r]]
            .iter()
            .filter_map(|&(c, q)| {
                let rc = compact[c];
                (rc != usize::MAX && rc != r && (rc > r) == upper).then_some((rc, q))
            })
            .collect()
    };
    let mut factor = RevChol::symbolic(dofs.len(), |r| part(r, true).iter().map(|e| e.0).collect());
    let rank = factor.numeric(crate::math::MINVAL, |r| {
        let i = dofs[r];
        let kii = rows[i].iter().find(|e| e.0 == i).map_or(0.0, |e| e.1);
        let mut row = part(r, false);
        row.push((r, diag[i] + kii));
        row
    });
    if rank < dofs.len() {
        // a vertex without mass (MuJoCo 3.15.0's mj_setConst refuses the model the same way)
        return Err(Error::engine(format!(
            "constant metric factor is rank-deficient ({rank} of {})",
            dofs.len()
        )));
    }
    let coldof = factor.colind.iter().map(|&c| dofs[c] as i32).collect();
    m.nefm0dof = dofs.len();
    m.efm0 = Some(Efm0 {
        dofs,
        l: factor,
        coldof,
    });
    Ok(())
}
