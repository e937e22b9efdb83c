//! Stable Neo-Hookean tetrahedra: the PSD projection of the material Hessian (Smith et al.,
//! "Stable Neo-Hookean Flesh Simulation", §4) in the signed SVD frame, as MuJoCo 3.15.0 uses it
//! for its solver metric and for SNH damping. The energy's edge part is StVK-like with λ → −μ,
//! plus a cubic Gram term and a volume penalty.

use super::elastic::{snh_cubic, tension, unpack_metric, STRETCH_EDGES};
use crate::math::{cross, dot3, mul_mat_mat3, mul_mat_t_vec3};

/// One projected material Hessian: frame, shape gradients and PSD modes.
#[derive(Debug, Clone, Copy, Default)]
pub struct SnhHessian {
    pub rotation: [f64; 9],
    pub gradient: [[f64; 3]; 4],
    pub stretch: [f64; 9],
    pub symmetric: [f64; 3],
    pub skew: [f64; 3],
}

fn norm3(v: &[f64; 3]) -> f64 {
    dot3(v, v).sqrt()
}

/// Eigen-decomposition of a symmetric 3×3 matrix (Eberly's non-iterative method).
fn eigen3(value: &mut [f64; 3], q: &mut [f64; 9], a: &[f64; 9]) {
    let scale = a.iter().fold(0.0f64, |m, x| crate::math::max(m, x.abs()));
    *q = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0];
    if scale == 0.0 {
        *value = [0.0; 3];
        return;
    }
    let mut dm = [0.0; 9];
    for i in 0..9 {
        dm[i] = a[i] / scale;
    }
    if dm[1] == 0.0 && dm[2] == 0.0 && dm[5] == 0.0 {
        for i in 0..3 {
            value[i] = a[4 * i];
        }
        return;
    }
    let mean = (dm[0] + dm[4] + dm[8]) / 3.0;
    let mut b = dm;
    for i in 0..3 {
        b[4 * i] -= mean;
    }
    let bscale = b.iter().fold(0.0f64, |m, x| crate::math::max(m, x.abs()));
    for x in b.iter_mut() {
        *x /= bscale;
    }
    let p = ((b[0] * b[0]
        + b[4] * b[4]
        + b[8] * b[8]
        + 2.0 * (b[1] * b[1] + b[2] * b[2] + b[5] * b[5]))
        / 6.0)
        .sqrt();
    for x in b.iter_mut() {
        *x /= p;
    }
    let det = b[0] * (b[4] * b[8] - b[5] * b[5]) - b[1] * (b[1] * b[8] - b[2] * b[5])
        + b[2] * (b[1] * b[5] - b[2] * b[4]);
    let r = 0.5 * det;
    let mut root = 2.0 * (crate::math::min(r.abs(), 1.0).acos() / 3.0).cos();
    if r < 0.0 {
        root = -root;
    }
    for i in 0..3 {
        b[4 * i] -= root;
    }
    let rows = [[b[0], b[1], b[2]], [b[3], b[4], b[5]], [b[6], b[7], b[8]]];
    let crosses = [
        cross(&rows[0], &rows[1]),
        cross(&rows[0], &rows[2]),
        cross(&rows[1], &rows[2]),
    ];
    let mut best = 0;
    let mut norms = [0.0; 3];
    for i in 0..3 {
        norms[i] = dot3(&crosses[i], &crosses[i]);
        if norms[i] > norms[best] {
            best = i;
        }
    }
    let inv = 1.0 / norms[best].sqrt();
    let qv = [
        crosses[best][0] * inv,
        crosses[best][1] * inv,
        crosses[best][2] * inv,
    ];
    let u = if qv[0].abs() > qv[1].abs() {
        let inv = 1.0 / (qv[0] * qv[0] + qv[2] * qv[2]).sqrt();
        [-qv[2] * inv, 0.0, qv[0] * inv]
    } else {
        let inv = 1.0 / (qv[1] * qv[1] + qv[2] * qv[2]).sqrt();
        [0.0, qv[2] * inv, -qv[1] * inv]
    };
    let v = cross(&qv, &u);
    let mv = |x: &[f64; 3]| -> [f64; 3] {
        [
            dm[0] * x[0] + dm[1] * x[1] + dm[2] * x[2],
            dm[3] * x[0] + dm[4] * x[1] + dm[5] * x[2],
            dm[6] * x[0] + dm[7] * x[1] + dm[8] * x[2],
        ]
    };
    let (du, dv, dq) = (mv(&u), mv(&v), mv(&qv));
    let (aa, bb, cc) = (dot3(&u, &du), dot3(&u, &dv), dot3(&v, &dv));
    let (mut cosine, mut sine, mut t) = (1.0, 0.0, 0.0);
    if bb != 0.0 {
        let delta = 0.5 * (cc - aa);
        let ws = crate::math::max(delta.abs(), bb.abs());
        let (x, y) = (delta / ws, bb / ws);
        t = (if x >= 0.0 { y } else { -y }) / (x.abs() + (x * x + y * y).sqrt());
        cosine = 1.0 / (1.0 + t * t).sqrt();
        sine = t * cosine;
    }
    value[0] = dot3(&qv, &dq) * scale;
    value[1] = (aa - t * bb) * scale;
    value[2] = (cc + t * bb) * scale;
    for i in 0..3 {
        q[3 * i] = qv[i];
        q[3 * i + 1] = cosine * u[i] - sine * v[i];
        q[3 * i + 2] = sine * u[i] + cosine * v[i];
    }
}

/// Signed SVD F = U diag(σ) Vᵀ with proper rotations, by one-sided Jacobi.
fn svd(u_out: &mut [f64; 9], sigma: &mut [f64; 3], vmat: &mut [f64; 9], f: &[f64; 9]) {
    let scale = f.iter().fold(0.0f64, |m, x| crate::math::max(m, x.abs()));
    let mut a = [0.0; 9];
    for i in 0..9 {
        a[i] = if scale != 0.0 { f[i] / scale } else { 0.0 };
    }
    *vmat = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0];
    const RELTOL: f64 = 4e-15;
    for _ in 0..24 {
        let mut converged = true;
        for p in 0..2 {
            for q in p + 1..3 {
                let (mut pp, mut qq, mut pq) = (0.0, 0.0, 0.0);
                for r in 0..3 {
                    pp += a[3 * r + p] * a[3 * r + p];
                    qq += a[3 * r + q] * a[3 * r + q];
                    pq += a[3 * r + p] * a[3 * r + q];
                }
                if pq.abs() <= RELTOL * pp.sqrt() * qq.sqrt() {
                    continue;
                }
                converged = false;
                let delta = 0.5 * (qq - pp);
                let t = (if delta >= 0.0 { pq } else { -pq })
                    / (delta.abs() + (delta * delta + pq * pq).sqrt());
                let c = 1.0 / (1.0 + t * t).sqrt();
                let s = t * c;
                for r in 0..3 {
                    let (x, y) = (a[3 * r + p], a[3 * r + q]);
                    a[3 * r + p] = c * x - s * y;
                    a[3 * r + q] = s * x + c * y;
                    let (x, y) = (vmat[3 * r + p], vmat[3 * r + q]);
                    vmat[3 * r + p] = c * x - s * y;
                    vmat[3 * r + q] = s * x + c * y;
                }
            }
        }
        if converged {
            break;
        }
    }
    for i in 0..3 {
        sigma[i] = a[i] * a[i] + a[3 + i] * a[3 + i] + a[6 + i] * a[6 + i];
    }
    for i in 0..2 {
        for j in i + 1..3 {
            if sigma[j] > sigma[i] {
                sigma.swap(i, j);
                for r in 0..3 {
                    a.swap(3 * r + i, 3 * r + j);
                    vmat.swap(3 * r + i, 3 * r + j);
                }
            }
        }
    }
    let c0 = [vmat[0], vmat[3], vmat[6]];
    let c1 = [vmat[1], vmat[4], vmat[7]];
    let cr = cross(&c0, &c1);
    if cr[0] * vmat[2] + cr[1] * vmat[5] + cr[2] * vmat[8] < 0.0 {
        for r in 0..3 {
            vmat[3 * r + 2] = -vmat[3 * r + 2];
            a[3 * r + 2] = -a[3 * r + 2];
        }
    }
    let mut u = [[0.0; 3]; 3];
    for i in 0..3 {
        for x in 0..3 {
            u[i][x] = a[3 * x + i];
        }
    }
    sigma[0] = norm3(&u[0]);
    if sigma[0] == 0.0 {
        *u_out = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0];
        *sigma = [0.0; 3];
        return;
    }
    let inv = 1.0 / sigma[0];
    for k in 0..3 {
        u[0][k] *= inv;
    }
    let d01 = dot3(&u[0], &u[1]);
    for k in 0..3 {
        u[1][k] += u[0][k] * -d01;
    }
    let n1 = norm3(&u[1]);
    const TOL: f64 = 1e-12;
    if n1 > TOL * sigma[0] {
        for k in 0..3 {
            u[1][k] *= 1.0 / n1;
        }
    } else {
        let mut axis = 0;
        for x in 1..3 {
            if u[0][x].abs() < u[0][axis].abs() {
                axis = x;
            }
        }
        for x in 0..3 {
            u[1][x] = (x == axis) as i32 as f64 - u[0][axis] * u[0][x];
        }
        let n = norm3(&u[1]);
        for k in 0..3 {
            u[1][k] *= 1.0 / n;
        }
    }
    u[2] = cross(&u[0], &u[1]);
    sigma[1] = 0.0;
    sigma[2] = 0.0;
    for x in 0..3 {
        sigma[1] += u[1][x] * a[3 * x + 1];
        sigma[2] += u[2][x] * a[3 * x + 2];
        for i in 0..3 {
            u_out[3 * x + i] = u[i][x];
        }
    }
    for k in 0..3 {
        sigma[k] *= scale;
    }
}

fn positive3(a: &[f64; 9]) -> bool {
    let scale = a.iter().fold(0.0f64, |m, x| crate::math::max(m, x.abs()));
    let tol = 1e-12 * scale;
    if a[0] <= tol {
        return false;
    }
    let pivot = a[4] - a[1] * (a[1] / a[0]);
    if pivot <= tol {
        return false;
    }
    let cr = a[5] - a[1] * (a[2] / a[0]);
    a[8] - a[2] * (a[2] / a[0]) - cr * (cr / pivot) > tol
}

/// Adds twice the Hessian of γ·P(s) to the 6×6 edge metric.
fn cubic_metric(metric: &mut [f64; 36], s: &[f64; 6], gamma: f64) {
    let (a, b, c) = (s[0], s[2], s[4]);
    let d = 0.5 * (s[0] + s[2] - s[1]);
    let e = 0.5 * (s[0] + s[4] - s[5]);
    let f = 0.5 * (s[2] + s[4] - s[3]);
    const BASIS: [[f64; 6]; 6] = [
        [1.0, 0.0, 0.0, 0.5, 0.5, 0.0],
        [0.0, 0.0, 0.0, -0.5, 0.0, 0.0],
        [0.0, 1.0, 0.0, 0.5, 0.0, 0.5],
        [0.0, 0.0, 0.0, 0.0, 0.0, -0.5],
        [0.0, 0.0, 1.0, 0.0, 0.5, 0.5],
        [0.0, 0.0, 0.0, 0.0, -0.5, 0.0],
    ];
    for j in 0..6 {
        let h = &BASIS[j];
        let dc = [
            h[1] * c + b * h[2] - 2.0 * f * h[5],
            h[0] * c + a * h[2] - 2.0 * e * h[4],
            h[0] * b + a * h[1] - 2.0 * d * h[3],
            h[4] * f + e * h[5] - h[2] * d - c * h[3],
            h[3] * f + d * h[5] - h[1] * e - b * h[4],
            h[3] * e + d * h[4] - h[0] * f - a * h[5],
        ];
        let dg = [
            dc[0] + dc[3] + dc[4],
            -dc[3],
            dc[1] + dc[3] + dc[5],
            -dc[5],
            dc[2] + dc[4] + dc[5],
            -dc[4],
        ];
        for i in 0..=j {
            let v = 2.0 * gamma * dg[i];
            metric[6 * i + j] += v;
            if i != j {
                metric[6 * j + i] += v;
            }
        }
    }
}

/// Projects the SNH material Hessian of one tet (rest shape from `vert0` and half sizes).
pub fn project(
    h: &mut SnhHessian,
    k: &[f64],
    ev: &[[f64; 3]; 6],
    el: &[f64; 6],
    vert0: &[f64],
    vert: &[i32],
    size: &[f64],
) {
    let mut rest = [[0.0; 3]; 3];
    for v in 0..3 {
        for x in 0..3 {
            rest[v][x] = 2.0
                * size[x]
                * (vert0[3 * vert[v + 1] as usize + x] - vert0[3 * vert[0] as usize + x]);
        }
    }
    let mut grad = [
        cross(&rest[1], &rest[2]),
        cross(&rest[2], &rest[0]),
        cross(&rest[0], &rest[1]),
    ];
    for g in grad.iter_mut() {
        for x in g.iter_mut() {
            *x *= k[23];
        }
    }
    let mut f = [0.0; 9];
    for x in 0..3 {
        for y in 0..3 {
            f[3 * x + y] = -ev[0][x] * grad[0][y] + ev[2][x] * grad[1][y] - ev[4][x] * grad[2][y];
        }
    }
    let mut sigma = [0.0; 3];
    let mut vm = [0.0; 9];
    svd(&mut h.rotation, &mut sigma, &mut vm, &f);
    h.gradient[0] = [0.0; 3];
    for v in 1..4 {
        h.gradient[v] = mul_mat_t_vec3(&vm, &grad[v - 1]);
        for x in 0..3 {
            h.gradient[0][x] -= h.gradient[v][x];
        }
    }
    let mut metric = [0.0; 36];
    let mut t = [0.0; 6];
    unpack_metric(&mut metric, k, 6);
    tension(&mut t, &metric, el, 6);
    snh_cubic(&mut t, el, k[21]);
    cubic_metric(&mut metric, el, k[21]);

    let mut vertex = [[0.0; 3]; 4];
    for v in 1..4 {
        vertex[v] = mul_mat_t_vec3(&vm, &rest[v - 1]);
    }
    let mut reference = [[0.0; 3]; 6];
    let mut square = [[0.0; 6]; 3];
    for e in 0..6 {
        let ep = STRETCH_EDGES[1][e];
        for x in 0..3 {
            reference[e][x] = vertex[ep[0]][x] - vertex[ep[1]][x];
        }
        for i in 0..3 {
            square[i][e] = reference[e][i] * reference[e][i];
        }
    }
    let mut product = [[0.0; 6]; 3];
    let mut geo = [0.0; 3];
    for i in 0..3 {
        tension(&mut product[i], &metric, &square[i], 6);
        geo[i] = crate::math::dot(&t, &square[i]);
    }
    let j = sigma[0] * sigma[1] * sigma[2];
    let vs = 2.0 * k[22];
    let pressure = vs * (j - 1.0);
    let cof = [
        sigma[1] * sigma[2],
        sigma[0] * sigma[2],
        sigma[0] * sigma[1],
    ];
    let mut a = [0.0; 9];
    for i in 0..3 {
        for jj in i..3 {
            let v = 2.0 * sigma[i] * sigma[jj] * crate::math::dot(&square[i], &product[jj])
                + vs * cof[i] * cof[jj]
                + if i == jj {
                    geo[i]
                } else {
                    pressure * sigma[3 - i - jj]
                };
            a[3 * i + jj] = v;
            a[3 * jj + i] = v;
        }
    }
    if positive3(&a) {
        h.stretch = a;
    } else {
        let mut val = [0.0; 3];
        let mut q = [0.0; 9];
        eigen3(&mut val, &mut q, &a);
        h.stretch = [0.0; 9];
        for e in 0..3 {
            let w = crate::math::max(val[e], 0.0);
            for i in 0..3 {
                for jj in 0..3 {
                    h.stretch[3 * i + jj] += w * q[3 * i + e] * q[3 * jj + e];
                }
            }
        }
    }
    let mut mode = 0;
    for i in 0..3 {
        for jj in i + 1..3 {
            let mut dir = [0.0; 6];
            for e in 0..6 {
                dir[e] = reference[e][i] * reference[e][jj];
            }
            let mut resp = [0.0; 6];
            tension(&mut resp, &metric, &dir, 6);
            let material = crate::math::dot(&dir, &resp);
            let geometric = 0.5 * (geo[i] + geo[jj]);
            let (sum, diff) = (sigma[i] + sigma[jj], sigma[i] - sigma[jj]);
            let crs = pressure * sigma[3 - i - jj];
            h.symmetric[mode] = crate::math::max(sum * sum * material + geometric - crs, 0.0);
            h.skew[mode] = crate::math::max(diff * diff * material + geometric + crs, 0.0);
            mode += 1;
        }
    }
}

/// World 3×3 block between tet vertices i and j of a projected Hessian.
pub fn projected_block(block: &mut [f64; 9], h: &SnhHessian, i: usize, j: usize) {
    let a = &h.gradient[i];
    let b = &h.gradient[j];
    let mut local = [0.0; 9];
    for r in 0..3 {
        for c in 0..3 {
            local[3 * r + c] = h.stretch[3 * r + c] * a[r] * b[c];
        }
    }
    let mut mode = 0;
    for r in 0..3 {
        for c in r + 1..3 {
            let sum = 0.5 * (h.symmetric[mode] + h.skew[mode]);
            let diff = 0.5 * (h.symmetric[mode] - h.skew[mode]);
            mode += 1;
            local[4 * r] += sum * a[c] * b[c];
            local[4 * c] += sum * a[r] * b[r];
            local[3 * r + c] += diff * a[c] * b[r];
            local[3 * c + r] += diff * a[r] * b[c];
        }
    }
    let tmp = mul_mat_mat3(&h.rotation, &local);
    let rt = [
        h.rotation[0],
        h.rotation[3],
        h.rotation[6],
        h.rotation[1],
        h.rotation[4],
        h.rotation[7],
        h.rotation[2],
        h.rotation[5],
        h.rotation[8],
    ];
    *block = mul_mat_mat3(&tmp, &rt);
}
