//! Plane against a convex mesh geom, as MuJoCo 3.15.0 collides them (`mjc_PlaneConvex` for
//! meshes): the mesh's deepest vertex below the plane, then more vertices of one polygon of
//! the hull, up to four contacts in all.
//!
//! The 3.15.0 rule, measured against MuJoCo (the source this port reads still walks the hull
//! graph for up to three contacts; 3.15.0 no longer does): of the polygons at the deepest
//! vertex, the one whose outward normal points most squarely into the plane; of its vertices,
//! those below the mesh centre (along the plane normal) and within the margin; more than four
//! of them are cut to the largest-area quadrilateral (`polygonQuad`); they follow the first
//! contact in the polygon's loop order from the vertex after the deepest. Each contact lies
//! halfway between its vertex and the plane, with the vertex's own distance.
//!
//! The deepest vertex is found by MuJoCo's libccd-style search (see
//! [`MeshData::ccd_support_index`]): exhaustive below 10 vertices, a climb from hull vertex 0
//! above, so among exactly equally deep vertices flexlab's hull-graph order can pick another
//! one; a polygon's loop may also start elsewhere than MuJoCo's, which matters only when more
//! than four of its vertices qualify and several quadrilaterals have the same largest area.

use super::meshsupport::MeshData;
use super::PreContact;
use crate::math::*;

/// Most contacts of one plane–mesh pair.
const MAX_PLANE_MESH: usize = 4;

/// A mesh's polygons for the plane test (`mesh_poly*` of one mesh; vertex ids and polygon
/// ids local to the mesh).
pub struct MeshPolys<'a> {
    pub normal: &'a [f64],
    pub vertadr: &'a [i32],
    pub vertnum: &'a [i32],
    pub vert: &'a [i32],
    pub mapadr: &'a [i32],
    pub mapnum: &'a [i32],
    pub map: &'a [i32],
}

/// Area of the quadrilateral a, b, c, d (`area4`).
fn area4(a: &Vec3, b: &Vec3, c: &Vec3, d: &Vec3) -> f64 {
    let ad = sub3(d, a);
    let db = sub3(b, d);
    let bc = sub3(c, b);
    let ca = sub3(a, c);
    let g = add3(&cross(&ad, &db), &cross(&bc, &ca));
    0.5 * dot3(&g, &g).sqrt()
}

/// Positions of the largest-area quadrilateral of the convex polygon of `n > 4` points
/// `p(0..n)` (`polygonQuad`).
fn polygon_quad(n: usize, p: impl Fn(usize) -> Vec3) -> [usize; 4] {
    let next = |i: usize| if i == n - 1 { 0 } else { i + 1 };
    let (mut b, mut c, mut d) = (1, 2, 3);
    let mut res = [0, 1, 2, 3];
    let mut m = area4(&p(0), &p(b), &p(c), &p(d));
    for a in 0..n {
        loop {
            let mn = area4(&p(a), &p(b), &p(c), &p(next(d)));
            if mn <= m {
                break;
            }
            m = mn;
            d = next(d);
            res = [a, b, c, d];
            loop {
                let mn = area4(&p(a), &p(b), &p(next(c)), &p(d));
                if mn <= m {
                    break;
                }
                m = mn;
                c = next(c);
                res = [a, b, c, d];
            }
            loop {
                let mn = area4(&p(a), &p(next(b)), &p(c), &p(d));
                if mn <= m {
                    break;
                }
                m = mn;
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

/// Appends the plane–mesh contacts (normal: the plane's z axis) within `margin` (m).
#[allow(clippy::too_many_arguments)]
pub fn plane_mesh(
    out: &mut Vec<PreContact>,
    margin: f64,
    pos1: &[f64],
    mat1: &[f64],
    pos2: &[f64],
    mat2: &[f64],
    mesh: &MeshData,
    polys: &MeshPolys,
    quad: &mut Vec<(usize, Vec3)>,
) {
    let normal = [mat1[2], mat1[5], mat1[8]];
    let dir = [-mat1[2], -mat1[5], -mat1[8]];
    let mut m2 = [0.0; 9];
    m2.copy_from_slice(mat2);
    let p1 = [pos1[0], pos1[1], pos1[2]];
    let p2 = [pos2[0], pos2[1], pos2[2]];
    let (best, _) = mesh.ccd_support_index(&m2, &dir);
    // mjccd_support adds local_dir·margin/2 with a zero margin, then rotates and shifts
    let l = mul_mat_t_vec3(&m2, &dir);
    let v = mesh.vertex(best);
    let v = [v[0] + l[0] * 0.0, v[1] + l[1] * 0.0, v[2] + l[2] * 0.0];
    let sp = add3(&mul_mat_vec3(&m2, &v), &p2);
    let dist = dot3(&normal, &sub3(&sp, &p1));
    if dist > margin {
        return;
    }
    let first = add3(&sp, &scl3(&normal, -0.5 * dist));
    out.push(PreContact::new(dist, first, normal));

    // the polygon at the deepest vertex that faces the plane most squarely
    let (ma, mn) = (polys.mapadr[best] as usize, polys.mapnum[best] as usize);
    let mut face = None;
    let mut best_dot = f64::INFINITY;
    for &pi in &polys.map[ma..ma + mn] {
        let pi = pi as usize;
        let ln = [
            polys.normal[3 * pi],
            polys.normal[3 * pi + 1],
            polys.normal[3 * pi + 2],
        ];
        let d = dot3(&mul_mat_vec3(&m2, &ln), &normal);
        if d < best_dot {
            best_dot = d;
            face = Some(pi);
        }
    }
    let Some(face) = face else {
        return;
    };
    // its vertices below the mesh centre and within the margin, in loop order
    let threshold = dot3(&normal, &sub3(&p2, &p1)) - margin;
    let adr = polys.vertadr[face] as usize;
    let num = polys.vertnum[face] as usize;
    let lp = &polys.vert[adr..adr + num];
    quad.clear();
    let mut at = 0;
    for (k, &gi) in lp.iter().enumerate() {
        let vl = mesh.vertex(gi as usize);
        let vdot = l[0] * vl[0] + l[1] * vl[1] + l[2] * vl[2];
        if gi as usize == best {
            at = k;
        }
        if vdot > 0.0 && vdot > threshold {
            quad.push((k, add3(&mul_mat_vec3(&m2, &vl), &p2)));
        }
    }
    if quad.len() > MAX_PLANE_MESH {
        // more than four: keep the largest-area quadrilateral of them, in loop order
        let q = polygon_quad(quad.len(), |i| quad[i].1);
        let keep = [quad[q[0]], quad[q[1]], quad[q[2]], quad[q[3]]];
        quad.clear();
        quad.extend_from_slice(&keep);
    }
    // the kept vertices in loop order from the one after the deepest
    for step in 1..num {
        if out.len() >= MAX_PLANE_MESH {
            break;
        }
        let k = (at + step) % num;
        if let Some(&(_, pnt)) = quad.iter().find(|q| q.0 == k) {
            let dist = dot3(&normal, &sub3(&pnt, &p1));
            let pos = add3(&pnt, &scl3(&normal, -0.5 * dist));
            out.push(PreContact::new(dist, pos, normal));
        }
    }
}
