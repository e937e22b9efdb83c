//! MuJoCo's cable plugin (`mujoco.elasticity.cable`, plugin/elasticity/cable.cc): bending and
//! twisting torques between neighbouring bodies of a rigid-body chain, from the change of the
//! relative orientation carried by each body's ball (or free) joint. It is not a flex: no
//! finite elements, just a discrete Cosserat rod on the chain that `<composite type="cable">`
//! builds. The torques go to `qfrc_passive` after every other passive force, as MuJoCo's
//! plugin stage does; they have no velocity or position derivatives in the implicit
//! integrators (as in MuJoCo).

use super::kinematics;
use super::support::apply_ft;
use super::Scratch;
use crate::data::Data;
use crate::error::{Error, Result};
use crate::math::{self, Quat, Vec3};
use crate::model::GeomType;
use crate::model::Model;

/// The plugin a cable composite accepts.
pub const CABLE_PLUGIN: &str = "mujoco.elasticity.cable";

/// The constants of one cable plugin instance, computed once at the reference pose as the
/// plugin's constructor does.
#[derive(Debug, Clone, Default)]
pub struct Cable {
    /// Plugin instance id.
    pub instance: usize,
    /// First body of the chain; the chain is bodies `i0 .. i0 + n`.
    pub i0: usize,
    pub n: usize,
    /// Rest curvature of each body relative to its parent (rad, rotation vector), zero for the
    /// first body and for `flat="true"`.
    pub omega0: Vec<f64>,
    /// Per body: torsional stiffness G·J, bending stiffnesses E·Iy and E·Iz (N·m²) and the rest
    /// distance to the previous body (m; 0 for the first).
    pub stiffness: Vec<f64>,
}

/// Config keys of the cable plugin.
const ATTRIBUTES: [&str; 4] = ["twist", "bend", "flat", "vmax"];

/// A config value as the plugin reads it: whitespace removed, the whole string one number
/// (an empty value reads as 0).
fn number(value: &str, parse: crate::ParseF64) -> Option<f64> {
    let v: String = value.chars().filter(|c| !c.is_whitespace()).collect();
    if v.is_empty() {
        return Some(0.0);
    }
    parse(&v)
}

/// Checks a cable instance's config keys as MuJoCo's compiler does.
pub fn check_config(config: &[(String, String)]) -> std::result::Result<(), String> {
    for (k, _) in config {
        if !ATTRIBUTES.contains(&k.as_str()) {
            return Err(format!(
                "unrecognized attribute 'plugin:{k}' for plugin {CABLE_PLUGIN}'"
            ));
        }
    }
    Ok(())
}

/// Index of the quaternion of body `i`'s last joint in qpos (its ball joint, or the
/// rotational part of a free joint).
fn quat_adr(m: &Model, i: usize) -> usize {
    m.jnt_qposadr[m.body_jntadr[i] as usize] as usize + m.body_dofnum[i] as usize - 3
}

/// Whether body `i`'s last joint is a ball or free joint, whose quaternion [`quat_adr`] finds.
fn ends_in_ball(m: &Model, i: usize) -> bool {
    let (adr, num) = (m.body_jntadr[i], m.body_jntnum[i]);
    adr >= 0 && num > 0 && {
        let t = m.jnt_type[(adr + num - 1) as usize];
        t == 0 || t == 1
    }
}

fn quat_at(v: &[f64], adr: usize) -> Quat {
    [v[adr], v[adr + 1], v[adr + 2], v[adr + 3]]
}

/// Builds every cable instance of the model (the plugin's `init`), with `configs[k]` the
/// config of instance k (`None` for instances of other plugins), and `d` a fresh `Data` of `m`
/// for the reference pose: the caller owns it, so that the browser build has one copy of
/// `Data`'s drop code, not one per crate. Fails as MuJoCo's `mj_makeData` does when a stiffness
/// is not a number.
#[cold]
pub fn init(
    m: &Model,
    d: &mut Data,
    configs: &[Option<&[(String, String)]>],
    parse: crate::ParseF64,
) -> Result<Vec<Cable>> {
    let mut cables = Vec::new();
    if configs.iter().all(Option::is_none) {
        return Ok(cables);
    }
    d.a.qpos.copy_from_slice(&m.qpos0);
    kinematics::kinematics(m, d);
    for (instance, config) in configs.iter().enumerate() {
        // instances of other plugins (the SDF shapes) have no cable state
        let Some(config) = config else {
            continue;
        };
        let get = |key: &str| {
            config
                .iter()
                .find(|(k, _)| k == key)
                .map_or("", |(_, v)| v.as_str())
        };
        let (Some(g), Some(e)) = (number(get("twist"), parse), number(get("bend"), parse)) else {
            return Err(Error::engine(format!(
                "plugin->init failed for plugin id {instance}\n\
                 Invalid parameter specification in cable plugin"
            )));
        };
        let flat = get("flat") == "true";
        let bodies: Vec<usize> = (1..m.nbody)
            .filter(|&i| m.body_plugin[i] == instance as i32)
            .collect();
        let Some(&i0) = bodies.first() else {
            continue;
        };
        let n = bodies.len();
        if bodies.iter().enumerate().any(|(b, &i)| i != i0 + b) {
            return Err(Error::engine(
                "This body does not have the requested plugin instance",
            ));
        }
        let mut cable = Cable {
            instance,
            i0,
            n,
            omega0: crate::data::zeros::<f64>(3 * n),
            stiffness: crate::data::zeros::<f64>(4 * n),
        };
        for b in 0..n {
            let i = i0 + b;
            let has_prev = b > 0;
            // the plugin chains its bodies by index: each after the first turns on its own
            // ball (or free) joint, read as the last three dofs of the body. Two composites
            // sharing an instance chain the second's clamped first body too, whose quaternion
            // MuJoCo 3.15.0 then reads from another joint's slots
            if has_prev && !ends_in_ball(m, i) {
                return Err(Error::unsupported(format!(
                    "cable plugin instance {instance}: body '{}' continues the cable but does not \
                     turn on a ball or free joint (a second composite on the same instance, say)",
                    m.names_body[i]
                )));
            }
            if has_prev && !flat {
                let qb = quat_at(&d.a.qpos, quat_adr(m, i));
                let qa = quat_at(&m.body_quat, 4 * i);
                let w = super::integrator::sub_quat(&qa, &qb);
                cable.omega0[3 * b..3 * b + 3].copy_from_slice(&w);
            }
            let gi = m.body_geomadr[i];
            let (mut j, mut iy, mut iz) = (0.0, 0.0, 0.0);
            if gi >= 0 {
                let gi = gi as usize;
                let size = &m.geom_size[3 * gi..3 * gi + 3];
                let t = m.geom_type[gi];
                // the plugin's `pow` (libm), not repeated products: r⁴ as r·r·r·r rounds
                // otherwise, and every torque carried that last bit
                if t == GeomType::Cylinder as i32 || t == GeomType::Capsule as i32 {
                    j = math::PI * size[0].powf(4.0) / 2.0;
                    iy = math::PI * size[0].powf(4.0) / 4.0;
                    iz = iy;
                } else if t == GeomType::Box as i32 {
                    let (h, w) = (size[1], size[2]);
                    let (a, bb) = (h.max(w), h.min(w));
                    j = a
                        * bb.powf(3.0)
                        * (16.0 / 3.0 - 3.36 * bb / a * (1.0 - bb.powf(4.0) / a.powf(4.0) / 12.0));
                    iy = (2.0 * w).powf(3.0) * 2.0 * h / 12.0;
                    iz = (2.0 * h).powf(3.0) * 2.0 * w / 12.0;
                }
            }
            let k = &mut cable.stiffness[4 * b..4 * b + 4];
            k[0] = j * g;
            k[1] = iy * e;
            k[2] = iz * e;
            k[3] = if has_prev {
                let p = &d.a.xpos[3 * i..3 * i + 3];
                let q = &d.a.xpos[3 * (i - 1)..3 * (i - 1) + 3];
                ((p[0] - q[0]).powi(2) + (p[1] - q[1]).powi(2) + (p[2] - q[2]).powi(2)).sqrt()
            } else {
                0.0
            };
        }
        cables.push(cable);
    }
    Ok(cables)
}

/// The elastic torque (local frame) of one joint's rotation `quat` away from its rest
/// curvature: −k·(ω − ω0)/L per axis; `pullback` expresses it in the other body's frame.
fn local_stress(k: &[f64], quat: &Quat, omega0: &[f64], pullback: bool) -> Vec3 {
    let omega = math::quat_to_vel(quat);
    let t = [
        -k[0] * (omega[0] - omega0[0]) / k[3],
        -k[1] * (omega[1] - omega0[1]) / k[3],
        -k[2] * (omega[2] - omega0[2]) / k[3],
    ];
    if pullback {
        math::rot_vec_quat(&t, &math::neg_quat(quat))
    } else {
        t
    }
}

/// Adds the bending and twisting torques of every cable to `qfrc_passive`.
pub fn passive(m: &Model, d: &mut Data, s: &mut Scratch) {
    if m.cable.is_empty() {
        return;
    }
    let mut out = std::mem::take(&mut d.a.qfrc_passive);
    for c in &m.cable {
        for b in 0..c.n {
            let i = c.i0 + b;
            let k = &c.stiffness[4 * b..4 * b + 4];
            if k[0] == 0.0 && k[1] == 0.0 && k[2] == 0.0 {
                continue;
            }
            let mut lfrc = [0.0; 3];
            if b > 0 {
                // the joint of body i, pulled back into body i's frame
                let quat = math::mul_quat(
                    &quat_at(&m.body_quat, 4 * i),
                    &quat_at(&d.a.qpos, quat_adr(m, i)),
                );
                let st = local_stress(k, &quat, &c.omega0[3 * b..3 * b + 3], true);
                math::add_to_scl3(&mut lfrc, &st, 1.0);
            }
            if b + 1 < c.n {
                // the joint of body i+1, acting back on body i
                let (bn, inext) = (b + 1, i + 1);
                let quat = math::mul_quat(
                    &quat_at(&m.body_quat, 4 * inext),
                    &quat_at(&d.a.qpos, quat_adr(m, inext)),
                );
                let kn = &c.stiffness[4 * bn..4 * bn + 4];
                let st = local_stress(kn, &quat, &c.omega0[3 * bn..3 * bn + 3], false);
                math::add_to_scl3(&mut lfrc, &st, -1.0);
            }
            let torque = math::rot_vec_quat(&lfrc, &quat_at(&d.a.xquat, 4 * i));
            let point = [d.a.xpos[3 * i], d.a.xpos[3 * i + 1], d.a.xpos[3 * i + 2]];
            apply_ft(m, d, &mut s.jac, &[0.0; 3], &torque, &point, i, &mut out);
        }
    }
    d.a.qfrc_passive = out;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_values_read_as_the_plugin_reads_them() {
        let rust: crate::ParseF64 = |s| s.parse().ok();
        assert_eq!(number("", rust), Some(0.0));
        assert_eq!(number(" 4e6 ", rust), Some(4e6));
        assert_eq!(number("stiff", rust), None);
        assert!(check_config(&[("vmax".into(), "1".into())]).is_ok());
        assert!(check_config(&[("stretch".into(), "1".into())]).is_err());
    }
}
