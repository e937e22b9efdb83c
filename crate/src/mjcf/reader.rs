//! Section readers. Attribute sets follow MuJoCo 3.15.0's schema: an attribute MuJoCo does
//! not know is a schema violation with MuJoCo's message; one MuJoCo knows but flexlab does not
//! implement is a located "not supported" error; drawing-only attributes are accepted.

use super::xml::{Element, FileSource};
use crate::compile::flexcomp::{self, DofType, FlexcompSpec, FlexcompType};
use crate::error::{ErrorKind, Result};
use crate::model::{disable, enable, Cone, Integrator, JacobianKind, Solver};
use crate::spec::*;

/// One `<default>` class with the values it sets.
#[derive(Clone)]
struct DefaultClass {
    name: String,
    joint: JointSpec,
    geom: GeomSpec,
    site: SiteSpec,
    equality: EqualitySpec,
    pair: PairSpec,
    tendon: TendonSpec,
    actuator: ActuatorSpec,
    mesh_scale: [f64; 3],
    mesh_inertia: MeshInertia,
}

pub struct Reader<'a> {
    src: &'a dyn FileSource,
    spec: Spec,
    classes: Vec<DefaultClass>,
    /// Inside `<replicate>`: the suffix every name gets (innermost copy index first, as
    /// MuJoCo names them).
    replicate_suffix: String,
    /// Inside `<frame>` or a `<replicate>` copy: the innermost frame, which the poses of the
    /// elements read now are in.
    frame: Option<usize>,
    /// Names read so far, per kind of element (see [`Reader::claim_name`]).
    /// (One set of "kind NUL name" keys: the type the flexcomp reader's set already is, so the
    /// browser build holds no other hash-table code for it.)
    names: std::collections::HashSet<String>,
}

const ORIENT_ATTRS: [&str; 5] = ["quat", "axisangle", "xyaxes", "zaxis", "euler"];

/// The attributes of an element placed by a position and an orientation (frame, body,
/// flexcomp): `name`, `pos`, the orientation forms and the element's own `extra`.
fn placed_attrs<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    let mut v = vec!["name", "pos"];
    v.extend(ORIENT_ATTRS);
    v.extend(extra);
    v
}

/// What a `<frame>` places; a `<replicate>` places the same but joints. A flexcomp is read in
/// a frame but not placed by it (MuJoCo 3.15.0 builds it in the body), and only the first body
/// of a composite is placed.
const FRAME_CHILDREN: [&str; 10] = [
    "body",
    "geom",
    "site",
    "joint",
    "camera",
    "light",
    "frame",
    "replicate",
    "flexcomp",
    "composite",
];

pub(super) fn unsupported(e: &Element, what: &str) -> crate::Error {
    let mut err = e.error(format!("{what} is not supported by flexlab yet"));
    err.kind = ErrorKind::Unsupported;
    err
}

/// `<visual>`: drawing only, so nothing is kept, but MuJoCo's schema and value checks apply (a
/// model flexlab loads is one MuJoCo 3.15.0 loads).
fn visual(e: &Element) -> Result<()> {
    const GLOBAL: [&str; 13] = [
        "cameraid",
        "orthographic",
        "fovy",
        "ipd",
        "azimuth",
        "elevation",
        "linewidth",
        "glow",
        "offwidth",
        "offheight",
        "realtime",
        "ellipsoidinertia",
        "bvactive",
    ];
    const QUALITY: [&str; 5] = [
        "shadowsize",
        "offsamples",
        "numslices",
        "numstacks",
        "numquads",
    ];
    const HEADLIGHT: [&str; 4] = ["ambient", "diffuse", "specular", "active"];
    const MAP: [&str; 13] = [
        "stiffness",
        "stiffnessrot",
        "force",
        "torque",
        "alpha",
        "fogstart",
        "fogend",
        "znear",
        "zfar",
        "haze",
        "shadowclip",
        "shadowscale",
        "actuatortendon",
    ];
    const SCALE: [&str; 17] = [
        "forcewidth",
        "contactwidth",
        "contactheight",
        "connect",
        "com",
        "camera",
        "light",
        "selectpoint",
        "jointlength",
        "jointwidth",
        "actuatorlength",
        "actuatorwidth",
        "framelength",
        "framewidth",
        "constraint",
        "slidercrank",
        "frustum",
    ];
    const RGBA: [&str; 25] = [
        "fog",
        "haze",
        "force",
        "inertia",
        "joint",
        "actuator",
        "actuatornegative",
        "actuatorpositive",
        "com",
        "camera",
        "light",
        "selectpoint",
        "connect",
        "contactpoint",
        "contactforce",
        "contactfriction",
        "contacttorque",
        "contactgap",
        "rangefinder",
        "constraint",
        "slidercrank",
        "crankbroken",
        "frustum",
        "bv",
        "bvactive",
    ];
    const BOOLS: [&str; 3] = ["orthographic", "ellipsoidinertia", "bvactive"];
    const INTS: [&str; 9] = [
        "cameraid",
        "offwidth",
        "offheight",
        "shadowsize",
        "offsamples",
        "numslices",
        "numstacks",
        "numquads",
        "active",
    ];
    e.check_attrs(&[])?;
    for c in &e.children {
        let attrs: &[&str] = match c.name.as_str() {
            "global" => &GLOBAL,
            "quality" => &QUALITY,
            "headlight" => &HEADLIGHT,
            "map" => &MAP,
            "scale" => &SCALE,
            "rgba" => &RGBA,
            _ => {
                return Err(c.error(format!(
                    "Schema violation: unrecognized element '{}'",
                    c.name
                )))
            }
        };
        let n = e.children_named(&c.name).count();
        if n > 1 {
            return Err(e.error(format!(
                "Schema violation: unique element '{}' found {n} times",
                c.name
            )));
        }
        if let Some(g) = c.children.first() {
            return Err(g.error(format!(
                "Schema violation: unrecognized element '{}'",
                g.name
            )));
        }
        c.check_attrs(attrs)?;
        for &a in attrs {
            if c.name == "rgba" {
                c.exact_f64s::<4>(a)?;
            } else if c.name == "headlight" && a != "active" {
                c.exact_f64s::<3>(a)?;
            } else if BOOLS.contains(&a) {
                c.bool(a)?;
            } else if INTS.contains(&a) {
                c.int(a)?;
            } else {
                c.f64(a)?;
            }
        }
        if c.name == "global" && c.f64("realtime")?.is_some_and(|v| v <= 0.0) {
            return Err(c.attr_error("realtime", "realtime must be greater than 0"));
        }
        if c.name == "map" && c.f64("znear")?.is_some_and(|v| v <= 0.0) {
            return Err(c.attr_error("znear", "znear must be strictly positive"));
        }
    }
    Ok(())
}

/// A composite error: MuJoCo's XML error, at the element.
fn composite_error(e: &Element, msg: String) -> crate::Error {
    e.error(msg)
}

impl<'a> Reader<'a> {
    pub fn new(src: &'a dyn FileSource) -> Self {
        let main = DefaultClass {
            name: "main".to_string(),
            joint: JointSpec::default(),
            geom: GeomSpec::default(),
            site: SiteSpec::default(),
            equality: EqualitySpec::default(),
            pair: PairSpec::default(),
            tendon: TendonSpec::default(),
            actuator: ActuatorSpec::default(),
            mesh_scale: [1.0; 3],
            mesh_inertia: MeshInertia::Legacy,
        };
        Reader {
            src,
            spec: Spec::default(),
            classes: vec![main],
            replicate_suffix: String::new(),
            frame: None,
            names: Default::default(),
        }
    }

    /// Registers the name of an element of `kind` read from the XML, refusing a name its kind
    /// already has, as MuJoCo 3.15.0's parser does (at the second element, inside an XML
    /// error). Elements a flexcomp or composite makes are not registered, as in MuJoCo.
    fn claim_name(&mut self, e: &Element, kind: &'static str, name: &str) -> Result<()> {
        if name.is_empty() {
            return Ok(());
        }
        if !self.names.insert(format!("{kind}\0{name}")) {
            let msg = format!("Error: repeated name '{name}' in {kind}");
            return Err(e.attr_error("name", msg));
        }
        Ok(())
    }

    pub fn read(mut self, root: &Element) -> Result<Spec> {
        if root.name != "mujoco" {
            return Err(root.error(format!(
                "Schema violation: unrecognized element '{}' (the root must be <mujoco>)",
                root.name
            )));
        }
        root.check_attrs(&["model"])?;
        if let Some(name) = root.attr("model") {
            self.spec.modelname = name.to_string();
        }
        const SECTIONS: [&str; 17] = [
            "compiler",
            "option",
            "size",
            "visual",
            "statistic",
            "default",
            "extension",
            "custom",
            "asset",
            "contact",
            "deformable",
            "equality",
            "tendon",
            "actuator",
            "sensor",
            "keyframe",
            "worldbody",
        ];
        for c in &root.children {
            if !SECTIONS.contains(&c.name.as_str()) {
                return Err(c.error(format!(
                    "Schema violation: unrecognized element '{}'",
                    c.name
                )));
            }
        }
        // MuJoCo reads sections by kind in this order, whatever their order in the file
        for c in root.children_named("compiler") {
            self.compiler(c)?;
        }
        for c in root.children_named("option") {
            self.option(c)?;
        }
        for c in root.children_named("size") {
            c.check_attrs(&[
                "memory",
                "njmax",
                "nconmax",
                "nstack",
                "nuserdata",
                "nkey",
                "nuser_body",
                "nuser_jnt",
                "nuser_geom",
                "nuser_site",
                "nuser_cam",
                "nuser_tendon",
                "nuser_actuator",
                "nuser_sensor",
            ])?;
        }
        for c in root.children_named("statistic") {
            self.statistic(c)?;
        }
        for c in root.children_named("visual") {
            visual(c)?;
        }
        for c in root.children_named("default") {
            self.default_class(c, 0, true)?;
        }
        self.spec.joint_class_defaults = self.classes.iter().map(|c| c.joint.clone()).collect();
        for c in root.children_named("extension") {
            super::composite::read_extension(c, &mut self.spec)?;
        }
        if let Some(c) = root.children_named("custom").next() {
            return Err(unsupported(c, "<custom>"));
        }
        for c in root.children_named("asset") {
            self.asset(c)?;
        }
        for c in root.children_named("contact") {
            self.contact(c)?;
        }
        for c in root.children_named("deformable") {
            self.deformable(c)?;
        }
        for c in root.children_named("equality") {
            self.equality(c)?;
        }
        for c in root.children_named("tendon") {
            c.check_attrs(&[])?;
            for t in &c.children {
                if t.name != "fixed" && t.name != "spatial" {
                    return Err(unsupported(t, &format!("<{}> tendons", t.name)));
                }
                let class = self.class_of(t, 0)?;
                let mut ts = self.classes[class].tendon.clone();
                ts.line = t.line;
                if t.name == "spatial" {
                    // keep only the name: the compiler rejects it after the flex checks
                    ts.spatial = true;
                    ts.name = t.attr("name").unwrap_or("").to_string();
                    self.spec.tendons.push(ts);
                    continue;
                }
                super::actuation::read_tendon(t, &mut ts, false)?;
                super::actuation::read_tendon_joints(t, &mut ts)?;
                self.claim_name(t, "tendon", &ts.name)?;
                self.spec.tendons.push(ts);
            }
        }
        for c in root.children_named("actuator") {
            c.check_attrs(&[])?;
            for a in &c.children {
                let class = self.class_of(a, 0)?;
                let mut spec = self.classes[class].actuator.clone();
                spec.line = a.line;
                super::actuation::read_actuator(a, &mut spec, false)?;
                self.claim_name(a, "actuator", &spec.name)?;
                self.spec.actuators.push(spec);
            }
        }
        for c in root.children_named("sensor") {
            super::sensor::read_sensors(c, &mut self.spec.sensors)?;
        }
        for c in root.children_named("keyframe") {
            self.keyframe(c)?;
        }
        for c in root.children_named("worldbody") {
            if !c.attrs.is_empty() {
                return Err(c.error("World body cannot have attributes"));
            }
            self.body_children(c, 0, 0)?;
            let replicated = super::replicate_refs::expand(c, &mut self.spec);
            // MuJoCo 3.15.0 checks each keyframe against the model as it is while a replicate
            // is read (its subtree once) and copies it at every attach (a key `k` becomes k0,
            // k1, …, k, holding the copies' values in other slots): a key written for the
            // whole model is refused there, so flexlab refuses keys beside a replicate rather
            // than read them otherwise
            let mut keys = root.children_named("keyframe").flat_map(|k| &k.children);
            if let Some(k) = keys.next().filter(|_| replicated) {
                return Err(unsupported(k, "a <keyframe> in a model with <replicate>"));
            }
        }
        crate::compile::place_framed(&mut self.spec)?;
        Ok(self.spec)
    }

    // ---------------------------------------------------------------- compiler, option

    fn compiler(&mut self, e: &Element) -> Result<()> {
        e.check_attrs(&[
            "autolimits",
            "boundmass",
            "boundinertia",
            "settotalmass",
            "balanceinertia",
            "strippath",
            "coordinate",
            "angle",
            "fitaabb",
            "eulerseq",
            "meshdir",
            "texturedir",
            "discardvisual",
            "usethread",
            "fusestatic",
            "inertiafromgeom",
            "inertiagrouprange",
            "saveinertial",
            "assetdir",
            "alignfree",
            "conflict",
        ])?;
        let c = &mut self.spec.compiler;
        e.read_bool("autolimits", &mut c.autolimits)?;
        e.read_f64("boundmass", &mut c.boundmass)?;
        e.read_f64("boundinertia", &mut c.boundinertia)?;
        e.read_f64("settotalmass", &mut c.settotalmass)?;
        e.read_bool("balanceinertia", &mut c.balanceinertia)?;
        e.read_bool("discardvisual", &mut c.discardvisual)?;
        e.read_bool("alignfree", &mut c.alignfree)?;
        // "local" is the only frame MuJoCo 3.15.0 still reads (and its default)
        if e.keyword("coordinate", &[("local", false), ("global", true)])? == Some(true) {
            return Err(e.attr_error(
                "coordinate",
                "global coordinates no longer supported. To convert existing models, load and save them in MuJoCo 2.3.3 or older",
            ));
        }
        if let Some(deg) = e.keyword("angle", &[("radian", false), ("degree", true)])? {
            c.degree = deg;
        }
        if let Some(seq) = e.attr("eulerseq") {
            let b = seq.as_bytes();
            // any other letter is refused where an euler angle is resolved, as MuJoCo does
            if b.len() != 3 {
                let msg = "attribute 'eulerseq' must have exactly 3 characters";
                return Err(e.attr_error("eulerseq", msg));
            }
            c.eulerseq = [b[0], b[1], b[2]];
        }
        if let Some(d) = e.attr("assetdir") {
            c.meshdir = d.to_string();
            c.texturedir = d.to_string();
        }
        if let Some(d) = e.attr("meshdir") {
            c.meshdir = d.to_string();
        }
        if let Some(d) = e.attr("texturedir") {
            c.texturedir = d.to_string();
        }
        if let Some(v) = e.keyword(
            "inertiafromgeom",
            &[
                ("false", TriState::False),
                ("true", TriState::True),
                ("auto", TriState::Auto),
            ],
        )? {
            c.inertiafromgeom = v;
        }
        if let Some(v) = e.ints("inertiagrouprange")? {
            if v.len() != 2 {
                return Err(
                    e.attr_error("inertiagrouprange", "inertiagrouprange must have 2 values")
                );
            }
            c.inertiagrouprange = [v[0], v[1]];
        }
        e.read_bool("fusestatic", &mut c.fusestatic)?;
        if c.fusestatic {
            return Err(unsupported(e, "compiler fusestatic"));
        }
        e.read_bool("fitaabb", &mut c.fitaabb)?;
        Ok(())
    }

    /// `<statistic>`: MuJoCo's schema, and its one check (extent > 0).
    fn statistic(&mut self, e: &Element) -> Result<()> {
        e.check_attrs(&["meaninertia", "meanmass", "meansize", "extent", "center"])?;
        let s = &mut self.spec.statistic;
        for (name, out) in [
            ("meaninertia", &mut s.meaninertia),
            ("meanmass", &mut s.meanmass),
            ("meansize", &mut s.meansize),
            ("extent", &mut s.extent),
        ] {
            if let Some(v) = e.f64(name)? {
                *out = Some(v);
            }
        }
        if let Some(c) = e.exact_f64s::<3>("center")? {
            s.center = Some(c);
        }
        if s.extent.is_some_and(|x| x <= 0.0) {
            return Err(e.error("extent must be strictly positive"));
        }
        Ok(())
    }

    fn option(&mut self, e: &Element) -> Result<()> {
        e.check_attrs(&[
            "timestep",
            "impratio",
            "tolerance",
            "ls_tolerance",
            "noslip_tolerance",
            "ccd_tolerance",
            "sleep_tolerance",
            "gravity",
            "wind",
            "magnetic",
            "density",
            "viscosity",
            "o_margin",
            "o_solref",
            "o_solimp",
            "o_friction",
            "integrator",
            "cone",
            "jacobian",
            "solver",
            "iterations",
            "ls_iterations",
            "noslip_iterations",
            "ccd_iterations",
            "sdf_iterations",
            "sdf_initpoints",
            "actuatorgroupdisable",
        ])?;
        let o = &mut self.spec.option;
        e.read_f64("timestep", &mut o.timestep)?;
        e.read_f64("impratio", &mut o.impratio)?;
        e.read_f64("tolerance", &mut o.tolerance)?;
        e.read_f64("ls_tolerance", &mut o.ls_tolerance)?;
        e.read_f64("noslip_tolerance", &mut o.noslip_tolerance)?;
        e.read_f64("ccd_tolerance", &mut o.ccd_tolerance)?;
        e.read_f64("sleep_tolerance", &mut o.sleep_tolerance)?;
        e.read_f64s("gravity", 3, &mut o.gravity)?;
        e.read_f64s("wind", 3, &mut o.wind)?;
        e.read_f64s("magnetic", 3, &mut o.magnetic)?;
        e.read_f64("density", &mut o.density)?;
        e.read_f64("viscosity", &mut o.viscosity)?;
        e.read_f64("o_margin", &mut o.o_margin)?;
        e.read_f64s("o_solref", 1, &mut o.o_solref)?;
        e.read_f64s("o_solimp", 1, &mut o.o_solimp)?;
        e.read_f64s("o_friction", 1, &mut o.o_friction)?;
        if let Some(v) = e.attr("integrator") {
            o.integrator = Integrator::from_mjcf(v.trim()).ok_or_else(|| {
                e.attr_error(
                    "integrator",
                    super::attrs::invalid_keyword(
                        v,
                        "integrator",
                        &["Euler", "RK4", "implicit", "implicitfast", "discrete"],
                    ),
                )
            })?;
        }
        if let Some(v) = e.keyword(
            "cone",
            &[("pyramidal", Cone::Pyramidal), ("elliptic", Cone::Elliptic)],
        )? {
            o.cone = v;
        }
        if let Some(v) = e.keyword(
            "jacobian",
            &[
                ("dense", JacobianKind::Dense),
                ("sparse", JacobianKind::Sparse),
                ("auto", JacobianKind::Auto),
            ],
        )? {
            o.jacobian = v;
        }
        if let Some(v) = e.attr("solver") {
            o.solver = Solver::from_mjcf(v.trim()).ok_or_else(|| {
                e.attr_error(
                    "solver",
                    super::attrs::invalid_keyword(v, "solver", &["PGS", "CG", "Newton"]),
                )
            })?;
        }
        e.read_int("iterations", &mut o.iterations)?;
        e.read_int("ls_iterations", &mut o.ls_iterations)?;
        e.read_int("noslip_iterations", &mut o.noslip_iterations)?;
        e.read_int("ccd_iterations", &mut o.ccd_iterations)?;
        e.read_int("sdf_iterations", &mut o.sdf_iterations)?;
        e.read_int("sdf_initpoints", &mut o.sdf_initpoints)?;
        if let Some(groups) = e.ints("actuatorgroupdisable")? {
            for g in groups {
                let msg = match g {
                    ..0 => "disabled actuator group value must be non-negative",
                    31.. => "disabled actuator group value cannot exceed 30",
                    _ => {
                        o.disableactuator |= 1 << g;
                        continue;
                    }
                };
                return Err(e.attr_error("actuatorgroupdisable", msg));
            }
        }
        if o.timestep <= 0.0 || !o.timestep.is_finite() {
            return Err(e.attr_error("timestep", "timestep must be positive"));
        }
        for c in &e.children {
            if c.name != "flag" {
                return Err(c.error(format!(
                    "Schema violation: unrecognized element '{}'",
                    c.name
                )));
            }
            let mut allowed: Vec<&str> = disable::NAMES.to_vec();
            allowed.extend_from_slice(&enable::NAMES);
            c.check_attrs(&allowed)?;
            let map = [("disable", false), ("enable", true)];
            for (bit, name) in disable::NAMES.iter().enumerate() {
                if let Some(on) = c.keyword(name, &map)? {
                    if on {
                        o.disableflags &= !(1 << bit);
                    } else {
                        o.disableflags |= 1 << bit;
                    }
                }
            }
            for (bit, name) in enable::NAMES.iter().enumerate() {
                if let Some(on) = c.keyword(name, &map)? {
                    if on {
                        o.enableflags |= 1 << bit;
                    } else {
                        o.enableflags &= !(1 << bit);
                    }
                }
            }
            if o.enabled(enable::IPC) {
                return Err(unsupported(c, "flag ipc"));
            }
        }
        Ok(())
    }

    // ---------------------------------------------------------------- defaults

    fn default_class(&mut self, e: &Element, parent: usize, top: bool) -> Result<()> {
        e.check_attrs(&["class"])?;
        let idx = if top && e.attr("class").is_none_or(|c| c == "main") {
            0
        } else {
            let name = e
                .attr("class")
                .ok_or_else(|| e.error("empty class name"))?
                .to_string();
            if self.classes.iter().any(|c| c.name == name) {
                return Err(e.attr_error("class", "repeated default class name"));
            }
            let mut c = self.classes[parent].clone();
            c.name = name;
            self.classes.push(c);
            self.classes.len() - 1
        };
        for c in &e.children {
            match c.name.as_str() {
                "default" => self.default_class(c, idx, false)?,
                "joint" => {
                    let mut j = self.classes[idx].joint.clone();
                    read_joint(c, &mut j, true)?;
                    self.classes[idx].joint = j;
                }
                "geom" => {
                    let mut g = self.classes[idx].geom.clone();
                    read_geom(c, &mut g, true)?;
                    self.classes[idx].geom = g;
                }
                "site" => {
                    let mut s = self.classes[idx].site.clone();
                    read_site(c, &mut s, true)?;
                    self.classes[idx].site = s;
                }
                "equality" => {
                    c.check_attrs(&["active", "solref", "solimp"])?;
                    let q = &mut self.classes[idx].equality;
                    c.read_bool("active", &mut q.active)?;
                    c.read_f64s("solref", 1, &mut q.solref)?;
                    c.read_f64s("solimp", 1, &mut q.solimp)?;
                }
                "mesh" => {
                    c.read_f64s("scale", 3, &mut self.classes[idx].mesh_scale)?;
                    if let Some(i) = mesh_inertia(c)? {
                        self.classes[idx].mesh_inertia = i;
                    }
                }
                // drawing-only or not-yet-used classes are accepted; using the objects
                // themselves is what reports "not supported"
                "tendon" => {
                    let mut t = self.classes[idx].tendon.clone();
                    super::actuation::read_tendon(c, &mut t, true)?;
                    self.classes[idx].tendon = t;
                }
                "general" | "motor" | "position" | "velocity" | "intvelocity" | "damper"
                | "cylinder" => {
                    let mut a = self.classes[idx].actuator.clone();
                    super::actuation::read_actuator(c, &mut a, true)?;
                    self.classes[idx].actuator = a;
                }
                "pair" => {
                    let mut p = self.classes[idx].pair.clone();
                    read_pair(c, &mut p, true)?;
                    self.classes[idx].pair = p;
                }
                "material" | "camera" | "light" | "orientation" | "pid" | "muscle" | "adhesion"
                | "dcmotor" => {}
                other => {
                    return Err(c.error(format!("Schema violation: unrecognized element '{other}'")))
                }
            }
        }
        Ok(())
    }

    fn class_of(&self, e: &Element, inherited: usize) -> Result<usize> {
        match e.attr("class") {
            None => Ok(inherited),
            Some(name) => self
                .classes
                .iter()
                .position(|c| c.name == name)
                .ok_or_else(|| {
                    e.attr_error("class", format!("unknown default class name '{name}'"))
                }),
        }
    }

    // ---------------------------------------------------------------- assets

    fn asset(&mut self, e: &Element) -> Result<()> {
        for c in &e.children {
            match c.name.as_str() {
                "mesh" => self.mesh(c)?,
                "material" => {
                    c.check_attrs(&[
                        "name",
                        "class",
                        "texture",
                        "texrepeat",
                        "texuniform",
                        "emission",
                        "specular",
                        "shininess",
                        "reflectance",
                        "metallic",
                        "roughness",
                        "rgba",
                    ])?;
                    let mut rgba = [1.0f32; 4];
                    c.f32s("rgba", &mut rgba)?;
                    self.claim_name(c, "material", &c.string("name").unwrap_or_default())?;
                    self.spec.materials.push(MaterialSpec {
                        name: c.string("name").unwrap_or_default(),
                        rgba,
                        texture: c.string("texture").unwrap_or_default(),
                    });
                }
                "texture" => {} // drawing only; the lab draws its own floor
                "hfield" | "skin" | "model" => {
                    return Err(unsupported(c, &format!("<{}> asset", c.name)))
                }
                other => {
                    return Err(c.error(format!("Schema violation: unrecognized element '{other}'")))
                }
            }
        }
        Ok(())
    }

    fn mesh(&mut self, e: &Element) -> Result<()> {
        e.check_attrs(&[
            "name",
            "class",
            "content_type",
            "file",
            "vertex",
            "normal",
            "texcoord",
            "face",
            "refpos",
            "refquat",
            "scale",
            "smoothnormal",
            "maxhullvert",
            "inertia",
            "builtin",
            "params",
            "material",
        ])?;
        e.reject_unsupported(&["builtin", "params"])?;
        let class = self.class_of(e, 0)?;
        let mut m = MeshSpec {
            name: e.string("name").unwrap_or_default(),
            line: e.line,
            ..Default::default()
        };
        m.scale = self.classes[class].mesh_scale;
        e.read_f64s("scale", 3, &mut m.scale)?;
        m.inertia = mesh_inertia(e)?.unwrap_or(self.classes[class].mesh_inertia);
        e.read_f64s("refpos", 3, &mut m.refpos)?;
        let mut q = [1.0, 0.0, 0.0, 0.0];
        if e.read_f64s("refquat", 4, &mut q)? {
            m.refquat = Some(q);
        }
        m.maxhullvert = -1;
        e.read_int("maxhullvert", &mut m.maxhullvert)?;
        if m.maxhullvert != -1 && m.maxhullvert < 4 {
            return Err(e.error("maxhullvert must be larger than 3"));
        }
        for c in &e.children {
            if c.name != "plugin" {
                return Err(c.error(format!(
                    "Schema violation: unrecognized element '{}'",
                    c.name
                )));
            }
            m.plugin = Some(super::composite::element_plugin(c, &mut self.spec)?.0);
        }
        if let Some(file) = e.attr("file") {
            if m.name.is_empty() {
                m.name = std::path::Path::new(file)
                    .file_stem()
                    .map(|s| s.to_string_lossy().to_string())
                    .unwrap_or_default();
            }
            m.file = file.to_string();
            let path = join_dir(&self.spec.compiler.meshdir, file);
            // MuJoCo opens mesh files when compiling: its message has no XML location
            let bytes = self.src.read(&path).ok_or_else(|| {
                crate::Error::compile(format!("Error opening file '{path}'"))
                    .at_element("mesh")
                    .at_line(e.line)
            })?;
            let lower = file.to_ascii_lowercase();
            let (v, f, t) = if lower.ends_with(".stl") {
                // MuJoCo's STL decoder reports its own reason beside the compiler's message
                crate::compile::mesh::parse_stl(&bytes, &path).map_err(|why| {
                    crate::Error::compile(format!("decoder failed for mesh file '{path}'\n{why}"))
                        .at_element("mesh")
                        .at_line(e.line)
                })?
            } else if lower.ends_with(".obj") {
                crate::compile::mesh::parse_obj(&bytes).map_err(|msg| e.attr_error("file", msg))?
            } else {
                return Err(unsupported(e, "mesh files other than OBJ and STL"));
            };
            m.vert = v;
            m.face = f;
            m.texcoord = t;
        } else {
            m.vert = e.numbers("vertex")?.unwrap_or_default();
            m.face = e.ints("face")?.unwrap_or_default();
        }
        self.spec.meshes.push(m);
        Ok(())
    }

    // ---------------------------------------------------------------- contact, deformable

    fn contact(&mut self, e: &Element) -> Result<()> {
        for c in &e.children {
            match c.name.as_str() {
                "exclude" => {
                    c.check_attrs(&["name", "body1", "body2"])?;
                    self.claim_name(c, "exclude", &c.string("name").unwrap_or_default())?;
                    let b1 = c
                        .string("body1")
                        .ok_or_else(|| c.error("required attribute missing: 'body1'"))?;
                    let b2 = c
                        .string("body2")
                        .ok_or_else(|| c.error("required attribute missing: 'body2'"))?;
                    self.spec.excludes.push(ExcludeSpec {
                        body1: b1,
                        body2: b2,
                        line: c.line,
                    });
                }
                "pair" => {
                    let class = self.class_of(c, 0)?;
                    let mut p = self.classes[class].pair.clone();
                    read_pair(c, &mut p, false)?;
                    if !p.name.is_empty() && self.spec.pairs.iter().any(|o| o.name == p.name) {
                        // MuJoCo's parser reports the name's compiler error inside the XML error
                        let msg = format!("Error: repeated name '{}' in pair", p.name);
                        return Err(c.attr_error("name", msg));
                    }
                    self.spec.pairs.push(p);
                }
                other => {
                    return Err(c.error(format!("Schema violation: unrecognized element '{other}'")))
                }
            }
        }
        Ok(())
    }

    fn deformable(&mut self, e: &Element) -> Result<()> {
        for c in &e.children {
            match c.name.as_str() {
                "flex" => {
                    let f = read_flex(c)?;
                    self.spec.flexes.push(f);
                }
                "skin" => {
                    let s = read_skin(c)?;
                    self.spec.skins.push(s);
                }
                other => {
                    return Err(c.error(format!("Schema violation: unrecognized element '{other}'")))
                }
            }
        }
        Ok(())
    }

    // ---------------------------------------------------------------- equality, keyframe

    fn equality(&mut self, e: &Element) -> Result<()> {
        for c in &e.children {
            let class = self.class_of(c, 0)?;
            let mut q = self.classes[class].equality.clone();
            q.line = c.line;
            let base = ["name", "class", "active", "solref", "solimp"];
            let with = |extra: &[&'static str]| -> Vec<&'static str> {
                let mut v: Vec<&str> = base.to_vec();
                v.extend_from_slice(extra);
                v
            };
            match c.name.as_str() {
                "connect" => {
                    c.check_attrs(&with(&["body1", "body2", "anchor", "site1", "site2"]))?;
                    q.eqtype = EqType::Connect;
                    eq_bodies_or_sites(c, &mut q);
                    if q.sites {
                        // MuJoCo 3.15.0 compiles a site connect's eq_data to zeros
                        q.data = [0.0; 11];
                    } else {
                        // the schema made body1 come with an anchor; MuJoCo 3.15.0 fails on an
                        // empty one ("Caught an unknown exception!"), refused here in words
                        let a = c.exact_f64s::<3>("anchor")?.ok_or_else(|| {
                            c.attr_error("anchor", "attribute 'anchor' does not have enough data")
                        })?;
                        q.data[..3].copy_from_slice(&a);
                    }
                }
                "weld" => {
                    c.check_attrs(&with(&[
                        "body1",
                        "body2",
                        "relpose",
                        "anchor",
                        "site1",
                        "site2",
                        "torquescale",
                    ]))?;
                    q.eqtype = EqType::Weld;
                    eq_bodies_or_sites(c, &mut q);
                    match c.exact_f64s::<3>("anchor")? {
                        Some(a) => q.data[..3].copy_from_slice(&a),
                        // a body weld's anchor defaults to the origin; sites keep the defaults
                        None if !q.sites => q.data[..3].fill(0.0),
                        None => {}
                    }
                    if let Some(r) = c.exact_f64s::<7>("relpose")? {
                        q.data[3..10].copy_from_slice(&r);
                    }
                    c.read_f64("torquescale", &mut q.data[10])?;
                }
                "joint" => {
                    c.check_attrs(&with(&["joint1", "joint2", "polycoef"]))?;
                    q.eqtype = EqType::Joint;
                    q.name1 = c
                        .string("joint1")
                        .ok_or_else(|| c.error("required attribute missing: 'joint1'"))?;
                    q.name2 = c.string("joint2").unwrap_or_default();
                    let mut poly = [0.0, 1.0, 0.0, 0.0, 0.0];
                    c.read_f64s("polycoef", 1, &mut poly)?;
                    q.data[..5].copy_from_slice(&poly);
                }
                "flex" | "flexvert" | "flexstrain" => {
                    if c.name == "flexstrain" {
                        c.check_attrs(&with(&["flex", "cell"]))?;
                    } else {
                        c.check_attrs(&with(&["flex"]))?;
                    }
                    q.eqtype = match c.name.as_str() {
                        "flex" => EqType::Flex,
                        "flexvert" => EqType::FlexVert,
                        _ => EqType::FlexStrain,
                    };
                    q.name1 = c
                        .string("flex")
                        .ok_or_else(|| c.error("required attribute missing: 'flex'"))?;
                    if let Some(cell) = c.numbers("cell")? {
                        for (k, v) in cell.iter().take(3).enumerate() {
                            q.data[k] = *v;
                        }
                    }
                }
                "tendon" => {
                    c.check_attrs(&with(&["tendon1", "tendon2", "polycoef"]))?;
                    q.eqtype = EqType::Tendon;
                    q.name1 = c
                        .string("tendon1")
                        .ok_or_else(|| c.error("required attribute missing: 'tendon1'"))?;
                    q.name2 = c.string("tendon2").unwrap_or_default();
                    let mut poly = [0.0, 1.0, 0.0, 0.0, 0.0];
                    c.read_f64s("polycoef", 1, &mut poly)?;
                    q.data[..5].copy_from_slice(&poly);
                }
                "distance" => {
                    return Err(c.error(
                        "Schema violation: unrecognized element 'distance' (distance equality \
                         constraints were removed in MuJoCo 2.2.2)",
                    ))
                }
                other => {
                    return Err(c.error(format!("Schema violation: unrecognized element '{other}'")))
                }
            }
            q.name = c.string("name").unwrap_or_default();
            c.read_bool("active", &mut q.active)?;
            c.read_f64s("solref", 1, &mut q.solref)?;
            c.read_f64s("solimp", 1, &mut q.solimp)?;
            self.claim_name(c, "equality", &q.name)?;
            self.spec.equalities.push(q);
        }
        Ok(())
    }

    fn keyframe(&mut self, e: &Element) -> Result<()> {
        for c in &e.children {
            if c.name != "key" {
                return Err(c.error(format!(
                    "Schema violation: unrecognized element '{}'",
                    c.name
                )));
            }
            c.check_attrs(&[
                "name", "time", "qpos", "qvel", "act", "mpos", "mquat", "ctrl",
            ])?;
            let mut k = KeySpec {
                name: c.string("name").unwrap_or_default(),
                line: c.line,
                ..Default::default()
            };
            c.read_f64("time", &mut k.time)?;
            k.qpos = c.numbers("qpos")?;
            k.qvel = c.numbers("qvel")?;
            k.mpos = c.numbers("mpos")?;
            k.mquat = c.numbers("mquat")?;
            k.ctrl = c.numbers("ctrl")?;
            k.act = c.numbers("act")?;
            self.claim_name(c, "key", &k.name)?;
            self.spec.keys.push(k);
        }
        Ok(())
    }

    // ---------------------------------------------------------------- bodies

    fn body_children(&mut self, e: &Element, body: usize, class: usize) -> Result<()> {
        for c in &e.children {
            match c.name.as_str() {
                "body" => self.body(c, body, class)?,
                "inertial" => {
                    if body == 0 {
                        return Err(c.error("World body cannot have inertia"));
                    }
                    let n = e.children.iter().filter(|x| x.name == "inertial").count();
                    if n > 1 {
                        let msg =
                            format!("Schema violation: unique element 'inertial' found {n} times");
                        return Err(e.error(msg));
                    }
                    read_inertial(c, &mut self.spec.bodies[body])?;
                }
                "joint" => {
                    if body == 0 {
                        return Err(c.error("World body cannot have joints"));
                    }
                    let cl = self.class_of(c, class)?;
                    let mut j = self.classes[cl].joint.clone();
                    read_joint(c, &mut j, false)?;
                    j.line = c.line;
                    j.frame = self.frame;
                    self.suffix_name(&mut j.name);
                    self.claim_name(c, "joint", &j.name)?;
                    self.spec.add_joint(body, j);
                }
                "freejoint" => {
                    if body == 0 {
                        return Err(c.error("World body cannot have joints"));
                    }
                    c.check_attrs(&["name", "group", "align"])?;
                    let mut j = JointSpec {
                        jtype: JointType::Free,
                        line: c.line,
                        ..Default::default()
                    };
                    j.name = c.string("name").unwrap_or_default();
                    self.suffix_name(&mut j.name);
                    c.read_int("group", &mut j.group)?;
                    if let Some(v) =
                        c.keyword("align", &[("false", 0), ("true", 1), ("auto", 2)])?
                    {
                        j.align = v;
                    }
                    self.claim_name(c, "joint", &j.name)?;
                    self.spec.add_joint(body, j);
                }
                "geom" => {
                    let cl = self.class_of(c, class)?;
                    let mut g = self.classes[cl].geom.clone();
                    read_geom(c, &mut g, false)?;
                    g.line = c.line;
                    g.frame = self.frame;
                    for p in &c.children {
                        if p.name != "plugin" {
                            return Err(p.error(format!(
                                "Schema violation: unrecognized element '{}'",
                                p.name
                            )));
                        }
                        g.plugin = Some(super::composite::element_plugin(p, &mut self.spec)?.0);
                    }
                    self.suffix_name(&mut g.name);
                    self.claim_name(c, "geom", &g.name)?;
                    self.spec.add_geom(body, g);
                }
                "site" => {
                    let cl = self.class_of(c, class)?;
                    let mut s = self.classes[cl].site.clone();
                    read_site(c, &mut s, false)?;
                    s.line = c.line;
                    s.frame = self.frame;
                    self.suffix_name(&mut s.name);
                    self.claim_name(c, "site", &s.name)?;
                    self.spec.add_site(body, s);
                }
                "camera" => {
                    // MuJoCo 3.15.0's schema (mj_printSchema); flexlab reads the pose and fovy
                    c.check_attrs(&[
                        "axisangle",
                        "class",
                        "euler",
                        "focal",
                        "focalpixel",
                        "fovy",
                        "ipd",
                        "mode",
                        "name",
                        "output",
                        "pos",
                        "principal",
                        "principalpixel",
                        "projection",
                        "quat",
                        "resolution",
                        "sensorsize",
                        "target",
                        "user",
                        "xyaxes",
                        "zaxis",
                    ])?;
                    let mut v = ViewSpec {
                        body,
                        fovy: 45.0,
                        ..Default::default()
                    };
                    v.name = c.string("name").unwrap_or_default();
                    v.frame = self.frame;
                    c.read_f64s("pos", 3, &mut v.pos)?;
                    v.orient = read_orientation(c)?.unwrap_or_default();
                    c.read_f64("fovy", &mut v.fovy)?;
                    self.suffix_name(&mut v.name);
                    self.claim_name(c, "camera", &v.name)?;
                    self.spec.cameras.push(v);
                }
                "light" => {
                    // MuJoCo 3.15.0's schema (mj_printSchema); flexlab reads the pose
                    c.check_attrs(&[
                        "active",
                        "ambient",
                        "attenuation",
                        "bulbradius",
                        "castshadow",
                        "class",
                        "cutoff",
                        "diffuse",
                        "dir",
                        "directional",
                        "exponent",
                        "intensity",
                        "mode",
                        "name",
                        "pos",
                        "range",
                        "softness",
                        "specular",
                        "target",
                        "texture",
                        "type",
                    ])?;
                    let mut v = ViewSpec {
                        body,
                        dir: [0.0, 0.0, -1.0],
                        ..Default::default()
                    };
                    v.name = c.string("name").unwrap_or_default();
                    v.frame = self.frame;
                    c.read_f64s("pos", 3, &mut v.pos)?;
                    c.read_f64s("dir", 3, &mut v.dir)?;
                    self.suffix_name(&mut v.name);
                    self.claim_name(c, "light", &v.name)?;
                    self.spec.lights.push(v);
                }
                "flexcomp" => self.flexcomp(c, body)?,
                "replicate" => self.replicate(c, body, class)?,
                "composite" => {
                    if !self.replicate_suffix.is_empty() {
                        return Err(unsupported(c, "<composite> inside <replicate>"));
                    }
                    let comp = super::composite::read_composite(c, &mut self.spec)?;
                    let first = self.spec.bodies.len();
                    crate::compile::composite::make(&mut self.spec, body, &comp)
                        .map_err(|msg| composite_error(c, msg))?;
                    // MuJoCo attaches the chain's first body to the enclosing frame
                    if let Some(b) = self.spec.bodies.get_mut(first) {
                        b.frame = self.frame;
                    }
                }
                "frame" => self.frame(c, body, class)?,
                "attach" | "plugin" => return Err(unsupported(c, &format!("<{}>", c.name))),
                other => {
                    return Err(c.error(format!("Schema violation: unrecognized element '{other}'")))
                }
            }
        }
        Ok(())
    }

    /// `<replicate count offset euler sep childclass>`: `count` copies of its children, copy i
    /// attached through a frame turned by i·euler at the running sum of turned offsets (MuJoCo's
    /// order: copies of an outer replicate are outermost in the body list; the innermost index
    /// comes first in a name, after `sep`).
    fn replicate(&mut self, e: &Element, body: usize, class: usize) -> Result<()> {
        e.check_attrs(&["count", "offset", "euler", "sep", "childclass"])?;
        let mut count = 0;
        e.read_int("count", &mut count)?;
        if count < 1 {
            return Err(e.attr_error("count", "replicate count must be positive"));
        }
        if count > 10_000 {
            return Err(unsupported(e, "replicate count above 10000"));
        }
        let mut step = crate::spec::ReplicateCopy::default();
        e.read_f64s("offset", 3, &mut step.offset)?;
        e.read_f64s("euler", 3, &mut step.euler)?;
        let class = self.child_class(e, class)?;
        for c in &e.children {
            if c.name == "joint" || !FRAME_CHILDREN.contains(&c.name.as_str()) {
                return Err(unsupported(c, &format!("<{}> inside <replicate>", c.name)));
            }
        }
        let sep = e.string("sep").unwrap_or_default();
        let outer = self.replicate_suffix.clone();
        let mut result = Ok(());
        for i in 0..count as usize {
            let suffix = super::replicate_refs::copy_suffix(&sep, count as usize, i);
            self.replicate_suffix = format!("{suffix}{outer}");
            let copy = crate::spec::ReplicateCopy { index: i, ..step };
            result = self.in_frame(e, body, class, String::new(), FramePlacement::Copy(copy));
            if result.is_err() {
                break;
            }
        }
        self.replicate_suffix = outer;
        result
    }

    /// Reads `e`'s children inside a new frame `placement` (named `name`) in the current one.
    fn in_frame(
        &mut self,
        e: &Element,
        body: usize,
        class: usize,
        name: String,
        placement: FramePlacement,
    ) -> Result<()> {
        let outer = self.frame.replace(self.spec.frames.len());
        self.spec.frames.push(crate::spec::FrameSpec {
            name,
            placement,
            parent: outer,
            line: e.line,
        });
        let result = self.body_children(e, body, class);
        self.frame = outer;
        result
    }

    /// The default class of `e`'s children: its `childclass` (of a body, frame or replicate),
    /// else the inherited `class`.
    fn child_class(&self, e: &Element, class: usize) -> Result<usize> {
        match e.attr("childclass") {
            Some(cc) => self
                .classes
                .iter()
                .position(|c| c.name == cc)
                .ok_or_else(|| e.attr_error("childclass", "unknown default childclass")),
            None => Ok(class),
        }
    }

    /// Names inside a replicated subtree carry the copy's suffix.
    fn suffix_name(&self, name: &mut String) {
        if !name.is_empty() {
            name.push_str(&self.replicate_suffix);
        }
    }

    fn body(&mut self, e: &Element, parent: usize, class: usize) -> Result<()> {
        e.check_attrs(&placed_attrs(&[
            "childclass",
            "mocap",
            "gravcomp",
            "sleep",
            "simple",
            "user",
        ]))?;
        let mut name = e.string("name").unwrap_or_default();
        if !name.is_empty() {
            name.push_str(&self.replicate_suffix);
        }
        if !name.is_empty() && self.spec.find_body(&name).is_some() {
            return Err(e.attr_error("name", format!("Error: repeated name '{name}' in body")));
        }
        let id = self.spec.add_body(parent, &name);
        let childclass = self.child_class(e, class)?;
        {
            let b = &mut self.spec.bodies[id];
            b.childclass = childclass;
            b.line = e.line;
            e.read_f64s("pos", 3, &mut b.pos)?;
            if let Some(o) = read_orientation(e)? {
                b.orient = o;
            }
            e.read_bool("mocap", &mut b.mocap)?;
            e.read_f64("gravcomp", &mut b.gravcomp)?;
            if let Some(s) = e.keyword("simple", &[("false", false), ("auto", true)])? {
                b.simple = s;
            }
            b.frame = self.frame;
        }
        // a body's own children are in its frame, not in an enclosing <frame>
        let frame = self.frame.take();
        let result = self.body_children(e, id, childclass);
        self.frame = frame;
        result
    }

    /// `<frame>`: its bodies, geoms, sites, joints, cameras, lights, frames and replicates are
    /// given in its pose, and take its `childclass` as their default class.
    fn frame(&mut self, e: &Element, body: usize, class: usize) -> Result<()> {
        e.check_attrs(&placed_attrs(&["childclass"]))?;
        let class = self.child_class(e, class)?;
        let mut name = e.string("name").unwrap_or_default();
        self.suffix_name(&mut name);
        if !name.is_empty() && self.spec.frames.iter().any(|g| g.name == name) {
            // MuJoCo's parser reports its frame's compiler error inside the XML error
            let msg = format!("Error: repeated name '{name}' in frame");
            return Err(e.attr_error("name", msg));
        }
        let mut pos = [0.0; 3];
        e.read_f64s("pos", 3, &mut pos)?;
        let orient = read_orientation(e)?.unwrap_or_default();
        for c in &e.children {
            if !FRAME_CHILDREN.contains(&c.name.as_str()) {
                return Err(unsupported(c, &format!("<{}> inside <frame>", c.name)));
            }
        }
        self.in_frame(e, body, class, name, FramePlacement::Pose { pos, orient })
    }

    fn flexcomp(&mut self, e: &Element, body: usize) -> Result<()> {
        e.check_attrs(&placed_attrs(&[
            "type",
            "group",
            "dim",
            "dof",
            "count",
            "cellcount",
            "spacing",
            "radius",
            "rigid",
            "mass",
            "inertiabox",
            "scale",
            "file",
            "point",
            "element",
            "texcoord",
            "material",
            "rgba",
            "flatskin",
            "origin",
        ]))?;
        let mut fc = FlexcompSpec {
            name: e
                .string("name")
                .ok_or_else(|| e.error("required attribute missing: 'name'"))?,
            line: e.line,
            ..Default::default()
        };
        if let Some(t) = e.keyword(
            "type",
            &[
                ("grid", FlexcompType::Grid),
                ("box", FlexcompType::Box),
                ("cylinder", FlexcompType::Cylinder),
                ("ellipsoid", FlexcompType::Ellipsoid),
                ("square", FlexcompType::Square),
                ("disc", FlexcompType::Disc),
                ("circle", FlexcompType::Circle),
                ("mesh", FlexcompType::Mesh),
                ("gmsh", FlexcompType::Gmsh),
                ("direct", FlexcompType::Direct),
            ],
        )? {
            fc.ftype = t;
        }
        e.int3("count", &mut fc.count)?;
        e.int3("cellcount", &mut fc.cellcount)?;
        e.read_f64s("spacing", 3, &mut fc.spacing)?;
        e.read_f64s("scale", 3, &mut fc.scale)?;
        e.read_f64("mass", &mut fc.mass)?;
        e.read_f64("inertiabox", &mut fc.inertiabox)?;
        let f = &mut fc.flex;
        f.line = e.line;
        if let Some(m) = e.attr("material") {
            f.material = m.to_string();
        }
        e.f32s("rgba", &mut f.rgba)?;
        e.read_bool("flatskin", &mut f.flatskin)?;
        e.read_int("dim", &mut f.dim)?;
        e.read_f64("radius", &mut f.radius)?;
        e.read_int("group", &mut f.group)?;
        match e.exact_f64s::<3>("origin")? {
            Some(o) => fc.origin = Some(o),
            None => {
                if fc.ftype == FlexcompType::Mesh && f.dim == 3 {
                    return Err(e.error("origin must be specified for mesh flexcomps if dim=3"));
                }
            }
        }
        e.read_f64s("pos", 3, &mut fc.pos)?;
        if let Some(o) = read_orientation(e)? {
            fc.orient = o;
        }
        e.read_bool("rigid", &mut fc.rigid)?;
        if let Some(p) = e.numbers("point")? {
            fc.point = p;
        }
        if let Some(el) = e.ints("element")? {
            fc.element = el;
        }
        if let Some(t) = e.numbers("texcoord")? {
            fc.texcoord = t.iter().map(|x| *x as f32).collect();
        }
        if let Some(d) = e.keyword(
            "dof",
            &[
                ("full", DofType::Full),
                ("radial", DofType::Radial),
                ("trilinear", DofType::Trilinear),
                ("quadratic", DofType::Quadratic),
                ("2d", DofType::TwoD),
            ],
        )? {
            fc.dof = d;
        }
        // MuJoCo reads `file` for mesh and gmsh flexcomps only; the other types ignore it
        let reads_file = matches!(fc.ftype, FlexcompType::Mesh | FlexcompType::Gmsh);
        if let Some(file) = e.attr("file").filter(|_| reads_file) {
            let path = join_dir(&self.spec.compiler.meshdir, file);
            let lower = file.to_ascii_lowercase();
            if fc.ftype != FlexcompType::Gmsh && lower.ends_with(".msh") {
                return Err(e.attr_error("file", "legacy MSH files are not supported in flexcomp"));
            }
            let bytes = self.src.read(&path).ok_or_else(|| {
                e.attr_error("file", format!("Error: Error opening file '{path}'"))
            })?;
            if fc.ftype == FlexcompType::Gmsh {
                // parsed where the flexcomp is made, after its own checks (MuJoCo's order)
                fc.gmsh = Some(bytes);
            } else {
                let (v, fcs, t) = if lower.ends_with(".stl") {
                    crate::compile::mesh::load_stl(&bytes, &path)
                } else if lower.ends_with(".obj") {
                    crate::compile::mesh::load_obj(&bytes)
                } else {
                    return Err(unsupported(e, "flexcomp mesh files other than OBJ and STL"));
                }
                .map_err(|msg| e.attr_error("file", msg))?;
                fc.mesh = Some((v, fcs, t));
            }
        }
        // children
        for c in &e.children {
            // MuJoCo's schema counts every copy of a unique child before it complains
            let copies = e.children.iter().filter(|o| o.name == c.name).count();
            if c.name != "pin" && copies > 1 {
                let msg = format!(
                    "Schema violation: unique element '{}' found {copies} times",
                    c.name
                );
                return Err(c.error(msg));
            }
            match c.name.as_str() {
                "edge" => {
                    c.check_attrs(&["equality", "solref", "solimp", "stiffness", "damping"])?;
                    if let Some(q) = c.keyword(
                        "equality",
                        &[("false", 0), ("true", 1), ("vert", 2), ("strain", 3)],
                    )? {
                        fc.equality = q;
                    }
                    c.read_f64s("solref", 1, &mut fc.eq_solref)?;
                    c.read_f64s("solimp", 1, &mut fc.eq_solimp)?;
                    c.read_f64("stiffness", &mut fc.flex.edgestiffness)?;
                    c.read_f64("damping", &mut fc.flex.edgedamping)?;
                }
                "elasticity" => read_elasticity(c, &mut fc.flex)?,
                "contact" => read_flex_contact(c, &mut fc.flex)?,
                "pin" => {
                    c.check_attrs(&["id", "range", "grid", "gridrange"])?;
                    if let Some(v) = c.ints("id")? {
                        fc.pinid.extend(v);
                    }
                    if let Some(v) = c.ints("range")? {
                        fc.pinrange.extend(v);
                    }
                    if let Some(v) = c.ints("grid")? {
                        fc.pingrid.extend(v);
                    }
                    if let Some(v) = c.ints("gridrange")? {
                        fc.pingridrange.extend(v);
                    }
                }
                "plugin" => return Err(unsupported(c, "flexcomp plugins")),
                other => {
                    return Err(c.error(format!("Schema violation: unrecognized element '{other}'")))
                }
            }
        }
        // MuJoCo's compiler errors (not schema errors): pure bending may sit beside edge
        // constraints, stretching young and edge springs may not
        let compile_error = |msg: &str| {
            crate::Error::compile(msg)
                .at_element("flexcomp")
                .at_object(e.attr("name").unwrap_or(""))
                .at_line(e.line)
        };
        if fc.flex.elastic2d != 1 && fc.equality != 0 && fc.flex.young > 0.0 {
            return Err(compile_error(
                "flex constraints and elasticity (young) cannot both be present",
            ));
        }
        // (on a 2D or 3D flex the compiler's "only available for dim=1" comes first)
        if fc.equality != 0 && fc.flex.edgestiffness > 0.0 && fc.flex.dim == 1 {
            return Err(compile_error(
                "flex constraints and edge stiffness cannot both be present",
            ));
        }
        if !self.replicate_suffix.is_empty() {
            // MuJoCo 3.15.0 reads a replicate's children into an unnamed body
            return Err(e.error("Parent body must have name"));
        }
        let eq_default = self.classes[0].equality.clone();
        let compiler = self.spec.compiler.clone();
        flexcomp::make(&mut self.spec, body, fc, &eq_default, &compiler)
            .map_err(|err| e.error(err.message))?;
        if let Some(flex) = self.spec.flexes.last_mut() {
            flex.ignored_frame = self.frame;
        }
        Ok(())
    }
}

fn join_dir(dir: &str, file: &str) -> String {
    if dir.is_empty() || std::path::Path::new(file).is_absolute() {
        file.to_string()
    } else {
        format!("{}/{}", dir.trim_end_matches('/'), file)
    }
}

fn read_orientation(e: &Element) -> Result<Option<Orientation>> {
    let mut found: Option<Orientation> = None;
    let mut count = 0;
    if let Some(q) = e.exact_f64s::<4>("quat")? {
        if q == [0.0; 4] {
            return Err(e.attr_error("quat", "zero quaternion is not allowed"));
        }
        found = Some(Orientation::Quat(q));
        count += 1;
    }
    if let Some(a) = e.exact_f64s::<4>("axisangle")? {
        found = Some(Orientation::AxisAngle(a));
        count += 1;
    }
    if let Some(x) = e.exact_f64s::<6>("xyaxes")? {
        found = Some(Orientation::XYAxes(x));
        count += 1;
    }
    if let Some(z) = e.exact_f64s::<3>("zaxis")? {
        found = Some(Orientation::ZAxis(z));
        count += 1;
    }
    if let Some(eu) = e.exact_f64s::<3>("euler")? {
        found = Some(Orientation::Euler(eu));
        count += 1;
    }
    if count > 1 {
        return Err(e.error("multiple orientation specifiers are not allowed"));
    }
    Ok(found)
}

fn read_inertial(e: &Element, b: &mut BodySpec) -> Result<()> {
    e.check_attrs(&[
        "pos",
        "quat",
        "mass",
        "diaginertia",
        "axisangle",
        "xyaxes",
        "zaxis",
        "euler",
        "fullinertia",
    ])?;
    b.explicit_inertial = true;
    b.ipos = e
        .exact_f64s::<3>("pos")?
        .ok_or_else(|| e.error("required attribute missing: 'pos'"))?;
    b.mass = e
        .f64("mass")?
        .ok_or_else(|| e.error("required attribute missing: 'mass'"))?;
    if let Some(o) = read_orientation(e)? {
        b.iorient = o;
    }
    if let Some(d) = e.exact_f64s::<3>("diaginertia")? {
        b.inertia = d;
    }
    b.fullinertia = e.exact_f64s::<6>("fullinertia")?;
    if b.fullinertia.is_some() && e.numbers("diaginertia")?.is_some() {
        // a compiler error in MuJoCo (the body's), not a schema one
        let msg = "fullinertia and diagonal inertia cannot both be specified";
        return Err(crate::Error::compile(msg)
            .at_element("body")
            .at_line(e.line));
    }
    // neither: a zero inertia, which the compiler refuses on a moving body only
    Ok(())
}

/// The two objects of a connect or weld: the schema check (`check_attrs`) let through either
/// both sites or body1 (body2 optional), never both kinds.
fn eq_bodies_or_sites(c: &Element, q: &mut EqualitySpec) {
    if let Some(s1) = c.string("site1") {
        q.sites = true;
        q.name1 = s1;
        q.name2 = c.string("site2").unwrap_or_default();
    } else {
        q.name1 = c.string("body1").unwrap_or_default();
        q.name2 = c.string("body2").unwrap_or_default();
    }
}

fn read_joint(e: &Element, j: &mut JointSpec, in_default: bool) -> Result<()> {
    let mut allowed = vec![
        "class",
        "type",
        "group",
        "pos",
        "axis",
        "springdamper",
        "limited",
        "actuatorfrclimited",
        "solreflimit",
        "solimplimit",
        "solreffriction",
        "solimpfriction",
        "stiffness",
        "range",
        "actuatorfrcrange",
        "actuatorgravcomp",
        "margin",
        "ref",
        "springref",
        "armature",
        "damping",
        "frictionloss",
        "user",
    ];
    if !in_default {
        allowed.push("name");
    }
    e.check_attrs(&allowed)?;
    if let Some(n) = e.string("name") {
        j.name = n;
    }
    if let Some(t) = e.keyword(
        "type",
        &[
            ("free", JointType::Free),
            ("ball", JointType::Ball),
            ("slide", JointType::Slide),
            ("hinge", JointType::Hinge),
        ],
    )? {
        j.jtype = t;
    }
    e.read_int("group", &mut j.group)?;
    e.read_f64s("pos", 3, &mut j.pos)?;
    e.read_f64s("axis", 3, &mut j.axis)?;
    if let Some(l) = e.keyword(
        "limited",
        &[
            ("false", TriState::False),
            ("true", TriState::True),
            ("auto", TriState::Auto),
        ],
    )? {
        j.limited = l;
    }
    if let Some(l) = e.keyword(
        "actuatorfrclimited",
        &[
            ("false", TriState::False),
            ("true", TriState::True),
            ("auto", TriState::Auto),
        ],
    )? {
        j.actfrclimited = l;
    }
    e.read_f64s("actuatorfrcrange", 2, &mut j.actfrcrange)?;
    if let Some(b) = e.bool("actuatorgravcomp")? {
        j.actgravcomp = b;
    }
    e.read_f64s("solreflimit", 1, &mut j.solref_limit)?;
    e.read_f64s("solimplimit", 1, &mut j.solimp_limit)?;
    e.read_f64s("solreffriction", 1, &mut j.solref_friction)?;
    e.read_f64s("solimpfriction", 1, &mut j.solimp_friction)?;
    if let Some(x) = e.linear_coef("stiffness", "polynomial joint stiffness")? {
        j.stiffness = x;
    }
    if let Some(x) = e.linear_coef("damping", "polynomial joint damping")? {
        j.damping = x;
    }
    e.read_f64s("range", 2, &mut j.range)?;
    e.read_f64("margin", &mut j.margin)?;
    e.read_f64("ref", &mut j.reference)?;
    e.read_f64("springref", &mut j.springref)?;
    e.read_f64s("springdamper", 2, &mut j.springdamper)?;
    e.read_f64("armature", &mut j.armature)?;
    // frictionloss > 0 (here or from a default class) is rejected by the compiler, after the
    // flex checks MuJoCo runs first
    e.read_f64("frictionloss", &mut j.frictionloss)?;
    Ok(())
}

pub(super) fn read_geom(e: &Element, g: &mut GeomSpec, in_default: bool) -> Result<()> {
    let mut allowed = vec![
        "class",
        "type",
        "contype",
        "conaffinity",
        "condim",
        "group",
        "priority",
        "size",
        "material",
        "friction",
        "mass",
        "density",
        "shellinertia",
        "solmix",
        "solref",
        "solimp",
        "margin",
        "gap",
        "surfacevel",
        "adhesion",
        "fromto",
        "pos",
        "quat",
        "axisangle",
        "xyaxes",
        "zaxis",
        "euler",
        "hfield",
        "mesh",
        "fitscale",
        "rgba",
        "fluidshape",
        "fluidcoef",
        "user",
    ];
    if !in_default {
        allowed.push("name");
    }
    e.check_attrs(&allowed)?;
    e.reject_unsupported(&["hfield", "surfacevel"])?;
    if e.keyword("fluidshape", &[("none", 0), ("ellipsoid", 1)])?
        .is_some_and(|v| v == 1)
    {
        return Err(unsupported(e, "fluid forces (fluidshape)"));
    }
    if let Some(n) = e.string("name") {
        g.name = n;
    }
    if let Some(t) = e.keyword(
        "type",
        &[
            ("plane", GeomType::Plane),
            ("hfield", GeomType::Hfield),
            ("sphere", GeomType::Sphere),
            ("capsule", GeomType::Capsule),
            ("ellipsoid", GeomType::Ellipsoid),
            ("cylinder", GeomType::Cylinder),
            ("box", GeomType::Box),
            ("mesh", GeomType::Mesh),
            ("sdf", GeomType::Sdf),
        ],
    )? {
        if t == GeomType::Hfield {
            return Err(unsupported(
                e,
                &format!("geom type '{}'", e.attr("type").unwrap_or("")),
            ));
        }
        g.gtype = t;
    }
    e.read_int("contype", &mut g.contype)?;
    e.read_int("conaffinity", &mut g.conaffinity)?;
    e.read_int("condim", &mut g.condim)?;
    e.read_int("group", &mut g.group)?;
    e.read_int("priority", &mut g.priority)?;
    if let Some(v) = e.numbers("size")? {
        if v.len() > 3 {
            return Err(e.attr_error("size", "attribute 'size' has too much data"));
        }
        if v.is_empty() {
            return Err(e.attr_error("size", "attribute 'size' does not have enough data"));
        }
        g.size[..v.len()].copy_from_slice(&v);
        g.size_given = v.len();
    }
    if let Some(m) = e.string("material") {
        g.material = m;
    }
    e.read_f64s("friction", 1, &mut g.friction)?;
    if let Some(m) = e.f64("mass")? {
        g.mass = m;
    }
    e.read_f64("density", &mut g.density)?;
    e.read_bool("shellinertia", &mut g.shellinertia)?;
    e.read_f64("solmix", &mut g.solmix)?;
    e.read_f64s("solref", 1, &mut g.solref)?;
    e.read_f64s("solimp", 1, &mut g.solimp)?;
    e.read_f64("margin", &mut g.margin)?;
    e.read_f64("gap", &mut g.gap)?;
    e.read_f64("adhesion", &mut g.adhesion)?;
    if let Some(ft) = e.exact_f64s::<6>("fromto")? {
        g.fromto = Some(ft);
    }
    e.read_f64s("pos", 3, &mut g.pos)?;
    if let Some(o) = read_orientation(e)? {
        g.orient = o;
    }
    if let Some(m) = e.string("mesh") {
        g.mesh = m;
    }
    e.read_f64("fitscale", &mut g.fitscale)?;
    e.f32s("rgba", &mut g.rgba)?;
    Ok(())
}

/// The `inertia` keyword of a mesh asset or mesh default.
fn mesh_inertia(e: &Element) -> Result<Option<MeshInertia>> {
    e.keyword(
        "inertia",
        &[
            ("convex", MeshInertia::Convex),
            ("exact", MeshInertia::Exact),
            ("legacy", MeshInertia::Legacy),
            ("shell", MeshInertia::Shell),
        ],
    )
}

fn read_site(e: &Element, s: &mut SiteSpec, in_default: bool) -> Result<()> {
    let mut allowed = vec![
        "class",
        "type",
        "group",
        "pos",
        "quat",
        "axisangle",
        "xyaxes",
        "zaxis",
        "euler",
        "material",
        "size",
        "fromto",
        "rgba",
        "user",
    ];
    if !in_default {
        allowed.push("name");
    }
    e.check_attrs(&allowed)?;
    if let Some(n) = e.string("name") {
        s.name = n;
    }
    if let Some(t) = e.keyword(
        "type",
        &[
            ("sphere", GeomType::Sphere),
            ("capsule", GeomType::Capsule),
            ("ellipsoid", GeomType::Ellipsoid),
            ("cylinder", GeomType::Cylinder),
            ("box", GeomType::Box),
        ],
    )? {
        s.gtype = t;
    }
    e.read_int("group", &mut s.group)?;
    e.read_f64s("pos", 3, &mut s.pos)?;
    if let Some(o) = read_orientation(e)? {
        s.orient = o;
    }
    e.read_f64s("size", 1, &mut s.size)?;
    if let Some(ft) = e.exact_f64s::<6>("fromto")? {
        s.fromto = Some(ft);
    }
    e.f32s("rgba", &mut s.rgba)?;
    if let Some(m) = e.string("material") {
        s.material = m;
    }
    Ok(())
}

fn read_elasticity(c: &Element, f: &mut FlexSpec) -> Result<()> {
    c.check_attrs(&["young", "poisson", "damping", "thickness", "elastic2d"])?;
    c.read_f64("young", &mut f.young)?;
    c.read_f64("poisson", &mut f.poisson)?;
    c.read_f64("damping", &mut f.damping)?;
    c.read_f64("thickness", &mut f.thickness)?;
    if let Some(v) = c.keyword(
        "elastic2d",
        &[("none", 0), ("bend", 1), ("stretch", 2), ("both", 3)],
    )? {
        f.elastic2d = v;
    }
    Ok(())
}

fn read_flex_contact(c: &Element, f: &mut FlexSpec) -> Result<()> {
    c.check_attrs(&[
        "contype",
        "conaffinity",
        "condim",
        "priority",
        "friction",
        "solmix",
        "solref",
        "solimp",
        "margin",
        "gap",
        "selfcollide",
        "activelayers",
        "passive",
    ])?;
    c.read_int("contype", &mut f.contype)?;
    c.read_int("conaffinity", &mut f.conaffinity)?;
    c.read_int("condim", &mut f.condim)?;
    c.read_int("priority", &mut f.priority)?;
    c.read_f64s("friction", 1, &mut f.friction)?;
    c.read_f64("solmix", &mut f.solmix)?;
    c.read_f64s("solref", 1, &mut f.solref)?;
    c.read_f64s("solimp", 1, &mut f.solimp)?;
    c.read_f64("margin", &mut f.margin)?;
    c.read_f64("gap", &mut f.gap)?;
    if let Some(v) = c.keyword(
        "selfcollide",
        &[
            ("none", 0),
            ("narrow", 1),
            ("bvh", 2),
            ("sap", 3),
            ("auto", 4),
        ],
    )? {
        f.selfcollide = v;
    }
    c.read_int("activelayers", &mut f.activelayers)?;
    c.read_bool("passive", &mut f.passive)?;
    Ok(())
}

/// The attributes of a `<pair>`, in an element (`in_default`: false) or a class default (where
/// the names do not apply). Partial vectors overwrite their first values, as MuJoCo reads them.
fn read_pair(e: &Element, p: &mut PairSpec, in_default: bool) -> Result<()> {
    const PARAMS: [&str; 9] = [
        "condim",
        "friction",
        "solref",
        "solreffriction",
        "solimp",
        "gap",
        "margin",
        "adhesion",
        "class",
    ];
    let mut allowed = PARAMS.to_vec();
    if in_default {
        allowed.pop();
    } else {
        allowed.extend(["name", "geom1", "geom2"]);
    }
    e.check_attrs(&allowed)?;
    if !in_default {
        p.name = e.string("name").unwrap_or_default();
        p.geom1 = e.string("geom1").unwrap_or_default();
        p.geom2 = e.string("geom2").unwrap_or_default();
        p.line = e.line;
    }
    e.read_int("condim", &mut p.condim)?;
    e.read_f64s("friction", 1, &mut p.friction)?;
    e.read_f64s("solref", 1, &mut p.solref)?;
    e.read_f64s("solreffriction", 1, &mut p.solreffriction)?;
    e.read_f64s("solimp", 1, &mut p.solimp)?;
    e.read_f64("gap", &mut p.gap)?;
    e.read_f64("margin", &mut p.margin)?;
    e.read_f64("adhesion", &mut p.adhesion)?;
    Ok(())
}

fn read_flex(c: &Element) -> Result<FlexSpec> {
    c.check_attrs(&[
        "name",
        "group",
        "dim",
        "radius",
        "material",
        "rgba",
        "flatskin",
        "body",
        "vertex",
        "element",
        "texcoord",
        "elemtexcoord",
        "node",
        "nodecoord",
        "cellcount",
        "dof",
    ])?;
    let mut f = FlexSpec {
        line: c.line,
        ..Default::default()
    };
    f.name = c.string("name").unwrap_or_default();
    c.read_int("group", &mut f.group)?;
    c.read_int("dim", &mut f.dim)?;
    c.read_f64("radius", &mut f.radius)?;
    if let Some(m) = c.string("material") {
        f.material = m;
    }
    c.f32s("rgba", &mut f.rgba)?;
    c.read_bool("flatskin", &mut f.flatskin)?;
    f.vertbody = c
        .attr("body")
        .ok_or_else(|| c.error("required attribute missing: 'body'"))?
        .split_ascii_whitespace()
        .map(|s| s.to_string())
        .collect();
    f.vert = c.numbers("vertex")?.unwrap_or_default();
    f.elem = c
        .ints("element")?
        .ok_or_else(|| c.error("required attribute missing: 'element'"))?;
    if let Some(t) = c.numbers("texcoord")? {
        f.texcoord = t.iter().map(|x| *x as f32).collect();
    }
    f.elemtexcoord = c.ints("elemtexcoord")?.unwrap_or_default();
    if let Some(n) = c.attr("node") {
        f.nodebody = n.split_ascii_whitespace().map(|s| s.to_string()).collect();
    }
    f.node = c.numbers("nodecoord")?.unwrap_or_default();
    c.int3("cellcount", &mut f.cellcount)?;
    if let Some(d) = c.keyword(
        "dof",
        &[
            ("full", 0),
            ("radial", 0),
            ("trilinear", 1),
            ("quadratic", 2),
            ("2d", 0),
        ],
    )? {
        f.order = d;
    }
    for ch in &c.children {
        match ch.name.as_str() {
            "contact" => read_flex_contact(ch, &mut f)?,
            "edge" => {
                ch.check_attrs(&["stiffness", "damping"])?;
                ch.read_f64("stiffness", &mut f.edgestiffness)?;
                ch.read_f64("damping", &mut f.edgedamping)?;
            }
            "elasticity" => read_elasticity(ch, &mut f)?,
            other => {
                return Err(ch.error(format!("Schema violation: unrecognized element '{other}'")))
            }
        }
    }
    Ok(f)
}

fn read_skin(c: &Element) -> Result<SkinSpec> {
    c.check_attrs(&[
        "name", "file", "material", "rgba", "inflate", "vertex", "texcoord", "face", "group",
    ])?;
    c.reject_unsupported(&["file"])?;
    let mut s = SkinSpec {
        name: c.string("name").unwrap_or_default(),
        rgba: [0.5, 0.5, 0.5, 1.0],
        ..Default::default()
    };
    c.f32s("rgba", &mut s.rgba)?;
    s.vert = c
        .numbers("vertex")?
        .unwrap_or_default()
        .iter()
        .map(|x| *x as f32)
        .collect();
    s.face = c.ints("face")?.unwrap_or_default();
    if let Some(i) = c.f64("inflate")? {
        s.inflate = i as f32;
    }
    for b in &c.children {
        if b.name != "bone" {
            return Err(b.error(format!(
                "Schema violation: unrecognized element '{}'",
                b.name
            )));
        }
        b.check_attrs(&["body", "bindpos", "bindquat", "vertid", "vertweight"])?;
        let mut bone = BoneSpec {
            body: b
                .string("body")
                .ok_or_else(|| b.error("required attribute missing: 'body'"))?,
            bindquat: [1.0, 0.0, 0.0, 0.0],
            ..Default::default()
        };
        b.read_f64s("bindpos", 3, &mut bone.bindpos)?;
        b.read_f64s("bindquat", 4, &mut bone.bindquat)?;
        bone.vertid = b.ints("vertid")?.unwrap_or_default();
        bone.vertweight = b
            .numbers("vertweight")?
            .unwrap_or_default()
            .iter()
            .map(|x| *x as f32)
            .collect();
        s.bones.push(bone);
    }
    Ok(s)
}
