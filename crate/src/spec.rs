//! The author-level model, like MuJoCo's `mjSpec`: what the MJCF said, with defaults resolved
//! and flexcomps already expanded into bodies, joints, a flex and equalities (as MuJoCo's
//! reader does), but nothing compiled yet. Spec-only settings such as `elastic3d` live here, so
//! the CLI and the wasm API can set them before compiling, as `mjSpec` users do.

use crate::model::Options;

/// Joint types, numbered as `mjtJoint`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JointType {
    Free = 0,
    Ball = 1,
    Slide = 2,
    Hinge = 3,
}

pub use crate::model::GeomType;

/// Three-valued attributes such as `limited` and `inertiafromgeom`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TriState {
    False,
    True,
    Auto,
}

/// An orientation as written in MJCF, resolved to a quaternion by the compiler.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Orientation {
    Quat([f64; 4]),
    AxisAngle([f64; 4]),
    XYAxes([f64; 6]),
    ZAxis([f64; 3]),
    Euler([f64; 3]),
}

impl Default for Orientation {
    fn default() -> Self {
        Orientation::Quat([1.0, 0.0, 0.0, 0.0])
    }
}

/// `<compiler>` settings that change the compiled numbers.
#[derive(Debug, Clone)]
pub struct CompilerSpec {
    pub degree: bool,
    pub eulerseq: [u8; 3],
    pub autolimits: bool,
    pub meshdir: String,
    pub texturedir: String,
    pub inertiafromgeom: TriState,
    pub inertiagrouprange: [i32; 2],
    pub boundmass: f64,
    pub boundinertia: f64,
    pub settotalmass: f64,
    pub balanceinertia: bool,
    pub alignfree: bool,
    pub fusestatic: bool,
    pub discardvisual: bool,
    /// Fit primitive geoms to a mesh's bounding box instead of its inertia box.
    pub fitaabb: bool,
}

impl Default for CompilerSpec {
    fn default() -> Self {
        CompilerSpec {
            degree: true,
            eulerseq: *b"xyz",
            autolimits: true,
            meshdir: String::new(),
            texturedir: String::new(),
            inertiafromgeom: TriState::Auto,
            inertiagrouprange: [0, 5],
            boundmass: 0.0,
            boundinertia: 0.0,
            settotalmass: -1.0,
            balanceinertia: false,
            alignfree: false,
            fusestatic: false,
            discardvisual: false,
            fitaabb: false,
        }
    }
}

/// A body of the kinematic tree. Index 0 is the world.
#[derive(Debug, Clone)]
pub struct BodySpec {
    pub name: String,
    pub parent: usize,
    pub children: Vec<usize>,
    pub joints: Vec<usize>,
    pub geoms: Vec<usize>,
    pub sites: Vec<usize>,
    pub pos: [f64; 3],
    pub orient: Orientation,
    pub mocap: bool,
    pub gravcomp: f64,
    /// Explicit `<inertial>` (or a flexcomp vertex body's mass); else from geoms.
    pub explicit_inertial: bool,
    pub mass: f64,
    pub ipos: [f64; 3],
    pub iorient: Orientation,
    pub inertia: [f64; 3],
    pub fullinertia: Option<[f64; 6]>,
    /// Default class for children that name none (childclass, else inherited).
    pub childclass: usize,
    /// `simple="false"` disables MuJoCo's simple-body optimisation.
    pub simple: bool,
    /// Plugin instance (index into [`Spec::plugins`]) that acts on this body.
    pub plugin: Option<usize>,
    /// The `<frame>` (index into [`Spec::frames`]) its pose is given in, if any.
    pub frame: Option<usize>,
    /// Its `pos` and `quat` attributes as written, kept when a `<frame>` places it (MuJoCo
    /// 3.15.0 fills a keyframe's short vectors with them).
    pub written_pose: Option<([f64; 3], [f64; 4])>,
    pub line: u32,
}

impl BodySpec {
    pub fn new(name: &str, parent: usize, childclass: usize) -> Self {
        BodySpec {
            name: name.to_string(),
            parent,
            children: Vec::new(),
            joints: Vec::new(),
            geoms: Vec::new(),
            sites: Vec::new(),
            pos: [0.0; 3],
            orient: Orientation::default(),
            mocap: false,
            gravcomp: 0.0,
            explicit_inertial: false,
            mass: 0.0,
            ipos: [0.0; 3],
            iorient: Orientation::default(),
            inertia: [0.0; 3],
            fullinertia: None,
            childclass,
            simple: true,
            plugin: None,
            frame: None,
            written_pose: None,
            line: 0,
        }
    }
}

/// A frame its children (bodies, geoms, sites, joints, cameras, lights, frames) are given in,
/// itself in its parent frame's or body's: a `<frame>`, or one copy of a `<replicate>`.
#[derive(Debug, Clone)]
pub struct FrameSpec {
    pub name: String,
    pub placement: FramePlacement,
    /// The enclosing frame, if any.
    pub parent: Option<usize>,
    pub line: u32,
}

/// Where a frame is.
#[derive(Debug, Clone)]
pub enum FramePlacement {
    /// A `<frame>`'s own `pos` and orientation.
    Pose { pos: [f64; 3], orient: Orientation },
    /// The frame MuJoCo attaches a replicate's copy with (its pose computed by the compiler
    /// from the offset and euler step, which need the compiler's angle settings).
    Copy(ReplicateCopy),
}

/// One copy of a `<replicate>`.
#[derive(Debug, Clone, Copy, Default)]
pub struct ReplicateCopy {
    pub offset: [f64; 3],
    pub euler: [f64; 3],
    pub index: usize,
}

/// A joint, with its default class already applied.
#[derive(Debug, Clone)]
pub struct JointSpec {
    pub name: String,
    pub body: usize,
    pub jtype: JointType,
    pub pos: [f64; 3],
    pub axis: [f64; 3],
    pub group: i32,
    pub limited: TriState,
    pub range: [f64; 2],
    /// Whether the actuators' total force on the joint is clamped to `actfrcrange`.
    pub actfrclimited: TriState,
    /// Range of the actuators' total force on the joint (N or N·m).
    pub actfrcrange: [f64; 2],
    /// Whether the joint's share of body gravity compensation goes to `qfrc_actuator` (before
    /// the `actfrcrange` clamp) instead of `qfrc_passive` (`actuatorgravcomp`).
    pub actgravcomp: bool,
    /// `springdamper`: a time constant (s) and damping ratio from which the compiler sets the
    /// joint's stiffness and damping, both 0 when unset.
    pub springdamper: [f64; 2],
    pub solref_limit: [f64; 2],
    pub solimp_limit: [f64; 5],
    pub solref_friction: [f64; 2],
    pub solimp_friction: [f64; 5],
    pub stiffness: f64,
    pub springref: f64,
    pub damping: f64,
    pub armature: f64,
    pub frictionloss: f64,
    pub margin: f64,
    pub reference: f64,
    /// `<freejoint align>`: 0 false, 1 true, 2 auto (follow `compiler alignfree`).
    pub align: u8,
    /// The `<frame>` its pos and axis are given in, if any.
    pub frame: Option<usize>,
    pub line: u32,
}

impl Default for JointSpec {
    fn default() -> Self {
        JointSpec {
            name: String::new(),
            body: 0,
            jtype: JointType::Hinge,
            pos: [0.0; 3],
            axis: [0.0, 0.0, 1.0],
            group: 0,
            limited: TriState::Auto,
            range: [0.0, 0.0],
            actfrclimited: TriState::Auto,
            actfrcrange: [0.0, 0.0],
            actgravcomp: false,
            springdamper: [0.0, 0.0],
            solref_limit: [0.02, 1.0],
            solimp_limit: [0.9, 0.95, 0.001, 0.5, 2.0],
            solref_friction: [0.02, 1.0],
            solimp_friction: [0.9, 0.95, 0.001, 0.5, 2.0],
            stiffness: 0.0,
            springref: 0.0,
            damping: 0.0,
            armature: 0.0,
            frictionloss: 0.0,
            margin: 0.0,
            reference: 0.0,
            align: 2,
            frame: None,
            line: 0,
        }
    }
}

/// A geom, with its default class applied.
#[derive(Debug, Clone)]
pub struct GeomSpec {
    pub name: String,
    pub body: usize,
    pub gtype: GeomType,
    pub size: [f64; 3],
    /// Number of `size` values given (some types need a minimum).
    pub size_given: usize,
    pub pos: [f64; 3],
    pub orient: Orientation,
    pub fromto: Option<[f64; 6]>,
    pub contype: i32,
    pub conaffinity: i32,
    pub condim: i32,
    pub group: i32,
    pub priority: i32,
    pub friction: [f64; 3],
    pub solmix: f64,
    pub solref: [f64; 2],
    pub solimp: [f64; 5],
    pub margin: f64,
    pub gap: f64,
    /// Constant pull of its contacts along their normals (N; negative pushes), 3.15.0's
    /// translated friction cone.
    pub adhesion: f64,
    /// Explicit mass (kg); NaN when density decides (MuJoCo's undefined value).
    pub mass: f64,
    pub density: f64,
    pub shellinertia: bool,
    pub mesh: String,
    pub material: String,
    pub rgba: [f32; 4],
    /// SDF plugin instance (index into [`Spec::plugins`]) of an `sdf` geom.
    pub plugin: Option<usize>,
    /// Scale of a primitive geom fitted to a mesh.
    pub fitscale: f64,
    /// The `<frame>` its pose is given in, if any.
    pub frame: Option<usize>,
    pub line: u32,
}

impl Default for GeomSpec {
    fn default() -> Self {
        GeomSpec {
            name: String::new(),
            body: 0,
            gtype: GeomType::Sphere,
            size: [0.0; 3],
            size_given: 0,
            pos: [0.0; 3],
            orient: Orientation::default(),
            fromto: None,
            contype: 1,
            conaffinity: 1,
            condim: 3,
            group: 0,
            priority: 0,
            friction: [1.0, 0.005, 0.0001],
            solmix: 1.0,
            solref: [0.02, 1.0],
            solimp: [0.9, 0.95, 0.001, 0.5, 2.0],
            margin: 0.0,
            gap: 0.0,
            adhesion: 0.0,
            mass: f64::NAN,
            density: 1000.0,
            shellinertia: false,
            mesh: String::new(),
            material: String::new(),
            rgba: [0.5, 0.5, 0.5, 1.0],
            plugin: None,
            fitscale: 1.0,
            frame: None,
            line: 0,
        }
    }
}

/// A site (a frame for drawing and for equality anchors).
#[derive(Debug, Clone)]
pub struct SiteSpec {
    pub name: String,
    pub body: usize,
    pub gtype: GeomType,
    pub size: [f64; 3],
    pub pos: [f64; 3],
    pub orient: Orientation,
    pub fromto: Option<[f64; 6]>,
    pub group: i32,
    pub rgba: [f32; 4],
    /// Material name (empty: none); MuJoCo refuses an unknown one.
    pub material: String,
    /// The `<frame>` its pose is given in, if any.
    pub frame: Option<usize>,
    pub line: u32,
}

impl Default for SiteSpec {
    fn default() -> Self {
        SiteSpec {
            name: String::new(),
            body: 0,
            gtype: GeomType::Sphere,
            size: [0.005, 0.005, 0.005],
            pos: [0.0; 3],
            orient: Orientation::default(),
            fromto: None,
            group: 0,
            rgba: [0.5, 0.5, 0.5, 1.0],
            material: String::new(),
            frame: None,
            line: 0,
        }
    }
}

/// A light or camera, kept for drawing only.
#[derive(Debug, Clone, Default)]
pub struct ViewSpec {
    pub name: String,
    pub body: usize,
    pub pos: [f64; 3],
    pub orient: Orientation,
    pub dir: [f64; 3],
    pub fovy: f64,
    /// The `<frame>` its pose is given in, if any.
    pub frame: Option<usize>,
}

/// Flexcomp/flex self-collision modes (`mjtFlexSelf`).
pub const FLEXSELF_NONE: i32 = flexlab_core::model::flexself::NONE;
pub const FLEXSELF_AUTO: i32 = flexlab_core::model::flexself::AUTO;

/// A flex, as `mjsFlex`.
#[derive(Debug, Clone)]
pub struct FlexSpec {
    pub name: String,
    pub contype: i32,
    pub conaffinity: i32,
    pub condim: i32,
    pub priority: i32,
    pub friction: [f64; 3],
    pub solmix: f64,
    pub solref: [f64; 2],
    pub solimp: [f64; 5],
    pub margin: f64,
    pub gap: f64,
    pub dim: i32,
    pub radius: f64,
    pub flatskin: bool,
    pub selfcollide: i32,
    pub passive: bool,
    pub activelayers: i32,
    pub group: i32,
    pub edgestiffness: f64,
    pub edgedamping: f64,
    pub rgba: [f32; 4],
    pub material: String,
    pub young: f64,
    pub poisson: f64,
    pub damping: f64,
    pub thickness: f64,
    pub elastic2d: i32,
    /// Spec-only: 0 StVK, 1 Stable Neo-Hookean (3.15.0 `mjsFlex.elastic3d`).
    pub elastic3d: i32,
    pub cellcount: [i32; 3],
    /// Interpolation order: 0 vertex flex, 1 trilinear, 2 quadratic.
    pub order: i32,
    pub nodebody: Vec<String>,
    pub vertbody: Vec<String>,
    pub node: Vec<f64>,
    pub vert: Vec<f64>,
    pub elem: Vec<i32>,
    pub texcoord: Vec<f32>,
    pub elemtexcoord: Vec<i32>,
    /// Set by flexcomp when it creates strain equalities.
    pub has_strain_eq: bool,
    /// Cell emptiness computed by flexcomp (interpolated volume flexes).
    pub cell_empty: Vec<bool>,
    /// The `<frame>` around the flexcomp this flex came from: MuJoCo 3.15.0 builds a flexcomp
    /// in its body and does not apply the frame's pose (a compile warning says so).
    pub ignored_frame: Option<usize>,
    pub line: u32,
}

impl Default for FlexSpec {
    fn default() -> Self {
        FlexSpec {
            name: String::new(),
            contype: 1,
            conaffinity: 1,
            condim: 3,
            priority: 0,
            friction: [1.0, 0.005, 0.0001],
            solmix: 1.0,
            solref: [0.02, 1.0],
            solimp: [0.9, 0.95, 0.001, 0.5, 2.0],
            margin: 0.0,
            gap: 0.0,
            dim: 2,
            radius: 0.005,
            flatskin: false,
            selfcollide: FLEXSELF_AUTO,
            passive: false,
            activelayers: 1,
            group: 0,
            edgestiffness: 0.0,
            edgedamping: 0.0,
            rgba: [0.5, 0.5, 0.5, 1.0],
            material: String::new(),
            young: 0.0,
            poisson: 0.0,
            damping: 0.0,
            thickness: -1.0,
            elastic2d: 0,
            elastic3d: 0,
            cellcount: [1, 1, 1],
            order: 0,
            nodebody: Vec::new(),
            vertbody: Vec::new(),
            node: Vec::new(),
            vert: Vec::new(),
            elem: Vec::new(),
            texcoord: Vec::new(),
            elemtexcoord: Vec::new(),
            has_strain_eq: false,
            cell_empty: Vec::new(),
            ignored_frame: None,
            line: 0,
        }
    }
}

/// Equality constraint types, numbered as `mjtEq`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EqType {
    Connect = 0,
    Weld = 1,
    Joint = 2,
    Tendon = 3,
    Flex = 4,
    FlexVert = 5,
    FlexStrain = 6,
}

/// Number of `eq_data` values per equality (`mjNEQDATA`).
pub const NEQDATA: usize = 11;

/// An equality constraint, as `mjsEquality`.
#[derive(Debug, Clone)]
pub struct EqualitySpec {
    pub name: String,
    pub eqtype: EqType,
    pub active: bool,
    pub solref: [f64; 2],
    pub solimp: [f64; 5],
    pub name1: String,
    pub name2: String,
    /// True when name1/name2 refer to sites (connect/weld).
    pub sites: bool,
    pub data: [f64; NEQDATA],
    pub line: u32,
}

impl Default for EqualitySpec {
    fn default() -> Self {
        EqualitySpec {
            name: String::new(),
            eqtype: EqType::Connect,
            active: true,
            solref: [0.02, 1.0],
            solimp: [0.9, 0.95, 0.001, 0.5, 2.0],
            name1: String::new(),
            name2: String::new(),
            sites: false,
            // mjs_defaultEquality: polycoef "0 1 0 0 0" and torquescale 1; each kind overwrites
            // the part it uses, and the rest shows in eq_data as MuJoCo 3.15.0 leaves it
            data: [0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0],
            line: 0,
        }
    }
}

/// A fixed tendon (`<tendon><fixed>`): a linear combination of joint coordinates.
#[derive(Debug, Clone)]
pub struct TendonSpec {
    pub name: String,
    /// A `<spatial>` tendon: parsed so that checks MuJoCo runs first still fire first, then
    /// rejected by the compiler (flexlab has fixed tendons only).
    pub spatial: bool,
    /// (joint name, coefficient) terms.
    pub joints: Vec<(String, f64)>,
    pub stiffness: f64,
    /// Rest length, or a deadband; `[-1, -1]` means the length at qpos0.
    pub springlength: [f64; 2],
    pub damping: f64,
    pub frictionloss: f64,
    pub armature: f64,
    pub limited: TriState,
    pub range: [f64; 2],
    pub margin: f64,
    pub solref_limit: [f64; 2],
    pub solimp_limit: [f64; 5],
    pub solref_friction: [f64; 2],
    pub solimp_friction: [f64; 5],
    pub line: u32,
}

impl Default for TendonSpec {
    fn default() -> Self {
        TendonSpec {
            name: String::new(),
            spatial: false,
            joints: Vec::new(),
            stiffness: 0.0,
            springlength: [-1.0, -1.0],
            damping: 0.0,
            frictionloss: 0.0,
            armature: 0.0,
            limited: TriState::Auto,
            range: [0.0, 0.0],
            margin: 0.0,
            solref_limit: [0.02, 1.0],
            solimp_limit: [0.9, 0.95, 0.001, 0.5, 2.0],
            solref_friction: [0.02, 1.0],
            solimp_friction: [0.9, 0.95, 0.001, 0.5, 2.0],
            line: 0,
        }
    }
}

/// What an actuator pulls on.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Transmission {
    #[default]
    None,
    Joint(String),
    Tendon(String),
    /// A site: the gear is a wrench (force, torque) in the site's frame.
    Site(String),
}

/// A sensor, as `mjsSensor` (the types flexlab computes): its `mjtSensor`, the object and
/// optional reference frame it reads (`mjtObj` and name), and its cutoff and noise.
#[derive(Debug, Clone, Default)]
pub struct SensorSpec {
    pub name: String,
    pub stype: i32,
    pub objtype: i32,
    pub objname: String,
    pub reftype: i32,
    pub refname: String,
    pub cutoff: f64,
    pub noise: f64,
    pub line: u32,
}

/// An actuator (`<general>`, `<motor>`, `<position>`, `<velocity>`), as `mjsActuator`:
/// force = gain·ctrl + bias, with MuJoCo's parameter vectors.
#[derive(Debug, Clone)]
pub struct ActuatorSpec {
    pub name: String,
    pub target: Transmission,
    pub gear: [f64; 6],
    pub ctrllimited: TriState,
    pub ctrlrange: [f64; 2],
    pub forcelimited: TriState,
    pub forcerange: [f64; 2],
    /// `mjtGain`: 0 fixed, 1 affine.
    pub gaintype: i32,
    /// `mjtBias`: 0 none, 1 affine.
    pub biastype: i32,
    /// `mjtDyn`: 0 none, 1 integrator, 2 filter, 3 filterexact.
    pub dyntype: i32,
    /// The activation's clamp and whether the force reads the next step's activation.
    pub actlimited: TriState,
    pub actrange: [f64; 2],
    pub actearly: bool,
    pub gainprm: [f64; 10],
    pub biasprm: [f64; 10],
    pub dynprm: [f64; 10],
    /// Group (0–30 can be disabled by `<option actuatorgroupdisable>`).
    pub group: i32,
    pub line: u32,
}

impl Default for ActuatorSpec {
    fn default() -> Self {
        let mut gainprm = [0.0; 10];
        gainprm[0] = 1.0;
        let mut dynprm = [0.0; 10];
        dynprm[0] = 1.0;
        ActuatorSpec {
            name: String::new(),
            target: Transmission::None,
            gear: [1.0, 0.0, 0.0, 0.0, 0.0, 0.0],
            actlimited: TriState::Auto,
            actrange: [0.0, 0.0],
            actearly: false,
            group: 0,
            ctrllimited: TriState::Auto,
            ctrlrange: [0.0, 0.0],
            forcelimited: TriState::Auto,
            forcerange: [0.0, 0.0],
            gaintype: 0,
            biastype: 0,
            dyntype: 0,
            gainprm,
            biasprm: [0.0; 10],
            dynprm,
            line: 0,
        }
    }
}

/// How a mesh asset's mass properties are computed (`mjtMeshInertia`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MeshInertia {
    /// From the convex hull.
    Convex,
    /// From the triangles as a closed, consistently oriented surface.
    Exact,
    /// From the triangles with every pyramid volume taken positive (MuJoCo's default).
    #[default]
    Legacy,
    /// As a thin shell: surface area instead of volume.
    Shell,
}

/// A mesh asset: vertices and triangles, as loaded from OBJ or given inline, or generated
/// from an SDF plugin instance.
#[derive(Debug, Clone, Default)]
pub struct MeshSpec {
    pub name: String,
    pub file: String,
    pub vert: Vec<f64>,
    pub face: Vec<i32>,
    pub texcoord: Vec<f32>,
    pub scale: [f64; 3],
    /// Point of the vertices' frame that becomes the asset's origin (m).
    pub refpos: [f64; 3],
    /// Orientation of the vertices' frame that becomes the asset's (`refquat`, w x y z, not
    /// normalized yet); `None` for the identity.
    pub refquat: Option<[f64; 4]>,
    /// Largest number of convex-hull vertices, or -1 for no limit.
    pub maxhullvert: i32,
    pub inertia: MeshInertia,
    /// Plugin instance (index into [`Spec::plugins`]) whose SDF makes the mesh.
    pub plugin: Option<usize>,
    pub line: u32,
}

/// A material, kept for drawing.
#[derive(Debug, Clone)]
pub struct MaterialSpec {
    pub name: String,
    pub rgba: [f32; 4],
    pub texture: String,
}

/// A keyframe.
#[derive(Debug, Clone, Default)]
pub struct KeySpec {
    pub name: String,
    pub time: f64,
    pub qpos: Option<Vec<f64>>,
    pub qvel: Option<Vec<f64>>,
    pub mpos: Option<Vec<f64>>,
    pub mquat: Option<Vec<f64>>,
    pub ctrl: Option<Vec<f64>>,
    pub act: Option<Vec<f64>>,
    pub line: u32,
}

/// An explicit contact exclusion between two bodies.
#[derive(Debug, Clone)]
pub struct ExcludeSpec {
    pub body1: String,
    pub body2: String,
    pub line: u32,
}

/// An explicit contact pair between two geoms (`<contact><pair>`, `mjsPair`): its contact
/// parameters are its own (or its class's), never mixed from the geoms'.
#[derive(Debug, Clone)]
pub struct PairSpec {
    pub name: String,
    pub geom1: String,
    pub geom2: String,
    pub condim: i32,
    /// Sliding (two), torsional and rolling (two) coefficients.
    pub friction: [f64; 5],
    pub solref: [f64; 2],
    /// Reference of the friction rows; zero: those of `solref`.
    pub solreffriction: [f64; 2],
    pub solimp: [f64; 5],
    /// Distance below which the pair's contacts are active (m).
    pub margin: f64,
    /// Distance beyond `margin` within which contacts are found but not active (m).
    pub gap: f64,
    /// Adhesion of the pair's contacts (N), replacing its geoms'.
    pub adhesion: f64,
    pub line: u32,
}

impl Default for PairSpec {
    /// `mjs_defaultPair`'s values.
    fn default() -> Self {
        PairSpec {
            name: String::new(),
            geom1: String::new(),
            geom2: String::new(),
            condim: 3,
            friction: [1.0, 1.0, 0.005, 0.0001, 0.0001],
            solref: [0.02, 1.0],
            solreffriction: [0.0; 2],
            solimp: [0.9, 0.95, 0.001, 0.5, 2.0],
            margin: 0.0,
            gap: 0.0,
            adhesion: 0.0,
            line: 0,
        }
    }
}

/// A visual skin bound to bodies (drawing only: it adds no physics, as in MuJoCo).
#[derive(Debug, Clone, Default)]
pub struct SkinSpec {
    pub name: String,
    pub vert: Vec<f32>,
    pub face: Vec<i32>,
    pub rgba: [f32; 4],
    pub inflate: f32,
    pub bones: Vec<BoneSpec>,
}

#[derive(Debug, Clone, Default)]
pub struct BoneSpec {
    pub body: String,
    pub bindpos: [f64; 3],
    pub bindquat: [f64; 4],
    pub vertid: Vec<i32>,
    pub vertweight: Vec<f32>,
}

/// A plugin instance (`mjsPlugin`): an explicit `<instance>` of `<extension>`, or an
/// implicit one made by the element that configures it (a cable composite).
#[derive(Debug, Clone, Default)]
pub struct PluginSpec {
    /// Plugin name, e.g. `mujoco.elasticity.cable`.
    pub plugin: String,
    /// Instance name (`composite<prefix>` for a composite's implicit instance).
    pub name: String,
    /// `<config key value>` pairs in file order.
    pub config: Vec<(String, String)>,
    pub line: u32,
}

impl PluginSpec {
    /// The value of a config key, or "" when unset (as `mj_getPluginConfig`).
    pub fn config(&self, key: &str) -> &str {
        self.config
            .iter()
            .find(|(k, _)| k == key)
            .map_or("", |(_, v)| v.as_str())
    }
}

/// `<statistic>`: values that replace what the compiler computes (`mjModel.stat`); `None`
/// keeps the computed one, as MuJoCo's undefined (NaN) spec values do.
#[derive(Debug, Clone, Default)]
pub struct StatisticSpec {
    /// Mean diagonal of the inertia matrix at `qpos0` (kg, kg·m²); scales the solvers'
    /// convergence test.
    pub meaninertia: Option<f64>,
    /// Mean body mass (kg).
    pub meanmass: Option<f64>,
    /// Mean body size (m).
    pub meansize: Option<f64>,
    /// Size of the model (m), strictly positive; frames the camera.
    pub extent: Option<f64>,
    /// Centre of the model (m); frames the camera.
    pub center: Option<[f64; 3]>,
}

/// The whole author-level model.
#[derive(Debug, Clone)]
pub struct Spec {
    pub modelname: String,
    pub compiler: CompilerSpec,
    pub option: Options,
    pub statistic: StatisticSpec,
    pub bodies: Vec<BodySpec>,
    /// The `<frame>` elements, in document order.
    pub frames: Vec<FrameSpec>,
    pub joints: Vec<JointSpec>,
    pub geoms: Vec<GeomSpec>,
    pub sites: Vec<SiteSpec>,
    pub cameras: Vec<ViewSpec>,
    pub lights: Vec<ViewSpec>,
    pub flexes: Vec<FlexSpec>,
    pub equalities: Vec<EqualitySpec>,
    pub tendons: Vec<TendonSpec>,
    pub actuators: Vec<ActuatorSpec>,
    pub sensors: Vec<SensorSpec>,
    pub meshes: Vec<MeshSpec>,
    pub materials: Vec<MaterialSpec>,
    pub keys: Vec<KeySpec>,
    pub excludes: Vec<ExcludeSpec>,
    pub pairs: Vec<PairSpec>,
    pub skins: Vec<SkinSpec>,
    /// Plugins declared in `<extension>` (a plugin must be declared to be used).
    pub extensions: Vec<String>,
    /// Plugin instances; bodies refer to them by index.
    pub plugins: Vec<PluginSpec>,
    /// Warnings collected while reading (MuJoCo prints these).
    pub warnings: Vec<String>,
    /// Joint defaults of each default class (index = class id), for joints that flexcomp
    /// generates on its vertex and node bodies.
    pub joint_class_defaults: Vec<JointSpec>,
}

impl Default for Spec {
    fn default() -> Self {
        Spec {
            modelname: "MuJoCo Model".to_string(),
            compiler: CompilerSpec::default(),
            option: Options::default(),
            statistic: StatisticSpec::default(),
            bodies: vec![BodySpec::new("world", 0, 0)],
            frames: Vec::new(),
            joints: Vec::new(),
            geoms: Vec::new(),
            sites: Vec::new(),
            cameras: Vec::new(),
            lights: Vec::new(),
            flexes: Vec::new(),
            equalities: Vec::new(),
            tendons: Vec::new(),
            actuators: Vec::new(),
            sensors: Vec::new(),
            meshes: Vec::new(),
            materials: Vec::new(),
            keys: Vec::new(),
            excludes: Vec::new(),
            pairs: Vec::new(),
            skins: Vec::new(),
            extensions: Vec::new(),
            plugins: Vec::new(),
            warnings: Vec::new(),
            joint_class_defaults: vec![JointSpec::default()],
        }
    }
}

impl Spec {
    /// Adds a child body and returns its index.
    pub fn add_body(&mut self, parent: usize, name: &str) -> usize {
        let class = self.bodies[parent].childclass;
        let id = self.bodies.len();
        self.bodies.push(BodySpec::new(name, parent, class));
        self.bodies[parent].children.push(id);
        id
    }

    /// Adds a joint to `body` and returns its index.
    pub fn add_joint(&mut self, body: usize, mut joint: JointSpec) -> usize {
        joint.body = body;
        let id = self.joints.len();
        self.joints.push(joint);
        self.bodies[body].joints.push(id);
        id
    }

    pub fn add_geom(&mut self, body: usize, mut geom: GeomSpec) -> usize {
        geom.body = body;
        let id = self.geoms.len();
        self.geoms.push(geom);
        self.bodies[body].geoms.push(id);
        id
    }

    pub fn add_site(&mut self, body: usize, mut site: SiteSpec) -> usize {
        site.body = body;
        let id = self.sites.len();
        self.sites.push(site);
        self.bodies[body].sites.push(id);
        id
    }

    pub fn find_body(&self, name: &str) -> Option<usize> {
        self.bodies.iter().position(|b| b.name == name)
    }

    pub fn find_flex_mut(&mut self, name: &str) -> Option<&mut FlexSpec> {
        self.flexes.iter_mut().find(|f| f.name == name)
    }

    /// Sets the spec-only `elastic3d` of the named flex (0 StVK, 1 Stable Neo-Hookean).
    pub fn set_elastic3d(&mut self, flex: &str, value: i32) -> crate::Result<()> {
        match self.find_flex_mut(flex) {
            Some(f) => {
                f.elastic3d = value;
                Ok(())
            }
            None => Err(crate::Error::usage(format!(
                "no flex named '{flex}' in the model"
            ))),
        }
    }
}

/// The spec-only `elastic3d` settings as the browser passes them: a JSON object of flex name →
/// integer (`{"box": 1}`; empty text or `{}` for none). Any flex name is allowed.
pub fn parse_elastic3d(text: &str) -> Result<Vec<(String, i32)>, String> {
    if text.trim().is_empty() {
        return Ok(Vec::new());
    }
    let v = crate::json::parse(text).map_err(|e| format!("elastic3d: {e}"))?;
    let obj = v
        .as_object()
        .ok_or("elastic3d must be a JSON object of flex name to integer")?;
    let mut out = Vec::with_capacity(obj.len());
    for (name, value) in obj {
        let x = value
            .as_f64()
            .filter(|x| x.fract() == 0.0 && x.abs() <= i32::MAX as f64)
            .ok_or_else(|| format!("elastic3d value of '{name}' must be an integer"))?;
        out.push((name.clone(), x as i32));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::parse_elastic3d;

    #[test]
    fn elastic3d_settings_are_json_with_any_flex_name() {
        assert_eq!(parse_elastic3d("").unwrap(), vec![]);
        assert_eq!(parse_elastic3d("{}").unwrap(), vec![]);
        assert_eq!(
            parse_elastic3d(r#"{"a,b:c": 1, "box": 0}"#).unwrap(),
            vec![("a,b:c".to_string(), 1), ("box".to_string(), 0)]
        );
        assert!(parse_elastic3d(r#"{"box": 0.5}"#).is_err());
        assert!(parse_elastic3d(r#"["box"]"#).is_err());
        assert!(parse_elastic3d(r#"{"box": 1"#).is_err());
    }
}
