//! `<sensor>`: the sensor elements flexlab computes, read as MuJoCo's schema reads them (which
//! attribute names the object, which are required); the others are located "not supported"
//! errors.

use super::reader::unsupported;
use super::xml::Element;
use crate::engine::sensor::{kind, obj};
use crate::error::Result;
use crate::spec::SensorSpec;

/// What names a sensor's object: a fixed attribute and object type, or `objtype`/`objname`
/// with an optional `reftype`/`refname` (frame sensors).
enum Target {
    None,
    Named(&'static str, i32),
    /// `objtype`/`objname`, and `reftype`/`refname` when the flag is set.
    Frame(bool),
    /// `objtype`/`objname` and the `site` whose zone is tested (the reference).
    InSite,
}

/// The sensor elements flexlab computes: tag, `mjtSensor`, how the object is named.
const ELEMENTS: &[(&str, i32, Target)] = &[
    ("touch", kind::TOUCH, Target::Named("site", obj::SITE)),
    (
        "accelerometer",
        kind::ACCELEROMETER,
        Target::Named("site", obj::SITE),
    ),
    ("force", kind::FORCE, Target::Named("site", obj::SITE)),
    ("torque", kind::TORQUE, Target::Named("site", obj::SITE)),
    ("framelinacc", kind::FRAMELINACC, Target::Frame(false)),
    ("insidesite", kind::INSIDESITE, Target::InSite),
    ("frameangacc", kind::FRAMEANGACC, Target::Frame(false)),
    (
        "velocimeter",
        kind::VELOCIMETER,
        Target::Named("site", obj::SITE),
    ),
    ("gyro", kind::GYRO, Target::Named("site", obj::SITE)),
    (
        "magnetometer",
        kind::MAGNETOMETER,
        Target::Named("site", obj::SITE),
    ),
    (
        "jointpos",
        kind::JOINTPOS,
        Target::Named("joint", obj::JOINT),
    ),
    (
        "jointvel",
        kind::JOINTVEL,
        Target::Named("joint", obj::JOINT),
    ),
    (
        "tendonpos",
        kind::TENDONPOS,
        Target::Named("tendon", obj::TENDON),
    ),
    (
        "tendonvel",
        kind::TENDONVEL,
        Target::Named("tendon", obj::TENDON),
    ),
    (
        "actuatorpos",
        kind::ACTUATORPOS,
        Target::Named("actuator", obj::ACTUATOR),
    ),
    (
        "actuatorvel",
        kind::ACTUATORVEL,
        Target::Named("actuator", obj::ACTUATOR),
    ),
    (
        "actuatorfrc",
        kind::ACTUATORFRC,
        Target::Named("actuator", obj::ACTUATOR),
    ),
    (
        "jointactuatorfrc",
        kind::JOINTACTFRC,
        Target::Named("joint", obj::JOINT),
    ),
    (
        "tendonactuatorfrc",
        kind::TENDONACTFRC,
        Target::Named("tendon", obj::TENDON),
    ),
    (
        "ballquat",
        kind::BALLQUAT,
        Target::Named("joint", obj::JOINT),
    ),
    (
        "ballangvel",
        kind::BALLANGVEL,
        Target::Named("joint", obj::JOINT),
    ),
    (
        "jointlimitpos",
        kind::JOINTLIMITPOS,
        Target::Named("joint", obj::JOINT),
    ),
    (
        "jointlimitvel",
        kind::JOINTLIMITVEL,
        Target::Named("joint", obj::JOINT),
    ),
    (
        "jointlimitfrc",
        kind::JOINTLIMITFRC,
        Target::Named("joint", obj::JOINT),
    ),
    (
        "tendonlimitpos",
        kind::TENDONLIMITPOS,
        Target::Named("tendon", obj::TENDON),
    ),
    (
        "tendonlimitvel",
        kind::TENDONLIMITVEL,
        Target::Named("tendon", obj::TENDON),
    ),
    (
        "tendonlimitfrc",
        kind::TENDONLIMITFRC,
        Target::Named("tendon", obj::TENDON),
    ),
    ("framepos", kind::FRAMEPOS, Target::Frame(true)),
    ("framequat", kind::FRAMEQUAT, Target::Frame(true)),
    ("framexaxis", kind::FRAMEXAXIS, Target::Frame(true)),
    ("frameyaxis", kind::FRAMEYAXIS, Target::Frame(true)),
    ("framezaxis", kind::FRAMEZAXIS, Target::Frame(true)),
    ("framelinvel", kind::FRAMELINVEL, Target::Frame(true)),
    ("frameangvel", kind::FRAMEANGVEL, Target::Frame(true)),
    (
        "subtreecom",
        kind::SUBTREECOM,
        Target::Named("body", obj::BODY),
    ),
    (
        "subtreelinvel",
        kind::SUBTREELINVEL,
        Target::Named("body", obj::BODY),
    ),
    (
        "subtreeangmom",
        kind::SUBTREEANGMOM,
        Target::Named("body", obj::BODY),
    ),
    ("e_potential", kind::E_POTENTIAL, Target::None),
    ("e_kinetic", kind::E_KINETIC, Target::None),
    ("clock", kind::CLOCK, Target::None),
];

/// MuJoCo's sensor elements flexlab does not compute yet.
const NOT_YET: &[&str] = &[
    "rangefinder",
    "camprojection",
    "distance",
    "normal",
    "fromto",
    "contact",
    "tactile",
    "user",
    "plugin",
];

/// `objtype`/`reftype` keywords of frame sensors.
const FRAME_OBJECTS: &[(&str, i32)] = &[
    ("body", obj::BODY),
    ("xbody", obj::XBODY),
    ("geom", obj::GEOM),
    ("site", obj::SITE),
    ("camera", obj::CAMERA),
];

/// Attributes every sensor has.
const BASE_ATTRS: [&str; 8] = [
    "name", "nsample", "interp", "delay", "interval", "cutoff", "noise", "user",
];

/// Reads one `<sensor>` section.
pub fn read_sensors(section: &Element, out: &mut Vec<SensorSpec>) -> Result<()> {
    section.check_attrs(&[])?;
    for e in &section.children {
        let Some((_, stype, target)) = ELEMENTS.iter().find(|(tag, ..)| *tag == e.name) else {
            if NOT_YET.contains(&e.name.as_str()) {
                return Err(unsupported(e, &format!("the sensor <{}>", e.name)));
            }
            return Err(e.error(format!(
                "Schema violation: unrecognized element '{}'",
                e.name
            )));
        };
        let mut allowed = BASE_ATTRS.to_vec();
        match target {
            Target::None => {}
            Target::Named(attr, _) => allowed.push(attr),
            Target::Frame(with_ref) => {
                allowed.extend(["objtype", "objname"]);
                if *with_ref {
                    allowed.extend(["reftype", "refname"]);
                }
            }
            Target::InSite => allowed.extend(["site", "objtype", "objname"]),
        }
        e.check_attrs(&allowed)?;
        // history buffers, delays and sampling intervals (MuJoCo 3.15.0 sensor history)
        e.reject_unsupported(&["nsample", "interp", "delay", "interval", "user"])?;
        let mut s = SensorSpec {
            name: e.string("name").unwrap_or_default(),
            stype: *stype,
            line: e.line,
            ..Default::default()
        };
        if !s.name.is_empty() && out.iter().any(|o| o.name == s.name) {
            // MuJoCo's parser reports the name's compiler error inside the XML error
            let msg = format!("Error: repeated name '{}' in sensor", s.name);
            return Err(e.attr_error("name", msg));
        }
        e.read_f64("cutoff", &mut s.cutoff)?;
        e.read_f64("noise", &mut s.noise)?;
        let required = |attr: &str| {
            e.string(attr)
                .ok_or_else(|| e.error(format!("required attribute missing: '{attr}'")))
        };
        match target {
            Target::None => {}
            Target::Named(attr, objtype) => {
                s.objtype = *objtype;
                s.objname = required(attr)?;
            }
            Target::Frame(_) => {
                (s.objtype, s.objname) = frame_object(e)?;
                if e.attr("reftype").is_some() != e.attr("refname").is_some() {
                    return Err(e.error(
                        "Schema violation: attributes 'reftype', 'refname' must be specified \
                         together",
                    ));
                }
                if let Some(r) = e.keyword("reftype", FRAME_OBJECTS)? {
                    s.reftype = r;
                    s.refname = e.string("refname").unwrap_or_default();
                }
            }
            Target::InSite => {
                s.reftype = obj::SITE;
                s.refname = required("site")?;
                (s.objtype, s.objname) = frame_object(e)?;
            }
        }
        out.push(s);
    }
    Ok(())
}

/// The required `objtype` and `objname` of a frame or insidesite sensor.
fn frame_object(e: &Element) -> Result<(i32, String)> {
    let objtype = e
        .keyword("objtype", FRAME_OBJECTS)?
        .ok_or_else(|| e.error("required attribute missing: 'objtype'"))?;
    let objname = e
        .string("objname")
        .ok_or_else(|| e.error("required attribute missing: 'objname'"))?;
    Ok((objtype, objname))
}
