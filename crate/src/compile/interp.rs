//! Interpolated (trilinear / quadratic) flex elasticity at compile time, as MuJoCo 3.15.0's
//! `mjCFlex::Compile` builds it: one linear element stiffness block per cell (volume mode) or
//! per boundary quad (shell mode), the eigenmodes strain equalities use instead, and the shell
//! bending records.
//!
//! The evaluation order follows MuJoCo's `ComputeLinearStiffness{,2D}` term by term so the
//! blocks agree bit for bit (the strain eigenmodes depend on it). Two 3.15.0 conventions are
//! kept because the engine's forces are defined by them: the shear term uses μ, not 2μ, and the
//! three-point rule puts its outer points at `0.5 ∓ 0.5/√(3/5)`, outside the cell.

use super::orient::normvec;
use crate::engine::flex::{dphi, phi};
use crate::engine::interp::{face_sizes, FaceAxes, Layout, MAX_NPE};
use crate::error::{Error, Result};
use crate::spec::FlexSpec;

type Matrix = [[f64; 3]; 3];

/// Young's modulus and Poisson ratio MuJoCo uses for strain-equality eigenmodes (the modes are
/// geometric; their scale only sets the constraint row norms).
const STRAIN_YOUNG: f64 = 1e1;
const STRAIN_POISSON: f64 = 0.3;

/// Length of one shell bending record in `flex_bending` (after the leading count).
pub const BEND_RECORD: usize = 10;

/// Gauss–Legendre points and weights on [0, 1] for 2 or 3 points (`quadratureGaussLegendre`).
fn quadrature(nbasis: usize) -> ([f64; 3], [f64; 3]) {
    let p0 = (0.0 + 1.0) / 2.0;
    let h = (1.0 - 0.0) / 2.0;
    if nbasis == 2 {
        let s = 3f64.sqrt();
        ([-h / s + p0, h / s + p0, 0.0], [h, h, 0.0])
    } else {
        // 3.15.0: h/√(3/5) instead of h·√(3/5)
        let s = (3.0f64 / 5.0).sqrt();
        (
            [p0, -h / s + p0, h / s + p0],
            [8.0 / 9.0 * h, 5.0 / 9.0 * h, 5.0 / 9.0 * h],
        )
    }
}

fn sym(a: &Matrix) -> Matrix {
    let mut e = [[0.0; 3]; 3];
    for i in 0..3 {
        for j in 0..3 {
            e[i][j] = (a[i][j] + a[j][i]) / 2.0;
        }
    }
    e
}

/// `trace(A·B)`, summed as MuJoCo's `trace(inner(A, B))`.
fn trace_inner(a: &Matrix, b: &Matrix) -> f64 {
    let d = |i: usize| a[i][0] * b[0][i] + a[i][1] * b[1][i] + a[i][2] * b[2][i];
    d(0) + d(1) + d(2)
}

fn trace(a: &Matrix) -> f64 {
    a[0][0] + a[1][1] + a[2][2]
}

/// Adds the two strain-energy terms of one (row, column) entry, in MuJoCo's order.
#[inline]
fn add_entry(k: &mut f64, du: &Matrix, dv: &Matrix, la: f64, mu: f64, dvol: f64) {
    *k -= la * trace(du) * trace(dv) * dvol;
    *k -= mu * trace_inner(&sym(du), &sym(dv)) * dvol;
}

/// Stored (negated) linear stiffness of a volume cell (`ComputeLinearStiffness`); `pos` holds
/// the rest nodes in local order. `k` must be zero on entry.
pub fn cell_stiffness(k: &mut [f64], pos: &[f64], young: f64, nu: f64, order: usize) {
    let nb = order + 1;
    let n = nb * nb * nb;
    let ndof = 3 * n;
    let (pts, w) = quadrature(nb);
    let last = 3 * (n - 1);
    let (dx, dy, dz) = (
        pos[last] - pos[0],
        pos[last + 1] - pos[1],
        pos[last + 2] - pos[2],
    );
    let det = dx * dy * dz;
    let inv = [1.0 / dx, 1.0 / dy, 1.0 / dz];
    let la = young * nu / (1.0 + nu) / (1.0 - 2.0 * nu);
    let mu = young / (2.0 * (1.0 + nu));
    let mut f = [[0.0; 3]; MAX_NPE];
    for ps in 0..nb {
        for pt in 0..nb {
            for pu in 0..nb {
                let (s, t, u) = (pts[ps], pts[pt], pts[pu]);
                let dvol = w[ps] * w[pt] * w[pu] * det;
                let mut dof = 0;
                for bx in 0..nb {
                    for by in 0..nb {
                        for bz in 0..nb {
                            f[dof] = [
                                dphi(s, bx, order) * phi(t, by, order) * phi(u, bz, order),
                                phi(s, bx, order) * dphi(t, by, order) * phi(u, bz, order),
                                phi(s, bx, order) * phi(t, by, order) * dphi(u, bz, order),
                            ];
                            dof += 1;
                        }
                    }
                }
                for i in 0..n {
                    let gi = [inv[0] * f[i][0], inv[1] * f[i][1], inv[2] * f[i][2]];
                    for j in 0..n {
                        let gj = [inv[0] * f[j][0], inv[1] * f[j][1], inv[2] * f[j][2]];
                        for kk in 0..3 {
                            for l in 0..3 {
                                let mut du = [[0.0; 3]; 3];
                                let mut dv = [[0.0; 3]; 3];
                                du[kk] = gi;
                                dv[l] = gj;
                                add_entry(
                                    &mut k[ndof * (3 * i + kk) + 3 * j + l],
                                    &du,
                                    &dv,
                                    la,
                                    mu,
                                    dvol,
                                );
                            }
                        }
                    }
                }
            }
        }
    }
}

/// Stored (negated) plane-stress membrane stiffness of a flat shell quad
/// (`ComputeLinearStiffness2D`); rows and columns of the normal axis stay zero.
pub fn face_stiffness(
    k: &mut [f64],
    pos: &[f64],
    young: f64,
    nu: f64,
    order: usize,
    thickness: f64,
    axes: &FaceAxes,
) -> Result<()> {
    let nb = order + 1;
    let npe = nb * nb;
    let ndof = 3 * npe;
    let (a0, a1) = (axes.a0, axes.a1);
    let (pts, w) = quadrature(nb);
    let last = 3 * (npe - 1);
    let d0 = pos[last + a0] - pos[a0];
    let d1 = pos[last + a1] - pos[a1];
    if d0 == 0.0 || d1 == 0.0 {
        return Err(Error::compile("degenerate 2D element with zero extent"));
    }
    let det = d0 * d1;
    let (i0, i1) = (1.0 / d0, 1.0 / d1);
    let la = young * nu / (1.0 - nu * nu);
    let mu = young / (2.0 * (1.0 + nu));
    let mut f = [[0.0; 2]; MAX_NPE];
    for ps in 0..nb {
        for pt in 0..nb {
            let (s, t) = (pts[ps], pts[pt]);
            let dvol = w[ps] * w[pt] * det * thickness;
            let mut dof = 0;
            for b0 in 0..nb {
                for b1 in 0..nb {
                    f[dof] = [
                        dphi(s, b0, order) * phi(t, b1, order),
                        phi(s, b0, order) * dphi(t, b1, order),
                    ];
                    dof += 1;
                }
            }
            for i in 0..npe {
                for j in 0..npe {
                    for kk in [a0, a1] {
                        for l in [a0, a1] {
                            let mut du = [[0.0; 3]; 3];
                            let mut dv = [[0.0; 3]; 3];
                            du[kk][a0] = i0 * f[i][0];
                            du[kk][a1] = i1 * f[i][1];
                            dv[l][a0] = i0 * f[j][0];
                            dv[l][a1] = i1 * f[j][1];
                            add_entry(
                                &mut k[ndof * (3 * i + kk) + 3 * j + l],
                                &du,
                                &dv,
                                la,
                                mu,
                                dvol,
                            );
                        }
                    }
                }
            }
        }
    }
    Ok(())
}

/// Cyclic Jacobi eigen-decomposition of a symmetric `n×n` matrix (`mjuu_eigendecompose`):
/// eigenvalues in `val`, eigenvectors as the columns of `vec` (row-major). `a` is destroyed.
pub fn eigendecompose(a: &mut [f64], val: &mut [f64], vec: &mut [f64], n: usize) {
    vec[..n * n].fill(0.0);
    for i in 0..n {
        vec[i * n + i] = 1.0;
    }
    let tol = 1e-12;
    for _sweep in 0..200 {
        let mut off = 0.0;
        for i in 0..n {
            for j in i + 1..n {
                off += a[i * n + j] * a[i * n + j];
            }
        }
        if off < tol * tol {
            break;
        }
        for p in 0..n {
            for q in p + 1..n {
                let apq = a[p * n + q];
                if apq.abs() < tol * 1e-3 {
                    continue;
                }
                let app = a[p * n + p];
                let aqq = a[q * n + q];
                let tau = (aqq - app) / (2.0 * apq);
                let sign = if tau >= 0.0 { 1.0 } else { -1.0 };
                let t = sign / (tau.abs() + (1.0 + tau * tau).sqrt());
                let c = 1.0 / (1.0 + t * t).sqrt();
                let s = t * c;
                a[p * n + p] -= t * apq;
                a[q * n + q] += t * apq;
                a[p * n + q] = 0.0;
                a[q * n + p] = 0.0;
                for r in 0..n {
                    if r == p || r == q {
                        continue;
                    }
                    let mrp = a[r * n + p];
                    let mrq = a[r * n + q];
                    let x = c * mrp - s * mrq;
                    let y = s * mrp + c * mrq;
                    a[r * n + p] = x;
                    a[p * n + r] = x;
                    a[r * n + q] = y;
                    a[q * n + r] = y;
                }
                for r in 0..n {
                    let vrp = vec[r * n + p];
                    let vrq = vec[r * n + q];
                    vec[r * n + p] = c * vrp - s * vrq;
                    vec[r * n + q] = s * vrp + c * vrq;
                }
            }
        }
    }
    for i in 0..n {
        val[i] = a[i * n + i];
    }
}

/// Replaces a stored block by its strain modes (`EigendecomposeStiffness`):
/// `[neig, √λ₁·v₁, √λ₂·v₂, …]`, zero-padded; returns `neig`.
fn strain_modes(block: &mut [f64], ndof: usize) -> usize {
    let mut a = block[..ndof * ndof].to_vec();
    let mut val = vec![0.0; ndof];
    let mut vec = vec![0.0; ndof * ndof];
    eigendecompose(&mut a, &mut val, &mut vec, ndof);
    let max = val.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    let threshold = max * 1e-8;
    block[..ndof * ndof].fill(0.0);
    let mut neig = 0;
    for i in 0..ndof {
        // stored blocks are negated: the physical eigenvalue is −val
        let lambda = -val[i];
        if lambda > threshold {
            let scale = lambda.sqrt();
            let out = &mut block[1 + neig * ndof..1 + (neig + 1) * ndof];
            for j in 0..ndof {
                out[j] = scale * vec[j * ndof + i];
            }
            neig += 1;
        }
    }
    block[0] = neig as f64;
    neig
}

/// Unit bilinear warp mode of a face, orthogonal to its rigid motions (`ComputeWarpMode`).
fn warp_mode(warp: &mut [f64], pos: &[f64], npe: usize, order: usize, normal: usize) {
    let ndof = 3 * npe;
    let nb = order + 1;
    warp[..ndof].fill(0.0);
    for b0 in 0..nb {
        for b1 in 0..nb {
            let node = b0 * nb + b1;
            let s = b0 as f64 / (nb - 1) as f64;
            let t = b1 as f64 / (nb - 1) as f64;
            warp[3 * node + normal] = (1.0 - 2.0 * s) * (1.0 - 2.0 * t);
        }
    }
    let mut centroid = [0.0; 3];
    for n in 0..npe {
        for k in 0..3 {
            centroid[k] += pos[3 * n + k];
        }
    }
    for c in centroid.iter_mut() {
        *c /= npe as f64;
    }
    let mut rigid = vec![0.0; 6 * ndof];
    for n in 0..npe {
        rigid[3 * n] = 1.0;
        rigid[ndof + 3 * n + 1] = 1.0;
        rigid[2 * ndof + 3 * n + 2] = 1.0;
    }
    for n in 0..npe {
        let rx = pos[3 * n] - centroid[0];
        let ry = pos[3 * n + 1] - centroid[1];
        let rz = pos[3 * n + 2] - centroid[2];
        rigid[3 * ndof + 3 * n + 1] = -rz;
        rigid[3 * ndof + 3 * n + 2] = ry;
        rigid[4 * ndof + 3 * n] = rz;
        rigid[4 * ndof + 3 * n + 2] = -rx;
        rigid[5 * ndof + 3 * n] = -ry;
        rigid[5 * ndof + 3 * n + 1] = rx;
    }
    // modified Gram–Schmidt on the rigid modes
    for i in 0..6 {
        for j in 0..i {
            let (head, tail) = rigid.split_at_mut(i * ndof);
            let rj = &head[j * ndof..(j + 1) * ndof];
            let ri = &mut tail[..ndof];
            let mut dot = 0.0;
            for k in 0..ndof {
                dot += ri[k] * rj[k];
            }
            for k in 0..ndof {
                ri[k] -= dot * rj[k];
            }
        }
        let ri = &mut rigid[i * ndof..(i + 1) * ndof];
        let mut norm2 = 0.0;
        for x in ri.iter() {
            norm2 += x * x;
        }
        if norm2 > 1e-20 {
            let inv = 1.0 / norm2.sqrt();
            for x in ri.iter_mut() {
                *x *= inv;
            }
        }
    }
    for i in 0..6 {
        let ri = &rigid[i * ndof..(i + 1) * ndof];
        let mut dot = 0.0;
        for k in 0..ndof {
            dot += warp[k] * ri[k];
        }
        for k in 0..ndof {
            warp[k] -= dot * ri[k];
        }
    }
    let mut norm2 = 0.0;
    for x in warp[..ndof].iter() {
        norm2 += x * x;
    }
    if norm2 > 1e-20 {
        let inv = 1.0 / norm2.sqrt();
        for x in warp[..ndof].iter_mut() {
            *x *= inv;
        }
    }
}

/// Twist stiffness of the warp mode, `D(1−ν)·4/(d0·d1)` (`ComputeWarpStiffness`).
fn warp_stiffness(pos: &[f64], npe: usize, axes: &FaceAxes, young: f64, nu: f64, th: f64) -> f64 {
    let d0 = (pos[3 * (npe - 1) + axes.a0] - pos[axes.a0]).abs();
    let d1 = (pos[3 * (npe - 1) + axes.a1] - pos[axes.a1]).abs();
    if d0 < 1e-30 || d1 < 1e-30 {
        return 0.0;
    }
    let d = young * th * th * th / (12.0 * (1.0 - nu * nu));
    d * (1.0 - nu) * 4.0 / (d0 * d1)
}

/// `flex_stiffness` of an interpolated flex: one block per element, `(3·npe)²` numbers each,
/// computed on the rest nodes `node0` (the unrotated grid frame). With a strain equality the
/// blocks hold strain modes instead (E = 10, ν = 0.3). Empty cells keep all-zero blocks.
pub fn stiffness(
    f: &FlexSpec,
    node0: &[f64],
    cell_empty: &[bool],
    strain: bool,
) -> Result<Vec<f64>> {
    let interp = if f.elastic2d != 0 { -f.order } else { f.order };
    let lay = Layout::new(interp, &f.cellcount);
    if !(1..=2).contains(&lay.order) {
        return Err(Error::unsupported(
            "interpolation order other than trilinear or quadratic",
        ));
    }
    let (young, nu) = if strain {
        (STRAIN_YOUNG, STRAIN_POISSON)
    } else {
        (f.young, f.poisson)
    };
    let ndof = lay.edof();
    let mut out = vec![0.0; lay.nelem * ndof * ndof];
    let mut nodes = [0usize; MAX_NPE];
    let mut pos = [0.0; 3 * MAX_NPE];
    let mut block = vec![0.0; ndof * ndof];
    for fe in 0..lay.nelem {
        if !lay.shell && cell_empty.get(fe).copied().unwrap_or(false) {
            continue;
        }
        let axes = lay.element(fe, &mut nodes);
        for n in 0..lay.npe {
            let g = 3 * nodes[n];
            if g + 3 > node0.len() {
                return Err(Error::compile("flex_interp_order mismatch"));
            }
            pos[3 * n..3 * n + 3].copy_from_slice(&node0[g..g + 3]);
        }
        block.fill(0.0);
        if lay.shell {
            face_stiffness(&mut block, &pos, young, nu, lay.order, f.thickness, &axes)?;
        } else {
            cell_stiffness(&mut block, &pos, young, nu, lay.order);
        }
        if strain {
            let neig = strain_modes(&mut block, ndof);
            if lay.shell {
                let kw = warp_stiffness(&pos, lay.npe, &axes, young, nu, f.thickness);
                if kw > 0.0 {
                    let w = &mut block[1 + neig * ndof..1 + (neig + 1) * ndof];
                    warp_mode(w, &pos, lay.npe, lay.order, axes.normal);
                    let scale = kw.sqrt();
                    for x in w.iter_mut() {
                        *x *= scale;
                    }
                    block[0] = (neig + 1) as f64;
                }
            }
        }
        out[fe * ndof * ndof..(fe + 1) * ndof * ndof].copy_from_slice(&block);
    }
    Ok(out)
}

/// One shell bending hinge between two face quads: their global element ids and the local
/// coordinates of the shared edge's midpoint on each.
struct Hinge {
    fe: [usize; 2],
    loc: [[f64; 2]; 2],
}

/// The quad across the edge of quad (face, q0, q1) in direction `dir` (0: slow axis, 1: fast
/// axis) on side `side` (±1), with the edge-midpoint coordinates on both quads.
fn neighbour(
    cells: [usize; 3],
    face: usize,
    q0: usize,
    q1: usize,
    dir: usize,
    side: i64,
) -> (usize, usize, [f64; 2], [f64; 2]) {
    let sizes = face_sizes(cells);
    let count1 = [cells[2], cells[2], cells[0], cells[0], cells[1], cells[1]];
    let count0 = |f: usize| sizes[f] / count1[f].max(1);
    let (nax, sf) = (face / 2, face % 2);
    let edge = if side > 0 { 1.0 } else { 0.0 };
    let la = [
        if dir == 0 { edge } else { 0.5 },
        if dir == 1 { edge } else { 0.5 },
    ];
    let qn = if dir == 0 { q0 } else { q1 } as i64 + side;
    let qmax = if dir == 0 { count0(face) } else { count1[face] } as i64;
    if qn >= 0 && qn < qmax {
        let (q0b, q1b) = if dir == 0 {
            (qn as usize, q1)
        } else {
            (q0, qn as usize)
        };
        let other = 1.0 - edge;
        let lb = [
            if dir == 0 { other } else { 0.5 },
            if dir == 1 { other } else { 0.5 },
        ];
        return (face, q0b * count1[face] + q1b, la, lb);
    }
    let ax = if dir == 0 {
        (nax + 1) % 3
    } else {
        (nax + 2) % 3
    };
    let fb = 2 * ax + usize::from(side > 0);
    let qb = if sf == 1 { cells[nax] - 1 } else { 0 };
    let bound = if sf == 1 { 1.0 } else { 0.0 };
    let (q0b, q1b, lb) = if dir == 0 {
        (q1, qb, [0.5, bound])
    } else {
        (qb, q0, [bound, 0.5])
    };
    (fb, q0b * count1[fb] + q1b, la, lb)
}

/// `flex_bending` of an interpolated shell (`ComputeInterpBending`): `[nedge, records…]`, each
/// record `[fe_A, fe_B, ξ_A, η_A, ξ_B, η_B, stiffness, Δn₀]` for one hinge between quads,
/// with stiffness `D·l/h` (plate rigidity × along-edge / across-edge tangent lengths).
pub fn shell_bending(f: &FlexSpec, node0: &[f64]) -> Vec<f64> {
    let lay = Layout::new(-f.order, &f.cellcount);
    let cells = lay.cells;
    if lay.order == 0 || cells.contains(&0) {
        return vec![0.0];
    }
    let d =
        f.young * f.thickness * f.thickness * f.thickness / (12.0 * (1.0 - f.poisson * f.poisson));
    let sizes = face_sizes(cells);
    let count1 = [cells[2], cells[2], cells[0], cells[0], cells[1], cells[1]];
    let mut cumul = [0usize; 6];
    for k in 1..6 {
        cumul[k] = cumul[k - 1] + sizes[k - 1];
    }
    let mut hinges = Vec::new();
    for face in 0..6 {
        let nc1 = count1[face];
        let nc0 = sizes[face] / nc1;
        for q0 in 0..nc0 {
            for q1 in 0..nc1 {
                let fe_a = cumul[face] + q0 * nc1 + q1;
                for dir in 0..2 {
                    for side in [-1i64, 1] {
                        let (fb, wb, la, lb) = neighbour(cells, face, q0, q1, dir, side);
                        let fe_b = cumul[fb] + wb;
                        if fe_a < fe_b {
                            hinges.push(Hinge {
                                fe: [fe_a, fe_b],
                                loc: [la, lb],
                            });
                        }
                    }
                }
            }
        }
    }
    let mut out = vec![0.0; 1 + hinges.len() * BEND_RECORD];
    out[0] = hinges.len() as f64;
    let mut nodes = [0usize; MAX_NPE];
    let mut pos = [[0.0; 3 * MAX_NPE]; 2];
    for (e, h) in hinges.iter().enumerate() {
        let mut n = [[0.0; 3]; 2];
        let mut t = [[[0.0; 3]; 2]; 2];
        for s in 0..2 {
            lay.element(h.fe[s], &mut nodes);
            for k in 0..lay.npe {
                pos[s][3 * k..3 * k + 3].copy_from_slice(&node0[3 * nodes[k]..3 * nodes[k] + 3]);
            }
            let (t1, t2, c) =
                crate::engine::interp::face_tangents(&pos[s][..], lay.order, &h.loc[s]);
            t[s] = [t1, t2];
            n[s] = c;
        }
        let [mut na, mut nb] = n;
        let len_a = normvec(&mut na);
        let len_b = normvec(&mut nb);
        if len_a < 1e-12 || len_b < 1e-12 {
            continue;
        }
        let dn0 = [na[0] - nb[0], na[1] - nb[1], na[2] - nb[2]];
        // the tangent whose local coordinate is ½ runs along the edge
        let lengths = |s: usize| -> (f64, f64) {
            let [mut t1, mut t2] = t[s];
            if h.loc[s][0] == 0.5 {
                (normvec(&mut t1), normvec(&mut t2))
            } else {
                let hh = normvec(&mut t1);
                (normvec(&mut t2), hh)
            }
        };
        let (l_a, h_a) = lengths(0);
        let (l_b, h_b) = lengths(1);
        let h_avg = (h_a + h_b) / 2.0;
        let l_avg = (l_a + l_b) / 2.0;
        let k = d * l_avg / h_avg.max(1e-12);
        let r = &mut out[1 + e * BEND_RECORD..1 + (e + 1) * BEND_RECORD];
        r[0] = h.fe[0] as f64;
        r[1] = h.fe[1] as f64;
        r[2] = h.loc[0][0];
        r[3] = h.loc[0][1];
        r[4] = h.loc[1][0];
        r[5] = h.loc[1][1];
        r[6] = k;
        r[7..10].copy_from_slice(&dn0);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rest nodes of a 1-cell box [−½,½]² × [½,1½] (the spec's example A), x slowest.
    fn unit_box(order: usize) -> Vec<f64> {
        let n = order + 1;
        let mut v = Vec::new();
        for i in 0..n {
            for j in 0..n {
                for k in 0..n {
                    let s = |a: usize| a as f64 / order as f64;
                    v.extend_from_slice(&[s(i) - 0.5, s(j) - 0.5, s(k) + 0.5]);
                }
            }
        }
        v
    }

    fn spec(order: i32) -> FlexSpec {
        FlexSpec {
            order,
            young: 1000.0,
            poisson: 0.3,
            thickness: 0.05,
            cellcount: [1, 1, 1],
            ..Default::default()
        }
    }

    #[test]
    fn trilinear_block_matches_mujoco() {
        let k = stiffness(&spec(1), &unit_box(1), &[], false).unwrap();
        assert_eq!(k.len(), 576);
        let want = [
            -149.57264957265,
            -64.102564102564,
            -64.102564102564,
            -42.735042735043,
        ];
        for (a, b) in k.iter().zip(want) {
            assert!((a - b).abs() < 1e-9, "{a} vs {b}");
        }
        // symmetric, and the rigid translations are in its null space
        for i in 0..24 {
            let row: f64 = (0..8).map(|n| k[24 * i + 3 * n]).sum();
            assert!(row.abs() < 1e-9);
            for j in 0..24 {
                assert!((k[24 * i + j] - k[24 * j + i]).abs() < 1e-12);
            }
        }
    }

    #[test]
    fn quadratic_block_matches_mujoco() {
        let k = stiffness(&spec(2), &unit_box(2), &[], false).unwrap();
        assert_eq!(k.len(), 6561);
        let want = [
            -2412.707221425406,
            -915.960278100196,
            -915.960278100196,
            1576.808656522115,
        ];
        for (a, b) in k.iter().zip(want) {
            assert!((a - b).abs() < 1e-8, "{a} vs {b}");
        }
    }

    #[test]
    fn strain_modes_reproduce_the_block() {
        let k = stiffness(&spec(1), &unit_box(1), &[], false).unwrap();
        let modes = stiffness(&spec(1), &unit_box(1), &[], true).unwrap();
        assert_eq!(modes[0], 18.0);
        // Σ w wᵀ = −K at E = 10: the stored block scaled by 10/1000
        for i in 0..24 {
            for j in 0..24 {
                let s: f64 = (0..18)
                    .map(|e| modes[1 + 24 * e + i] * modes[1 + 24 * e + j])
                    .sum();
                assert!((s + k[24 * i + j] * 1e-2).abs() < 1e-9);
            }
        }
    }

    #[test]
    fn shell_bending_first_record_matches_mujoco() {
        let mut f = spec(1);
        f.elastic2d = 1;
        let b = shell_bending(&f, &unit_box(1));
        assert_eq!(b.len(), 121);
        let want = [
            12.0,
            0.0,
            2.0,
            0.0,
            0.5,
            0.5,
            0.0,
            0.011446886447,
            1.0,
            -1.0,
            0.0,
        ];
        for (a, w) in b.iter().zip(want) {
            assert!((a - w).abs() < 1e-11, "{a} vs {w}");
        }
        let k = stiffness(&f, &unit_box(1), &[], false).unwrap();
        assert_eq!(k.len(), 864);
        // faces 0 and 1 have normal x, so their first entry is zero (the whole-flex gate)
        assert_eq!(k[0], 0.0);
        let strain = stiffness(&f, &unit_box(1), &[], true).unwrap();
        assert_eq!(strain[0], 6.0);
    }
}
