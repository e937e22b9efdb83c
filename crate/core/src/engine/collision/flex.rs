//! Flex narrow phases (MuJoCo's `engine_collision_flex.c` and the flex parts of the driver):
//! plane against every vertex, other geoms against each element (analytic for spheres,
//! capsules and boxes against triangles and segments, GJK/EPA otherwise), element pairs of two
//! flexes, and self-collision of a flex's active elements (hierarchy, sweep and prune, or all
//! pairs, as the flex's `selfcollide` says).

use super::convex::{self, Core, Shape};
use super::primitive::*;
use super::{
    add_contact, assign_margin, contact_param, geom, CollisionScratch, PreContact, MAX_CON_PAIR,
};
use crate::data::Data;
use crate::engine::bodybvh::{obb_overlap, Obb};
use crate::math::*;
use crate::model::{disable, flexself, Model};

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

/// Whether geom `g`'s oriented box (`geom_aabb` in its frame) and an element's box `b`
/// (world-aligned centre and half sizes) overlap within `margin`: the walk's test of a geom leaf
/// and an element leaf. A contact of the analytic box and capsule tests can lie outside the
/// boxes (a triangle vertex past a box edge within the flex radius), and then this test decides
/// whether it exists.
fn geom_elem_overlap(m: &Model, d: &Data, g: usize, b: &[f64; 6], margin: f64) -> bool {
    let geom_box = Obb {
        aabb: &m.geom_aabb[6 * g..6 * g + 6],
        pos: &d.a.geom_xpos[3 * g..3 * g + 3],
        mat: &d.a.geom_xmat[9 * g..9 * g + 9],
    };
    obb_overlap(&geom_box, b, margin)
}

/// The elements of flex `f` that MuJoCo's body–flex walk (`mj_collideTree`) brings to the
/// narrow phase against geom `g` of body `b`, marked in `reach`: the walk of the body's geom
/// hierarchy against the flex's element hierarchy (node boxes `boxes`), followed only along
/// geom `g`'s ancestors, with inner node pairs pruned by oriented boxes within the body's
/// margin plus the flex's margin (not the flex's gap). The geom–element leaf tests stay in
/// [`geom_flex`].
#[allow(clippy::too_many_arguments)]
#[inline(never)]
pub fn walk_reach(
    m: &Model,
    d: &Data,
    boxes: &[[f64; 6]],
    b: usize,
    g: usize,
    f: usize,
    stack: &mut Vec<[u32; 2]>,
    reach: &mut [bool],
) {
    reach.fill(false);
    let (bt, ft) = (&m.body_tree[b], &m.flex_tree[f]);
    let Some(leaf) = bt.nodeid.iter().position(|&x| x == g as i32) else {
        return;
    };
    let margin = assign_margin(m, bt.margin + m.flex_margin[f]);
    let (xipos, ximat) = (&d.a.xipos[3 * b..3 * b + 3], &d.a.ximat[9 * b..9 * b + 9]);
    stack.clear();
    stack.push([0, 0]);
    while let Some([n1, n2]) = stack.pop() {
        let (n1, n2) = (n1 as usize, n2 as usize);
        let leaf1 = bt.child[n1] == [-1, -1];
        let leaf2 = ft.child[n2] == [-1, -1];
        if leaf1 && leaf2 {
            reach[ft.nodeid[n2] as usize] = true;
            continue;
        }
        let body_box = Obb {
            aabb: &bt.aabb[n1],
            pos: xipos,
            mat: ximat,
        };
        if !obb_overlap(&body_box, &boxes[n2], margin) {
            continue;
        }
        if split_first(leaf1, leaf2, &bt.aabb[n1], &boxes[n2]) {
            // only the child on the way to the geom's leaf (subtrees are contiguous)
            for c in bt.child[n1] {
                if c != -1 && (c as usize..c as usize + bt.size[c as usize]).contains(&leaf) {
                    stack.push([c as u32, n2 as u32]);
                }
            }
        } else {
            for c in ft.child[n2] {
                if c != -1 {
                    stack.push([n1 as u32, c as u32]);
                }
            }
        }
    }
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
///
/// `reach` (one flag per element), when the body–flex walk ran, marks the elements whose node
/// pairs with the geom's ancestors all passed the walk's inner tests ([`walk_reach`]); the
/// others never reach the narrow phase.
#[inline(never)]
pub fn geom_flex(
    m: &Model,
    d: &mut Data,
    cs: &mut CollisionScratch,
    g: usize,
    f: usize,
    reach: Option<&[bool]>,
) {
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
    let walk = walkable(m, f);
    // only the active (outer-layer) elements of a 3D flex: those the midphase's hierarchy
    // holds, and with midphase disabled MuJoCo 3.15.0 leaves the others out too (checked
    // against it: a sphere pressed into a tet box touched interior tets only in flexlab)
    for e in 0..m.flex_elemnum[f] as usize {
        if !elem_active(m, f, e) || reach.is_some_and(|r| !r[e]) {
            continue;
        }
        let ebox = elem_aabb(d, m, f, e);
        if !centred_overlap(&gbox, &ebox, 0.0) {
            continue;
        }
        // the hierarchy's leaf test (with midphase disabled MuJoCo has the first test only).
        // Only the box–triangle test can make a contact outside the two boxes (a vertex past
        // a box edge within the flex radius of a face's plane); every other narrow phase finds
        // none where this test fails, so it is skipped for them (it showed in the draped
        // cloth's profile)
        if walk && t == geom::BOX && dim == 2 && !geom_elem_overlap(m, d, g, &ebox, mg) {
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
    // interpolated flexes have no vertex bodies (-1): those vertices never share one
    for &x in v1 {
        let b1 = m.flex_vertbodyid[a1 + x as usize];
        if b1 >= 0 && v2.iter().any(|&y| m.flex_vertbodyid[a2 + y as usize] == b1) {
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

/// Elements of two different flexes: the walk of their hierarchies, or with midphase disabled
/// every pair of active elements in index order. MuJoCo 3.15.0 leaves out the inactive
/// elements of a 3D flex there too (checked against it: a tet box's interior tets made contacts
/// with a cloth that MuJoCo's list never has). Returns whether the hierarchies were walked (the
/// caller then sorts the contacts, as after a self-collision walk).
pub fn flex_flex(m: &Model, d: &mut Data, cs: &mut CollisionScratch, f1: usize, f2: usize) -> bool {
    if walkable(m, f1) && walkable(m, f2) {
        tree_walk(m, d, cs, f1, f2);
        return true;
    }
    for e1 in 0..m.flex_elemnum[f1] as usize {
        if !elem_active(m, f1, e1) {
            continue;
        }
        for e2 in 0..m.flex_elemnum[f2] as usize {
            if !elem_active(m, f2, e2) {
                continue;
            }
            if !elem_elem(m, d, cs, f1, e1, f2, e2) {
                return false;
            }
        }
    }
    false
}

/// Whether the midphase walks flex `f`'s hierarchy: midphase enabled and the hierarchy not
/// empty (MuJoCo's `flex_bvhadr >= 0`).
pub(crate) fn walkable(m: &Model, f: usize) -> bool {
    !m.opt.disabled(disable::MIDPHASE) && !m.flex_tree[f].child.is_empty()
}

fn elem_active(m: &Model, f: usize, e: usize) -> bool {
    m.flex_dim[f] < 3 || m.flex_elemlayer[m.flex_elemadr[f] as usize + e] < m.flex_activelayers[f]
}

/// Self-collision of flex `f` (the self part of MuJoCo's collision driver). The element pairs
/// come from the flex's hierarchy (`bvh`, and `auto` on a 3D flex: `mj_collideTree`), a sweep
/// and prune (`sap`, and `auto` below 3D: `mj_collideFlexSAP`) or every pair of active elements
/// (`narrow`, midphase disabled, or no hierarchy), each in the order and orientation MuJoCo
/// visits them: the element test is not symmetric (its first element is GJK's first shape, and
/// the contact's normal points from it) and the contact order is the constraint rows' order.
/// Returns whether the hierarchy was walked.
pub fn self_collide(m: &Model, d: &mut Data, cs: &mut CollisionScratch, f: usize) -> bool {
    let mode = m.flex_selfcollide[f];
    if mode != flexself::NARROW && walkable(m, f) {
        if mode == flexself::BVH || (mode == flexself::AUTO && m.flex_dim[f] == 3) {
            tree_walk(m, d, cs, f, f);
            return true;
        }
        self_sap(m, d, cs, f);
        return false;
    }
    let ne = m.flex_elemnum[f] as usize;
    for e1 in (0..ne).filter(|&e| elem_active(m, f, e)) {
        for e2 in (e1 + 1..ne).filter(|&e| elem_active(m, f, e)) {
            if !elem_elem(m, d, cs, f, e1, f, e2) {
                return false;
            }
        }
    }
    false
}

/// Which node of a pair `mj_collideTree` splits: the inner one when the other is a leaf, else
/// the first when its box's "surface area" is larger. MuJoCo computes that area with the centre
/// where the lower corner would be; the expression only orders the split, and the same one
/// keeps the same order of pairs.
fn split_first(leaf1: bool, leaf2: bool, b1: &[f64; 6], b2: &[f64; 6]) -> bool {
    if leaf1 != leaf2 {
        return leaf2;
    }
    let surface = |b: &[f64; 6]| {
        let (x, y, z) = (b[3] - b[0], b[4] - b[1], b[5] - b[2]);
        x * y + y * z + z * x
    };
    surface(b1) > surface(b2)
}

/// Two flexes' hierarchies against each other, or a flex's against itself (`f1 == f2`), as
/// `mj_collideTree`: a stack of node pairs from the root pair (node1 ≤ node2 for itself), the
/// node with the larger "surface" split first, inner nodes pruned by their boxes within the
/// flexes' margin alone. The leaves' element test also counts the gap, so a pair in the gap
/// band whose ancestors part by more than the margin is never tested, as in MuJoCo.
fn tree_walk(m: &Model, d: &mut Data, cs: &mut CollisionScratch, f1: usize, f2: usize) {
    let (t1, t2) = (&m.flex_tree[f1], &m.flex_tree[f2]);
    let mut boxes1 = std::mem::take(&mut cs.bvh_box);
    let mut boxes2 = std::mem::take(&mut cs.bvh_box2);
    let mut stack = std::mem::take(&mut cs.pair_stack);
    for (f, tree, boxes) in [(f1, t1, &mut boxes1), (f2, t2, &mut boxes2)] {
        let (ea, en) = (m.flex_elemadr[f] as usize, m.flex_elemnum[f] as usize);
        super::super::flexbvh::node_boxes(tree, &d.a.flexelem_aabb[6 * ea..6 * (ea + en)], boxes);
    }
    // not zeroed for self-collision (the element test zeroes it there)
    let margin = assign_margin(m, m.flex_margin[f1] + m.flex_margin[f2]);
    stack.clear();
    stack.push([0, 0]);
    while let Some([n1, n2]) = stack.pop() {
        let (n1, n2) = (n1 as usize, n2 as usize);
        if f1 == f2 && n1 > n2 {
            continue;
        }
        let leaf1 = t1.child[n1] == [-1, -1];
        let leaf2 = t2.child[n2] == [-1, -1];
        if leaf1 && leaf2 {
            let (e1, e2) = (t1.nodeid[n1] as usize, t2.nodeid[n2] as usize);
            if !elem_elem(m, d, cs, f1, e1, f2, e2) {
                break;
            }
            continue;
        }
        if !centred_overlap(&boxes1[n1], &boxes2[n2], margin) {
            continue;
        }
        if split_first(leaf1, leaf2, &boxes1[n1], &boxes2[n2]) {
            for c in t1.child[n1] {
                if c != -1 {
                    stack.push([c as u32, n2 as u32]);
                }
            }
        } else {
            for c in t2.child[n2] {
                if c != -1 {
                    stack.push([n1 as u32, c as u32]);
                }
            }
        }
    }
    cs.bvh_box = boxes1;
    cs.bvh_box2 = boxes2;
    cs.pair_stack = stack;
}

/// The sweep's sort key of a box end: the value rounded to `f32` as MuJoCo sorts it, as an
/// integer in the same order (-0 and +0 equal, as C compares them), so the sweep and the
/// contact sort share one sort. A NaN (a state already diverged) sorts after every number
/// rather than where MuJoCo's comparison leaves it.
fn sweep_key(x: f64) -> u64 {
    let bits = ((x as f32) + 0.0).to_bits();
    u64::from(if bits >> 31 == 1 {
        !bits
    } else {
        bits | 1 << 31
    })
}

/// MuJoCo's `mj_SAP` over the active elements (`mj_collideFlexSAP`): element boxes projected
/// on the longest axis of the hierarchy's root box, rounded to `f32` and sorted stably (equal
/// values, -0 and +0 among them, keep the order min₀, max₀, min₁, …); each element that starts
/// is paired with the elements still open, in the order they opened, unless the two boxes part
/// on another axis.
/// At most a million pairs, as MuJoCo.
fn self_sap(m: &Model, d: &mut Data, cs: &mut CollisionScratch, f: usize) {
    let tree = &m.flex_tree[f];
    let (ea, en) = (m.flex_elemadr[f] as usize, m.flex_elemnum[f] as usize);
    let mut elem = std::mem::take(&mut cs.sap_elem);
    let mut key = std::mem::take(&mut cs.sort_key);
    let mut buf = std::mem::take(&mut cs.sort_buf);
    let mut open = std::mem::take(&mut cs.sap_open);
    let mut sbox = std::mem::take(&mut cs.sap_box);
    elem.clear();
    elem.extend((0..en as u32).filter(|&e| elem_active(m, f, e as usize)));
    let n = elem.len();
    // MuJoCo's sweep packs two element indices in an int and stops with "SAP failed" from
    // 65536 active elements; the compiler refuses such a flex in this mode
    if (2..0x10000).contains(&n) {
        super::super::flexbvh::node_boxes(
            tree,
            &d.a.flexelem_aabb[6 * ea..6 * (ea + en)],
            &mut cs.bvh_box,
        );
        let root = &cs.bvh_box[0];
        let axis = if root[3] > root[4] && root[3] > root[5] {
            0
        } else if root[4] > root[5] {
            1
        } else {
            2
        };
        let (ay, az) = match axis {
            0 => (1, 2),
            1 => (0, 2),
            _ => (0, 1),
        };
        key.clear();
        for (i, &e) in elem.iter().enumerate() {
            let b = elem_aabb(d, m, f, e as usize);
            key.push((sweep_key(b[axis] - b[3 + axis]), 2 * i as u32));
            key.push((sweep_key(b[axis] + b[3 + axis]), 2 * i as u32 + 1));
            sbox[i] = [
                b[ay] - b[3 + ay],
                b[ay] + b[3 + ay],
                b[az] - b[3 + az],
                b[az] + b[3 + az],
            ];
        }
        buf.clear();
        buf.resize(key.len(), (0, 0));
        crate::engine::sort::merge_sort(&mut key, &mut buf, |a, b| a.0 <= b.0);
        let maxpair = (n * (n - 1) / 2).min(1_000_000);
        let mut npair = 0;
        open.clear();
        'sweep: for &(_, code) in key.iter() {
            let i = code >> 1;
            if code & 1 == 1 {
                if let Some(k) = open.iter().position(|&j| j == i) {
                    open.remove(k);
                }
                continue;
            }
            let bi = sbox[i as usize];
            for &j in open.iter() {
                let bj = &sbox[j as usize];
                if bj[0] > bi[1] || bi[0] > bj[1] || bj[2] > bi[3] || bi[2] > bj[3] {
                    continue;
                }
                let (e1, e2) = (elem[j as usize] as usize, elem[i as usize] as usize);
                if !elem_elem(m, d, cs, f, e1, f, e2) {
                    break 'sweep;
                }
                npair += 1;
                if npair >= maxpair {
                    break 'sweep;
                }
            }
            open.push(i);
        }
    }
    cs.sap_elem = elem;
    cs.sort_key = key;
    cs.sort_buf = buf;
    cs.sap_open = open;
    cs.sap_box = sbox;
}

#[cfg(test)]
mod tests {
    use super::sweep_key;

    /// The sweep key orders box ends as their `f32` values, -0 equal to +0.
    #[test]
    fn sweep_keys_order_as_f32() {
        let xs = [-3.0, -1e-30, -0.0, 0.0, 1e-30, 2.5, 1e30];
        for w in xs.windows(2) {
            assert!(sweep_key(w[0]) <= sweep_key(w[1]), "{w:?}");
        }
        assert_eq!(sweep_key(-0.0), sweep_key(0.0));
        // values equal in f32 tie, as MuJoCo's f32 comparison has them
        assert_eq!(sweep_key(1.0), sweep_key(1.0 + 1e-12));
        assert!(sweep_key(-1.0) < sweep_key(-0.5));
    }
}
