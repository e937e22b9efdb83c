//! A 3D convex hull by quickhull, for the mass properties of `inertia="convex"` meshes
//! (MuJoCo builds the hull with qhull). Points within a small tolerance of a face count as on
//! it, as qhull merges nearly coplanar facets: that can keep a few vertices qhull would drop
//! (their faces are flat), which changes no volume, centre or inertia.

use crate::math::{cross, dot3, sub3, Vec3};
use std::collections::HashMap;

struct Face {
    v: [usize; 3],
    /// Outward unit normal and offset: a point p is outside when n·p − d > tolerance.
    n: Vec3,
    d: f64,
    alive: bool,
    /// Points not yet on the hull that see this face, and the farthest of them.
    outside: Vec<usize>,
}

/// Outward triangles (vertex indices into `pts`) of the convex hull of `pts` (x, y, z per
/// point), or None when the points span no volume.
pub fn convex_hull(pts: &[f64]) -> Option<Vec<[usize; 3]>> {
    let n = pts.len() / 3;
    let p = |i: usize| -> Vec3 { [pts[3 * i], pts[3 * i + 1], pts[3 * i + 2]] };
    if n < 4 {
        return None;
    }
    let scale = pts.iter().fold(0.0f64, |a, &x| a.max(x.abs())).max(1e-300);
    let eps = 1e-12 * scale;

    // initial simplex: the extremes in x, the farthest from their line, the farthest from
    // their plane
    let (mut i0, mut i1) = (0, 0);
    for i in 0..n {
        if p(i)[0] < p(i0)[0] {
            i0 = i;
        }
        if p(i)[0] > p(i1)[0] {
            i1 = i;
        }
    }
    if i0 == i1 {
        // all share one x: take the farthest pair from point 0 instead
        i1 = (0..n).rev().max_by(|&a, &b| {
            let da = sub3(&p(a), &p(i0));
            let db = sub3(&p(b), &p(i0));
            dot3(&da, &da).total_cmp(&dot3(&db, &db))
        })?;
    }
    let line = sub3(&p(i1), &p(i0));
    // ties go to the first point, as qhull keeps the first of repeated points
    let i2 = (0..n).rev().max_by(|&a, &b| {
        let ca = cross(&line, &sub3(&p(a), &p(i0)));
        let cb = cross(&line, &sub3(&p(b), &p(i0)));
        dot3(&ca, &ca).total_cmp(&dot3(&cb, &cb))
    })?;
    let nrm = cross(&line, &sub3(&p(i2), &p(i0)));
    if dot3(&nrm, &nrm).sqrt() <= eps * dot3(&line, &line).sqrt() {
        return None;
    }
    let i3 = (0..n).rev().max_by(|&a, &b| {
        let da = dot3(&nrm, &sub3(&p(a), &p(i0))).abs();
        let db = dot3(&nrm, &sub3(&p(b), &p(i0))).abs();
        da.total_cmp(&db)
    })?;
    let h = dot3(&nrm, &sub3(&p(i3), &p(i0)));
    if h.abs() <= eps * dot3(&nrm, &nrm).sqrt() {
        return None;
    }

    let mut faces: Vec<Face> = Vec::new();
    let mut edges: HashMap<(usize, usize), usize> = HashMap::new();
    let make = |a: usize, b: usize, c: usize| -> Face {
        let mut nn = cross(&sub3(&p(b), &p(a)), &sub3(&p(c), &p(a)));
        let len = dot3(&nn, &nn).sqrt().max(1e-300);
        nn = [nn[0] / len, nn[1] / len, nn[2] / len];
        Face {
            v: [a, b, c],
            n: nn,
            d: dot3(&nn, &p(a)),
            alive: true,
            outside: Vec::new(),
        }
    };
    let add = |faces: &mut Vec<Face>, edges: &mut HashMap<(usize, usize), usize>, f: Face| {
        let id = faces.len();
        for k in 0..3 {
            edges.insert((f.v[k], f.v[(k + 1) % 3]), id);
        }
        faces.push(f);
        id
    };
    // orient the simplex outward: i3 lies below the face (i0, i1, i2) when h < 0
    let tris = if h < 0.0 {
        [[i0, i1, i2], [i0, i3, i1], [i1, i3, i2], [i2, i3, i0]]
    } else {
        [[i0, i2, i1], [i0, i1, i3], [i1, i2, i3], [i2, i0, i3]]
    };
    for t in tris {
        add(&mut faces, &mut edges, make(t[0], t[1], t[2]));
    }
    let dist = |f: &Face, i: usize| dot3(&f.n, &p(i)) - f.d;
    for i in 0..n {
        if [i0, i1, i2, i3].contains(&i) {
            continue;
        }
        if let Some(f) = (0..4).find(|&f| dist(&faces[f], i) > eps) {
            faces[f].outside.push(i);
        }
    }

    let mut stack: Vec<usize> = (0..4).collect();
    while let Some(fi) = stack.pop() {
        if !faces[fi].alive || faces[fi].outside.is_empty() {
            continue;
        }
        let apex = *faces[fi]
            .outside
            .iter()
            .rev()
            .max_by(|&&a, &&b| dist(&faces[fi], a).total_cmp(&dist(&faces[fi], b)))?;
        // faces the apex sees, connected to this one
        let mut visible = vec![fi];
        let mut seen = std::collections::HashSet::from([fi]);
        let mut k = 0;
        while k < visible.len() {
            let f = visible[k];
            k += 1;
            let v = faces[f].v;
            for e in 0..3 {
                let g = *edges.get(&(v[(e + 1) % 3], v[e]))?;
                if faces[g].alive && !seen.contains(&g) && dist(&faces[g], apex) > eps {
                    seen.insert(g);
                    visible.push(g);
                }
            }
        }
        // horizon: edges of visible faces whose neighbour is not visible
        let mut horizon = Vec::new();
        for &f in &visible {
            let v = faces[f].v;
            for e in 0..3 {
                let (a, b) = (v[e], v[(e + 1) % 3]);
                let g = *edges.get(&(b, a))?;
                if !seen.contains(&g) {
                    horizon.push((a, b));
                }
            }
        }
        let mut orphans = Vec::new();
        for &f in &visible {
            faces[f].alive = false;
            orphans.append(&mut faces[f].outside);
            let v = faces[f].v;
            for e in 0..3 {
                edges.remove(&(v[e], v[(e + 1) % 3]));
            }
        }
        let first = faces.len();
        for (a, b) in horizon {
            let id = add(&mut faces, &mut edges, make(a, b, apex));
            stack.push(id);
        }
        for i in orphans {
            if i == apex {
                continue;
            }
            if let Some(f) = (first..faces.len()).find(|&f| dist(&faces[f], i) > eps) {
                faces[f].outside.push(i);
            }
        }
    }
    Some(faces.iter().filter(|f| f.alive).map(|f| f.v).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn volume(pts: &[f64], tris: &[[usize; 3]]) -> f64 {
        let p = |i: usize| [pts[3 * i], pts[3 * i + 1], pts[3 * i + 2]];
        tris.iter()
            .map(|t| dot3(&p(t[0]), &cross(&p(t[1]), &p(t[2]))) / 6.0)
            .sum()
    }

    #[test]
    fn cube_with_inner_and_face_points() {
        let mut pts = Vec::new();
        for i in 0..8 {
            pts.extend_from_slice(&[(i & 1) as f64, ((i >> 1) & 1) as f64, (i >> 2) as f64]);
        }
        // inside, on a face, on an edge
        pts.extend_from_slice(&[0.5, 0.5, 0.5, 0.5, 0.5, 1.0, 0.5, 0.0, 0.0, 0.2, 0.3, 0.9]);
        let tris = convex_hull(&pts).unwrap();
        assert!((volume(&pts, &tris) - 1.0).abs() < 1e-14);
        // closed: each directed edge once, with its reverse
        let mut edges = std::collections::HashSet::new();
        for t in &tris {
            for k in 0..3 {
                assert!(edges.insert((t[k], t[(k + 1) % 3])));
            }
        }
        assert!(edges.iter().all(|&(a, b)| edges.contains(&(b, a))));
        assert!(tris.iter().flatten().all(|&i| i < 8));
    }

    #[test]
    fn sphere_points_and_degenerate_input() {
        let mut pts = Vec::new();
        let n = 400;
        for i in 0..n {
            // a Fibonacci sphere: every point is on the hull
            let z = 1.0 - 2.0 * (i as f64 + 0.5) / n as f64;
            let r = (1.0 - z * z).sqrt();
            let a = i as f64 * 2.399963229728653;
            pts.extend_from_slice(&[r * a.cos(), r * a.sin(), z]);
        }
        let tris = convex_hull(&pts).unwrap();
        assert_eq!(tris.len(), 2 * n - 4);
        let v = volume(&pts, &tris);
        assert!(v > 4.0 && v < 4.0 * std::f64::consts::PI / 3.0);
        let flat = [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 1.0, 1.0, 0.0];
        assert!(convex_hull(&flat).is_none());
    }
}
