//! General convex collision by GJK (distance) and EPA (penetration), for the pairs without an
//! analytic test: ellipsoids, cylinders, boxes and convex meshes against flex elements and each
//! other, tetrahedra, and element–element pairs (MuJoCo's `mjc_ConvexElem`, native CCD).
//!
//! Shapes are a convex core plus a radius (a sphere is a point with a radius, a flex triangle
//! three points with the flex radius), so rounded shapes are exact whenever their cores do not
//! overlap. One contact per pair, normal from the first shape to the second.

use super::PreContact;
use crate::math::*;

/// A convex core with a radius around it.
#[derive(Debug, Clone, Copy)]
pub enum Core<'a> {
    /// Up to four points (vertex, segment, triangle, tetrahedron).
    Points { p: [Vec3; 4], n: usize },
    /// Oriented box: centre, rotation (row-major, columns are axes), half sizes.
    Box { c: Vec3, mat: Mat3, size: Vec3 },
    /// Ellipsoid: centre, rotation, semi-axes.
    Ellipsoid { c: Vec3, mat: Mat3, size: Vec3 },
    /// Cylinder along local z: centre, rotation, radius, half height.
    Cylinder { c: Vec3, mat: Mat3, r: f64, h: f64 },
    /// Convex mesh: vertices in the local frame, placed by centre and rotation.
    Mesh { c: Vec3, mat: Mat3, vert: &'a [f64] },
}

/// A convex shape for GJK/EPA: a core and a radius (m).
#[derive(Debug, Clone, Copy)]
pub struct Shape<'a> {
    pub core: Core<'a>,
    pub radius: f64,
}

impl Core<'_> {
    /// The core's farthest point in direction `d` (not necessarily unit).
    pub fn support(&self, d: &Vec3) -> Vec3 {
        match *self {
            Core::Points { p, n } => {
                let mut best = 0;
                let mut bv = dot3(&p[0], d);
                for (i, q) in p.iter().enumerate().take(n).skip(1) {
                    let v = dot3(q, d);
                    if v > bv {
                        bv = v;
                        best = i;
                    }
                }
                p[best]
            }
            Core::Box { c, mat, size } => {
                let l = mul_mat_t_vec3(&mat, d);
                let s = [
                    if l[0] >= 0.0 { size[0] } else { -size[0] },
                    if l[1] >= 0.0 { size[1] } else { -size[1] },
                    if l[2] >= 0.0 { size[2] } else { -size[2] },
                ];
                add3(&c, &mul_mat_vec3(&mat, &s))
            }
            Core::Ellipsoid { c, mat, size } => {
                let l = mul_mat_t_vec3(&mat, d);
                let s = [l[0] * size[0], l[1] * size[1], l[2] * size[2]];
                let n = norm3(&s);
                if n < MINVAL {
                    return c;
                }
                let p = [s[0] * size[0] / n, s[1] * size[1] / n, s[2] * size[2] / n];
                add3(&c, &mul_mat_vec3(&mat, &p))
            }
            Core::Cylinder { c, mat, r, h } => {
                let l = mul_mat_t_vec3(&mat, d);
                let rl = (l[0] * l[0] + l[1] * l[1]).sqrt();
                let (x, y) = if rl > MINVAL {
                    (l[0] * r / rl, l[1] * r / rl)
                } else {
                    (0.0, 0.0)
                };
                let z = if l[2] >= 0.0 { h } else { -h };
                add3(&c, &mul_mat_vec3(&mat, &[x, y, z]))
            }
            Core::Mesh { c, mat, vert } => {
                let l = mul_mat_t_vec3(&mat, d);
                let mut best = 0;
                let mut bv = f64::NEG_INFINITY;
                for (i, v) in vert.chunks_exact(3).enumerate() {
                    let s = v[0] * l[0] + v[1] * l[1] + v[2] * l[2];
                    if s > bv {
                        bv = s;
                        best = i;
                    }
                }
                let v = [vert[3 * best], vert[3 * best + 1], vert[3 * best + 2]];
                add3(&c, &mul_mat_vec3(&mat, &v))
            }
        }
    }
}

/// Reusable EPA buffers, so collision does not allocate once warmed up.
#[derive(Debug, Clone, Default)]
pub struct EpaScratch {
    pts: Vec<Vertex>,
    faces: Vec<Face>,
    edges: Vec<(usize, usize)>,
}

#[derive(Debug, Clone, Copy, Default)]
struct Vertex {
    w: Vec3,
    a: Vec3,
    b: Vec3,
}

fn support(a: &Core, b: &Core, d: &Vec3) -> Vertex {
    let pa = a.support(d);
    let pb = b.support(&scl3(d, -1.0));
    Vertex {
        w: sub3(&pa, &pb),
        a: pa,
        b: pb,
    }
}

/// Closest point of the simplex to the origin; reduces the simplex to its supporting points
/// and returns their barycentric weights.
fn closest(s: &mut [Vertex; 4], n: &mut usize, lambda: &mut [f64; 4]) -> Vec3 {
    match *n {
        1 => {
            lambda[0] = 1.0;
            s[0].w
        }
        2 => {
            let (a, b) = (s[0].w, s[1].w);
            let ab = sub3(&b, &a);
            let t = -dot3(&a, &ab) / dot3(&ab, &ab).max(MINVAL * MINVAL);
            if t <= 0.0 {
                *n = 1;
                lambda[0] = 1.0;
                a
            } else if t >= 1.0 {
                s[0] = s[1];
                *n = 1;
                lambda[0] = 1.0;
                b
            } else {
                lambda[0] = 1.0 - t;
                lambda[1] = t;
                add3(&a, &scl3(&ab, t))
            }
        }
        3 => closest_triangle(s, n, lambda),
        _ => closest_tetra(s, n, lambda),
    }
}

/// Ericson's closest point on triangle to the origin, with region reduction.
fn closest_triangle(s: &mut [Vertex; 4], n: &mut usize, lambda: &mut [f64; 4]) -> Vec3 {
    let (a, b, c) = (s[0].w, s[1].w, s[2].w);
    let ab = sub3(&b, &a);
    let ac = sub3(&c, &a);
    let ap = scl3(&a, -1.0);
    let d1 = dot3(&ab, &ap);
    let d2 = dot3(&ac, &ap);
    if d1 <= 0.0 && d2 <= 0.0 {
        *n = 1;
        lambda[0] = 1.0;
        return a;
    }
    let bp = scl3(&b, -1.0);
    let d3 = dot3(&ab, &bp);
    let d4 = dot3(&ac, &bp);
    if d3 >= 0.0 && d4 <= d3 {
        s[0] = s[1];
        *n = 1;
        lambda[0] = 1.0;
        return b;
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        let v = d1 / (d1 - d3);
        *n = 2;
        lambda[0] = 1.0 - v;
        lambda[1] = v;
        return add3(&a, &scl3(&ab, v));
    }
    let cp = scl3(&c, -1.0);
    let d5 = dot3(&ab, &cp);
    let d6 = dot3(&ac, &cp);
    if d6 >= 0.0 && d5 <= d6 {
        s[0] = s[2];
        *n = 1;
        lambda[0] = 1.0;
        return c;
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        let w = d2 / (d2 - d6);
        s[1] = s[2];
        *n = 2;
        lambda[0] = 1.0 - w;
        lambda[1] = w;
        return add3(&a, &scl3(&ac, w));
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0 {
        let w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        s[0] = s[1];
        s[1] = s[2];
        *n = 2;
        lambda[0] = 1.0 - w;
        lambda[1] = w;
        return add3(&b, &scl3(&sub3(&c, &b), w));
    }
    let denom = 1.0 / (va + vb + vc);
    let v = vb * denom;
    let w = vc * denom;
    lambda[0] = 1.0 - v - w;
    lambda[1] = v;
    lambda[2] = w;
    add3(&add3(&a, &scl3(&ab, v)), &scl3(&ac, w))
}

/// A candidate face result: squared distance, reduced simplex, its size, weights, point.
type FaceCandidate = (f64, [Vertex; 4], usize, [f64; 4], Vec3);

fn closest_tetra(s: &mut [Vertex; 4], n: &mut usize, lambda: &mut [f64; 4]) -> Vec3 {
    // origin outside a face (relative to the opposite vertex) → that face holds the answer
    const FACES: [[usize; 3]; 4] = [[0, 1, 2], [0, 3, 1], [0, 2, 3], [1, 3, 2]];
    const OPP: [usize; 4] = [3, 2, 1, 0];
    let mut best: Option<FaceCandidate> = None;
    let mut inside = true;
    for (f, face) in FACES.iter().enumerate() {
        let (a, b, c) = (s[face[0]].w, s[face[1]].w, s[face[2]].w);
        let nrm = cross(&sub3(&b, &a), &sub3(&c, &a));
        let so = dot3(&nrm, &scl3(&a, -1.0));
        let sd = dot3(&nrm, &sub3(&s[OPP[f]].w, &a));
        if so * sd >= 0.0 && sd != 0.0 {
            continue;
        }
        inside = false;
        let mut sub = [s[face[0]], s[face[1]], s[face[2]], Vertex::default()];
        let mut m = 3;
        let mut l = [0.0; 4];
        let p = closest_triangle(&mut sub, &mut m, &mut l);
        let d = dot3(&p, &p);
        if best.as_ref().is_none_or(|b| d < b.0) {
            best = Some((d, sub, m, l, p));
        }
    }
    if inside {
        *n = 4;
        return [0.0; 3];
    }
    let (_, sub, m, l, p) = best.unwrap();
    *s = sub;
    *n = m;
    *lambda = l;
    p
}

/// Result of a convex query between two cores.
struct Query {
    /// Distance between the cores (0 when they overlap).
    dist: f64,
    /// Witness points on core A and core B.
    a: Vec3,
    b: Vec3,
    /// Final simplex when the cores overlap.
    simplex: [Vertex; 4],
    n: usize,
    overlap: bool,
}

fn gjk(a: &Core, b: &Core, iterations: usize, tol: f64) -> Query {
    let mut s = [Vertex::default(); 4];
    let mut lambda = [0.0; 4];
    let c0 = sub3(&a.support(&[1.0, 0.0, 0.0]), &b.support(&[-1.0, 0.0, 0.0]));
    let dir0 = if norm3(&c0) > MINVAL {
        c0
    } else {
        [1.0, 0.0, 0.0]
    };
    s[0] = support(a, b, &scl3(&dir0, -1.0));
    let mut n = 1;
    let mut v = s[0].w;
    for _ in 0..iterations {
        v = closest(&mut s, &mut n, &mut lambda);
        let vv = dot3(&v, &v);
        if n == 4 || vv < 1e-24 {
            return Query {
                dist: 0.0,
                a: [0.0; 3],
                b: [0.0; 3],
                simplex: s,
                n,
                overlap: true,
            };
        }
        let w = support(a, b, &scl3(&v, -1.0));
        if vv - dot3(&v, &w.w) <= tol * vv {
            break;
        }
        if s[..n]
            .iter()
            .any(|x| sub3(&x.w, &w.w).iter().all(|c| c.abs() < 1e-15))
        {
            break;
        }
        s[n] = w;
        n += 1;
    }
    let _ = closest(&mut s, &mut n, &mut lambda);
    let mut pa = [0.0; 3];
    let mut pb = [0.0; 3];
    for i in 0..n {
        add_to_scl3(&mut pa, &s[i].a, lambda[i]);
        add_to_scl3(&mut pb, &s[i].b, lambda[i]);
    }
    Query {
        dist: norm3(&v),
        a: pa,
        b: pb,
        simplex: s,
        n,
        overlap: false,
    }
}

#[derive(Debug, Clone, Copy)]
struct Face {
    v: [usize; 3],
    n: Vec3,
    d: f64,
}

fn make_face(pts: &[Vertex], i: usize, j: usize, k: usize) -> Option<Face> {
    let mut n = cross(&sub3(&pts[j].w, &pts[i].w), &sub3(&pts[k].w, &pts[i].w));
    if normalize3(&mut n) < 1e-18 {
        return None;
    }
    let mut d = dot3(&n, &pts[i].w);
    let mut v = [i, j, k];
    if d < 0.0 {
        n = scl3(&n, -1.0);
        d = -d;
        v = [i, k, j];
    }
    Some(Face { v, n, d })
}

/// Penetration depth, normal (A→B) and witness points by the expanding polytope algorithm.
fn epa(
    sc: &mut EpaScratch,
    a: &Core,
    b: &Core,
    q: &Query,
    iterations: usize,
    tol: f64,
) -> Option<(f64, Vec3, Vec3, Vec3)> {
    let pts = &mut sc.pts;
    pts.clear();
    pts.extend_from_slice(&q.simplex[..q.n]);
    // grow a degenerate simplex into a tetrahedron around the origin
    let dirs = [
        [1.0, 0.0, 0.0],
        [-1.0, 0.0, 0.0],
        [0.0, 1.0, 0.0],
        [0.0, -1.0, 0.0],
        [0.0, 0.0, 1.0],
        [0.0, 0.0, -1.0],
    ];
    let mut di = 0;
    while pts.len() < 4 && di < 6 {
        let w = support(a, b, &dirs[di]);
        di += 1;
        let independent = match pts.len() {
            1 => norm3(&sub3(&w.w, &pts[0].w)) > 1e-12,
            2 => norm3(&cross(&sub3(&pts[1].w, &pts[0].w), &sub3(&w.w, &pts[0].w))) > 1e-18,
            _ => {
                let nrm = cross(&sub3(&pts[1].w, &pts[0].w), &sub3(&pts[2].w, &pts[0].w));
                dot3(&nrm, &sub3(&w.w, &pts[0].w)).abs() > 1e-18
            }
        };
        if independent {
            pts.push(w);
        }
    }
    if pts.len() < 4 {
        return None;
    }
    let faces = &mut sc.faces;
    faces.clear();
    for (i, j, k) in [(0, 1, 2), (0, 3, 1), (0, 2, 3), (1, 3, 2)] {
        faces.push(make_face(pts, i, j, k)?);
    }
    // orient outward relative to the centroid (the origin may sit on a face)
    let cen = scl3(
        &add3(&add3(&pts[0].w, &pts[1].w), &add3(&pts[2].w, &pts[3].w)),
        0.25,
    );
    for f in faces.iter_mut() {
        if dot3(&f.n, &sub3(&pts[f.v[0]].w, &cen)) < 0.0 {
            f.n = scl3(&f.n, -1.0);
            f.d = -f.d;
            f.v.swap(1, 2);
        }
    }
    let mut best = 0;
    for _ in 0..iterations {
        best = 0;
        for (i, f) in faces.iter().enumerate() {
            if f.d < faces[best].d {
                best = i;
            }
        }
        let f = faces[best];
        let w = support(a, b, &f.n);
        if dot3(&w.w, &f.n) - f.d < tol.max(1e-12) {
            break;
        }
        let wi = pts.len();
        pts.push(w);
        // remove faces seeing w, collect the horizon
        let edges = &mut sc.edges;
        edges.clear();
        let mut k = 0;
        while k < faces.len() {
            let fk = faces[k];
            if dot3(&fk.n, &sub3(&w.w, &pts[fk.v[0]].w)) > 0.0 {
                for e in 0..3 {
                    let (u, v) = (fk.v[e], fk.v[(e + 1) % 3]);
                    if let Some(p) = edges.iter().position(|&(x, y)| x == v && y == u) {
                        edges.swap_remove(p);
                    } else {
                        edges.push((u, v));
                    }
                }
                faces.swap_remove(k);
            } else {
                k += 1;
            }
        }
        if edges.is_empty() {
            break;
        }
        for &(u, v) in edges.iter() {
            let mut n = cross(&sub3(&pts[v].w, &pts[u].w), &sub3(&pts[wi].w, &pts[u].w));
            if normalize3(&mut n) < 1e-18 {
                continue;
            }
            let d = dot3(&n, &pts[u].w);
            faces.push(Face {
                v: [u, v, wi],
                n,
                d,
            });
        }
        if faces.is_empty() || faces.len() > 4096 {
            return None;
        }
    }
    let f = faces
        .get(best)
        .copied()
        .or_else(|| faces.first().copied())?;
    // barycentric coordinates of the origin's projection onto the face
    let p = scl3(&f.n, f.d);
    let (x0, x1, x2) = (pts[f.v[0]], pts[f.v[1]], pts[f.v[2]]);
    let v0 = sub3(&x1.w, &x0.w);
    let v1 = sub3(&x2.w, &x0.w);
    let v2 = sub3(&p, &x0.w);
    let d00 = dot3(&v0, &v0);
    let d01 = dot3(&v0, &v1);
    let d11 = dot3(&v1, &v1);
    let d20 = dot3(&v2, &v0);
    let d21 = dot3(&v2, &v1);
    let den = d00 * d11 - d01 * d01;
    let (l1, l2) = if den.abs() > 1e-30 {
        ((d11 * d20 - d01 * d21) / den, (d00 * d21 - d01 * d20) / den)
    } else {
        (1.0 / 3.0, 1.0 / 3.0)
    };
    let l0 = 1.0 - l1 - l2;
    let wa = add3(&add3(&scl3(&x0.a, l0), &scl3(&x1.a, l1)), &scl3(&x2.a, l2));
    let wb = add3(&add3(&scl3(&x0.b, l0), &scl3(&x1.b, l1)), &scl3(&x2.b, l2));
    Some((f.d, f.n, wa, wb))
}

/// Collides two shapes; appends at most one contact if they are closer than `margin`.
pub fn collide(
    sc: &mut EpaScratch,
    out: &mut Vec<PreContact>,
    margin: f64,
    a: &Shape,
    b: &Shape,
    iterations: usize,
    tol: f64,
) -> usize {
    let q = gjk(&a.core, &b.core, iterations.max(8) * 4, tol.max(1e-12));
    let (ra, rb) = (a.radius, b.radius);
    if !q.overlap {
        let dist = q.dist - ra - rb;
        if dist > margin {
            return 0;
        }
        let mut n = sub3(&q.b, &q.a);
        if normalize3(&mut n) < MINVAL {
            return 0;
        }
        let pa = add3(&q.a, &scl3(&n, ra));
        let pb = add3(&q.b, &scl3(&n, -rb));
        out.push(PreContact::new(dist, scl3(&add3(&pa, &pb), 0.5), n));
        return 1;
    }
    let Some((depth, n, wa, wb)) = epa(sc, &a.core, &b.core, &q, iterations.max(8) * 8, tol) else {
        return 0;
    };
    let dist = -depth - ra - rb;
    let pa = add3(&wa, &scl3(&n, ra));
    let pb = add3(&wb, &scl3(&n, -rb));
    out.push(PreContact::new(dist, scl3(&add3(&pa, &pb), 0.5), n));
    1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sphere(c: Vec3, r: f64) -> Shape<'static> {
        Shape {
            core: Core::Points { p: [c; 4], n: 1 },
            radius: r,
        }
    }

    #[test]
    fn separated_spheres_distance_and_normal() {
        let mut out = Vec::new();
        let n = collide(
            &mut EpaScratch::default(),
            &mut out,
            1.0,
            &sphere([0.0; 3], 0.5),
            &sphere([2.0, 0.0, 0.0], 0.5),
            35,
            1e-6,
        );
        assert_eq!(n, 1);
        assert!((out[0].dist - 1.0).abs() < 1e-12);
        assert!((out[0].normal[0] - 1.0).abs() < 1e-12);
        assert!((out[0].pos[0] - 1.0).abs() < 1e-12);
    }

    #[test]
    fn overlapping_boxes_give_penetration_depth() {
        let eye = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0];
        let a = Shape {
            core: Core::Box {
                c: [0.0; 3],
                mat: eye,
                size: [1.0; 3],
            },
            radius: 0.0,
        };
        let b = Shape {
            core: Core::Box {
                c: [0.0, 0.0, 1.9],
                mat: eye,
                size: [1.0; 3],
            },
            radius: 0.0,
        };
        let mut out = Vec::new();
        assert_eq!(
            collide(&mut EpaScratch::default(), &mut out, 0.0, &a, &b, 35, 1e-9),
            1
        );
        assert!((out[0].dist + 0.1).abs() < 1e-9, "{}", out[0].dist);
        assert!((out[0].normal[2] - 1.0).abs() < 1e-9);
    }

    #[test]
    fn triangle_above_box_is_separated_by_its_gap() {
        let eye = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0];
        let bx = Shape {
            core: Core::Box {
                c: [0.0; 3],
                mat: eye,
                size: [1.0; 3],
            },
            radius: 0.0,
        };
        let tri = Shape {
            core: Core::Points {
                p: [[0.0, 0.0, 1.3], [0.5, 0.0, 1.3], [0.0, 0.5, 1.3], [0.0; 3]],
                n: 3,
            },
            radius: 0.1,
        };
        let mut out = Vec::new();
        assert_eq!(
            collide(
                &mut EpaScratch::default(),
                &mut out,
                0.5,
                &bx,
                &tri,
                35,
                1e-9
            ),
            1
        );
        assert!((out[0].dist - 0.2).abs() < 1e-9);
    }
}
