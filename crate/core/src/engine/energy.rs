//! Energies as MuJoCo reports them (`mj_energyPos`, `mj_energyVel`): gravity, joint springs and
//! flex edge springs; flex elasticity is left out, as in MuJoCo (use the flex energies instead).

use crate::data::Data;
use crate::model::{disable, Model};

/// Fills `d.energy` = [potential, kinetic].
pub fn energy(m: &Model, d: &mut Data) {
    let mut pot = 0.0;
    if !m.opt.disabled(disable::GRAVITY) {
        for b in 1..m.nbody {
            let g = &m.opt.gravity;
            let x = &d.a.xipos[3 * b..3 * b + 3];
            pot -= m.body_mass[b] * (g[0] * x[0] + g[1] * x[1] + g[2] * x[2]);
        }
    }
    if !m.opt.disabled(disable::SPRING) {
        for j in 0..m.njnt {
            let k = m.jnt_stiffness[j];
            if k == 0.0 || m.jnt_type[j] < 2 {
                continue;
            }
            let p = m.jnt_qposadr[j] as usize;
            let x = d.a.qpos[p] - m.qpos_spring[p];
            pot += 0.5 * k * x * x;
        }
        for f in 0..m.nflex {
            let k = m.flex_edgestiffness[f];
            if k == 0.0 || m.flex_rigid[f] != 0 {
                continue;
            }
            let a = m.flex_edgeadr[f] as usize;
            for e in a..a + m.flex_edgenum[f] as usize {
                if m.flexedge_rigid[e] != 0 {
                    continue;
                }
                let x = d.a.flexedge_length[e] - m.flexedge_length0[e];
                pot += 0.5 * k * x * x;
            }
        }
    }
    // kinetic: ½ vᵀ M v
    let mut mv = crate::data::zeros::<f64>(m.nv);
    super::inertia::mul_m(m, &d.a.M, &d.a.qvel, &mut mv);
    let kin = 0.5 * crate::math::dot(&mv, &d.a.qvel);
    d.energy = [pot, kin];
}
