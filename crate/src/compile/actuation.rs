//! Compiles fixed tendons and actuators (joint or tendon transmission) into the model, as
//! MuJoCo's compiler does: wrap lists, the constant sparse Jacobians of fixed tendons and of
//! the actuator moments, limit flags resolved with `autolimits`, and at `mj_setConst` time the
//! lengths at qpos0, the inverse weights and the position actuators' damping ratios.

use crate::engine::actuation::dyn_type;
use crate::engine::actuation::SITE;
use crate::engine::tendon::tendon_jacobian;
use crate::error::{Error, Result};
use crate::math;
use crate::model::Model;
use crate::spec::{Spec, Transmission, TriState};

fn err(msg: String, element: &str, name: &str, line: u32) -> Error {
    let mut e = Error::compile(msg).at_element(element);
    if !name.is_empty() {
        e = e.at_object(name);
    }
    e.at_line(line)
}

/// Whether a range limits (`checklimited` + `islimited`): "auto" limits when the range is
/// increasing, and is an error without `autolimits` when the range is not zero.
pub(super) fn resolve_limited(
    limited: TriState,
    range: [f64; 2],
    autolimits: bool,
    what: &str,
    attr: &str,
) -> std::result::Result<bool, String> {
    match limited {
        TriState::True => Ok(true),
        TriState::False => Ok(false),
        TriState::Auto => {
            let hasrange = !(range[0] == 0.0 && range[1] == 0.0);
            if !autolimits && hasrange {
                Err(format!(
                    "{what} has `{attr}` but not `{}`. set the autolimits=\"true\" compiler option, specify `{}` explicitly (\"true\" or \"false\"), or remove the `{attr}` attribute.",
                    attr.replace("range", "limited"),
                    attr.replace("range", "limited")
                ))
            } else {
                Ok(range[0] < range[1])
            }
        }
    }
}

/// Adds tendons and actuators; joints must be compiled already.
pub fn compile(m: &mut Model, spec: &Spec) -> Result<()> {
    let autolimits = spec.compiler.autolimits;
    m.ntendon = spec.tendons.len();
    // MuJoCo's mj_setConst names a joint's actuator only for actuators with damping or
    // armature, which the parser refuses as not supported yet: every joint has none (-1)
    m.jnt_actuatorid = vec![-1; m.njnt];
    for (ti, t) in spec.tendons.iter().enumerate() {
        let e = |msg: String| err(msg, "tendon", &t.name, t.line);
        if t.spatial {
            return Err(
                Error::unsupported("<spatial> tendons is not supported by flexlab yet")
                    .at_element("spatial")
                    .at_line(t.line),
            );
        }
        m.tendon_adr.push(m.wrap_type.len() as i32);
        m.tendon_num.push(t.joints.len() as i32);
        if t.joints.is_empty() {
            let name = &t.name;
            return Err(e(format!(
                "tendon '{name}' (id = {ti}): path cannot be empty"
            )));
        }
        let mut cols: Vec<(usize, f64)> = Vec::new();
        for (wi, (jn, coef)) in t.joints.iter().enumerate() {
            let j =
                m.names_jnt.iter().position(|n| n == jn).ok_or_else(|| {
                    e(format!("joint '{jn}' not found in tendon {ti}, wrap {wi}"))
                })?;
            m.wrap_type.push(1);
            m.wrap_objid.push(j as i32);
            m.wrap_prm.push(*coef);
            let dof = m.jnt_dofadr[j] as usize;
            match cols.iter_mut().find(|c| c.0 == dof) {
                Some(c) => c.1 += coef,
                None => cols.push((dof, *coef)),
            }
        }
        crate::sort::sort_by(&mut cols, |a, b| a.0.cmp(&b.0)); // dofs are unique in cols
        m.ten_J_rowadr.push(m.ten_J_colind.len() as i32);
        m.ten_J_rownnz.push(cols.len() as i32);
        m.ten_J_colind.extend(cols.iter().map(|c| c.0 as i32));
        let limited =
            resolve_limited(t.limited, t.range, autolimits, "tendon", "range").map_err(e)?;
        if limited && t.range[0] >= t.range[1] {
            return Err(e("invalid limits in tendon".into()));
        }
        if t.springlength[0] > t.springlength[1] {
            return Err(e("invalid springlength in tendon".into()));
        }
        m.tendon_limited.push(limited as u8);
        m.tendon_range.extend_from_slice(&t.range);
        m.tendon_margin.push(t.margin);
        m.tendon_stiffness.push(t.stiffness);
        m.tendon_damping.push(t.damping);
        m.tendon_frictionloss.push(t.frictionloss);
        m.tendon_lengthspring.extend_from_slice(&t.springlength);
        m.tendon_solref_lim.extend_from_slice(&t.solref_limit);
        m.tendon_solimp_lim.extend_from_slice(&t.solimp_limit);
        m.tendon_solref_fri.extend_from_slice(&t.solref_friction);
        m.tendon_solimp_fri.extend_from_slice(&t.solimp_friction);
        m.names_tendon.push(t.name.clone());
    }
    m.nwrap = m.wrap_type.len();
    m.nJten = m.ten_J_colind.len();
    m.tendon_length0 = vec![0.0; m.ntendon];
    m.tendon_invweight0 = vec![0.0; m.ntendon];

    m.nu = spec.actuators.len();
    for (ai, a) in spec.actuators.iter().enumerate() {
        let e = |msg: String| err(msg, "actuator", &a.name, a.line);
        // MuJoCo 3.15.0 words a missing joint otherwise than a missing tendon or site
        let not_found = |n: &str| {
            e(format!(
                "transmission target '{n}' not found in actuator {ai}"
            ))
        };
        let (trntype, id) = match &a.target {
            Transmission::Joint(n) => {
                let j = m.names_jnt.iter().position(|x| x == n).ok_or_else(|| {
                    e(format!(
                        "unknown transmission target '{n}' for actuator id = {ai}"
                    ))
                })?;
                if !matches!(m.jnt_type[j], 2 | 3) {
                    return Err(Error::unsupported(
                        "actuators on free and ball joints are not supported by flexlab yet",
                    )
                    .at_element("actuator")
                    .at_line(a.line));
                }
                (0, j)
            }
            Transmission::Tendon(n) => {
                let t = m
                    .names_tendon
                    .iter()
                    .position(|x| x == n)
                    .ok_or_else(|| not_found(n))?;
                (3, t)
            }
            Transmission::Site(n) => {
                let s = m
                    .names_site
                    .iter()
                    .position(|x| x == n)
                    .ok_or_else(|| not_found(n))?;
                (SITE, s)
            }
            Transmission::None => return Err(e("missing transmission target for actuator".into())),
        };
        m.actuator_trntype.push(trntype);
        m.actuator_trnid.extend_from_slice(&[id as i32, -1]);
        m.actuator_gear.extend_from_slice(&a.gear);
        m.actuator_group.push(a.group);
        m.actuator_dyntype.push(a.dyntype);
        m.actuator_gaintype.push(a.gaintype);
        m.actuator_biastype.push(a.biastype);
        m.actuator_dynprm.extend_from_slice(&a.dynprm);
        m.actuator_gainprm.extend_from_slice(&a.gainprm);
        m.actuator_biasprm.extend_from_slice(&a.biasprm);
        // MuJoCo's order: the force range, then the control range
        let fl = resolve_limited(
            a.forcelimited,
            a.forcerange,
            autolimits,
            "actuator",
            "forcerange",
        )
        .map_err(e)?;
        let cl = resolve_limited(
            a.ctrllimited,
            a.ctrlrange,
            autolimits,
            "actuator",
            "ctrlrange",
        )
        .map_err(e)?;
        let al = resolve_limited(a.actlimited, a.actrange, autolimits, "actuator", "actrange")
            .map_err(e)?;
        if fl && a.forcerange[0] >= a.forcerange[1] {
            return Err(e("invalid force range for actuator".into()));
        }
        if cl && a.ctrlrange[0] >= a.ctrlrange[1] {
            return Err(e("invalid control range for actuator".into()));
        }
        if al && a.actrange[0] >= a.actrange[1] {
            return Err(e("invalid actrange for actuator".into()));
        }
        if al && a.dyntype == dyn_type::NONE {
            return Err(e(
                "actrange specified but dyntype is 'none' in actuator".into()
            ));
        }
        // one activation for each actuator with dynamics, in actuator order
        if a.dyntype != dyn_type::NONE {
            m.actuator_actadr.push(m.na as i32);
            m.actuator_actnum.push(1);
            m.na += 1;
        } else {
            m.actuator_actadr.push(-1);
            m.actuator_actnum.push(0);
        }
        m.actuator_actlimited.push(al as u8);
        m.actuator_actrange.extend_from_slice(&a.actrange);
        m.actuator_actearly.push(a.actearly as u8);
        m.actuator_ctrllimited.push(cl as u8);
        m.actuator_forcelimited.push(fl as u8);
        m.actuator_ctrlrange.extend_from_slice(&a.ctrlrange);
        m.actuator_forcerange.extend_from_slice(&a.forcerange);
        // the columns a moment row can have: fixed for joint and fixed-tendon transmissions
        m.trn_rowadr.push(m.trn_colind.len() as i32);
        if trntype == 0 {
            m.trn_rownnz.push(1);
            m.trn_colind.push(m.jnt_dofadr[id]);
        } else if trntype == SITE {
            // the dofs that move the site's body; the values follow the site each step
            let mut chain = vec![0i32; m.nv.max(1)];
            let body = m.site_bodyid[id] as usize;
            let n = crate::engine::jacobian::body_chain(m, body, &mut chain);
            m.trn_rownnz.push(n as i32);
            m.trn_colind.extend_from_slice(&chain[..n]);
        } else {
            let (adr, n) = (m.ten_J_rowadr[id] as usize, m.ten_J_rownnz[id] as usize);
            m.trn_rownnz.push(n as i32);
            let cols: Vec<i32> = m.ten_J_colind[adr..adr + n].to_vec();
            m.trn_colind.extend(cols);
        }
        m.names_actuator.push(a.name.clone());
    }
    m.nJact = m.trn_colind.len();
    m.actuator_length0 = vec![0.0; m.nu];
    m.actuator_acc0 = vec![0.0; m.nu];
    Ok(())
}

/// `mj_setConst` for tendons and actuators: lengths at qpos0, inverse weights, acc0, and
/// position actuators' damping from `dampratio` (`biasprm[2] > 0`).
pub fn set_const(m: &mut Model, d: &crate::Data) {
    let nv = m.nv;
    let mut ten_j = vec![0.0; m.nJten];
    tendon_jacobian(m, &mut ten_j);
    let mut dense = vec![0.0; nv];
    for t in 0..m.ntendon {
        let mut len = 0.0;
        for w in m.tendon_adr[t] as usize..(m.tendon_adr[t] + m.tendon_num[t]) as usize {
            len += m.wrap_prm[w] * m.qpos0[m.jnt_qposadr[m.wrap_objid[w] as usize] as usize];
        }
        m.tendon_length0[t] = len;
        // an unset spring length is the tendon's length at qpos_spring (`setSpring`), which
        // differs from qpos0 where a joint's springref differs from its ref
        if m.tendon_lengthspring[2 * t] == -1.0 && m.tendon_lengthspring[2 * t + 1] == -1.0 {
            let mut spring = 0.0;
            for w in m.tendon_adr[t] as usize..(m.tendon_adr[t] + m.tendon_num[t]) as usize {
                let q = m.jnt_qposadr[m.wrap_objid[w] as usize] as usize;
                spring += m.wrap_prm[w] * m.qpos_spring[q];
            }
            m.tendon_lengthspring[2 * t] = spring;
            m.tendon_lengthspring[2 * t + 1] = spring;
        }
        dense.fill(0.0);
        let adr = m.ten_J_rowadr[t] as usize;
        for k in adr..adr + m.ten_J_rownnz[t] as usize {
            dense[m.ten_J_colind[k] as usize] = ten_j[k];
        }
        let mut sol = dense.clone();
        if nv > 0 {
            super::super::engine::inertia::solve_m(m, d, &mut sol);
        }
        m.tendon_invweight0[t] = math::dot(&dense, &sol);
    }
    for i in 0..m.nu {
        let (row, len0) = moment_row(m, d, &ten_j, i);
        m.actuator_length0[i] = len0;
        dense.fill(0.0);
        for &(c, v) in &row {
            dense[c] = v;
        }
        let mut sol = dense.clone();
        if nv > 0 {
            super::super::engine::inertia::solve_m(m, d, &mut sol);
        }
        // `mju_norm`: the square root of `mju_dot`'s four running sums
        m.actuator_acc0[i] = math::dot(&sol, &sol).sqrt();
        // dampratio → damping for position-like actuators (gainprm[0] == -biasprm[1])
        let g = &m.actuator_gainprm[10 * i..10 * i + 10];
        let b2 = m.actuator_biasprm[10 * i + 2];
        if g[0] != -m.actuator_biasprm[10 * i + 1] || b2 <= 0.0 {
            continue;
        }
        // the reflected mass at the actuator, 1/(moment·M⁻¹·momentᵀ), as MuJoCo 3.15.0
        // computes it (checked against it: not the sum of dof_M0/gear²)
        let invmass = math::dot(&dense, &sol);
        if invmass <= math::MINVAL {
            continue;
        }
        let mass = 1.0 / invmass;
        let kp = g[0];
        m.actuator_biasprm[10 * i + 2] = -(b2 * 2.0 * (kp * mass).sqrt());
    }
}

/// Moment row (dof, value) and transmission length at qpos0 of actuator `i`.
fn moment_row(m: &Model, d: &crate::Data, ten_j: &[f64], i: usize) -> (Vec<(usize, f64)>, f64) {
    let gear = m.actuator_gear[6 * i];
    let id = m.actuator_trnid[2 * i] as usize;
    if m.actuator_trntype[i] == SITE {
        let adr = m.trn_rowadr[i] as usize;
        let n = m.trn_rownnz[i] as usize;
        let mut vals = vec![0.0; n];
        crate::engine::actuation::site_moment(m, d, i, &mut vals);
        let row = (0..n)
            .map(|k| (m.trn_colind[adr + k] as usize, vals[k]))
            .collect();
        return (row, 0.0);
    }
    if m.actuator_trntype[i] == 0 {
        let q = m.qpos0[m.jnt_qposadr[id] as usize];
        (vec![(m.jnt_dofadr[id] as usize, gear)], gear * q)
    } else {
        let adr = m.ten_J_rowadr[id] as usize;
        let n = m.ten_J_rownnz[id] as usize;
        let row = (adr..adr + n)
            .map(|k| (m.ten_J_colind[k] as usize, gear * ten_j[k]))
            .collect();
        (row, gear * m.tendon_length0[id])
    }
}
