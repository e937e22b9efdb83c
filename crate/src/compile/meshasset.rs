//! Mesh assets as MuJoCo 3.15.0 compiles them (`mjCMesh::TryCompile` and `Process`): the
//! vertices as 32-bit floats (from OBJ, inline, or marching cubes of an SDF plugin), scaled,
//! their volume (or area), centre of mass and principal inertia computed from the triangles,
//! then moved to that centre and rotated onto the principal axes; the mesh geoms absorb that
//! frame. `inertia="convex"` integrates over the convex hull ([`super::hull`]); meshes without
//! faces (which MuJoCo gives the hull's triangles in qhull's order) are refused as not supported.

use super::marching_cubes::marching_cubes;
use crate::error::{Error, Result};
use crate::math;
use crate::spec::{MeshInertia, MeshSpec, Spec};

/// Relative tolerance of a mesh's principal axes (MuJoCo 3.15.0's `mjCMesh::Process` passes
/// 1e-7 to `mjuu_eig3`).
const MESH_EIG_TOL: f64 = 1e-7;

/// A compiled mesh asset.
#[derive(Debug, Clone)]
pub struct CMesh {
    /// Vertices in the mesh's inertial frame (m), stored as MuJoCo stores them (f32).
    pub vert: Vec<f32>,
    /// Triangles (vertex indices, three per face).
    pub face: Vec<i32>,
    /// Offset of the inertial frame in the asset's frame (m) (`mesh_pos`).
    pub pos: [f64; 3],
    /// Rotation of the inertial frame in the asset's frame (`mesh_quat`).
    pub quat: [f64; 4],
    /// Axis-aligned bounds of the vertices in the inertial frame (m): min xyz, max xyz.
    pub aamm: [f64; 6],
    /// Half-sizes of the box with the same inertia per unit density (m).
    pub boxsz: [f64; 3],
    /// Volume (m³), or surface area (m²) for `inertia="shell"`.
    pub volume: f64,
    /// SDF plugin instance that made the mesh.
    pub plugin: Option<usize>,
    /// The convex-hull graph of the mesh (`mesh_graph`, see [`super::hullgraph`]), empty
    /// without a hull.
    pub graph: Vec<i32>,
    /// The hull's polygons (`mesh_poly*`, see [`super::meshpoly`]), empty without a hull.
    pub poly: super::meshpoly::Polygons,
    /// Unit normal of each polygon in the inertial frame (`mesh_polynormal`).
    pub polynormal: Vec<f64>,
}

/// MuJoCo's `triangle`: area, unit normal and centroid of one triangle (area 0 and a
/// non-normalised normal when degenerate, as MuJoCo skips normalising them).
pub(super) fn triangle(a: &[f64], b: &[f64], c: &[f64]) -> (f64, [f64; 3], [f64; 3]) {
    let center = [
        (a[0] + b[0] + c[0]) / 3.0,
        (a[1] + b[1] + c[1]) / 3.0,
        (a[2] + b[2] + c[2]) / 3.0,
    ];
    let e1 = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
    let e2 = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
    let mut n = math::cross(&e1, &e2);
    let len = math::dot3(&n, &n).sqrt();
    if len < math::MINVAL {
        return (0.0, n, center);
    }
    n = [n[0] / len, n[1] / len, n[2] / len];
    (0.5 * len, n, center)
}

/// The vertices an SDF plugin instance makes (MuJoCo's `LoadSDF`): the distance sampled
/// on a grid of about 300 points across the summed half-extents of the plugin's box, meshed by
/// marching cubes, mapped back to metres and rounded to f32.
fn sdf_mesh(spec: &Spec, mesh: &MeshSpec, inst: usize) -> std::result::Result<MeshData, Error> {
    let err = |msg: String| Error::compile(msg).at_element("mesh").at_line(mesh.line);
    let p = &spec.plugins[inst];
    if mesh.scale != [1.0; 3] {
        return Err(err(format!(
            "attribute scale is not compatible with SDFs in mesh '{}'",
            mesh.name
        )));
    }
    if !spec.extensions.contains(&p.plugin) {
        return Err(err(format!("unrecognized plugin '{}'", p.plugin)));
    }
    if p.plugin != crate::engine::sdf::TORUS_PLUGIN {
        return Err(err(format!(
            "plugin '{}' does not support signed distance fields",
            p.plugin
        )));
    }
    let torus = crate::engine::sdf::Torus::from_config(&p.config, crate::decimal::parse_f64)
        .map_err(err)?;
    let aabb = torus.aabb();
    let total = aabb[3] + aabb[4] + aabb[5];
    let n = 300.0;
    let count = |h: f64| -> std::result::Result<usize, Error> {
        let c = (n / total * h).floor() + 1.0;
        // a non-positive or huge extent has no grid MuJoCo could sample either
        if !(2.0..=1e4).contains(&c) {
            return Err(err(format!(
                "SDF grid of mesh '{}' is degenerate",
                mesh.name
            )));
        }
        Ok(c as usize)
    };
    let (nx, ny, nz) = (count(aabb[3])?, count(aabb[4])?, count(aabb[5])?);
    let coord = |axis: usize, t: f64, cnt: usize| {
        aabb[axis] - aabb[axis + 3] + 2.0 * aabb[axis + 3] * t / (cnt - 1) as f64
    };
    let mut field = vec![0f32; nx * ny * nz];
    for i in 0..nx {
        for j in 0..ny {
            for k in 0..nz {
                let p = [
                    coord(0, i as f64, nx),
                    coord(1, j as f64, ny),
                    coord(2, k as f64, nz),
                ];
                field[(k * ny + j) * nx + i] = torus.distance(&p) as f32;
            }
        }
    }
    let iso = marching_cubes(&field, nx, ny, nz);
    let cnt = [nx, ny, nz];
    let vert: Vec<f64> = iso
        .vert
        .chunks(3)
        .flat_map(|v| {
            // MuJoCo's expression order: 2·h·v/(n−1) + c − h, in double, then to float
            (0..3).map(move |a| {
                let h = aabb[a + 3];
                (2.0 * h * v[a] as f64 / (cnt[a] - 1) as f64 + aabb[a] - h) as f32 as f64
            })
        })
        .collect();
    let face = iso.face.iter().map(|&i| i as i32).collect();
    Ok((vert, face))
}

type MeshData = (Vec<f64>, Vec<i32>);

/// Compiles mesh asset `mi`; `needhull` says a collision geom uses it (MuJoCo then builds
/// the convex hull, whose degenerate-input checks are made here too).
pub fn compile_mesh(spec: &Spec, mi: usize, needhull: bool) -> Result<CMesh> {
    let mesh = &spec.meshes[mi];
    let err = |msg: String| {
        let mut e = Error::compile(msg).at_element("mesh").at_object(&mesh.name);
        if mesh.line > 0 {
            e = e.at_line(mesh.line);
        }
        e
    };
    let unsupported = |what: &str| {
        Error::unsupported(format!("{what} is not supported by flexlab yet"))
            .at_element("mesh")
            .at_object(&mesh.name)
            .at_line(mesh.line)
    };
    let (mut dvert, mut face) = match mesh.plugin {
        Some(inst) if mesh.file.is_empty() => sdf_mesh(spec, mesh, inst)?,
        _ => {
            // inline vertices are floats in MuJoCo's spec; OBJ ones already are
            let v = mesh.vert.iter().map(|&x| x as f32 as f64).collect();
            (v, mesh.face.clone())
        }
    };
    let reorient = mesh.plugin.is_none() || !mesh.file.is_empty();
    if let Some(i) = dvert.iter().position(|x| !x.is_finite()) {
        return Err(err(format!("vertex coordinate {} is not finite", i / 3)));
    }
    // CheckInitialMesh
    if dvert.len() < 12 {
        return Err(err("at least 4 vertices required".into()));
    }
    if dvert.len() % 3 != 0 {
        return Err(err("vertex data must be a multiple of 3".into()));
    }
    if face.len() % 3 != 0 {
        return Err(err("face data must be a multiple of 3".into()));
    }
    let nv = dvert.len() / 3;
    for (i, &f) in face.iter().enumerate() {
        if f < 0 || f as usize >= nv {
            return Err(err(format!(
                "in face {}, vertex index {f} does not exist",
                i / 3
            )));
        }
    }
    let v = |d: &[f64], i: i32| -> [f64; 3] {
        let i = i as usize;
        [d[3 * i], d[3 * i + 1], d[3 * i + 2]]
    };

    // half-edges of the non-degenerate faces: a repeated one means two faces disagree
    let mut halfedge: Vec<(i32, i32)> = Vec::new();
    for t in face.chunks(3) {
        let (a, _, _) = triangle(&v(&dvert, t[0]), &v(&dvert, t[1]), &v(&dvert, t[2]));
        if a > math::MINVAL.sqrt() {
            halfedge.extend_from_slice(&[(t[0], t[1]), (t[1], t[2]), (t[2], t[0])]);
        }
    }
    crate::sort::sort(&mut halfedge);
    if mesh.inertia == MeshInertia::Exact {
        if let Some(w) = halfedge.windows(2).find(|w| w[0] == w[1]) {
            return Err(err(format!(
                "faces of mesh '{}' have inconsistent orientation. Please check the faces \
                 containing the vertices {} and {}.",
                mesh.name,
                w[0].0 + 1,
                w[0].1 + 1
            )));
        }
    }
    if needhull || face.is_empty() || mesh.inertia == MeshInertia::Convex {
        hull_input_checks(&dvert, &mesh.name).map_err(err)?;
    }
    if face.is_empty() {
        // MuJoCo then takes qhull's triangles as the faces (every vertex stays in mesh_vert).
        // flexlab's hull has the same triangles up to their order and the diagonals it picks
        // across coplanar facets; volume, centre and inertia do not depend on either.
        face = super::hull::convex_hull(&dvert)
            .ok_or_else(|| err("qhull error".into()))?
            .iter()
            .flat_map(|t| t.map(|i| i as i32))
            .collect();
    }

    // a mirroring scale flips the winding so the faces stay outward
    let scale = mesh.scale;
    if scale[0] * scale[1] * scale[2] <= 0.0 {
        for t in face.chunks_mut(3) {
            t.swap(1, 2);
        }
    }
    // the user's frame: shift to refpos, turn by refquat, then scale
    if mesh.refpos != [0.0; 3] {
        for p in dvert.chunks_mut(3) {
            for k in 0..3 {
                p[k] -= mesh.refpos[k];
            }
        }
    }
    // then turn by refquat's inverse (mjuu_mulvecmatT with its normalized matrix)
    if let Some(q) = mesh.refquat.filter(|q| *q != [1.0, 0.0, 0.0, 0.0]) {
        let mut q = q;
        super::orient::normvec(&mut q);
        let r = math::quat_to_mat(&q);
        for p in dvert.chunks_mut(3) {
            let v = [p[0], p[1], p[2]];
            p[0] = r[0] * v[0] + r[3] * v[1] + r[6] * v[2];
            p[1] = r[1] * v[0] + r[4] * v[1] + r[7] * v[2];
            p[2] = r[2] * v[0] + r[5] * v[1] + r[8] * v[2];
        }
    }
    if scale != [1.0; 3] {
        for p in dvert.chunks_mut(3) {
            for k in 0..3 {
                p[k] *= scale[k];
            }
        }
    }

    // convex inertia integrates over the hull, outward in the scaled frame (a mirroring
    // scale keeps MuJoCo's convex volume positive)
    let hull: Vec<i32> = if needhull || mesh.inertia == MeshInertia::Convex {
        if mesh.maxhullvert > -1 {
            // qhull's partial hull (options Q9 TA) is not reproduced
            return Err(unsupported("maxhullvert (a partial convex hull)"));
        }
        super::hull::convex_hull(&dvert)
            .ok_or_else(|| err("qhull error".into()))?
            .iter()
            .flat_map(|t| t.map(|i| i as i32))
            .collect()
    } else {
        Vec::new()
    };
    let graph = if hull.is_empty() {
        Vec::new()
    } else {
        super::hullgraph::hull_graph(nv, &hull)
    };
    // without a hull: no loops, an empty map entry per vertex
    let poly = super::meshpoly::polygons(&dvert, &hull);
    let hull = if mesh.inertia == MeshInertia::Convex {
        hull
    } else {
        Vec::new()
    };

    // area-weighted centroid of the faces: the apex of the volume pyramids
    let mut facecen = [0.0; 3];
    let mut total_area = 0.0;
    for t in face.chunks(3) {
        let (a, _, c) = triangle(&v(&dvert, t[0]), &v(&dvert, t[1]), &v(&dvert, t[2]));
        for k in 0..3 {
            facecen[k] += a * c[k];
        }
        total_area += a;
    }
    if total_area >= math::MINVAL {
        for x in &mut facecen {
            *x /= total_area;
        }
    } else {
        return Err(err(format!(
            "mesh surface area is too small: {}",
            mesh.name
        )));
    }

    // centre of mass and volume (or area) from pyramids on the faces
    let shell = mesh.inertia == MeshInertia::Shell;
    let legacy = mesh.inertia == MeshInertia::Legacy;
    let solid = if hull.is_empty() { &face } else { &hull };
    let mut com = [0.0; 3];
    let mut total = 0.0;
    for t in solid.chunks(3) {
        let (area, n, c) = triangle(&v(&dvert, t[0]), &v(&dvert, t[1]), &v(&dvert, t[2]));
        let w = if shell {
            area
        } else {
            let vec = [c[0] - facecen[0], c[1] - facecen[1], c[2] - facecen[2]];
            let vol = math::dot3(&vec, &n) * area / 3.0;
            if legacy {
                vol.abs()
            } else {
                vol
            }
        };
        total += w;
        for k in 0..3 {
            com[k] += w * (c[k] * 3.0 / 4.0 + facecen[k] / 4.0);
        }
    }
    if total >= math::MINVAL {
        for x in &mut com {
            *x /= total;
        }
    }
    if total < math::MINVAL {
        return Err(err(if shell {
            format!("mesh surface area is too small: {}", mesh.name)
        } else if total < 0.0 {
            format!(
                "mesh volume is negative (misoriented triangles): {}",
                mesh.name
            )
        } else {
            format!(
                "mesh volume is too small: {} . Try setting inertia to shell",
                mesh.name
            )
        }));
    }

    // products of inertia about the centre of mass (unit density), volume recomputed
    let centered: Vec<f64> = dvert
        .chunks(3)
        .flat_map(|p| [p[0] - com[0], p[1] - com[1], p[2] - com[2]])
        .collect();
    const K: [[usize; 2]; 6] = [[0, 0], [1, 1], [2, 2], [0, 1], [0, 2], [1, 2]];
    let mut pp = [0.0; 6];
    let mut volume = 0.0;
    for t in solid.chunks(3) {
        let (d, e, f) = (v(&centered, t[0]), v(&centered, t[1]), v(&centered, t[2]));
        let (area, n, c) = triangle(&d, &e, &f);
        let mut vol = if shell {
            area
        } else {
            math::dot3(&c, &n) * area / 3.0
        };
        if legacy {
            vol = vol.abs();
        }
        volume += vol;
        let cdiv = if shell { 12.0 } else { 20.0 };
        for (j, &[a, b]) in K.iter().enumerate() {
            pp[j] += vol / cdiv
                * (2.0 * (d[a] * d[b] + e[a] * e[b] + f[a] * f[b])
                    + d[a] * e[b]
                    + d[b] * e[a]
                    + d[a] * f[b]
                    + d[b] * f[a]
                    + e[a] * f[b]
                    + e[b] * f[a]);
        }
    }
    let inert = [
        pp[1] + pp[2],
        pp[0] + pp[2],
        pp[0] + pp[1],
        -pp[3],
        -pp[4],
        -pp[5],
    ];
    let full = [
        inert[0], inert[3], inert[4], inert[3], inert[1], inert[5], inert[4], inert[5], inert[2],
    ];
    let (eigval, quat_principal) = super::eig3(&full, MESH_EIG_TOL);
    if eigval[2] <= 0.0 {
        return Err(err(format!(
            "eigenvalue of mesh inertia must be positive: {}",
            mesh.name
        )));
    }
    let (rtol, atol) = (1e-6, 1e-9);
    if eigval[0] + eigval[1] < eigval[2] * (1.0 - rtol) - atol
        || eigval[0] + eigval[2] < eigval[1] * (1.0 - rtol) - atol
        || eigval[1] + eigval[2] < eigval[0] * (1.0 - rtol) - atol
    {
        return Err(err(format!(
            "eigenvalues of mesh inertia violate A + B >= C: {}",
            mesh.name
        )));
    }
    let boxsz = [
        0.5 * (6.0 * (eigval[1] + eigval[2] - eigval[0]) / volume).sqrt(),
        0.5 * (6.0 * (eigval[0] + eigval[2] - eigval[1]) / volume).sqrt(),
        0.5 * (6.0 * (eigval[0] + eigval[1] - eigval[2]) / volume).sqrt(),
    ];

    // a marching-cubes mesh keeps its frame (MuJoCo's needreorient_), though its box
    // sizes still come from the principal inertia
    let (pos, quat) = if reorient {
        (com, quat_principal)
    } else {
        ([0.0; 3], [1.0, 0.0, 0.0, 0.0])
    };
    let mat = if quat == [1.0, 0.0, 0.0, 0.0] {
        math::IDENTITY_MAT
    } else {
        math::quat_to_mat(&[quat[0], -quat[1], -quat[2], -quat[3]])
    };
    let mut aamm: [f64; 6] = [1e10, 1e10, 1e10, -1e10, -1e10, -1e10];
    for p in dvert.chunks_mut(3) {
        let q = [p[0] - pos[0], p[1] - pos[1], p[2] - pos[2]];
        let r = math::mul_mat_vec3(&mat, &q);
        p.copy_from_slice(&r);
        for k in 0..3 {
            aamm[k] = aamm[k].min(r[k]);
            aamm[k + 3] = aamm[k + 3].max(r[k]);
        }
    }
    // polygon normals in the final frame, from the unrounded vertices as MuJoCo has them
    let polynormal = poly
        .loops
        .iter()
        .flat_map(|l| super::meshpoly::loop_normal(&dvert, l))
        .collect();
    Ok(CMesh {
        vert: dvert.iter().map(|&x| x as f32).collect(),
        face,
        pos,
        quat,
        aamm,
        boxsz,
        volume,
        plugin: mesh.plugin,
        graph,
        poly,
        polynormal,
    })
}

/// The checks MuJoCo makes before handing vertices to qhull: not all at one point, not all
/// on one line, not all in one plane.
fn hull_input_checks(d: &[f64], name: &str) -> std::result::Result<(), String> {
    let nv = d.len() / 3;
    let p = |i: usize| [d[3 * i], d[3 * i + 1], d[3 * i + 2]];
    let p0 = p(0);
    let mut v1 = None;
    let mut len1 = 0.0;
    for i in 1..nv {
        len1 = math::norm3(&math::sub3(&p(i), &p0));
        if len1 > math::MINVAL {
            v1 = Some(i);
            break;
        }
    }
    let Some(v1) = v1 else {
        return Err(format!(
            "mesh '{name}' has colocated vertices, cannot compute convex hull. Consider using \
             a small sphere instead"
        ));
    };
    let edge1 = math::sub3(&p(v1), &p0);
    let mut normal = None;
    for i in 1..nv {
        if i == v1 {
            continue;
        }
        let edge2 = math::sub3(&p(i), &p0);
        let len2 = math::dot3(&edge2, &edge2).sqrt();
        if len2 < math::MINVAL {
            continue;
        }
        let n = math::cross(&edge1, &edge2);
        let norm = math::dot3(&n, &n).sqrt();
        if norm > math::MINVAL * len1 * len2 {
            normal = Some([n[0] / norm, n[1] / norm, n[2] / norm]);
            break;
        }
    }
    let Some(normal) = normal else {
        return Err(format!(
            "mesh '{name}' has collinear vertices, cannot compute convex hull. Consider using \
             a thin capsule instead"
        ));
    };
    let dd = math::dot3(&normal, &p0);
    if (0..nv).all(|i| (math::dot3(&normal, &p(i)) - dd).abs() <= math::MINVAL * len1) {
        return Err(format!(
            "mesh '{name}' has coplanar vertices, cannot compute convex hull. Consider using a \
             primitive geom type (plane or thin box) instead"
        ));
    }
    Ok(())
}
