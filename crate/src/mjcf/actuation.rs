//! Readers for `<tendon><fixed>` and the actuator elements `<general>`, `<motor>`,
//! `<position>`, `<velocity>`, `<intvelocity>`, `<damper>` and `<cylinder>` (with their default
//! classes), as MuJoCo's XML reader maps them onto `mjsTendon` / `mjsActuator`. Other tendon and
//! actuator kinds, and transmissions other than joints, tendons and sites, are located "not
//! supported" errors.

use super::xml::Element;
use crate::error::{ErrorKind, Result};
use crate::spec::*;

fn unsupported(e: &Element, what: &str) -> crate::Error {
    let mut err = e.error(format!("{what} is not supported by flexlab yet"));
    err.kind = ErrorKind::Unsupported;
    err
}

fn tristate(e: &Element, name: &str, out: &mut TriState) -> Result<()> {
    if let Some(v) = e.keyword(
        name,
        &[
            ("false", TriState::False),
            ("true", TriState::True),
            ("auto", TriState::Auto),
        ],
    )? {
        *out = v;
    }
    Ok(())
}

const TENDON_ATTRS: [&str; 18] = [
    "class",
    "group",
    "limited",
    "actuatorfrclimited",
    "range",
    "actuatorfrcrange",
    "solreflimit",
    "solimplimit",
    "solreffriction",
    "solimpfriction",
    "frictionloss",
    "springlength",
    "width",
    "material",
    "margin",
    "stiffness",
    "damping",
    "rgba",
];

/// Reads the attributes of a `<fixed>` tendon (or its default) into `t`.
pub fn read_tendon(e: &Element, t: &mut TendonSpec, in_default: bool) -> Result<()> {
    let mut allowed: Vec<&str> = TENDON_ATTRS.to_vec();
    allowed.extend_from_slice(&["armature", "user"]);
    if !in_default {
        // drawing attributes of spatial tendons: a class default takes them, <fixed> does not
        allowed.retain(|a| !matches!(*a, "width" | "material" | "rgba"));
        allowed.push("name");
    }
    e.check_attrs(&allowed)?;
    e.reject_unsupported(&["actuatorfrclimited", "actuatorfrcrange", "armature"])?;
    if let Some(n) = e.string("name") {
        t.name = n;
    }
    tristate(e, "limited", &mut t.limited)?;
    e.read_f64s("range", 2, &mut t.range)?;
    e.read_f64s("solreflimit", 1, &mut t.solref_limit)?;
    e.read_f64s("solimplimit", 1, &mut t.solimp_limit)?;
    e.read_f64s("solreffriction", 1, &mut t.solref_friction)?;
    e.read_f64s("solimpfriction", 1, &mut t.solimp_friction)?;
    e.read_f64("frictionloss", &mut t.frictionloss)?;
    if let Some(v) = e.numbers("springlength")? {
        match v.len() {
            1 => t.springlength = [v[0], v[0]],
            2 => t.springlength = [v[0], v[1]],
            _ => return Err(e.attr_error("springlength", "springlength needs 1 or 2 numbers")),
        }
    }
    e.read_f64("margin", &mut t.margin)?;
    if let Some(x) = e.linear_coef("stiffness", "polynomial tendon stiffness")? {
        t.stiffness = x;
    }
    if let Some(x) = e.linear_coef("damping", "polynomial tendon damping")? {
        t.damping = x;
    }
    Ok(())
}

/// The joint terms of a `<fixed>` tendon.
pub fn read_tendon_joints(e: &Element, t: &mut TendonSpec) -> Result<()> {
    for c in &e.children {
        if c.name != "joint" {
            return Err(c.error(format!(
                "Schema violation: unrecognized element '{}'",
                c.name
            )));
        }
        c.check_attrs(&["joint", "coef"])?;
        let required = |attr: &str| {
            c.string(attr)
                .ok_or_else(|| c.error(format!("required attribute missing: '{attr}'")))
        };
        let joint = required("joint")?;
        // an empty coef is missing to MuJoCo as well
        let coef = c
            .f64("coef")?
            .ok_or_else(|| c.error("required attribute missing: 'coef'"))?;
        t.joints.push((joint, coef));
    }
    Ok(())
}

/// Attributes of every actuator element, in a class default too (MuJoCo 3.15.0's schema).
const ACT_BASE: [&str; 12] = [
    "group",
    "forcelimited",
    "ctrlrange",
    "forcerange",
    "gear",
    "cranklength",
    "user",
    "nsample",
    "interp",
    "delay",
    "damping",
    "armature",
];

/// Attributes of an actuator element that a class default does not take.
const ACT_ELEMENT: [&str; 10] = [
    "name",
    "class",
    "lengthrange",
    "joint",
    "jointinparent",
    "tendon",
    "site",
    "slidersite",
    "cranksite",
    "refsite",
];

/// The attributes of each actuator kind beyond [`ACT_BASE`], as in MuJoCo 3.15.0's schema
/// (a damper has no `ctrllimited`: it is always limited); `None` for a kind flexlab does not
/// read.
fn kind_attrs(kind: &str) -> Option<&'static [&'static str]> {
    Some(match kind {
        "general" => &[
            "ctrllimited",
            "actlimited",
            "actrange",
            "actdim",
            "actearly",
            "dyntype",
            "gaintype",
            "biastype",
            "dynprm",
            "gainprm",
            "biasprm",
            "input",
        ],
        "motor" => &["ctrllimited"],
        "position" => &[
            "ctrllimited",
            "kp",
            "kv",
            "dampratio",
            "timeconst",
            "inheritrange",
        ],
        "velocity" => &["ctrllimited", "kv"],
        "intvelocity" => &[
            "ctrllimited",
            "actlimited",
            "actrange",
            "kp",
            "kv",
            "dampratio",
            "inheritrange",
        ],
        "damper" => &["kv"],
        "cylinder" => &["ctrllimited", "timeconst", "area", "diameter", "bias"],
        _ => return None,
    })
}

/// The actuator elements of MuJoCo 3.15.0 that flexlab does not read.
const OTHER_KINDS: [&str; 6] = [
    "muscle",
    "adhesion",
    "pid",
    "dcmotor",
    "orientation",
    "plugin",
];

/// The shortcuts' fixed gain and no dynamics, with bias type none (0) or affine (1).
fn set_kinds(a: &mut ActuatorSpec, biastype: i32) {
    a.gaintype = 0;
    a.biastype = biastype;
    a.dyntype = 0;
}

/// The attribute's number if it is present.
fn optional_f64(e: &Element, name: &str) -> Result<Option<f64>> {
    if e.attr(name).is_none() {
        return Ok(None);
    }
    let mut v = 0.0;
    e.read_f64(name, &mut v)?;
    Ok(Some(v))
}

/// Reads one actuator element (or its class default) into `a`, which holds the class values:
/// the common attributes, then the shortcut's own (`mjs_setToMotor`, `…Position`,
/// `…IntVelocity`, `…Velocity`, `…Damper` and `…Cylinder`), whose unset parameters inherit
/// from `a` as MuJoCo's reader does.
pub fn read_actuator(e: &Element, a: &mut ActuatorSpec, in_default: bool) -> Result<()> {
    let Some(own) = kind_attrs(&e.name) else {
        return Err(if OTHER_KINDS.contains(&e.name.as_str()) {
            unsupported(e, &format!("<{}> actuators", e.name))
        } else {
            e.error("Schema violation: unrecognized element")
        });
    };
    let mut allowed: Vec<&str> = ACT_BASE.to_vec();
    allowed.extend_from_slice(own);
    if !in_default {
        allowed.extend_from_slice(&ACT_ELEMENT);
        if e.name == "general" {
            allowed.push("body");
        }
    }
    e.check_attrs(&allowed)?;
    e.reject_unsupported(&[
        "jointinparent",
        "cranksite",
        "slidersite",
        "refsite",
        "body",
        "actdim",
        "nsample",
        "interp",
        "delay",
        "inheritrange",
        "input",
        // MuJoCo 3.15.0's actuator damping and armature (added to the joint's dof)
        "damping",
        "armature",
    ])?;
    if let Some(n) = e.string("name") {
        a.name = n;
    }
    e.read_int("group", &mut a.group)?;
    tristate(e, "ctrllimited", &mut a.ctrllimited)?;
    tristate(e, "forcelimited", &mut a.forcelimited)?;
    e.read_f64s("ctrlrange", 2, &mut a.ctrlrange)?;
    e.read_f64s("forcerange", 2, &mut a.forcerange)?;
    tristate(e, "actlimited", &mut a.actlimited)?;
    e.read_f64s("actrange", 2, &mut a.actrange)?;
    e.read_bool("actearly", &mut a.actearly)?;
    e.read_f64s("gear", 1, &mut a.gear)?;
    // MuJoCo's reader takes joint, then tendon, then site, each one written replacing the
    // target before it: with two of them the later one is the transmission
    if let Some(j) = e.string("joint") {
        a.target = Transmission::Joint(j);
    }
    if let Some(t) = e.string("tendon") {
        a.target = Transmission::Tendon(t);
    }
    if let Some(s) = e.string("site") {
        a.target = Transmission::Site(s);
    }
    match e.name.as_str() {
        "general" => {
            if let Some(t) = e.keyword(
                "dyntype",
                &[
                    ("none", 0),
                    ("integrator", 1),
                    ("filter", 2),
                    ("filterexact", 3),
                    ("muscle", 4),
                    ("user", 5),
                ],
            )? {
                a.dyntype = t;
            }
            if let Some(t) = e.keyword(
                "gaintype",
                &[("fixed", 0), ("affine", 1), ("muscle", 2), ("user", 3)],
            )? {
                a.gaintype = t;
            }
            if let Some(t) = e.keyword(
                "biastype",
                &[("none", 0), ("affine", 1), ("muscle", 2), ("user", 3)],
            )? {
                a.biastype = t;
            }
            e.read_f64s("dynprm", 1, &mut a.dynprm)?;
            e.read_f64s("gainprm", 1, &mut a.gainprm)?;
            e.read_f64s("biasprm", 1, &mut a.biasprm)?;
            if a.dyntype > 3 {
                return Err(unsupported(e, "muscle and user actuator dynamics"));
            }
            if a.gaintype > 1 || a.biastype > 1 {
                return Err(unsupported(e, "muscle and user actuator gains or biases"));
            }
        }
        "motor" => {
            a.gainprm[0] = 1.0;
            set_kinds(a, 0);
        }
        "position" | "intvelocity" => {
            // unset shortcut parameters inherit the class default (MuJoCo reads them over
            // the current actuator values)
            let mut kp = a.gainprm[0];
            e.read_f64("kp", &mut kp)?;
            let kv = optional_f64(e, "kv")?;
            let dr = optional_f64(e, "dampratio")?;
            if kv.is_some() && dr.is_some() {
                return Err(e.error("kv and dampratio cannot both be defined"));
            }
            a.gainprm[0] = kp;
            a.biasprm[1] = -kp;
            if let Some(v) = kv {
                if v < 0.0 {
                    return Err(e.error("kv cannot be negative"));
                }
                a.biasprm[2] = -v;
            }
            if let Some(v) = dr {
                if v < 0.0 {
                    return Err(e.error("dampratio cannot be negative"));
                }
                // positive biasprm[2] is a damping ratio, resolved at compile time
                a.biasprm[2] = v;
            }
            // a time constant filters the control exactly (mjs_setToPosition); without one
            // the dynamics stay as they were (a class default's)
            if let Some(tc) = optional_f64(e, "timeconst")? {
                if tc < 0.0 {
                    return Err(e.error("timeconst cannot be negative"));
                }
                a.dynprm[0] = tc;
                a.dyntype = if tc == 0.0 { 0 } else { 3 };
            }
            a.gaintype = 0;
            a.biastype = 1;
            // an integrated velocity servo integrates its control (mjs_setToIntVelocity)
            if e.name == "intvelocity" {
                a.dyntype = 1;
            }
        }
        "velocity" => {
            let mut kv = a.gainprm[0];
            e.read_f64("kv", &mut kv)?;
            a.gainprm[0] = kv;
            a.biasprm[2] = -kv;
            set_kinds(a, 1);
        }
        "damper" => {
            // a class's kv is inherited only from a damper-like (affine gain) class
            let mut kv = if a.gaintype == 1 { -a.gainprm[2] } else { 0.0 };
            e.read_f64("kv", &mut kv)?;
            a.gainprm = [0.0; 10];
            a.gainprm[2] = -kv;
            a.ctrllimited = TriState::True;
            a.gaintype = 1;
            a.biastype = 0;
            a.dyntype = 0;
            if kv < 0.0 {
                return Err(e.error("damping coefficient cannot be negative"));
            }
            if a.ctrlrange[0] < 0.0 || a.ctrlrange[1] < 0.0 {
                return Err(e.error("damper control range cannot be negative"));
            }
        }
        "cylinder" => {
            e.read_f64("timeconst", &mut a.dynprm[0])?;
            let mut bias = [a.biasprm[0], a.biasprm[1], a.biasprm[2]];
            e.read_f64s("bias", 3, &mut bias)?;
            a.biasprm[..3].copy_from_slice(&bias);
            e.read_f64("area", &mut a.gainprm[0])?;
            // a diameter (not inherited) overrides the area
            if let Some(d) = optional_f64(e, "diameter")? {
                if d >= 0.0 {
                    a.gainprm[0] = std::f64::consts::PI / 4.0 * d * d;
                }
            }
            a.dyntype = 2;
            a.gaintype = 0;
            a.biastype = 1;
        }
        _ => {}
    }
    Ok(())
}
