//! The forward pipeline (MuJoCo's `mj_forward` and `mj_step`): position stage, velocity stage,
//! smooth acceleration, constraint solve, then the integrator. Diverging states are detected
//! as MuJoCo's bad-qpos/qvel/qacc warnings and reset, never carried on.

use super::{
    actuation, collision, constraint, flex, implicit, inertia, integrator, kinematics, metric,
    passive, rne, sensor, solver, tendon, Scratch,
};
use crate::data::{Data, Warning};
use crate::math::is_bad;
use crate::model::{disable, Integrator, Model};

/// Position-dependent quantities.
pub fn fwd_position(m: &Model, d: &mut Data, s: &mut Scratch) {
    kinematics::kinematics(m, d);
    kinematics::com_pos(m, d);
    s.elastic.hessian_valid.fill(false);
    flex::flex(m, d, &mut s.jac, &mut s.vertcols, &mut s.nodebuf);
    s.elastic.vjac.update(m, d);
    tendon::tendon(m, d);
    inertia::make_m(m, d);
    inertia::factor_m(m, d);
    metric::prepare_diag(m, &mut s.metric);
    collision::collision(m, d, s);
    constraint::make_constraint(m, d, s);
    actuation::transmission(m, d);
    metric::build(m, d, s);
}

/// Velocity-dependent quantities.
pub fn fwd_velocity(m: &Model, d: &mut Data, s: &mut Scratch) {
    flex::edge_velocity(m, d);
    tendon::velocity(m, d);
    actuation::velocity(m, d);
    kinematics::com_vel(m, d);
    passive::passive(m, d, s);
    constraint::reference(m, d, s);
    let mut bias = std::mem::take(&mut d.a.qfrc_bias);
    rne::rne(m, d, false, &mut s.cacc, &mut s.cfrc, &mut bias);
    d.a.qfrc_bias = bias;
    metric::shift(m, d, s);
}

/// `qfrc_smooth` and the unconstrained acceleration `qacc_smooth`.
pub fn fwd_acceleration(m: &Model, d: &mut Data, s: &mut Scratch) {
    let a = &mut d.a;
    for i in 0..m.nv {
        a.qfrc_smooth[i] =
            a.qfrc_passive[i] - a.qfrc_bias[i] + a.qfrc_applied[i] + a.qfrc_actuator[i];
    }
    xfrc_accumulate(m, d, s);
    if s.metric.active {
        metric::solve_smooth(m, d, s);
        return;
    }
    let a = &mut d.a;
    a.qacc_smooth.copy_from_slice(&a.qfrc_smooth);
    let mut x = std::mem::take(&mut a.qacc_smooth);
    inertia::solve_ld(m, &a.qLD, &a.qLDiagInv, &mut x);
    a.qacc_smooth = x;
}

/// Adds `xfrc_applied` (Cartesian wrenches at body centres of mass) to `qfrc_smooth`.
fn xfrc_accumulate(m: &Model, d: &mut Data, s: &mut Scratch) {
    for b in 1..m.nbody {
        let f = &d.a.xfrc_applied[6 * b..6 * b + 6];
        if f.iter().all(|&x| x == 0.0) {
            continue;
        }
        let force = [f[0], f[1], f[2]];
        let torque = [f[3], f[4], f[5]];
        let point = [d.a.xipos[3 * b], d.a.xipos[3 * b + 1], d.a.xipos[3 * b + 2]];
        let mut out = std::mem::take(&mut s.qfrc_tmp);
        out.fill(0.0);
        super::support::apply_ft(m, d, &mut s.jac, &force, &torque, &point, b, &mut out);
        for i in 0..m.nv {
            d.a.qfrc_smooth[i] += out[i];
        }
        s.qfrc_tmp = out;
    }
}

/// Constraint solve: `qacc` from `qacc_smooth` and the constraint rows.
pub fn fwd_constraint(m: &Model, d: &mut Data, s: &mut Scratch) {
    d.a.qfrc_constraint.fill(0.0);
    if d.nefc == 0 {
        let a = &mut d.a;
        a.qacc.copy_from_slice(&a.qacc_smooth);
        d.solver_niter = 0;
    } else {
        solver::solve(m, d, s);
    }
    if s.metric.active {
        metric::discrete_gyro(m, d, s);
    }
}

/// Forward dynamics without the divergence checks.
pub fn forward_core(m: &Model, d: &mut Data, s: &mut Scratch) {
    forward_stages(m, d, s, true);
}

/// The stages of the forward pass, each followed by its sensors when `sensors`
/// (`mj_forwardSkip` from the start), and by its energy under the energy flag, sensors or not
/// (the kinetic-energy sensor reads the previous evaluation's, as MuJoCo's does).
pub fn forward_stages(m: &Model, d: &mut Data, s: &mut Scratch, sensors: bool) {
    let energy = m.opt.enabled(crate::model::enable::ENERGY);
    fwd_position(m, d, s);
    // a potential-energy sensor has computed it already (MuJoCo's flg_energypos)
    let energy_pos_done = sensors && sensor::sensor_pos(m, d);
    if energy && !energy_pos_done {
        super::energy::energy_pos(m, d);
    }
    fwd_velocity(m, d, s);
    if sensors {
        sensor::sensor_vel(m, d);
    }
    if energy {
        super::energy::energy_vel(m, d);
    }
    actuation::fwd_actuation(m, d);
    metric::actuation(m, d, s);
    fwd_acceleration(m, d, s);
    fwd_constraint(m, d, s);
    if sensors {
        sensor::sensor_acc(m, d);
    }
}

/// `mj_forward` on `d`, using the scratch stored in `d`.
pub fn forward(m: &Model, d: &mut Data) {
    let mut s = std::mem::take(&mut d.scratch);
    forward_core(m, d, &mut s);
    d.scratch = s;
}

fn check_bad(m: &Model, d: &mut Data, which: Warning) -> bool {
    let v = match which {
        Warning::BadQpos => &d.a.qpos,
        Warning::BadQvel => &d.a.qvel,
        _ => &d.a.qacc,
    };
    if let Some(i) = v.iter().position(|&x| is_bad(x)) {
        let (number, time) = (d.warning[which as usize].number, d.time);
        let _ = time;
        if !m.opt.disabled(disable::AUTORESET) {
            let keep = d.warning;
            d.reset(m);
            d.warning = keep;
        }
        d.warning[which as usize].number = number + 1;
        d.warning[which as usize].lastinfo = i as i32;
        return true;
    }
    false
}

/// One simulation step (`mj_step`).
pub fn step(m: &Model, d: &mut Data) {
    let mut s = std::mem::take(&mut d.scratch);
    check_bad(m, d, Warning::BadQpos);
    check_bad(m, d, Warning::BadQvel);
    forward_core(m, d, &mut s);
    if check_bad(m, d, Warning::BadQacc) && !m.opt.disabled(disable::AUTORESET) {
        forward_core(m, d, &mut s);
    }
    match m.opt.integrator {
        Integrator::Euler => integrator::euler(m, d, &mut s),
        Integrator::Rk4 => integrator::rk4(m, d, &mut s),
        Integrator::Implicit | Integrator::ImplicitFast => implicit::implicit(m, d, &mut s),
        Integrator::Discrete => metric::discrete(m, d, &mut s),
    }
    d.scratch = s;
}
