//! Body gravity compensation (MuJoCo's `mj_gravcomp`): a body with `gravcomp = g` feels an
//! upward force of `g` times its weight at its centre of mass, so `g = 1` floats, `g = 0.5`
//! falls at half gravity and `g = 2` rises. The force maps to the dofs through the body's
//! Jacobian into `qfrc_gravcomp`; `mj_passive` adds each dof's share to `qfrc_passive`, unless
//! its joint has `actuatorgravcomp`, whose share `fwd_actuation` adds to `qfrc_actuator`.

use super::jacobian::JacScratch;
use crate::data::Data;
use crate::model::{disable, Model};

/// Whether gravity compensation acts at all: some body has a positive `gravcomp`
/// (`flg_gravcomp`) and gravity is on and non-zero.
pub fn active(m: &Model) -> bool {
    let g = &m.opt.gravity;
    m.ngravcomp > 0
        && !m.opt.disabled(disable::GRAVITY)
        && crate::math::norm3(&[g[0], g[1], g[2]]) != 0.0
}

/// Computes `qfrc_gravcomp` (N or N·m) and returns whether any body is compensated. The caller
/// has zeroed it.
pub fn gravcomp(m: &Model, d: &mut Data, jac: &mut JacScratch) -> bool {
    if !active(m) {
        return false;
    }
    let mut out = std::mem::take(&mut d.a.qfrc_gravcomp);
    let mut any = false;
    for b in 1..m.nbody {
        let g = m.body_gravcomp[b];
        if g == 0.0 {
            continue;
        }
        any = true;
        let scale = -(m.body_mass[b] * g);
        let force = m.opt.gravity.map(|x| x * scale);
        let point = [d.a.xipos[3 * b], d.a.xipos[3 * b + 1], d.a.xipos[3 * b + 2]];
        super::support::apply_ft(m, d, jac, &force, &[0.0; 3], &point, b, &mut out);
    }
    d.a.qfrc_gravcomp = out;
    any
}

/// Adds the compensation of the joints with `actuatorgravcomp` to `qfrc_actuator`, before the
/// joints' actuator force limits clamp it.
pub fn add_to_actuator(m: &Model, d: &mut Data) {
    if !active(m) {
        return;
    }
    for j in 0..m.njnt {
        if m.jnt_actgravcomp[j] == 0 {
            continue;
        }
        let adr = m.jnt_dofadr[j] as usize;
        let num = crate::model::jnt_dofnum(m.jnt_type[j]);
        for v in adr..adr + num {
            d.a.qfrc_actuator[v] += d.a.qfrc_gravcomp[v];
        }
    }
}
