//! The compiled model: immutable during simulation, with MuJoCo's field names, sizes and
//! orderings (struct of arrays, `*adr`/`*num` addressing into concatenated arrays).
//!
//! Every array is reachable by its MuJoCo name through [`Model::field`], so the lab's inspector
//! is one generic view and the names students read in the course are the names they find.

use crate::fields::FieldRef;

/// Geom types, numbered as `mjtGeom`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GeomType {
    Plane = 0,
    Hfield = 1,
    Sphere = 2,
    Capsule = 3,
    Ellipsoid = 4,
    Cylinder = 5,
    Box = 6,
    Mesh = 7,
    Sdf = 8,
}

/// Dofs of a joint of type `jnt_type` (free 6, ball 3, slide and hinge 1).
pub fn jnt_dofnum(jnt_type: i32) -> usize {
    match jnt_type {
        0 => 6,
        1 => 3,
        _ => 1,
    }
}

/// Integrators, numbered as `mjtIntegrator` in 3.15.0.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Integrator {
    Euler = 0,
    Rk4 = 1,
    Implicit = 2,
    ImplicitFast = 3,
    Discrete = 4,
}

impl Integrator {
    /// Lower-case name as the trace format spells it.
    pub fn trace_name(self) -> &'static str {
        match self {
            Integrator::Euler => "euler",
            Integrator::Rk4 => "rk4",
            Integrator::Implicit => "implicit",
            Integrator::ImplicitFast => "implicitfast",
            Integrator::Discrete => "discrete",
        }
    }
    /// Name as MJCF spells it.
    pub fn mjcf_name(self) -> &'static str {
        match self {
            Integrator::Euler => "Euler",
            Integrator::Rk4 => "RK4",
            Integrator::Implicit => "implicit",
            Integrator::ImplicitFast => "implicitfast",
            Integrator::Discrete => "discrete",
        }
    }
    pub fn from_mjcf(s: &str) -> Option<Self> {
        Some(match s {
            "Euler" => Integrator::Euler,
            "RK4" => Integrator::Rk4,
            "implicit" => Integrator::Implicit,
            "implicitfast" => Integrator::ImplicitFast,
            "discrete" => Integrator::Discrete,
            _ => return None,
        })
    }
}

/// Constraint solvers, numbered as `mjtSolver`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Solver {
    Pgs = 0,
    Cg = 1,
    Newton = 2,
}

impl Solver {
    pub fn trace_name(self) -> &'static str {
        match self {
            Solver::Pgs => "pgs",
            Solver::Cg => "cg",
            Solver::Newton => "newton",
        }
    }
    pub fn mjcf_name(self) -> &'static str {
        match self {
            Solver::Pgs => "PGS",
            Solver::Cg => "CG",
            Solver::Newton => "Newton",
        }
    }
    pub fn from_mjcf(s: &str) -> Option<Self> {
        Some(match s {
            "PGS" => Solver::Pgs,
            "CG" => Solver::Cg,
            "Newton" => Solver::Newton,
            _ => return None,
        })
    }
}

/// Friction cones, numbered as `mjtCone`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cone {
    Pyramidal = 0,
    Elliptic = 1,
}

impl Cone {
    pub fn trace_name(self) -> &'static str {
        match self {
            Cone::Pyramidal => "pyramidal",
            Cone::Elliptic => "elliptic",
        }
    }
}

/// Jacobian storage choice, as `mjtJacobian`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JacobianKind {
    Dense = 0,
    Sparse = 1,
    Auto = 2,
}

/// Object types (`mjtObj`), as `eq_objtype` and the sensors' `sensor_objtype`/`reftype` hold
/// them: MuJoCo 3.15.0 sets a connect's or weld's to its bodies' or sites' type and leaves
/// every other equality's at `UNKNOWN`.
pub mod obj {
    pub const UNKNOWN: i32 = 0;
    pub const BODY: i32 = 1;
    /// A body's own frame (not its inertial frame).
    pub const XBODY: i32 = 2;
    pub const JOINT: i32 = 3;
    pub const GEOM: i32 = 5;
    pub const SITE: i32 = 6;
    pub const CAMERA: i32 = 7;
    pub const TENDON: i32 = 18;
    pub const ACTUATOR: i32 = 19;
}

/// Flex self-collision modes (`mjtFlexSelf`), the values of `flex_selfcollide`.
pub mod flexself {
    pub const NONE: i32 = 0;
    /// Every pair of active elements.
    pub const NARROW: i32 = 1;
    /// The flex's element hierarchy against itself.
    pub const BVH: i32 = 2;
    /// Sweep and prune over the active elements.
    pub const SAP: i32 = 3;
    /// `BVH` for 3D flexes, `SAP` below.
    pub const AUTO: i32 = 4;
}

/// Disable flags (`mjtDisableBit`).
pub mod disable {
    pub const CONSTRAINT: i32 = 1 << 0;
    pub const EQUALITY: i32 = 1 << 1;
    pub const FRICTIONLOSS: i32 = 1 << 2;
    pub const LIMIT: i32 = 1 << 3;
    pub const CONTACT: i32 = 1 << 4;
    pub const SPRING: i32 = 1 << 5;
    pub const DAMPER: i32 = 1 << 6;
    pub const GRAVITY: i32 = 1 << 7;
    pub const CLAMPCTRL: i32 = 1 << 8;
    pub const WARMSTART: i32 = 1 << 9;
    pub const FILTERPARENT: i32 = 1 << 10;
    pub const ACTUATION: i32 = 1 << 11;
    pub const REFSAFE: i32 = 1 << 12;
    pub const SENSOR: i32 = 1 << 13;
    pub const MIDPHASE: i32 = 1 << 14;
    pub const EULERDAMP: i32 = 1 << 15;
    pub const AUTORESET: i32 = 1 << 16;
    pub const NATIVECCD: i32 = 1 << 17;
    pub const ISLAND: i32 = 1 << 18;
    pub const MULTICCD: i32 = 1 << 19;
    /// MJCF `<flag>` attribute names in bit order.
    pub const NAMES: [&str; 20] = [
        "constraint",
        "equality",
        "frictionloss",
        "limit",
        "contact",
        "spring",
        "damper",
        "gravity",
        "clampctrl",
        "warmstart",
        "filterparent",
        "actuation",
        "refsafe",
        "sensor",
        "midphase",
        "eulerdamp",
        "autoreset",
        "nativeccd",
        "island",
        "multiccd",
    ];
}

/// Enable flags (`mjtEnableBit`).
pub mod enable {
    pub const OVERRIDE: i32 = 1 << 0;
    pub const ENERGY: i32 = 1 << 1;
    pub const FWDINV: i32 = 1 << 2;
    pub const INVDISCRETE: i32 = 1 << 3;
    pub const SLEEP: i32 = 1 << 4;
    pub const DIAGEXACT: i32 = 1 << 5;
    pub const IPC: i32 = 1 << 6;
    pub const NAMES: [&str; 7] = [
        "override",
        "energy",
        "fwdinv",
        "invdiscrete",
        "sleep",
        "diagexact",
        "ipc",
    ];
}

/// Physics options (`mjOption`). Units: seconds, m/s², SI throughout.
#[derive(Debug, Clone)]
pub struct Options {
    /// Simulation time step (s).
    pub timestep: f64,
    pub impratio: f64,
    pub tolerance: f64,
    pub ls_tolerance: f64,
    pub noslip_tolerance: f64,
    pub ccd_tolerance: f64,
    pub sleep_tolerance: f64,
    /// Gravitational acceleration (m/s²).
    pub gravity: [f64; 3],
    pub wind: [f64; 3],
    pub magnetic: [f64; 3],
    pub density: f64,
    pub viscosity: f64,
    pub o_margin: f64,
    pub o_solref: [f64; 2],
    pub o_solimp: [f64; 5],
    pub o_friction: [f64; 5],
    pub integrator: Integrator,
    pub cone: Cone,
    pub jacobian: JacobianKind,
    pub solver: Solver,
    pub iterations: i32,
    pub ls_iterations: i32,
    pub noslip_iterations: i32,
    pub ccd_iterations: i32,
    pub disableflags: i32,
    pub enableflags: i32,
    /// Bit `g` set: the actuators of group `g` (0–30) are disabled (`actuatorgroupdisable`).
    pub disableactuator: i32,
    pub sdf_initpoints: i32,
    pub sdf_iterations: i32,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            timestep: 0.002,
            impratio: 1.0,
            tolerance: 1e-8,
            ls_tolerance: 0.01,
            noslip_tolerance: 1e-6,
            ccd_tolerance: 1e-6,
            sleep_tolerance: 1e-3,
            gravity: [0.0, 0.0, -9.81],
            wind: [0.0; 3],
            magnetic: [0.0, -0.5, 0.0],
            density: 0.0,
            viscosity: 0.0,
            o_margin: 0.0,
            o_solref: [0.02, 1.0],
            o_solimp: [0.9, 0.95, 0.001, 0.5, 2.0],
            o_friction: [1.0, 1.0, 0.005, 0.0001, 0.0001],
            integrator: Integrator::Euler,
            cone: Cone::Pyramidal,
            jacobian: JacobianKind::Auto,
            solver: Solver::Newton,
            iterations: 100,
            ls_iterations: 50,
            noslip_iterations: 0,
            ccd_iterations: 35,
            disableflags: 0,
            enableflags: 0,
            disableactuator: 0,
            sdf_initpoints: 40,
            sdf_iterations: 10,
        }
    }
}

impl Options {
    /// The solvers' iteration cap: `iterations` as MuJoCo's `iter < iterations` loop reads it
    /// (a negative value runs no iteration).
    pub fn max_iterations(&self) -> usize {
        self.iterations.max(0) as usize
    }

    /// The line search's iteration cap, read as `max_iterations` reads `iterations`.
    pub fn max_ls_iterations(&self) -> usize {
        self.ls_iterations.max(0) as usize
    }

    #[inline]
    pub fn disabled(&self, flag: i32) -> bool {
        self.disableflags & flag != 0
    }
    #[inline]
    pub fn enabled(&self, flag: i32) -> bool {
        self.enableflags & flag != 0
    }
}

/// Model statistics (`mjStatistic`), used by the solver scaling and the camera.
#[derive(Debug, Clone, Default)]
pub struct Statistic {
    pub meaninertia: f64,
    pub meanmass: f64,
    pub meansize: f64,
    pub extent: f64,
    pub center: [f64; 3],
}

macro_rules! model_struct {
    (
        scalars { $( $(#[$sm:meta])* $sname:ident : $sty:ty ),* $(,)? }
        arrays { $( $(#[$am:meta])* $aname:ident : $aty:ident [ $cols:expr ] ),* $(,)? }
    ) => {
        /// The compiled model. Array fields carry MuJoCo's names; see MuJoCo's `mjmodel.h`
        /// for their meaning. Row counts follow the `n*` sizes; `*adr` fields are element
        /// offsets into the concatenated arrays, never byte offsets.
        #[derive(Debug, Clone, Default)]
        #[allow(non_snake_case)]
        pub struct Model {
            $( $(#[$sm])* pub $sname: $sty, )*
            $( $(#[$am])* pub $aname: Vec<$aty>, )*
        }

        static MODEL_ARRAY_NAMES: [&str; [$( stringify!($aname) ),*].len()] =
            [ $( stringify!($aname) ),* ];

        impl Model {
            /// Names of every array field, in declaration order. (A reference to one static
            /// array, not a literal list: a `const` list was copied into each crate reading it,
            /// and the browser build held the names twice, 2.3 kB gzip. A static slice read by
            /// the const is copied the same way, hence the array and its spelled-out length.)
            pub const ARRAY_NAMES: &'static [&'static str] = &MODEL_ARRAY_NAMES;

            /// An array field by its MuJoCo name, with its row width.
            pub fn field(&self, name: &str) -> Option<FieldRef<'_>> {
                // a name search and a table of readers, not a `match` on strings: that
                // compiled to one string comparison per field (15 kB of the browser build)
                const READ: &[crate::fields::Reader<Model>] =
                    &[ $( crate::fields::reader!($aty, |m| &m.$aname) ),* ];
                // row widths apart, one byte each (in the table they took a word)
                const COLS: &[u8] = &[ $( $cols ),* ];
                let i = Self::ARRAY_NAMES.iter().position(|n| *n == name)?;
                Some(READ[i].read(self, COLS[i] as usize))
            }
        }
    };
}

model_struct! {
    scalars {
        /// Number of generalized coordinates.
        nq: usize,
        /// Number of degrees of freedom.
        nv: usize,
        nu: usize,
        na: usize,
        ntendon: usize,
        nwrap: usize,
        /// Non-zeros of all tendon Jacobian rows.
        nJten: usize,
        /// Non-zeros of all actuator moment rows.
        nJact: usize,
        nbody: usize,
        njnt: usize,
        ngeom: usize,
        nsite: usize,
        ncam: usize,
        nlight: usize,
        nmesh: usize,
        nmeshvert: usize,
        nmeshface: usize,
        /// Length of the meshes' convex-hull graphs (as MuJoCo's; their order differs, see
        /// `compile::hullgraph`).
        nmeshgraph: usize,
        /// Polygons, polygon vertices and vertex–polygon entries of all meshes.
        nmeshpoly: usize,
        nmeshpolyvert: usize,
        nmeshpolymap: usize,
        nskin: usize,
        /// Materials (drawing only: `mat_rgba`).
        nmat: usize,
        nflex: usize,
        nflexnode: usize,
        nflexvert: usize,
        nflexedge: usize,
        nflexelem: usize,
        nflexelemdata: usize,
        nflexelemedge: usize,
        nflexshelldata: usize,
        nflextexcoord: usize,
        nflexstiffness: usize,
        nflexbending: usize,
        /// Non-zeros of the flex edge Jacobian.
        nJfe: usize,
        /// Non-zeros of one row of the flex vertex Jacobian (two rows per vertex).
        nJfv: usize,
        /// Dofs of the constant bending factor of the discrete metric (`efm0_dofid`).
        nefm0dof: usize,
        /// The constant bending factor itself (MuJoCo's `efm0_L`, its sparse reverse
        /// Cholesky), made by `mj_setConst`; `None` when `nefm0dof` is 0.
        efm0: Option<crate::engine::metric::Efm0>,
        neq: usize,
        nkey: usize,
        nmocap: usize,
        nexclude: usize,
        /// Explicit contact pairs (`<contact><pair>`), sorted by `pair_signature`.
        npair: usize,
        /// Sensors and the length of `sensordata` (the sum of `sensor_dim`).
        nsensor: usize,
        nsensordata: usize,
        /// Bodies with a positive `gravcomp`; none means no body is compensated at all, not even
        /// one with a negative `gravcomp` (MuJoCo's `ngravcomp` and `flg_gravcomp`).
        ngravcomp: usize,
        /// Whether some geom or pair has a non-zero `adhesion` (MuJoCo's `flg_adhesion`): the
        /// passive and reference stages skip adhesion without it.
        flg_adhesion: bool,
        ntree: usize,
        /// Non-zeros of the reduced sparse mass matrix (lower triangle incl. diagonal).
        nC: usize,
        /// Non-zeros of the dof-dof matrix `D` (`qDeriv`, `qLU`; both triangles) and of the
        /// body-dof matrix `B`.
        nD: usize,
        nB: usize,
        /// Plugin instances (`mjModel.nplugin`); flexlab implements MuJoCo's cable plugin.
        nplugin: usize,
        /// The cable plugin instances' constants (MuJoCo keeps them in the plugin's state).
        cable: Vec<crate::engine::cable::Cable>,
        /// Per plugin instance: its torus when it is a `mujoco.sdf.torus` instance (the field
        /// sdf geoms collide with), else None.
        plugin_torus: Vec<Option<crate::engine::sdf::Torus>>,
        /// Per actuator: the columns its moment row can have (a joint's dof, a tendon's
        /// Jacobian columns, the dofs that move a site), rows `trn_rowadr[i]..+trn_rownnz[i]`
        /// of `trn_colind`. Each step `Data`'s `moment_*` keeps those of them MuJoCo keeps.
        trn_rownnz: Vec<i32>,
        trn_rowadr: Vec<i32>,
        trn_colind: Vec<i32>,
        /// Per flex: its element hierarchy (MuJoCo's flex BVH), built from `qpos0`.
        flex_tree: Vec<crate::engine::flexbvh::FlexBvh>,
        /// Per body: its geom hierarchy (MuJoCo's body BVH), in the body's inertial frame.
        body_tree: Vec<crate::engine::bodybvh::BodyBvh>,
        /// Physics options.
        opt: Options,
        stat: Statistic,
        /// Model name from `<mujoco model=...>`.
        name: String,
        names_body: Vec<String>,
        names_jnt: Vec<String>,
        names_geom: Vec<String>,
        names_site: Vec<String>,
        names_tendon: Vec<String>,
        names_actuator: Vec<String>,
        names_flex: Vec<String>,
        names_eq: Vec<String>,
        names_key: Vec<String>,
        names_mesh: Vec<String>,
        names_sensor: Vec<String>,
    }
    arrays {
        qpos0: f64[1],
        qpos_spring: f64[1],

        body_parentid: i32[1],
        body_rootid: i32[1],
        body_weldid: i32[1],
        body_mocapid: i32[1],
        body_jntnum: i32[1],
        body_jntadr: i32[1],
        body_dofnum: i32[1],
        body_dofadr: i32[1],
        body_treeid: i32[1],
        body_geomnum: i32[1],
        body_geomadr: i32[1],
        body_simple: u8[1],
        body_sameframe: u8[1],
        body_pos: f64[3],
        body_quat: f64[4],
        body_ipos: f64[3],
        body_iquat: f64[4],
        body_mass: f64[1],
        body_subtreemass: f64[1],
        body_inertia: f64[3],
        body_invweight0: f64[2],
        /// Fraction of the body's weight that gravity compensation cancels (`gravcomp`).
        body_gravcomp: f64[1],
        body_contype: i32[1],
        body_conaffinity: i32[1],
        /// Plugin instance acting on each body, or -1.
        body_plugin: i32[1],

        jnt_type: i32[1],
        jnt_qposadr: i32[1],
        jnt_dofadr: i32[1],
        jnt_bodyid: i32[1],
        jnt_group: i32[1],
        jnt_limited: u8[1],
        /// Whether the actuators' total force on the joint's dof is clamped (hinge, slide).
        jnt_actfrclimited: u8[1],
        /// That force's range (N or N·m).
        jnt_actfrcrange: f64[2],
        /// Whether the joint's dofs take their gravity compensation in `qfrc_actuator` (before
        /// the clamp) rather than in `qfrc_passive` (`actuatorgravcomp`).
        jnt_actgravcomp: u8[1],
        jnt_solref: f64[2],
        jnt_solimp: f64[5],
        jnt_pos: f64[3],
        jnt_axis: f64[3],
        jnt_stiffness: f64[1],
        jnt_range: f64[2],
        jnt_margin: f64[1],

        dof_bodyid: i32[1],
        dof_jntid: i32[1],
        dof_parentid: i32[1],
        dof_treeid: i32[1],
        dof_Madr: i32[1],
        dof_simplenum: i32[1],
        dof_solref: f64[2],
        dof_solimp: f64[5],
        dof_frictionloss: f64[1],
        dof_armature: f64[1],
        dof_damping: f64[1],
        dof_invweight0: f64[1],
        dof_M0: f64[1],

        M_rownnz: i32[1],
        M_rowadr: i32[1],
        M_colind: i32[1],
        /// `D`: per dof, its row of related dofs (ancestors, itself, descendants) and the
        /// diagonal's place in it; `mapM2D`, each entry's index in `M`, or −1; `mapD2M`, each
        /// entry of `M`'s index in `D`.
        D_rownnz: i32[1],
        D_rowadr: i32[1],
        D_diag: i32[1],
        D_colind: i32[1],
        mapM2D: i32[1],
        mapD2M: i32[1],
        /// `B`: per body, the dofs of its ancestors, itself and its subtree.
        B_rownnz: i32[1],
        B_rowadr: i32[1],
        B_colind: i32[1],

        geom_type: i32[1],
        geom_contype: i32[1],
        geom_conaffinity: i32[1],
        geom_condim: i32[1],
        geom_bodyid: i32[1],
        /// Mesh of each mesh or sdf geom, or -1.
        geom_dataid: i32[1],
        /// SDF plugin instance of each sdf geom, or -1.
        geom_plugin: i32[1],
        geom_group: i32[1],
        geom_priority: i32[1],
        geom_sameframe: u8[1],
        geom_solmix: f64[1],
        geom_solref: f64[2],
        geom_solimp: f64[5],
        geom_size: f64[3],
        geom_aabb: f64[6],
        geom_rbound: f64[1],
        geom_pos: f64[3],
        geom_quat: f64[4],
        geom_friction: f64[3],
        geom_margin: f64[1],
        geom_gap: f64[1],
        /// Pull of the geom's contacts along their normals (N); two geoms' add up.
        geom_adhesion: f64[1],
        geom_rgba: f32[4],
        /// Material of each geom, or -1.
        geom_matid: i32[1],

        site_type: i32[1],
        site_bodyid: i32[1],
        site_sameframe: u8[1],
        site_size: f64[3],
        site_pos: f64[3],
        site_quat: f64[4],
        site_rgba: f32[4],

        cam_bodyid: i32[1],
        cam_pos: f64[3],
        cam_quat: f64[4],
        cam_fovy: f64[1],
        light_bodyid: i32[1],
        light_pos: f64[3],
        light_dir: f64[3],

        mat_rgba: f32[4],

        mesh_vertadr: i32[1],
        mesh_vertnum: i32[1],
        mesh_faceadr: i32[1],
        mesh_facenum: i32[1],
        /// Vertices in each mesh's inertial frame (m; f32 values, as MuJoCo stores them).
        mesh_vert: f64[3],
        mesh_face: i32[3],
        /// Offset of each mesh's inertial frame in its asset frame (m).
        mesh_pos: f64[3],
        /// Rotation of each mesh's inertial frame in its asset frame.
        mesh_quat: f64[4],
        /// SDF plugin instance that generated each mesh, or -1.
        mesh_plugin: i32[1],
        /// Address of each mesh's hull graph in MuJoCo's `mesh_graph`, or -1 without a hull.
        mesh_graphadr: i32[1],
        /// Local id of the hull vertex farthest along each of 27 directions (see
        /// `compile::hullgraph::extrema`).
        mesh_extrema: i32[27],
        /// Convex-hull graphs of the meshes (`compile::hullgraph`; MuJoCo's layout, flexlab's
        /// order).
        mesh_graph: i32[1],
        /// Polygons of each mesh's hull (`compile::meshpoly`; MuJoCo's sets, flexlab's order):
        /// count and first index per mesh, unit normal (inertial frame) and vertex loop per
        /// polygon, and per mesh vertex the polygons it lies on.
        mesh_polynum: i32[1],
        mesh_polyadr: i32[1],
        mesh_polynormal: f64[3],
        mesh_polyvertadr: i32[1],
        mesh_polyvertnum: i32[1],
        mesh_polyvert: i32[1],
        mesh_polymapadr: i32[1],
        mesh_polymapnum: i32[1],
        mesh_polymap: i32[1],

        flex_contype: i32[1],
        flex_conaffinity: i32[1],
        flex_condim: i32[1],
        flex_priority: i32[1],
        flex_solmix: f64[1],
        flex_solref: f64[2],
        flex_solimp: f64[5],
        flex_friction: f64[3],
        flex_margin: f64[1],
        flex_gap: f64[1],
        flex_selfcollide: i32[1],
        flex_activelayers: i32[1],
        flex_passive: i32[1],
        flex_dim: i32[1],
        flex_matid: i32[1],
        flex_group: i32[1],
        flex_interp: i32[1],
        flex_cellnum: i32[3],
        flex_nodeadr: i32[1],
        flex_nodenum: i32[1],
        flex_vertadr: i32[1],
        flex_vertnum: i32[1],
        flex_edgeadr: i32[1],
        flex_edgenum: i32[1],
        flex_elemadr: i32[1],
        flex_elemnum: i32[1],
        flex_elemdataadr: i32[1],
        flex_elemedgeadr: i32[1],
        flex_shellnum: i32[1],
        flex_shelldataadr: i32[1],
        flex_texcoordadr: i32[1],
        flex_nodebodyid: i32[1],
        flex_vertbodyid: i32[1],
        flex_vertedgeadr: i32[1],
        flex_vertedgenum: i32[1],
        flex_vertedge: i32[1],
        flex_edge: i32[2],
        flex_edgeflap: i32[2],
        flex_elem: i32[1],
        flex_elemtexcoord: i32[1],
        flex_elemedge: i32[1],
        flex_elemlayer: i32[1],
        flex_shell: i32[1],
        flex_vert: f64[3],
        flex_vert0: f64[3],
        flex_vertmetric: f64[4],
        flex_node: f64[3],
        flex_node0: f64[3],
        flexedge_length0: f64[1],
        flexedge_invweight0: f64[1],
        flex_radius: f64[1],
        flex_size: f64[3],
        flex_stiffnessadr: i32[1],
        flex_stiffness: f64[1],
        flex_bendingadr: i32[1],
        flex_bending: f64[1],
        flex_damping: f64[1],
        flex_edgestiffness: f64[1],
        flex_edgedamping: f64[1],
        flex_edgeequality: i32[1],
        flex_rigid: u8[1],
        flexedge_rigid: u8[1],
        flex_centered: u8[1],
        flex_flatskin: u8[1],
        flex_rgba: f32[4],
        flex_texcoord: f32[2],
        flexedge_J_rownnz: i32[1],
        flexedge_J_rowadr: i32[1],
        flexedge_J_colind: i32[1],
        flexvert_J_rownnz: i32[2],
        flexvert_J_rowadr: i32[2],
        flexvert_J_colind: i32[2],
        /// Dofs of the constant bending factor `efm0` (ascending).
        efm0_dofid: i32[1],
        /// Spec-only material switch kept on the model: 0 StVK, 1 Stable Neo-Hookean.
        flex_elastic3d: i32[1],

        eq_type: i32[1],
        eq_obj1id: i32[1],
        eq_obj2id: i32[1],
        eq_objtype: i32[1],
        eq_active0: u8[1],
        eq_solref: f64[2],
        eq_solimp: f64[5],
        eq_data: f64[11],

        exclude_signature: i32[1],

        /// Contact dimensionality of each explicit pair (1, 3, 4 or 6).
        pair_dim: i32[1],
        /// The pair's geoms, the one of the lower body id first.
        pair_geom1: i32[1],
        pair_geom2: i32[1],
        /// `(body1 << 16) + body2` of the pair's geoms.
        pair_signature: i32[1],
        pair_solref: f64[2],
        pair_solreffriction: f64[2],
        pair_solimp: f64[5],
        /// Margin and gap of the pair's contacts (m).
        pair_margin: f64[1],
        pair_gap: f64[1],
        /// Adhesion of the pair's contacts (N), in place of its geoms'.
        pair_adhesion: f64[1],
        /// Sliding (two), torsional and rolling (two) friction of the pair's contacts.
        pair_friction: f64[5],

        tendon_adr: i32[1],
        tendon_num: i32[1],
        tendon_limited: u8[1],
        tendon_range: f64[2],
        tendon_margin: f64[1],
        tendon_stiffness: f64[1],
        tendon_damping: f64[1],
        tendon_frictionloss: f64[1],
        /// Spring rest length, or deadband `[lower, upper]` (m).
        tendon_lengthspring: f64[2],
        tendon_length0: f64[1],
        tendon_invweight0: f64[1],
        tendon_solref_lim: f64[2],
        tendon_solimp_lim: f64[5],
        tendon_solref_fri: f64[2],
        tendon_solimp_fri: f64[5],
        /// Wrap objects of fixed tendons: 1 = joint, with `wrap_prm` its coefficient.
        wrap_type: i32[1],
        wrap_objid: i32[1],
        wrap_prm: f64[1],
        /// Sparsity of the (constant) fixed-tendon Jacobian rows.
        ten_J_rownnz: i32[1],
        ten_J_rowadr: i32[1],
        ten_J_colind: i32[1],

        /// `mjtTrn`: 0 joint, 3 tendon.
        actuator_trntype: i32[1],
        actuator_trnid: i32[2],
        actuator_gear: f64[6],
        actuator_group: i32[1],
        actuator_dyntype: i32[1],
        actuator_gaintype: i32[1],
        actuator_biastype: i32[1],
        actuator_dynprm: f64[10],
        actuator_gainprm: f64[10],
        actuator_biasprm: f64[10],
        actuator_ctrllimited: u8[1],
        actuator_forcelimited: u8[1],
        actuator_ctrlrange: f64[2],
        actuator_forcerange: f64[2],
        actuator_length0: f64[1],
        actuator_acc0: f64[1],
        /// Each actuator's activation in `act` (-1: none; `actnum` 0 or 1), its clamp
        /// (`actlimited`, `actrange`) and whether the force reads the next step's activation
        /// (`actearly`).
        actuator_actadr: i32[1],
        actuator_actnum: i32[1],
        actuator_actlimited: u8[1],
        actuator_actrange: f64[2],
        actuator_actearly: u8[1],
        /// Actuator driving each joint, or -1.
        jnt_actuatorid: i32[1],

        /// `mjtSensor`, `mjtDataType`, `mjtStage` and the sensorized object and reference
        /// frame (`mjtObj` and id; reference -1: the world frame) of each sensor.
        sensor_type: i32[1],
        sensor_datatype: i32[1],
        sensor_needstage: i32[1],
        sensor_objtype: i32[1],
        sensor_objid: i32[1],
        sensor_reftype: i32[1],
        sensor_refid: i32[1],
        /// Its values, `sensordata[sensor_adr[i]..+sensor_dim[i]]`.
        sensor_dim: i32[1],
        sensor_adr: i32[1],
        /// Clamp of its values (0: none), and its noise (kept, never applied, as MuJoCo).
        sensor_cutoff: f64[1],
        sensor_noise: f64[1],

        key_time: f64[1],
        key_qpos: f64[1],
        key_qvel: f64[1],
        key_ctrl: f64[1],
        key_act: f64[1],
        key_mpos: f64[3],
        key_mquat: f64[4],
    }
}

impl Model {
    /// The sizes the CLI and traces report, in the trace format's order.
    pub fn sizes(&self) -> [(&'static str, usize); 11] {
        [
            ("nq", self.nq),
            ("nv", self.nv),
            ("nbody", self.nbody),
            ("njnt", self.njnt),
            ("ngeom", self.ngeom),
            ("nflex", self.nflex),
            ("nflexvert", self.nflexvert),
            ("nflexnode", self.nflexnode),
            ("nflexedge", self.nflexedge),
            ("nflexelem", self.nflexelem),
            ("neq", self.neq),
        ]
    }

    /// Id of the flex with this name.
    pub fn flex_id(&self, name: &str) -> Option<usize> {
        self.names_flex.iter().position(|n| n == name)
    }

    /// Id of the body with this name.
    pub fn body_id(&self, name: &str) -> Option<usize> {
        self.names_body.iter().position(|n| n == name)
    }

    /// Scalar size by its MuJoCo name (`nv`, `nflexvert`, …).
    pub fn size(&self, name: &str) -> Option<usize> {
        Some(match name {
            "nq" => self.nq,
            "nv" => self.nv,
            "nu" => self.nu,
            "na" => self.na,
            "ntendon" => self.ntendon,
            "nwrap" => self.nwrap,
            "nbody" => self.nbody,
            "njnt" => self.njnt,
            "ngeom" => self.ngeom,
            "nsite" => self.nsite,
            "nmesh" => self.nmesh,
            "nmat" => self.nmat,
            "nmeshvert" => self.nmeshvert,
            "nmeshface" => self.nmeshface,
            "nmeshgraph" => self.nmeshgraph,
            "nmeshpoly" => self.nmeshpoly,
            "nmeshpolyvert" => self.nmeshpolyvert,
            "nmeshpolymap" => self.nmeshpolymap,
            "nflex" => self.nflex,
            "nflexnode" => self.nflexnode,
            "nflexvert" => self.nflexvert,
            "nflexedge" => self.nflexedge,
            "nflexelem" => self.nflexelem,
            "nflexelemdata" => self.nflexelemdata,
            "nflexelemedge" => self.nflexelemedge,
            "nflexshelldata" => self.nflexshelldata,
            "nflexstiffness" => self.nflexstiffness,
            "nflexbending" => self.nflexbending,
            "nJfe" => self.nJfe,
            "nJfv" => self.nJfv,
            "nefm0dof" => self.nefm0dof,
            "neq" => self.neq,
            "npair" => self.npair,
            "nexclude" => self.nexclude,
            "nkey" => self.nkey,
            "nmocap" => self.nmocap,
            "nplugin" => self.nplugin,
            "nsensor" => self.nsensor,
            "nsensordata" => self.nsensordata,
            "ngravcomp" => self.ngravcomp,
            "nC" => self.nC,
            "nD" => self.nD,
            "nB" => self.nB,
            _ => return None,
        })
    }
}
