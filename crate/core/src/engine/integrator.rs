//! Time integration (MuJoCo's `mj_Euler`, `mj_RungeKutta`, `mj_implicit`, the 3.15.0 discrete
//! step) and `mj_advance`: velocities first, then positions with the new velocities.

use super::{forward, Scratch};
use crate::data::Data;
use crate::math::*;
use crate::model::{disable, Model};

/// `qpos ← qpos ⊕ dt·qvel` for every joint type (`mj_integratePos`).
pub fn integrate_pos(m: &Model, qpos: &mut [f64], qvel: &[f64], dt: f64) {
    for j in 0..m.njnt {
        let mut padr = m.jnt_qposadr[j] as usize;
        let mut vadr = m.jnt_dofadr[j] as usize;
        let jt = m.jnt_type[j];
        if jt == 0 {
            for i in 0..3 {
                qpos[padr + i] += dt * qvel[vadr + i];
            }
            padr += 3;
            vadr += 3;
        }
        if jt == 0 || jt == 1 {
            let mut q = [qpos[padr], qpos[padr + 1], qpos[padr + 2], qpos[padr + 3]];
            quat_integrate(&mut q, &[qvel[vadr], qvel[vadr + 1], qvel[vadr + 2]], dt);
            qpos[padr..padr + 4].copy_from_slice(&q);
        } else {
            qpos[padr] += dt * qvel[vadr];
        }
    }
}

/// 3D rotation `qb⁻¹·qa` as an angular displacement (`mju_subQuat`).
pub fn sub_quat(qa: &Quat, qb: &Quat) -> Vec3 {
    crate::math::quat_to_vel(&mul_quat(&neg_quat(qb), qa))
}

/// Advances activations with `act_dot` (RK4's combination, or the forward pass's), velocities
/// with `qacc`, positions with the new velocities (or `qvel_rk`), time and the warm start
/// (`mj_advance`).
pub fn advance(m: &Model, d: &mut Data, qacc: &[f64], qvel_rk: Option<(&[f64], &[f64])>) {
    match qvel_rk {
        Some((_, act_dot)) => super::actuation::advance_activations(m, d, act_dot),
        None => {
            let act_dot = std::mem::take(&mut d.a.act_dot);
            super::actuation::advance_activations(m, d, &act_dot);
            d.a.act_dot = act_dot;
        }
    }
    let qvel_rk = qvel_rk.map(|(v, _)| v);
    let h = m.opt.timestep;
    for i in 0..m.nv {
        d.a.qvel[i] += qacc[i] * h;
    }
    let a = &mut d.a;
    match qvel_rk {
        Some(v) => integrate_pos(m, &mut a.qpos, v, h),
        None => {
            let qvel = std::mem::take(&mut a.qvel);
            integrate_pos(m, &mut a.qpos, &qvel, h);
            a.qvel = qvel;
        }
    }
    d.time += h;
    let qacc_now = std::mem::take(&mut d.a.qacc);
    d.a.qacc_warmstart.copy_from_slice(&qacc_now);
    d.a.qacc = qacc_now;
}

/// Semi-implicit Euler; joint damping is integrated implicitly unless `eulerdamp` is off.
pub fn euler(m: &Model, d: &mut Data, s: &mut Scratch) {
    let damping = !m.opt.disabled(disable::EULERDAMP)
        && !m.opt.disabled(disable::DAMPER)
        && m.dof_damping.iter().any(|&b| b > 0.0);
    let mut qacc = std::mem::take(&mut s.qacc_tmp);
    if !damping {
        qacc.copy_from_slice(&d.a.qacc);
    } else {
        d.a.qH.copy_from_slice(&d.a.M);
        for i in 0..m.nv {
            let adr = (m.M_rowadr[i] + m.M_rownnz[i] - 1) as usize;
            d.a.qH[adr] += m.opt.timestep * m.dof_damping[i];
        }
        let (qh, qhd) = (&mut d.a.qH, &mut d.a.qHDiagInv);
        super::inertia::factor_i(m, qh, qhd).warn(d);
        for i in 0..m.nv {
            qacc[i] = d.a.qfrc_smooth[i] + d.a.qfrc_constraint[i];
        }
        super::inertia::solve_ld(m, &d.a.qH, &d.a.qHDiagInv, &mut qacc);
    }
    advance(m, d, &qacc, None);
    s.qacc_tmp = qacc;
}

const RK4_A: [f64; 9] = [0.5, 0.0, 0.0, 0.0, 0.5, 0.0, 0.0, 0.0, 1.0];
const RK4_B: [f64; 4] = [1.0 / 6.0, 1.0 / 3.0, 1.0 / 3.0, 1.0 / 6.0];

/// Classic 4-stage Runge–Kutta (`mj_RungeKutta`, N = 4).
pub fn rk4(m: &Model, d: &mut Data, s: &mut Scratch) {
    let (nq, nv) = (m.nq, m.nv);
    let h = m.opt.timestep;
    let time = d.time;
    let n = 4;
    let mut c = [0.0; 3];
    let mut t = [0.0; 3];
    for i in 1..n {
        for j in 0..i {
            c[i - 1] += RK4_A[(i - 1) * (n - 1) + j];
        }
        t[i - 1] = d.time + c[i - 1] * h;
    }
    let na = m.na;
    let mut rk = std::mem::take(&mut s.rk);
    // the state X = (qpos, qvel, act) and its rate F = (qacc, act_dot), as mj_RungeKutta
    rk.x[0][..nq].copy_from_slice(&d.a.qpos);
    rk.x[0][nq..nq + nv].copy_from_slice(&d.a.qvel);
    rk.x[0][nq + nv..].copy_from_slice(&d.a.act);
    rk.f[0][..nv].copy_from_slice(&d.a.qacc);
    rk.f[0][nv..].copy_from_slice(&d.a.act_dot);
    for i in 1..n {
        rk.dx.fill(0.0);
        for j in 0..i {
            let aij = RK4_A[(i - 1) * (n - 1) + j];
            for k in 0..nv {
                rk.dx[k] += rk.x[j][nq + k] * aij;
            }
            for k in 0..nv + na {
                rk.dx[nv + k] += rk.f[j][k] * aij;
            }
        }
        let (x0, rest) = rk.x.split_at_mut(1);
        let xi = &mut rest[i - 1];
        xi.copy_from_slice(&x0[0]);
        integrate_pos(m, &mut xi[..nq], &rk.dx[..nv], h);
        for k in 0..nv + na {
            xi[nq + k] += rk.dx[nv + k] * h;
        }
        d.a.qpos.copy_from_slice(&xi[..nq]);
        d.a.qvel.copy_from_slice(&xi[nq..nq + nv]);
        d.a.act.copy_from_slice(&xi[nq + nv..]);
        d.time = t[i - 1];
        // MuJoCo's intermediate stages skip the sensors (`mj_forwardSkip(.., 1)`)
        // with the energy flag, the stages' energy is updated too (as MuJoCo's skipping
        // forward does): the e_kinetic sensor after the step reads the last one
        forward::forward_stages(m, d, s, false);
        rk.f[i][..nv].copy_from_slice(&d.a.qacc);
        rk.f[i][nv..].copy_from_slice(&d.a.act_dot);
    }
    rk.dx.fill(0.0);
    for j in 0..n {
        for k in 0..nv {
            rk.dx[k] += rk.x[j][nq + k] * RK4_B[j];
        }
        for k in 0..nv + na {
            rk.dx[nv + k] += rk.f[j][k] * RK4_B[j];
        }
    }
    d.time = time;
    d.a.qpos.copy_from_slice(&rk.x[0][..nq]);
    d.a.qvel.copy_from_slice(&rk.x[0][nq..nq + nv]);
    d.a.act.copy_from_slice(&rk.x[0][nq + nv..]);
    let (vel, rest) = rk.dx.split_at(nv);
    let (acc, act_dot) = rest.split_at(nv);
    advance(m, d, acc, Some((vel, act_dot)));
    s.rk = rk;
}

/// Buffers for the RK4 stages.
#[derive(Debug, Clone, Default)]
pub struct Rk4Scratch {
    pub x: Vec<Vec<f64>>,
    pub f: Vec<Vec<f64>>,
    pub dx: Vec<f64>,
}

impl Rk4Scratch {
    #[cold]
    pub fn new(nq: usize, nv: usize, na: usize) -> Self {
        Rk4Scratch {
            x: vec![crate::data::zeros::<f64>(nq + nv + na); 4],
            f: vec![crate::data::zeros::<f64>(nv + na); 4],
            dx: crate::data::zeros::<f64>(2 * nv + na),
        }
    }
}
