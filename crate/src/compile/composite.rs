//! `<composite type="cable">`: MuJoCo's cable, a chain of rigid bodies joined by ball joints
//! (MuJoCo's `mjCComposite::Make` / `MakeCable` / `AddCableBody`). The chain is built into the
//! spec while the worldbody is read, exactly where MuJoCo's reader builds it, so bodies, joints,
//! geoms and sites get MuJoCo's ids and names. The bending and twisting forces come from the
//! cable plugin ([`crate::engine::cable`]), attached to every body of the chain.
//!
//! The other composite types of MuJoCo 3.15.0 are deprecated there and rejected with its
//! messages; a cable of box geoms (whose skin MuJoCo generates) is not supported yet.

use crate::compile::orient;
use crate::engine::cable::CABLE_PLUGIN;
use crate::math;
use crate::spec::*;

/// Composite types, as `mjtCompType` (all but `cable` are deprecated in 3.15.0).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompositeType {
    Particle,
    Grid,
    Rope,
    Loop,
    Cable,
    Cloth,
}

/// One coordinate of a generated cable curve (`mjtCompShape`), as a function of the arc
/// parameter s.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CurveShape {
    /// `s`: `size[0]·s`
    Line,
    /// `cos(s)`: `size[1]·cos(π·size[2]·s)`
    Cos,
    /// `sin(s)`: `size[1]·sin(π·size[2]·s)`
    Sin,
    /// `0`
    Zero,
}

/// How the first body of the cable is attached: no joint (clamped to its parent), a ball
/// joint, or a free joint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Initial {
    None,
    Ball,
    Free,
}

/// A `<composite>` as read, with its element defaults (MuJoCo's built-in defaults, not the
/// body's class, plus the attributes of its `<geom>`, `<site>` and `<joint kind="main">`).
#[derive(Debug, Clone)]
pub struct CompositeSpec {
    pub prefix: String,
    pub ctype: CompositeType,
    pub count: [i32; 3],
    /// Position of the first vertex in the parent body's frame (m).
    pub offset: [f64; 3],
    /// Rotation applied to the generated curve (not normalized, as MuJoCo).
    pub quat: [f64; 4],
    pub curve: [CurveShape; 3],
    pub size: [f64; 3],
    pub initial: Initial,
    /// Vertex positions given by `vertex` (MuJoCo stores them, and generated ones, as f32).
    pub vertex: Vec<f32>,
    pub geom: GeomSpec,
    pub site: SiteSpec,
    pub joint: JointSpec,
    /// Plugin instance of the chain (index into [`Spec::plugins`]) and its plugin name.
    pub plugin: Option<(usize, String)>,
    pub line: u32,
}

impl Default for CompositeSpec {
    fn default() -> Self {
        CompositeSpec {
            prefix: String::new(),
            ctype: CompositeType::Particle,
            count: [1, 1, 1],
            offset: [0.0; 3],
            quat: [1.0, 0.0, 0.0, 0.0],
            curve: [CurveShape::Zero; 3],
            size: [1.0, 0.0, 0.0],
            initial: Initial::Ball,
            vertex: Vec::new(),
            // SetDefault: geoms of a cable stay visible (group 0), sites and joints in group 3
            geom: GeomSpec::default(),
            site: SiteSpec {
                group: 3,
                ..SiteSpec::default()
            },
            joint: JointSpec {
                group: 3,
                ..JointSpec::default()
            },
            plugin: None,
            line: 0,
        }
    }
}

/// Builds the composite under `parent` (MuJoCo's `mjCComposite::Make`). Errors carry MuJoCo's
/// messages; the caller locates them at the `<composite>` element.
pub fn make(spec: &mut Spec, parent: usize, c: &CompositeSpec) -> Result<(), String> {
    let mut count = c.count;
    if count.iter().any(|&n| n < 1) {
        return Err("Positive counts expected in composite".into());
    }
    // MuJoCo has no bound; flexlab has the flexcomp one, so that a hostile count cannot
    // exhaust memory while compiling
    let points: i64 = count.iter().map(|&n| n as i64).product();
    let limit = super::flexcomp::MAX_FLEXCOMP_POINTS;
    if points > limit {
        return Err(format!(
            "composite with {points} points exceeds flexlab's limit of {limit}"
        ));
    }
    if math::dot3(&c.size, &c.size) < math::MINVAL && c.vertex.is_empty() {
        return Err("Positive spacing or length expected in composite".into());
    }
    if !c.vertex.is_empty() {
        if count[0] > 1 {
            return Err("Either vertex or count can be specified, not both".into());
        }
        count[0] = (c.vertex.len() / 3) as i32;
        count[1] = 1;
    }
    let mut dim = 0;
    let mut singleton = false;
    for &n in &count {
        if n == 1 {
            singleton = true;
        } else {
            dim += 1;
            if singleton {
                return Err("Singleton counts must come last".into());
            }
        }
    }
    if let Some((_, name)) = &c.plugin {
        if c.ctype != CompositeType::Cable {
            return Err("Only cable composite supports plugins".into());
        }
        if name != CABLE_PLUGIN {
            return Err("Only mujoco.elasticity.cable is supported by composites".into());
        }
    }
    let deprecated = |old: &str, new: &str| {
        Err(format!(
            "The \"{old}\" composite type is deprecated. Please use \"{new}\" instead."
        ))
    };
    match c.ctype {
        CompositeType::Particle => deprecated("particle", "replicate"),
        CompositeType::Grid => deprecated("grid", "flex"),
        CompositeType::Rope => deprecated("rope", "cable"),
        CompositeType::Loop => deprecated("loop", "flexcomp"),
        CompositeType::Cloth => deprecated("cloth", "shell"),
        CompositeType::Cable => make_cable(spec, parent, c, count[0] as usize, dim),
    }
}

/// Vertices of the cable: the `vertex` attribute, or `count[0]` points of the curve, rotated
/// by the composite's quat and rounded to f32 as MuJoCo stores them.
fn cable_vertices(c: &CompositeSpec, n: usize) -> Vec<f32> {
    if !c.vertex.is_empty() {
        return c.vertex.clone();
    }
    let mut out = Vec::with_capacity(3 * n);
    for ix in 0..n {
        let mut v = [0.0; 3];
        for (k, shape) in c.curve.iter().enumerate() {
            // MuJoCo's evaluation order, so the f32 rounding below agrees
            let arg = math::PI * ix as f64 * c.size[2] / (n as f64 - 1.0);
            v[k] = match shape {
                CurveShape::Line => ix as f64 * c.size[0] / (n as f64 - 1.0),
                CurveShape::Cos => c.size[1] * arg.cos(),
                CurveShape::Sin => c.size[1] * arg.sin(),
                CurveShape::Zero => 0.0,
            };
        }
        // applied to the quat as written: a non-unit quat scales the curve too, as in MuJoCo
        let v = math::rot_vec_quat(&v, &c.quat);
        out.extend(v.iter().map(|&x| x as f32));
    }
    out
}

fn make_cable(
    spec: &mut Spec,
    parent: usize,
    c: &CompositeSpec,
    n: usize,
    dim: usize,
) -> Result<(), String> {
    if dim != 1 {
        return Err("Cable must be one-dimensional".into());
    }
    match c.geom.gtype {
        // MuJoCo also drapes a skin over box cables; the skin is only drawn, so flexlab leaves
        // it out (the boxes themselves are drawn)
        GeomType::Cylinder | GeomType::Capsule | GeomType::Box => {}
        _ => return Err("Cable geom type must be sphere, capsule or box".into()),
    }
    if n == 0 {
        // fewer than 3 vertex values: MuJoCo's loops make no bodies and no error
        return Ok(());
    }
    let vert = cable_vertices(c, n);
    let vertex = |i: usize| {
        [
            vert[3 * i] as f64,
            vert[3 * i + 1] as f64,
            vert[3 * i + 2] as f64,
        ]
    };
    // MuJoCo subtracts the stored f32 vertices in f32 arithmetic
    let diff = |i: usize, j: usize| {
        [
            (vert[3 * i] - vert[3 * j]) as f64,
            (vert[3 * i + 1] - vert[3 * j + 1]) as f64,
            (vert[3 * i + 2] - vert[3 * j + 2]) as f64,
        ]
    };
    // moving frame along the curve (mjuu_updateFrame), carried from edge to edge
    let mut normal = [0.0, 1.0, 0.0];
    let mut prev_quat = [1.0, 0.0, 0.0, 0.0];
    let mut body = parent;
    let last_idx = n - 2;
    for ix in 0..n - 1 {
        let first = ix == 0;
        let last = ix == last_idx;
        let edge = diff(ix + 1, ix);
        let mut tprev = [0.0; 3];
        let mut length_prev = 0.0;
        if !first {
            tprev = diff(ix, ix - 1);
            length_prev = orient::normvec(&mut tprev);
        }
        let mut tnext = [0.0; 3];
        if !last {
            tnext = diff(ix + 2, ix + 1);
            orient::normvec(&mut tnext);
        }
        let (this_quat, length) = update_frame(&mut normal, &edge, &tprev, &tnext, first);

        let p = &c.prefix;
        let (this_body, next_body, this_joint, site) = if first {
            (
                format!("{p}B_first"),
                format!("{p}B_{}", ix + 1),
                format!("{p}J_first"),
                Some(format!("{p}S_first")),
            )
        } else if last {
            (
                format!("{p}B_last"),
                format!("{p}B_first"),
                format!("{p}J_last"),
                Some(format!("{p}S_last")),
            )
        } else if ix + 1 == last_idx {
            (
                format!("{p}B_{ix}"),
                format!("{p}B_last"),
                format!("{p}J_{ix}"),
                None,
            )
        } else {
            (
                format!("{p}B_{ix}"),
                format!("{p}B_{}", ix + 1),
                format!("{p}J_{ix}"),
                None,
            )
        };

        body = spec.add_body(body, &this_body);
        {
            let b = &mut spec.bodies[body];
            b.line = c.line;
            b.plugin = c.plugin.as_ref().map(|(id, _)| *id);
            if first {
                let v = vertex(ix);
                b.pos = [c.offset[0] + v[0], c.offset[1] + v[1], c.offset[2] + v[2]];
                b.orient = Orientation::Quat(this_quat);
            } else {
                b.pos = [length_prev, 0.0, 0.0];
                b.orient =
                    Orientation::Quat(orient::mulquat(&math::neg_quat(&prev_quat), &this_quat));
            }
        }

        let mut geom = GeomSpec {
            name: format!("{p}G{ix}"),
            line: c.line,
            ..c.geom.clone()
        };
        if c.geom.gtype == GeomType::Box {
            // a box centred on the edge, its half length along x
            geom.fromto = None;
            geom.pos = [length / 2.0, 0.0, 0.0];
            geom.size[0] = length / 2.0;
        } else {
            geom.fromto = Some([0.0, 0.0, 0.0, length, 0.0, 0.0]);
        }
        spec.add_geom(body, geom);
        prev_quat = this_quat;

        if !first || c.initial != Initial::None {
            let free = first && c.initial == Initial::Free;
            let mut joint = JointSpec {
                name: this_joint,
                line: c.line,
                ..c.joint.clone()
            };
            joint.jtype = if free {
                JointType::Free
            } else {
                JointType::Ball
            };
            if free {
                joint.damping = 0.0;
                joint.armature = 0.0;
                joint.frictionloss = 0.0;
            }
            spec.add_joint(body, joint);
        }
        if !last {
            spec.excludes.push(ExcludeSpec {
                body1: this_body,
                body2: next_body,
                line: c.line,
            });
        }
        if let Some(name) = site {
            let s = SiteSpec {
                name,
                pos: [if last { length } else { 0.0 }, 0.0, 0.0],
                orient: Orientation::Quat([1.0, 0.0, 0.0, 0.0]),
                line: c.line,
                ..c.site.clone()
            };
            spec.add_site(body, s);
        }
    }
    Ok(())
}

/// MuJoCo's `mjuu_updateFrame`: advances the curve's moving frame to the next edge (the first
/// edge takes its binormal from the next edge; later ones rotate the normal about the vertex
/// binormal) and returns the edge frame and the edge length.
fn update_frame(
    normal: &mut [f64; 3],
    edge: &[f64; 3],
    tprev: &[f64; 3],
    tnext: &[f64; 3],
    first: bool,
) -> ([f64; 4], f64) {
    let mut tangent = *edge;
    orient::normvec(&mut tangent);
    let mut binormal;
    if first {
        binormal = math::cross(&tangent, tnext);
        orient::normvec(&mut binormal);
        *normal = math::cross(&binormal, &tangent);
        orient::normvec(normal);
    } else {
        binormal = math::cross(tprev, &tangent);
        let angle = orient::normvec(&mut binormal).atan2(math::dot3(tprev, &tangent));
        let darboux = math::axis_angle_to_quat(&binormal, angle);
        *normal = math::rot_vec_quat(normal, &darboux);
        orient::normvec(normal);
        binormal = math::cross(&tangent, normal);
        orient::normvec(&mut binormal);
    }
    let quat = orient::frame_to_quat(&tangent, normal, &binormal);
    (quat, math::dot3(edge, edge).sqrt())
}

#[cfg(test)]
mod tests {
    use crate::mjcf::MemSource;

    fn cable(initial: &str, plugin: bool) -> crate::Model {
        let plugin = if plugin {
            r#"<plugin plugin="mujoco.elasticity.cable"><config key="bend" value="1e6"/></plugin>"#
        } else {
            ""
        };
        let xml = format!(
            r#"<mujoco><extension><plugin plugin="mujoco.elasticity.cable"/></extension>
            <worldbody><body name="a"/>
            <composite prefix="k" type="cable" count="5 1 1" size="0.4" curve="s"
                       initial="{initial}">{plugin}<joint kind="main" damping="0.1"/>
              <geom type="capsule" size="0.01"/></composite>
            <body name="b"/></worldbody></mujoco>"#
        );
        crate::load_xml(&xml, None, &MemSource::default()).unwrap()
    }

    #[test]
    fn a_cable_is_a_named_chain_of_ball_joints_in_depth_first_order() {
        let m = cable("none", true);
        let names: Vec<&str> = m.names_body.iter().map(|s| s.as_str()).collect();
        assert_eq!(
            names,
            ["world", "a", "kB_first", "kB_1", "kB_2", "kB_last", "b"]
        );
        // the clamped first body has no joint; every other body one ball joint, damped
        assert_eq!(m.jnt_type, [1, 1, 1]);
        assert_eq!(m.jnt_bodyid, [3, 4, 5]);
        assert!(m.dof_damping.iter().all(|&d| d == 0.1));
        assert_eq!(m.nsite, 2);
        // neighbours never collide; every chain body names the one plugin instance
        assert_eq!(m.nexclude, 3);
        assert_eq!(m.nplugin, 1);
        assert_eq!(m.body_plugin, [-1, -1, 0, 0, 0, 0, -1]);
        assert_eq!(m.cable.len(), 1);
        assert_eq!((m.cable[0].i0, m.cable[0].n), (2, 4));
    }

    #[test]
    fn a_free_first_body_drops_its_damping_and_no_plugin_means_no_instance() {
        let m = cable("free", false);
        assert_eq!(m.jnt_type, [0, 1, 1, 1]);
        assert!(m.dof_damping[..6].iter().all(|&d| d == 0.0));
        assert!(m.dof_damping[6..].iter().all(|&d| d == 0.1));
        assert_eq!(m.nplugin, 0);
        assert!(m.cable.is_empty());
    }
}
