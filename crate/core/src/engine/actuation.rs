//! Actuators with joint, fixed-tendon and site transmissions (`mj_transmission`,
//! `mj_fwdActuation`): clamped controls, activation dynamics (integrator, filter, exact
//! filter), affine gain and bias, force limits, and `qfrc_actuator = momentᵀ·force`.

use crate::data::Data;
use crate::model::{disable, Model};

/// `mjTRN_TENDON`: the transmission type of an actuator acting on a tendon.
pub const TENDON: i32 = 3;
/// `mjTRN_SITE`: the transmission type of an actuator acting on a site.
pub const SITE: i32 = 4;

/// Actuator lengths and moment rows (`mj_transmission`): `actuator_moment` in this step's
/// `moment_*` sparsity, rows packed end to end. A site's row, and a tendon's where MuJoCo keeps
/// Jacobians dense, drop their exactly zero entries, as MuJoCo compresses them.
pub fn transmission(m: &Model, d: &mut Data) {
    let dense = !super::constraint::sparse_jacobian(m);
    let mut adr = 0;
    for i in 0..m.nu {
        let gear = m.actuator_gear[6 * i];
        let id = m.actuator_trnid[2 * i] as usize;
        let (from, n) = (m.trn_rowadr[i] as usize, m.trn_rownnz[i] as usize);
        // MuJoCo compresses a site's row always, a tendon's only where Jacobians are dense
        let compress = match m.actuator_trntype[i] {
            SITE => true,
            0 => false,
            _ => dense,
        };
        if m.actuator_trntype[i] == 0 {
            d.a.actuator_length[i] = gear * d.a.qpos[m.jnt_qposadr[id] as usize];
            d.a.actuator_moment[adr] = gear;
        } else if m.actuator_trntype[i] == SITE {
            d.a.actuator_length[i] = 0.0;
            let mut row = std::mem::take(&mut d.a.actuator_moment);
            site_moment(m, d, i, &mut row[adr..adr + n]);
            d.a.actuator_moment = row;
        } else {
            d.a.actuator_length[i] = gear * d.a.ten_length[id];
            let tadr = m.ten_J_rowadr[id] as usize;
            for k in 0..n {
                d.a.actuator_moment[adr + k] = gear * d.a.ten_J[tadr + k];
            }
        }
        let a = &mut d.a;
        a.moment_colind[adr..adr + n].copy_from_slice(&m.trn_colind[from..from + n]);
        let mut nnz = n;
        if compress {
            nnz = 0;
            for k in adr..adr + n {
                if a.actuator_moment[k] != 0.0 {
                    a.actuator_moment[adr + nnz] = a.actuator_moment[k];
                    a.moment_colind[adr + nnz] = a.moment_colind[k];
                    nnz += 1;
                }
            }
        }
        a.moment_rowadr[i] = adr as i32;
        a.moment_rownnz[i] = nnz as i32;
        adr += nnz;
    }
}

/// The moment row of a site transmission (no `refsite`) over its candidate columns: the
/// site's Jacobian transposed times the gear wrench rotated into the world frame
/// (`mj_transmission`, `mjTRN_SITE`), summed in MuJoCo's order.
pub fn site_moment(m: &Model, d: &Data, i: usize, out: &mut [f64]) {
    let s = m.actuator_trnid[2 * i] as usize;
    let g = &m.actuator_gear[6 * i..6 * i + 6];
    let r = &d.a.site_xmat[9 * s..9 * s + 9];
    let rot = |v: &[f64]| {
        [
            r[0] * v[0] + r[1] * v[1] + r[2] * v[2],
            r[3] * v[0] + r[4] * v[1] + r[5] * v[2],
            r[6] * v[0] + r[7] * v[1] + r[8] * v[2],
        ]
    };
    let (f, t) = (rot(&g[..3]), rot(&g[3..]));
    let body = m.site_bodyid[s] as usize;
    let root = m.body_rootid[body] as usize;
    let off = [
        d.a.site_xpos[3 * s] - d.a.subtree_com[3 * root],
        d.a.site_xpos[3 * s + 1] - d.a.subtree_com[3 * root + 1],
        d.a.site_xpos[3 * s + 2] - d.a.subtree_com[3 * root + 2],
    ];
    let adr = m.trn_rowadr[i] as usize;
    for (k, o) in out.iter_mut().enumerate() {
        let j = m.trn_colind[adr + k] as usize;
        let c = &d.a.cdof[6 * j..6 * j + 6];
        let x = crate::math::cross(&[c[0], c[1], c[2]], &off);
        let jp = [c[3] + x[0], c[4] + x[1], c[5] + x[2]];
        // two mju_mulMatTVec (the translational and rotational Jacobians), then their sum
        let trans = jp[0] * f[0] + jp[1] * f[1] + jp[2] * f[2];
        let rot = c[0] * t[0] + c[1] * t[1] + c[2] * t[2];
        *o = trans + rot;
    }
}

/// Actuator velocities `moment·qvel`, each row summed as `mju_mulMatVecSparse` sums it
/// (`mju_dotSparse`'s four lanes: a plain sum parted a site motor's velocity by an ulp).
pub fn velocity(m: &Model, d: &mut Data) {
    let a = &mut d.a;
    // MuJoCo leaves it zero with actuation disabled (the actuatorvel sensor reads 0)
    if m.opt.disabled(disable::ACTUATION) {
        a.actuator_velocity[..m.nu].fill(0.0);
        return;
    }
    for i in 0..m.nu {
        let adr = a.moment_rowadr[i] as usize;
        let end = adr + a.moment_rownnz[i] as usize;
        a.actuator_velocity[i] = super::solver::dot_sparse_avx(
            &a.actuator_moment[adr..end],
            &a.qvel,
            &a.moment_colind[adr..end],
        );
    }
}

/// The control actually applied: clamped to `ctrlrange` unless `clampctrl` is disabled.
pub fn clamped_ctrl(m: &Model, d: &Data, i: usize) -> f64 {
    let c = d.a.ctrl[i];
    if m.actuator_ctrllimited[i] != 0 && !m.opt.disabled(disable::CLAMPCTRL) {
        crate::math::clip(
            c,
            m.actuator_ctrlrange[2 * i],
            m.actuator_ctrlrange[2 * i + 1],
        )
    } else {
        c
    }
}

/// What actuator `i`'s gain multiplies this step, once its `act_dot` is set (by
/// [`fwd_actuation`]): its clamped control, or its activation (the next step's with
/// `actearly`).
pub fn input(m: &Model, d: &Data, i: usize) -> f64 {
    match usize::try_from(m.actuator_actadr[i]) {
        Err(_) => clamped_ctrl(m, d, i),
        Ok(adr) if m.actuator_actearly[i] != 0 => next_activation(m, d, i, adr, d.a.act_dot[adr]),
        Ok(adr) => d.a.act[adr],
    }
}

/// `mjtDyn` values.
pub mod dyn_type {
    pub const NONE: i32 = 0;
    pub const INTEGRATOR: i32 = 1;
    pub const FILTER: i32 = 2;
    pub const FILTEREXACT: i32 = 3;
}

/// The activation of actuator `i` at `adr` one step on with rate `act_dot`
/// (`mj_nextActivation`): the exact filter's exponential, else Euler, then `actrange`.
pub fn next_activation(m: &Model, d: &Data, i: usize, adr: usize, act_dot: f64) -> f64 {
    let act = d.a.act[adr];
    let h = m.opt.timestep;
    let mut next = if m.actuator_dyntype[i] == dyn_type::FILTEREXACT {
        let tau = m.actuator_dynprm[10 * i].max(crate::math::MINVAL);
        act + act_dot * tau * (1.0 - (-h / tau).exp())
    } else {
        act + act_dot * h
    };
    if m.actuator_actlimited[i] != 0 {
        let r = &m.actuator_actrange[2 * i..2 * i + 2];
        next = crate::math::clip(next, r[0], r[1]);
    }
    next
}

/// Whether actuator `i` is in a group `<option actuatorgroupdisable>` disables
/// (`mj_actuatorDisabled`): it adds no force, no derivative, and its activation holds still
/// while its `act_dot` is still computed.
pub fn actuator_disabled(m: &Model, i: usize) -> bool {
    let g = m.actuator_group[i];
    (0..=30).contains(&g) && m.opt.disableactuator & (1 << g) != 0
}

/// Advances every activation one step with the rates `act_dot` (`mj_advance`).
pub fn advance_activations(m: &Model, d: &mut Data, act_dot: &[f64]) {
    if m.na == 0 || m.opt.disabled(disable::ACTUATION) {
        return;
    }
    for i in 0..m.nu {
        if let Ok(adr) = usize::try_from(m.actuator_actadr[i]) {
            let rate = if actuator_disabled(m, i) {
                0.0
            } else {
                act_dot[adr]
            };
            d.a.act[adr] = next_activation(m, d, i, adr, rate);
        }
    }
}

/// `actuator_force` and `qfrc_actuator` (N or N·m), and the activations' rates `act_dot`.
pub fn fwd_actuation(m: &Model, d: &mut Data) {
    d.a.qfrc_actuator.fill(0.0);
    if m.nu == 0 || m.opt.disabled(disable::ACTUATION) {
        d.a.actuator_force.fill(0.0);
        return;
    }
    for i in 0..m.nu {
        if let Ok(adr) = usize::try_from(m.actuator_actadr[i]) {
            let ctrl = clamped_ctrl(m, d, i);
            d.a.act_dot[adr] = match m.actuator_dyntype[i] {
                dyn_type::INTEGRATOR => ctrl,
                _ => (ctrl - d.a.act[adr]) / m.actuator_dynprm[10 * i].max(crate::math::MINVAL),
            };
        }
        if actuator_disabled(m, i) {
            d.a.actuator_force[i] = 0.0;
            continue;
        }
        let input = input(m, d, i);
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
        let mut force = gain * input + bias;
        if m.actuator_forcelimited[i] != 0 {
            force = crate::math::clip(
                force,
                m.actuator_forcerange[2 * i],
                m.actuator_forcerange[2 * i + 1],
            );
        }
        a.actuator_force[i] = force;
        let adr = a.moment_rowadr[i] as usize;
        for k in adr..adr + a.moment_rownnz[i] as usize {
            a.qfrc_actuator[a.moment_colind[k] as usize] += a.actuator_moment[k] * force;
        }
    }
    super::gravcomp::add_to_actuator(m, d);
    // the joints' limits on the actuators' total force (hinge and slide: one dof each)
    for j in 0..m.njnt {
        if m.jnt_actfrclimited[j] != 0 {
            let v = m.jnt_dofadr[j] as usize;
            let r = &m.jnt_actfrcrange[2 * j..2 * j + 2];
            d.a.qfrc_actuator[v] = crate::math::clip(d.a.qfrc_actuator[v], r[0], r[1]);
        }
    }
}

/// `∂force/∂length` and `∂force/∂velocity` of actuator `i`: the affine gain's terms times its
/// [`input`], plus the affine bias's; zeros when actuation is disabled or `forcerange` clamps
/// the force (`mjd_actuatorDerivSkip`). The implicit integrators read the velocity part
/// ([`velocity_derivative`]), the discrete metric both.
pub fn force_derivatives(m: &Model, d: &Data, i: usize) -> (f64, f64) {
    if m.opt.disabled(disable::ACTUATION) || actuator_disabled(m, i) {
        return (0.0, 0.0);
    }
    if m.actuator_forcelimited[i] != 0 {
        let f = d.a.actuator_force[i];
        if f <= m.actuator_forcerange[2 * i] || f >= m.actuator_forcerange[2 * i + 1] {
            return (0.0, 0.0);
        }
    }
    let (mut dlen, mut dvel) = (0.0, 0.0);
    if m.actuator_biastype[i] == 1 {
        (dlen, dvel) = (
            m.actuator_biasprm[10 * i + 1],
            m.actuator_biasprm[10 * i + 2],
        );
    }
    if m.actuator_gaintype[i] == 1 {
        // what the force's gain multiplied: the raw control put a damper driven past its
        // range 1e-4 m off MuJoCo 3.15.0 within 0.8 s under implicitfast, the current
        // activation an actearly filter 3e-5 m
        let input = input(m, d, i);
        dlen += m.actuator_gainprm[10 * i + 1] * input;
        dvel += m.actuator_gainprm[10 * i + 2] * input;
    }
    (dlen, dvel)
}

/// `d qfrc_actuator / d qvel` of actuator `i` as a scalar `s` with the derivative
/// `s·momentᵀ·moment` (`mjd_actuator_vel`).
pub fn velocity_derivative(m: &Model, d: &Data, i: usize) -> f64 {
    force_derivatives(m, d, i).1
}
