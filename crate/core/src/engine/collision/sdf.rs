//! Flex triangles against a signed-distance-field geom (MuJoCo's `mj_collideSdfFlex` and
//! `mjc_FlexSDF`, `engine_collision_sdf.c`). Each triangle that may reach the surface is
//! searched from `sdf_initpoints` Halton-sampled barycentric starts by Frank–Wolfe steps over
//! the triangle; the deepest penetrating point of each element becomes one contact, at most
//! `MAX_CON_PAIR` per flex in the order of a depth-first walk of the flex's element hierarchy. No margin is used: only penetrating points count,
//! as in MuJoCo.

use super::{
    add_contact, assign_margin, contact_param, CollisionScratch, PreContact, MAX_CON_PAIR,
};
use crate::data::Data;
use crate::math::*;
use crate::model::Model;

/// MuJoCo's `mjMINVAL`.
const MINVAL: f64 = 1e-15;

/// A signed distance field in its geom's frame (MuJoCo's SDF plugin interface).
pub trait SignedDistance {
    /// Signed distance (m) from the surface at `p` (geom frame, m): negative inside.
    fn distance(&self, p: &Vec3) -> f64;
    /// Gradient of `distance` at `p` (not necessarily unit length).
    fn gradient(&self, p: &Vec3) -> Vec3;
}

/// The `index`-th element of the van der Corput sequence in `base` (`mju_Halton`).
pub fn halton(index: usize, base: usize) -> f64 {
    let b = base as f64;
    let (mut n, mut f, mut h) = (index, 1.0 / b, 0.0);
    while n > 0 {
        let q = n / base;
        h += f * (n - q * base) as f64;
        f /= b;
        n = q;
    }
    h
}

/// Whether the triangle (geom frame) may touch the surface (`triangleIntersect`): the
/// circumsphere of the triangle and a fourth point pushed along its normal by a tenth of the
/// centroid's distance must reach the surface (the triangle's circumcircle when that point
/// would be too close to make a sound tetrahedron).
fn triangle_intersect(t: &[Vec3; 3], s: &dyn SignedDistance) -> bool {
    const DISTANCE_SCALE: f64 = 10.0;
    const MIN_HEIGHT: f64 = 0.1;
    let e0 = sub3(&t[1], &t[0]);
    let e1 = sub3(&t[2], &t[0]);
    let mut normal = cross(&e0, &e1);
    normalize3(&mut normal);
    let mut p = scl3(&t[0], 1.0 / 3.0);
    add_to_scl3(&mut p, &t[1], 1.0 / 3.0);
    add_to_scl3(&mut p, &t[2], 1.0 / 3.0);
    let centroid_dist = s.distance(&p);
    let h = -centroid_dist / DISTANCE_SCALE;
    if h.abs() < MIN_HEIGHT {
        let a = dist3(&t[0], &t[1]);
        let b = dist3(&t[1], &t[2]);
        let c = dist3(&t[2], &t[0]);
        let sp = (a + b + c) / 2.0;
        let area = (sp * (sp - a) * (sp - b) * (sp - c)).sqrt();
        let circumradius = (a * b * c) / (4.0 * area.max(MINVAL));
        return centroid_dist < circumradius;
    }
    add_to_scl3(&mut p, &normal, -h);
    let v = [sub3(&t[0], &p), sub3(&t[1], &p), sub3(&t[2], &p)];
    let c = [
        cross(&v[1], &v[2]),
        cross(&v[2], &v[0]),
        cross(&v[0], &v[1]),
    ];
    let mut center = scl3(&c[0], dot3(&v[0], &v[0]));
    add_to_scl3(&mut center, &c[1], dot3(&v[1], &v[1]));
    add_to_scl3(&mut center, &c[2], dot3(&v[2], &v[2]));
    let denom = 2.0 * dot3(&v[0], &c[0]);
    if denom.abs() < MINVAL {
        return centroid_dist < norm3(&e0);
    }
    center = scl3(&center, 1.0 / denom);
    let r = dot3(&center, &center).sqrt();
    add_to3(&mut center, &p);
    s.distance(&center) < r
}

/// Frank–Wolfe descent of the distance over the triangle from `x` (`stepFrankWolfe`);
/// returns the distance at the final point.
fn frank_wolfe(x: &mut Vec3, corners: &[Vec3; 3], s: &dyn SignedDistance, iterations: i32) -> f64 {
    for step in 0..iterations.max(0) {
        let grad = s.gradient(x);
        let mut best = f64::MAX;
        let mut target = [0.0; 3];
        for c in corners {
            let fun = dot3(c, &grad);
            if fun < best {
                best = fun;
                target = *c;
            }
        }
        let dir = sub3(&target, x);
        add_to_scl3(x, &dir, 2.0 / (step as f64 + 2.0));
    }
    s.distance(x)
}

fn dist3(a: &Vec3, b: &Vec3) -> f64 {
    let d = sub3(a, b);
    dot3(&d, &d).sqrt()
}

/// The deepest penetrating point of one triangle (geom frame) and its distance, if any
/// (`processSdfCorners` keeping the element's deepest candidate).
fn deepest_point(
    corners: &[Vec3; 3],
    s: &dyn SignedDistance,
    nstart: usize,
    iterations: i32,
) -> Option<(Vec3, f64)> {
    if !triangle_intersect(corners, s) {
        return None;
    }
    let mut best: Option<(Vec3, f64)> = None;
    for sp in 0..nstart.min(MAX_CON_PAIR) {
        let mut u = halton(sp + 1, 2);
        let mut v = halton(sp + 1, 3);
        if u + v > 1.0 {
            u = 1.0 - u;
            v = 1.0 - v;
        }
        let b0 = 1.0 - u - v;
        let mut x = [0.0; 3];
        for k in 0..3 {
            x[k] = b0 * corners[0][k] + u * corners[1][k] + v * corners[2][k];
        }
        let depth = frank_wolfe(&mut x, corners, s, iterations);
        if depth < 0.0 && best.is_none_or(|(_, d)| depth < d) {
            best = Some((x, depth));
        }
    }
    best
}

/// Flex `f` (triangles only) against SDF geom `g` whose field is `s`: appends its contacts to
/// `d.contact` (geom first, the element as `elem[1]`, normal out of the field).
pub fn sdf_flex(
    m: &Model,
    d: &mut Data,
    cs: &mut CollisionScratch,
    g: usize,
    f: usize,
    s: &dyn SignedDistance,
) {
    if m.flex_dim[f] != 2 {
        return;
    }
    let margin = assign_margin(m, m.geom_margin[g] + m.flex_margin[f]);
    let params = contact_param(m, g as i32, -1, -1, f as i32);
    // the world-to-geom map as MuJoCo composes it: the inverse pose from the geom's quaternion
    let (gpos, gquat) = geom_pose(d, g);
    let inv = neg_quat(&gquat);
    let offset = scl3(&rot_vec_quat(&gpos, &inv), -1.0);
    let rotation = quat_to_mat(&inv);
    let to_local = |p: &Vec3| add3(&mul_mat_vec3(&rotation, p), &offset);

    let nstart = m.opt.sdf_initpoints.max(1) as usize;
    let iterations = m.opt.sdf_iterations;
    let va = m.flex_vertadr[f] as usize;
    let mut cand = [([0.0; 3], 0.0, 0usize); MAX_CON_PAIR];
    let mut ncand = 0;
    // a node (or leaf) is visited when the field reaches its box's circumsphere
    let reaches =
        |b: &[f64; 6]| s.distance(&to_local(&[b[0], b[1], b[2]])) < norm3(&[b[3], b[4], b[5]]);
    // MuJoCo's depth-first walk of the flex's element hierarchy (second child first): the
    // first element visited keeps a point that two elements share
    let tree = &m.flex_tree[f];
    let ea = m.flex_elemadr[f] as usize;
    let en = m.flex_elemnum[f] as usize;
    let boxes = &mut cs.bvh_box[..tree.child.len()];
    super::super::flexbvh::node_boxes(tree, &d.a.flexelem_aabb[6 * ea..6 * (ea + en)], boxes);
    let stack = &mut cs.bvh_stack;
    stack.clear();
    if !tree.child.is_empty() {
        stack.push(0);
    }
    while let Some(node) = stack.pop() {
        if !reaches(&boxes[node]) {
            continue;
        }
        let e = tree.nodeid[node];
        if e < 0 {
            for c in tree.child[node] {
                if c >= 0 {
                    stack.push(c as usize);
                }
            }
            continue;
        }
        let e = e as usize;
        let ed = m.flex_elemdataadr[f] as usize + 3 * e;
        let mut corners = [[0.0; 3]; 3];
        for (k, c) in corners.iter_mut().enumerate() {
            let v = 3 * (va + m.flex_elem[ed + k] as usize);
            *c = to_local(&[
                d.a.flexvert_xpos[v],
                d.a.flexvert_xpos[v + 1],
                d.a.flexvert_xpos[v + 2],
            ]);
        }
        if let Some((x, depth)) = deepest_point(&corners, s, nstart, iterations) {
            if ncand < MAX_CON_PAIR {
                cand[ncand] = (x, depth, e);
                ncand += 1;
            }
        }
    }
    // contacts at the candidates not already taken, normal along the field's gradient
    let mut taken = [[0.0; 3]; MAX_CON_PAIR];
    let mut ntaken = 0;
    for &(x, depth, e) in &cand[..ncand] {
        if depth > 0.0 || taken[..ntaken].iter().any(|t| dist3(t, &x) < MINVAL) {
            continue;
        }
        // a point with a degenerate gradient is dropped and not remembered (MuJoCo overwrites
        // its slot with the next point)
        let mut n = s.gradient(&x);
        if normalize3(&mut n) < MINVAL {
            continue;
        }
        taken[ntaken] = x;
        ntaken += 1;
        let normal = rot_vec_quat(&n, &gquat);
        let mut pos = rot_vec_quat(&x, &gquat);
        add_to3(&mut pos, &gpos);
        add_to_scl3(&mut pos, &normal, -0.5 * depth);
        let pc = PreContact::new(depth, pos, normal);
        let ids = ([g as i32, -1], [-1, f as i32], [-1, e as i32], [-1, -1]);
        if !add_contact(m, d, &pc, &params, margin, ids) {
            return;
        }
    }
}

/// Geom `g`'s position and its orientation as a quaternion (`mju_mat2Quat` of `geom_xmat`).
fn geom_pose(d: &Data, g: usize) -> (Vec3, Quat) {
    let mut mat = [0.0; 9];
    mat.copy_from_slice(&d.a.geom_xmat[9 * g..9 * g + 9]);
    let p = [
        d.a.geom_xpos[3 * g],
        d.a.geom_xpos[3 * g + 1],
        d.a.geom_xpos[3 * g + 2],
    ];
    (p, mat_to_quat(&mat))
}

/// `(pos12, mat12) = (pos2, quat2)⁻¹ ∘ (pos1, quat1)` as MuJoCo composes it (`mapPose`).
fn map_pose(pos1: &Vec3, quat1: &Quat, pos2: &Vec3, quat2: &Quat) -> (Vec3, Mat3) {
    let negq = neg_quat(quat2);
    let negp = scl3(&rot_vec_quat(pos2, &negq), -1.0);
    let pos = add3(&negp, &rot_vec_quat(pos1, &negq));
    (pos, quat_to_mat(&mul_quat(&negq, quat1)))
}

/// One geom's field for the rigid narrow phase: an SDF geom's own, or a primitive's distance
/// in its frame (`geomDistance`/`geomGradient`, after iquilezles.org's distance functions).
#[derive(Clone, Copy)]
pub enum Field<'a> {
    Sdf(&'a dyn SignedDistance),
    /// A primitive geom type (`geom::PLANE` … `geom::CYLINDER`, `geom::BOX`) and its size.
    Primitive(i32, [f64; 3]),
}

/// For boxes: a unit field that turns from radial to the face normals inside the box.
fn radial_field(a: &Vec3, x: &Vec3, size: &[f64; 3]) -> Vec3 {
    let mut f = [-size[0] / a[0], -size[1] / a[1], -size[2] / a[2]];
    normalize3(&mut f);
    for k in 0..3 {
        if x[k] < 0.0 {
            f[k] = -f[k];
        }
    }
    f
}

impl Field<'_> {
    fn distance(&self, x: &Vec3) -> f64 {
        use super::geom::*;
        let (t, size) = match self {
            Field::Sdf(s) => return s.distance(x),
            Field::Primitive(t, size) => (*t, size),
        };
        match t {
            PLANE => x[2],
            SPHERE => norm3(x) - size[0],
            BOX => {
                let a = [
                    x[0].abs() - size[0],
                    x[1].abs() - size[1],
                    x[2].abs() - size[2],
                ];
                if a[0] >= 0.0 || a[1] >= 0.0 || a[2] >= 0.0 {
                    let b = [a[0].max(0.0), a[1].max(0.0), a[2].max(0.0)];
                    return norm3(&b) + a[0].max(a[1].max(a[2])).min(0.0);
                }
                let b = radial_field(&a, x, size);
                let t = [-a[0] / b[0].abs(), -a[1] / b[1].abs(), -a[2] / b[2].abs()];
                -t[0].min(t[1].min(t[2])) * norm3(&b)
            }
            CAPSULE => {
                let a = [
                    x[0],
                    x[1],
                    x[2] - crate::math::clip(x[2], -size[1], size[1]),
                ];
                norm3(&a) - size[0]
            }
            ELLIPSOID => {
                let a = [x[0] / size[0], x[1] / size[1], x[2] / size[2]];
                let b = [a[0] / size[0], a[1] / size[1], a[2] / size[2]];
                let (k0, k1) = (norm3(&a), norm3(&b));
                k0 * (k0 - 1.0) / k1
            }
            CYLINDER => {
                let a = [
                    (x[0] * x[0] + x[1] * x[1]).sqrt() - size[0],
                    x[2].abs() - size[1],
                ];
                let b = [a[0].max(0.0), a[1].max(0.0)];
                a[0].max(a[1]).min(0.0) + (b[0] * b[0] + b[1] * b[1]).sqrt()
            }
            _ => f64::MAX,
        }
    }

    fn gradient(&self, x: &Vec3) -> Vec3 {
        use super::geom::*;
        let (t, size) = match self {
            Field::Sdf(s) => return s.gradient(x),
            Field::Primitive(t, size) => (*t, size),
        };
        match t {
            PLANE => [0.0, 0.0, 1.0],
            SPHERE => {
                let c = norm3(x);
                [x[0] * (1.0 / c), x[1] * (1.0 / c), x[2] * (1.0 / c)]
            }
            BOX => {
                let a = [
                    x[0].abs() - size[0],
                    x[1].abs() - size[1],
                    x[2].abs() - size[2],
                ];
                let k = if a[0] > a[1] { 0 } else { 1 };
                let l = if a[2] > a[k] { 2 } else { k };
                if a[l] < 0.0 {
                    return radial_field(&a, x, size);
                }
                let b = [a[0].max(0.0), a[1].max(0.0), a[2].max(0.0)];
                let c = norm3(&b);
                let mut g = [0.0; 3];
                for k in 0..3 {
                    if a[k] > 0.0 {
                        g[k] = b[k] / c * x[k] / x[k].abs();
                    }
                }
                g
            }
            CAPSULE => {
                let a = [
                    x[0],
                    x[1],
                    x[2] - crate::math::clip(x[2], -size[1], size[1]),
                ];
                let c = norm3(&a);
                [a[0] / c, a[1] / c, a[2] / c]
            }
            ELLIPSOID => {
                let a = [x[0] / size[0], x[1] / size[1], x[2] / size[2]];
                let b = [a[0] / size[0], a[1] / size[1], a[2] / size[2]];
                let (k0, k1) = (norm3(&a), norm3(&b));
                let (ik0, ik1) = (1.0 / k0, 1.0 / k1);
                let gk0 = [b[0] * ik0, b[1] * ik0, b[2] * ik0];
                let gk1 = [
                    b[0] * ik1 / (size[0] * size[0]),
                    b[1] * ik1 / (size[1] * size[1]),
                    b[2] * ik1 / (size[2] * size[2]),
                ];
                let df0 = (2.0 * k0 - 1.0) * ik1;
                let df1 = k0 * (k0 - 1.0) * ik1 * ik1;
                let mut g = [
                    gk0[0] * df0 - gk1[0] * df1,
                    gk0[1] * df0 - gk1[1] * df1,
                    gk0[2] * df0 - gk1[2] * df1,
                ];
                normalize3(&mut g);
                g
            }
            CYLINDER => {
                let c = (x[0] * x[0] + x[1] * x[1]).sqrt();
                let e = x[2].abs();
                let a = [c - size[0], e - size[1]];
                let tiny = 1.0 / f64::MAX;
                let ga = [x[0] / c.max(tiny), x[1] / c.max(tiny), x[2] / e.max(tiny)];
                let j = if a[0] > a[1] { 0 } else { 1 };
                if a[j] < 0.0 {
                    return if j == 0 {
                        [ga[0], ga[1], 0.0]
                    } else {
                        [0.0, 0.0, ga[2]]
                    };
                }
                let b = [a[0].max(0.0), a[1].max(0.0)];
                let bn = (b[0] * b[0] + b[1] * b[1]).sqrt().max(tiny);
                [ga[0] * b[0] / bn, ga[1] * b[0] / bn, ga[2] * b[1] / bn]
            }
            _ => [0.0; 3],
        }
    }
}

/// How the two fields of a geom pair combine (`mjtSDFType`).
#[derive(Clone, Copy, PartialEq)]
enum Combine {
    Collision,
    Intersection,
    Midsurface,
}

/// Two geoms' fields, the second's points mapped from the first's frame by `(relpos, relmat)`.
struct Pair<'a> {
    f: [Field<'a>; 2],
    relpos: Vec3,
    relmat: Mat3,
}

impl Pair<'_> {
    fn other(&self, x: &Vec3) -> Vec3 {
        add3(&mul_mat_vec3(&self.relmat, x), &self.relpos)
    }

    fn distance(&self, c: Combine, x: &Vec3) -> f64 {
        let y = self.other(x);
        let (a, b) = (self.f[0].distance(x), self.f[1].distance(&y));
        match c {
            Combine::Intersection => a.max(b),
            Combine::Midsurface => a - b,
            Combine::Collision => a + b + a.max(b).abs(),
        }
    }

    fn gradient(&self, c: Combine, x: &Vec3) -> Vec3 {
        let y = self.other(x);
        match c {
            Combine::Intersection => {
                if self.f[0].distance(x) > self.f[1].distance(&y) {
                    self.f[0].gradient(x)
                } else {
                    mul_mat_t_vec3(&self.relmat, &self.f[1].gradient(&y))
                }
            }
            Combine::Midsurface => {
                let mut g1 = self.f[0].gradient(x);
                normalize3(&mut g1);
                let mut g2 = mul_mat_t_vec3(&self.relmat, &self.f[1].gradient(&y));
                normalize3(&mut g2);
                let mut g = sub3(&g1, &g2);
                normalize3(&mut g);
                g
            }
            Combine::Collision => {
                let (a, b) = (self.f[0].distance(x), self.f[1].distance(&y));
                let g1 = self.f[0].gradient(x);
                let g2 = mul_mat_t_vec3(&self.relmat, &self.f[1].gradient(&y));
                let mut g = add3(&g1, &g2);
                let sign = if a.max(b) > 0.0 { 1.0 } else { -1.0 };
                add_to_scl3(&mut g, if a > b { &g1 } else { &g2 }, sign);
                g
            }
        }
    }

    /// Backtracking gradient descent from `x` (`stepGradient`); the final distance.
    fn descend(&self, c: Combine, x: &mut Vec3, iterations: i32) -> f64 {
        const C: f64 = 0.1;
        const RHO: f64 = 0.5;
        const AMIN: f64 = 1e-4;
        let mut dist = f64::MAX;
        for _ in 0..iterations.max(0) {
            let mut alpha = 2.0;
            let grad = self.gradient(c, x);
            if grad.iter().any(|g| g.is_nan() || g.abs() > f64::MAX) {
                return f64::MAX;
            }
            let x0 = *x;
            let dist0 = self.distance(c, &x0);
            let mut wolfe = -C * alpha * dot3(&grad, &grad);
            loop {
                alpha *= RHO;
                wolfe *= RHO;
                *x = add3(&x0, &scl3(&grad, -alpha));
                dist = self.distance(c, x);
                if !(alpha > AMIN && dist - dist0 > wolfe) {
                    break;
                }
            }
            if dist0 < dist {
                return dist;
            }
        }
        dist
    }
}

/// A geom against SDF geom `g2` (`mjc_SDF`): `sdf_initpoints` Halton points in the overlap of
/// the two boxes descend the pair's collision field, are projected on the intersection and
/// become contacts on the mid-surface, normal into the SDF. `f1` is the first geom's field.
pub fn geom_sdf(
    m: &Model,
    d: &Data,
    out: &mut Vec<PreContact>,
    g1: usize,
    g2: usize,
    f1: Field,
    s2: &dyn SignedDistance,
) {
    let (pos1, quat1) = geom_pose(d, g1);
    let (pos2, quat2) = geom_pose(d, g2);
    let (offset2, rotation2) = map_pose(&pos1, &quat1, &pos1, &quat1);
    let (offset21, rotation21) = map_pose(&pos2, &quat2, &pos1, &quat1);
    let (offset12, rotation12) = map_pose(&pos1, &quat1, &pos2, &quat2);
    let size1 = &m.geom_aabb[6 * g1..6 * g1 + 6];
    let size2 = &m.geom_aabb[6 * g2..6 * g2 + 6];
    let (mut lo1, mut hi1) = ([f64::MAX; 3], [-f64::MAX; 3]);
    let (mut lo2, mut hi2) = ([f64::MAX; 3], [-f64::MAX; 3]);
    for i in 0..8 {
        let corner = |s: &[f64], k: usize, bit: usize| {
            if i & bit != 0 {
                s[k] + s[k + 3]
            } else {
                s[k] - s[k + 3]
            }
        };
        let v1 = [
            corner(size1, 0, 1),
            corner(size1, 1, 2),
            corner(size1, 2, 4),
        ];
        let v2 = [
            corner(size2, 0, 1),
            corner(size2, 1, 2),
            corner(size2, 2, 4),
        ];
        let v2 = add3(&mul_mat_vec3(&rotation21, &v2), &offset21);
        for k in 0..3 {
            lo1[k] = lo1[k].min(v1[k]);
            hi1[k] = hi1[k].max(v1[k]);
            lo2[k] = lo2[k].min(v2[k]);
            hi2[k] = hi2[k].max(v2[k]);
        }
    }
    let lo = [lo1[0].max(lo2[0]), lo1[1].max(lo2[1]), lo1[2].max(lo2[2])];
    let hi = [hi1[0].min(hi2[0]), hi1[1].min(hi2[1]), hi1[2].min(hi2[2])];
    if hi[0] < lo[0] || hi[1] < lo[1] || hi[2] < lo[2] {
        return;
    }
    let pair = Pair {
        f: [Field::Sdf(s2), f1],
        relpos: offset21,
        relmat: rotation21,
    };
    // one remembered point per contact, and at most MAX_CON_PAIR contacts
    let mut taken = [[0.0; 3]; MAX_CON_PAIR];
    let mut ntaken = 0;
    for j in 0..m.opt.sdf_initpoints.max(0) as usize {
        let x = [
            lo[0] + (hi[0] - lo[0]) * halton(j, 2),
            lo[1] + (hi[1] - lo[1]) * halton(j, 3),
            lo[2] + (hi[2] - lo[2]) * halton(j, 5),
        ];
        let y = add3(&mul_mat_vec3(&rotation2, &x), &offset2);
        let mut x = add3(&mul_mat_vec3(&rotation12, &y), &offset12);
        pair.descend(Combine::Collision, &mut x, m.opt.sdf_iterations);
        let dist = pair.descend(Combine::Intersection, &mut x, 1);
        if dist > 0.0 || taken[..ntaken].iter().any(|t| dist3(t, &x) < MINVAL) {
            continue;
        }
        let mut n = pair.gradient(Combine::Midsurface, &x);
        if normalize3(&mut n) < MINVAL {
            continue;
        }
        taken[ntaken] = x;
        ntaken += 1;
        // normal into the SDF: from the other geom toward the field's inside
        let normal = rot_vec_quat(&scl3(&n, -1.0), &quat2);
        let mut pos = rot_vec_quat(&x, &quat2);
        add_to3(&mut pos, &pos2);
        add_to_scl3(&mut pos, &normal, -0.5 * dist);
        out.push(PreContact::new(dist, pos, normal));
        if out.len() >= MAX_CON_PAIR {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn halton_matches_the_radical_inverse() {
        // 1, 2, 3, 4 in base 2: 0.1, 0.01, 0.11, 0.001 (binary)
        assert_eq!([1, 2, 3, 4].map(|i| halton(i, 2)), [0.5, 0.25, 0.75, 0.125]);
        // 5 in base 3 is 12: 2/3 + 1/9 reversed → 0.21 (base 3) = 2/3 + 1/9
        assert!((halton(5, 3) - (2.0 / 3.0 + 1.0 / 9.0)).abs() < 1e-15);
        assert_eq!(halton(0, 5), 0.0);
    }

    struct Plane;
    impl SignedDistance for Plane {
        fn distance(&self, p: &Vec3) -> f64 {
            p[2]
        }
        fn gradient(&self, _: &Vec3) -> Vec3 {
            [0.0, 0.0, 1.0]
        }
    }

    #[test]
    fn frank_wolfe_reaches_the_lowest_corner_of_a_tilted_triangle() {
        let corners = [[0.0, 0.0, 0.1], [1.0, 0.0, -0.2], [0.0, 1.0, 0.3]];
        let mut x = [0.3, 0.3, 0.06];
        // weights 2/(k+2) toward the corner of least height: after n steps the start keeps
        // a weight of 0 (the first step has weight 1), so x is exactly that corner
        let depth = frank_wolfe(&mut x, &corners, &Plane, 10);
        assert_eq!(x, corners[1]);
        assert_eq!(depth, -0.2);
        let (p, dmin) = deepest_point(&corners, &Plane, 40, 10).unwrap();
        assert_eq!((p, dmin), (corners[1], -0.2));
    }

    #[test]
    fn a_triangle_far_above_the_surface_is_culled() {
        let t = [[0.0, 0.0, 5.0], [0.1, 0.0, 5.0], [0.0, 0.1, 5.0]];
        assert!(!triangle_intersect(&t, &Plane));
        assert!(deepest_point(&t, &Plane, 40, 10).is_none());
    }
}
