//! The Newton solver's Hessians, sparse and dense (each with incremental updates), invert
//! H = M + Jᵀ·D·J on states reached by real steps.

use flexlab::engine::constraint::{self, kind, state};
use flexlab::engine::inertia::mul_m;
use flexlab::engine::newton_dense::{IslandRef, MetricTerms};
use flexlab::engine::newton_sparse::SparseHessian;
use flexlab::engine::{metric, Scratch};
use flexlab::model::{Model, Solver};
use flexlab::Data;

/// `out = H·x` straight from the definition, matrix-free: `M̃·x` plus, over the active
/// rows, `Jᵀ·D·J·x` (the cone block `Jᵀ·h·J` for an elliptic contact in the cone zone).
fn mul_h(m: &Model, d: &Data, s: &mut Scratch, x: &[f64], out: &mut [f64]) {
    mul_m(m, &d.a.M, x, out);
    if s.metric.active {
        metric::mul_add(m, d, s, out, x);
    }
    let mut jx = vec![0.0; d.nefc];
    constraint::mul_jac(m, d, &mut jx, x);
    let mut f = vec![0.0; d.nefc];
    let mut r = 0;
    while r < d.nefc {
        let st = d.a.efc_state[r];
        if d.a.efc_type[r] == kind::CONTACT_ELLIPTIC && st == state::CONE {
            let con = &d.contact[d.a.efc_id[r] as usize];
            let dim = con.dim as usize;
            for a in 0..dim {
                f[r + a] = (0..dim).map(|b| con.h[a * dim + b] * jx[r + b]).sum();
            }
            r += dim;
            continue;
        }
        if st == state::QUADRATIC {
            f[r] = d.a.efc_D[r] * jx[r];
        }
        r += 1;
    }
    let mut jtf = vec![0.0; m.nv];
    constraint::mul_jac_t(d, &mut jtf, &f);
    for (o, v) in out.iter_mut().zip(&jtf) {
        *o += v;
    }
}

/// Flips every third row after the equality rows between the quadratic zone and satisfied (as
/// between Newton iterations), except those `keep` holds; returns how many flipped.
fn flip_states(d: &mut Data, keep: impl Fn(&Data, usize) -> bool) -> usize {
    let mut flipped = 0;
    for r in (d.ne..d.nefc).step_by(3) {
        if keep(d, r) {
            continue;
        }
        let st = &mut d.a.efc_state[r];
        *st = if *st == state::QUADRATIC {
            state::SATISFIED
        } else {
            state::QUADRATIC
        };
        flipped += 1;
    }
    flipped
}

/// Checks `H·x = b` to 1e-8 relative for `x` from `solve(b, x)` and a right-hand side `b`
/// that `seed` varies, `H` applied matrix-free by [`mul_h`].
fn assert_inverts(
    what: &str,
    m: &Model,
    d: &Data,
    s: &mut Scratch,
    seed: usize,
    solve: impl FnOnce(&[f64], &mut [f64]),
) {
    let nv = m.nv;
    let b: Vec<f64> = (0..nv)
        .map(|i| ((i * 7919 + seed) % 97) as f64 / 97.0 - 0.5)
        .collect();
    let mut x = vec![0.0; nv];
    solve(&b, &mut x);
    let mut hx = vec![0.0; nv];
    mul_h(m, d, s, &x, &mut hx);
    let scale = b.iter().fold(0.0f64, |a, v| a.max(v.abs()));
    let err = hx
        .iter()
        .zip(&b)
        .fold(0.0f64, |a, (p, q)| a.max((p - q).abs()));
    assert!(err < 1e-8 * scale, "{what}: |H·H⁻¹b − b| = {err:e}");
}

/// The discrete metric's part `S` of the Hessian as the solver gathers it: the diagonal
/// `efm_sdiag` and the flexes' entries (lower triangle).
fn metric_terms(s: &Scratch) -> (Vec<f64>, Vec<(u32, u32, f64)>) {
    let (mut diag, mut entries) = (Vec::new(), Vec::new());
    if s.metric.active {
        if s.metric.has_diag {
            diag.extend_from_slice(&s.metric.efm_sdiag);
        }
        metric::for_each_coupling_entry(s, &mut |i, j, v| {
            if i >= j {
                entries.push((i as u32, j as u32, v));
            }
        });
    }
    (diag, entries)
}

/// Steps a sparse Newton model and, every 10 steps with constraint rows, checks
/// `H·(H⁻¹·b) = b` with the sparse factor (MuJoCo's reverse Cholesky, over the whole model as
/// one island) against the matrix-free product: factored at the rows' states, then after
/// rank-1 updates and downdates for rows flipped in and out of the quadratic zone. Returns
/// (states checked, cone rows met, rows flipped).
fn check_model(name: &str, steps: usize) -> (usize, usize, usize) {
    let path = format!("{}/tests/models/{name}", env!("CARGO_MANIFEST_DIR"));
    let m = flexlab::load_file(std::path::Path::new(&path)).expect("model");
    assert_eq!(m.opt.solver, Solver::Newton, "{name}");
    assert!(
        constraint::sparse_jacobian(&m),
        "{name} is not a sparse model"
    );
    let mut d = Data::new(&m);
    let nv = m.nv;
    let dofs: Vec<usize> = (0..nv).collect();
    let (mut checked, mut cone_rows, mut flipped) = (0, 0, 0);
    let mut hess = SparseHessian::new(nv);
    for step in 0..steps {
        flexlab::engine::step(&m, &mut d);
        if step % 10 != 9 || d.nefc == 0 {
            continue;
        }
        checked += 1;
        // the solver's state at this step: rows, states, cone Hessians, metric
        let mut s = std::mem::take(&mut d.scratch);
        flexlab::engine::forward::forward_core(&m, &mut d, &mut s);
        cone_rows += (0..d.nefc)
            .filter(|&r| d.a.efc_state[r] == state::CONE)
            .count();
        let (diag, entries) = metric_terms(&s);
        let metric = MetricTerms {
            diag: &diag,
            entries: &entries,
        };
        let rows: Vec<usize> = (0..d.nefc).collect();
        let isl = IslandRef {
            dofs: &dofs,
            rows: &rows,
            local: &dofs,
        };
        hess.start(&m, &d, metric, isl);
        for round in 0..3 {
            if round > 0 {
                let old = d.a.efc_state[..d.nefc].to_vec();
                // rows of contacts in the cone zone keep their state (their block is the
                // cone's); any other row may flip, each row being its own rank-1 term
                flipped += flip_states(&mut d, |d, r| d.a.efc_state[r] == state::CONE);
                hess.update(&m, &d, isl, &old);
            }
            let what = format!("{name} step {step} round {round}");
            assert_inverts(&what, &m, &d, &mut s, step + round, |b, x| {
                hess.solve(b, x, &dofs)
            });
        }
        d.scratch = s;
    }
    (checked, cone_rows, flipped)
}

#[test]
fn sparse_hessian_inverts_the_newton_hessian() {
    // a pinned cloth under the discrete integrator (metric entries, pyramidal contacts) and
    // the same with elliptic contacts (cone blocks)
    for (name, steps) in [
        ("cloth_pinned_newton.xml", 200),
        ("cloth_pinned_elliptic_newton.xml", 200),
    ] {
        let (checked, cones, flipped) = check_model(name, steps);
        assert!(checked > 0, "{name}: no state with constraint rows");
        assert!(flipped > 0, "{name}: no row flipped");
        if name.contains("elliptic") {
            assert!(
                cones > 0,
                "{name}: no elliptic contact reached the cone zone"
            );
        }
    }
}

/// The dense Newton Hessian of a small model (MuJoCo's per-island `mju_cholFactor` and
/// `mju_cholUpdate`), over the whole model as one island: factored at the rows' states, then
/// after rank-1 updates and downdates for rows flipped in and out of the quadratic zone,
/// `H·(H⁻¹·b) = b` against the matrix-free product. Returns (states checked, cone rows met,
/// rows flipped).
fn check_dense(name: &str, steps: usize) -> (usize, usize, usize) {
    use flexlab::engine::newton_dense::DenseHessian;
    let path = format!("{}/tests/models/{name}", env!("CARGO_MANIFEST_DIR"));
    let m = flexlab::load_file(std::path::Path::new(&path)).expect("model");
    assert!(
        !constraint::sparse_jacobian(&m),
        "{name} is not a dense model"
    );
    let mut d = Data::new(&m);
    if m.nkey > 0 {
        d.reset_keyframe(&m, 0);
    }
    let nv = m.nv;
    let dofs: Vec<usize> = (0..nv).collect();
    let (mut checked, mut cone_rows, mut flipped) = (0, 0, 0);
    let mut hess = DenseHessian::new(nv);
    for step in 0..steps {
        flexlab::engine::step(&m, &mut d);
        if step % 10 != 9 || d.nefc == 0 {
            continue;
        }
        checked += 1;
        let mut s = std::mem::take(&mut d.scratch);
        flexlab::engine::forward::forward_core(&m, &mut d, &mut s);
        cone_rows += (0..d.nefc)
            .filter(|&r| d.a.efc_state[r] == state::CONE)
            .count();
        let rows: Vec<usize> = (0..d.nefc).collect();
        let isl = IslandRef {
            dofs: &dofs,
            rows: &rows,
            local: &dofs,
        };
        let (diag, entries) = metric_terms(&s);
        let metric = MetricTerms {
            diag: &diag,
            entries: &entries,
        };
        hess.start(&m, &d, metric, isl);
        for round in 0..3 {
            if round > 0 {
                let old = d.a.efc_state[..d.nefc].to_vec();
                // rows of contacts in the cone zone keep their state (their block is the
                // cone's); any other row may flip, each row being its own rank-1 term
                flipped += flip_states(&mut d, |d, r| d.a.efc_state[r] == state::CONE);
                hess.update(&m, &d, metric, isl, &old);
            }
            let what = format!("{name} step {step} round {round}");
            assert_inverts(&what, &m, &d, &mut s, step + round, |b, x| {
                hess.solve(b, x, &dofs)
            });
        }
        d.scratch = s;
    }
    (checked, cone_rows, flipped)
}

#[test]
fn dense_hessian_inverts_the_newton_hessian() {
    // free bodies and a hinge under the elliptic cone (cone blocks), boxes under the
    // pyramidal one, and interpolated flexes held by equality rows under discrete (rows over
    // the nodes' bodies, metric entries)
    for (name, steps) in [
        ("newton_dense_elliptic.xml", 300),
        ("box_box_sphere.xml", 200),
        ("trilinear_strain_equality.xml", 100),
    ] {
        let (checked, cones, flipped) = check_dense(name, steps);
        assert!(checked > 0, "{name}: no state with constraint rows");
        // equality rows never flip
        if !name.contains("equality") {
            assert!(flipped > 0, "{name}: no row flipped");
        }
        if name.contains("elliptic") {
            assert!(
                cones > 0,
                "{name}: no elliptic contact reached the cone zone"
            );
        }
    }
}
