//! Energies as MuJoCo reports them (`mj_energyPos`, `mj_energyVel`): gravity, joint springs
//! (all four joint types), tendon springs and flex edge springs; flex elasticity is left out,
//! as in MuJoCo (use the flex energies instead).

use crate::data::Data;
use crate::model::{disable, Model};

/// A linear spring's energy at stretch `x`, rounded as MuJoCo 3.15.0 rounds it: ½·k·(x·x),
/// with `x` the length of the displacement for free and ball joints (J, with k in N/m or N·m).
fn spring(k: f64, x: f64) -> f64 {
    0.5 * k * (x * x)
}

/// The angle between a joint's quaternion and its spring quaternion (rad). Out of line: the
/// step inlines the quaternion difference where it is hot, this is not.
#[inline(never)]
fn rotation(q: &[f64], spring: &[f64]) -> f64 {
    let quat = [q[0], q[1], q[2], q[3]];
    let spring = [spring[0], spring[1], spring[2], spring[3]];
    let dif = super::integrator::sub_quat(&quat, &spring);
    crate::math::dot3(&dif, &dif).sqrt()
}

/// Fills `d.energy` = [potential, kinetic] (J), as the energy flag has MuJoCo do each step.
pub fn energy(m: &Model, d: &mut Data) {
    energy_pos(m, d);
    energy_vel(m, d);
}

/// The potential energy into `d.energy[0]` (`mj_energyPos`; J).
pub fn energy_pos(m: &Model, d: &mut Data) {
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
            if k == 0.0 {
                continue;
            }
            let mut p = m.jnt_qposadr[j] as usize;
            let (q, qs) = (&d.a.qpos, &m.qpos_spring);
            if m.jnt_type[j] >= 2 {
                pot += spring(k, q[p] - qs[p]);
                continue;
            }
            if m.jnt_type[j] == 0 {
                // a free joint's translation, then its rotation as a ball joint's
                let dif = [q[p] - qs[p], q[p + 1] - qs[p + 1], q[p + 2] - qs[p + 2]];
                pot += spring(k, crate::math::dot3(&dif, &dif).sqrt());
                p += 3;
            }
            // the quaternion difference of the raw qpos (mj_energyPos normalizes a copy it
            // then leaves unused)
            pot += spring(k, rotation(&q[p..p + 4], &qs[p..p + 4]));
        }
        // tendon springs: outside the [lower, upper] rest band
        for t in 0..m.ntendon {
            let x = super::tendon::spring_stretch(m, t, d.a.ten_length[t]);
            pot += spring(m.tendon_stiffness[t], x);
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
    d.energy[0] = pot;
}

/// The kinetic energy ½·vᵀ·M·v into `d.energy[1]` (`mj_energyVel`; J).
pub fn energy_vel(m: &Model, d: &mut Data) {
    let mut mv = std::mem::take(&mut d.energy_mv);
    super::inertia::mul_m(m, &d.a.M, &d.a.qvel, &mut mv);
    d.energy[1] = 0.5 * crate::math::dot(&mv, &d.a.qvel);
    d.energy_mv = mv;
}
