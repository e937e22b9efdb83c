//! The effective metric of MuJoCo 3.15.0's discrete integrator, `M̃ = M + h·D + h²·K`
//! (`engine_metric.c`): built at the position stage, shifted at the velocity stage, and used to
//! solve `M̃·a = f − h·K·v` for the smooth acceleration with a preconditioned CG.
//!
//! The stiffness of simple flexes is applied as an assembled block matrix ([`FlexCsr`]), that of
//! other flexes matrix-free (gather → local Hessian → scatter), as MuJoCo does for general
//! attachments; the velocity shift is matrix-free on every flex, as in MuJoCo. The
//! preconditioner is MuJoCo's: the Cholesky-factored 3×3 diagonal blocks of `M + K` for the
//! slide triples of simple flexes, and the backbone `M + diag(efm_diag)` on every other dof.
//!
//! Every sum here is formed in MuJoCo 3.15.0's order and rounding (the assembly, the block
//! product, the factor and the triangular solves): the PCG and the CG solver stop where their
//! residuals cross a tolerance, so a last-bit difference in any of them moved the stopping
//! iterate, and a draped cloth parted from MuJoCo within a few hundred steps. With the same
//! roundings the 30×30 cloth on a sphere follows MuJoCo bit for bit through its contacts.
//!
//! [`FlexCsr`]: super::flexcsr::FlexCsr

use super::elastic::{flex_hessian, hessian_mul, VertJac};
use super::inertia::{factor_i, mul_m, solve_ld};
use super::lanes::F64x2;
use super::solver::dot_mj_slices as dot;
use super::Scratch;
use crate::data::{Data, Warning};
use crate::flexkind::{
    flex_contact_possible, flex_metric_possible, flex_simple, flex_stiffness_possible,
};
use crate::math::{get_at, MINVAL};
use crate::model::{disable, Integrator, Model};
use std::ops::{Add, Div, Mul, Sub};

/// Per-step metric state (MuJoCo's `efm_*` arena objects), sized once per model.
#[derive(Debug, Clone, Default)]
pub struct MetricState {
    /// The metric is in use this step (`efm_active`): integrator is discrete.
    pub active: bool,
    /// Some dof has joint damping or stiffness, so `efm_diag` and the `qH` backbone exist.
    pub has_diag: bool,
    /// Some flex has metric terms, so the smooth solve iterates.
    pub any_flex: bool,
    /// `h·D + h²·K` per dof, clamped PSD (`efm_diag`, 1/s·kg-like units of M).
    pub efm_diag: Vec<f64>,
    /// `efm_diag` plus this step's actuator terms (MuJoCo's `efm_sdiag`): the whole backbone
    /// diagonal that the island solves, the row scaling, Newton and the free bodies read.
    pub efm_sdiag: Vec<f64>,
    /// This step's actuator terms `(dof, (h²·kp + h·kv)·gear²)`: the operator adds them after
    /// the joints' part and `qH` after `M + efm_diag`, as MuJoCo 3.15.0 does.
    act_terms: Vec<(usize, f64)>,
    /// `h·k` of the joint springs per dof (`efm_ck`).
    pub efm_ck: Vec<f64>,
    /// The smooth-force shift `−h·K·v` (`efm_c`, N or N·m per dof).
    pub efm_c: Vec<f64>,
    /// The actuators' part of the velocity shift, `−h·kp·v·gear` per driven dof (MuJoCo's
    /// `efm_ca`): kept apart from `efm_c` because MuJoCo 3.15.0 adds it to the right-hand side
    /// after `qfrc_smooth + efm_c`.
    pub efm_ca: Vec<f64>,
    /// Some actuator may add a metric term (an affine gain or bias).
    any_actuator: bool,
    /// Flexes whose standard stiffness enters the metric.
    pub flex_on: Vec<bool>,
    /// `h² + h·flex_damping` per flex (0 parts when springs or dampers are disabled).
    pub flex_scale: Vec<f64>,
    /// Assembled stiffness of the simple flexes (their operator and Newton matrix).
    pub csr: super::flexcsr::FlexCsr,
    /// Cholesky factors (lower, row-major) of the covered 3×3 blocks of `M + K`, 9 per block
    /// (MuJoCo's `efm_L`).
    pub blocks: Vec<f64>,
    /// First dof of each covered triple (`efm_dofid`).
    pub block_dof: Vec<usize>,
    /// Number of covered triples (`nefmdof`).
    pub nblock: usize,
    /// Whether this step's product uses the assembled flex blocks (`csr`): MuJoCo 3.15.0
    /// assembles them only when [`build`] finds reason to.
    pub csr_on: bool,
    /// Passive flex contact rows (`efm_con_*`): per row the contact id, the metric scale
    /// `h²·k`, the normal force `−k·min(dist, 0)` (N) and its slice of `con_ind`/`con_val`.
    pub con: Vec<PassiveRow>,
    pub con_ind: Vec<usize>,
    pub con_val: Vec<f64>,
    /// PCG iterations of the last smooth solve, and its relative residual.
    pub iterations: usize,
    pub residual: f64,
    r: Vec<f64>,
    z: Vec<f64>,
    p: Vec<f64>,
    ap: Vec<f64>,
    rhs: Vec<f64>,
    gw: Vec<f64>,
    gr: Vec<f64>,
    slot: Vec<i32>,
}

/// MuJoCo 3.15.0's constant metric factor `efm0` (`mj_setConst`'s `setEfm0Factor`, made by
/// the compiler's `set_const`): the factor of `M + (h² + h·β)·K_bend` over the dofs of the
/// vertices with joints of the dim-2, non-rigid, non-interpolated flexes with bending
/// (`efm0_dofid`), with the point mass and armature on the diagonal and only same-coordinate
/// couplings, at the model's timestep. When no vertex triple is covered by the per-step blocks
/// (`nefmdof == 0`: bending-only flexes under CG), `effBlockApply` solves with it on those dofs
/// instead of the backbone, so CG's preconditioner (and the smooth PCG's) is the exact inverse
/// of the metric there.
#[derive(Debug, Clone, Default)]
pub struct Efm0 {
    /// `efm0_dofid` as indices: the factor's rows.
    pub dofs: Vec<usize>,
    /// MuJoCo's reverse Cholesky factor `efm0_L` (`H = Lᵀ·L`) in compact rows.
    pub l: super::rchol::RevChol,
    /// Each entry's column of `l` as the dof it stands for.
    pub coldof: Vec<i32>,
}

impl Efm0 {
    /// `x[dofs] = (M + s·K_bend)⁻¹·b[dofs]`; no other entry of `x` is read or written.
    fn solve(&self, x: &mut [f64], b: &[f64]) {
        for &i in &self.dofs {
            x[i] = b[i];
        }
        self.l.solve_at(x, &self.dofs, &self.coldof);
    }
}

/// One passive-contact row of the metric (MuJoCo's packed `efm_con` row).
#[derive(Debug, Clone, Copy, Default)]
pub struct PassiveRow {
    pub contact: usize,
    pub scale: f64,
    pub force: f64,
    pub adr: usize,
    pub nnz: usize,
}

/// `mjFLEXCONTACT_OMEGA2`: squared natural frequency of the passive contact penalty (1/s²).
pub const PASSIVE_OMEGA2: f64 = 5e7;

impl MetricState {
    /// This step's actuator terms `(dof, (h²·g_p + h·g_v)·gear²)` in the order they were added.
    pub fn act_terms(&self) -> &[(usize, f64)] {
        &self.act_terms
    }

    #[cold]
    pub fn new(m: &Model) -> Self {
        let nv = m.nv;
        let maxv = (0..m.nflex)
            .map(|f| m.flex_vertnum[f] as usize)
            .max()
            .unwrap_or(0);
        let nslot = nv / 3 + 1;
        MetricState {
            active: false,
            has_diag: false,
            any_flex: false,
            efm_diag: crate::data::zeros::<f64>(nv),
            efm_sdiag: crate::data::zeros::<f64>(nv),
            act_terms: crate::data::with_capacity(m.nu),
            efm_ck: crate::data::zeros::<f64>(nv),
            efm_c: crate::data::zeros::<f64>(nv),
            efm_ca: crate::data::zeros::<f64>(nv),
            any_actuator: (0..m.nu)
                .any(|i| m.actuator_gaintype[i] == 1 || m.actuator_biastype[i] == 1),
            flex_on: crate::data::zeros(m.nflex),
            flex_scale: crate::data::zeros::<f64>(m.nflex),
            blocks: crate::data::zeros::<f64>(9 * nslot),
            block_dof: crate::data::zeros(nslot),
            nblock: 0,
            csr_on: false,
            csr: super::flexcsr::FlexCsr::new(
                m,
                &(0..m.nflex)
                    .map(|f| m.flex_interp[f] == 0 && flex_stiffness_possible(m, f))
                    .collect::<Vec<_>>(),
            ),
            con: crate::data::with_capacity(64),
            con_ind: crate::data::with_capacity(64 * 12),
            con_val: crate::data::with_capacity(64 * 12),
            iterations: 0,
            residual: 0.0,
            r: crate::data::zeros::<f64>(nv),
            z: crate::data::zeros::<f64>(nv),
            p: crate::data::zeros::<f64>(nv),
            ap: crate::data::zeros::<f64>(nv),
            rhs: crate::data::zeros::<f64>(nv),
            gw: crate::data::zeros::<f64>(3 * maxv),
            gr: crate::data::zeros::<f64>(3 * maxv),
            slot: vec![-1; m.nbody],
        }
    }
}

/// Joint-spring stiffness per dof, `h·max(0, k)` (`effDiagStiff`).
fn diag_stiff(m: &Model, ck: &mut [f64]) {
    ck.fill(0.0);
    if m.opt.disabled(disable::SPRING) {
        return;
    }
    let h = m.opt.timestep;
    for j in 0..m.njnt {
        let k = m.jnt_stiffness[j];
        if k == 0.0 {
            continue;
        }
        let dadr = m.jnt_dofadr[j] as usize;
        let n = crate::model::jnt_dofnum(m.jnt_type[j]);
        ck[dadr..dadr + n].fill(h * k.max(0.0));
    }
}

/// Position stage (`mj_effBuild`): decides what the metric holds this step and factors the
/// block preconditioner.
pub fn build(m: &Model, d: &mut Data, s: &mut Scratch) {
    let ms = &mut s.metric;
    ms.active = m.opt.integrator == Integrator::Discrete;
    ms.nblock = 0;
    ms.csr_on = false;
    if !ms.active {
        return;
    }
    // interpolated flexes: corotated element blocks at this step's positions
    super::interp::build(m, d, &mut s.interp);
    let ms = &mut s.metric;
    let h = m.opt.timestep;
    // efm_ck, efm_diag and has_diag were set by `prepare_diag` at the start of the stage
    let (s1, s2) = stiffness_scales(m);
    ms.any_flex = false;
    for f in 0..m.nflex {
        ms.any_flex = ms.any_flex || flex_metric_possible(m, f);
        ms.flex_on[f] = m.flex_interp[f] == 0 && flex_stiffness_possible(m, f);
        ms.flex_scale[f] = s1 + s2 * m.flex_damping[f];
    }

    if ms.csr.nslot() > 0 {
        let mut csr = std::mem::take(&mut ms.csr);
        csr.assemble(m, d, &mut s.elastic, &s.metric.flex_scale);
        s.metric.csr = csr;
    }
    let ms = &mut s.metric;
    ms.con.clear();
    ms.con_ind.clear();
    ms.con_val.clear();
    if !m.opt.disabled(disable::SPRING) || !m.opt.disabled(disable::DAMPER) {
        contact_rows(m, d, s, h * h);
    }
    let ms = &mut s.metric;

    // MuJoCo assembles (and blocks) the simple flexes when any of them has stretch stiffness or
    // passive contact, and under Newton whenever one has any stiffness
    let stretch = |f: usize| {
        let a = m.flex_stiffnessadr[f];
        a >= 0 && m.flex_stiffness[a as usize] != 0.0 && m.flex_edgeequality[f] != 3
    };
    let assemble = (0..m.nflex)
        .any(|f| (ms.flex_on[f] && flex_simple(m, f) && stretch(f)) || flex_contact_possible(m, f))
        || (m.opt.solver == crate::model::Solver::Newton
            && (0..m.nflex).any(|f| ms.flex_on[f] && flex_simple(m, f)))
        || super::interp::assembles(m);
    ms.csr_on = assemble;
    if !assemble {
        return;
    }
    let _ = build_blocks(m, d, s);
}

/// The weights of a flex's stiffness in the metric, `s1 + s2·β` with β its damping (s²): `h²`
/// from the springs and `h` from the dampers, each 0 when its flag disables it. MuJoCo 3.15.0
/// applies the flags also to the constant bending factor `efm0` it makes at compile time (built
/// at h² + h·β regardless, flexlab's was 1.0e-7 m off in 1.6 s with the springs disabled:
/// reference `discrete_cg_bend_nospring`).
pub fn stiffness_scales(m: &Model) -> (f64, f64) {
    let h = m.opt.timestep;
    let s1 = if m.opt.disabled(disable::SPRING) {
        0.0
    } else {
        h * h
    };
    let s2 = if m.opt.disabled(disable::DAMPER) {
        0.0
    } else {
        h
    };
    (s1, s2)
}

/// Point mass of a flex vertex: the diagonal of M at its body's first dof when that body has
/// exactly three dofs, else 0 (`mjd_flexVertMass`). The vertices of an interpolated flex have no
/// body (`flex_vertbodyid` −1) and weigh 0 here, as in MuJoCo 3.15.0 (whose function reads past
/// the start of `body_weldid` for them; measured: 0).
fn vert_mass(m: &Model, d: &Data, v: usize) -> f64 {
    let Ok(body) = usize::try_from(m.flex_vertbodyid[v]) else {
        return 0.0;
    };
    let b = m.body_weldid[body] as usize;
    if m.body_dofnum[b] != 3 {
        return 0.0;
    }
    let i = m.body_dofadr[b] as usize;
    d.a.M[(m.M_rowadr[i] + m.M_rownnz[i] - 1) as usize]
}

/// Passive contact stiffness `k = ω²·m_min` over the participating vertices (N/m).
fn contact_stiffness(m: &Model, d: &Data, c: &crate::data::Contact) -> f64 {
    let mut mmin = f64::INFINITY;
    for side in 0..2 {
        if c.flex[side] < 0 {
            continue;
        }
        let f = c.flex[side] as usize;
        let va = m.flex_vertadr[f] as usize;
        let mut visit = |v: usize| {
            let mv = vert_mass(m, d, va + v);
            if mv > 0.0 && mv < mmin {
                mmin = mv;
            }
        };
        if c.vert[side] >= 0 {
            visit(c.vert[side] as usize);
        } else if c.elem[side] >= 0 {
            let dim = m.flex_dim[f] as usize;
            let ea = m.flex_elemdataadr[f] as usize + c.elem[side] as usize * (dim + 1);
            for k in 0..=dim {
                visit(m.flex_elem[ea + k] as usize);
            }
        }
    }
    if mmin.is_finite() {
        PASSIVE_OMEGA2 * mmin
    } else {
        0.0
    }
}

/// Publishes the normal rows of passive contacts (`effContactBuild`).
fn contact_rows(m: &Model, d: &mut Data, s: &mut Scratch, scale: f64) {
    if d.ncon == 0 || !(0..m.nflex).any(|f| flex_contact_possible(m, f)) {
        return;
    }
    let nv = m.nv;
    let mut rs = std::mem::take(&mut s.rows);
    for i in 0..d.ncon {
        if d.contact[i].exclude != 4 {
            continue;
        }
        let c = d.contact[i];
        let k = contact_stiffness(m, d, &c);
        if k <= 0.0 {
            continue;
        }
        let n = super::constraint::normal_row(m, d, &mut rs, &s.vertcols, &c);
        if n == 0 {
            d.contact[i].exclude = 3;
            continue;
        }
        let ms = &mut s.metric;
        let adr = ms.con_ind.len();
        let (ind, val) = super::constraint::normal_row_values(&rs, n);
        ms.con_ind.extend_from_slice(ind);
        ms.con_val.extend_from_slice(val);
        let residual = c.dist.min(0.0);
        ms.con.push(PassiveRow {
            contact: i,
            scale: scale * k,
            force: -k * residual,
            adr,
            nnz: n,
        });
        super::constraint::clear_row(&mut rs, nv);
    }
    s.rows = rs;
}

/// Adds the passive contact forces to `qfrc_spring` (`mj_contactPassive`).
pub fn passive_contact_force(s: &Scratch, qfrc: &mut [f64]) {
    let ms = &s.metric;
    for r in &ms.con {
        for k in 0..r.nnz {
            qfrc[ms.con_ind[r.adr + k]] += r.force * ms.con_val[r.adr + k];
        }
    }
}

/// Raw 3×3 diagonal blocks of `M + Σ scale·K` for the slide triples of simple stiff flexes.
fn build_blocks(m: &Model, d: &mut Data, s: &mut Scratch) -> usize {
    let ms = &mut s.metric;
    ms.slot.fill(-1);
    let mut nb = 0;
    for f in 0..m.nflex {
        if !ms.flex_on[f] || !flex_simple(m, f) {
            continue;
        }
        let va = m.flex_vertadr[f] as usize;
        for v in 0..m.flex_vertnum[f] as usize {
            let b = m.body_weldid[m.flex_vertbodyid[va + v] as usize] as usize;
            if m.body_dofnum[b] != 3 || ms.slot[b] >= 0 {
                continue;
            }
            ms.slot[b] = nb as i32;
            ms.block_dof[nb] = m.body_dofadr[b] as usize;
            nb += 1;
        }
    }
    let nb = super::interp::block_slots(m, &s.interp, &mut ms.slot, &mut ms.block_dof, nb);
    ms.nblock = nb;
    ms.blocks[..9 * nb].fill(0.0);
    for k in 0..nb {
        let i = ms.block_dof[k];
        let blk = &mut ms.blocks[9 * k..9 * k + 9];
        for r in 0..3 {
            let row = i + r;
            let adr = m.M_rowadr[row] as usize;
            for a in adr..adr + m.M_rownnz[row] as usize {
                let c = m.M_colind[a] as usize;
                if c >= i && c < i + 3 {
                    blk[3 * r + (c - i)] += d.a.M[a];
                    if c != row {
                        blk[3 * (c - i) + r] += d.a.M[a];
                    }
                }
            }
        }
    }
    // the flex part of each block: the assembled diagonal stiffness block, scaled
    let csr = &ms.csr;
    for sl in 0..csr.nslot() {
        let dof = csr.slot_dof[sl];
        let k = ms.slot[m.dof_bodyid[dof] as usize];
        if k < 0 {
            continue;
        }
        let k = k as usize;
        if let Some(w) = csr.diag_block(sl) {
            for q in 0..9 {
                ms.blocks[9 * k + q] += w[q];
            }
        }
    }
    super::interp::add_diagonal_blocks(m, &s.interp, &ms.slot, &mut ms.blocks);
    for k in 0..nb {
        let blk = &mut ms.blocks[9 * k..9 * k + 9];
        chol3_factor(blk);
    }
    nb
}

/// In-place Cholesky of a symmetric 3×3 (lower triangle used), MuJoCo's `mju_cholFactor`
/// with its `mjMINVAL` floor on the pivots, in its rounding: each row's products are summed
/// (`mju_dot`) before they are subtracted, and the entries below a pivot are multiplied by the
/// pivot's reciprocal rather than divided by it. A pivot under `mjMINVAL` is raised to it and
/// the entries below it cleared, as 3.15.0's `mju_cholFactor` does.
fn chol3_factor(a: &mut [f64]) {
    for j in 0..3 {
        let mut dot = 0.0;
        for k in 0..j {
            dot += a[3 * j + k] * a[3 * j + k];
        }
        let pivot = a[3 * j + j] - dot;
        let t = pivot.max(MINVAL).sqrt();
        a[3 * j + j] = t;
        if pivot < MINVAL {
            for i in j + 1..3 {
                a[3 * i + j] = 0.0;
            }
            continue;
        }
        let inv = 1.0 / t;
        for i in j + 1..3 {
            let mut dot = 0.0;
            for k in 0..j {
                dot += a[3 * i + k] * a[3 * j + k];
            }
            a[3 * i + j] = (a[3 * i + j] - dot) * inv;
        }
    }
}

/// `(L·Lᵀ)⁻¹·b` for one factored 3×3 block given by its lower entries
/// `[l0, l3, l4, l6, l7, l8]` (row-major indices), in `mju_cholSolve`'s order. Generic so that
/// two blocks can run in the lanes of an [`F64x2`] (each lane the same IEEE operations).
fn chol3_formula<T>(l: [T; 6], b: [T; 3]) -> [T; 3]
where
    T: Copy + Add<Output = T> + Sub<Output = T> + Mul<Output = T> + Div<Output = T>,
{
    let [l0, l3, l4, l6, l7, l8] = l;
    let r0 = b[0] / l0;
    let r1 = (b[1] - l3 * r0) / l4;
    let r2 = (b[2] - (l6 * r0 + l7 * r1)) / l8;
    let r2 = r2 / l8;
    let r1 = (r1 - l7 * r2) / l4;
    let r0 = (r0 - l3 * r1 - l6 * r2) / l0;
    [r0, r1, r2]
}

/// The entries of a factored block that [`chol3_formula`] reads.
const CHOL3_LOWER: [usize; 6] = [0, 3, 4, 6, 7, 8];

/// `res += scale·K_bend·vec` for standard flex `f` (dof vectors), through the vertex map.
#[allow(clippy::too_many_arguments)]
fn bend_mul(
    m: &Model,
    d: &Data,
    ms: &mut MetricState,
    vj: &VertJac,
    f: usize,
    res: &mut [f64],
    vec: &[f64],
    scale: f64,
) {
    if m.flex_dim[f] != 2 || m.flex_bendingadr[f] < 0 || scale == 0.0 {
        return;
    }
    let nvf = m.flex_vertnum[f] as usize;
    let (gw, gr) = (&mut ms.gw[..3 * nvf], &mut ms.gr[..3 * nvf]);
    vj.gather(m, d, f, gw, vec);
    gr.fill(0.0);
    let b = &m.flex_bending[m.flex_bendingadr[f] as usize..];
    let ea = m.flex_edgeadr[f] as usize;
    for e in 0..m.flex_edgenum[f] as usize {
        let Some(st) = super::elastic::bending_stencil(m, ea + e) else {
            continue;
        };
        let bb = &b[17 * e..17 * e + 16];
        let g = st.map(|v| {
            let o = 3 * v as usize;
            [gw[o], gw[o + 1], gw[o + 2]]
        });
        for (i, row) in bb.chunks_exact(4).enumerate() {
            let vi = 3 * st[i] as usize;
            let r = super::elastic::stencil_row(&gr[vi..vi + 3], row, &g);
            gr[vi..vi + 3].copy_from_slice(&r);
        }
    }
    vj.scatter(m, d, f, res, gr, scale);
}

/// `res += scale·K_stretch·vec` for standard flex `f`, with the cached PSD Hessian.
fn stretch_mul(
    m: &Model,
    d: &Data,
    ms: &mut MetricState,
    es: &mut super::elastic::ElasticScratch,
    f: usize,
    res: &mut [f64],
    vec: &[f64],
    scale: f64,
) {
    let sadr = m.flex_stiffnessadr[f];
    if sadr < 0 || m.flex_stiffness[sadr as usize] == 0.0 || m.flex_edgeequality[f] == 3 {
        return;
    }
    if scale == 0.0 {
        return;
    }
    flex_hessian(m, d, es, f);
    let nvf = m.flex_vertnum[f] as usize;
    let (gw, gr) = (&mut ms.gw[..3 * nvf], &mut ms.gr[..3 * nvf]);
    es.vjac.gather(m, d, f, gw, vec);
    gr.fill(0.0);
    // the scale inside the local product and none in the scatter, as MuJoCo's
    // `flexStretch_mul` (the other way round rounds differently)
    hessian_mul(m, es, f, gr, gw, scale);
    es.vjac.scatter(m, d, f, res, gr, 1.0);
}

/// Velocity stage (`mj_effShift`): `efm_c = −h·K·v` and the damping part of `efm_diag`.
pub fn shift(m: &Model, d: &mut Data, s: &mut Scratch) {
    if !s.metric.active {
        return;
    }
    let h = m.opt.timestep;
    let mut c = std::mem::take(&mut s.metric.efm_c);
    c.fill(0.0);
    if !m.opt.disabled(disable::SPRING) {
        // interpolated flexes: efm_c += h·krot·qvel (krot is negative)
        super::interp::shift(m, d, &mut s.interp, &mut c, &d.a.qvel);
        // matrix-free on every flex, assembled or not, as MuJoCo 3.15.0's `mjd_effShift`: the
        // assembled product sums in another order, which parted `efm_c` by its last bits
        for f in 0..m.nflex {
            if !s.metric.flex_on[f] {
                continue;
            }
            bend_mul(
                m,
                d,
                &mut s.metric,
                &s.elastic.vjac,
                f,
                &mut c,
                &d.a.qvel,
                -h,
            );
            stretch_mul(
                m,
                d,
                &mut s.metric,
                &mut s.elastic,
                f,
                &mut c,
                &d.a.qvel,
                -h,
            );
        }
    }
    let ms = &mut s.metric;
    for r in &ms.con {
        let mut dotv = 0.0;
        for k in 0..r.nnz {
            dotv += ms.con_val[r.adr + k] * d.a.qvel[ms.con_ind[r.adr + k]];
        }
        dotv *= -r.scale / h;
        for k in 0..r.nnz {
            c[ms.con_ind[r.adr + k]] += dotv * ms.con_val[r.adr + k];
        }
    }
    if ms.has_diag {
        for i in 0..m.nv {
            c[i] -= ms.efm_ck[i] * d.a.qvel[i];
        }
    }
    ms.efm_c = c;
}

/// Actuation stage (`mj_effActuation`), after the actuator forces: each actuator's term
/// `(h²·g_p + h·g_v)·mᵀm`, `g_p = max(0, −∂f/∂length)` and `g_v = max(0, −∂f/∂velocity)`
/// (none while `forcerange` clamps the force), and its shift `−h·g_p·velocity·mᵀ`. On a
/// hinge or slide joint (the only transmission the compiler lets carry them under discrete)
/// the moment `m` is the gear on one dof, so both are per-dof terms: of `efm_sdiag` (with
/// `act_terms` kept for the operator) and of `efm_ca`. The constraint rows are then rescaled by
/// the new diagonal, and the backbone `qH = (M + efm_diag) + the actuators' terms` is factored
/// in M's sparsity.
pub fn actuation(m: &Model, d: &mut Data, s: &mut Scratch) {
    let ms = &mut s.metric;
    if !ms.active {
        return;
    }
    let mut added = false;
    // `prepare_diag` set efm_sdiag to the joints' diagonal at the start of this forward
    ms.act_terms.clear();
    ms.efm_ca.fill(0.0);
    // read each step, as MuJoCo does: options may change after compiling
    if ms.any_actuator && !m.opt.disabled(disable::ACTUATION) {
        let h = m.opt.timestep;
        for i in 0..m.nu {
            if m.actuator_trntype[i] != 0 {
                continue;
            }
            // the PSD parts of the force's stiffness and damping, of the whole force (gain and
            // bias together) as MuJoCo 3.15.0 clamps them
            let (dlen, dvel) = super::actuation::force_derivatives(m, d, i);
            let (gp, gv) = ((-dlen).max(0.0), (-dvel).max(0.0));
            if gp == 0.0 && gv == 0.0 {
                continue;
            }
            let dof = m.jnt_dofadr[m.actuator_trnid[2 * i] as usize] as usize;
            let gear = m.actuator_gear[6 * i];
            let term = (h * h * gp + h * gv) * gear * gear;
            ms.efm_sdiag[dof] += term;
            ms.act_terms.push((dof, term));
            ms.efm_ca[dof] -= h * gp * d.a.actuator_velocity[i] * gear;
            added = true;
        }
    }
    if added {
        ms.has_diag = true;
        if d.nefc > 0 {
            super::constraint::rescale_rows(m, d, s);
        }
    }
    let ms = &mut s.metric;
    if ms.has_diag {
        // qH = (M + efm_diag) + each actuator's term, in MuJoCo 3.15.0's order: the joints'
        // terms first, the actuators' after (adding their sum to M instead parted qH by an ulp)
        d.a.qH.copy_from_slice(&d.a.M);
        let diag = |i: usize| (m.M_rowadr[i] + m.M_rownnz[i] - 1) as usize;
        for i in 0..m.nv {
            d.a.qH[diag(i)] += ms.efm_diag[i];
        }
        for &(i, term) in &ms.act_terms {
            d.a.qH[diag(i)] += term;
        }
        let (qh, qhd) = (&mut d.a.qH, &mut d.a.qHDiagInv);
        factor_i(m, qh, qhd).warn(d);
    }
}

/// `efm_diag = h·D + h·efm_ck` per dof: joint damping and the joint springs' `h·k` (clamped
/// PSD; the dampers flag respected). The actuators' terms join it in [`actuation`].
fn fill_diag(m: &Model, ms: &mut MetricState) {
    let h = m.opt.timestep;
    let damper = !m.opt.disabled(disable::DAMPER);
    for i in 0..m.nv {
        let damp = if damper {
            m.dof_damping[i].max(0.0)
        } else {
            0.0
        };
        ms.efm_diag[i] = h * damp + h * ms.efm_ck[i];
    }
}

/// Start of the position stage: whether the metric is in use this step (`efm_active`) and,
/// if so, its per-dof diagonal `efm_ck` and `efm_diag` (`h·D + h²·K` of the joints),
/// once per step, before the constraint rows (which scale by it), `build` and `shift` use it.
pub fn prepare_diag(m: &Model, ms: &mut MetricState) {
    ms.active = m.opt.integrator == Integrator::Discrete;
    ms.has_diag = false;
    if !ms.active {
        return;
    }
    diag_stiff(m, &mut ms.efm_ck);
    fill_diag(m, ms);
    ms.has_diag = ms.efm_diag.iter().any(|&e| e != 0.0);
    // until the actuation stage adds its terms, the whole diagonal is the joints'
    ms.efm_sdiag.copy_from_slice(&ms.efm_diag);
}

/// `res += B·vec`, the metric's addition to M (`mj_effMulAdd`).
pub fn mul_add(m: &Model, d: &Data, s: &mut Scratch, res: &mut [f64], vec: &[f64]) {
    let ms = &mut s.metric;
    if ms.has_diag {
        for i in 0..m.nv {
            res[i] += ms.efm_diag[i] * vec[i];
        }
        for &(i, term) in &ms.act_terms {
            res[i] += term * vec[i];
        }
    }
    for r in &ms.con {
        let mut dotv = 0.0;
        for k in 0..r.nnz {
            dotv += ms.con_val[r.adr + k] * vec[ms.con_ind[r.adr + k]];
        }
        dotv *= r.scale;
        for k in 0..r.nnz {
            res[ms.con_ind[r.adr + k]] += dotv * ms.con_val[r.adr + k];
        }
    }
    // without the assembly (CG with bending-only flexes) MuJoCo applies the flexes matrix-free,
    // and its sums round otherwise than the assembled blocks'
    if ms.csr_on {
        ms.csr.mul_add(res, vec);
    }
    for f in 0..m.nflex {
        if !ms.flex_on[f] || (ms.csr_on && ms.csr.covered[f]) {
            continue;
        }
        let scale = ms.flex_scale[f];
        bend_mul(m, d, ms, &s.elastic.vjac, f, res, vec, scale);
        stretch_mul(m, d, ms, &mut s.elastic, f, res, vec, scale);
    }
    // interpolated flexes: res += (h² + h·β)·K·vec
    super::interp::mul_add(m, d, &mut s.interp, res, vec);
}

/// The preconditioner (`effBlockApply`): factored blocks on covered triples, the backbone on the
/// rest (covered entries zeroed first, which keeps the operator symmetric).
pub fn precondition(m: &Model, d: &Data, ms: &MetricState, x: &mut [f64], b: &[f64]) {
    let nv = m.nv;
    let blocks = &ms.blocks;
    // bending-only: the constant factor on its dofs (`flg_bend`)
    let bend = m.efm0.as_ref().filter(|_| ms.nblock == 0);
    if 3 * ms.nblock == nv && bend.is_none() {
        chol3_solve_all(&ms.block_dof[..ms.nblock], blocks, x, b);
        return;
    }
    x.copy_from_slice(b);
    for k in 0..ms.nblock {
        let i = ms.block_dof[k];
        x[i..i + 3].fill(0.0);
    }
    if let Some(e) = bend {
        for &i in &e.dofs {
            x[i] = 0.0;
        }
    }
    if ms.has_diag {
        solve_ld(m, &d.a.qH, &d.a.qHDiagInv, x);
    } else {
        solve_ld(m, &d.a.qLD, &d.a.qLDiagInv, x);
    }
    chol3_solve_all(&ms.block_dof[..ms.nblock], blocks, x, b);
    if let Some(e) = bend {
        e.solve(x, b);
    }
}

/// `x = B⁻¹·b` on every block, by the triangular solves of its factor ([`chol3_formula`]), as
/// MuJoCo's `mju_cholSolve` does: the preconditioner's rounding steers the PCG's and the CG's
/// iterates, and a product with the inverted blocks (no division chain, but other roundings)
/// parted a falling tet box from MuJoCo by 1e-13 m/s² in its first `qacc_smooth`.
fn chol3_solve_all(block_dof: &[usize], blocks: &[f64], x: &mut [f64], b: &[f64]) {
    // two blocks at a time, one per lane: the solve is a chain of six divisions, and a lane
    // pair divides two blocks for the price of one
    let pairs = block_dof.chunks_exact(2).zip(blocks.chunks_exact(18));
    for (ij, v) in pairs {
        let (i, j) = (ij[0], ij[1]);
        let l = CHOL3_LOWER.map(|q| F64x2::new(v[q], v[9 + q]));
        let (bi, bj): ([f64; 3], [f64; 3]) = (get_at(b, i), get_at(b, j));
        let r = chol3_formula(l, [0, 1, 2].map(|c| F64x2::new(bi[c], bj[c])));
        let r = r.map(F64x2::lanes);
        *x[i..].first_chunk_mut::<3>().unwrap() = r.map(|l| l[0]);
        *x[j..].first_chunk_mut::<3>().unwrap() = r.map(|l| l[1]);
    }
    if block_dof.len() % 2 == 1 {
        let k = block_dof.len() - 1;
        let (i, v) = (block_dof[k], &blocks[9 * k..9 * k + 9]);
        let r = chol3_formula(CHOL3_LOWER.map(|q| v[q]), get_at(b, i));
        x[i..i + 3].copy_from_slice(&r);
    }
}

/// Solves `M̃·x = b` to `opt.tolerance` (`mj_effSolve`); `x` and `b` are dof vectors. The PCG
/// starts from `x = 0`, not from the last step's solution, and sums its dot products in
/// `mju_dot`'s order, as MuJoCo 3.15.0 does: both decide where it stops, and a warm start
/// parted the two engines by 1e-9 m within a second on pinned cloths and tets.
pub fn solve(m: &Model, d: &mut Data, s: &mut Scratch, x: &mut [f64], b: &[f64]) {
    let nv = m.nv;
    s.metric.iterations = 0;
    s.metric.residual = 0.0;
    // MuJoCo 3.15.0's mjd_effSolve runs its PCG whenever the metric holds more than the
    // backbone's diagonal: flex terms or actuator terms (those sit in qH too, yet the PCG's
    // first step rescales the exact answer by rz/pAp, which can differ from 1 by an ulp)
    if !s.metric.any_flex && s.metric.act_terms.is_empty() {
        precondition(m, d, &s.metric, x, b);
        return;
    }
    let mut r = std::mem::take(&mut s.metric.r);
    let mut z = std::mem::take(&mut s.metric.z);
    let mut p = std::mem::take(&mut s.metric.p);
    let mut ap = std::mem::take(&mut s.metric.ap);
    let bn = dot(b, b);
    r.copy_from_slice(b);
    x.fill(0.0);
    if bn > MINVAL {
        let tol = m.opt.tolerance * m.opt.tolerance * bn;
        let mut capped = true;
        precondition(m, d, &s.metric, &mut z, &r);
        p.copy_from_slice(&z);
        let mut rz = dot(&r, &z);
        let mut it = 0;
        while it < m.opt.max_iterations() {
            it += 1;
            mul_m(m, &d.a.M, &p, &mut ap);
            mul_add(m, d, s, &mut ap, &p);
            let pap = dot(&p, &ap);
            if pap <= 0.0 {
                capped = false;
                break;
            }
            let alpha = rz / pap;
            for (x, &p) in x[..nv].iter_mut().zip(&p[..nv]) {
                *x += alpha * p;
            }
            for (r, &ap) in r[..nv].iter_mut().zip(&ap[..nv]) {
                *r -= alpha * ap;
            }
            if dot(&r, &r) < tol {
                capped = false;
                break;
            }
            precondition(m, d, &s.metric, &mut z, &r);
            let rznew = dot(&r, &z);
            let beta = rznew / rz;
            for (p, &z) in p[..nv].iter_mut().zip(&z[..nv]) {
                *p = z + beta * *p;
            }
            rz = rznew;
        }
        let rr = dot(&r, &r);
        s.metric.iterations = it;
        s.metric.residual = (rr / bn).sqrt();
        if capped && rr >= tol {
            let worst = (0..nv)
                .max_by(|&a, &b| r[a].abs().total_cmp(&r[b].abs()))
                .unwrap_or(0);
            d.warn(Warning::Inertia, worst as i32);
        }
    }
    s.metric.r = r;
    s.metric.z = z;
    s.metric.p = p;
    s.metric.ap = ap;
}

/// Smooth acceleration under the metric: `qacc_smooth = M̃⁻¹·(qfrc_smooth + efm_c + efm_ca)`.
pub fn solve_smooth(m: &Model, d: &mut Data, s: &mut Scratch) {
    let mut rhs = std::mem::take(&mut s.metric.rhs);
    for i in 0..m.nv {
        rhs[i] = (d.a.qfrc_smooth[i] + s.metric.efm_c[i]) + s.metric.efm_ca[i];
    }
    let mut x = std::mem::take(&mut d.a.qacc_smooth);
    solve(m, d, s, &mut x, &rhs);
    d.a.qacc_smooth = x;
    s.metric.rhs = rhs;
}

/// The end of the constraint stage under the metric (`mj_discreteGyro`, called by MuJoCo
/// 3.15.0's `mj_fwdConstraint`): a standalone free body with no constraint row on it takes the
/// local gyroscopic solve, written into `qacc` itself, so that `qacc` after `forward` and the
/// next step's warm start (`qacc_warmstart`) are MuJoCo's (checked against it with and without
/// contacts).
pub fn discrete_gyro(m: &Model, d: &mut Data, s: &mut Scratch) {
    if s.free.bodies.is_empty() {
        // the usual flex scene: nothing to solve, no right-hand side to gather
        return;
    }
    // the smooth force with the metric's shifts, as for qacc_smooth (no constraint row reaches
    // a body solved here)
    let mut rhs = std::mem::take(&mut s.qfrc_tmp);
    for i in 0..m.nv {
        rhs[i] = (d.a.qfrc_smooth[i] + s.metric.efm_c[i]) + s.metric.efm_ca[i];
    }
    let mut qacc = std::mem::take(&mut d.a.qacc);
    s.free
        .local_solve(m, d, &rhs, &mut qacc, Some(&s.metric.efm_sdiag));
    d.a.qacc = qacc;
    s.qfrc_tmp = rhs;
}

/// Discrete integration (`mj_discrete`): `qacc` is the step map `(v⁺ − v)/h` (the free bodies'
/// gyroscopic solve already in it, [`discrete_gyro`]).
pub fn discrete(m: &Model, d: &mut Data, s: &mut Scratch) {
    let mut qacc = std::mem::take(&mut s.qacc_tmp);
    qacc.copy_from_slice(&d.a.qacc);
    super::integrator::advance(m, d, &qacc, None);
    s.qacc_tmp = qacc;
}

/// Calls `emit(row, col, value)` for every dof-space entry of the metric's coupling part: the
/// assembled flex stiffness `efm_K` (interpolated flexes, then `Σ scale·(K_bend + K_stretch)` of
/// the simple flexes, both triangles of off-diagonal blocks), then the passive contacts' rank-1
/// terms `h²k·r·rᵀ`, for solvers that need it as a matrix (Newton). The order is the one in
/// which 3.15.0's `mj_solPrimal` sums each entry of S (`efm_K` first, then the rank-1 terms of
/// `mjd_effRank1Next`): with the contacts first, `passive_gap` parted from MuJoCo in the first
/// Newton iteration of step 39, by an ulp of the Hessian.
pub fn for_each_coupling_entry(s: &Scratch, emit: &mut dyn FnMut(usize, usize, f64)) {
    super::interp::for_each_entry(&s.interp, emit);
    let csr = &s.metric.csr;
    for sl in 0..csr.nslot() {
        if s.metric.flex_scale[csr.slot_flex[sl]] == 0.0 {
            continue;
        }
        let dr = csr.slot_dof[sl];
        for k in csr.row[sl]..csr.row[sl + 1] {
            let dc = csr.slot_dof[csr.col[k]];
            let blk = csr.block(k);
            for r in 0..3 {
                for c in 0..3 {
                    emit(dr + r, dc + c, blk[3 * r + c]);
                }
            }
        }
    }
    let ms = &s.metric;
    for r in &ms.con {
        let (ind, val) = (
            &ms.con_ind[r.adr..r.adr + r.nnz],
            &ms.con_val[r.adr..r.adr + r.nnz],
        );
        for (&i, &vi) in ind.iter().zip(val) {
            for (&j, &vj) in ind.iter().zip(val) {
                emit(i, j, r.scale * vi * vj);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The metric's 3×3 block factor is `mju_cholFactor` (`dense_chol::factor`) bit for bit,
    /// also where a pivot falls under mjMINVAL, is raised to it and its column cleared.
    #[test]
    fn chol3_factor_is_mju_chol_factor() {
        let cases = [
            [4.0, 1.0, 0.5, 1.0, 3.0, 0.2, 0.5, 0.2, 1.0],
            // the second pivot is zero
            [1.0, 1.0, 0.3, 1.0, 1.0, 0.7, 0.3, 0.7, 2.0],
            // the first pivot is zero
            [0.0, 0.0, 0.0, 0.0, 2.0, 0.5, 0.0, 0.5, 1.0],
        ];
        for c in cases {
            let (mut ours, mut theirs) = (c, c);
            chol3_factor(&mut ours);
            super::super::dense_chol::factor(&mut theirs, 3, MINVAL);
            for i in 0..3 {
                for j in 0..=i {
                    let (a, b) = (ours[3 * i + j], theirs[3 * i + j]);
                    assert_eq!(a.to_bits(), b.to_bits(), "{c:?}: L[{i},{j}] {a:e} vs {b:e}");
                }
            }
        }
    }
}
