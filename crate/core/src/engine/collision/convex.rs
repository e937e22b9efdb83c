//! General convex collision: MuJoCo 3.15.0's native CCD (`mjc_ccd` in engine_collision_gjk.c:
//! GJK with the Montanari sub-distance algorithm and the `gjkIntersect` fallback, EPA over a
//! polytope grown from the 2-, 3- or 4-vertex simplex GJK ends with) and its callers
//! (`mjc_penetration`, `mjc_ConvexElem` with its 2D-flex `mjc_fixNormal`), for the pairs without
//! an analytic test: ellipsoids, cylinders, boxes and convex meshes against flex elements and
//! each other, tetrahedra, and element–element pairs.
//!
//! A shape is a convex core and a radius. As in MuJoCo, a flex element's radius (with half the
//! pair's margin) is part of its support function (the farthest vertex pushed out along the
//! unit direction); a sphere or capsule geom is first shrunk to its point or segment and the
//! GJK result inflated unless they overlap deeply; the other geoms carry half the margin in
//! their support. The arithmetic follows MuJoCo's operation by operation, so distances, points
//! and normals agree with MuJoCo's to round-off (GJK and EPA stop at the CCD tolerance, so both
//! differ from the exact answer by about that much, in the same way). One contact per pair,
//! normal from the first shape to the second.

use super::meshsupport::{MeshData, Warm};
use super::multicontact::{MultiScratch, Support, Witness};
use super::PreContact;
use crate::math::*;

/// A convex core with a radius around it.
#[derive(Debug, Clone, Copy)]
pub enum Core<'a> {
    /// A flex element or vertex: up to four points (vertex, segment, triangle, tetrahedron) and
    /// the centre GJK starts from (the element's bounding-box centre, or the vertex).
    Points { p: [Vec3; 4], n: usize, c: Vec3 },
    /// Sphere geom: centre and rotation (radius in the shape).
    Sphere { c: Vec3, mat: Mat3 },
    /// Capsule geom along local z: centre, rotation, half length (radius in the shape).
    Capsule { c: Vec3, mat: Mat3, h: f64 },
    /// Oriented box: centre, rotation (row-major, columns are axes), half sizes.
    Box { c: Vec3, mat: Mat3, size: Vec3 },
    /// Ellipsoid: centre, rotation, semi-axes.
    Ellipsoid { c: Vec3, mat: Mat3, size: Vec3 },
    /// Cylinder along local z: centre, rotation, radius, half height.
    Cylinder { c: Vec3, mat: Mat3, r: f64, h: f64 },
    /// Convex mesh: vertices (local frame), hull graph and climb seeds, placed by centre and
    /// rotation.
    Mesh {
        c: Vec3,
        mat: Mat3,
        mesh: MeshData<'a>,
    },
}

impl Core<'_> {
    /// Centre and rotation of a geom core (`None` for flex points, which have no frame).
    pub fn frame_mut(&mut self) -> Option<(&mut Vec3, &mut Mat3)> {
        match self {
            Core::Points { .. } => None,
            Core::Sphere { c, mat }
            | Core::Capsule { c, mat, .. }
            | Core::Box { c, mat, .. }
            | Core::Ellipsoid { c, mat, .. }
            | Core::Cylinder { c, mat, .. }
            | Core::Mesh { c, mat, .. } => Some((c, mat)),
        }
    }
}

/// A convex shape for GJK/EPA: a core and a radius (m).
#[derive(Debug, Clone, Copy)]
pub struct Shape<'a> {
    pub core: Core<'a>,
    pub radius: f64,
}

/// `mat·v + pos`, MuJoCo's `localToGlobal`.
#[inline]
fn local_to_global(mat: &Mat3, v: &Vec3, pos: &Vec3) -> Vec3 {
    let r = mul_mat_vec3(mat, v);
    [r[0] + pos[0], r[1] + pos[1], r[2] + pos[2]]
}

/// Box support in the local frame and the index of its corner (`mjc_boxSupport`).
fn box_support(c: &Vec3, mat: &Mat3, size: &Vec3, d: &Vec3) -> (Vec3, i32) {
    let l = mul_mat_t_vec3(mat, d);
    let s = [
        if l[0] >= 0.0 { size[0] } else { -size[0] },
        if l[1] >= 0.0 { size[1] } else { -size[1] },
        if l[2] >= 0.0 { size[2] } else { -size[2] },
    ];
    let idx = (s[0] > 0.0) as i32 | (((s[1] > 0.0) as i32) << 1) | (((s[2] > 0.0) as i32) << 2);
    (local_to_global(mat, &s, c), idx)
}

/// Mesh support and the vertex index (`mjc_meshSupport` / `mjc_hillclimbSupport`),
/// warm-started from the object's last vertex.
fn mesh_support(c: &Vec3, mat: &Mat3, mesh: &MeshData, d: &Vec3, w: &Warm) -> (Vec3, i32) {
    let i = mesh.support_index(mat, d, w);
    (local_to_global(mat, &mesh.vertex(i), c), i as i32)
}

impl Core<'_> {
    /// The core's farthest point in unit direction `d` (spheres and capsules without their
    /// radius: the centre, and MuJoCo's `mjc_lineSupport`).
    pub fn support(&self, d: &Vec3) -> Vec3 {
        match *self {
            Core::Points { p, n, .. } => {
                let mut best = p[0];
                let mut bv = dot3(&best, d);
                for q in p.iter().take(n).skip(1) {
                    let v = dot3(q, d);
                    if v > bv {
                        bv = v;
                        best = *q;
                    }
                }
                best
            }
            Core::Sphere { c, .. } => c,
            Core::Capsule { c, mat, h } => {
                let dot = mat[2] * d[0] + mat[5] * d[1] + mat[8] * d[2];
                let scl = if dot >= 0.0 { h } else { -h };
                [
                    mat[2] * scl + c[0],
                    mat[5] * scl + c[1],
                    mat[8] * scl + c[2],
                ]
            }
            Core::Box { c, mat, size } => box_support(&c, &mat, &size, d).0,
            Core::Ellipsoid { c, mat, size } => {
                let l = mul_mat_t_vec3(&mat, d);
                let mut s = [l[0] * size[0], l[1] * size[1], l[2] * size[2]];
                let n2 = s[0] * s[0] + s[1] * s[1] + s[2] * s[2];
                if n2 < MINVAL * MINVAL {
                    return [
                        mat[0] * size[0] + c[0],
                        mat[3] * size[0] + c[1],
                        mat[6] * size[0] + c[2],
                    ];
                }
                let inv = 1.0 / n2.sqrt();
                for k in 0..3 {
                    s[k] *= inv * size[k];
                }
                local_to_global(&mat, &s, &c)
            }
            Core::Cylinder { c, mat, r, h } => {
                let l = mul_mat_t_vec3(&mat, d);
                let n2 = l[0] * l[0] + l[1] * l[1];
                let scl = if n2 >= MINVAL * MINVAL {
                    r / n2.sqrt()
                } else {
                    0.0
                };
                let s = [scl * l[0], scl * l[1], if l[2] >= 0.0 { h } else { -h }];
                local_to_global(&mat, &s, &c)
            }
            Core::Mesh { c, mat, mesh } => mesh_support(&c, &mat, &mesh, d, &Warm::new()).0,
        }
    }

    /// Where GJK starts (`mjc_center`): the geom position, or the element's box centre.
    fn center(&self) -> Vec3 {
        match *self {
            Core::Points { c, .. }
            | Core::Sphere { c, .. }
            | Core::Capsule { c, .. }
            | Core::Box { c, .. }
            | Core::Ellipsoid { c, .. }
            | Core::Cylinder { c, .. }
            | Core::Mesh { c, .. } => c,
        }
    }
}

/// One side of a CCD query (`mjCCDObj`): the shape, the margin it carries, and whether a
/// sphere or capsule is shrunk to its core for the first GJK pass.
struct Obj<'s, 'a> {
    shape: &'s Shape<'a>,
    margin: f64,
    shrunk: bool,
    /// A mesh's last support vertex, where its next search starts.
    warm: &'s Warm,
}

impl Obj<'_, '_> {
    fn is_geom(&self) -> bool {
        !matches!(self.shape.core, Core::Points { .. })
    }

    /// Boxes and meshes without margin: GJK converges exactly (`discreteGeoms`).
    fn discrete(&self) -> bool {
        self.margin == 0.0 && matches!(self.shape.core, Core::Box { .. } | Core::Mesh { .. })
    }

    /// Support point in unit direction `dir` with the margin MuJoCo puts there, and the
    /// vertex index for discrete shapes (-1 otherwise).
    fn support(&self, dir: &Vec3) -> (Vec3, i32) {
        let r = self.shape.radius;
        let (mut p, idx) = match self.shape.core {
            Core::Points { p, n, .. } => {
                let mut best = p[0];
                let mut bv = dot3(&best, dir);
                for q in p.iter().take(n).skip(1) {
                    let v = dot3(q, dir);
                    if v > bv {
                        bv = v;
                        best = *q;
                    }
                }
                // the flex support adds the radius and half the margin itself
                let s = r + 0.5 * self.margin;
                for k in 0..3 {
                    best[k] += dir[k] * s;
                }
                return (best, -1);
            }
            Core::Sphere { c, .. } => {
                if self.shrunk {
                    (c, -1)
                } else {
                    (
                        [r * dir[0] + c[0], r * dir[1] + c[1], r * dir[2] + c[2]],
                        -1,
                    )
                }
            }
            Core::Capsule { c, mat, h } => {
                if self.shrunk {
                    (self.shape.core.support(dir), -1)
                } else {
                    let l = mul_mat_t_vec3(&mat, dir);
                    let mut s = [l[0] * r, l[1] * r, l[2] * r];
                    s[2] += if l[2] >= 0.0 { h } else { -h };
                    (local_to_global(&mat, &s, &c), -1)
                }
            }
            Core::Box { c, mat, size } => box_support(&c, &mat, &size, dir),
            Core::Cylinder { mat, .. } => {
                // which cap the support lies on (0 top, 1 bottom), for the multi-contact step
                let z = mul_mat_t_vec3(&mat, dir)[2];
                (self.shape.core.support(dir), i32::from(z < 0.0))
            }
            Core::Mesh { c, mat, mesh } => mesh_support(&c, &mat, &mesh, dir, self.warm),
            _ => (self.shape.core.support(dir), -1),
        };
        if self.margin > 0.0 {
            let half = 0.5 * self.margin;
            for k in 0..3 {
                p[k] += dir[k] * half;
            }
        }
        (p, idx)
    }
}

/// A vertex of the Minkowski difference with its two support points.
#[derive(Debug, Clone, Copy, Default)]
struct Vertex {
    vert: Vec3,
    vert1: Vec3,
    vert2: Vec3,
    index1: i32,
    index2: i32,
}

/// `S_{A-B}(dir) = S_A(dir) - S_B(-dir)`.
fn support(o1: &Obj, o2: &Obj, dir: &Vec3, dir_neg: &Vec3) -> Vertex {
    let (vert1, index1) = o1.support(dir);
    let (vert2, index2) = o2.support(dir_neg);
    Vertex {
        vert: sub3(&vert1, &vert2),
        vert1,
        vert2,
        index1,
        index2,
    }
}

/// Support for GJK's iterate `x_k` (direction `-x_k / |x_k|`).
fn gjk_support(o1: &Obj, o2: &Obj, x_k: &Vec3, x_norm: f64) -> Vertex {
    let inv = 1.0 / x_norm;
    let dir_neg = [x_k[0] * inv, x_k[1] * inv, x_k[2] * inv];
    let dir = [-dir_neg[0], -dir_neg[1], -dir_neg[2]];
    support(o1, o2, &dir, &dir_neg)
}

/// The running state of a query (`mjCCDStatus`).
struct Status {
    separated: bool,
    dist: f64,
    x1: Vec3,
    x2: Vec3,
    nx: usize,
    max_iterations: usize,
    tolerance: f64,
    dist_cutoff: f64,
    gjk_iterations: usize,
    simplex: [Vertex; 4],
    nsimplex: usize,
    /// Most contacts the query may report (`max_contacts`); above 1 the touching features are
    /// clipped for more (see `multicontact`).
    max_contacts: usize,
}

/// `mjMAX_LIMIT`.
const MAX_LIMIT: f64 = f64::MAX;
const MINVAL2: f64 = MINVAL * MINVAL;
const MAXVAL2: f64 = MAXVAL * MAXVAL;

#[inline]
fn det3(a: &Vec3, b: &Vec3, c: &Vec3) -> f64 {
    a[0] * (b[1] * c[2] - b[2] * c[1])
        + a[1] * (b[2] * c[0] - b[0] * c[2])
        + a[2] * (b[0] * c[1] - b[1] * c[0])
}

/// `coef[0]·v[0] + … + coef[n-1]·v[n-1]` per component, left to right.
#[inline]
fn lincomb(coef: &[f64], v: &[Vec3]) -> Vec3 {
    let mut r = [0.0; 3];
    match v.len() {
        0 => {}
        1 => {
            for k in 0..3 {
                r[k] = coef[0] * v[0][k];
            }
        }
        2 => {
            for k in 0..3 {
                r[k] = coef[0] * v[0][k] + coef[1] * v[1][k];
            }
        }
        3 => {
            for k in 0..3 {
                r[k] = coef[0] * v[0][k] + coef[1] * v[1][k] + coef[2] * v[2][k];
            }
        }
        _ => {
            for k in 0..3 {
                r[k] =
                    coef[0] * v[0][k] + coef[1] * v[1][k] + coef[2] * v[2][k] + coef[3] * v[3][k];
            }
        }
    }
    r
}

fn simplex_lincomb(lambda: &[f64; 4], s: &[Vertex; 4], n: usize, f: fn(&Vertex) -> Vec3) -> Vec3 {
    let v = [f(&s[0]), f(&s[1]), f(&s[2]), f(&s[3])];
    lincomb(&lambda[..n], &v[..n])
}

/// 1 if both positive, -1 if both negative, else 0.
#[inline]
fn same_sign2(a: f64, b: f64) -> i32 {
    if a > 0.0 && b > 0.0 {
        1
    } else if a < 0.0 && b < 0.0 {
        -1
    } else {
        0
    }
}

/// The origin projected onto the plane through three points; `None` when degenerate.
fn project_origin_plane(v1: &Vec3, v2: &Vec3, v3: &Vec3) -> Option<Vec3> {
    let d21 = sub3(v2, v1);
    let d31 = sub3(v3, v1);
    let d32 = sub3(v3, v2);
    // the normal from each pair of edges in turn, with a vertex on its plane: the first two
    // are taken when well conditioned, the last one unconditionally (as MuJoCo tries them)
    let tries: [(&Vec3, &Vec3, &Vec3); 3] = [(&d32, &d21, v2), (&d21, &d31, v1), (&d31, &d32, v3)];
    for (k, (a, b, p)) in tries.into_iter().enumerate() {
        let n = cross(a, b);
        let nv = dot3(&n, p);
        let nn = dot3(&n, &n);
        if k < 2 {
            if nn == 0.0 {
                return None;
            }
            if nv == 0.0 || nn <= MINVAL {
                continue;
            }
        }
        return Some(scl3(&n, nv / nn));
    }
    unreachable!("the third normal is always returned")
}

/// The origin projected onto the line through two points.
fn project_origin_line(v1: &Vec3, v2: &Vec3) -> Vec3 {
    let diff = sub3(v2, v1);
    let scl = -(dot3(v2, &diff) / dot3(&diff, &diff));
    [
        v2[0] + scl * diff[0],
        v2[1] + scl * diff[1],
        v2[2] + scl * diff[2],
    ]
}

/// Barycentric coordinates of the simplex point closest to the origin (Montanari et al.).
fn subdistance(lambda: &mut [f64; 4], n: usize, s: &[Vertex; 4]) {
    *lambda = [0.0; 4];
    match n {
        4 => s3d(lambda, &s[0].vert, &s[1].vert, &s[2].vert, &s[3].vert),
        3 => {
            let mut l = [0.0; 3];
            s2d(&mut l, &s[0].vert, &s[1].vert, &s[2].vert);
            lambda[..3].copy_from_slice(&l);
        }
        2 => {
            let mut l = [0.0; 2];
            s1d(&mut l, &s[0].vert, &s[1].vert);
            lambda[..2].copy_from_slice(&l);
        }
        _ => lambda[0] = 1.0,
    }
}

fn s3d(lambda: &mut [f64; 4], s1: &Vec3, s2: &Vec3, s3: &Vec3, s4: &Vec3) {
    let c41 = -det3(s2, s3, s4);
    let c42 = det3(s1, s3, s4);
    let c43 = -det3(s1, s2, s4);
    let c44 = det3(s1, s2, s3);
    let m_det = c41 + c42 + c43 + c44;
    let comp1 = same_sign2(m_det, c41);
    let comp2 = same_sign2(m_det, c42);
    let comp3 = same_sign2(m_det, c43);
    let comp4 = same_sign2(m_det, c44);
    if comp1 != 0 && comp2 != 0 && comp3 != 0 && comp4 != 0 {
        *lambda = [c41 / m_det, c42 / m_det, c43 / m_det, c44 / m_det];
        return;
    }
    let mut dmin = MAX_LIMIT;
    // the faces opposite each vertex whose sign differs, closest one wins (first on ties)
    let faces: [(i32, [&Vec3; 3], usize); 4] = [
        (comp1, [s2, s3, s4], 0),
        (comp2, [s1, s3, s4], 1),
        (comp3, [s1, s2, s4], 2),
        (comp4, [s1, s2, s3], 3),
    ];
    for (comp, f, skip) in faces {
        if comp != 0 {
            continue;
        }
        let mut l = [0.0; 3];
        s2d(&mut l, f[0], f[1], f[2]);
        let x = lincomb(&l, &[*f[0], *f[1], *f[2]]);
        let d = dot3(&x, &x);
        if d < dmin {
            let mut j = 0;
            for (i, li) in lambda.iter_mut().enumerate() {
                if i == skip {
                    *li = 0.0;
                } else {
                    *li = l[j];
                    j += 1;
                }
            }
            dmin = d;
        }
    }
}

/// The triangle's signed area minor of largest magnitude among its projections on the yz, xz
/// and xy planes, and the two kept axes (as `S2D` chooses the projection).
fn largest_projection(v1: &Vec3, v2: &Vec3, v3: &Vec3) -> (f64, usize, usize) {
    let m14 = v2[1] * v3[2] - v2[2] * v3[1] - v1[1] * v3[2] + v1[2] * v3[1] + v1[1] * v2[2]
        - v1[2] * v2[1];
    let m24 = v2[0] * v3[2] - v2[2] * v3[0] - v1[0] * v3[2] + v1[2] * v3[0] + v1[0] * v2[2]
        - v1[2] * v2[0];
    let m34 = v2[0] * v3[1] - v2[1] * v3[0] - v1[0] * v3[1] + v1[1] * v3[0] + v1[0] * v2[1]
        - v1[1] * v2[0];
    let (mu1, mu2, mu3) = (m14.abs(), m24.abs(), m34.abs());
    if mu1 >= mu2 && mu1 >= mu3 {
        (m14, 1, 2)
    } else if mu2 >= mu3 {
        (m24, 0, 2)
    } else {
        (m34, 0, 1)
    }
}

fn s2d(lambda: &mut [f64; 3], s1: &Vec3, s2: &Vec3, s3: &Vec3) {
    let Some(p_o) = project_origin_plane(s1, s2, s3) else {
        let mut l = [0.0; 2];
        s1d(&mut l, s1, s2);
        *lambda = [l[0], l[1], 0.0];
        return;
    };
    let (m_max, x, y) = largest_projection(s1, s2, s3);
    let (a, b, c, p) = (
        [s1[x], s1[y]],
        [s2[x], s2[y]],
        [s3[x], s3[y]],
        [p_o[x], p_o[y]],
    );
    let c31 = p[0] * b[1] + p[1] * c[0] + b[0] * c[1] - p[0] * c[1] - p[1] * b[0] - c[0] * b[1];
    let c32 = p[0] * c[1] + p[1] * a[0] + c[0] * a[1] - p[0] * a[1] - p[1] * c[0] - a[0] * c[1];
    let c33 = p[0] * a[1] + p[1] * b[0] + a[0] * b[1] - p[0] * b[1] - p[1] * a[0] - b[0] * a[1];
    let comp1 = same_sign2(m_max, c31);
    let comp2 = same_sign2(m_max, c32);
    let comp3 = same_sign2(m_max, c33);
    if comp1 != 0 && comp2 != 0 && comp3 != 0 {
        *lambda = [c31 / m_max, c32 / m_max, c33 / m_max];
        return;
    }
    let mut dmin = MAX_LIMIT;
    let edges: [(i32, [&Vec3; 2], usize); 3] = [
        (comp1, [s2, s3], 0),
        (comp2, [s1, s3], 1),
        (comp3, [s1, s2], 2),
    ];
    for (comp, e, skip) in edges {
        if comp != 0 {
            continue;
        }
        let mut l = [0.0; 2];
        s1d(&mut l, e[0], e[1]);
        let xx = lincomb(&l, &[*e[0], *e[1]]);
        let d = dot3(&xx, &xx);
        if d < dmin {
            let mut j = 0;
            for (i, li) in lambda.iter_mut().enumerate() {
                if i == skip {
                    *li = 0.0;
                } else {
                    *li = l[j];
                    j += 1;
                }
            }
            dmin = d;
        }
    }
}

fn s1d(lambda: &mut [f64; 2], s1: &Vec3, s2: &Vec3) {
    let p_o = project_origin_line(s1, s2);
    let mut mu_max = s1[0] - s2[0];
    let mut index = 0;
    let mu = s1[1] - s2[1];
    if mu.abs() >= mu_max.abs() {
        mu_max = mu;
        index = 1;
    }
    let mu = s1[2] - s2[2];
    if mu.abs() >= mu_max.abs() {
        mu_max = mu;
        index = 2;
    }
    let c1 = p_o[index] - s2[index];
    let c2 = s1[index] - p_o[index];
    let same = same_sign2(mu_max, c1) != 0 && same_sign2(mu_max, c2) != 0;
    lambda[0] = if same { c1 / mu_max } else { 0.0 };
    lambda[1] = if same { c2 / mu_max } else { 1.0 };
}

/// Signed distance of the face (v1, v2, v3) from the origin and its unit normal
/// (`MAX_LIMIT` and the raw normal when degenerate).
fn signed_distance(v1: &Vertex, v2: &Vertex, v3: &Vertex) -> (f64, Vec3) {
    let d1 = sub3(&v3.vert, &v1.vert);
    let d2 = sub3(&v2.vert, &v1.vert);
    let mut n = cross(&d1, &d2);
    let n2 = dot3(&n, &n);
    if n2 > MINVAL2 && n2 < MAXVAL2 {
        let s = 1.0 / n2.sqrt();
        n = scl3(&n, s);
        return (dot3(&n, &v1.vert), n);
    }
    (MAX_LIMIT, n)
}

/// Whether the tetrahedron holds the origin: 1 yes, 0 no, -1 inconclusive (`gjkIntersect`).
fn gjk_intersect(st: &mut Status, o1: &Obj, o2: &Obj) -> i32 {
    let mut simplex = st.simplex;
    let mut s = [0usize, 1, 2, 3];
    let mut k = st.gjk_iterations;
    let kmax = st.max_iterations;
    while k < kmax {
        let (d0, n0) = signed_distance(&simplex[s[2]], &simplex[s[1]], &simplex[s[3]]);
        let (d1, n1) = signed_distance(&simplex[s[0]], &simplex[s[2]], &simplex[s[3]]);
        let (d2, n2) = signed_distance(&simplex[s[1]], &simplex[s[0]], &simplex[s[3]]);
        let (d3, n3) = signed_distance(&simplex[s[0]], &simplex[s[1]], &simplex[s[2]]);
        let dist = [d0, d1, d2, d3];
        let normals = [n0, n1, n2, n3];
        if d3 == 0.0 || d2 == 0.0 || d1 == 0.0 || d0 == 0.0 {
            st.gjk_iterations = k;
            return -1;
        }
        let i = if dist[0] < dist[1] { 0 } else { 1 };
        let j = if dist[2] < dist[3] { 2 } else { 3 };
        let index = if dist[i] < dist[j] { i } else { j };
        if dist[index] > 0.0 {
            st.nsimplex = 4;
            st.simplex = [simplex[s[0]], simplex[s[1]], simplex[s[2]], simplex[s[3]]];
            st.gjk_iterations = k;
            return 1;
        }
        let nrm = normals[index];
        let neg = [-nrm[0], -nrm[1], -nrm[2]];
        simplex[s[index]] = support(o1, o2, &nrm, &neg);
        if dot3(&nrm, &simplex[s[index]].vert) < 0.0 {
            st.nsimplex = 0;
            st.gjk_iterations = k;
            return 0;
        }
        let i = (index + 1) & 3;
        let j = (index + 2) & 3;
        s.swap(i, j);
        k += 1;
    }
    st.gjk_iterations = k;
    -1
}

/// GJK from the objects' centres; distance (0 for overlap), witness points, final simplex.
fn gjk(st: &mut Status, o1: &Obj, o2: &Obj) {
    let get_dist = st.dist_cutoff > 0.0;
    let mut backup_gjk = !get_dist;
    let mut n = 0usize;
    let mut k = 0usize;
    let kmax = st.max_iterations;
    let mut lambda = [0.0; 4];
    let tol2 = st.tolerance * st.tolerance;
    st.separated = false;
    let discrete = o1.discrete() && o2.discrete();
    let epsilon = if discrete { 0.0 } else { 0.5 * tol2 };
    let min_norm = if discrete { MINVAL } else { st.tolerance };
    let mut x_k = sub3(&st.x1, &st.x2);
    let mut x_norm = norm3(&x_k);
    let mut x_norm_prev = 0.0;
    let separated = |st: &mut Status, k: usize| {
        st.separated = true;
        st.gjk_iterations = k;
        st.nsimplex = 0;
        st.nx = 0;
        st.dist = MAX_LIMIT;
    };
    while k < kmax {
        if x_norm < min_norm || (x_norm_prev - x_norm).abs() < MINVAL {
            break;
        }
        st.simplex[n] = gjk_support(o1, o2, &x_k, x_norm);
        let s_k = st.simplex[n].vert;
        let diff = sub3(&x_k, &s_k);
        if dot3(&x_k, &diff) < epsilon {
            break;
        }
        let lower = dot3(&x_k, &s_k);
        if !get_dist {
            if lower > 0.0 {
                return separated(st, k);
            }
        } else if st.dist_cutoff < MAX_LIMIT && lower > 0.0 && lower >= st.dist_cutoff * x_norm {
            return separated(st, k);
        }
        if n == 3 && backup_gjk {
            st.gjk_iterations = k;
            let ret = gjk_intersect(st, o1, o2);
            if ret != -1 {
                st.nx = 0;
                st.separated = ret == 0;
                st.dist = if ret > 0 { 0.0 } else { MAX_LIMIT };
                return;
            }
            k = st.gjk_iterations;
            backup_gjk = false;
        }
        subdistance(&mut lambda, n + 1, &st.simplex);
        n = 0;
        for i in 0..4 {
            if lambda[i] == 0.0 {
                continue;
            }
            st.simplex[n] = st.simplex[i];
            lambda[n] = lambda[i];
            n += 1;
        }
        if n < 1 {
            return separated(st, k);
        }
        x_k = simplex_lincomb(&lambda, &st.simplex, n, |v| v.vert);
        x_norm_prev = x_norm;
        x_norm = norm3(&x_k);
        if n == 4 {
            break;
        }
        k += 1;
    }
    if n > 0 {
        st.x1 = simplex_lincomb(&lambda, &st.simplex, n, |v| v.vert1);
        st.x2 = simplex_lincomb(&lambda, &st.simplex, n, |v| v.vert2);
    }
    // final separation check
    let tmp = gjk_support(o1, o2, &x_k, x_norm);
    if dot3(&x_k, &tmp.vert) > 0.0 {
        st.separated = true;
    }
    st.nx = 1;
    st.gjk_iterations = k;
    st.nsimplex = n;
    st.dist = if n == 4 && !st.separated { 0.0 } else { x_norm };
}

/// One face of the EPA polytope.
#[derive(Debug, Clone, Copy, Default)]
struct Face {
    /// Vertex indices.
    verts: [usize; 3],
    /// Adjacent faces across edges [v1,v2], [v2,v3], [v3,v1].
    adj: [usize; 3],
    /// The origin's projection onto the face (its outward normal scaled by the distance).
    v: Vec3,
    /// |v|².
    dist2: f64,
    /// Index in the map; -1 not in the map, -2 deleted.
    index: i64,
}

/// Reusable EPA buffers (MuJoCo's polytope), sized once for the CCD iteration limit, so
/// collision does not allocate.
#[derive(Debug, Clone, Default)]
pub struct EpaScratch {
    verts: Vec<Vertex>,
    faces: Vec<Face>,
    map: Vec<usize>,
    /// Horizon: (face, edge) pairs.
    horizon: Vec<(usize, usize)>,
    center: Vec3,
    maxfaces: usize,
    /// The multi-contact step's buffers and the contacts of the last query.
    multi: MultiScratch,
}

impl EpaScratch {
    /// Buffers for `iterations` CCD iterations (`mjc_ccdSize`).
    pub fn new(iterations: usize) -> Self {
        EpaScratch {
            verts: crate::data::with_capacity(5 + iterations + 8),
            faces: crate::data::with_capacity(6 * iterations + 8),
            map: crate::data::with_capacity(6 * iterations + 8),
            horizon: crate::data::with_capacity(6 * iterations + 8),
            center: [0.0; 3],
            maxfaces: 6 * iterations,
            multi: MultiScratch::default(),
        }
    }

    fn reset(&mut self) {
        self.verts.clear();
        self.faces.clear();
        self.map.clear();
        self.horizon.clear();
    }

    fn insert_vertex(&mut self, v: &Vertex) -> usize {
        self.verts.push(*v);
        self.verts.len() - 1
    }

    fn epa_support(&mut self, o1: &Obj, o2: &Obj, d: &Vec3, dnorm: f64) -> usize {
        let mut dir = [1.0, 0.0, 0.0];
        let mut dir_neg = [-1.0, 0.0, 0.0];
        if dnorm > MINVAL {
            dir = [d[0] / dnorm, d[1] / dnorm, d[2] / dnorm];
            dir_neg = [-dir[0], -dir[1], -dir[2]];
        }
        let v = support(o1, o2, &dir, &dir_neg);
        self.insert_vertex(&v)
    }

    /// Attach a face; its squared distance to the origin (0 when degenerate).
    fn attach_face(
        &mut self,
        v1: usize,
        v2: usize,
        v3: usize,
        a1: usize,
        a2: usize,
        a3: usize,
    ) -> f64 {
        let mut face = Face {
            verts: [v1, v2, v3],
            adj: [a1, a2, a3],
            v: [0.0; 3],
            dist2: 0.0,
            index: -1,
        };
        let Some(mut v) = project_origin_plane(
            &self.verts[v3].vert,
            &self.verts[v2].vert,
            &self.verts[v1].vert,
        ) else {
            self.faces.push(face);
            return 0.0;
        };
        let outward = sub3(&self.verts[v1].vert, &self.center);
        if dot3(&v, &outward) < 0.0 {
            v = scl3(&v, -1.0);
        }
        face.v = v;
        face.dist2 = dot3(&v, &v);
        self.faces.push(face);
        face.dist2
    }

    fn populate_map(&mut self, n: usize) {
        self.map.clear();
        for i in 0..n {
            self.map.push(i);
            self.faces[i].index = i as i64;
        }
    }

    fn delete_face(&mut self, f: usize) {
        let idx = self.faces[f].index;
        if idx >= 0 {
            let idx = idx as usize;
            self.map.swap_remove(idx);
            if idx < self.map.len() {
                let g = self.map[idx];
                self.faces[g].index = idx as i64;
            }
        }
        self.faces[f].index = -2;
    }

    fn get_edge(&self, f: usize, vertex: usize) -> usize {
        let v = self.faces[f].verts;
        if v[0] == vertex {
            0
        } else if v[1] == vertex {
            1
        } else {
            2
        }
    }

    /// Whether face `f` is visible from `w` (then deleted and its neighbours searched).
    fn horizon_rec(&mut self, w: &Vec3, f: usize, e: usize) -> bool {
        let face = self.faces[f];
        if dot3(&face.v, w) - face.dist2 > MINVAL {
            self.delete_face(f);
            for k in 1..3 {
                let i = (e + k) % 3;
                let adj = face.adj[i];
                if self.faces[adj].index > -2 {
                    let adj_edge = self.get_edge(adj, face.verts[(i + 1) % 3]);
                    if !self.horizon_rec(w, adj, adj_edge) {
                        self.horizon.push((adj, adj_edge));
                    }
                }
            }
            return true;
        }
        false
    }

    fn build_horizon(&mut self, w: &Vec3, f: usize) {
        self.delete_face(f);
        let face = self.faces[f];
        let adj = face.adj[0];
        let e = self.get_edge(adj, face.verts[1]);
        if !self.horizon_rec(w, adj, e) {
            self.horizon.push((adj, e));
        }
        let adj = face.adj[1];
        let e = self.get_edge(adj, face.verts[2]);
        if self.faces[adj].index > -2 && !self.horizon_rec(w, adj, e) {
            self.horizon.push((adj, e));
        }
        let adj = face.adj[2];
        let e = self.get_edge(adj, face.verts[0]);
        if self.faces[adj].index > -2 && !self.horizon_rec(w, adj, e) {
            self.horizon.push((adj, e));
        }
    }
}

/// Affine coordinates of `p` on the triangle (v1, v2, v3), as in `S2D`.
fn tri_affine_coord(v1: &Vec3, v2: &Vec3, v3: &Vec3, p: &Vec3) -> [f64; 3] {
    let (m_max, x, y) = largest_projection(v1, v2, v3);
    let c31 =
        p[x] * v2[y] + p[y] * v3[x] + v2[x] * v3[y] - p[x] * v3[y] - p[y] * v2[x] - v3[x] * v2[y];
    let c32 =
        p[x] * v3[y] + p[y] * v1[x] + v3[x] * v1[y] - p[x] * v1[y] - p[y] * v3[x] - v1[x] * v3[y];
    let c33 =
        p[x] * v1[y] + p[y] * v2[x] + v1[x] * v2[y] - p[x] * v2[y] - p[y] * v1[x] - v2[x] * v1[y];
    [c31 / m_max, c32 / m_max, c33 / m_max]
}

fn tri_point_intersect(v1: &Vec3, v2: &Vec3, v3: &Vec3, p: &Vec3) -> bool {
    let l = tri_affine_coord(v1, v2, v3, p);
    if l[0] < 0.0 || l[1] < 0.0 || l[2] < 0.0 {
        return false;
    }
    let pr = [
        v1[0] * l[0] + v2[0] * l[1] + v3[0] * l[2],
        v1[1] * l[0] + v2[1] * l[1] + v3[1] * l[2],
        v1[2] * l[0] + v2[2] * l[1] + v3[2] * l[2],
    ];
    norm3(&sub3(&pr, p)) < MINVAL
}

/// Whether the origin and p3 lie strictly on the same side of the plane (p0, p1, p2).
fn same_side(p0: &Vec3, p1: &Vec3, p2: &Vec3, p3: &Vec3) -> bool {
    let n = cross(&sub3(p1, p0), &sub3(p2, p0));
    let dot1 = dot3(&n, &sub3(p3, p0));
    let dot2 = dot3(&n, &scl3(p0, -1.0));
    (dot1 > 0.0 && dot2 > 0.0) || (dot1 < 0.0 && dot2 < 0.0)
}

fn test_tetra(p0: &Vec3, p1: &Vec3, p2: &Vec3, p3: &Vec3) -> bool {
    same_side(p0, p1, p2, p3)
        && same_side(p1, p2, p3, p0)
        && same_side(p2, p3, p0, p1)
        && same_side(p3, p0, p1, p2)
}

/// Rotation by 120° about `axis`.
fn rotmat(axis: &Vec3) -> Mat3 {
    let n = norm3(axis);
    let (u1, u2, u3) = (axis[0] / n, axis[1] / n, axis[2] / n);
    let sin = 0.86602540378;
    let cos = -0.5;
    [
        cos + u1 * u1 * (1.0 - cos),
        u1 * u2 * (1.0 - cos) - u3 * sin,
        u1 * u3 * (1.0 - cos) + u2 * sin,
        u2 * u1 * (1.0 - cos) + u3 * sin,
        cos + u2 * u2 * (1.0 - cos),
        u2 * u3 * (1.0 - cos) - u1 * sin,
        u1 * u3 * (1.0 - cos) - u2 * sin,
        u2 * u3 * (1.0 - cos) + u1 * sin,
        cos + u3 * u3 * (1.0 - cos),
    ]
}

/// Nonzero if the ray v1→v2 crosses the triangle (v3, v4, v5).
fn ray_triangle(v1: &Vec3, v2: &Vec3, v3: &Vec3, v4: &Vec3, v5: &Vec3) -> i32 {
    let d12 = sub3(v2, v1);
    let d13 = sub3(v3, v1);
    let d14 = sub3(v4, v1);
    let d15 = sub3(v5, v1);
    let vol1 = det3(&d13, &d14, &d12);
    let vol2 = det3(&d14, &d15, &d12);
    let vol3 = det3(&d15, &d13, &d12);
    if vol1 >= 0.0 && vol2 >= 0.0 && vol3 >= 0.0 {
        return 1;
    }
    if vol1 <= 0.0 && vol2 <= 0.0 && vol3 <= 0.0 {
        return -1;
    }
    0
}

/// EPA could not start (MuJoCo's `mjEPAStatus` failures).
const EPA_FAIL: i32 = 1;

fn replace_simplex3(pt: &mut EpaScratch, st: &mut Status, v1: usize, v2: usize, v3: usize) {
    st.nsimplex = 3;
    st.simplex[0] = pt.verts[v1];
    st.simplex[1] = pt.verts[v2];
    st.simplex[2] = pt.verts[v3];
    pt.reset();
}

/// Hexahedron around a segment (`polytope2`).
fn polytope2(pt: &mut EpaScratch, st: &mut Status, o1: &Obj, o2: &Obj) -> i32 {
    let v1 = st.simplex[0].vert;
    let v2 = st.simplex[1].vert;
    let c = add3(&v1, &v2);
    pt.center = scl3(&c, 0.5);
    let diff = sub3(&v2, &v1);
    let mut value = MAX_LIMIT;
    let mut index = 0;
    for (i, d) in diff.iter().enumerate() {
        if d.abs() < value {
            value = d.abs();
            index = i;
        }
    }
    let mut e = [0.0; 3];
    e[index] = 1.0;
    let d1 = cross(&e, &diff);
    let r = rotmat(&diff);
    let d2 = mul_mat_vec3(&r, &d1);
    let d3 = mul_mat_vec3(&r, &d2);
    let s0 = st.simplex[0];
    let s1 = st.simplex[1];
    let v1i = pt.insert_vertex(&s0);
    let v2i = pt.insert_vertex(&s1);
    let v3i = pt.epa_support(o1, o2, &d1, norm3(&d1));
    let v4i = pt.epa_support(o1, o2, &d2, norm3(&d2));
    let v5i = pt.epa_support(o1, o2, &d3, norm3(&d3));
    let faces = [
        (v1i, v3i, v4i, 1, 3, 2),
        (v1i, v5i, v3i, 2, 4, 0),
        (v1i, v4i, v5i, 0, 5, 1),
        (v2i, v4i, v3i, 5, 0, 4),
        (v2i, v3i, v5i, 3, 1, 5),
        (v2i, v5i, v4i, 4, 2, 3),
    ];
    for (a, b, c, x, y, z) in faces {
        if pt.attach_face(a, b, c, x, y, z) < MINVAL2 {
            replace_simplex3(pt, st, a, b, c);
            return polytope3(pt, st, o1, o2);
        }
    }
    let (v3, v4, v5) = (pt.verts[v3i].vert, pt.verts[v4i].vert, pt.verts[v5i].vert);
    if ray_triangle(&v1, &v2, &v3, &v4, &v5) == 0 {
        return EPA_FAIL;
    }
    pt.populate_map(6);
    0
}

/// Hexahedron around a triangle (`polytope3`).
fn polytope3(pt: &mut EpaScratch, st: &mut Status, o1: &Obj, o2: &Obj) -> i32 {
    let v1 = st.simplex[0].vert;
    let v2 = st.simplex[1].vert;
    let v3 = st.simplex[2].vert;
    let c = add3(&add3(&v1, &v2), &v3);
    pt.center = scl3(&c, 1.0 / 3.0);
    let n = cross(&sub3(&v2, &v1), &sub3(&v3, &v1));
    let n_norm = norm3(&n);
    if n_norm < MINVAL {
        return EPA_FAIL;
    }
    let n_neg = scl3(&n, -1.0);
    let (s0, s1, s2) = (st.simplex[0], st.simplex[1], st.simplex[2]);
    let v1i = pt.insert_vertex(&s0);
    let v2i = pt.insert_vertex(&s1);
    let v3i = pt.insert_vertex(&s2);
    let v5i = pt.epa_support(o1, o2, &n_neg, n_norm);
    let v4i = pt.epa_support(o1, o2, &n, n_norm);
    let v4 = pt.verts[v4i].vert;
    let v5 = pt.verts[v5i].vert;
    if tri_point_intersect(&v1, &v2, &v3, &v4) || tri_point_intersect(&v1, &v2, &v3, &v5) {
        return EPA_FAIL;
    }
    if st.dist > 10.0 * MINVAL && !test_tetra(&v1, &v2, &v3, &v4) && !test_tetra(&v1, &v2, &v3, &v5)
    {
        return EPA_FAIL;
    }
    let faces = [
        (v4i, v1i, v2i, 1, 3, 2),
        (v4i, v3i, v1i, 2, 4, 0),
        (v4i, v2i, v3i, 0, 5, 1),
        (v5i, v2i, v1i, 5, 0, 4),
        (v5i, v1i, v3i, 3, 1, 5),
        (v5i, v3i, v2i, 4, 2, 3),
    ];
    for (a, b, c, x, y, z) in faces {
        if pt.attach_face(a, b, c, x, y, z) < MINVAL2 {
            return EPA_FAIL;
        }
    }
    pt.populate_map(6);
    0
}

/// The tetrahedron itself (`polytope4`).
fn polytope4(pt: &mut EpaScratch, st: &mut Status, o1: &Obj, o2: &Obj) -> i32 {
    let s = st.simplex;
    let v1 = pt.insert_vertex(&s[0]);
    let v2 = pt.insert_vertex(&s[1]);
    let v3 = pt.insert_vertex(&s[2]);
    let v4 = pt.insert_vertex(&s[3]);
    let c = add3(&pt.verts[v1].vert, &pt.verts[v2].vert);
    let c = add3(&c, &pt.verts[v3].vert);
    let c = add3(&c, &pt.verts[v4].vert);
    pt.center = scl3(&c, 0.25);
    let faces = [
        (v1, v2, v3, 1, 3, 2),
        (v1, v4, v2, 2, 3, 0),
        (v1, v3, v4, 0, 3, 1),
        (v4, v3, v2, 2, 0, 1),
    ];
    for (a, b, c, x, y, z) in faces {
        if pt.attach_face(a, b, c, x, y, z) < MINVAL2 {
            replace_simplex3(pt, st, a, b, c);
            return polytope3(pt, st, o1, o2);
        }
    }
    let p = |i: usize| pt.verts[i].vert;
    if !test_tetra(&p(v1), &p(v2), &p(v3), &p(v4)) {
        return EPA_FAIL;
    }
    pt.populate_map(4);
    0
}

/// Expands the polytope towards the surface nearest the origin; sets the penetration (negative
/// distance) and witness points, or no witness when it fails (`epa`).
fn epa(st: &mut Status, pt: &mut EpaScratch, o1: &Obj, o2: &Obj) {
    let mut upper = MAX_LIMIT;
    let mut upper2 = MAX_LIMIT;
    let mut face: Option<usize> = None;
    let discrete = o1.discrete() && o2.discrete();
    let tolerance = if discrete { MINVAL } else { st.tolerance };
    let kmax = st.max_iterations.min(1000);
    for k in 0..kmax {
        let pface = face;
        let mut lower2 = MAX_LIMIT;
        for &f in &pt.map {
            if pt.faces[f].dist2 < lower2 {
                face = Some(f);
                lower2 = pt.faces[f].dist2;
            }
        }
        let Some(fi) = face.filter(|_| lower2 <= upper2) else {
            face = pface;
            break;
        };
        if lower2 <= 0.0 {
            break;
        }
        let lower = lower2.sqrt();
        let fv = pt.faces[fi].v;
        let wi = pt.epa_support(o1, o2, &fv, lower);
        let w = pt.verts[wi];
        let upper_k = dot3(&fv, &w.vert) / lower;
        if upper_k < upper {
            upper = upper_k;
            upper2 = upper * upper;
        }
        if upper - lower < tolerance {
            if k == 0 && upper < lower - 1e-10 {
                face = None;
            }
            break;
        }
        if discrete {
            let nv = pt.verts.len() - 1;
            if pt.verts[..nv]
                .iter()
                .any(|v| v.index1 == w.index1 && v.index2 == w.index2)
            {
                break;
            }
        }
        pt.horizon.clear();
        pt.build_horizon(&w.vert, fi);
        if pt.horizon.len() < 3 {
            face = None;
            break;
        }
        let nfaces = pt.faces.len();
        let nedges = pt.horizon.len();
        if nedges > pt.maxfaces.saturating_sub(nfaces) {
            break;
        }
        let mut failed = false;
        for i in 0..nedges {
            let cur = nfaces + i;
            let prev = if i == 0 { nfaces + nedges - 1 } else { cur - 1 };
            let next = nfaces + (i + 1) % nedges;
            let (hi, he) = pt.horizon[i];
            let hv = pt.faces[hi].verts;
            let (v1, v2) = (hv[he], hv[(he + 1) % 3]);
            pt.faces[hi].adj[he] = cur;
            let dist2 = pt.attach_face(wi, v2, v1, prev, hi, next);
            if dist2 == 0.0 {
                failed = true;
                break;
            }
            if dist2 >= lower2 && dist2 <= upper2 {
                let idx = pt.map.len();
                pt.map.push(cur);
                pt.faces[cur].index = idx as i64;
            }
        }
        pt.horizon.clear();
        if failed {
            face = None;
            break;
        }
        if pt.map.is_empty() {
            break;
        }
    }
    match face {
        Some(f) => {
            let face = pt.faces[f];
            let [a, b, c] = face.verts.map(|i| pt.verts[i]);
            let l = tri_affine_coord(&a.vert, &b.vert, &c.vert, &face.v);
            st.x1 = lincomb(&l, &[a.vert1, b.vert1, c.vert1]);
            st.x2 = lincomb(&l, &[a.vert2, b.vert2, c.vert2]);
            st.dist = -face.dist2.sqrt();
            st.nx = 1;
            if st.max_contacts > 1 {
                multi_from(&mut pt.multi, st, [a, b, c], o1, o2);
            }
        }
        None => {
            st.nx = 0;
            st.dist = 0.0;
        }
    }
}

/// Runs the multi-contact step from the query's one contact and three support points; its
/// contacts are left in `multi.out`.
fn multi_from(multi: &mut MultiScratch, st: &Status, v: [Vertex; 3], o1: &Obj, o2: &Obj) {
    multi.out.clear();
    multi.out.push(witness(st));
    let s = v.map(|v| Support {
        vert1: v.vert1,
        index1: v.index1,
        vert2: v.vert2,
        index2: v.index2,
    });
    multi.multicontact(&s, &o1.shape.core, &o2.shape.core, st.max_contacts);
}

/// The query's one contact: its witness points and distance.
fn witness(st: &Status) -> Witness {
    Witness {
        x1: st.x1,
        x2: st.x2,
        dist: st.dist,
    }
}

/// Pushes the witness points apart by the shrunk radii (`inflate`).
fn inflate(st: &mut Status, m1: f64, m2: f64) {
    let mut n = sub3(&st.x2, &st.x1);
    normalize3(&mut n);
    if m1 != 0.0 {
        for k in 0..3 {
            st.x1[k] += m1 * n[k];
        }
    }
    if m2 != 0.0 {
        for k in 0..3 {
            st.x2[k] -= m2 * n[k];
        }
    }
    st.dist -= m1 + m2;
}

/// `mjc_ccd` with one contact: the signed distance (negative for penetration) between the
/// objects, witness points in the status.
fn ccd(pt: &mut EpaScratch, st: &mut Status, o1: &mut Obj, o2: &mut Obj) -> f64 {
    let tol = st.tolerance;
    st.x1 = o1.shape.core.center();
    st.x2 = o2.shape.core.center();
    st.gjk_iterations = 0;
    let round = |o: &Obj| matches!(o.shape.core, Core::Sphere { .. } | Core::Capsule { .. });
    if round(o1) || round(o2) {
        let (m1, m2) = (o1.margin, o2.margin);
        let mut full1 = 0.0;
        let mut full2 = 0.0;
        if round(o1) {
            full1 = o1.shape.radius + 0.5 * m1;
            o1.shrunk = true;
            o1.margin = 0.0;
        }
        if round(o2) {
            full2 = o2.shape.radius + 0.5 * m2;
            o2.shrunk = true;
            o2.margin = 0.0;
        }
        let cutoff = st.dist_cutoff;
        st.dist_cutoff += full1 + full2;
        gjk(st, o1, o2);
        st.dist_cutoff = cutoff;
        o1.margin = m1;
        o2.margin = m2;
        o1.shrunk = false;
        o2.shrunk = false;
        if st.dist > tol {
            inflate(st, full1, full2);
            if st.dist > st.dist_cutoff {
                st.dist = MAX_LIMIT;
            } else if st.dist < 0.0 && st.max_contacts >= 2 && st.nsimplex > 0 {
                // 3.15.0: a shallow capsule overlap clips too, from GJK's last simplex
                let n = st.nsimplex;
                let s = st.simplex;
                let v = [
                    s[0],
                    s[if n != 1 { 1 } else { 0 }],
                    s[if n >= 3 { 2 } else { 0 }],
                ];
                multi_from(&mut pt.multi, st, v, o1, o2);
            }
            return st.dist;
        }
        // deep penetration: start over with the full shapes
        st.gjk_iterations = 0;
        st.x1 = o1.shape.core.center();
        st.x2 = o2.shape.core.center();
    }
    gjk(st, o1, o2);
    if st.dist <= tol && st.nsimplex > 1 && !st.separated {
        st.dist = 0.0;
        pt.reset();
        pt.maxfaces = 6 * st.max_iterations;
        let ret = match st.nsimplex {
            2 => polytope2(pt, st, o1, o2),
            3 => polytope3(pt, st, o1, o2),
            _ => polytope4(pt, st, o1, o2),
        };
        if ret == 0 {
            epa(st, pt, o1, o2);
        }
    }
    st.dist
}

/// Collides two shapes (`mjc_penetration` with one contact, as `mjc_ConvexElem` and
/// `mjc_Convex` call it): both carry `margin` (the pair's margin plus gap), a contact is kept
/// when the shapes inflated by it overlap, with the distance less that margin, the midpoint
/// of the witness points and the normal from the first shape to the second. As in
/// `mjc_ConvexElem`, a contact with a triangle (2D flex element) gets a sphere's, capsule's,
/// ellipsoid's or cylinder's surface normal (`mjc_fixNormal`). Appends at most one contact.
pub fn collide(
    sc: &mut EpaScratch,
    out: &mut Vec<PreContact>,
    margin: f64,
    a: &Shape,
    b: &Shape,
    iterations: usize,
    tol: f64,
) -> usize {
    collide_warm(
        sc,
        out,
        margin,
        a,
        b,
        iterations,
        tol,
        &Warm::new(),
        &Warm::new(),
    )
}

/// [`collide`] with the shapes' support search state kept by the caller, as MuJoCo's
/// `mjc_Convex` keeps its two CCD objects across its perturbed queries.
#[allow(clippy::too_many_arguments)]
pub fn collide_warm(
    sc: &mut EpaScratch,
    out: &mut Vec<PreContact>,
    margin: f64,
    a: &Shape,
    b: &Shape,
    iterations: usize,
    tol: f64,
    w1: &Warm,
    w2: &Warm,
) -> usize {
    collide_upto(sc, out, margin, a, b, (iterations, tol), (w1, w2), 1)
}

/// Collides two shapes as `mjc_Convex` does with its contact cap `max_contacts` (see
/// [`super::multicontact::max_contacts`]) and the shapes' support search state `w1`, `w2`:
/// above 1, the contacts of the touching features' clipped polygons (each with its own depth,
/// in MuJoCo's order) when they clip, else the one GJK/EPA contact. Returns how many were
/// appended.
#[allow(clippy::too_many_arguments)]
pub fn collide_upto(
    sc: &mut EpaScratch,
    out: &mut Vec<PreContact>,
    margin: f64,
    a: &Shape,
    b: &Shape,
    (iterations, tol): (usize, f64),
    (w1, w2): (&Warm, &Warm),
    max_contacts: usize,
) -> usize {
    let mut st = Status {
        separated: false,
        dist: 0.0,
        x1: [0.0; 3],
        x2: [0.0; 3],
        nx: 0,
        max_iterations: iterations,
        tolerance: tol,
        dist_cutoff: 0.0,
        gjk_iterations: 0,
        simplex: [Vertex::default(); 4],
        nsimplex: 0,
        max_contacts,
    };
    sc.multi.out.clear();
    let mut o1 = Obj {
        shape: a,
        margin,
        shrunk: false,
        warm: w1,
    };
    let mut o2 = Obj {
        shape: b,
        margin,
        shrunk: false,
        warm: w2,
    };
    let dist = ccd(sc, &mut st, &mut o1, &mut o2);
    if sc.multi.out.is_empty() {
        if dist >= 0.0 || st.nx == 0 {
            return 0;
        }
        sc.multi.out.push(witness(&st));
    } else if sc.multi.out.iter().all(|w| w.dist >= 0.0) {
        // mjc_penetration: the contacts count when the least distance is a penetration
        return 0;
    }
    let tri = |s: &Shape| matches!(s.core, Core::Points { n: 3, .. });
    let fix = (tri(a) || tri(b)) && o1.is_geom();
    for w in &sc.multi.out {
        let pos = scl3(&add3(&w.x1, &w.x2), 0.5);
        let mut normal = sub3(&w.x1, &w.x2);
        normalize3(&mut normal);
        let mut pc = PreContact::new(margin + w.dist, pos, normal);
        if fix {
            fix_normal(&mut pc, &a.core, a.radius);
        }
        out.push(pc);
    }
    sc.multi.out.len()
}

/// `mjc_fixNormal` for the first object: the surface normal of a sphere, capsule, ellipsoid or
/// cylinder (round wall) at the contact point replaces the CCD normal.
fn fix_normal(pc: &mut PreContact, core: &Core, _radius: f64) {
    let (c, mat) = match *core {
        Core::Sphere { c, mat }
        | Core::Capsule { c, mat, .. }
        | Core::Ellipsoid { c, mat, .. }
        | Core::Cylinder { c, mat, .. } => (c, mat),
        _ => return,
    };
    let dif = sub3(&pc.pos, &c);
    let pos1 = mul_mat_t_vec3(&mat, &dif);
    let mut nrm = mul_mat_t_vec3(&mat, &pc.normal);
    let processed = match *core {
        Core::Sphere { .. } => {
            nrm = pos1;
            true
        }
        Core::Capsule { h, .. } => {
            nrm[2] = if pos1[2] < -h {
                pos1[2] + h
            } else if pos1[2] > h {
                pos1[2] - h
            } else {
                0.0
            };
            nrm[0] = pos1[0];
            nrm[1] = pos1[1];
            true
        }
        Core::Ellipsoid { size, .. } => {
            if size[0] < MINVAL || size[1] < MINVAL || size[2] < MINVAL {
                false
            } else {
                let dst1 = pos1[0] * pos1[0] / (size[0] * size[0])
                    + pos1[1] * pos1[1] / (size[1] * size[1])
                    + pos1[2] * pos1[2] / (size[2] * size[2]);
                if dst1 <= 1.0 {
                    ellipsoid_inside(&mut nrm, &pos1, &size)
                } else {
                    ellipsoid_outside(&mut nrm, &pos1, &size)
                }
            }
        }
        Core::Cylinder { r, h, .. } => {
            if pos1[2].abs() > 0.95 * h {
                false
            } else {
                let dst1 = (h - pos1[2].abs()).abs();
                let dst2 = (r - (pos1[0] * pos1[0] + pos1[1] * pos1[1]).sqrt()).abs();
                if dst1 < 0.25 * dst2 {
                    false
                } else {
                    nrm = [pos1[0], pos1[1], 0.0];
                    true
                }
            }
        }
        _ => false,
    };
    if processed {
        normalize3(&mut nrm);
        pc.normal = mul_mat_vec3(&mat, &nrm);
    }
}

/// Normal for a point inside an ellipsoid by ray projection (`mjc_ellipsoidInside`).
fn ellipsoid_inside(nrm: &mut Vec3, pos: &Vec3, size: &Vec3) -> bool {
    let s2inv = [
        1.0 / (size[0] * size[0]),
        1.0 / (size[1] * size[1]),
        1.0 / (size[2] * size[2]),
    ];
    let c =
        pos[0] * pos[0] * s2inv[0] + pos[1] * pos[1] * s2inv[1] + pos[2] * pos[2] * s2inv[2] - 1.0;
    if c > 0.0 {
        return false;
    }
    normalize3(nrm);
    for iter in 0..30 {
        let a =
            nrm[0] * nrm[0] * s2inv[0] + nrm[1] * nrm[1] * s2inv[1] + nrm[2] * nrm[2] * s2inv[2];
        let b =
            pos[0] * nrm[0] * s2inv[0] + pos[1] * nrm[1] * s2inv[1] + pos[2] * nrm[2] * s2inv[2];
        let det = b * b - a * c;
        if det < MINVAL || a < MINVAL {
            return iter > 0;
        }
        let x = (-b + det.sqrt()) / a;
        if x < 0.0 {
            return iter > 0;
        }
        let pnt = [
            pos[0] + nrm[0] * x,
            pos[1] + nrm[1] * x,
            pos[2] + nrm[2] * x,
        ];
        let mut newnrm = [pnt[0] * s2inv[0], pnt[1] * s2inv[1], pnt[2] * s2inv[2]];
        normalize3(&mut newnrm);
        let change = norm3(&sub3(nrm, &newnrm));
        *nrm = newnrm;
        if change < 1e-6 {
            break;
        }
    }
    true
}

/// Normal for a point outside an ellipsoid by a diagonal QCQP (`mjc_ellipsoidOutside`).
fn ellipsoid_outside(nrm: &mut Vec3, pos: &Vec3, size: &Vec3) -> bool {
    let s2 = [size[0] * size[0], size[1] * size[1], size[2] * size[2]];
    let ps2 = [
        pos[0] * pos[0] * s2[0],
        pos[1] * pos[1] * s2[1],
        pos[2] * pos[2] * s2[2],
    ];
    let mut la = 0.0;
    for _ in 0..30 {
        let r = [1.0 / (s2[0] + la), 1.0 / (s2[1] + la), 1.0 / (s2[2] + la)];
        let val = ps2[0] * r[0] * r[0] + ps2[1] * r[1] * r[1] + ps2[2] * r[2] * r[2] - 1.0;
        if val < 1e-6 {
            break;
        }
        let deriv = -2.0
            * (ps2[0] * r[0] * r[0] * r[0]
                + ps2[1] * r[1] * r[1] * r[1]
                + ps2[2] * r[2] * r[2] * r[2]);
        if deriv > -MINVAL {
            break;
        }
        let delta = -val / deriv;
        if delta < 1e-6 {
            break;
        }
        la += delta;
    }
    *nrm = [
        pos[0] / (s2[0] + la),
        pos[1] / (s2[1] + la),
        pos[2] / (s2[2] + la),
    ];
    normalize3(nrm);
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    const EYE: Mat3 = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0];

    fn sphere(c: Vec3, r: f64) -> Shape<'static> {
        Shape {
            core: Core::Sphere { c, mat: EYE },
            radius: r,
        }
    }

    fn run(margin: f64, a: &Shape, b: &Shape) -> Vec<PreContact> {
        let mut out = Vec::new();
        collide(&mut EpaScratch::new(35), &mut out, margin, a, b, 35, 1e-6);
        out
    }

    #[test]
    fn separated_spheres_within_margin() {
        let out = run(1.5, &sphere([0.0; 3], 0.5), &sphere([2.0, 0.0, 0.0], 0.5));
        assert_eq!(out.len(), 1);
        assert!((out[0].dist - 1.0).abs() < 1e-12, "{}", out[0].dist);
        assert!((out[0].normal[0] - 1.0).abs() < 1e-12);
        assert!((out[0].pos[0] - 1.0).abs() < 1e-12);
        assert!(run(0.5, &sphere([0.0; 3], 0.5), &sphere([2.0, 0.0, 0.0], 0.5)).is_empty());
    }

    #[test]
    fn overlapping_boxes_give_penetration_depth() {
        let bx = |z: f64| Shape {
            core: Core::Box {
                c: [0.0, 0.0, z],
                mat: EYE,
                size: [1.0; 3],
            },
            radius: 0.0,
        };
        let out = run(0.0, &bx(0.0), &bx(1.9));
        assert_eq!(out.len(), 1);
        assert!((out[0].dist + 0.1).abs() < 1e-9, "{}", out[0].dist);
        assert!((out[0].normal[2] - 1.0).abs() < 1e-9);
    }

    #[test]
    fn triangle_on_box_within_margin_and_penetrating() {
        let bx = Shape {
            core: Core::Box {
                c: [0.0; 3],
                mat: EYE,
                size: [1.0; 3],
            },
            radius: 0.0,
        };
        let tri = |z: f64| Shape {
            core: Core::Points {
                p: [[0.0, 0.0, z], [0.5, 0.0, z], [0.0, 0.5, z], [0.0; 3]],
                n: 3,
                c: [0.25, 0.25, z],
            },
            radius: 0.1,
        };
        let out = run(0.5, &bx, &tri(1.3));
        assert_eq!(out.len(), 1);
        assert!((out[0].dist - 0.2).abs() < 1e-6, "{}", out[0].dist);
        assert!(run(0.1, &bx, &tri(1.3)).is_empty());
        let out = run(0.0, &bx, &tri(1.05));
        assert_eq!(out.len(), 1);
        assert!((out[0].dist + 0.05).abs() < 1e-6, "{}", out[0].dist);
        assert!((out[0].normal[2] - 1.0).abs() < 1e-6);
    }
}
