//! MuJoCo 3.15.0's multi-contact native CCD (`multicontact` and `polygonClip` in
//! engine_collision_gjk.c): after GJK/EPA has found one penetration, the touching features
//! of the two geoms (a face, an edge or a vertex of each) are read from the support points
//! of the final simplex or EPA face; when two faces are anti-parallel, or an edge lies in a
//! face, the incident polygon (or segment) is clipped by the reference face's side planes and
//! every clipped point below the face becomes a contact with its own depth.
//!
//! It runs for geom pairs without margin whose contact cap (`maxContacts` in `mjc_Convex`) is
//! at least 2: cylinder, box and mesh among themselves (up to 4 contacts) and a capsule
//! against those or a capsule (up to 2). Boxes and meshes give their faces by vertex index;
//! a cylinder's caps are 16-gons (the flat faces MuJoCo tabulates) and its side is a segment
//! along the axis; a capsule is only ever a segment. Where no feature pair qualifies, the one
//! GJK/EPA contact stays. The 3.15.0 rules that its source (3.12) lacks were measured on the
//! 3.15.0 library (cylinder and capsule features, the most anti-parallel face pair, the
//! facing test of edge–face pairs, the quad area), including one quirk kept for fidelity:
//! when an edge of the first geom lies in a face of the second and the clip keeps nothing,
//! the first contact's witness points are still swapped, so its normal points the other way.
//!
//! All arithmetic follows MuJoCo's operation order (no fused multiply-adds), so contacts agree
//! to round-off once the same features are chosen.

use super::convex::Core;
use crate::math::*;

/// Two faces touch when their outward normals are this anti-parallel (`mjFACE_TOL`).
const FACE_TOL: f64 = 0.996;
/// An edge lies in a face when its direction is this close to perpendicular to the face's
/// normal (`mjEDGE_TOL`).
const EDGE_TOL: f64 = 0.0888;
/// Most contacts one clip reports (`mjMAXCONPAIR`).
const MAX_CLIPPED: usize = 50;

/// MuJoCo's 16-gon of a cylinder cap: its literal cosine and sine tables (15 digits, not
/// computed values), so that cap vertices agree to the last bit.
#[allow(clippy::approx_constant)] // MuJoCo's rounded literals, on purpose not FRAC_1_SQRT_2
const COS16: [f64; 16] = [
    1.0,
    0.923879532511287,
    0.707106781186548,
    0.38268343236509,
    0.0,
    -0.38268343236509,
    -0.707106781186547,
    -0.923879532511287,
    -1.0,
    -0.923879532511287,
    -0.707106781186548,
    -0.38268343236509,
    0.0,
    0.38268343236509,
    0.707106781186547,
    0.923879532511287,
];
#[allow(clippy::approx_constant)]
const SIN16: [f64; 16] = [
    0.0,
    0.38268343236509,
    0.707106781186547,
    0.923879532511287,
    1.0,
    0.923879532511287,
    0.707106781186548,
    0.38268343236509,
    0.0,
    -0.38268343236509,
    -0.707106781186547,
    -0.923879532511287,
    -1.0,
    -0.923879532511287,
    -0.707106781186548,
    -0.38268343236509,
];

/// One support point of the final simplex or EPA face: the points on each geom (m, world)
/// and their feature indices (box corner bits, mesh vertex, cylinder cap; -1 otherwise).
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Support {
    pub vert1: Vec3,
    pub index1: i32,
    pub vert2: Vec3,
    pub index2: i32,
}

/// One contact of a query: witness points on each geom (m, world) and the signed distance
/// (m, negative in penetration).
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Witness {
    pub x1: Vec3,
    pub x2: Vec3,
    pub dist: f64,
}

/// Buffers of the multi-contact step, kept across queries so that collision does not
/// allocate once they have grown.
#[derive(Debug, Clone, Default)]
pub(super) struct MultiScratch {
    /// The contacts of the last query.
    pub out: Vec<Witness>,
    normals1: Vec<(Vec3, usize)>,
    normals2: Vec<(Vec3, usize)>,
    edges: Vec<(Vec3, Vec3)>,
    reference: Vec<Vec3>,
    incident: Vec<Vec3>,
    poly: Vec<Vec3>,
    clipped: Vec<Vec3>,
    planes: Vec<(Vec3, f64)>,
}

/// `mat·l`, row by row as MuJoCo's `globalcoord` sums.
#[inline]
fn rot(mat: &Mat3, l: &Vec3) -> Vec3 {
    [
        mat[0] * l[0] + mat[1] * l[1] + mat[2] * l[2],
        mat[3] * l[0] + mat[4] * l[1] + mat[5] * l[2],
        mat[6] * l[0] + mat[7] * l[1] + mat[8] * l[2],
    ]
}

/// `mat·l + pos`.
#[inline]
fn place(mat: &Mat3, pos: &Vec3, l: &Vec3) -> Vec3 {
    let r = rot(mat, l);
    [r[0] + pos[0], r[1] + pos[1], r[2] + pos[2]]
}

/// `a + s·b`, component by component.
#[inline]
fn add_scl(a: &Vec3, b: &Vec3, s: f64) -> Vec3 {
    [a[0] + s * b[0], a[1] + s * b[1], a[2] + s * b[2]]
}

#[inline]
fn unit(mut v: Vec3) -> Vec3 {
    normalize3(&mut v);
    v
}

/// The dimension of the feature three support points span on one geom (`simplexDim`): 1 a
/// vertex, 2 an edge, 3 a face; repeated indices are dropped (the second slot then holds the
/// other point).
fn feature_dim(vi: &mut [i32; 3], v: &mut [Vec3; 3]) -> usize {
    if vi[0] == vi[1] {
        if vi[0] == vi[2] {
            return 1;
        }
        vi[1] = vi[2];
        v[1] = v[2];
        return 2;
    }
    if vi[2] == vi[0] || vi[2] == vi[1] {
        2
    } else {
        3
    }
}

/// Signed unit axis `k` (0 +x, 1 −x, 2 +y, …) in local coordinates.
fn axis(k: usize) -> Vec3 {
    let mut a = [0.0; 3];
    a[k / 2] = if k % 2 == 0 { 1.0 } else { -1.0 };
    a
}

/// The box face whose normal is within the face tolerance of direction `d` (`boxNormals2`).
fn box_face_along(mat: &Mat3, d: &Vec3, out: &mut Vec<(Vec3, usize)>) {
    let l = [
        mat[0] * d[0] + mat[3] * d[1] + mat[6] * d[2],
        mat[1] * d[0] + mat[4] * d[1] + mat[7] * d[2],
        mat[2] * d[0] + mat[5] * d[1] + mat[8] * d[2],
    ];
    let inv = 1.0 / dot3(&l, &l).sqrt();
    let l = [l[0] * inv, l[1] * inv, l[2] * inv];
    if let Some(k) = (0..6).find(|&k| dot3(&l, &axis(k)) > FACE_TOL) {
        out.push((rot(mat, &axis(k)), k));
    }
}

/// The outward normals (world) and face indices of the faces containing a feature of
/// dimension `dim` with indices `vi` (`boxNormals`, `meshNormals`, and 3.15.0's cylinder
/// caps). `d` points from this geom towards the other.
fn face_normals(core: &Core, dim: usize, vi: &[i32; 3], d: &Vec3, out: &mut Vec<(Vec3, usize)>) {
    out.clear();
    match *core {
        Core::Box { mat, .. } => {
            // +1 when every point has the corner bit, −1 when none has it
            let side = |bit: i32, n: usize| -> i32 {
                let v = &vi[..n];
                v.iter().all(|&x| x & bit != 0) as i32 - v.iter().all(|&x| x & bit == 0) as i32
            };
            match dim {
                3 => {
                    let s = [side(1, 3), side(2, 3), side(4, 3)];
                    let set: Vec3 = [s[0] as f64, s[1] as f64, s[2] as f64];
                    if s.iter().filter(|&&x| x != 0).count() == 1 {
                        let k = s.iter().position(|&x| x != 0).unwrap_or(0);
                        let idx = 2 * k + usize::from(s[0] + s[1] + s[2] == -1);
                        out.push((rot(&mat, &set), idx));
                    } else {
                        box_face_along(&mat, d, out);
                    }
                }
                2 => {
                    for (k, bit) in [1, 2, 4].into_iter().enumerate() {
                        let s = side(bit, 2);
                        if s != 0 {
                            let mut l = [0.0; 3];
                            l[k] = s as f64;
                            out.push((rot(&mat, &l), 2 * k + usize::from(s < 0)));
                        }
                    }
                    if out.len() != 2 {
                        out.clear();
                        box_face_along(&mat, d, out);
                    }
                }
                1 => {
                    for (k, bit) in [1, 2, 4].into_iter().enumerate() {
                        let pos = vi[0] & bit != 0;
                        let mut l = [0.0; 3];
                        l[k] = if pos { 1.0 } else { -1.0 };
                        out.push((rot(&mat, &l), 2 * k + usize::from(!pos)));
                    }
                }
                _ => {}
            }
        }
        Core::Mesh { mat, mesh, .. } => {
            let Some(p) = mesh.polys else { return };
            let faces = |v: i32| {
                let (a, n) = (p.mapadr[v as usize] as usize, p.mapnum[v as usize] as usize);
                &p.map[a..a + n]
            };
            let normal = |f: i32| {
                let f = f as usize;
                rot(
                    &mat,
                    &[p.normal[3 * f], p.normal[3 * f + 1], p.normal[3 * f + 2]],
                )
            };
            // the faces two lists share, in the first list's order, at most two
            let common = |a: &[i32], b: &[i32], res: &mut [i32; 2]| -> usize {
                let mut n = 0;
                for &x in a {
                    if b.contains(&x) {
                        res[n] = x;
                        n += 1;
                        if n == 2 {
                            break;
                        }
                    }
                }
                n
            };
            match dim {
                3 => {
                    let mut e = [0; 2];
                    let ne = common(faces(vi[0]), faces(vi[1]), &mut e);
                    let mut f = [0; 2];
                    if ne > 0 && common(&e[..ne], faces(vi[2]), &mut f) > 0 {
                        out.push((normal(f[0]), f[0] as usize));
                    }
                }
                2 => {
                    let mut e = [0; 2];
                    let ne = common(faces(vi[0]), faces(vi[1]), &mut e);
                    for &f in &e[..ne] {
                        out.push((normal(f), f as usize));
                    }
                }
                1 => {
                    for &f in faces(vi[0]) {
                        out.push((normal(f), f as usize));
                    }
                }
                _ => {}
            }
        }
        Core::Cylinder { mat, .. } if dim == 1 => {
            let s = if vi[0] == 0 { 1.0 } else { -1.0 };
            out.push((rot(&mat, &[0.0, 0.0, s]), vi[0].max(0) as usize));
        }
        _ => {}
    }
}

/// The edges (unit direction, far end) at a feature whose near end is `v[0]` (`boxEdgeNormals`,
/// `meshEdgeNormals`, and 3.15.0's cylinder side and capsule line). For a capsule the line
/// through witness point `x` replaces `v[0]` with its lower end.
fn edges(
    core: &Core,
    dim: usize,
    v: &mut [Vec3; 3],
    vi0: i32,
    x: &Vec3,
    out: &mut Vec<(Vec3, Vec3)>,
) {
    out.clear();
    match *core {
        Core::Box { c, mat, size } => match dim {
            2 => out.push((unit(sub3(&v[1], &v[0])), v[1])),
            1 => {
                let s = |bit: i32, k: usize| if vi0 & bit != 0 { size[k] } else { -size[k] };
                let (x, y, z) = (s(1, 0), s(2, 1), s(4, 2));
                for l in [[-x, y, z], [x, -y, z], [x, y, -z]] {
                    let end = place(&mat, &c, &l);
                    out.push((unit(sub3(&end, &v[0])), end));
                }
            }
            _ => {}
        },
        Core::Mesh { c, mat, mesh } => match dim {
            2 => out.push((unit(sub3(&v[1], &v[0])), v[1])),
            1 => {
                let Some(p) = mesh.polys else { return };
                let (a, n) = (
                    p.mapadr[vi0 as usize] as usize,
                    p.mapnum[vi0 as usize] as usize,
                );
                for &f in &p.map[a..a + n] {
                    let (adr, nv) = (
                        p.vertadr[f as usize] as usize,
                        p.vertnum[f as usize] as usize,
                    );
                    let poly = &p.vert[adr..adr + nv];
                    if let Some(j) = poly.iter().position(|&w| w == vi0) {
                        let k = if j == 0 { nv - 1 } else { j - 1 };
                        let end = place(&mat, &c, &mesh.vertex(poly[k] as usize));
                        out.push((unit(sub3(&end, &v[0])), end));
                    }
                }
            }
            _ => {}
        },
        Core::Cylinder { mat, h, .. } => {
            // the side line from this cap towards the other one
            let s = if vi0 == 0 { -1.0 } else { 1.0 };
            let e = [s * mat[2], s * mat[5], s * mat[8]];
            out.push((e, add_scl(&v[0], &e, h + h)));
        }
        Core::Capsule { c, mat, h } => {
            let a = [mat[2], mat[5], mat[8]];
            let proj = (x[0] - c[0]) * a[0] + (x[1] - c[1]) * a[1] + (x[2] - c[2]) * a[2];
            v[0] = add_scl(x, &a, -proj - h);
            out.push((a, add_scl(x, &a, h - proj)));
        }
        _ => {}
    }
}

/// The vertices (world) of face `idx`, clockwise seen from outside (`boxFace`, `meshFace`,
/// 3.15.0's cylinder caps).
fn face(core: &Core, idx: usize, out: &mut Vec<Vec3>) {
    out.clear();
    match *core {
        Core::Box { c, mat, size } => {
            // sign patterns of each face's corners, in MuJoCo's order
            const FACES: [[[f64; 3]; 4]; 6] = [
                [[1., 1., 1.], [1., 1., -1.], [1., -1., -1.], [1., -1., 1.]],
                [
                    [-1., 1., -1.],
                    [-1., 1., 1.],
                    [-1., -1., 1.],
                    [-1., -1., -1.],
                ],
                [[-1., 1., -1.], [1., 1., -1.], [1., 1., 1.], [-1., 1., 1.]],
                [
                    [-1., -1., 1.],
                    [1., -1., 1.],
                    [1., -1., -1.],
                    [-1., -1., -1.],
                ],
                [[-1., 1., 1.], [1., 1., 1.], [1., -1., 1.], [-1., -1., 1.]],
                [
                    [1., 1., -1.],
                    [-1., 1., -1.],
                    [-1., -1., -1.],
                    [1., -1., -1.],
                ],
            ];
            for s in &FACES[idx] {
                let l = [s[0] * size[0], s[1] * size[1], s[2] * size[2]];
                out.push(place(&mat, &c, &l));
            }
        }
        Core::Mesh { c, mat, mesh } => {
            let Some(p) = mesh.polys else { return };
            let (adr, nv) = (p.vertadr[idx] as usize, p.vertnum[idx] as usize);
            for &w in p.vert[adr..adr + nv].iter().rev() {
                out.push(place(&mat, &c, &mesh.vertex(w as usize)));
            }
        }
        Core::Cylinder { c, mat, r, h } => {
            let s = if idx == 0 { 1.0 } else { -1.0 };
            for k in 0..16 {
                let l = [r * COS16[k], s * (r * -SIN16[k]), s * h];
                out.push(place(&mat, &c, &l));
            }
        }
        _ => {}
    }
}

/// The area of quad `a b c d` as 3.15.0 measures it: half the norm of the cross product of its
/// diagonals.
fn quad_area(p: &[Vec3], a: usize, b: usize, c: usize, d: usize) -> f64 {
    norm3(&cross(&sub3(&p[a], &p[c]), &sub3(&p[b], &p[d]))) * 0.5
}

/// Four vertices of polygon `p` spanning a large area (`polygonQuad`): MuJoCo's walk that
/// advances the last, third and second corner while the area grows, for each first corner.
fn polygon_quad(p: &[Vec3]) -> [usize; 4] {
    let n = p.len();
    let next = |i: usize| (i + 1) % n;
    let (mut b, mut c, mut d) = (1, 2, 3);
    let mut res = [0, 1, 2, 3];
    let mut m = quad_area(p, 0, b, c, d);
    for a in 0..n {
        loop {
            let grown = quad_area(p, a, b, c, next(d));
            if grown <= m {
                break;
            }
            m = grown;
            d = next(d);
            res = [a, b, c, d];
            loop {
                let grown = quad_area(p, a, b, next(c), d);
                if grown <= m {
                    break;
                }
                m = grown;
                c = next(c);
                res = [a, b, c, d];
            }
            loop {
                let grown = quad_area(p, a, next(b), c, d);
                if grown <= m {
                    break;
                }
                m = grown;
                b = next(b);
                res = [a, b, c, d];
            }
        }
        if b == a {
            b = next(b);
            if c == b {
                c = next(c);
                if d == c {
                    d = next(d);
                }
            }
        }
    }
    res
}

impl MultiScratch {
    /// Clips the incident polygon (or segment) in `self.incident` by the side planes of the
    /// reference face in `self.reference` (outward unit normal `n`), keeps the points below
    /// the face, at most `max_contacts` of a larger polygon by `polygon_quad` (or the two
    /// farthest apart of a clipped segment), and makes each a contact: the point itself on the
    /// incident geom, and the point moved by its depth along `-wdir` (`polygonClip` and
    /// `witnessOnFace`). Leaves `self.out` alone when nothing survives.
    fn polygon_clip(&mut self, n: &Vec3, wdir: &Vec3, max_contacts: usize) {
        let f = &self.reference;
        let nf = f.len();
        if nf < 3 {
            return;
        }
        self.planes.clear();
        for e in 0..nf {
            let (v1, v2) = (f[e], f[(e + 1) % nf]);
            let v3 = add3(&v1, n);
            let pn = unit(cross(&sub3(&v2, &v1), &sub3(&v3, &v1)));
            self.planes.push((pn, dot3(&pn, &v1)));
        }
        self.poly.clear();
        self.poly.extend_from_slice(&self.incident);
        for e in 0..nf {
            let (pn, pd) = self.planes[e];
            let inside = |x: &Vec3| dot3(&sub3(x, &f[e]), &pn) > -MINVAL;
            self.clipped.clear();
            let np = self.poly.len();
            for i in 0..np {
                let (p, q) = (self.poly[i], self.poly[(i + 1) % np]);
                let (pin, qin) = (inside(&p), inside(&q));
                if !pin && !qin {
                    continue;
                }
                if pin && qin {
                    self.clipped.push(q);
                    continue;
                }
                let pq = sub3(&q, &p);
                let t0 = dot3(&pn, &pq);
                if t0 != 0.0 {
                    let t = (pd - dot3(&pn, &p)) / t0;
                    if (0.0..=1.0).contains(&t) {
                        self.clipped.push(add_scl(&p, &pq, t));
                    }
                }
                if qin {
                    self.clipped.push(q);
                }
            }
            std::mem::swap(&mut self.poly, &mut self.clipped);
        }
        let f0 = f[0];
        self.poly.retain(|p| dot3(&sub3(p, &f0), n) <= 0.0);
        let np = self.poly.len();
        if np < 1 {
            return;
        }
        let mut pick = [0usize; MAX_CLIPPED];
        let count = if max_contacts < 5 && np > 4 {
            pick[..4].copy_from_slice(&polygon_quad(&self.poly));
            4
        } else if self.incident.len() == 2 && np > 2 {
            let (mut b1, mut b2, mut dmax) = (0, 1, 0.0);
            for i in 0..np {
                for j in i + 1..np {
                    let df = sub3(&self.poly[j], &self.poly[i]);
                    let d2 = dot3(&df, &df);
                    if d2 > dmax {
                        (b1, b2, dmax) = (i, j, d2);
                    }
                }
            }
            pick[..2].copy_from_slice(&[b1, b2]);
            2
        } else {
            let k = np.min(MAX_CLIPPED);
            for (i, p) in pick[..k].iter_mut().enumerate() {
                *p = i;
            }
            k
        };
        self.out.clear();
        for &i in &pick[..count] {
            let v = self.poly[i];
            let dist = dot3(&sub3(&v, &f0), n);
            self.out.push(Witness {
                x1: add_scl(&v, wdir, -dist.abs()),
                x2: v,
                dist,
            });
        }
    }

    /// Replaces the one contact in `self.out` (witness points `x1` on geom 1 and `x2` on
    /// geom 2 of a penetration) by the contacts of the touching features that the support
    /// points `s` of the final simplex or EPA face name, when they clip (`multicontact`).
    pub fn multicontact(&mut self, s: &[Support; 3], c1: &Core, c2: &Core, max_contacts: usize) {
        let no_polygons = |c: &Core| matches!(c, Core::Mesh { mesh, .. } if mesh.polys.is_none_or(|p| p.normal.is_empty()));
        if no_polygons(c1) || no_polygons(c2) || self.out.is_empty() {
            return;
        }
        let (x1, x2) = (self.out[0].x1, self.out[0].x2);
        let mut v1i = [s[0].index1, s[1].index1, s[2].index1];
        let mut v1 = [s[0].vert1, s[1].vert1, s[2].vert1];
        let mut v2i = [s[0].index2, s[1].index2, s[2].index2];
        let mut v2 = [s[0].vert2, s[1].vert2, s[2].vert2];
        let nface1 = feature_dim(&mut v1i, &mut v1);
        let nface2 = feature_dim(&mut v2i, &mut v2);
        let dir = sub3(&x2, &x1);
        let dir_neg = sub3(&x1, &x2);
        face_normals(c1, nface1, &v1i, &dir_neg, &mut self.normals1);
        face_normals(c2, nface2, &v2i, &dir, &mut self.normals2);
        let (n1, n2) = (&self.normals1, &self.normals2);
        // face against face: the most anti-parallel pair
        let mut best = -FACE_TOL;
        let mut found = None;
        for a in n1 {
            for b in n2 {
                let d = dot3(&a.0, &b.0);
                if d < best {
                    best = d;
                    found = Some((a, b));
                }
            }
        }
        if let Some(((normal1, idx1), (normal2, idx2))) = found.map(|(a, b)| (*a, *b)) {
            face(c1, idx1, &mut self.reference);
            face(c2, idx2, &mut self.incident);
            self.polygon_clip(&normal1, &normal2, max_contacts);
            return;
        }
        // an edge of one geom lying in a face of the other
        let edge_first = nface1 != 3 && !n2.is_empty() && (nface1 <= nface2 || n1.is_empty());
        if !edge_first && nface2 == 3 {
            return;
        }
        let (faces, facing, core_face, near) = if edge_first {
            edges(c1, nface1, &mut v1, v1i[0], &x1, &mut self.edges);
            (n2, dir, c2, v1[0])
        } else {
            edges(c2, nface2, &mut v2, v2i[0], &x2, &mut self.edges);
            (n1, dir_neg, c1, v2[0])
        };
        let hit = faces
            .iter()
            .filter(|f| dot3(&f.0, &facing) > MINVAL)
            .find_map(|f| {
                self.edges
                    .iter()
                    .find(|e| dot3(&f.0, &e.0).abs() < EDGE_TOL)
                    .map(|e| (*f, e.1))
            });
        let Some(((normal, idx), far)) = hit else {
            return;
        };
        face(core_face, idx, &mut self.reference);
        self.incident.clear();
        self.incident.extend_from_slice(&[near, far]);
        self.polygon_clip(&normal, &scl3(&normal, -1.0), max_contacts);
        if edge_first {
            // the clip made geom 2's face the reference: its witnesses come first. MuJoCo
            // swaps them back, also when the clip kept nothing (the GJK/EPA pair then swaps)
            for w in &mut self.out {
                std::mem::swap(&mut w.x1, &mut w.x2);
            }
        }
    }
}

/// The contact cap of a geom pair in `mjc_Convex` (`maxContacts`): 1 with a margin or with
/// multi-contact CCD disabled, 4 among cylinders, boxes and meshes, 2 for a capsule against a
/// capsule, cylinder, box or mesh.
pub fn max_contacts(t1: i32, t2: i32, margin: f64, multiccd_disabled: bool) -> usize {
    use super::geom;
    if margin > 0.0 || multiccd_disabled {
        return 1;
    }
    let flat = |t: i32| matches!(t, geom::CYLINDER | geom::BOX | geom::MESH);
    if flat(t1) && flat(t2) {
        4
    } else if (t1 == geom::CAPSULE && (flat(t2) || t2 == geom::CAPSULE))
        || (t2 == geom::CAPSULE && flat(t1))
    {
        2
    } else {
        1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn feature_dimension_drops_repeated_indices() {
        let p = [[0.0; 3], [1.0, 0.0, 0.0], [2.0, 0.0, 0.0]];
        let (mut vi, mut v) = ([3, 3, 3], p);
        assert_eq!(feature_dim(&mut vi, &mut v), 1);
        let (mut vi, mut v) = ([3, 3, 5], p);
        assert_eq!(feature_dim(&mut vi, &mut v), 2);
        assert_eq!((vi[1], v[1]), (5, p[2]));
        let (mut vi, mut v) = ([3, 5, 3], p);
        assert_eq!(feature_dim(&mut vi, &mut v), 2);
        let (mut vi, mut v) = ([3, 5, 6], p);
        assert_eq!(feature_dim(&mut vi, &mut v), 3);
    }

    #[test]
    fn a_square_clipped_by_a_larger_one_keeps_its_corners_with_their_depths() {
        let mut sc = MultiScratch {
            // reference: the top face of a box at z = 0 (outward +z), clockwise seen from above
            reference: vec![[-1., 1., 0.], [1., 1., 0.], [1., -1., 0.], [-1., -1., 0.]],
            // incident: a smaller square 0.01 below it
            incident: vec![
                [0.5, 0.5, -0.01],
                [0.5, -0.5, -0.01],
                [-0.5, -0.5, -0.01],
                [-0.5, 0.5, -0.01],
            ],
            out: vec![Witness::default()],
            ..Default::default()
        };
        sc.polygon_clip(&[0., 0., 1.], &[0., 0., -1.], 4);
        assert_eq!(sc.out.len(), 4);
        for w in &sc.out {
            assert!((w.dist + 0.01).abs() < 1e-15);
            assert_eq!(w.x2[2], -0.01);
            assert!((w.x1[2] - 0.0).abs() < 1e-15);
        }
    }

    #[test]
    fn a_sixteen_gon_reduces_to_four_of_its_corners_spanning_most_of_it() {
        let p: Vec<Vec3> = (0..16).map(|k| [COS16[k], -SIN16[k], 0.0]).collect();
        let q = polygon_quad(&p);
        // four distinct corners in loop order
        assert!(q.windows(2).all(|w| w[0] < w[1]), "{q:?}");
        // MuJoCo's walk stops at a local maximum, not always the square of area 2 that a unit
        // circle holds; it must still keep most of it
        let area = quad_area(&p, q[0], q[1], q[2], q[3]);
        assert!(area > 0.95 * 2.0 && area <= 2.0 + 1e-12, "{q:?} {area}");
    }

    #[test]
    fn caps() {
        use crate::engine::collision::geom;
        assert_eq!(max_contacts(geom::CYLINDER, geom::BOX, 0.0, false), 4);
        assert_eq!(max_contacts(geom::BOX, geom::MESH, 0.0, false), 4);
        assert_eq!(max_contacts(geom::CAPSULE, geom::MESH, 0.0, false), 2);
        assert_eq!(max_contacts(geom::CAPSULE, geom::CAPSULE, 0.0, false), 2);
        assert_eq!(max_contacts(geom::CYLINDER, geom::BOX, 0.01, false), 1);
        assert_eq!(max_contacts(geom::CYLINDER, geom::BOX, 0.0, true), 1);
        assert_eq!(max_contacts(geom::ELLIPSOID, geom::BOX, 0.0, false), 1);
    }
}
