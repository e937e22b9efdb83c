//! Constraint solvers (MuJoCo's `engine_solver.c`): the primal solvers CG and Newton minimize
//! `½(a − a_s)ᵀ M̃ (a − a_s) + s(J·a − aref)` with an exact line search on the piecewise
//! quadratic cost (M̃ is M, or the effective metric under the discrete integrator); PGS solves
//! the dual. All stop on MuJoCo's scaled improvement and gradient tests, so they agree with
//! MuJoCo to `opt.tolerance` although their iteration paths differ.

use super::constraint::{self, kind, state};
use super::inertia::{mul_m, solve_ld};
use super::{metric, Scratch};
use crate::data::Data;
use crate::math::MINVAL;
use crate::model::{disable, Model, Solver};

/// Solver buffers, sized once from the model and the row capacity.
#[derive(Debug, Clone, Default)]
pub struct SolverScratch {
    a: Vec<f64>,
    ma: Vec<f64>,
    mv: Vec<f64>,
    f: Vec<f64>,
    grad: Vec<f64>,
    mgrad: Vec<f64>,
    mgrad_old: Vec<f64>,
    grad_old: Vec<f64>,
    search: Vec<f64>,
    tmp: Vec<f64>,
    qfrc: Vec<f64>,
    jar: Vec<f64>,
    jv: Vec<f64>,
    env: Envelope,
    ar: Vec<f64>,
    y: Vec<f64>,
    force: Vec<f64>,
}

impl SolverScratch {
    pub fn new(m: &Model, maxefc: usize) -> Self {
        let nv = m.nv;
        let z = |n: usize| vec![0.0; n];
        SolverScratch {
            a: z(nv),
            ma: z(nv),
            mv: z(nv),
            f: z(nv),
            grad: z(nv),
            mgrad: z(nv),
            mgrad_old: z(nv),
            grad_old: z(nv),
            search: z(nv),
            tmp: z(nv),
            qfrc: z(nv),
            jar: z(maxefc),
            jv: z(maxefc),
            env: Envelope::default(),
            ar: Vec::new(),
            y: Vec::new(),
            force: z(maxefc),
        }
    }
}

/// A symmetric matrix in envelope (skyline) storage, factored in place as L·Lᵀ. Row `i` holds
/// columns `first[i]..=i`; fill-in stays inside the envelope, so natural dof order works well
/// for the banded patterns of grid flexes.
#[derive(Debug, Clone, Default)]
pub struct Envelope {
    first: Vec<usize>,
    adr: Vec<usize>,
    val: Vec<f64>,
}

impl Envelope {
    fn reset(&mut self, n: usize) {
        self.first.clear();
        self.first.extend(0..n);
    }
    fn touch(&mut self, i: usize, j: usize) {
        let (r, c) = if i >= j { (i, j) } else { (j, i) };
        if c < self.first[r] {
            self.first[r] = c;
        }
    }
    fn finish(&mut self) {
        let n = self.first.len();
        self.adr.clear();
        let mut a = 0;
        for i in 0..n {
            self.adr.push(a);
            a += i - self.first[i] + 1;
        }
        self.adr.push(a);
        self.val.clear();
        self.val.resize(a, 0.0);
    }
    #[inline]
    fn add(&mut self, i: usize, j: usize, v: f64) {
        let (r, c) = if i >= j { (i, j) } else { (j, i) };
        let k = self.adr[r] + c - self.first[r];
        self.val[k] += v;
    }
    fn factor(&mut self) {
        let n = self.first.len();
        for i in 0..n {
            let fi = self.first[i];
            for j in fi..=i {
                let fj = self.first[j];
                let k0 = fi.max(fj);
                let mut s = self.val[self.adr[i] + j - fi];
                for k in k0..j {
                    s -= self.val[self.adr[i] + k - fi] * self.val[self.adr[j] + k - fj];
                }
                if j < i {
                    let djj = self.val[self.adr[j] + j - fj];
                    self.val[self.adr[i] + j - fi] = s / djj;
                } else {
                    self.val[self.adr[i] + i - fi] = s.max(MINVAL).sqrt();
                }
            }
        }
    }
    fn solve(&self, x: &mut [f64]) {
        let n = self.first.len();
        for i in 0..n {
            let fi = self.first[i];
            let mut s = x[i];
            for k in fi..i {
                s -= self.val[self.adr[i] + k - fi] * x[k];
            }
            x[i] = s / self.val[self.adr[i] + i - fi];
        }
        for i in (0..n).rev() {
            let fi = self.first[i];
            x[i] /= self.val[self.adr[i] + i - fi];
            let xi = x[i];
            for k in fi..i {
                x[k] -= self.val[self.adr[i] + k - fi] * xi;
            }
        }
    }
}

/// `out = M̃·x`.
fn mul_mt(m: &Model, d: &Data, s: &mut Scratch, x: &[f64], out: &mut [f64]) {
    mul_m(m, &d.a.M, x, out);
    if s.metric.active {
        metric::mul_add(m, d, s, out, x);
    }
}

/// `out ≈ M̃⁻¹·x`: exact `M⁻¹`, or the metric's block preconditioner.
fn prec(m: &Model, d: &Data, s: &mut Scratch, x: &[f64], out: &mut [f64]) {
    if s.metric.active {
        metric::precondition(m, d, &mut s.metric, out, x);
    } else {
        out.copy_from_slice(x);
        solve_ld(m, &d.a.qLD, &d.a.qLDiagInv, out);
    }
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Cost, slope and curvature of the constraint cost along `jar + α·jv` (`PrimalLSEval`).
fn row_cost(d: &Data, jar: &[f64], jv: &[f64], alpha: f64) -> (f64, f64, f64) {
    let (ne, nf, n) = (d.ne, d.nf, d.nefc);
    let (mut c, mut g, mut h) = (0.0, 0.0, 0.0);
    let mut i = 0;
    while i < n {
        let dd = d.a.efc_D[i];
        let x = jar[i] + alpha * jv[i];
        if i < ne {
            c += 0.5 * dd * x * x;
            g += dd * x * jv[i];
            h += dd * jv[i] * jv[i];
            i += 1;
            continue;
        }
        if i < ne + nf {
            let (r, fl) = (d.a.efc_R[i], d.a.efc_frictionloss[i]);
            if x <= -r * fl {
                c += -0.5 * r * fl * fl - fl * x;
                g += -fl * jv[i];
            } else if x >= r * fl {
                c += -0.5 * r * fl * fl + fl * x;
                g += fl * jv[i];
            } else {
                c += 0.5 * dd * x * x;
                g += dd * x * jv[i];
                h += dd * jv[i] * jv[i];
            }
            i += 1;
            continue;
        }
        if d.a.efc_type[i] != kind::CONTACT_ELLIPTIC {
            if x < 0.0 {
                c += 0.5 * dd * x * x;
                g += dd * x * jv[i];
                h += dd * jv[i] * jv[i];
            }
            i += 1;
            continue;
        }
        let id = d.a.efc_id[i] as usize;
        let con = &d.contact[id];
        let (mu, fr, dim) = (con.mu, con.friction, con.dim as usize);
        let nn = mu * x;
        let dn = mu * jv[i];
        let (mut tt, mut uv, mut vv) = (0.0, 0.0, 0.0);
        for j in 1..dim {
            let u = (jar[i + j] + alpha * jv[i + j]) * fr[j - 1];
            let v = jv[i + j] * fr[j - 1];
            tt += u * u;
            uv += u * v;
            vv += v * v;
        }
        let t = tt.sqrt();
        if nn >= mu * t || (t <= 0.0 && nn >= 0.0) {
            // top zone: no cost
        } else if mu * nn + t <= 0.0 || (t <= 0.0 && nn < 0.0) {
            for j in 0..dim {
                let xj = jar[i + j] + alpha * jv[i + j];
                let dj = d.a.efc_D[i + j];
                c += 0.5 * dj * xj * xj;
                g += dj * xj * jv[i + j];
                h += dj * jv[i + j] * jv[i + j];
            }
        } else {
            let dm = dd / (mu * mu * (1.0 + mu * mu));
            let dt = uv / t;
            let d2t = (vv - dt * dt) / t;
            let q = nn - mu * t;
            let dq = dn - mu * dt;
            let d2q = -mu * d2t;
            c += 0.5 * dm * q * q;
            g += dm * q * dq;
            h += dm * (dq * dq + q * d2q);
        }
        i += dim;
    }
    (c, g, h)
}

/// Exact line search along the search direction (bracketed 1D Newton, `PrimalSearch`).
fn line_search(m: &Model, d: &Data, w: &SolverScratch, g1: f64, g2: f64, scale: f64) -> f64 {
    let eval = |a: f64| {
        let (c, g, h) = row_cost(d, &w.jar[..d.nefc], &w.jv[..d.nefc], a);
        (a * g1 + 0.5 * a * a * g2 + c, g1 + a * g2 + g, g2 + h)
    };
    let (f0, s0, h0) = eval(0.0);
    if s0 >= 0.0 {
        return 0.0;
    }
    let snorm = dot(&w.search, &w.search).sqrt();
    let gtol = m.opt.tolerance * m.opt.ls_tolerance * snorm / scale.max(MINVAL);
    let (mut lo, mut hi) = (0.0f64, f64::INFINITY);
    let mut alpha = if h0 > 0.0 { -s0 / h0 } else { 1.0 };
    let (mut best_a, mut best_f) = (0.0, f0);
    for _ in 0..m.opt.ls_iterations.max(1) {
        let (f, s, h) = eval(alpha);
        if f < best_f {
            best_f = f;
            best_a = alpha;
        }
        if s.abs() < gtol {
            return if f <= best_f { alpha } else { best_a };
        }
        if s < 0.0 {
            lo = lo.max(alpha);
        } else {
            hi = hi.min(alpha);
        }
        let mut next = if h > 0.0 { alpha - s / h } else { f64::NAN };
        if hi.is_finite() {
            if next.is_nan() || next <= lo || next >= hi {
                next = 0.5 * (lo + hi);
            }
        } else if next.is_nan() || next <= lo || !next.is_finite() {
            next = 2.0 * alpha.max(lo);
        }
        if (next - alpha).abs() <= 1e-15 * alpha.abs().max(1e-300) {
            break;
        }
        alpha = next;
    }
    best_a
}

/// Total cost at `w.a`: fills `ma`, `jar`, `efc_force`, `efc_state`, `qfrc`.
fn evaluate(m: &Model, d: &mut Data, s: &mut Scratch, w: &mut SolverScratch, newton: bool) -> f64 {
    mul_mt(m, d, s, &w.a, &mut w.ma);
    constraint::mul_jac(d, &mut w.jar, &w.a);
    for i in 0..d.nefc {
        w.jar[i] -= d.a.efc_aref[i];
    }
    update_cost(m, d, w, newton)
}

/// Cost, row forces and `qfrc` from the current `a`, `ma` and `jar`.
fn update_cost(m: &Model, d: &mut Data, w: &mut SolverScratch, newton: bool) -> f64 {
    let jar = std::mem::take(&mut w.jar);
    let c = constraint::update(d, &jar[..d.nefc], newton);
    w.jar = jar;
    let force = std::mem::take(&mut d.a.efc_force);
    constraint::mul_jac_t(d, &mut w.qfrc, &force);
    d.a.efc_force = force;
    let mut gauss = 0.0;
    for i in 0..m.nv {
        gauss += 0.5 * (w.ma[i] - w.f[i]) * (w.a[i] - d.a.qacc_smooth[i]);
    }
    gauss + c
}

/// Solves for `qacc`, `efc_force` and `qfrc_constraint`.
pub fn solve(m: &Model, d: &mut Data, s: &mut Scratch) {
    let mut w = std::mem::take(&mut s.solver);
    match m.opt.solver {
        Solver::Pgs => pgs(m, d, s, &mut w),
        Solver::Cg => primal(m, d, s, &mut w, false),
        Solver::Newton => primal(m, d, s, &mut w, true),
    }
    s.metric.use_fold = false;
    s.solver = w;
}

fn primal(m: &Model, d: &mut Data, s: &mut Scratch, w: &mut SolverScratch, newton: bool) {
    let nv = m.nv;
    if s.metric.active && !newton {
        metric::fold_constraints(d, &mut s.metric);
    }
    let scale = 1.0 / (m.stat.meaninertia * (nv.max(1) as f64));
    for i in 0..nv {
        w.f[i] = d.a.qfrc_smooth[i]
            + if s.metric.active {
                s.metric.efm_c[i]
            } else {
                0.0
            };
    }
    // warm start: the previous step's acceleration if it costs less than the smooth one
    w.a.copy_from_slice(&d.a.qacc_smooth);
    let mut cost = evaluate(m, d, s, w, newton);
    if !m.opt.disabled(disable::WARMSTART) {
        let keep = std::mem::take(&mut w.tmp);
        let mut smooth = keep;
        smooth.copy_from_slice(&w.a);
        w.a.copy_from_slice(&d.a.qacc_warmstart);
        let cw = evaluate(m, d, s, w, newton);
        if cw < cost {
            cost = cw;
        } else {
            w.a.copy_from_slice(&smooth);
            cost = evaluate(m, d, s, w, newton);
        }
        w.tmp = smooth;
    }
    for i in 0..nv {
        w.grad[i] = w.ma[i] - w.f[i] - w.qfrc[i];
    }
    direction(m, d, s, w, newton);
    for i in 0..nv {
        w.search[i] = -w.mgrad[i];
    }
    let mut iter = 0;
    // zero-iteration certificate
    if 0.5 * scale * dot(&w.grad, &w.mgrad) < m.opt.tolerance {
        finish(d, w, iter);
        return;
    }
    while iter < m.opt.iterations as usize {
        constraint::mul_jac(d, &mut w.jv, &w.search);
        let search = std::mem::take(&mut w.search);
        let mut mv = std::mem::take(&mut w.mv);
        mul_mt(m, d, s, &search, &mut mv);
        w.search = search;
        w.mv = mv;
        let mut g1 = 0.0;
        for i in 0..nv {
            g1 += (w.ma[i] - w.f[i]) * w.search[i];
        }
        let g2 = dot(&w.search, &w.mv);
        let alpha = line_search(m, d, w, g1, g2, scale);
        iter += 1;
        if alpha == 0.0 {
            break;
        }
        // move along the search direction, updating M̃a and J·a − aref incrementally
        for i in 0..nv {
            w.a[i] += alpha * w.search[i];
            w.ma[i] += alpha * w.mv[i];
        }
        for r in 0..d.nefc {
            w.jar[r] += alpha * w.jv[r];
        }
        let old = cost;
        cost = update_cost(m, d, w, newton);
        w.grad_old.copy_from_slice(&w.grad);
        w.mgrad_old.copy_from_slice(&w.mgrad);
        for i in 0..nv {
            w.grad[i] = w.ma[i] - w.f[i] - w.qfrc[i];
        }
        direction(m, d, s, w, newton);
        let improvement = scale * (old - cost);
        let gradient = scale * dot(&w.grad, &w.grad).sqrt();
        if improvement < m.opt.tolerance || gradient < m.opt.tolerance {
            break;
        }
        if newton {
            for i in 0..nv {
                w.search[i] = -w.mgrad[i];
            }
        } else {
            // Polak–Ribière with restart
            let mut num = 0.0;
            for i in 0..nv {
                num += w.grad[i] * (w.mgrad[i] - w.mgrad_old[i]);
            }
            let den = dot(&w.grad_old, &w.mgrad_old);
            let beta = if den.abs() > MINVAL {
                (num / den).max(0.0)
            } else {
                0.0
            };
            for i in 0..nv {
                w.search[i] = -w.mgrad[i] + beta * w.search[i];
            }
        }
    }
    finish(d, w, iter);
}

fn finish(d: &mut Data, w: &SolverScratch, iter: usize) {
    d.a.qacc.copy_from_slice(&w.a);
    d.a.qfrc_constraint.copy_from_slice(&w.qfrc);
    d.solver_niter = iter as i32;
}

/// `mgrad = P⁻¹·grad`: the preconditioner for CG, `H⁻¹` for Newton.
fn direction(m: &Model, d: &mut Data, s: &mut Scratch, w: &mut SolverScratch, newton: bool) {
    let grad = std::mem::take(&mut w.grad);
    let mut mgrad = std::mem::take(&mut w.mgrad);
    if newton {
        hessian(m, d, s, w);
        mgrad.copy_from_slice(&grad);
        w.env.solve(&mut mgrad);
    } else {
        prec(m, d, s, &grad, &mut mgrad);
    }
    w.grad = grad;
    w.mgrad = mgrad;
}

/// Assembles and factors `H = M̃ + Jᵀ·D·J` over the active rows, with elliptic cone blocks.
fn hessian(m: &Model, d: &Data, s: &mut Scratch, w: &mut SolverScratch) {
    let nv = m.nv;
    let env = &mut w.env;
    env.reset(nv);
    for i in 0..nv {
        let adr = m.M_rowadr[i] as usize;
        for k in adr..adr + m.M_rownnz[i] as usize {
            env.touch(i, m.M_colind[k] as usize);
        }
    }
    if s.metric.active {
        metric::for_each_flex_entry(m, d, s, &mut |i, j, _| env.touch(i, j));
    }
    for r in 0..d.nefc {
        let adr = d.a.efc_J_rowadr[r] as usize;
        let n = d.a.efc_J_rownnz[r] as usize;
        if n == 0 {
            continue;
        }
        let c0 = d.a.efc_J_colind[adr] as usize;
        for k in adr..adr + n {
            env.touch(d.a.efc_J_colind[k] as usize, c0);
        }
    }
    env.finish();
    for i in 0..nv {
        let adr = m.M_rowadr[i] as usize;
        for k in adr..adr + m.M_rownnz[i] as usize {
            env.add(i, m.M_colind[k] as usize, d.a.M[k]);
        }
    }
    if s.metric.active {
        if s.metric.has_diag {
            for i in 0..nv {
                env.add(i, i, s.metric.efm_diag[i]);
            }
        }
        metric::for_each_flex_entry(m, d, s, &mut |i, j, v| {
            if i >= j {
                env.add(i, j, v)
            }
        });
    }
    let mut r = 0;
    while r < d.nefc {
        let st = d.a.efc_state[r];
        let adr = d.a.efc_J_rowadr[r] as usize;
        let n = d.a.efc_J_rownnz[r] as usize;
        if d.a.efc_type[r] == kind::CONTACT_ELLIPTIC && st == state::CONE {
            let id = d.a.efc_id[r] as usize;
            let dim = d.contact[id].dim as usize;
            let h = d.contact[id].h;
            // rows of one contact share their sparsity
            for a in 0..dim {
                for b in 0..dim {
                    let hab = h[a * dim + b];
                    if hab == 0.0 {
                        continue;
                    }
                    let ra = d.a.efc_J_rowadr[r + a] as usize;
                    let rb = d.a.efc_J_rowadr[r + b] as usize;
                    for p in 0..n {
                        let cp = d.a.efc_J_colind[ra + p] as usize;
                        let jp = d.a.efc_J[ra + p] * hab;
                        for q in 0..n {
                            let cq = d.a.efc_J_colind[rb + q] as usize;
                            if cp >= cq {
                                env.add(cp, cq, jp * d.a.efc_J[rb + q]);
                            }
                        }
                    }
                }
            }
            r += dim;
            continue;
        }
        if st == state::QUADRATIC {
            let dd = d.a.efc_D[r];
            for p in adr..adr + n {
                let cp = d.a.efc_J_colind[p] as usize;
                let jp = d.a.efc_J[p] * dd;
                for q in adr..adr + n {
                    let cq = d.a.efc_J_colind[q] as usize;
                    if cp >= cq {
                        env.add(cp, cq, jp * d.a.efc_J[q]);
                    }
                }
            }
        }
        r += 1;
    }
    env.factor();
}

/// Projected Gauss–Seidel on the dual (`mj_solPGS`): `AR = J·M̃⁻¹·Jᵀ + R`.
fn pgs(m: &Model, d: &mut Data, s: &mut Scratch, w: &mut SolverScratch) {
    let (nv, n) = (m.nv, d.nefc);
    let scale = 1.0 / (m.stat.meaninertia * (nv.max(1) as f64));
    w.ar.clear();
    w.ar.resize(n * n, 0.0);
    w.y.clear();
    w.y.resize(n * nv, 0.0);
    // Y = M̃⁻¹·Jᵀ, one row at a time
    for r in 0..n {
        w.tmp.fill(0.0);
        let adr = d.a.efc_J_rowadr[r] as usize;
        for k in adr..adr + d.a.efc_J_rownnz[r] as usize {
            w.tmp[d.a.efc_J_colind[k] as usize] = d.a.efc_J[k];
        }
        let t = std::mem::take(&mut w.tmp);
        let mut out = std::mem::take(&mut w.mgrad);
        if s.metric.active && s.metric.has_diag {
            out.copy_from_slice(&t);
            solve_ld(m, &d.a.qH, &d.a.qHDiagInv, &mut out);
        } else {
            out.copy_from_slice(&t);
            solve_ld(m, &d.a.qLD, &d.a.qLDiagInv, &mut out);
        }
        w.y[r * nv..(r + 1) * nv].copy_from_slice(&out);
        w.tmp = t;
        w.mgrad = out;
    }
    for r in 0..n {
        let adr = d.a.efc_J_rowadr[r] as usize;
        let nn = d.a.efc_J_rownnz[r] as usize;
        for c in 0..n {
            let yc = &w.y[c * nv..(c + 1) * nv];
            let mut v = 0.0;
            for k in adr..adr + nn {
                v += d.a.efc_J[k] * yc[d.a.efc_J_colind[k] as usize];
            }
            w.ar[r * n + c] = v;
        }
        w.ar[r * n + r] += d.a.efc_R[r];
    }
    // b = J·a_s − aref
    constraint::mul_jac(d, &mut w.jar, &d.a.qacc_smooth);
    for r in 0..n {
        w.jar[r] -= d.a.efc_aref[r];
    }
    let f = &mut w.force;
    f[..n].fill(0.0);
    let cost_of = |f: &[f64], ar: &[f64], b: &[f64]| {
        let mut c = 0.0;
        for r in 0..n {
            let mut a = 0.0;
            for k in 0..n {
                a += ar[r * n + k] * f[k];
            }
            c += f[r] * (0.5 * a + b[r]);
        }
        c
    };
    let mut cost = 0.0;
    let mut iter = 0;
    while iter < m.opt.iterations as usize {
        iter += 1;
        let mut r = 0;
        while r < n {
            let tp = d.a.efc_type[r];
            let res = |f: &[f64], r: usize| {
                let mut a = w.jar[r];
                for k in 0..n {
                    a += w.ar[r * n + k] * f[k];
                }
                a
            };
            if tp == kind::CONTACT_ELLIPTIC {
                let id = d.a.efc_id[r] as usize;
                let dim = d.contact[id].dim as usize;
                let (mu, fr) = (d.contact[id].friction[0], d.contact[id].friction);
                // normal, then friction with projection onto the cone
                let rn = res(f, r);
                f[r] = (f[r] - rn / w.ar[r * n + r]).max(0.0);
                for j in 1..dim {
                    let rj = res(f, r + j);
                    f[r + j] -= rj / w.ar[(r + j) * n + r + j];
                }
                let mut tn = 0.0;
                for j in 1..dim {
                    tn += (f[r + j] / fr[j - 1]).powi(2);
                }
                let tn = tn.sqrt();
                if tn > f[r] && tn > 0.0 {
                    let sc = f[r] / tn;
                    for j in 1..dim {
                        f[r + j] *= sc;
                    }
                }
                let _ = mu;
                r += dim;
                continue;
            }
            let rr = res(f, r);
            let mut v = f[r] - rr / w.ar[r * n + r];
            if r >= d.ne && r < d.ne + d.nf {
                let fl = d.a.efc_frictionloss[r];
                v = v.clamp(-fl, fl);
            } else if r >= d.ne + d.nf {
                v = v.max(0.0);
            }
            f[r] = v;
            r += 1;
        }
        let old = cost;
        cost = cost_of(f, &w.ar, &w.jar);
        if iter > 1 && scale * (old - cost) < m.opt.tolerance {
            break;
        }
    }
    d.a.efc_force[..n].copy_from_slice(&f[..n]);
    for r in 0..n {
        d.a.efc_state[r] = if f[r] != 0.0 {
            state::QUADRATIC
        } else {
            state::SATISFIED
        };
    }
    let force = std::mem::take(&mut d.a.efc_force);
    constraint::mul_jac_t(d, &mut w.qfrc, &force);
    d.a.efc_force = force;
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
