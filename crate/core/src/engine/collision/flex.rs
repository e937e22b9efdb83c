//! Flex narrow phases (MuJoCo's `engine_collision_flex.c` and the flex parts of the driver):
//! plane against every vertex, other geoms against each element (analytic for spheres,
//! capsules and boxes against triangles and segments, GJK/EPA otherwise), element pairs of two
//! flexes, and self-collision of a flex's active elements by sweep and prune.

use super::convex::{self, Core, Shape};
use super::primitive::*;
use super::{
    add_contact, assign_margin, contact_param, geom, CollisionScratch, PreContact, MAX_CON_PAIR,
};
use crate::data::Data;
use crate::math::*;
use crate::model::{disable, Model};

fn vpos(m: &Model, d: &Data, f: usize, v: i32) -> Vec3 {
    let i = 3 * (m.flex_vertadr[f] as usize + v as usize);
    [
        d.a.flexvert_xpos[i],
        d.a.flexvert_xpos[i + 1],
        d.a.flexvert_xpos[i + 2],
    ]
}

fn elem_verts(m: &Model, f: usize, e: usize) -> &[i32] {
    let dim = m.flex_dim[f] as usize;
    let a = m.flex_elemdataadr[f] as usize + e * (dim + 1);
    &m.flex_elem[a..a + dim + 1]
}

fn elem_shape(m: &Model, d: &Data, f: usize, e: usize) -> Shape<'static> {
    let ev = elem_verts(m, f, e);
    let mut p = [[0.0; 3]; 4];
    for (k, &v) in ev.iter().enumerate() {
        p[k] = vpos(m, d, f, v);
    }
    let b = elem_aabb(d, m, f, e);
    Shape {
        core: Core::Points {
            p,
            n: ev.len(),
            c: [b[0], b[1], b[2]],
        },
        radius: m.flex_radius[f],
    }
}

/// Capsule (centre, rotation with z along the segment, [radius, half length]) of a 1D element.
fn elem_capsule(m: &Model, d: &Data, f: usize, e: usize) -> (Vec3, Mat3, [f64; 3]) {
    let ev = elem_verts(m, f, e);
    let v1 = vpos(m, d, f, ev[0]);
    let v2 = vpos(m, d, f, ev[1]);
    let mut dif = sub3(&v1, &v2);
    let half = 0.5 * normalize3(&mut dif);
    let pos = scl3(&add3(&v1, &v2), 0.5);
    let q = quat_z_to_vec(&dif);
    (pos, quat_to_mat(&q), [m.flex_radius[f], half, 0.0])
}

fn elem_aabb(d: &Data, m: &Model, f: usize, e: usize) -> [f64; 6] {
    let b = 6 * (m.flex_elemadr[f] as usize + e);
    let a = &d.a.flexelem_aabb[b..b + 6];
    [a[0], a[1], a[2], a[3], a[4], a[5]]
}

/// Centre/half-size boxes overlap within `margin` (`filterBox`, inverted).
fn centred_overlap(a: &[f64; 6], b: &[f64; 6], margin: f64) -> bool {
    (0..3).all(|k| {
        a[k] + a[3 + k] + margin >= b[k] - b[3 + k] && b[k] + b[3 + k] + margin >= a[k] - a[3 + k]
    })
}

/// Plane against all vertices of flex `f` (`mjc_PlaneFlex`).
pub fn plane_flex(m: &Model, d: &mut Data, cs: &mut CollisionScratch, g: usize, f: usize) {
    let radius = m.flex_radius[f];
    let pos = [
        d.a.geom_xpos[3 * g],
        d.a.geom_xpos[3 * g + 1],
        d.a.geom_xpos[3 * g + 2],
    ];
    let mat = &d.a.geom_xmat[9 * g..9 * g + 9];
    let n = [mat[2], mat[5], mat[8]];
    let margin = assign_margin(m, m.geom_margin[g] + m.flex_margin[f]);
    let gap = m.geom_gap[g] + m.flex_gap[f];
    cs.pre.clear();
    cs.vert.clear();
    let va = m.flex_vertadr[f] as usize;
    for i in 0..m.flex_vertnum[f] as usize {
        let v = &d.a.flexvert_xpos[3 * (va + i)..3 * (va + i) + 3];
        let dist = dot3(&sub3(&[v[0], v[1], v[2]], &pos), &n);
        if dist > margin + gap + radius {
            continue;
        }
        let cd = dist - radius;
        let p = add3(&[v[0], v[1], v[2]], &scl3(&n, -cd * 0.5 - radius));
        cs.pre.push(PreContact::new(cd, p, n));
        cs.vert.push(i as i32);
    }
    if cs.pre.is_empty() {
        return;
    }
    let p = contact_param(m, g as i32, -1, -1, f as i32);
    let pre = std::mem::take(&mut cs.pre);
    for (k, pc) in pre.iter().enumerate() {
        let ids = ([g as i32, -1], [-1, f as i32], [-1, -1], [-1, cs.vert[k]]);
        if !add_contact(m, d, pc, &p, margin, ids) {
            break;
        }
    }
    cs.pre = pre;
}

/// A non-plane geom against each element of flex `f` (`mjc_GeomElem`).
pub fn geom_flex(m: &Model, d: &mut Data, cs: &mut CollisionScratch, g: usize, f: usize) {
    let margin = assign_margin(m, m.geom_margin[g] + m.flex_margin[f]);
    let gap = m.geom_gap[g] + m.flex_gap[f];
    let mg = margin + gap;
    let dim = m.flex_dim[f];
    let t = m.geom_type[g];
    let gp = [
        d.a.geom_xpos[3 * g],
        d.a.geom_xpos[3 * g + 1],
        d.a.geom_xpos[3 * g + 2],
    ];
    let rb = m.geom_rbound[g] + mg;
    let gbox = [gp[0], gp[1], gp[2], rb, rb, rb];
    let gb = m.geom_bodyid[g];
    let params = contact_param(m, g as i32, -1, -1, f as i32);
    let gm = {
        let mut x = [0.0; 9];
        x.copy_from_slice(&d.a.geom_xmat[9 * g..9 * g + 9]);
        x
    };
    let gs = [
        m.geom_size[3 * g],
        m.geom_size[3 * g + 1],
        m.geom_size[3 * g + 2],
    ];
    let va = m.flex_vertadr[f] as usize;
    // MuJoCo's midphase walks the flex BVH, which holds only the active (outer-layer) elements
    // of a 3D flex; without midphase every element is tested
    let bvh = !m.opt.disabled(disable::MIDPHASE);
    for e in 0..m.flex_elemnum[f] as usize {
        if bvh && !elem_active(m, f, e) {
            continue;
        }
        if !centred_overlap(&gbox, &elem_aabb(d, m, f, e), 0.0) {
            continue;
        }
        let ev = elem_verts(m, f, e);
        if ev.iter().any(|&v| m.flex_vertbodyid[va + v as usize] == gb) {
            continue;
        }
        cs.pre.clear();
        let rt = m.flex_radius[f];
        if dim == 1 && (t == geom::SPHERE || t == geom::CAPSULE || t == geom::BOX) {
            let (cp, cm, csz) = elem_capsule(m, d, f, e);
            if t == geom::SPHERE {
                sphere_capsule(&mut cs.pre, mg, &gp, &gm, gs[0], &cp, &cm, &csz);
            } else if t == geom::CAPSULE {
                capsule_capsule(&mut cs.pre, mg, &gp, &gm, &gs, &cp, &cm, &csz);
            } else {
                // MuJoCo's mjraw_CapsuleBox with the element's capsule first, its normals
                // reversed since the box is the contact's first object
                super::capsule_box::capsule_box(&mut cs.pre, mg, &cp, &cm, &csz, &gp, &gm, &gs);
                for pc in cs.pre.iter_mut() {
                    pc.normal = scl3(&pc.normal, -1.0);
                }
            }
        } else if dim == 2 && t == geom::SPHERE {
            let (a, b, c) = (
                vpos(m, d, f, ev[0]),
                vpos(m, d, f, ev[1]),
                vpos(m, d, f, ev[2]),
            );
            sphere_triangle(&mut cs.pre, mg, &gp, gs[0], &a, &b, &c, rt);
        } else if dim == 2 && t == geom::BOX {
            let (a, b, c) = (
                vpos(m, d, f, ev[0]),
                vpos(m, d, f, ev[1]),
                vpos(m, d, f, ev[2]),
            );
            box_triangle(&mut cs.pre, mg, &gp, &gm, &gs, &a, &b, &c, rt, MAX_CON_PAIR);
        } else if dim == 2 && t == geom::CAPSULE {
            let (a, b, c) = (
                vpos(m, d, f, ev[0]),
                vpos(m, d, f, ev[1]),
                vpos(m, d, f, ev[2]),
            );
            capsule_triangle(&mut cs.pre, mg, &gp, &gm, &gs, &a, &b, &c, rt, MAX_CON_PAIR);
        } else {
            let a = super::geom_shape(m, d, g);
            let b = elem_shape(m, d, f, e);
            convex::collide(
                &mut cs.epa,
                &mut cs.pre,
                mg,
                &a,
                &b,
                super::ccd_iterations(m),
                m.opt.ccd_tolerance,
            );
        }
        for k in 0..cs.pre.len() {
            let pc = cs.pre[k];
            let ids = ([g as i32, -1], [-1, f as i32], [-1, e as i32], [-1, -1]);
            if !add_contact(m, d, &pc, &params, margin, ids) {
                return;
            }
        }
    }
}

/// Two elements (`mjc_ElemElem`); `self_pair` forces margin and gap to zero.
fn elem_elem(
    m: &Model,
    d: &mut Data,
    cs: &mut CollisionScratch,
    f1: usize,
    e1: usize,
    f2: usize,
    e2: usize,
) -> bool {
    let (margin, gap) = if f1 == f2 {
        (0.0, 0.0)
    } else {
        (
            assign_margin(m, m.flex_margin[f1] + m.flex_margin[f2]),
            m.flex_gap[f1] + m.flex_gap[f2],
        )
    };
    let mg = margin + gap;
    if !centred_overlap(&elem_aabb(d, m, f1, e1), &elem_aabb(d, m, f2, e2), mg) {
        return true;
    }
    let v1 = elem_verts(m, f1, e1);
    let v2 = elem_verts(m, f2, e2);
    let (a1, a2) = (m.flex_vertadr[f1] as usize, m.flex_vertadr[f2] as usize);
    for &x in v1 {
        let b1 = m.flex_vertbodyid[a1 + x as usize];
        if v2.iter().any(|&y| m.flex_vertbodyid[a2 + y as usize] == b1) {
            return true;
        }
    }
    cs.pre.clear();
    if m.flex_dim[f1] == 1 && m.flex_dim[f2] == 1 {
        let (p1, r1, s1) = elem_capsule(m, d, f1, e1);
        let (p2, r2, s2) = elem_capsule(m, d, f2, e2);
        capsule_capsule(&mut cs.pre, mg, &p1, &r1, &s1, &p2, &r2, &s2);
    } else {
        let a = elem_shape(m, d, f1, e1);
        let b = elem_shape(m, d, f2, e2);
        if separated_along_centres(&a, &b, mg + m.opt.ccd_tolerance) {
            return true;
        }
        convex::collide(
            &mut cs.epa,
            &mut cs.pre,
            mg,
            &a,
            &b,
            super::ccd_iterations(m),
            m.opt.ccd_tolerance,
        );
    }
    if cs.pre.is_empty() {
        return true;
    }
    let params = contact_param(m, -1, -1, f1 as i32, f2 as i32);
    for k in 0..cs.pre.len() {
        let pc = cs.pre[k];
        let ids = (
            [-1, -1],
            [f1 as i32, f2 as i32],
            [e1 as i32, e2 as i32],
            [-1, -1],
        );
        if !add_contact(m, d, &pc, &params, margin, ids) {
            return false;
        }
    }
    true
}

/// Whether two element shapes are farther apart than their radii plus `mg` along the line
/// through their vertex centroids: then the true distance exceeds that too. The caller adds
/// the CCD tolerance to the margin plus gap, so the shapes inflated by the margin are more
/// than the tolerance apart, where GJK's iterate (never shorter than the true distance) can
/// neither stop as touching nor start EPA, and the pair has no contact. The relative slack of
/// 1e-9 keeps rounding in these projections from rejecting a borderline pair.
fn separated_along_centres(a: &Shape, b: &Shape, mg: f64) -> bool {
    let (Core::Points { p: pa, n: na, .. }, Core::Points { p: pb, n: nb, .. }) = (&a.core, &b.core)
    else {
        return false;
    };
    let centroid = |p: &[Vec3; 4], n: usize| {
        let mut c = [0.0; 3];
        for q in &p[..n] {
            c = add3(&c, q);
        }
        scl3(&c, 1.0 / n as f64)
    };
    let ca = centroid(pa, *na);
    let u = sub3(&centroid(pb, *nb), &ca);
    let len = norm3(&u);
    if len.is_nan() || len <= 0.0 {
        return false;
    }
    let hi_a = pa[..*na]
        .iter()
        .map(|q| dot3(&sub3(q, &ca), &u))
        .fold(f64::NEG_INFINITY, f64::max);
    let lo_b = pb[..*nb]
        .iter()
        .map(|q| dot3(&sub3(q, &ca), &u))
        .fold(f64::INFINITY, f64::min);
    let thr = a.radius + b.radius + mg;
    lo_b - hi_a > (thr + 1e-9 * (len + thr.abs())) * len
}

/// Elements of two different flexes.
pub fn flex_flex(m: &Model, d: &mut Data, cs: &mut CollisionScratch, f1: usize, f2: usize) {
    let bvh = !m.opt.disabled(disable::MIDPHASE);
    for e1 in 0..m.flex_elemnum[f1] as usize {
        if bvh && !elem_active(m, f1, e1) {
            continue;
        }
        for e2 in 0..m.flex_elemnum[f2] as usize {
            if bvh && !elem_active(m, f2, e2) {
                continue;
            }
            if !elem_elem(m, d, cs, f1, e1, f2, e2) {
                return;
            }
        }
    }
}

fn elem_active(m: &Model, f: usize, e: usize) -> bool {
    m.flex_dim[f] < 3 || m.flex_elemlayer[m.flex_elemadr[f] as usize + e] < m.flex_activelayers[f]
}

/// Self-collision of the active elements of flex `f`: sweep and prune along the longest axis
/// of the flex's box, then the element test (adjacent elements share a vertex body and skip).
pub fn self_collide(m: &Model, d: &mut Data, cs: &mut CollisionScratch, f: usize) {
    let ne = m.flex_elemnum[f] as usize;
    let mut lo = [f64::INFINITY; 3];
    let mut hi = [f64::NEG_INFINITY; 3];
    for e in 0..ne {
        let b = elem_aabb(d, m, f, e);
        for k in 0..3 {
            lo[k] = crate::math::min(lo[k], b[k] - b[3 + k]);
            hi[k] = crate::math::max(hi[k], b[k] + b[3 + k]);
        }
    }
    let ext = [hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]];
    let axis = if ext[0] > ext[1] && ext[0] > ext[2] {
        0
    } else if ext[1] > ext[2] {
        1
    } else {
        2
    };
    let (ay, az) = match axis {
        0 => (1, 2),
        1 => (0, 2),
        _ => (0, 1),
    };
    let mut sap = std::mem::take(&mut cs.sap);
    let mut sbox = std::mem::take(&mut cs.sap_box);
    sap.clear();
    for e in 0..ne {
        if elem_active(m, f, e) {
            let b = elem_aabb(d, m, f, e);
            sap.push((b[axis] - b[3 + axis], b[axis] + b[3 + axis], e));
            // the same sums as `centred_overlap` (margin and gap are zero in self-collision),
            // so this prune rejects exactly the pairs `elem_elem`'s box test would
            sbox[e] = [
                b[ay] - b[3 + ay],
                b[ay] + b[3 + ay],
                b[az] - b[3 + az],
                b[az] + b[3 + az],
            ];
        }
    }
    // keys are distinct (element ids break ties), so the unstable sort gives the same order
    // without the stable sort's buffer allocation
    sap.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.2.cmp(&b.2)));
    'outer: for i in 0..sap.len() {
        let (_, hi_i, ei) = sap[i];
        let bi = sbox[ei];
        for &(lo_j, _, ej) in &sap[i + 1..] {
            if lo_j > hi_i {
                break;
            }
            let bj = &sbox[ej];
            if bi[1] < bj[0] || bj[1] < bi[0] || bi[3] < bj[2] || bj[3] < bi[2] {
                continue;
            }
            let (a, b) = if ei < ej { (ei, ej) } else { (ej, ei) };
            if !elem_elem(m, d, cs, f, a, f, b) {
                break 'outer;
            }
        }
    }
    cs.sap_box = sbox;
    cs.sap = sap;
}
