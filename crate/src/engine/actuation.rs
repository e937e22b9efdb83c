//! Actuators with joint and fixed-tendon transmissions (`mj_transmission`,
//! `mj_fwdActuation`): clamped controls, affine gain and bias, force limits, and
//! `qfrc_actuator = momentᵀ·force`. No activation dynamics (`dyntype` none).

use crate::data::Data;
use crate::model::{disable, Model};

/// Actuator lengths and moment rows (`actuator_moment` in `moment_*` sparsity).
pub fn transmission(m: &Model, d: &mut Data) {
    let a = &mut d.a;
    for i in 0..m.nu {
        let gear = m.actuator_gear[6 * i];
        let id = m.actuator_trnid[2 * i] as usize;
        let adr = m.moment_rowadr[i] as usize;
        if m.actuator_trntype[i] == 0 {
            a.actuator_length[i] = gear * a.qpos[m.jnt_qposadr[id] as usize];
            a.actuator_moment[adr] = gear;
        } else {
            a.actuator_length[i] = gear * a.ten_length[id];
            let tadr = m.ten_J_rowadr[id] as usize;
            for k in 0..m.moment_rownnz[i] as usize {
                a.actuator_moment[adr + k] = gear * a.ten_J[tadr + k];
            }
        }
    }
}

/// Actuator velocities `moment·qvel`.
pub fn velocity(m: &Model, d: &mut Data) {
    let a = &mut d.a;
    for i in 0..m.nu {
        let adr = m.moment_rowadr[i] as usize;
        a.actuator_velocity[i] = (adr..adr + m.moment_rownnz[i] as usize)
            .map(|k| a.actuator_moment[k] * a.qvel[m.moment_colind[k] as usize])
            .sum();
    }
}

/// The control actually applied: clamped to `ctrlrange` unless `clampctrl` is disabled.
pub fn clamped_ctrl(m: &Model, d: &Data, i: usize) -> f64 {
    let c = d.a.ctrl[i];
    if m.actuator_ctrllimited[i] != 0 && !m.opt.disabled(disable::CLAMPCTRL) {
        c.clamp(m.actuator_ctrlrange[2 * i], m.actuator_ctrlrange[2 * i + 1])
    } else {
        c
    }
}

/// `actuator_force` and `qfrc_actuator` (N or N·m).
pub fn fwd_actuation(m: &Model, d: &mut Data) {
    d.a.qfrc_actuator.fill(0.0);
    if m.nu == 0 || m.opt.disabled(disable::ACTUATION) {
        d.a.actuator_force.fill(0.0);
        return;
    }
    for i in 0..m.nu {
        let ctrl = clamped_ctrl(m, d, i);
        let a = &mut d.a;
        let (len, vel) = (a.actuator_length[i], a.actuator_velocity[i]);
        let g = &m.actuator_gainprm[10 * i..10 * i + 3];
        let gain = match m.actuator_gaintype[i] {
            1 => g[0] + g[1] * len + g[2] * vel,
            _ => g[0],
        };
        let b = &m.actuator_biasprm[10 * i..10 * i + 3];
        let bias = match m.actuator_biastype[i] {
            1 => b[0] + b[1] * len + b[2] * vel,
            _ => 0.0,
        };
        let mut force = gain * ctrl + bias;
        if m.actuator_forcelimited[i] != 0 {
            force = force.clamp(
                m.actuator_forcerange[2 * i],
                m.actuator_forcerange[2 * i + 1],
            );
        }
        a.actuator_force[i] = force;
        let adr = m.moment_rowadr[i] as usize;
        for k in adr..adr + m.moment_rownnz[i] as usize {
            a.qfrc_actuator[m.moment_colind[k] as usize] += a.actuator_moment[k] * force;
        }
    }
}

/// `d qfrc_actuator / d qvel` of actuator `i` as a scalar `s` with the derivative
/// `s·momentᵀ·moment`; zero when the force is clamped by `forcerange` (`mjd_actuator_vel`).
pub fn velocity_derivative(m: &Model, d: &Data, i: usize) -> f64 {
    if m.opt.disabled(disable::ACTUATION) {
        return 0.0;
    }
    if m.actuator_forcelimited[i] != 0 {
        let f = d.a.actuator_force[i];
        if f <= m.actuator_forcerange[2 * i] || f >= m.actuator_forcerange[2 * i + 1] {
            return 0.0;
        }
    }
    let bias_vel = if m.actuator_biastype[i] == 1 {
        m.actuator_biasprm[10 * i + 2]
    } else {
        0.0
    };
    let gain_vel = if m.actuator_gaintype[i] == 1 {
        m.actuator_gainprm[10 * i + 2]
    } else {
        0.0
    };
    bias_vel + gain_vel * d.a.ctrl[i]
}
