//! Analytic narrow-phase tests (MuJoCo's `engine_collision_primitive.c`): planes, spheres,
//! capsules, cylinders and boxes against each other, and spheres, capsules and boxes against
//! flex triangles. Each test appends contacts whose normal points from the first shape to the
//! second and whose position lies midway between the surfaces; `dist < 0` is penetration.

use super::PreContact;
use crate::math::*;

/// Axis `k` (column) of a row-major rotation matrix.
#[inline]
fn col(mat: &[f64], k: usize) -> Vec3 {
    [mat[k], mat[3 + k], mat[6 + k]]
}

#[inline]
fn v3(p: &[f64]) -> Vec3 {
    [p[0], p[1], p[2]]
}

/// Plane (normal = z axis of `mat1`) against a sphere of radius `r2` at `pos2`.
pub fn plane_sphere(
    out: &mut Vec<PreContact>,
    margin: f64,
    pos1: &[f64],
    mat1: &[f64],
    pos2: &[f64],
    r2: f64,
) -> usize {
    let n = col(mat1, 2);
    let dif = sub3(&v3(pos2), &v3(pos1));
    let cdist = dot3(&dif, &n);
    if cdist > margin + r2 {
        return 0;
    }
    let dist = cdist - r2;
    let pos = add3(&v3(pos2), &scl3(&n, -dist / 2.0 - r2));
    out.push(PreContact::new(dist, pos, n));
    1
}

/// Plane against a capsule: its two end spheres, tangent along the capsule axis.
pub fn plane_capsule(
    out: &mut Vec<PreContact>,
    margin: f64,
    pos1: &[f64],
    mat1: &[f64],
    pos2: &[f64],
    mat2: &[f64],
    size2: &[f64],
) -> usize {
    let axis = col(mat2, 2);
    let seg = scl3(&axis, size2[1]);
    let mut n = 0;
    for end in [add3(&v3(pos2), &seg), sub3(&v3(pos2), &seg)] {
        if plane_sphere(out, margin, pos1, mat1, &end, size2[0]) == 1 {
            out.last_mut().unwrap().tangent = axis;
            n += 1;
        }
    }
    n
}

/// Plane against a cylinder: up to four points on the rim nearest the plane.
pub fn plane_cylinder(
    out: &mut Vec<PreContact>,
    margin: f64,
    pos1: &[f64],
    mat1: &[f64],
    pos2: &[f64],
    mat2: &[f64],
    size2: &[f64],
) -> usize {
    let normal = col(mat1, 2);
    let mut axis = col(mat2, 2);
    let mut prjaxis = dot3(&normal, &axis);
    if prjaxis > 0.0 {
        axis = scl3(&axis, -1.0);
        prjaxis = -prjaxis;
    }
    let vec0 = sub3(&v3(pos2), &v3(pos1));
    let dist0 = dot3(&vec0, &normal);
    let mut vec = sub3(&scl3(&axis, prjaxis), &normal);
    let len_sqr = dot3(&vec, &vec);
    if len_sqr >= MINVAL * MINVAL {
        vec = scl3(&vec, size2[0] / len_sqr.sqrt());
    } else {
        vec = scl3(&col(mat2, 0), size2[0]);
    }
    let prjvec = dot3(&vec, &normal);
    let axis = scl3(&axis, size2[1]);
    let prjaxis = prjaxis * size2[1];
    let p2 = v3(pos2);
    let mut cnt = 0;
    let d1 = dist0 + prjaxis + prjvec;
    if d1 > margin {
        return 0;
    }
    let mut push = |dist: f64, p: Vec3| {
        let pos = add3(&p, &scl3(&normal, -dist * 0.5));
        out.push(PreContact::new(dist, pos, normal));
    };
    push(d1, add3(&add3(&p2, &vec), &axis));
    cnt += 1;
    let d2 = dist0 - prjaxis + prjvec;
    if d2 <= margin {
        push(d2, sub3(&add3(&p2, &vec), &axis));
        cnt += 1;
    }
    let prjvec1 = -prjvec * 0.5;
    let d3 = dist0 + prjaxis + prjvec1;
    if d3 <= margin {
        let mut vec1 = cross(&vec, &axis);
        normalize3(&mut vec1);
        let vec1 = scl3(&vec1, size2[0] * 3f64.sqrt() / 2.0);
        // summed in MuJoCo's order, the sideways offset first: (p2 ± vec1) + axis − vec/2
        // (starting from p2 + axis moved a contact point by an ulp)
        let side = |p: Vec3| add3(&add3(&p, &axis), &scl3(&vec, -0.5));
        push(d3, side(add3(&p2, &vec1)));
        push(d3, side(sub3(&p2, &vec1)));
        cnt += 2;
    }
    cnt
}

/// Plane against a box: the (at most four) corners below the margin.
pub fn plane_box(
    out: &mut Vec<PreContact>,
    margin: f64,
    pos1: &[f64],
    mat1: &[f64],
    pos2: &[f64],
    mat2: &[f64],
    size2: &[f64],
) -> usize {
    let norm = col(mat1, 2);
    let dist = dot3(&sub3(&v3(pos2), &v3(pos1)), &norm);
    let mut cnt = 0;
    for i in 0..8 {
        let v = [
            if i & 1 != 0 { size2[0] } else { -size2[0] },
            if i & 2 != 0 { size2[1] } else { -size2[1] },
            if i & 4 != 0 { size2[2] } else { -size2[2] },
        ];
        let corner = mul_mat_vec3(&m3(mat2), &v);
        let ldist = dot3(&norm, &corner);
        if dist + ldist > margin || ldist > 0.0 {
            continue;
        }
        let d = dist + ldist;
        let c = add3(&corner, &v3(pos2));
        out.push(PreContact::new(d, add3(&c, &scl3(&norm, -d / 2.0)), norm));
        cnt += 1;
        if cnt >= 4 {
            break;
        }
    }
    cnt
}

#[inline]
fn m3(m: &[f64]) -> Mat3 {
    let mut r = [0.0; 9];
    r.copy_from_slice(&m[..9]);
    r
}

/// Sphere against sphere; coincident centres use the cross product of the z axes.
pub fn sphere_sphere(
    out: &mut Vec<PreContact>,
    margin: f64,
    pos1: &[f64],
    mat1: &[f64],
    r1: f64,
    pos2: &[f64],
    mat2: &[f64],
    r2: f64,
) -> usize {
    let dif = sub3(&v3(pos1), &v3(pos2));
    let cdist_sqr = dot3(&dif, &dif);
    let min_dist = margin + r1 + r2;
    if cdist_sqr > min_dist * min_dist {
        return 0;
    }
    let dist = cdist_sqr.sqrt() - r1 - r2;
    let mut n = sub3(&v3(pos2), &v3(pos1));
    let len = normalize3(&mut n);
    if len < MINVAL {
        n = cross(&col(mat1, 2), &col(mat2, 2));
        normalize3(&mut n);
    }
    let pos = add3(&v3(pos1), &scl3(&n, r1 + dist / 2.0));
    out.push(PreContact::new(dist, pos, n));
    1
}

/// Sphere against capsule (nearest point of the capsule segment).
pub fn sphere_capsule(
    out: &mut Vec<PreContact>,
    margin: f64,
    pos1: &[f64],
    mat1: &[f64],
    r1: f64,
    pos2: &[f64],
    mat2: &[f64],
    size2: &[f64],
) -> usize {
    let axis = col(mat2, 2);
    let vec = sub3(&v3(pos1), &v3(pos2));
    let x = crate::math::clip(dot3(&axis, &vec), -size2[1], size2[1]);
    let p = add3(&scl3(&axis, x), &v3(pos2));
    sphere_sphere(out, margin, pos1, mat1, r1, &p, mat2, size2[0])
}

/// Sphere against cylinder: side, cap or rim.
pub fn sphere_cylinder(
    out: &mut Vec<PreContact>,
    margin: f64,
    pos1: &[f64],
    mat1: &[f64],
    r1: f64,
    pos2: &[f64],
    mat2: &[f64],
    size2: &[f64],
) -> usize {
    let (radius, height) = (size2[0], size2[1]);
    let axis = col(mat2, 2);
    let vec = sub3(&v3(pos1), &v3(pos2));
    let x = dot3(&axis, &vec);
    let a_proj = scl3(&axis, x);
    let p_proj = sub3(&vec, &a_proj);
    let p_sqr = dot3(&p_proj, &p_proj);
    let mut side = x.abs() < height;
    let mut cap = p_sqr < radius * radius;
    if side && cap {
        if height - x.abs() < radius - p_sqr.sqrt() {
            side = false;
        } else {
            cap = false;
        }
    }
    if side {
        let c = add3(&a_proj, &v3(pos2));
        return sphere_sphere(out, margin, pos1, mat1, r1, &c, mat2, radius);
    }
    if cap {
        let flip = [
            -mat2[0], mat2[1], -mat2[2], -mat2[3], mat2[4], -mat2[5], -mat2[6], mat2[7], -mat2[8],
        ];
        let (pc, mc): (Vec3, Mat3) = if x > 0.0 {
            (add3(&v3(pos2), &scl3(&axis, height)), m3(mat2))
        } else {
            (add3(&v3(pos2), &scl3(&axis, -height)), flip)
        };
        let n = plane_sphere(out, margin, &pc, &mc, pos1, r1);
        if n == 1 {
            let c = out.last_mut().unwrap();
            c.normal = scl3(&c.normal, -1.0);
        }
        return n;
    }
    let p = scl3(&p_proj, radius / p_sqr.sqrt());
    let corner = add3(
        &add3(&scl3(&axis, if x > 0.0 { height } else { -height }), &p),
        &v3(pos2),
    );
    sphere_sphere(out, margin, pos1, mat1, r1, &corner, mat2, 0.0)
}

/// Capsule against capsule: nearest points of the segments, two contacts when parallel.
pub fn capsule_capsule(
    out: &mut Vec<PreContact>,
    margin: f64,
    pos1: &[f64],
    mat1: &[f64],
    size1: &[f64],
    pos2: &[f64],
    mat2: &[f64],
    size2: &[f64],
) -> usize {
    let axis1 = scl3(&col(mat1, 2), size1[1]);
    let axis2 = scl3(&col(mat2, 2), size2[1]);
    let dif = sub3(&v3(pos1), &v3(pos2));
    let ma = dot3(&axis1, &axis1);
    let mb = -dot3(&axis1, &axis2);
    let mc = dot3(&axis2, &axis2);
    let u = -dot3(&axis1, &dif);
    let v = dot3(&axis2, &dif);
    let det = ma * mc - mb * mb;
    let p1 = v3(pos1);
    let p2 = v3(pos2);
    let (r1, r2) = (size1[0], size2[0]);
    if det.abs() >= MINVAL {
        let mut x1 = (mc * u - mb * v) / det;
        let mut x2 = (ma * v - mb * u) / det;
        if x1 > 1.0 {
            x1 = 1.0;
            x2 = (v - mb) / mc;
        } else if x1 < -1.0 {
            x1 = -1.0;
            x2 = (v + mb) / mc;
        }
        if x2 > 1.0 {
            x2 = 1.0;
            x1 = ((u - mb) / ma).clamp(-1.0, 1.0);
        } else if x2 < -1.0 {
            x2 = -1.0;
            x1 = ((u + mb) / ma).clamp(-1.0, 1.0);
        }
        let a = add3(&scl3(&axis1, x1), &p1);
        let b = add3(&scl3(&axis2, x2), &p2);
        return sphere_sphere(out, margin, &a, mat1, r1, &b, mat2, r2);
    }
    let mut n = 0;
    let a = add3(&p1, &axis1);
    let b = add3(&scl3(&axis2, ((v - mb) / mc).clamp(-1.0, 1.0)), &p2);
    n += sphere_sphere(out, margin, &a, mat1, r1, &b, mat2, r2);
    let a = sub3(&p1, &axis1);
    let b = add3(&scl3(&axis2, ((v + mb) / mc).clamp(-1.0, 1.0)), &p2);
    n += sphere_sphere(out, margin, &a, mat1, r1, &b, mat2, r2);
    if n >= 2 {
        return n;
    }
    let b = add3(&p2, &axis2);
    let a = add3(&scl3(&axis1, ((u - mb) / ma).clamp(-1.0, 1.0)), &p1);
    n += sphere_sphere(out, margin, &a, mat1, r1, &b, mat2, r2);
    if n >= 2 {
        return n;
    }
    let b = sub3(&p2, &axis2);
    let a = add3(&scl3(&axis1, ((u + mb) / ma).clamp(-1.0, 1.0)), &p1);
    n += sphere_sphere(out, margin, &a, mat1, r1, &b, mat2, r2);
    n
}

fn area_sign(p1: &[f64; 2], p2: &[f64; 2], p3: &[f64; 2]) -> f64 {
    let a = (p1[0] - p3[0]) * (p2[1] - p3[1]) - (p2[0] - p3[0]) * (p1[1] - p3[1]);
    if a > 0.0 {
        1.0
    } else if a < 0.0 {
        -1.0
    } else {
        0.0
    }
}

fn point_segment(res: &mut [f64; 2], p: &[f64; 2], u: &[f64; 2], v: &[f64; 2]) -> f64 {
    let uv = [v[0] - u[0], v[1] - u[1]];
    let up = [p[0] - u[0], p[1] - u[1]];
    let a = (uv[0] * up[0] + uv[1] * up[1]) / MINVAL.max(uv[0] * uv[0] + uv[1] * uv[1]);
    if a <= 0.0 {
        *res = *u;
    } else if a >= 1.0 {
        *res = *v;
    } else {
        *res = [u[0] + a * uv[0], u[1] + a * uv[1]];
    }
    ((res[0] - p[0]).powi(2) + (res[1] - p[1]).powi(2)).sqrt()
}

/// Sphere (centre `s`, radius `rs`) against a triangle thickened by `rt`.
pub fn sphere_triangle(
    out: &mut Vec<PreContact>,
    margin: f64,
    s: &[f64],
    rs: f64,
    t1: &[f64],
    t2: &[f64],
    t3: &[f64],
    rt: f64,
) -> usize {
    let rbound = margin + rs + rt;
    let ss = sub3(&v3(s), &v3(t1));
    let a3 = sub3(&v3(t2), &v3(t1));
    let b3 = sub3(&v3(t3), &v3(t1));
    let mut n = cross(&a3, &b3);
    normalize3(&mut n);
    let dst_s = dot3(&n, &ss);
    if dst_s.abs() > rbound {
        return 0;
    }
    let p3 = add3(&ss, &scl3(&n, -dst_s));
    let mut v1 = a3;
    let len_a = normalize3(&mut v1);
    let mut v2 = cross(&n, &a3);
    normalize3(&mut v2);
    let o = [0.0, 0.0];
    let a = [len_a, 0.0];
    let b = [dot3(&v1, &b3), dot3(&v2, &b3)];
    let p = [dot3(&v1, &p3), dot3(&v2, &p3)];
    let s1 = area_sign(&p, &o, &a);
    let s2 = area_sign(&p, &a, &b);
    let s3 = area_sign(&p, &b, &o);
    let x = if s1 == s2 && s2 == s3 {
        p3
    } else {
        let mut xs = [[0.0; 2]; 3];
        let d = [
            point_segment(&mut xs[0], &p, &o, &a),
            point_segment(&mut xs[1], &p, &a, &b),
            point_segment(&mut xs[2], &p, &b, &o),
        ];
        let best = if d[0] < d[1] && d[0] < d[2] {
            0
        } else if d[1] < d[2] {
            1
        } else {
            2
        };
        add3(&scl3(&v1, xs[best][0]), &scl3(&v2, xs[best][1]))
    };
    let mut nrm = sub3(&x, &ss);
    let dst = normalize3(&mut nrm);
    if dst > rbound {
        return 0;
    }
    let dist = dst - rs - rt;
    let pos = add3(&v3(s), &scl3(&nrm, rs + dist / 2.0));
    out.push(PreContact::new(dist, pos, nrm));
    1
}

/// Box against a thickened triangle: triangle vertices inside the box, then box corners
/// against the triangle.
pub fn box_triangle(
    out: &mut Vec<PreContact>,
    margin: f64,
    pos: &[f64],
    mat: &[f64],
    size: &[f64],
    t1: &[f64],
    t2: &[f64],
    t3: &[f64],
    rt: f64,
    maxcon: usize,
) -> usize {
    let start = out.len();
    let mm = m3(mat);
    for vert in [t1, t2, t3] {
        let local = mul_mat_t_vec3(&mm, &sub3(&v3(vert), &v3(pos)));
        let mut maxaxis = 0;
        let mut maxval = local[0].abs() - size[0];
        for j in 1..3 {
            let val = local[j].abs() - size[j];
            if val > maxval {
                maxval = val;
                maxaxis = j;
            }
        }
        if maxval - rt > margin {
            continue;
        }
        if (0..3).any(|j| local[j].abs() > size[j] + margin + rt) {
            continue;
        }
        if out.len() - start < maxcon {
            let mut nl = [0.0; 3];
            nl[maxaxis] = if local[maxaxis] > 0.0 { 1.0 } else { -1.0 };
            let normal = mul_mat_vec3(&mm, &nl);
            let dist = maxval - rt;
            let p = add3(&v3(vert), &scl3(&normal, -(rt + dist * 0.5)));
            out.push(PreContact::new(dist, p, normal));
        }
    }
    for i in 0..8 {
        if out.len() - start >= maxcon {
            break;
        }
        let v = [
            if i & 1 != 0 { size[0] } else { -size[0] },
            if i & 2 != 0 { size[1] } else { -size[1] },
            if i & 4 != 0 { size[2] } else { -size[2] },
        ];
        let corner = add3(&mul_mat_vec3(&mm, &v), &v3(pos));
        sphere_triangle(out, margin, &corner, 0.0, t1, t2, t3, rt);
    }
    out.len() - start
}

/// Capsule against a thickened triangle: its end spheres, then triangle vertices against the
/// interior of its segment.
pub fn capsule_triangle(
    out: &mut Vec<PreContact>,
    margin: f64,
    pos: &[f64],
    mat: &[f64],
    size: &[f64],
    t1: &[f64],
    t2: &[f64],
    t3: &[f64],
    rt: f64,
    maxcon: usize,
) -> usize {
    let start = out.len();
    let (radius, len) = (size[0], size[1]);
    let axis = col(mat, 2);
    let p1 = add3(&v3(pos), &scl3(&axis, -len));
    let p2 = add3(&v3(pos), &scl3(&axis, len));
    sphere_triangle(out, margin, &p1, radius, t1, t2, t3, rt);
    if out.len() - start >= maxcon {
        return out.len() - start;
    }
    sphere_triangle(out, margin, &p2, radius, t1, t2, t3, rt);
    if out.len() - start >= maxcon {
        return out.len() - start;
    }
    let ab = sub3(&p2, &p1);
    for vert in [t1, t2, t3] {
        let vec = sub3(&v3(vert), &p1);
        let t = dot3(&vec, &ab) / (4.0 * len * len);
        if t <= MINVAL || t >= 1.0 - MINVAL {
            continue;
        }
        let closest = add3(&p1, &scl3(&ab, t));
        let mut dir = sub3(&v3(vert), &closest);
        let dist = normalize3(&mut dir);
        if dist > radius + rt + margin {
            continue;
        }
        let mut p = add3(&closest, &v3(vert));
        add_to_scl3(&mut p, &dir, radius - rt);
        let p = scl3(&p, 0.5);
        out.push(PreContact::new(dist - radius - rt, p, dir));
        if out.len() - start >= maxcon {
            break;
        }
    }
    out.len() - start
}

/// Sphere (radius `r1`) against box (half sizes `size2`): nearest point of the box to the
/// centre; a centre inside the box is pushed out through the nearest face (`mjc_SphereBox`).
#[allow(clippy::too_many_arguments)]
pub fn sphere_box(
    out: &mut Vec<PreContact>,
    margin: f64,
    pos1: &[f64],
    r1: f64,
    pos2: &[f64],
    mat2: &[f64],
    size2: &[f64],
) -> usize {
    let m2 = m3(mat2);
    let center = mul_mat_t_vec3(&m2, &sub3(&v3(pos1), &v3(pos2)));
    let clamped: Vec3 = std::array::from_fn(|k| {
        if size2[k] > 0.0 {
            crate::math::clip(center[k], -size2[k], size2[k])
        } else {
            center[k]
        }
    });
    let mut deepest = center;
    let mut tmp = sub3(&clamped, &center);
    let mut dist = normalize3(&mut tmp);
    if dist - r1 > margin {
        return 0;
    }
    let (pos, normal);
    if dist <= MINVAL {
        // centre inside: leave through the nearest face
        let mut closest = (size2[0] + size2[1] + size2[2]) * 2.0;
        let mut k = 0;
        for i in 0..6 {
            let face = if i % 2 == 1 { 1.0 } else { -1.0 } * size2[i / 2];
            let d = (face - center[i / 2]).abs();
            if closest > d {
                closest = d;
                k = i;
            }
        }
        let mut nearest = [0.0; 3];
        nearest[k / 2] = if k % 2 == 1 { -1.0 } else { 1.0 };
        let mut p = center;
        add_to_scl3(&mut p, &nearest, (r1 - closest) / 2.0);
        pos = p;
        normal = mul_mat_vec3(&m2, &nearest);
        dist = -closest;
    } else {
        add_to_scl3(&mut deepest, &tmp, r1);
        let mut p = [0.0; 3];
        add_to_scl3(&mut p, &clamped, 0.5);
        add_to_scl3(&mut p, &deepest, 0.5);
        pos = p;
        normal = mul_mat_vec3(&m2, &tmp);
    }
    let pos = add3(&mul_mat_vec3(&m2, &pos), &v3(pos2));
    out.push(PreContact::new(dist - r1, pos, normal));
    1
}
