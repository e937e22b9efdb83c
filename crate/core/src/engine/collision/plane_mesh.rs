//! Plane against a convex mesh geom, as MuJoCo 3.15.0 collides them (`mjc_PlaneConvex` for
//! meshes): the mesh's deepest vertex below the plane, then more vertices of one polygon of
//! the hull, up to four contacts in all.
//!
//! The 3.15.0 rule, measured against MuJoCo (the source this port reads still walks the hull
//! graph for up to three contacts; 3.15.0 no longer does): of the polygons at the deepest
//! vertex, the one whose outward normal points most squarely into the plane; of its vertices,
//! those below the mesh centre (along the plane normal) and within the margin; they follow the
//! first contact in the polygon's loop order from the vertex after the deepest. Which of a
//! face's vertices 3.15.0 keeps when more than four qualify was not pinned down, so meshes with
//! such faces are refused before stepping (`check_supported`) and a face here has at most four. Each contact lies
//! halfway between its vertex and the plane, with the vertex's own distance.
//!
//! The deepest vertex is found by MuJoCo's libccd-style search (see
//! [`MeshData::ccd_support_index`]): exhaustive below 10 vertices, a climb from hull vertex 0
//! above, so among exactly equally deep vertices flexlab's hull-graph order can pick another
//! one; a polygon's loop may also start elsewhere than MuJoCo's, which does not change which
//! vertices of a face of at most four become contacts.

use super::meshsupport::MeshData;
use super::PreContact;
use crate::math::*;

/// Most contacts of one plane–mesh pair.
const MAX_PLANE_MESH: usize = 4;

/// A mesh's polygons for the plane test (`mesh_poly*` of one mesh; vertex ids and polygon
/// ids local to the mesh).
#[derive(Debug, Clone, Copy)]
pub struct MeshPolys<'a> {
    pub normal: &'a [f64],
    pub vertadr: &'a [i32],
    pub vertnum: &'a [i32],
    pub vert: &'a [i32],
    pub mapadr: &'a [i32],
    pub mapnum: &'a [i32],
    pub map: &'a [i32],
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
) {
    let normal = [mat1[2], mat1[5], mat1[8]];
    let dir = [-mat1[2], -mat1[5], -mat1[8]];
    let mut m2 = [0.0; 9];
    m2.copy_from_slice(mat2);
    let p1 = [pos1[0], pos1[1], pos1[2]];
    let p2 = [pos2[0], pos2[1], pos2[2]];
    // mjccd_support adds local_dir·margin/2 with a zero margin, then rotates and shifts
    let l = mul_mat_t_vec3(&m2, &dir);
    let best = mesh.ccd_support_index(&l);
    let v = mesh.vertex(best);
    let v = [v[0] + l[0] * 0.0, v[1] + l[1] * 0.0, v[2] + l[2] * 0.0];
    let sp = add3(&mul_mat_vec3(&m2, &v), &p2);
    let dist = dot3(&normal, &sub3(&sp, &p1));
    if dist > margin {
        return;
    }
    let base = out.len();
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
    // the kept vertices in loop order from the one after the deepest
    let at = lp.iter().position(|&v| v as usize == best).unwrap_or(0);
    for step in 1..num {
        if out.len() - base >= MAX_PLANE_MESH {
            break;
        }
        let vl = mesh.vertex(lp[(at + step) % num] as usize);
        let vdot = l[0] * vl[0] + l[1] * vl[1] + l[2] * vl[2];
        if vdot > 0.0 && vdot > threshold {
            let pnt = add3(&mul_mat_vec3(&m2, &vl), &p2);
            let dist = dot3(&normal, &sub3(&pnt, &p1));
            let pos = add3(&pnt, &scl3(&normal, -0.5 * dist));
            out.push(PreContact::new(dist, pos, normal));
        }
    }
}
