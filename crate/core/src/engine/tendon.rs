//! Fixed tendons (`mj_tendon` for joint wraps): length `Σ coefᵢ·qposᵢ`, a constant sparse
//! Jacobian row per tendon, and velocity `ten_J·qvel`; plus their spring (with MuJoCo's
//! deadband) and damper in the passive stage.

use crate::data::Data;
use crate::model::Model;

/// Tendon lengths (m or rad) and Jacobian rows, from `qpos`.
pub fn tendon(m: &Model, d: &mut Data) {
    if m.ntendon == 0 {
        return;
    }
    tendon_jacobian(m, &mut d.a.ten_J);
    for t in 0..m.ntendon {
        let mut len = 0.0;
        for w in m.tendon_adr[t] as usize..(m.tendon_adr[t] + m.tendon_num[t]) as usize {
            let j = m.wrap_objid[w] as usize;
            len += m.wrap_prm[w] * d.a.qpos[m.jnt_qposadr[j] as usize];
        }
        d.a.ten_length[t] = len;
    }
}

/// `ten_J·qvel` for row `t` of a CSR matrix with `ten_J`'s layout, summed in `mju_dotSparse`'s
/// four lanes as `mju_mulMatVecSparse` sums it.
pub fn row_dot(m: &Model, vals: &[f64], t: usize, x: &[f64]) -> f64 {
    let adr = m.ten_J_rowadr[t] as usize;
    let end = adr + m.ten_J_rownnz[t] as usize;
    super::solver::dot_sparse_avx(&vals[adr..end], x, &m.ten_J_colind[adr..end])
}

/// Tendon velocities (m/s or rad/s).
pub fn velocity(m: &Model, d: &mut Data) {
    for t in 0..m.ntendon {
        d.a.ten_velocity[t] = row_dot(m, &d.a.ten_J, t, &d.a.qvel);
    }
}

/// How far tendon `t` at length `len` is outside its spring's rest band [lower, upper]
/// (`tendon_lengthspring`), signed as the spring pulls it back: 0 inside the band (m or rad).
pub fn spring_stretch(m: &Model, t: usize, len: f64) -> f64 {
    let (lower, upper) = (
        m.tendon_lengthspring[2 * t],
        m.tendon_lengthspring[2 * t + 1],
    );
    if len > upper {
        upper - len
    } else if len < lower {
        lower - len
    } else {
        0.0
    }
}

/// Adds the tendon springs (to `qfrc_spring`) and dampers (to `qfrc_damper`) through `ten_J`.
pub fn spring_damper(m: &Model, d: &mut Data, spring: bool, damper: bool) {
    let a = &mut d.a;
    for t in 0..m.ntendon {
        let k = m.tendon_stiffness[t];
        let b = m.tendon_damping[t];
        let fs = if !spring || k == 0.0 {
            0.0
        } else {
            k * spring_stretch(m, t, a.ten_length[t])
        };
        let fd = if damper { -b * a.ten_velocity[t] } else { 0.0 };
        if fs == 0.0 && fd == 0.0 {
            continue;
        }
        let adr = m.ten_J_rowadr[t] as usize;
        for p in adr..adr + m.ten_J_rownnz[t] as usize {
            let c = m.ten_J_colind[p] as usize;
            a.qfrc_spring[c] += a.ten_J[p] * fs;
            a.qfrc_damper[c] += a.ten_J[p] * fd;
        }
    }
}

/// Values of the fixed-tendon Jacobian (`ten_J`), its coefficients summed per dof.
pub fn tendon_jacobian(m: &Model, ten_j: &mut [f64]) {
    ten_j.fill(0.0);
    for t in 0..m.ntendon {
        let adr = m.ten_J_rowadr[t] as usize;
        let n = m.ten_J_rownnz[t] as usize;
        for w in m.tendon_adr[t] as usize..(m.tendon_adr[t] + m.tendon_num[t]) as usize {
            let dof = m.jnt_dofadr[m.wrap_objid[w] as usize];
            if let Some(k) = m.ten_J_colind[adr..adr + n].iter().position(|&c| c == dof) {
                ten_j[adr + k] += m.wrap_prm[w];
            }
        }
    }
}
