//! Readers for `<extension>` (plugin declarations and instances) and `<composite>` (MuJoCo's
//! `OneComposite`): attribute sets as MuJoCo 3.15.0's schema, messages in its words.

use super::xml::Element;
use crate::compile::composite::{CompositeSpec, CompositeType, CurveShape, Initial};
use crate::engine::cable::CABLE_PLUGIN;
use crate::error::{ErrorKind, Result};
use crate::spec::*;

/// Plugins flexlab implements.
const SUPPORTED_PLUGINS: [&str; 2] = [CABLE_PLUGIN, crate::engine::sdf::TORUS_PLUGIN];

fn unsupported(e: &Element, what: &str) -> crate::Error {
    let mut err = e.error(format!("{what} is not supported by flexlab yet"));
    err.kind = ErrorKind::Unsupported;
    err
}

/// `<config key value>` children, in file order; a repeated key is MuJoCo's XML error.
fn read_config(e: &Element) -> Result<Vec<(String, String)>> {
    let mut out: Vec<(String, String)> = Vec::new();
    for c in &e.children {
        if c.name != "config" {
            return Err(c.error(format!(
                "Schema violation: unrecognized element '{}'",
                c.name
            )));
        }
        c.check_attrs(&["key", "value"])?;
        let key = c.string("key").unwrap_or_default();
        if out.iter().any(|(k, _)| *k == key) {
            return Err(c.error(format!("duplicate config key: {key}")));
        }
        out.push((key, c.string("value").unwrap_or_default()));
    }
    Ok(out)
}

/// `<extension>`: each `<plugin plugin=...>` declares a plugin the model uses; its
/// `<instance name>` children are explicit, named instances with their config.
pub fn read_extension(e: &Element, spec: &mut Spec) -> Result<()> {
    e.check_attrs(&[])?;
    for p in &e.children {
        if p.name != "plugin" {
            return Err(p.error(format!(
                "Schema violation: unrecognized element '{}'",
                p.name
            )));
        }
        p.check_attrs(&["plugin"])?;
        let name = p.string("plugin").unwrap_or_default();
        if !SUPPORTED_PLUGINS.contains(&name.as_str()) {
            return Err(unsupported(p, &format!("plugin '{name}'")));
        }
        for inst in &p.children {
            if inst.name != "instance" {
                return Err(inst.error(format!(
                    "Schema violation: unrecognized element '{}'",
                    inst.name
                )));
            }
            inst.check_attrs(&["name"])?;
            spec.plugins.push(PluginSpec {
                plugin: name.clone(),
                name: inst.string("name").unwrap_or_default(),
                config: read_config(inst)?,
                line: inst.line,
            });
        }
        spec.extensions.push(name);
    }
    Ok(())
}

/// A `<composite>` element, read into its spec. A `<plugin>` child with config makes an
/// implicit instance (named `composite<prefix>`); one with `instance=` refers to an explicit
/// instance of `<extension>`.
pub fn read_composite(e: &Element, spec: &mut Spec) -> Result<CompositeSpec> {
    e.check_attrs(&[
        "prefix", "type", "count", "offset", "vertex", "initial", "curve", "size", "quat",
    ])?;
    let mut c = CompositeSpec {
        prefix: e.string("prefix").unwrap_or_default(),
        line: e.line,
        ..Default::default()
    };
    c.ctype = match e.attr("type") {
        None => return Err(e.error("required attribute missing: 'type'")),
        Some(t) => match t.trim() {
            "particle" => CompositeType::Particle,
            "grid" => CompositeType::Grid,
            "rope" => CompositeType::Rope,
            "loop" => CompositeType::Loop,
            "cable" => CompositeType::Cable,
            "cloth" => CompositeType::Cloth,
            other => return Err(e.error(format!("invalid keyword: '{other}'"))),
        },
    };
    if let Some(v) = e.ints("count")? {
        for (k, n) in v.iter().take(3).enumerate() {
            c.count[k] = *n;
        }
    }
    e.read_f64s("offset", 3, &mut c.offset)?;
    e.read_f64s("quat", 4, &mut c.quat)?;
    if let Some(v) = e.numbers("size")? {
        for (k, x) in v.iter().take(3).enumerate() {
            c.size[k] = *x;
        }
    }
    if let Some(v) = e.numbers("vertex")? {
        c.vertex = v.iter().map(|&x| x as f32).collect();
    }
    if let Some(t) = e.attr("initial") {
        c.initial = match t.trim() {
            "none" => Initial::None,
            "ball" => Initial::Ball,
            "free" => Initial::Free,
            other => return Err(e.error(format!("invalid keyword: '{other}'"))),
        };
    }
    if let Some(curve) = e.attr("curve") {
        for (k, tok) in curve.split_ascii_whitespace().enumerate() {
            if k > 2 {
                return Err(e.error("The curve array must have a maximum of 3 components"));
            }
            c.curve[k] = match tok {
                "s" => CurveShape::Line,
                "cos(s)" => CurveShape::Cos,
                "sin(s)" => CurveShape::Sin,
                "0" => CurveShape::Zero,
                _ => return Err(e.error("The curve array contains an invalid shape")),
            };
        }
    }

    let mut joint_seen = false;
    for ch in &e.children {
        match ch.name.as_str() {
            "plugin" => c.plugin = Some(composite_plugin(ch, spec, &c.prefix)?),
            "skin" => return Err(unsupported(ch, "a composite <skin>")),
            "geom" => read_geom(ch, &mut c.geom)?,
            "site" => {
                ch.check_attrs(&["group", "size", "material", "rgba"])?;
                ch.read_int("group", &mut c.site.group)?;
                ch.read_f64s("size", 1, &mut c.site.size)?;
                ch.f32s("rgba", &mut c.site.rgba)?;
            }
            "joint" => {
                if joint_seen && c.ctype != CompositeType::Particle {
                    return Err(e.error("Only particles are allowed to have multiple joints"));
                }
                joint_seen = true;
                read_joint(ch, &mut c.joint)?;
            }
            other => {
                return Err(ch.error(format!("Schema violation: unrecognized element '{other}'")))
            }
        }
    }
    Ok(c)
}

/// The composite's `<plugin>`: its instance id (a new implicit one, named
/// `composite<prefix>`, unless `instance=` names an explicit one) and the plugin name.
fn composite_plugin(p: &Element, spec: &mut Spec, prefix: &str) -> Result<(usize, String)> {
    let (id, name) = element_plugin(p, spec)?;
    if p.string("instance").is_none() {
        spec.plugins[id].name = format!("composite{prefix}");
    }
    Ok((id, name))
}

/// A `<plugin plugin= instance=>` child of a body, composite, mesh or geom (MuJoCo's
/// `OnePlugin`): the instance id (a new implicit, unnamed one with the element's config
/// unless `instance=` names an explicit one) and the plugin name it asked for.
pub fn element_plugin(p: &Element, spec: &mut Spec) -> Result<(usize, String)> {
    p.check_attrs(&["plugin", "instance"])?;
    let name = p.string("plugin").unwrap_or_default();
    let config = read_config(p)?;
    if let Some(inst) = p.string("instance") {
        let id = spec
            .plugins
            .iter()
            .position(|q| q.name == inst)
            .ok_or_else(|| p.error(format!("unrecognized plugin instance '{inst}'")))?;
        return Ok((id, name));
    }
    spec.plugins.push(PluginSpec {
        plugin: name.clone(),
        name: String::new(),
        config,
        line: p.line,
    });
    Ok((spec.plugins.len() - 1, name))
}

/// The composite's `<geom>`: a subset of a body geom's attributes, read the same way.
fn read_geom(g: &Element, out: &mut GeomSpec) -> Result<()> {
    g.check_attrs(&[
        "type",
        "contype",
        "conaffinity",
        "condim",
        "group",
        "priority",
        "size",
        "material",
        "rgba",
        "friction",
        "mass",
        "density",
        "solmix",
        "solref",
        "solimp",
        "margin",
        "gap",
        "surfacevel",
        "adhesion",
    ])?;
    super::reader::read_geom(g, out, true)
}

/// `<joint kind="main">`: the defaults of the chain's ball (or free) joints.
fn read_joint(j: &Element, out: &mut JointSpec) -> Result<()> {
    j.check_attrs(&[
        "kind",
        "group",
        "stiffness",
        "damping",
        "armature",
        "solreffix",
        "solimpfix",
        "type",
        "axis",
        "limited",
        "range",
        "margin",
        "solreflimit",
        "solimplimit",
        "frictionloss",
        "solreffriction",
        "solimpfriction",
    ])?;
    match j.attr("kind") {
        None => return Err(j.error("required attribute missing: 'kind'")),
        Some(k) if k.trim() == "main" => {}
        Some(k) => return Err(j.error(format!("invalid keyword: '{}'", k.trim()))),
    }
    j.read_int("group", &mut out.group)?;
    if let Some(x) = j.linear_coef("stiffness", "polynomial joint stiffness")? {
        out.stiffness = x;
    }
    if let Some(x) = j.linear_coef("damping", "polynomial joint damping")? {
        out.damping = x;
    }
    j.read_f64("armature", &mut out.armature)?;
    // type/axis only matter for particles; limited is read by MuJoCo from the composite
    // element itself (which has no such attribute), so neither changes a cable
    j.read_f64s("range", 2, &mut out.range)?;
    j.read_f64("margin", &mut out.margin)?;
    j.read_f64s("solreflimit", 1, &mut out.solref_limit)?;
    j.read_f64s("solimplimit", 1, &mut out.solimp_limit)?;
    j.read_f64("frictionloss", &mut out.frictionloss)?;
    j.read_f64s("solreffriction", 1, &mut out.solref_friction)?;
    j.read_f64s("solimpfriction", 1, &mut out.solimp_friction)?;
    Ok(())
}
