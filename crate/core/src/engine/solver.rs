//! Constraint solvers (MuJoCo's `engine_solver.c`): the primal solvers CG and Newton minimize
//! `½(a − a_s)ᵀ M̃ (a − a_s) + s(J·a − aref)` with an exact line search on the piecewise
//! quadratic cost (M̃ is M, or the effective metric under the discrete integrator); PGS solves
//! the dual.
//!
//! Without the metric, all three solve each constraint island on its own (`mj_island`,
//! `mj_sol*_island`), and CG and Newton are MuJoCo 3.15.0's `mj_solPrimal`: its line search,
//! Hager–Zhang directions, zero-iteration certificate, island scale and stopping tests, with
//! MuJoCo's summation orders, so they follow MuJoCo's iterates. Under the discrete integrator
//! the metric couples dofs outside the rows and MuJoCo solves the whole model at once, from a
//! start that its islands still shape; that path follows MuJoCo's iterates in the scenes checked
//! (see README, "Random scenes", for what is still open).

use super::constraint::{self, kind, state};
use super::dense_chol;
use super::inertia::{is_simple_run, mul_m, solve_ld};
use super::island::{bucket, Islands as Island};
use super::newton_dense::{IslandRef, MetricTerms};
use super::{metric, Scratch};
use crate::data::Data;
use crate::math::MINVAL;
use crate::model::{disable, Model, Solver};

/// Solver buffers, sized once from the model and the row capacity.
#[derive(Debug, Clone, Default)]
pub struct SolverScratch {
    /// Under discrete with a diagonal metric only (no flex terms): CG's preconditioner is the
    /// backbone `M + diag(h·D + h²·K)` factored as `qH` rather than M's `qLD`.
    backbone_diag: bool,
    /// The same metric as the products apply it (`mjd_effMulAddIsland`): the joints' diagonal
    /// `efm_diag`, then each actuator's term on its dof, one addition each.
    metric_joint: Vec<f64>,
    metric_act: Vec<(usize, f64)>,
    a: Vec<f64>,
    ma: Vec<f64>,
    mv: Vec<f64>,
    f: Vec<f64>,
    grad: Vec<f64>,
    mgrad: Vec<f64>,
    mgrad_old: Vec<f64>,
    search: Vec<f64>,
    tmp: Vec<f64>,
    qfrc: Vec<f64>,
    jar: Vec<f64>,
    jv: Vec<f64>,
    /// Newton: each island's Hessian as MuJoCo forms it, in a dense model or a sparse one
    /// (`dense_on`, `sparse_on`: which this solve uses).
    dense: super::newton_dense::DenseHessian,
    dense_on: bool,
    sparse: super::newton_sparse::SparseHessian,
    sparse_on: bool,
    /// Newton under discrete: the metric's part `S` of the Hessian, its diagonal
    /// (`efm_sdiag`) and, for a metric that couples dofs, its entries (lower triangle).
    newton_diag: Vec<f64>,
    newton_entries: Vec<(u32, u32, f64)>,
    /// Island-local index of each dof of the island being solved (`NONE` for every other dof:
    /// MuJoCo solves an island on its own block of J, without the columns of dofs outside it).
    local: Vec<usize>,
    /// PGS: `AR` (`efc_AR`) of this step's rows.
    dual: super::dualmat::DualMatrix,
    /// PGS: `AR·f` for the warm start's cost.
    arf: Vec<f64>,
    force: Vec<f64>,
    /// PGS: forces before the last extrapolation, after it, and the block starts.
    pgs_prev: Vec<f64>,
    pgs_momentum: Vec<f64>,
    pgs_blocks: Vec<usize>,
    /// This step's constraint islands.
    islands: Island,
    /// Primal solver: `0..nv` and `0..maxefc` (the dofs and rows of a monolithic solve), the
    /// line search's per-row quadratics (3 per row; an elliptic contact's first row uses 9),
    /// the row states before the last step, and CG's gradient differences.
    all_dofs: Vec<usize>,
    all_rows: Vec<usize>,
    quad: Vec<f64>,
    oldstate: Vec<i32>,
    /// The rows' states at `qacc_smooth` (the warm start's last update): what MuJoCo 3.15.0
    /// leaves in `efc_state` after solving islands, whose states stay in its island copies.
    smooth_state: Vec<i32>,
    /// Whether each row is one of the rows being solved (the island's, or all of them).
    in_part: Vec<bool>,
    graddif: Vec<f64>,
    mgraddif: Vec<f64>,
    /// The rows' Jacobian by columns.
    jt: JacT,
}

impl SolverScratch {
    /// Buffers for model `m` with room for `maxefc` constraint rows.
    #[cold]
    pub fn new(m: &Model, maxefc: usize) -> Self {
        let nv = m.nv;
        let z = |n: usize| crate::data::zeros::<f64>(n);
        let mut s = SolverScratch {
            // capacity for the metric's diagonal, so filling it never allocates in the step
            backbone_diag: false,
            metric_joint: crate::data::with_capacity(nv),
            metric_act: crate::data::with_capacity(m.nu),
            a: z(nv),
            ma: z(nv),
            mv: z(nv),
            f: z(nv),
            grad: z(nv),
            mgrad: z(nv),
            mgrad_old: z(nv),
            search: z(nv),
            tmp: z(nv),
            qfrc: z(nv),
            jar: Vec::new(),
            jv: Vec::new(),
            dense: if m.opt.solver == Solver::Newton && !constraint::sparse_jacobian(m) {
                super::newton_dense::DenseHessian::new(nv)
            } else {
                Default::default()
            },
            dense_on: false,
            sparse: if m.opt.solver == Solver::Newton && constraint::sparse_jacobian(m) {
                super::newton_sparse::SparseHessian::new(nv)
            } else {
                Default::default()
            },
            sparse_on: false,
            newton_diag: Vec::new(),
            newton_entries: Vec::new(),
            local: vec![NONE; nv],
            dual: Default::default(),
            arf: Vec::new(),
            force: Vec::new(),
            pgs_prev: Vec::new(),
            pgs_momentum: Vec::new(),
            pgs_blocks: crate::data::with_capacity(maxefc),
            islands: Island::new(m, maxefc),
            all_dofs: (0..nv).collect(),
            all_rows: Vec::new(),
            quad: Vec::new(),
            oldstate: Vec::new(),
            smooth_state: Vec::new(),
            in_part: Vec::new(),
            graddif: z(nv),
            mgraddif: z(nv),
            jt: {
                let nnz = constraint::max_nnz(m, maxefc);
                JacT {
                    dense: false,
                    ptr: crate::data::with_capacity(nv + 2),
                    entry: crate::data::with_capacity(nnz),
                    row: crate::data::with_capacity(nnz),
                    val: crate::data::with_capacity(nnz),
                    used: crate::data::with_capacity(nv),
                }
            },
        };
        // the row buffers: one list of them, which the rows' growth resizes too
        s.grow_rows(maxefc);
        s
    }

    /// Room for `maxefc` rows: at construction, and after the constraint buffers grew
    /// ([`Data::grow_rows`]).
    #[cold]
    fn grow_rows(&mut self, maxefc: usize) {
        for v in [
            &mut self.jar,
            &mut self.jv,
            &mut self.arf,
            &mut self.force,
            &mut self.pgs_prev,
            &mut self.pgs_momentum,
        ] {
            v.resize(maxefc, 0.0);
        }
        self.quad.resize(3 * maxefc, 0.0);
        self.oldstate.resize(maxefc, 0);
        self.smooth_state.resize(maxefc, 0);
        self.in_part.resize(maxefc, false);
        let n = self.all_rows.len();
        self.all_rows.extend(n..maxefc);
    }
}

/// "None" in the island-local dof map.
const NONE: usize = usize::MAX;

/// Solves for `qacc`, `efc_force` and `qfrc_constraint`, after `efc_b` as MuJoCo (`mj_fwdConstraint`).
pub fn solve(m: &Model, d: &mut Data, s: &mut Scratch) {
    // efc_b = J·qacc_smooth − aref, each row's violation without constraint forces
    let mut b = std::mem::take(&mut d.a.efc_b);
    constraint::residual(m, d, &mut b, &d.a.qacc_smooth);
    d.a.efc_b = b;
    let mut w = std::mem::take(&mut s.solver);
    if w.jar.len() < d.maxefc {
        w.grow_rows(d.maxefc);
    }
    match m.opt.solver {
        Solver::Pgs => pgs(m, d, s, &mut w),
        // flex metric terms couple dofs outside the rows: one solve, as MuJoCo 3.15.0
        Solver::Cg => primal(m, d, s, &mut w, false),
        Solver::Newton => primal(m, d, s, &mut w, true),
    }
    s.solver = w;
}

/// Whether the discrete metric has terms that couple dofs across constraint islands (flex
/// stiffness or passive contact); a metric of joint damping and springs only is diagonal, and
/// MuJoCo 3.15.0 then solves each island on its own with `M + diag(h·D + h²·K)`.
fn metric_couples(s: &Scratch) -> bool {
    s.metric.active && (s.metric.any_flex || !s.metric.con.is_empty())
}

/// `w.a`: `qacc_warmstart` unless `qacc_smooth` costs less (`warmstart`), the Gauss term with
/// `M` plus the metric's diagonal (`w.metric_joint`, `w.metric_act`) and, given the metric, its whole `B`.
fn warm_start(m: &Model, d: &mut Data, w: &mut SolverScratch, metric: Option<&mut Scratch>) {
    let (nv, n) = (m.nv, d.nefc);
    w.a.copy_from_slice(&d.a.qacc_smooth);
    if m.opt.disabled(disable::WARMSTART) {
        return;
    }
    constraint::residual(m, d, &mut w.jar, &d.a.qacc_warmstart);
    let mut cost_warm = constraint::update(d, &w.jar[..n], false);
    mul_m(m, &d.a.M, &d.a.qacc_warmstart, &mut w.ma);
    for (i, e) in w.metric_joint.iter().enumerate() {
        w.ma[i] += e * d.a.qacc_warmstart[i];
    }
    for &(i, t) in &w.metric_act {
        w.ma[i] += t * d.a.qacc_warmstart[i];
    }
    if let Some(s) = metric {
        metric::mul_add(m, d, s, &mut w.ma, &d.a.qacc_warmstart);
    }
    for i in 0..nv {
        cost_warm += 0.5 * (w.ma[i] - w.f[i]) * (d.a.qacc_warmstart[i] - d.a.qacc_smooth[i]);
    }
    w.jar[..n].copy_from_slice(&d.a.efc_b[..n]);
    let cost_smooth = constraint::update(d, &w.jar[..n], false);
    w.smooth_state[..n].copy_from_slice(&d.a.efc_state[..n]);
    if cost_warm <= cost_smooth {
        w.a.copy_from_slice(&d.a.qacc_warmstart);
    }
}

/// The discrete metric's part `S` of the Newton Hessian, for [`newton_mgrad`]: its diagonal
/// `efm_sdiag`, and with `coupled` the entries of the flexes' stiffness and the passive-contact
/// terms (`metric::for_each_coupling_entry`, the lower ones of each symmetric pair).
fn newton_metric(s: &Scratch, w: &mut SolverScratch, coupled: bool) {
    w.newton_diag.clear();
    w.newton_entries.clear();
    if !s.metric.active {
        return;
    }
    if s.metric.has_diag {
        w.newton_diag.extend_from_slice(&s.metric.efm_sdiag);
    }
    if coupled {
        let entries = &mut w.newton_entries;
        metric::for_each_coupling_entry(s, &mut |i, j, v| {
            if i >= j {
                entries.push((i as u32, j as u32, v));
            }
        });
    }
}

// ---------------------------------------------------------------------------------------------
// Primal solvers as MuJoCo 3.15.0's `mj_solPrimal`, per constraint island.

/// `out = M·x` on the dofs `dofs` (whole kinematic trees, so M's rows stay inside them), in
/// `mju_mulSymVecSparse`'s order.
fn mul_m_part(m: &Model, mm: &[f64], x: &[f64], out: &mut [f64], dofs: &[usize]) {
    use super::inertia::MRows;
    // no clearing: `dofs` increase, so row i writes `out[i]` before any later row (a descendant)
    // adds to it
    if let Some(r) = dof_range(dofs) {
        // contiguous dofs (a flex's vertices, say): runs of simple dofs are diagonal products
        for rows in super::inertia::m_rows(m, r) {
            match rows {
                MRows::Simple { dofs, adr } => {
                    let vals = &mm[adr..adr + dofs.len()];
                    let (o, xs) = (&mut out[dofs.clone()], &x[dofs]);
                    for ((o, &x), &v) in o.iter_mut().zip(xs).zip(vals) {
                        *o = v * x;
                    }
                }
                MRows::Row { dof, .. } => mul_m_row(m, mm, x, out, dof),
            }
        }
        return;
    }
    for &i in dofs {
        mul_m_row(m, mm, x, out, i);
    }
}

/// Row `i` of [`mul_m_part`]: `out[i]`, and its transposed entries added to its ancestors.
#[inline(always)]
fn mul_m_row(m: &Model, mm: &[f64], x: &[f64], out: &mut [f64], i: usize) {
    let adr = m.M_rowadr[i] as usize;
    let n = m.M_rownnz[i] as usize;
    let (vals, diag) = mm[adr..adr + n].split_at(n - 1);
    let cols = &m.M_colind[adr..adr + n - 1];
    let xi = x[i];
    // row i's sum in a register: its columns j are below the diagonal, so `out[j]` is
    // never `out[i]`
    let mut oi = diag[0] * xi;
    for (&v, &j) in vals.iter().zip(cols).rev() {
        let j = j as usize;
        oi += v * x[j];
        out[j] += v * xi;
    }
    out[i] = oi;
}

/// `out = M̃·x` on the dofs `dofs`: [`mul_m_part`], plus the discrete metric's diagonal `diag`
/// (an island's, or empty) and, given the metric, its whole `B` (`mj_effMulAdd`, all dofs).
#[allow(clippy::too_many_arguments)]
fn mul_mtilde_part(
    m: &Model,
    d: &Data,
    (diag, act): (&[f64], &[(usize, f64)]),
    metric: Option<&mut Scratch>,
    x: &[f64],
    out: &mut [f64],
    dofs: &[usize],
) {
    mul_m_part(m, &d.a.M, x, out, dofs);
    if !diag.is_empty() {
        for &i in dofs {
            out[i] += diag[i] * x[i];
        }
        // (dofs are increasing: an island's own actuator terms)
        for &(i, t) in act {
            if dofs.binary_search(&i).is_ok() {
                out[i] += t * x[i];
            }
        }
    }
    if let Some(s) = metric {
        metric::mul_add(m, d, s, out, x);
    }
}

/// `x = M⁻¹·b` on the dofs `dofs` with the factor `qld` (`mj_solveLD` on an island block). On a
/// run of simple dofs (a flex's vertices) `M` is diagonal and `L` empty: one product per dof,
/// without `mj_solveLD`'s three passes that test every dof's row.
fn solve_ld_part(
    m: &Model,
    qld: &[f64],
    diaginv: &[f64],
    x: &mut [f64],
    b: &[f64],
    dofs: &[usize],
) {
    if dof_range(dofs).is_some_and(|r| is_simple_run(m, &r)) {
        map2_part(x, b, diaginv, dofs, |x, b, dinv| *x = b * dinv);
        return;
    }
    map1_part(x, b, dofs, |x, b| *x = b);
    for &i in dofs.iter().rev() {
        let n = m.M_rownnz[i] as usize;
        let xi = x[i];
        if n > 1 && xi != 0.0 {
            let adr = m.M_rowadr[i] as usize;
            let cols = &m.M_colind[adr..adr + n - 1];
            for (&l, &j) in qld[adr..adr + n - 1].iter().zip(cols) {
                x[j as usize] -= l * xi;
            }
        }
    }
    map1_part(x, diaginv, dofs, |x, d| *x *= d);
    for &i in dofs {
        let n = m.M_rownnz[i] as usize;
        if n > 1 {
            let adr = m.M_rowadr[i] as usize;
            x[i] -= dot_sparse_avx(&qld[adr..adr + n - 1], x, &m.M_colind[adr..adr + n - 1]);
        }
    }
}

/// `out = J·x` on the rows `rows` of an island whose dofs have the island-local indices
/// `local` (`n` of them): in a dense model MuJoCo multiplies the island's own dense block of J
/// (`mju_block`), so each row's `mju_dot` runs over `n` columns numbered within the island.
fn mul_jac_part(
    m: &Model,
    d: &Data,
    out: &mut [f64],
    x: &[f64],
    rows: &[usize],
    local: &[usize],
    n: usize,
) {
    if constraint::sparse_jacobian(m) {
        for &r in rows {
            out[r] = constraint::jac_row_dot(m, d, r, x);
        }
        return;
    }
    for &r in rows {
        out[r] = constraint::jac_row_dot_local(d, r, x, local, n);
    }
}

/// `out = Jᵀ·f` on the dofs `dofs`, each a sparse dot product over the rows touching it in
/// `mju_mulMatVecSparse`'s order on MuJoCo's transposed Jacobian.
///
/// A dense row can move a dof outside its island: MuJoCo finds a constraint's trees from its
/// first row's nonzeros, and a contact's normal can miss a dof its tangents move. MuJoCo's
/// island solve multiplies by the island's block of `J` (its rows, its dofs), so such an entry
/// counts in neither island; only the rows being solved (`in_part`) are summed. (Sparse rows
/// are scanned by their columns, which every row of a contact shares.)
///
/// Only the dofs that some row touches ([`JacT::used`]) are written: the others' sums are 0,
/// which `out` must already hold there (the solve zeroes it before its first product). On the
/// bench's draped 30×30 cloth, its 50 contacts touch 377 of the 2700 dofs on average (450 at
/// most).
fn mul_jac_t_part(jt: &JacT, out: &mut [f64], f: &[f64], dofs: &[usize], in_part: &[bool]) {
    // MuJoCo's order: a sparse model dots each column with the forces (`mju_mulMatVecSparse`
    // on JT), a dense one adds the rows one after another (`mju_mulMatTVec`), so each dof sums
    // its rows in order from zero
    let dof_t = |i: usize| {
        let (a, b) = (jt.ptr[i], jt.ptr[i + 1]);
        let (row, val) = (&jt.row[a..b], &jt.val[a..b]);
        if jt.dense {
            let mut s = 0.0;
            for (&v, &r) in val.iter().zip(row) {
                if in_part[r as usize] {
                    s += v * f[r as usize];
                }
            }
            s
        } else {
            dot_sparse_avx(val, f, row)
        }
    };
    match dof_range(dofs) {
        Some(r) => {
            let lo = jt.used.partition_point(|&i| (i as usize) < r.start);
            for &i in &jt.used[lo..] {
                let i = i as usize;
                if i >= r.end {
                    break;
                }
                out[i] = dof_t(i);
            }
        }
        None => {
            for &i in dofs {
                if jt.ptr[i] != jt.ptr[i + 1] {
                    out[i] = dof_t(i);
                }
            }
        }
    }
}

/// The rows' Jacobian by columns (MuJoCo's `JT`): dof `i` has entries `ptr[i]..ptr[i + 1]`,
/// rows ascending, each its row and its value (a copy of `efc_J`, so that the products
/// read it in order).
///
/// Rows and values are read from two arrays: with the `(row, value)` pairs the products read
/// directly, the browser build spent about twice as long in them (wasm profile of
/// trilinear_box_drop, `scripts/bench/wasm-profile.sh`: the product 10–13% of the step against
/// 4–9%, over runs of each).
#[derive(Debug, Clone, Default)]
struct JacT {
    /// Whether the model's Jacobian is dense (`mj_isSparse` false), which decides the order of
    /// the transposed product.
    dense: bool,
    ptr: Vec<usize>,
    /// The bucketed `(row, value)` pairs, split into `row` and `val`.
    entry: Vec<(i32, f64)>,
    /// Row indices as MuJoCo's `int`, like `efc_J_colind`, so one sparse product serves both.
    row: Vec<i32>,
    val: Vec<f64>,
    /// The dofs with at least one entry, ascending.
    used: Vec<u32>,
}

impl JacT {
    fn build(&mut self, m: &Model, d: &Data) {
        let nv = m.nv;
        self.dense = !constraint::sparse_jacobian(m);
        let rows = |r: usize| {
            let adr = d.a.efc_J_rowadr[r] as usize;
            adr..adr + d.a.efc_J_rownnz[r] as usize
        };
        let col =
            |r: usize, k: usize| Some((d.a.efc_J_colind[k] as usize, (r as i32, d.a.efc_J[k])));
        bucket(
            nv,
            &mut self.ptr,
            &mut self.entry,
            d.nefc,
            rows,
            col,
            (0, 0.0),
        );
        self.row.clear();
        self.row.extend(self.entry.iter().map(|e| e.0));
        self.val.clear();
        self.val.extend(self.entry.iter().map(|e| e.1));
        self.used.clear();
        let ptr = &self.ptr;
        self.used
            .extend((0..nv).filter(|&i| ptr[i] != ptr[i + 1]).map(|i| i as u32));
    }
}

/// `dofs` as a range when they are increasing and contiguous (one island holding a whole
/// flex, say), so the element-wise loops below run on plain slices, which the compiler
/// vectorises without bounds checks; the result is the same either way.
#[inline]
fn dof_range(dofs: &[usize]) -> Option<std::ops::Range<usize>> {
    let n = dofs.len();
    (n > 0 && dofs[n - 1] - dofs[0] == n - 1).then(|| dofs[0]..dofs[0] + n)
}

/// `op(&mut y[i], x[i])` for every dof `i` of `dofs`.
#[inline(always)]
fn map1_part(y: &mut [f64], x: &[f64], dofs: &[usize], op: impl Fn(&mut f64, f64)) {
    match dof_range(dofs) {
        Some(r) => {
            for (y, &x) in y[r.clone()].iter_mut().zip(&x[r]) {
                op(y, x);
            }
        }
        None => {
            for &i in dofs {
                op(&mut y[i], x[i]);
            }
        }
    }
}

/// `op(&mut y[i], a[i], b[i])` for every dof `i` of `dofs`.
#[inline(always)]
fn map2_part(y: &mut [f64], a: &[f64], b: &[f64], dofs: &[usize], op: impl Fn(&mut f64, f64, f64)) {
    match dof_range(dofs) {
        Some(r) => {
            let (a, b) = (&a[r.clone()], &b[r.clone()]);
            for ((y, &a), &b) in y[r].iter_mut().zip(a).zip(b) {
                op(y, a, b);
            }
        }
        None => {
            for &i in dofs {
                op(&mut y[i], a[i], b[i]);
            }
        }
    }
}

/// CG's new gradient `grad = Ma − f − qfrc` on `dofs` and, in the same pass, its change
/// `graddif = grad − grad_old` for Hager–Zhang's β (a copy of the old gradient and a second
/// pass before; the same subtractions).
fn cg_gradient(w: &mut SolverScratch, dofs: &[usize]) {
    let SolverScratch {
        grad,
        graddif,
        ma,
        f,
        qfrc,
        ..
    } = w;
    let one = |g: &mut f64, y: &mut f64, ma: f64, f: f64, q: f64| {
        let old = *g;
        *g = ma - f - q;
        *y = *g - old;
    };
    match dof_range(dofs) {
        Some(r) => {
            let (gr, y) = (&mut grad[r.clone()], &mut graddif[r.clone()]);
            let (ma, f, q) = (&ma[r.clone()], &f[r.clone()], &qfrc[r]);
            for ((((g, y), &ma), &f), &q) in gr.iter_mut().zip(y).zip(ma).zip(f).zip(q) {
                one(g, y, ma, f, q);
            }
        }
        None => {
            for &i in dofs {
                one(&mut grad[i], &mut graddif[i], ma[i], f[i], qfrc[i]);
            }
        }
    }
}

/// `op(&mut y[i], a[i], b[i], c[i])` for every dof `i` of `dofs`.
#[inline(always)]
fn map3_part(
    y: &mut [f64],
    a: &[f64],
    b: &[f64],
    c: &[f64],
    dofs: &[usize],
    op: impl Fn(&mut f64, f64, f64, f64),
) {
    match dof_range(dofs) {
        Some(r) => {
            let (a, b, c) = (&a[r.clone()], &b[r.clone()], &c[r.clone()]);
            for (((y, &a), &b), &c) in y[r].iter_mut().zip(a).zip(b).zip(c) {
                op(y, a, b, c);
            }
        }
        None => {
            for &i in dofs {
                op(&mut y[i], a[i], b[i], c[i]);
            }
        }
    }
}

/// `Σ a[i]·b[i]` over the dofs `dofs`, in `mju_dot`'s order (four running sums over the
/// island-local index, then the remainder): CG's iterates follow rounding closely enough that
/// the order decides whether they track MuJoCo's.
fn dot_part(a: &[f64], b: &[f64], dofs: &[usize]) -> f64 {
    if let Some(r) = dof_range(dofs) {
        // the same sums over plain slices
        return dot_mj_slices(&a[r.clone()], &b[r]);
    }
    dot_mj(dofs.len(), |k| a[dofs[k]] * b[dofs[k]])
}

/// [`dot_mj`] of two equal-length slices, its four running sums as two two-lane sums
/// (`(s0, s1)` and `(s2, s3)`, so the reduction `(s0 + s2) + (s1 + s3)` is one lane addition).
pub(super) fn dot_mj_slices(a: &[f64], b: &[f64]) -> f64 {
    use super::lanes::F64x2;
    let (mut r01, mut r23) = (F64x2::splat(0.0), F64x2::splat(0.0));
    let (ca, cb) = (a.chunks_exact(4), b.chunks_exact(4));
    let (ta, tb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        r01 = r01 + F64x2::load(&x[0..2]) * F64x2::load(&y[0..2]);
        r23 = r23 + F64x2::load(&x[2..4]) * F64x2::load(&y[2..4]);
    }
    let [s02, s13] = (r01 + r23).lanes();
    let mut res = s02 + s13;
    match ta.len() {
        3 => res += ta[0] * tb[0] + ta[1] * tb[1] + ta[2] * tb[2],
        2 => res += ta[0] * tb[0] + ta[1] * tb[1],
        1 => res += ta[0] * tb[0],
        _ => {}
    }
    res
}

/// `mju_dot` of two short slices, out of line: the PGS block updates and the small QCQPs call
/// it at many places, and one copy keeps the browser build small.
#[inline(never)]
pub(super) fn dot(a: &[f64], b: &[f64]) -> f64 {
    dot_mj_slices(a, b)
}

/// `Σ v(i)` for `i < n` in `mju_dot`'s order: four running sums over `i`, reduced as
/// `(s0 + s2) + (s1 + s3)`, then the remaining (up to three) terms added as one group.
pub(super) fn dot_mj(n: usize, v: impl Fn(usize) -> f64) -> f64 {
    let (mut r0, mut r1, mut r2, mut r3) = (0.0, 0.0, 0.0, 0.0);
    let mut k = 0;
    while k + 4 <= n {
        r0 += v(k);
        r1 += v(k + 1);
        r2 += v(k + 2);
        r3 += v(k + 3);
        k += 4;
    }
    let mut res = (r0 + r2) + (r1 + r3);
    match n - k {
        3 => res += v(k) + v(k + 1) + v(k + 2),
        2 => res += v(k) + v(k + 1),
        1 => res += v(k),
        _ => {}
    }
    res
}

/// `Σ v(t)` for `t < n` in the order of MuJoCo's AVX sparse dot product
/// (`mju_dotSparse_avx`): four running sums, reduced as `(s0 + s2) + (s1 + s3)`, then the
/// remaining terms one at a time.
#[inline]
pub(super) fn sum_avx(n: usize, v: impl Fn(usize) -> f64) -> f64 {
    let mut res = 0.0;
    let mut k = 0;
    if n >= 4 {
        let (mut r0, mut r1, mut r2, mut r3) = (v(0), v(1), v(2), v(3));
        k = 4;
        while k + 4 <= n {
            r0 += v(k);
            r1 += v(k + 1);
            r2 += v(k + 2);
            r3 += v(k + 3);
            k += 4;
        }
        res = (r0 + r2) + (r1 + r3);
    }
    while k < n {
        res += v(k);
        k += 1;
    }
    res
}

/// Sparse dot product `Σ vals[t]·x[ind[t]]` in `mju_dotSparse_avx`'s order ([`sum_avx`]).
/// Walks `vals` and `ind` in blocks of four, so only the reads of `x` are bounds-checked
/// (through `sum_avx`'s closure each block cost twelve checks).
#[inline]
pub(super) fn dot_sparse_avx(vals: &[f64], x: &[f64], ind: &[i32]) -> f64 {
    let n = vals.len().min(ind.len());
    let (vals, ind) = (&vals[..n], &ind[..n]);
    let term = |v: f64, i: i32| v * x[i as usize];
    let (vb, ib) = (vals.chunks_exact(4), ind.chunks_exact(4));
    let (vtail, itail) = (vb.remainder(), ib.remainder());
    let mut res = 0.0;
    let mut blocks = vb.zip(ib);
    if let Some((v, i)) = blocks.next() {
        let mut r = [0.0; 4];
        for k in 0..4 {
            r[k] = term(v[k], i[k]);
        }
        for (v, i) in blocks {
            for k in 0..4 {
                r[k] += term(v[k], i[k]);
            }
        }
        res = (r[0] + r[2]) + (r[1] + r[3]);
    }
    for (&v, &i) in vtail.iter().zip(itail) {
        res += term(v, i);
    }
    res
}

/// Rows of the contact or row that starts at `r`.
fn row_dim(d: &Data, r: usize) -> usize {
    if d.a.efc_type[r] == kind::CONTACT_ELLIPTIC {
        d.contact[d.a.efc_id[r] as usize].dim as usize
    } else {
        1
    }
}

/// CG (`mj_solCG`) or Newton (`mj_solNewton`): the warm start chosen for the whole model, then
/// one `mj_solPrimal` per constraint island on its own dofs and rows
/// (`mj_solCG_island`/`mj_solNewton_island`), the dofs outside every island keeping
/// `qacc_smooth`; with islands disabled, one solve over everything.
///
/// Under the discrete integrator `M̃` replaces `M` and the smooth force is shifted by `efm_c`.
/// When the metric couples dofs across islands (flex stiffness, passive contact), there is one
/// solve over every dof and row with `M̃ = M + B` as the operator, as in MuJoCo 3.15.0. Its
/// islands still decide where that solve starts: the dofs outside every island start at
/// `qacc_smooth`, the others at the chosen warm start (MuJoCo's `warmstart`; starting them all
/// at the warm start gave other iterates, and 1e-8 after a step once a contact sat in an
/// elliptic cone's middle zone, where Newton only converges asymptotically). CG's
/// preconditioner is then the metric's own (`effBlockApply`): 3.15.0 does not fold the rows'
/// `Jᵀ·D·J` into its blocks (with the fold, flexlab's iterates parted from MuJoCo's from the
/// first iteration); Newton's Hessian holds the flex stiffness. A metric of joint damping and
/// springs only is diagonal (`w.metric_joint`, `w.metric_act`), island by island.
fn primal(m: &Model, d: &mut Data, s: &mut Scratch, w: &mut SolverScratch, newton: bool) {
    let (nv, n) = (m.nv, d.nefc);
    let coupled = metric_couples(s);
    w.f.copy_from_slice(&d.a.qfrc_smooth);
    w.backbone_diag = false;
    w.metric_joint.clear();
    w.metric_act.clear();
    if s.metric.active {
        for i in 0..nv {
            w.f[i] = (w.f[i] + s.metric.efm_c[i]) + s.metric.efm_ca[i];
        }
        if s.metric.has_diag && !coupled {
            w.backbone_diag = true;
            w.metric_joint.extend_from_slice(&s.metric.efm_diag);
            w.metric_act.extend_from_slice(s.metric.act_terms());
        }
    }
    // coupled: the Gauss term with the whole metric and the shifted force (checked against
    // MuJoCo 3.15.0's choices where plain M would choose otherwise)
    warm_start(m, d, w, coupled.then_some(&mut *s));
    let mut islands = std::mem::take(&mut w.islands);
    islands.find(m, d);
    w.jt.build(m, d);
    if islands.nisland > 0 {
        // the unconstrained dofs: smooth acceleration, no constraint force. MuJoCo 3.15.0's
        // warmstart does this whenever there are islands, also when a coupling metric then
        // forces one monolithic solve, which starts from this point
        for i in 0..nv {
            if islands.dof_island(m, i) == usize::MAX {
                w.a[i] = d.a.qacc_smooth[i];
            }
        }
    }
    w.qfrc.fill(0.0);
    if islands.nisland > 0
        && !coupled
        && !constraint::sparse_jacobian(m)
        && !m.opt.disabled(disable::WARMSTART)
    {
        // MuJoCo's warm start leaves qfrc_constraint = Jᵀ·f at qacc_smooth (its last update,
        // the forces `efc_force` holds now) and the island solves overwrite their own dofs only:
        // a dof that a row moves but no island holds (see `Islands::find`) keeps it
        constraint::mul_jac_t(d, &mut w.qfrc, &d.a.efc_force);
    }
    // each island's Hessian as MuJoCo forms it, dense or sparse as the model is (a metric
    // that couples the islands makes one island of the whole model)
    w.dense_on = newton && !constraint::sparse_jacobian(m);
    w.sparse_on = newton && constraint::sparse_jacobian(m);
    if newton {
        newton_metric(s, w, coupled);
    }
    let mut niter = 0;
    if coupled || islands.nisland == 0 {
        let all_dofs = std::mem::take(&mut w.all_dofs);
        let all_rows = std::mem::take(&mut w.all_rows);
        let scale = 1.0 / (m.stat.meaninertia * (nv.max(1) as f64));
        let metric = coupled.then_some(s);
        niter = primal_part(m, d, w, newton, &all_dofs, &all_rows[..n], scale, metric);
        w.all_dofs = all_dofs;
        w.all_rows = all_rows;
    } else {
        for k in 0..islands.nisland {
            let dofs = islands.island_dofs(k);
            // island scale: the inverse of the island's summed diagonal inertia
            let inertia: f64 = dofs
                .iter()
                .map(|&i| d.a.M[(m.M_rowadr[i] + m.M_rownnz[i] - 1) as usize])
                .sum();
            let it = primal_part(
                m,
                d,
                w,
                newton,
                dofs,
                islands.island_efcs(k),
                1.0 / inertia,
                None,
            );
            niter = niter.max(it);
        }
        // MuJoCo solves each island on copies of its rows and copies back their forces, not
        // their states: its efc_state stays the warm start's, at qacc_smooth (a cold start
        // leaves it stale there; here it keeps the solution's)
        if !m.opt.disabled(disable::WARMSTART) {
            d.a.efc_state[..n].copy_from_slice(&w.smooth_state[..n]);
        }
    }
    w.islands = islands;
    d.a.qacc.copy_from_slice(&w.a);
    d.a.qfrc_constraint.copy_from_slice(&w.qfrc);
    d.solver_niter = niter as i32;
}

/// `mj_solPrimal` on the dofs `dofs` and rows `rows` from the acceleration in `w.a`; leaves
/// `w.a`, `w.qfrc` and the rows' forces and states there. Returns the iteration count.
#[allow(clippy::too_many_arguments)]
fn primal_part(
    m: &Model,
    d: &mut Data,
    w: &mut SolverScratch,
    newton: bool,
    dofs: &[usize],
    rows: &[usize],
    scale: f64,
    mut metric: Option<&mut Scratch>,
) -> usize {
    let tol = m.opt.tolerance;
    for (k, &i) in dofs.iter().enumerate() {
        w.local[i] = k;
    }
    for &r in rows {
        w.in_part[r] = true;
    }
    let elliptic_hessian = newton && m.opt.cone == crate::model::Cone::Elliptic;
    mul_mtilde_part(
        m,
        d,
        (&w.metric_joint, &w.metric_act),
        metric.as_deref_mut(),
        &w.a,
        &mut w.ma,
        dofs,
    );
    mul_jac_part(m, d, &mut w.jar, &w.a, rows, &w.local, dofs.len());
    for &r in rows {
        w.jar[r] -= d.a.efc_aref[r];
    }
    part_update(d, w, rows, dofs, elliptic_hessian);
    map3_part(&mut w.grad, &w.ma, &w.f, &w.qfrc, dofs, |g, ma, f, q| {
        *g = ma - f - q
    });
    // the CG direction M⁻¹·grad bounds the suboptimality (a certificate of convergence)
    part_prec(m, d, w, dofs, metric.as_deref_mut());
    let gap = (0.5 * scale * dot_part(&w.grad, &w.mgrad, dofs)).max(0.0) < tol;
    let flat = scale * dot_part(&w.grad, &w.grad, dofs).sqrt() < tol;
    let mut done = gap && (!newton || flat);
    if !done && newton {
        newton_mgrad(m, d, w, dofs, rows, true);
        done = flat && (0.5 * scale * dot_part(&w.grad, &w.mgrad, dofs)).max(0.0) < tol;
    }
    if !done {
        map1_part(&mut w.search, &w.mgrad, dofs, |s, g| *s = -g);
    }
    let mut iter = 0;
    while !done && iter < m.opt.max_iterations() {
        // |search|, for the line search's tolerance and (unchanged until the next direction)
        // Hager–Zhang's restart test
        let snorm = dot_part(&w.search, &w.search, dofs).sqrt();
        let (alpha, ls_improvement) =
            primal_search(m, d, w, dofs, rows, scale, snorm, metric.as_deref_mut());
        if alpha == 0.0 {
            break;
        }
        map1_part(&mut w.a, &w.search, dofs, |a, s| *a += alpha * s);
        map1_part(&mut w.ma, &w.mv, dofs, |ma, mv| *ma += alpha * mv);
        for &r in rows {
            w.jar[r] += alpha * w.jv[r];
        }
        if !newton {
            map1_part(&mut w.mgrad_old, &w.mgrad, dofs, |o, g| *o = g);
        }
        for &r in rows {
            w.oldstate[r] = d.a.efc_state[r];
        }
        part_update(d, w, rows, dofs, elliptic_hessian);
        if newton {
            map3_part(&mut w.grad, &w.ma, &w.f, &w.qfrc, dofs, |g, ma, f, q| {
                *g = ma - f - q
            });
            newton_mgrad(m, d, w, dofs, rows, false);
        } else {
            cg_gradient(w, dofs);
            part_prec(m, d, w, dofs, metric.as_deref_mut());
        }
        let improvement = scale * ls_improvement;
        let g_norm = dot_part(&w.grad, &w.grad, dofs).sqrt();
        let gradient = scale * g_norm;
        let decrement = if newton {
            (0.5 * scale * dot_part(&w.grad, &w.mgrad, dofs)).max(0.0)
        } else {
            0.0
        };
        iter += 1;
        if (improvement > 0.0 && improvement < tol) || gradient < tol || (newton && decrement < tol)
        {
            break;
        }
        if newton {
            map1_part(&mut w.search, &w.mgrad, dofs, |s, g| *s = -g);
        } else {
            // Hager–Zhang conjugate direction, restarted when conjugacy is lost
            let beta = {
                map2_part(&mut w.mgraddif, &w.mgrad, &w.mgrad_old, dofs, |y, g, o| {
                    *y = g - o
                });
                let d_dot_y = dot_part(&w.search, &w.graddif, dofs);
                if d_dot_y < MINVAL {
                    0.0
                } else {
                    let y_my = dot_part(&w.graddif, &w.mgraddif, dofs);
                    let y_mgrad = dot_part(&w.graddif, &w.mgrad, dofs);
                    let d_grad = dot_part(&w.search, &w.grad, dofs);
                    let beta_hz = (y_mgrad - 2.0 * (y_my / d_dot_y) * d_grad) / d_dot_y;
                    let eta_k = -1.0 / (snorm * g_norm.min(0.01)).max(MINVAL);
                    eta_k.max(beta_hz)
                }
            };
            map1_part(&mut w.search, &w.mgrad, dofs, |s, g| *s = -g + beta * *s);
        }
    }
    for &i in dofs {
        w.local[i] = NONE;
    }
    for &r in rows {
        w.in_part[r] = false;
    }
    iter
}

/// Newton's direction `w.mgrad = H⁻¹·w.grad` on the island: with `first`, H is formed and
/// factored at the rows' states; otherwise its factor is brought up to date with the rows whose
/// state changed since `w.oldstate`.
fn newton_mgrad(
    m: &Model,
    d: &Data,
    w: &mut SolverScratch,
    dofs: &[usize],
    rows: &[usize],
    first: bool,
) {
    let isl = IslandRef {
        dofs,
        rows,
        local: &w.local,
    };
    let metric = MetricTerms {
        diag: &w.newton_diag,
        entries: &w.newton_entries,
    };
    if w.sparse_on {
        if first {
            w.sparse.start(m, d, metric, isl);
        } else {
            w.sparse.update(m, d, isl, &w.oldstate);
        }
        w.sparse.solve(&w.grad, &mut w.mgrad, dofs);
        return;
    }
    if first {
        w.dense.start(m, d, metric, isl);
    } else {
        w.dense.update(m, d, metric, isl, &w.oldstate);
    }
    w.dense.solve(&w.grad, &mut w.mgrad, dofs);
}

/// Row forces and states from `w.jar` on `rows`, and `w.qfrc = Jᵀ·force` on `dofs`.
fn part_update(d: &mut Data, w: &mut SolverScratch, rows: &[usize], dofs: &[usize], cone: bool) {
    constraint::update_rows(d, &w.jar, rows, cone);
    mul_jac_t_part(&w.jt, &mut w.qfrc, &d.a.efc_force, dofs, &w.in_part);
}

/// `w.mgrad = M⁻¹·w.grad` on `dofs`; with the flex metric, its block preconditioner over every
/// dof.
fn part_prec(
    m: &Model,
    d: &Data,
    w: &mut SolverScratch,
    dofs: &[usize],
    metric: Option<&mut Scratch>,
) {
    if let Some(s) = metric {
        metric::precondition(m, d, &s.metric, &mut w.mgrad, &w.grad);
        return;
    }
    // the backbone M + diag(efm_diag), when there is one, factored in M's sparsity by the
    // velocity stage
    let (qld, diaginv) = if w.backbone_diag {
        (&d.a.qH, &d.a.qHDiagInv)
    } else {
        (&d.a.qLD, &d.a.qLDiagInv)
    };
    solve_ld_part(m, qld, diaginv, &mut w.mgrad, &w.grad, dofs);
}

/// Line-search point: step, cost change from the start, slope and curvature.
#[derive(Clone, Copy, Default)]
struct LsPoint {
    alpha: f64,
    cost: f64,
    d0: f64,
    d1: f64,
}

/// MuJoCo's exact line search along `w.search` (`PrimalSearch`): one Newton step on the
/// piecewise-quadratic cost, then a one-sided search and a bracketed one, each point judged by
/// the scaled slope tolerance; `snorm` is `|w.search|`. Fills `w.mv`, `w.jv`; returns the step
/// and the cost decrease.
#[allow(clippy::too_many_arguments)]
fn primal_search(
    m: &Model,
    d: &Data,
    w: &mut SolverScratch,
    dofs: &[usize],
    rows: &[usize],
    scale: f64,
    snorm: f64,
    metric: Option<&mut Scratch>,
) -> (f64, f64) {
    if snorm < MINVAL {
        return (0.0, 0.0);
    }
    let gtol = m.opt.tolerance * m.opt.ls_tolerance * snorm / scale;
    let maxiter = m.opt.max_ls_iterations();
    let diag = (&w.metric_joint[..], &w.metric_act[..]);
    mul_mtilde_part(m, d, diag, metric, &w.search, &mut w.mv, dofs);
    mul_jac_part(m, d, &mut w.jv, &w.search, rows, &w.local, dofs.len());
    // Gauss quadratic and the rows' quadratics (`PrimalPrepare`)
    let g1 = dot_part(&w.search, &w.ma, dofs) - dot_part(&w.f, &w.search, dofs);
    let g2 = 0.5 * dot_part(&w.search, &w.mv, dofs);
    let mut k = 0;
    while k < rows.len() {
        let i = rows[k];
        let q = &mut w.quad[3 * i..];
        let (jar, jv, dd) = (w.jar[i], w.jv[i], d.a.efc_D[i]);
        let dj0 = dd * jar;
        q[0] = jar * dj0;
        q[1] = jv * dj0;
        q[2] = jv * dd * jv;
        let dim = row_dim(d, i);
        if dim > 1 {
            let con = &d.contact[d.a.efc_id[i] as usize];
            let mu = con.mu;
            for j in 1..dim {
                let (ja, jvj, dj) = (w.jar[i + j], w.jv[i + j], d.a.efc_D[i + j]);
                let djj = dj * ja;
                q[0] += ja * djj;
                q[1] += jvj * djj;
                q[2] += jvj * dj * jvj;
            }
            let (mut uu, mut uv, mut vv) = (0.0, 0.0, 0.0);
            for j in 1..dim {
                let u = w.jar[i + j] * con.friction[j - 1];
                let v = w.jv[i + j] * con.friction[j - 1];
                uu += u * u;
                uv += u * v;
                vv += v * v;
            }
            q[3] = jar * mu;
            q[4] = jv * mu;
            q[5] = uu;
            q[6] = uv;
            q[7] = vv;
            q[8] = dd / ((mu * mu) * (1.0 + mu * mu));
        }
        q[0] *= 0.5;
        q[2] *= 0.5;
        k += dim;
    }
    let ls = LineSearch {
        d,
        w,
        rows,
        g1,
        g2,
        count: std::cell::Cell::new(0),
    };
    let eval = |alpha: f64| ls.eval(alpha);
    let p0 = eval(0.0);
    let mut p1 = eval(p0.alpha - p0.d0 / p0.d1);
    if p1.d0.abs() < gtol && (p1.alpha == 0.0 || p1.cost < 0.0) {
        return (p1.alpha, -p1.cost);
    }
    let dir = if p1.d0 < 0.0 { 1.0 } else { -1.0 };
    // one-sided search: Newton steps while the slope keeps its sign
    let mut p2 = p0;
    while p1.d0 * dir <= -gtol && ls.count.get() < maxiter {
        p2 = p1;
        p1 = eval(p1.alpha - p1.d0 / p1.d1);
        if p1.d0.abs() < gtol && p1.cost < 0.0 {
            return (p1.alpha, -p1.cost);
        }
    }
    if ls.count.get() >= maxiter {
        return (p1.alpha, -p1.cost);
    }
    // bracketed search between p1 and p2, each end with its Newton point
    let mut p2next = p1;
    let mut p1next = eval(p1.alpha - p1.d0 / p1.d1);
    while ls.count.get() < maxiter {
        let pmid = eval(0.5 * (p1.alpha + p2.alpha));
        let cand = [p1next, p2next, pmid];
        let mut best: Option<LsPoint> = None;
        for c in cand {
            if c.d0.abs() < gtol && best.is_none_or(|b| c.cost < b.cost) {
                best = Some(c);
            }
        }
        if let Some(b) = best {
            return (b.alpha, -b.cost);
        }
        let b1 = bracket(&mut p1, &cand);
        if b1 {
            p1next = eval(p1.alpha - p1.d0 / p1.d1);
        }
        let b2 = bracket(&mut p2, &cand);
        if b2 {
            p2next = eval(p2.alpha - p2.d0 / p2.d1);
        }
        if !b1 && !b2 {
            return (pmid.alpha, -pmid.cost);
        }
    }
    if p1.cost <= p2.cost && p1.cost < 0.0 {
        (p1.alpha, -p1.cost)
    } else if p2.cost <= p1.cost && p2.cost < 0.0 {
        (p2.alpha, -p2.cost)
    } else {
        (0.0, 0.0)
    }
}

/// Moves the bracket end `p` to the candidate with the same slope sign closest to zero
/// (`updateBracket`); returns whether it moved.
fn bracket(p: &mut LsPoint, cand: &[LsPoint; 3]) -> bool {
    let mut moved = false;
    for c in cand {
        if (p.d0 < 0.0 && c.d0 < 0.0 && p.d0 < c.d0) || (p.d0 > 0.0 && c.d0 > 0.0 && p.d0 > c.d0) {
            *p = *c;
            moved = true;
        }
    }
    moved
}

/// The line search's cost along the search direction, from the quadratics `PrimalPrepare`
/// left in `w.quad`.
struct LineSearch<'a> {
    d: &'a Data,
    w: &'a SolverScratch,
    rows: &'a [usize],
    /// Gauss cost's slope and half curvature at the start.
    g1: f64,
    g2: f64,
    /// Points evaluated (MuJoCo's `LSiter`).
    count: std::cell::Cell<usize>,
}

impl LineSearch<'_> {
    /// Cost change from step 0 to `alpha`, slope and curvature (`PrimalEval`).
    fn eval(&self, alpha: f64) -> LsPoint {
        self.count.set(self.count.get() + 1);
        let (d, w) = (self.d, self.w);
        let (ne, nf) = (d.ne, d.nf);
        let mut cost = 0.0;
        let (mut d0, mut d1) = (0.0, 0.0);
        let mut qt = [0.0, self.g1, self.g2];
        let rows = self.rows;
        let mut k = 0;
        while k < rows.len() {
            let i = rows[k];
            let q = &w.quad[3 * i..];
            if i < ne {
                qt[1] += q[1];
                qt[2] += q[2];
                k += 1;
                continue;
            }
            if i < ne + nf {
                let (start, dir) = (w.jar[i], w.jv[i]);
                let x = start + alpha * dir;
                let f = d.a.efc_frictionloss[i];
                let dd = d.a.efc_D[i];
                let rf = d.a.efc_R[i] * f;
                cost += friction_cost_dif(start, x, f, rf, dd);
                if -rf < x && x < rf {
                    d0 += dd * x * dir;
                    d1 += dd * dir * dir;
                } else if x <= -rf {
                    d0 += -f * dir;
                } else {
                    d0 += f * dir;
                }
                k += 1;
                continue;
            }
            if d.a.efc_type[i] == kind::CONTACT_ELLIPTIC {
                let con = &d.contact[d.a.efc_id[i] as usize];
                let mu = con.mu;
                let (u0, v0, uu, uv, vv, dm) = (q[3], q[4], q[5], q[6], q[7], q[8]);
                cost += elliptic_cost_dif(q, alpha, mu, dm);
                let nn = u0 + alpha * v0;
                let tsqr = uu + alpha * (2.0 * uv + alpha * vv);
                if tsqr <= 0.0 {
                    if nn < 0.0 {
                        d0 += 2.0 * alpha * q[2] + q[1];
                        d1 += 2.0 * q[2];
                    }
                } else {
                    let t = tsqr.sqrt();
                    if nn >= mu * t {
                    } else if mu * nn + t <= 0.0 {
                        d0 += 2.0 * alpha * q[2] + q[1];
                        d1 += 2.0 * q[2];
                    } else {
                        let n1 = v0;
                        let t1 = (uv + alpha * vv) / t;
                        let t2 = vv / t - (uv + alpha * vv) * t1 / (t * t);
                        d0 += dm * (nn - mu * t) * (n1 - mu * t1);
                        d1 += dm * ((n1 - mu * t1) * (n1 - mu * t1) + (nn - mu * t) * (-mu * t2));
                    }
                }
                k += con.dim as usize;
                continue;
            }
            let start = w.jar[i];
            let x = start + alpha * w.jv[i];
            let cost0 = if start < 0.0 { q[0] } else { 0.0 };
            if x < 0.0 {
                qt[0] += q[0] - cost0;
                qt[1] += q[1];
                qt[2] += q[2];
            } else {
                cost -= cost0;
            }
            k += 1;
        }
        cost += alpha * alpha * qt[2] + alpha * qt[1] + qt[0];
        d0 += 2.0 * alpha * qt[2] + qt[1];
        d1 += 2.0 * qt[2];
        if d1 <= 0.0 {
            d1 = MINVAL;
        }
        LsPoint {
            alpha,
            cost,
            d0,
            d1,
        }
    }
}

/// Huber cost of a friction-loss row at `x` (`frictionCost`).
fn friction_cost(x: f64, f: f64, rf: f64, dd: f64) -> f64 {
    if -rf < x && x < rf {
        0.5 * dd * x * x
    } else if x <= -rf {
        f * (-0.5 * rf - x)
    } else {
        f * (-0.5 * rf + x)
    }
}

/// `friction_cost(x) − friction_cost(start)`, without cancellation inside one zone
/// (`frictionCostDif`).
fn friction_cost_dif(start: f64, x: f64, f: f64, rf: f64, dd: f64) -> f64 {
    let zone = |v: f64| {
        if -rf < v && v < rf {
            0
        } else if v <= -rf {
            -1
        } else {
            1
        }
    };
    match (zone(start), zone(x)) {
        (0, 0) => 0.5 * dd * (x - start) * (x + start),
        (-1, -1) => f * (start - x),
        (1, 1) => f * (x - start),
        _ => friction_cost(x, f, rf, dd) - friction_cost(start, f, rf, dd),
    }
}

/// Cost change of an elliptic contact from step 0 to `alpha` (`ellipticCostDif`); zones 1 top
/// (no force), 2 bottom (quadratic), 3 the cone's middle.
fn elliptic_cost_dif(q: &[f64], alpha: f64, mu: f64, dm: f64) -> f64 {
    let (u0, v0, uu, uv, vv) = (q[3], q[4], q[5], q[6], q[7]);
    let zone = |nn: f64, tsqr: f64| -> (i32, f64) {
        if tsqr <= 0.0 {
            (if nn < 0.0 { 2 } else { 1 }, 0.0)
        } else {
            let t = tsqr.sqrt();
            if nn >= mu * t {
                (1, t)
            } else if mu * nn + t <= 0.0 {
                (2, t)
            } else {
                (3, t)
            }
        }
    };
    let (z0, t0) = zone(u0, uu);
    let nn = u0 + alpha * v0;
    let (za, t) = zone(nn, uu + alpha * (2.0 * uv + alpha * vv));
    match (z0, za) {
        (1, 1) => 0.0,
        (2, 2) => alpha * alpha * q[2] + alpha * q[1],
        (3, 3) => {
            let t_delta = alpha * (2.0 * uv + alpha * vv) / (t + t0);
            let r_delta = alpha * v0 - mu * t_delta;
            let r0 = u0 - mu * t0;
            0.5 * dm * r_delta * (2.0 * r0 + r_delta)
        }
        (3, 2) => {
            let b0 = mu * u0 + t0;
            alpha * (alpha * q[2] + q[1]) + 0.5 * dm * b0 * b0
        }
        (2, 3) => {
            let b = mu * nn + t;
            alpha * (alpha * q[2] + q[1]) - 0.5 * dm * b * b
        }
        (1, 2) => alpha * alpha * q[2] + alpha * q[1] + q[0],
        (1, 3) => {
            let r = nn - mu * t;
            0.5 * dm * r * r
        }
        (3, 1) => {
            let r0 = u0 - mu * t0;
            -0.5 * dm * r0 * r0
        }
        (2, 1) => -q[0],
        _ => 0.0,
    }
}

/// MuJoCo's PCG32 generator, used to shuffle PGS's visiting order reproducibly.
struct Pcg32 {
    state: u64,
    inc: u64,
}

impl Pcg32 {
    fn next(&mut self) -> u32 {
        let old = self.state;
        self.state = old
            .wrapping_mul(6364136223846793005)
            .wrapping_add(self.inc | 1);
        let xorshifted = (((old >> 18) ^ old) >> 27) as u32;
        let rot = (old >> 59) as u32;
        xorshifted.rotate_right(rot)
    }

    /// Fisher–Yates, from the end, as MuJoCo's `shuffle_int`.
    fn shuffle(&mut self, a: &mut [usize]) {
        for i in (1..a.len()).rev() {
            let j = (self.next() % (i as u32 + 1)) as usize;
            a.swap(i, j);
        }
    }
}

/// `min ½xᵀAx + xᵀb` subject to `Σ(xᵢ/dᵢ)² ≤ r²`: Newton on the multiplier of the scaled
/// problem, by MuJoCo 3.15.0's closed forms for 2 and 3 unknowns (`mju_QCQP2`, `mju_QCQP3`)
/// and its Cholesky form for more (`mju_QCQP`), each in its arithmetic. Returns whether the
/// constraint is active.
fn qcqp(res: &mut [f64], ain: &[f64], bin: &[f64], dmu: &[f64], r: f64) -> bool {
    match res.len() {
        2 => qcqp2(res, ain, bin, dmu, r),
        3 => qcqp3(res, ain, bin, dmu, r),
        _ => qcqp_n(res, ain, bin, dmu, r),
    }
}

fn qcqp2(res: &mut [f64], ain: &[f64], bin: &[f64], d: &[f64], r: f64) -> bool {
    let (b1, b2) = (bin[0] * d[0], bin[1] * d[1]);
    let a11 = ain[0] * d[0] * d[0];
    let a22 = ain[3] * d[1] * d[1];
    let a12 = ain[1] * d[0] * d[1];
    let (mut la, mut v1, mut v2) = (0.0, 0.0, 0.0);
    for _ in 0..20 {
        let det = (a11 + la) * (a22 + la) - a12 * a12;
        if det < 1e-10 {
            res[..2].fill(0.0);
            return false;
        }
        let detinv = 1.0 / det;
        let p11 = (a22 + la) * detinv;
        let p22 = (a11 + la) * detinv;
        let p12 = -a12 * detinv;
        v1 = -p11 * b1 - p12 * b2;
        v2 = -p12 * b1 - p22 * b2;
        let val = v1 * v1 + v2 * v2 - r * r;
        if val < 1e-10 {
            break;
        }
        let deriv = -2.0 * (p11 * v1 * v1 + 2.0 * p12 * v1 * v2 + p22 * v2 * v2);
        let delta = -val / deriv;
        if delta < 1e-10 {
            break;
        }
        la += delta;
    }
    res[0] = v1 * d[0];
    res[1] = v2 * d[1];
    la != 0.0
}

fn qcqp3(res: &mut [f64], ain: &[f64], bin: &[f64], d: &[f64], r: f64) -> bool {
    let (b1, b2, b3) = (bin[0] * d[0], bin[1] * d[1], bin[2] * d[2]);
    let a11 = ain[0] * d[0] * d[0];
    let a22 = ain[4] * d[1] * d[1];
    let a33 = ain[8] * d[2] * d[2];
    let a12 = ain[1] * d[0] * d[1];
    let a13 = ain[2] * d[0] * d[2];
    let a23 = ain[5] * d[1] * d[2];
    let (mut la, mut v1, mut v2, mut v3) = (0.0, 0.0, 0.0, 0.0);
    for _ in 0..20 {
        let mut p11 = (a22 + la) * (a33 + la) - a23 * a23;
        let mut p22 = (a11 + la) * (a33 + la) - a13 * a13;
        let mut p33 = (a11 + la) * (a22 + la) - a12 * a12;
        let mut p12 = a13 * a23 - a12 * (a33 + la);
        let mut p13 = a12 * a23 - a13 * (a22 + la);
        let mut p23 = a12 * a13 - a23 * (a11 + la);
        let det = (a11 + la) * p11 + a12 * p12 + a13 * p13;
        if det < 1e-10 {
            res[..3].fill(0.0);
            return false;
        }
        let detinv = 1.0 / det;
        for p in [&mut p11, &mut p22, &mut p33, &mut p12, &mut p13, &mut p23] {
            *p *= detinv;
        }
        v1 = -p11 * b1 - p12 * b2 - p13 * b3;
        v2 = -p12 * b1 - p22 * b2 - p23 * b3;
        v3 = -p13 * b1 - p23 * b2 - p33 * b3;
        let val = v1 * v1 + v2 * v2 + v3 * v3 - r * r;
        if val < 1e-10 {
            break;
        }
        let deriv = -2.0 * (p11 * v1 * v1 + p22 * v2 * v2 + p33 * v3 * v3)
            - 4.0 * (p12 * v1 * v2 + p13 * v1 * v3 + p23 * v2 * v3);
        let delta = -val / deriv;
        if delta < 1e-10 {
            break;
        }
        la += delta;
    }
    res[0] = v1 * d[0];
    res[1] = v2 * d[1];
    res[2] = v3 * d[2];
    la != 0.0
}

fn qcqp_n(res: &mut [f64], ain: &[f64], bin: &[f64], d: &[f64], r: f64) -> bool {
    let n = res.len();
    let mut a = [0.0; 25];
    let mut b = [0.0; 5];
    for i in 0..n {
        b[i] = bin[i] * d[i];
        for j in 0..n {
            a[j + i * n] = ain[j + i * n] * d[i] * d[j];
        }
    }
    let mut la = 0.0;
    for _ in 0..20 {
        let mut l = a;
        for i in 0..n {
            l[i * (n + 1)] += la;
        }
        if dense_chol::factor(&mut l[..n * n], n, 1e-10) < n {
            res.fill(0.0);
            return false;
        }
        dense_chol::solve(res, &l[..n * n], &b[..n]);
        for x in res.iter_mut() {
            *x *= -1.0;
        }
        let val = dot(&res[..n], &res[..n]) - r * r;
        if val < 1e-10 {
            break;
        }
        let mut t = [0.0; 5];
        dense_chol::solve(&mut t[..n], &l[..n * n], res);
        let deriv = -2.0 * dot(&res[..n], &t[..n]);
        let delta = -val / deriv;
        if delta < 1e-10 {
            break;
        }
        la += delta;
    }
    for i in 0..n {
        res[i] *= d[i];
    }
    la != 0.0
}

/// Scales friction onto the ellipsoid `Σ(fⱼ/μⱼ)² = normal²` (only if outside, when `feasible`).
fn project_ellipsoid(fr: &mut [f64], normal: f64, mu: &[f64], feasible: bool) {
    let s: f64 = fr.iter().zip(mu).map(|(f, m)| f * f / (m * m)).sum();
    let n2 = normal * normal;
    if !feasible || s > n2 {
        let scl = (n2 / s.max(crate::math::MINVAL)).sqrt();
        for f in fr.iter_mut() {
            *f *= scl;
        }
    }
}

/// Dual constraint states from the forces (`dualState`).
fn dual_state(d: &mut Data, force: &[f64]) {
    let (ne, nf, n) = (d.ne, d.nf, d.nefc);
    let mut i = 0;
    while i < n {
        if i < ne {
            d.a.efc_state[i] = state::QUADRATIC;
        } else if i < ne + nf {
            let fl = d.a.efc_frictionloss[i];
            d.a.efc_state[i] = if force[i] <= -fl {
                state::LINEARPOS
            } else if force[i] >= fl {
                state::LINEARNEG
            } else {
                state::QUADRATIC
            };
        } else if d.a.efc_type[i] == kind::CONTACT_ELLIPTIC {
            let c = &d.contact[d.a.efc_id[i] as usize];
            let dim = c.dim as usize;
            let mu = c.mu;
            let nrm = force[i] / mu;
            // `mju_norm` of the friction forces in the regular cone's space
            let mut f = [0.0; 5];
            for j in 1..dim {
                f[j - 1] = force[i + j] / c.friction[j - 1];
            }
            let t = dot(&f[..dim - 1], &f[..dim - 1]).sqrt();
            let st = if mu * nrm >= t {
                state::SATISFIED
            } else if nrm + mu * t <= 0.0 {
                state::QUADRATIC
            } else {
                state::CONE
            };
            d.a.efc_state[i..i + dim].fill(st);
            i += dim;
            continue;
        } else {
            d.a.efc_state[i] = if force[i] <= 0.0 {
                state::SATISFIED
            } else {
                state::QUADRATIC
            };
        }
        i += 1;
    }
}

/// Buffers of one PGS island sweep, indexed by global row.
struct PgsBuffers<'a> {
    force: &'a mut [f64],
    prev: &'a mut [f64],
    momentum: &'a mut [f64],
    blocks: &'a mut Vec<usize>,
}

/// PGS sweeps over one island's rows `list` (ascending), with its own shuffle sequence and
/// stopping test, as MuJoCo's `solPGS` with an `efclist`. Returns the iteration count.
fn pgs_island(
    m: &Model,
    d: &Data,
    ar: &super::dualmat::DualMatrix,
    b: &[f64],
    list: &[usize],
    buf: PgsBuffers,
) -> usize {
    let (ne, nf) = (d.ne, d.nf);
    let scale = 1.0 / (m.stat.meaninertia * (m.nv.max(1) as f64));
    let PgsBuffers {
        force,
        prev,
        momentum,
        blocks,
    } = buf;
    blocks.clear();
    let mut k = 0;
    while k < list.len() {
        let r = list[k];
        blocks.push(r);
        k += if d.a.efc_type[r] == kind::CONTACT_ELLIPTIC {
            d.contact[d.a.efc_id[r] as usize].dim as usize
        } else {
            1
        };
    }
    let mut rng = Pcg32 { state: 0, inc: 1 };
    rng.next();
    for &c in list {
        prev[c] = force[c];
    }
    let mut nesterov_k: i64 = 0;
    let mut iter = 0;
    while iter < m.opt.max_iterations() {
        // Nesterov extrapolation, projected back onto the feasible set
        let beta = if iter > 0 {
            (nesterov_k - 1) as f64 / (nesterov_k + 2) as f64
        } else {
            0.0
        };
        if beta > 0.0 {
            for &c in list {
                let save = force[c];
                force[c] += beta * (force[c] - prev[c]);
                prev[c] = save;
            }
            for &c in list.iter().filter(|&&c| c >= ne && c < ne + nf) {
                let fl = d.a.efc_frictionloss[c];
                force[c] = crate::math::clip(force[c], -fl, fl);
            }
            for &c in blocks.iter().filter(|&&c| c >= ne + nf) {
                if d.a.efc_type[c] == kind::CONTACT_ELLIPTIC {
                    let con = &d.contact[d.a.efc_id[c] as usize];
                    let dim = con.dim as usize;
                    if force[c] < 0.0 {
                        force[c..c + dim].fill(0.0);
                    } else {
                        let nrm = force[c];
                        project_ellipsoid(
                            &mut force[c + 1..c + dim],
                            nrm,
                            &con.friction[..dim - 1],
                            true,
                        );
                    }
                } else {
                    force[c] = force[c].max(0.0);
                }
            }
        } else {
            for &c in list {
                prev[c] = force[c];
            }
        }
        for &c in list {
            momentum[c] = force[c];
        }

        let mut improvement = 0.0;
        rng.shuffle(blocks);
        for &i in blocks.iter() {
            let elliptic = d.a.efc_type[i] == kind::CONTACT_ELLIPTIC;
            let dim = if elliptic {
                d.contact[d.a.efc_id[i] as usize].dim as usize
            } else {
                1
            };
            let mut res = [0.0; 6];
            for j in 0..dim {
                res[j] = b[i + j] + ar.row_dot(i + j, force);
            }
            let mut old = [0.0; 6];
            old[..dim].copy_from_slice(&force[i..i + dim]);
            let mut athis = [0.0; 36];
            // MuJoCo 3.15.0's arithmetic throughout (`solPGS`): steps by the stored 1/AR[i][i],
            // small products by `mju_dot`
            if !elliptic {
                force[i] -= res[0] * ar.arinv[i];
                if i >= ne && i < ne + nf {
                    let fl = d.a.efc_frictionloss[i];
                    force[i] = crate::math::clip(force[i], -fl, fl);
                } else if i >= ne + nf && force[i] < 0.0 {
                    force[i] = 0.0;
                }
                athis[0] = 1.0 / ar.arinv[i];
            } else {
                let con = &d.contact[d.a.efc_id[i] as usize];
                let mu = con.friction;
                for p in 0..dim {
                    for q in 0..dim {
                        athis[p * dim + q] = ar.at(i + p, i + q);
                    }
                }
                if force[i] < crate::math::MINVAL {
                    // normal update
                    force[i] -= res[0] * ar.arinv[i];
                    force[i] = force[i].max(0.0);
                    force[i + 1..i + dim].fill(0.0);
                } else {
                    // ray update along the current force
                    let mut v = [0.0; 6];
                    v[..dim].copy_from_slice(&force[i..i + dim]);
                    let mut av = [0.0; 6];
                    for p in 0..dim {
                        av[p] = dot(&athis[p * dim..(p + 1) * dim], &v[..dim]);
                    }
                    let denom = dot(&v[..dim], &av[..dim]);
                    if denom >= crate::math::MINVAL {
                        let mut x = -dot(&v[..dim], &res[..dim]) / denom;
                        if force[i] + x * v[0] < 0.0 {
                            x = -v[0] / force[i];
                        }
                        for p in 0..dim {
                            force[i + p] += x * v[p];
                        }
                    }
                }
                // friction update with the normal fixed
                let k = dim - 1;
                let mut ac = [0.0; 25];
                let mut bc = [0.0; 5];
                for p in 0..k {
                    for q in 0..k {
                        ac[p * k + q] = athis[(p + 1) * dim + 1 + q];
                    }
                    bc[p] = res[p + 1];
                    bc[p] -= dot(&ac[p * k..(p + 1) * k], &old[1..1 + k]);
                    bc[p] += athis[(p + 1) * dim] * (force[i] - old[0]);
                }
                if force[i] < crate::math::MINVAL {
                    force[i + 1..i + dim].fill(0.0);
                } else {
                    let mut v = [0.0; 5];
                    let active = qcqp(&mut v[..k], &ac[..k * k], &bc[..k], &mu[..k], force[i]);
                    if active {
                        project_ellipsoid(&mut v[..k], force[i], &mu[..k], false);
                    }
                    force[i + 1..i + dim].copy_from_slice(&v[..k]);
                }
            }
            // cost change of this block (`costChange`); an increase is undone
            let mut delta = [0.0; 6];
            for p in 0..dim {
                delta[p] = force[i + p] - old[p];
            }
            let change = if dim == 1 {
                0.5 * delta[0] * delta[0] * athis[0] + delta[0] * res[0]
            } else {
                let mut quad = 0.0;
                for p in 0..dim {
                    quad += delta[p] * dot(&athis[p * dim..(p + 1) * dim], &delta[..dim]);
                }
                0.5 * quad + dot(&delta[..dim], &res[..dim])
            };
            if change > 1e-10 {
                force[i..i + dim].copy_from_slice(&old[..dim]);
            } else {
                improvement -= change;
            }
        }
        improvement *= scale;

        // restart the momentum when the correction opposes the extrapolation
        let restart = iter > 0 && {
            let mut dotp = 0.0;
            for &c in list {
                dotp += (force[c] - momentum[c]) * (momentum[c] - prev[c]);
            }
            dotp < 0.0
        };
        nesterov_k = if restart { 0 } else { nesterov_k + 1 };
        iter += 1;
        if improvement < m.opt.tolerance {
            break;
        }
    }
    iter
}

/// Projected Gauss–Seidel on the dual (`mj_solPGS`): `AR = J·M̃⁻¹·Jᵀ + R`, warm-started from
/// the forces the previous acceleration implies, blocks visited in a PCG32-shuffled order each
/// sweep, with Nesterov extrapolation and O'Donoghue–Candès restart, elliptic cones by a ray
/// update then a QCQP on the friction, and a sweep's cost improvement as the stopping test.
fn pgs(m: &Model, d: &mut Data, s: &mut Scratch, w: &mut SolverScratch) {
    let (nv, n) = (m.nv, d.nefc);
    let mut dual = std::mem::take(&mut w.dual);
    if s.metric.active && s.metric.has_diag {
        dual.build(m, d, &d.a.qH);
    } else {
        dual.build(m, d, &d.a.qLD);
    }
    // b = J·a_s − aref
    w.jar[..n].copy_from_slice(&d.a.efc_b[..n]);
    let b = std::mem::take(&mut w.jar);

    // warm start: the primal forces of qacc_warmstart, unless zero is better for the dual
    let mut f = std::mem::take(&mut w.force);
    f[..n].fill(0.0);
    if !m.opt.disabled(disable::WARMSTART) {
        let mut jw = std::mem::take(&mut w.jv);
        constraint::residual(m, d, &mut jw, &d.a.qacc_warmstart);
        constraint::update(d, &jw[..n], false);
        w.jv = jw;
        f[..n].copy_from_slice(&d.a.efc_force[..n]);
        // the dual cost of these forces, f·b + ½·f·(AR·f), in MuJoCo's order (`warmstart`)
        for r in 0..n {
            w.arf[r] = dual.row_dot(r, &f[..n]);
        }
        let cost = dot_mj_slices(&f[..n], &b[..n]) + 0.5 * dot_mj_slices(&f[..n], &w.arf[..n]);
        if cost > 0.0 {
            f[..n].fill(0.0);
        }
    }
    let force = &mut f[..n];

    // islands (`mj_island`), each solved on its own; with none, one solve over every row
    let mut prev_buf = std::mem::take(&mut w.pgs_prev);
    let mut mom_buf = std::mem::take(&mut w.pgs_momentum);
    let mut blocks = std::mem::take(&mut w.pgs_blocks);
    let mut islands = std::mem::take(&mut w.islands);
    islands.find(m, d);
    let mut iter = 0;
    for k in 0..islands.nisland.max(1) {
        let list = if islands.nisland == 0 {
            &w.all_rows[..n]
        } else {
            islands.island_efcs(k)
        };
        let buf = PgsBuffers {
            force: &mut *force,
            prev: &mut prev_buf[..n],
            momentum: &mut mom_buf[..n],
            blocks: &mut blocks,
        };
        iter = iter.max(pgs_island(m, d, &dual, &b, list, buf));
    }
    w.islands = islands;
    d.a.efc_force[..n].copy_from_slice(force);
    dual_state(d, &f[..n]);
    w.pgs_prev = prev_buf;
    w.pgs_momentum = mom_buf;
    w.pgs_blocks = blocks;
    w.dual = dual;
    w.jar = b;
    let force = std::mem::take(&mut d.a.efc_force);
    constraint::mul_jac_t(d, &mut w.qfrc, &force);
    d.a.efc_force = force;
    w.force = f;
    d.a.qfrc_constraint.copy_from_slice(&w.qfrc);
    // qacc = a_s + M̃⁻¹·Jᵀf
    let mut x = std::mem::take(&mut w.tmp);
    x.copy_from_slice(&w.qfrc);
    if s.metric.active && s.metric.has_diag {
        solve_ld(m, &d.a.qH, &d.a.qHDiagInv, &mut x);
    } else {
        solve_ld(m, &d.a.qLD, &d.a.qLDiagInv, &mut x);
    }
    for i in 0..nv {
        d.a.qacc[i] = d.a.qacc_smooth[i] + x[i];
    }
    w.tmp = x;
    d.solver_niter = iter as i32;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dot_sparse_avx_sums_in_sum_avx_order_bit_for_bit() {
        // two writings of mju_dotSparse_avx's order (blocks of four, then the tail): they must
        // not drift apart
        let x: Vec<f64> = (0..31)
            .map(|i| (i as f64 * 1.3).sin() * 10f64.powi(i % 6 - 2))
            .collect();
        for n in 0..14 {
            let vals: Vec<f64> = (0..n)
                .map(|t| (t as f64 * 0.7).cos() * 10f64.powi(2 - t as i32 % 5))
                .collect();
            let ind: Vec<i32> = (0..n).map(|t| ((t * 13 + 3) % 31) as i32).collect();
            let by_closure = sum_avx(n, |t| vals[t] * x[ind[t] as usize]);
            assert_eq!(
                dot_sparse_avx(&vals, &x, &ind).to_bits(),
                by_closure.to_bits(),
                "n = {n}"
            );
        }
    }

    #[test]
    fn contiguous_dot_part_keeps_mju_dot_order_bit_for_bit() {
        // values of very different magnitudes, so any change of summation order shows
        let a: Vec<f64> = (0..23)
            .map(|i| (i as f64 * 1.7).sin() * 10f64.powi(i % 7 - 3))
            .collect();
        let b: Vec<f64> = (0..23)
            .map(|i| (i as f64 * 0.3).cos() * 10f64.powi(3 - i % 5))
            .collect();
        for (lo, n) in [(0, 23), (2, 9), (5, 4), (7, 3), (1, 1), (3, 0)] {
            let dofs: Vec<usize> = (lo..lo + n).collect();
            let gathered = dot_mj(n, |k| a[dofs[k]] * b[dofs[k]]);
            assert_eq!(
                dot_part(&a, &b, &dofs).to_bits(),
                gathered.to_bits(),
                "{lo}+{n}"
            );
        }
    }
}
