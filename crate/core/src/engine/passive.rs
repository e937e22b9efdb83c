//! Passive forces (MuJoCo's `mj_passive` / `mj_springdamper`): joint springs and dampers, flex
//! elasticity (StVK, bending, SNH, interpolated), flex edge spring-dampers, passive contact,
//! fluid forces and body gravity compensation. Springs go to `qfrc_spring`, dampers to
//! `qfrc_damper`, their sum to `qfrc_passive` with the fluid and gravity compensation forces,
//! and the cable plugin adds its bending and twisting torques last.

use super::Scratch;
use crate::data::Data;
use crate::model::{disable, Model};

/// Computes `qfrc_spring`, `qfrc_damper` and `qfrc_passive`.
pub fn passive(m: &Model, d: &mut Data, s: &mut Scratch) {
    d.a.qfrc_spring.fill(0.0);
    d.a.qfrc_damper.fill(0.0);
    d.a.qfrc_passive.fill(0.0);
    d.a.qfrc_gravcomp.fill(0.0);
    d.a.qfrc_fluid.fill(0.0);
    d.a.qfrc_adhesion.fill(0.0);
    let spring = !m.opt.disabled(disable::SPRING);
    let damper = !m.opt.disabled(disable::DAMPER);
    // MuJoCo 3.15.0 skips every passive force then, fluid and gravity compensation included
    if !spring && !damper {
        return;
    }
    super::fluid::fluid(m, d, &mut s.jac);
    joint_spring_damper(m, d, spring, damper);
    let gravcomp = super::gravcomp::gravcomp(m, d, &mut s.jac);
    for f in 0..m.nflex {
        if m.flex_dim[f] == 1 || m.flex_rigid[f] != 0 {
            continue;
        }
        if m.flex_interp[f] != 0 {
            super::elastic::interp(m, d, s, f, spring, damper);
        } else {
            super::elastic::bend(m, d, s, f, spring, damper);
            super::elastic::stretch(m, d, s, f, spring, damper);
        }
    }
    flex_edge_spring_damper(m, d, spring, damper);
    super::tendon::spring_damper(m, d, spring, damper);
    super::elastic::contact_passive(m, d, s);
    super::adhesion::passive(m, d, s);
    // MuJoCo adds fluid and adhesion only when it has some; adding their zeros instead changes
    // no value (only a -0 to +0)
    let a = &mut d.a;
    for i in 0..m.nv {
        a.qfrc_passive[i] =
            a.qfrc_spring[i] + a.qfrc_damper[i] + a.qfrc_fluid[i] + a.qfrc_adhesion[i];
    }
    if gravcomp {
        for i in 0..m.nv {
            if m.jnt_actgravcomp[m.dof_jntid[i] as usize] == 0 {
                d.a.qfrc_passive[i] += d.a.qfrc_gravcomp[i];
            }
        }
    }
    // plugins add their forces last, as MuJoCo's plugin stage of mj_passive
    super::cable::passive(m, d, s);
}

fn joint_spring_damper(m: &Model, d: &mut Data, spring: bool, damper: bool) {
    let a = &mut d.a;
    if spring {
        for j in 0..m.njnt {
            let k = m.jnt_stiffness[j];
            if k == 0.0 {
                continue;
            }
            let mut padr = m.jnt_qposadr[j] as usize;
            let mut dadr = m.jnt_dofadr[j] as usize;
            let jt = m.jnt_type[j];
            if jt == 0 {
                let dif = [
                    a.qpos[padr] - m.qpos_spring[padr],
                    a.qpos[padr + 1] - m.qpos_spring[padr + 1],
                    a.qpos[padr + 2] - m.qpos_spring[padr + 2],
                ];
                for t in 0..3 {
                    a.qfrc_spring[dadr + t] += dif[t] * -k;
                }
                padr += 3;
                dadr += 3;
            }
            if jt == 0 || jt == 1 {
                let mut q = [
                    a.qpos[padr],
                    a.qpos[padr + 1],
                    a.qpos[padr + 2],
                    a.qpos[padr + 3],
                ];
                crate::math::normalize4(&mut q);
                let qs = [
                    m.qpos_spring[padr],
                    m.qpos_spring[padr + 1],
                    m.qpos_spring[padr + 2],
                    m.qpos_spring[padr + 3],
                ];
                let dif = super::integrator::sub_quat(&q, &qs);
                for t in 0..3 {
                    a.qfrc_spring[dadr + t] += dif[t] * -k;
                }
            } else {
                let x = a.qpos[padr] - m.qpos_spring[padr];
                a.qfrc_spring[dadr] = -x * k;
            }
        }
    }
    if damper {
        for i in 0..m.nv {
            let b = m.dof_damping[i];
            if b != 0.0 {
                a.qfrc_damper[i] = -a.qvel[i] * b;
            }
        }
    }
}

fn flex_edge_spring_damper(m: &Model, d: &mut Data, spring: bool, damper: bool) {
    let a = &mut d.a;
    for f in 0..m.nflex {
        let k = if spring { m.flex_edgestiffness[f] } else { 0.0 };
        let b = if damper { m.flex_edgedamping[f] } else { 0.0 };
        if m.flex_rigid[f] != 0 || (k == 0.0 && b == 0.0) {
            continue;
        }
        let start = m.flex_edgeadr[f] as usize;
        for e in start..start + m.flex_edgenum[f] as usize {
            if m.flexedge_rigid[e] != 0 {
                continue;
            }
            let fs = k * (m.flexedge_length0[e] - a.flexedge_length[e]);
            let fd = -b * a.flexedge_velocity[e];
            let ra = m.flexedge_J_rowadr[e] as usize;
            let rb = ra + m.flexedge_J_rownnz[e] as usize;
            let (row, cols) = (&a.flexedge_J[ra..rb], &m.flexedge_J_colind[ra..rb]);
            let mut add = |jv: f64, c: i32| {
                let c = c as usize;
                a.qfrc_spring[c] += jv * fs;
                a.qfrc_damper[c] += jv * fd;
            };
            match super::flex::usual_edge_row(row, cols) {
                Some((row, cols)) => (0..6).for_each(|t| add(row[t], cols[t])),
                None => row.iter().zip(cols).for_each(|(&jv, &c)| add(jv, c)),
            }
        }
    }
}
