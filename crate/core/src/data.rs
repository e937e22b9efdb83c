//! Simulation state and every per-step quantity, with MuJoCo's names. All buffers are sized
//! when the data is made from a model, so the step itself never allocates.

use crate::fields::FieldRef;
use crate::model::Model;

/// MuJoCo's warning kinds (`mjtWarning`), in its order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Warning {
    Inertia = 0,
    ContactFull = 1,
    ConstraintFull = 2,
    VGeomFull = 3,
    BadQpos = 4,
    BadQvel = 5,
    BadQacc = 6,
    BadCtrl = 7,
}

/// Number of warning kinds.
pub const NWARNING: usize = 8;

impl Warning {
    pub const ALL: [Warning; NWARNING] = [
        Warning::Inertia,
        Warning::ContactFull,
        Warning::ConstraintFull,
        Warning::VGeomFull,
        Warning::BadQpos,
        Warning::BadQvel,
        Warning::BadQacc,
        Warning::BadCtrl,
    ];
    /// MuJoCo's enum name.
    pub fn name(self) -> &'static str {
        match self {
            Warning::Inertia => "mjWARN_INERTIA",
            Warning::ContactFull => "mjWARN_CONTACTFULL",
            Warning::ConstraintFull => "mjWARN_CNSTRFULL",
            Warning::VGeomFull => "mjWARN_VGEOMFULL",
            Warning::BadQpos => "mjWARN_BADQPOS",
            Warning::BadQvel => "mjWARN_BADQVEL",
            Warning::BadQacc => "mjWARN_BADQACC",
            Warning::BadCtrl => "mjWARN_BADCTRL",
        }
    }
    /// MuJoCo's message text for this warning.
    pub fn text(self, info: i32) -> String {
        match self {
            Warning::Inertia => {
                format!("Inertia matrix is too close to singular at DOF {info}. Check model.")
            }
            Warning::ContactFull => {
                format!("Too many contacts. The maximum number of contacts is {info}; increase it.")
            }
            Warning::ConstraintFull => {
                format!("Insufficient memory for constraints: {info} rows needed.")
            }
            Warning::VGeomFull => "Too many visual geoms.".to_string(),
            Warning::BadQpos => {
                format!("Nan, Inf or huge value in QPOS at DOF {info}. The simulation is unstable.")
            }
            Warning::BadQvel => {
                format!("Nan, Inf or huge value in QVEL at DOF {info}. The simulation is unstable.")
            }
            Warning::BadQacc => {
                format!("Nan, Inf or huge value in QACC at DOF {info}. The simulation is unstable.")
            }
            Warning::BadCtrl => format!("Nan, Inf or huge value in CTRL at actuator {info}."),
        }
    }
}

/// Count and last info of one warning kind (`mjWarningStat`).
#[derive(Debug, Clone, Copy, Default)]
pub struct WarningStat {
    pub lastinfo: i32,
    pub number: i32,
}

/// One detected contact (`mjContact`), with flex fields.
#[derive(Debug, Clone, Copy)]
pub struct Contact {
    /// Signed distance (m); negative means penetration.
    pub dist: f64,
    /// Contact point, midway between the surfaces (m).
    pub pos: [f64; 3],
    /// Frame: row 0 is the normal, pointing from side 0 to side 1.
    pub frame: [f64; 9],
    pub includemargin: f64,
    pub friction: [f64; 5],
    pub solref: [f64; 2],
    pub solreffriction: [f64; 2],
    pub solimp: [f64; 5],
    /// Constant pull along the normal (N): the geoms' or the pair's `adhesion`.
    pub adhesion: f64,
    pub mu: f64,
    pub h: [f64; 36],
    pub dim: i32,
    pub geom: [i32; 2],
    pub flex: [i32; 2],
    pub elem: [i32; 2],
    pub vert: [i32; 2],
    /// 0 include, 1 in gap, 2 fused, 3 no dofs, 4 passive.
    pub exclude: i32,
    pub efc_address: i32,
}

impl Default for Contact {
    fn default() -> Self {
        Contact {
            dist: 0.0,
            pos: [0.0; 3],
            frame: [0.0; 9],
            includemargin: 0.0,
            friction: [0.0; 5],
            solref: [0.0; 2],
            solreffriction: [0.0; 2],
            solimp: [0.0; 5],
            adhesion: 0.0,
            mu: 0.0,
            h: [0.0; 36],
            dim: 0,
            geom: [-1; 2],
            flex: [-1; 2],
            elem: [-1; 2],
            vert: [-1; 2],
            exclude: 0,
            efc_address: -1,
        }
    }
}

/// `n` zeros (`T::default()`). Never inlined: the constructors of `Data` and of the step's
/// scratch allocate a few hundred arrays, and `crate::data::zeros(n)` inlined at each of them made
/// `Data::sized` alone 36 kB of the browser build.
/// An empty vector with room for `n` elements, out of line: the workspaces have dozens of them,
/// each built once per model, and inlined each costs the wasm its allocation and error paths.
#[inline(never)]
pub fn with_capacity<T>(n: usize) -> Vec<T> {
    Vec::with_capacity(n)
}

#[inline(never)]
pub fn zeros<T: Clone + Default>(n: usize) -> Vec<T> {
    vec![T::default(); n]
}

/// Constraint types (`mjtConstraint`).
pub mod cnstr {
    pub const EQUALITY: i32 = 0;
    pub const FRICTION_DOF: i32 = 1;
    pub const FRICTION_TENDON: i32 = 2;
    pub const LIMIT_JOINT: i32 = 3;
    pub const LIMIT_TENDON: i32 = 4;
    pub const CONTACT_FRICTIONLESS: i32 = 5;
    pub const CONTACT_PYRAMIDAL: i32 = 6;
    pub const CONTACT_ELLIPTIC: i32 = 7;
}

macro_rules! data_arrays {
    ( $( $(#[$am:meta])* $aname:ident : $aty:ident [ $cols:expr ] ),* $(,)? ) => {
        /// Per-step arrays, each named as in MuJoCo's `mjData`.
        #[derive(Debug, Clone, Default)]
        #[allow(non_snake_case)]
        pub struct DataArrays {
            $( $(#[$am])* pub $aname: Vec<$aty>, )*
        }
        static DATA_ARRAY_NAMES: [&str; [$( stringify!($aname) ),*].len()] =
            [ $( stringify!($aname) ),* ];

        impl DataArrays {
            /// Names of every array, in declaration order (one static, as `Model::ARRAY_NAMES`).
            pub const NAMES: &'static [&'static str] = &DATA_ARRAY_NAMES;
            pub fn field(&self, name: &str) -> Option<FieldRef<'_>> {
                // a name search and a table of readers, as `Model::field`
                const READ: &[crate::fields::Reader<DataArrays>] =
                    &[ $( crate::fields::reader!($aty, |d| &d.$aname) ),* ];
                // row widths apart, one byte each (in the table they took a word)
                const COLS: &[u8] = &[ $( $cols ),* ];
                let i = Self::NAMES.iter().position(|n| *n == name)?;
                Some(READ[i].read(self, COLS[i] as usize))
            }
        }
    };
}

data_arrays! {
    qpos: f64[1],
    qvel: f64[1],
    act: f64[1],
    qacc_warmstart: f64[1],
    ctrl: f64[1],
    qfrc_applied: f64[1],
    xfrc_applied: f64[6],
    mocap_pos: f64[3],
    mocap_quat: f64[4],
    qacc: f64[1],
    act_dot: f64[1],

    xpos: f64[3],
    xquat: f64[4],
    xmat: f64[9],
    xipos: f64[3],
    ximat: f64[9],
    xanchor: f64[3],
    xaxis: f64[3],
    geom_xpos: f64[3],
    geom_xmat: f64[9],
    site_xpos: f64[3],
    site_xmat: f64[9],
    subtree_com: f64[3],
    /// Subtree linear velocity (m/s) and angular momentum about its centre of mass (kg·m²/s),
    /// computed when a sensor needs them (`mj_subtreeVel`).
    subtree_linvel: f64[3],
    subtree_angmom: f64[3],
    cdof: f64[6],
    cinert: f64[10],
    flexvert_xpos: f64[3],
    flexelem_aabb: f64[6],
    flexedge_J: f64[1],
    flexedge_length: f64[1],
    flexvert_J: f64[1],
    flexvert_length: f64[2],
    crb: f64[10],
    M: f64[1],
    qLD: f64[1],
    qLDiagInv: f64[1],
    qH: f64[1],
    qHDiagInv: f64[1],
    /// `∂(qfrc_actuator + qfrc_passive − qfrc_bias)/∂qvel` in `D`'s layout, and the sparse LU
    /// factor of `M − h·qDeriv` (`implicit`; `implicitfast` keeps its factor in `qH`).
    qDeriv: f64[1],
    qLU: f64[1],

    flexedge_velocity: f64[1],
    /// Tendon lengths (m) and velocities (m/s), and their Jacobian rows.
    ten_length: f64[1],
    ten_velocity: f64[1],
    ten_J: f64[1],
    /// Actuator lengths and velocities in transmission space, forces, and moment rows.
    actuator_length: f64[1],
    actuator_velocity: f64[1],
    actuator_force: f64[1],
    actuator_moment: f64[1],
    /// The moment rows' sparsity this step, rows packed end to end (`mj_transmission`'s).
    moment_rownnz: i32[1],
    moment_rowadr: i32[1],
    moment_colind: i32[1],
    cvel: f64[6],
    cdof_dot: f64[6],
    /// After the constraint solve, when a sensor needs them (`mj_rnePostConstraint`), spatial
    /// `[rotational; translational]` about each body's subtree root's centre of mass: body
    /// accelerations (rad/s², m/s²; the world's is minus gravity), interaction forces with the
    /// parent (N·m, N; the subtree's sum) and external forces (perturbations, geom contacts,
    /// connect and weld rows).
    cacc: f64[6],
    cfrc_int: f64[6],
    cfrc_ext: f64[6],
    qfrc_bias: f64[1],
    qfrc_spring: f64[1],
    qfrc_damper: f64[1],
    /// Body gravity compensation (N or N·m): in `qfrc_passive` for most joints, in
    /// `qfrc_actuator` for those with `jnt_actgravcomp`.
    qfrc_gravcomp: f64[1],
    /// Fluid drag and viscosity (inertia-box model), N or N·m.
    qfrc_fluid: f64[1],
    /// The adhesive contacts' constant pull along their normals (N or N·m).
    qfrc_adhesion: f64[1],
    qfrc_passive: f64[1],

    qfrc_actuator: f64[1],
    qfrc_smooth: f64[1],
    qacc_smooth: f64[1],
    qfrc_constraint: f64[1],

    efc_type: i32[1],
    efc_id: i32[1],
    /// Sparse constraint Jacobian (CSR, rows of `efc_J_rownnz` entries).
    efc_J: f64[1],
    efc_J_rownnz: i32[1],
    efc_J_rowadr: i32[1],
    efc_J_colind: i32[1],
    efc_pos: f64[1],
    efc_margin: f64[1],
    efc_frictionloss: f64[1],
    efc_diagA: f64[1],
    efc_KBIP: f64[4],
    efc_D: f64[1],
    efc_R: f64[1],
    efc_vel: f64[1],
    efc_aref: f64[1],
    efc_b: f64[1],
    efc_force: f64[1],
    efc_state: i32[1],

    /// Every sensor's values, `sensordata[sensor_adr[i]..+sensor_dim[i]]`.
    sensordata: f64[1],
}

/// The simulation state of one model.
#[derive(Debug, Clone, Default)]
pub struct Data {
    /// Simulation time (s).
    pub time: f64,
    /// Potential and kinetic energy (J), as MuJoCo computes them (flex elasticity excluded).
    pub energy: [f64; 2],
    /// M·qvel for the kinetic energy (the energy flag and sensors compute it each step, and
    /// the step allocates nothing).
    pub(crate) energy_mv: Vec<f64>,
    pub warning: [WarningStat; NWARNING],
    /// Number of detected contacts.
    pub ncon: usize,
    /// Number of constraint rows.
    pub nefc: usize,
    /// Equality, friction and limit rows (they come first in efc order).
    pub ne: usize,
    pub nf: usize,
    pub nl: usize,
    /// The contact buffer: room for the contacts a step keeps and the candidates of one
    /// self-collision or flex–flex pass ([`crate::engine::collision::max_contacts`]); a pass
    /// with more candidates grows it, up to `maxcon`.
    pub contact: Vec<Contact>,
    /// Most contacts the buffer may grow to (0: none, for the compiler's kinematics).
    pub maxcon: usize,
    /// Constraint rows the buffers hold now (as the contact buffer, they grow when a step
    /// needs more, up to `efc_limit`).
    pub maxefc: usize,
    /// Most constraint rows and Jacobian nonzeros the buffers may grow to (0: no rows, for the
    /// compiler's kinematics): rows for `maxcon` contacts, and at most [`NNZ_LIMIT`] nonzeros.
    pub efc_limit: usize,
    pub nnz_limit: usize,
    /// Solver iterations of the last step.
    pub solver_niter: i32,
    pub a: DataArrays,
    /// Scratch owned by the step (no allocation while stepping), boxed: the step moves it out
    /// for its whole run.
    pub scratch: crate::engine::slot::Slot<crate::engine::Scratch>,
}

impl std::ops::Deref for Data {
    type Target = DataArrays;
    fn deref(&self) -> &DataArrays {
        &self.a
    }
}
impl std::ops::DerefMut for Data {
    fn deref_mut(&mut self) -> &mut DataArrays {
        &mut self.a
    }
}

impl DataArrays {
    /// Sizes the per-row constraint arrays (`efc_*` but the Jacobian's values and columns) for
    /// `n` rows: at construction, and when the rows grow ([`Data::grow_rows`]).
    fn resize_rows(&mut self, n: usize) {
        for v in [
            &mut self.efc_pos,
            &mut self.efc_margin,
            &mut self.efc_frictionloss,
            &mut self.efc_diagA,
            &mut self.efc_D,
            &mut self.efc_R,
            &mut self.efc_vel,
            &mut self.efc_aref,
            &mut self.efc_b,
            &mut self.efc_force,
        ] {
            v.resize(n, 0.0);
        }
        self.efc_KBIP.resize(4 * n, 0.0);
        for v in [
            &mut self.efc_type,
            &mut self.efc_id,
            &mut self.efc_J_rownnz,
            &mut self.efc_J_rowadr,
            &mut self.efc_state,
        ] {
            v.resize(n, 0);
        }
    }
}

/// Most constraint-Jacobian nonzeros the buffers grow to: 16 million, 192 MB with their column
/// indices, so that a hostile model cannot exhaust the page's memory.
pub const NNZ_LIMIT: usize = 1 << 24;

impl Data {
    /// Makes data for `m`, sized once, and resets it (`mj_makeData` + `mj_resetData`).
    #[cold]
    pub fn new(m: &Model) -> Data {
        let room = crate::engine::collision::max_contacts(m);
        let kept = crate::engine::collision::max_kept_contacts(m);
        let maxefc = crate::engine::constraint::max_rows(m, kept);
        Data::sized(m, room, crate::engine::collision::CONTACT_LIMIT, maxefc)
    }

    /// Data with room for no contact and no constraint row, for the compiler's kinematics at
    /// the reference pose (`mj_setConst`): a large flex's contact and row buffers are tens of
    /// megabytes, which the browser zeroes on every model load.
    pub fn kinematic(m: &Model) -> Data {
        Data::sized(m, 0, 0, 0)
    }

    #[cold]
    fn sized(m: &Model, room: usize, maxcon: usize, maxefc: usize) -> Data {
        let nq = m.nq;
        let nv = m.nv;
        let nbody = m.nbody;
        let z = zeros::<f64>;
        let mut a = DataArrays {
            qpos: z(nq),
            qvel: z(nv),
            act: z(m.na),
            qacc_warmstart: z(nv),
            ctrl: z(m.nu),
            qfrc_applied: z(nv),
            xfrc_applied: z(6 * nbody),
            mocap_pos: z(3 * m.nmocap),
            mocap_quat: z(4 * m.nmocap),
            qacc: z(nv),
            act_dot: z(m.na),
            xpos: z(3 * nbody),
            xquat: z(4 * nbody),
            xmat: z(9 * nbody),
            xipos: z(3 * nbody),
            ximat: z(9 * nbody),
            xanchor: z(3 * m.njnt),
            xaxis: z(3 * m.njnt),
            geom_xpos: z(3 * m.ngeom),
            geom_xmat: z(9 * m.ngeom),
            site_xpos: z(3 * m.nsite),
            site_xmat: z(9 * m.nsite),
            subtree_com: z(3 * nbody),
            subtree_linvel: z(3 * nbody),
            subtree_angmom: z(3 * nbody),
            cdof: z(6 * nv),
            cinert: z(10 * nbody),
            flexvert_xpos: z(3 * m.nflexvert),
            flexelem_aabb: z(6 * m.nflexelem),
            flexedge_J: z(m.nJfe),
            flexedge_length: z(m.nflexedge),
            flexvert_J: z(2 * m.nJfv),
            flexvert_length: z(2 * m.nflexvert),
            crb: z(10 * nbody),
            M: z(m.nC),
            qLD: z(m.nC),
            qLDiagInv: z(nv),
            qH: z(m.nC),
            qHDiagInv: z(nv),
            qDeriv: z(m.nD),
            qLU: z(m.nD),
            flexedge_velocity: z(m.nflexedge),
            ten_length: z(m.ntendon),
            ten_velocity: z(m.ntendon),
            ten_J: z(m.nJten),
            actuator_length: z(m.nu),
            actuator_velocity: z(m.nu),
            actuator_force: z(m.nu),
            actuator_moment: z(m.nJact),
            moment_rownnz: crate::data::zeros(m.nu),
            moment_rowadr: crate::data::zeros(m.nu),
            moment_colind: crate::data::zeros(m.nJact),
            cvel: z(6 * nbody),
            cdof_dot: z(6 * nv),
            cacc: z(6 * nbody),
            cfrc_int: z(6 * nbody),
            cfrc_ext: z(6 * nbody),
            qfrc_bias: z(nv),
            qfrc_spring: z(nv),
            qfrc_damper: z(nv),
            qfrc_gravcomp: z(nv),
            qfrc_fluid: z(nv),
            qfrc_adhesion: z(nv),
            qfrc_passive: z(nv),
            qfrc_actuator: z(nv),
            qfrc_smooth: z(nv),
            qacc_smooth: z(nv),
            qfrc_constraint: z(nv),
            efc_type: Vec::new(),
            efc_id: Vec::new(),
            efc_J: z(crate::engine::constraint::max_nnz(m, maxefc)),
            efc_J_rownnz: Vec::new(),
            efc_J_rowadr: Vec::new(),
            efc_J_colind: crate::data::zeros(crate::engine::constraint::max_nnz(m, maxefc)),
            efc_pos: Vec::new(),
            efc_margin: Vec::new(),
            efc_frictionloss: Vec::new(),
            efc_diagA: Vec::new(),
            efc_KBIP: Vec::new(),
            efc_D: Vec::new(),
            efc_R: Vec::new(),
            efc_vel: Vec::new(),
            efc_aref: Vec::new(),
            efc_b: Vec::new(),
            efc_force: Vec::new(),
            efc_state: Vec::new(),
            sensordata: z(m.nsensordata),
        };
        a.resize_rows(maxefc);
        let (efc_limit, nnz_limit) = if maxefc == 0 {
            (0, 0)
        } else {
            let most = crate::engine::constraint::max_rows(m, maxcon).max(maxefc);
            let nnz = (most * m.nv.max(1)).min(NNZ_LIMIT);
            (most, nnz.max(crate::engine::constraint::max_nnz(m, maxefc)))
        };
        let mut d = Data {
            time: 0.0,
            energy: [0.0; 2],
            energy_mv: crate::data::zeros(m.nv),
            warning: [WarningStat::default(); NWARNING],
            ncon: 0,
            nefc: 0,
            ne: 0,
            nf: 0,
            nl: 0,
            contact: crate::data::zeros(room),
            maxcon,
            maxefc,
            efc_limit,
            nnz_limit,
            solver_niter: 0,
            a,
            scratch: crate::engine::slot::Slot::new(crate::engine::Scratch::new(m, room, maxefc)),
        };
        d.reset(m);
        d
    }

    /// Grows the constraint buffers to hold `rows` rows and `nnz` Jacobian nonzeros (at least
    /// doubling what they hold, within `efc_limit` and `nnz_limit`); false when that is past
    /// the limits. MuJoCo keeps its rows in an arena sized for the model; flexlab sizes them for
    /// the contacts a step usually keeps, and a scene with more (a geom resting on many bodies)
    /// grows them once rather than dropping rows MuJoCo keeps.
    #[cold]
    pub fn grow_rows(&mut self, rows: usize, nnz: usize) -> bool {
        if rows > self.efc_limit || nnz > self.nnz_limit {
            return false;
        }
        if rows > self.maxefc {
            let n = rows.max(2 * self.maxefc).min(self.efc_limit);
            self.a.resize_rows(n);
            self.maxefc = n;
        }
        if nnz > self.a.efc_J.len() {
            let n = nnz.max(2 * self.a.efc_J.len()).min(self.nnz_limit);
            self.a.efc_J.resize(n, 0.0);
            self.a.efc_J_colind.resize(n, 0);
        }
        true
    }

    /// Resets the state to the model's reference configuration (`mj_resetData`).
    pub fn reset(&mut self, m: &Model) {
        self.time = 0.0;
        self.energy = [0.0; 2];
        self.warning = [WarningStat::default(); NWARNING];
        self.ncon = 0;
        self.nefc = 0;
        self.ne = 0;
        self.nf = 0;
        self.nl = 0;
        self.solver_niter = 0;
        let a = &mut self.a;
        a.qpos.copy_from_slice(&m.qpos0);
        for v in [
            &mut a.qvel,
            &mut a.act,
            &mut a.qacc_warmstart,
            &mut a.ctrl,
            &mut a.qfrc_applied,
            &mut a.xfrc_applied,
            &mut a.qacc,
            &mut a.act_dot,
            &mut a.subtree_linvel,
            &mut a.subtree_angmom,
            &mut a.cacc,
            &mut a.cfrc_int,
            &mut a.cfrc_ext,
            &mut a.sensordata,
        ] {
            v.iter_mut().for_each(|x| *x = 0.0);
        }
        // mocap bodies start at their model pose
        for b in 0..m.nbody {
            let id = m.body_mocapid[b];
            if id >= 0 {
                let id = id as usize;
                a.mocap_pos[3 * id..3 * id + 3].copy_from_slice(&m.body_pos[3 * b..3 * b + 3]);
                a.mocap_quat[4 * id..4 * id + 4].copy_from_slice(&m.body_quat[4 * b..4 * b + 4]);
            }
        }
    }

    /// Resets to keyframe `k` (`mj_resetDataKeyframe`).
    pub fn reset_keyframe(&mut self, m: &Model, k: usize) {
        self.reset(m);
        if k >= m.nkey {
            return;
        }
        self.time = m.key_time[k];
        self.a
            .qpos
            .copy_from_slice(&m.key_qpos[k * m.nq..(k + 1) * m.nq]);
        self.a
            .qvel
            .copy_from_slice(&m.key_qvel[k * m.nv..(k + 1) * m.nv]);
        self.a
            .ctrl
            .copy_from_slice(&m.key_ctrl[k * m.nu..(k + 1) * m.nu]);
        self.a
            .act
            .copy_from_slice(&m.key_act[k * m.na..(k + 1) * m.na]);
        let nm = m.nmocap;
        self.a
            .mocap_pos
            .copy_from_slice(&m.key_mpos[3 * k * nm..3 * (k + 1) * nm]);
        self.a
            .mocap_quat
            .copy_from_slice(&m.key_mquat[4 * k * nm..4 * (k + 1) * nm]);
    }

    /// Copies the simulation state (not the scratch) from another data of the same model.
    pub fn copy_state_from(&mut self, other: &Data) {
        self.time = other.time;
        self.a.qpos.copy_from_slice(&other.a.qpos);
        self.a.qvel.copy_from_slice(&other.a.qvel);
        self.a.act.copy_from_slice(&other.a.act);
        self.a
            .qacc_warmstart
            .copy_from_slice(&other.a.qacc_warmstart);
        self.a.ctrl.copy_from_slice(&other.a.ctrl);
        self.a.qfrc_applied.copy_from_slice(&other.a.qfrc_applied);
        self.a.xfrc_applied.copy_from_slice(&other.a.xfrc_applied);
        self.a.mocap_pos.copy_from_slice(&other.a.mocap_pos);
        self.a.mocap_quat.copy_from_slice(&other.a.mocap_quat);
        self.a.qacc.copy_from_slice(&other.a.qacc);
    }

    /// Non-zeros used by the current constraint Jacobian.
    pub fn efc_nnz(&self) -> usize {
        if self.nefc == 0 {
            0
        } else {
            (self.a.efc_J_rowadr[self.nefc - 1] + self.a.efc_J_rownnz[self.nefc - 1]) as usize
        }
    }

    /// Records a warning (`mj_warning`).
    pub fn warn(&mut self, w: Warning, info: i32) {
        let s = &mut self.warning[w as usize];
        s.lastinfo = info;
        s.number += 1;
    }

    /// A data array by its MuJoCo name; rows beyond the current counts are trimmed.
    pub fn field(&self, name: &str) -> Option<FieldRef<'_>> {
        let f = self.a.field(name)?;
        Some(match (name, f) {
            ("efc_J", FieldRef::F64(s, c)) | ("efc_J_colind", FieldRef::F64(s, c)) => {
                FieldRef::F64(&s[..self.efc_nnz().min(s.len())], c)
            }
            ("efc_J_colind", FieldRef::I32(s, c)) => {
                FieldRef::I32(&s[..self.efc_nnz().min(s.len())], c)
            }
            (n, FieldRef::F64(s, c)) if n.starts_with("efc_") => {
                FieldRef::F64(&s[..self.nefc * c], c)
            }
            (n, FieldRef::I32(s, c)) if n.starts_with("efc_") => {
                FieldRef::I32(&s[..self.nefc * c], c)
            }
            (_, f) => f,
        })
    }
}
