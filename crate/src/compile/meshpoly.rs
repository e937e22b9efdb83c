//! A convex mesh's polygons (MuJoCo's `mjCMesh::MakePolygons`): the hull's triangles grouped
//! by their normal direction rounded to 0.01 rad in azimuth and polar angle, each group's
//! outline traced as one or more vertex loops (counter-clockwise about the outward normal),
//! with a unit normal per loop and, per vertex, the loops it lies on. The plane–mesh contacts
//! and the multi-contact CCD use them.
//!
//! MuJoCo groups with a hash map and traces from qhull's triangle order, so its polygons come
//! in an order flexlab does not reproduce, and a loop may start at another of its vertices:
//! the polygons, their vertex cycles and normals are the same, their numbering is not.

use super::meshasset::triangle;
use std::collections::hash_map::{Entry, HashMap};

/// Polygons of one mesh.
#[derive(Debug, Clone, Default)]
pub struct Polygons {
    /// Vertex loops (mesh vertex ids).
    pub loops: Vec<Vec<i32>>,
    /// For each mesh vertex, the loops (indices into `loops`) it lies on, in loop order.
    pub map: Vec<Vec<i32>>,
}

/// The rounded direction of a triangle's normal (`MeshPolygonKey`), None when degenerate.
fn key(v1: &[f64], v2: &[f64], v3: &[f64]) -> Option<(i64, i64)> {
    const TOL: f64 = 0.01;
    // a zero area marks a degenerate triangle (a normal shorter than MINVAL)
    let (area, n, _) = triangle(v1, v2, v3);
    if area == 0.0 {
        return None;
    }
    // adding 0.0 turns -0.0 into 0.0, to which atan2 is sensitive
    let n = [n[0] + 0.0, n[1] + 0.0, n[2] + 0.0];
    if n[2].abs() > 1.0 - 1e-7 {
        let phi = if n[2] < 0.0 {
            (std::f64::consts::PI / TOL).round()
        } else {
            0.0
        };
        return Some((0, phi as i64));
    }
    let theta = (n[1].atan2(n[0]) / TOL).round();
    let phi = (n[2].acos() / TOL).round();
    Some((theta as i64, phi as i64))
}

/// One group of coplanar triangles being merged (`MeshPolygon`): its boundary edges and the
/// island each edge belongs to.
struct Group {
    edges: Vec<(i32, i32)>,
    islands: Vec<usize>,
    nisland: usize,
}

impl Group {
    fn new(a: i32, b: i32, c: i32) -> Self {
        Group {
            edges: vec![(a, b), (b, c), (c, a)],
            islands: vec![0, 0, 0],
            nisland: 1,
        }
    }

    /// Renumbers island `i2` as `i1` (the smaller) and closes the gap.
    fn combine(&mut self, island: &mut usize, other: &mut usize) {
        if *other < *island {
            std::mem::swap(island, other);
        }
        for k in self.islands.iter_mut() {
            if *k == *other {
                *k = *island;
            } else if *k > *other {
                *k -= 1;
            }
        }
    }

    /// Adds a triangle: a shared edge (reversed) is removed, the others become boundary.
    fn insert(&mut self, v1: i32, v2: i32, v3: i32) {
        let mut island: Option<usize> = None;
        let mut add = [true; 3];
        for (k, (a, b)) in [(v1, v2), (v2, v3), (v3, v1)].into_iter().enumerate() {
            if let Some(i) = self.edges.iter().position(|&e| e == (b, a)) {
                let mut other = self.islands[i];
                match island {
                    None => island = Some(other),
                    Some(mut is) if other != is => {
                        self.nisland -= 1;
                        self.combine(&mut is, &mut other);
                        island = Some(is);
                    }
                    _ => {}
                }
                add[k] = false;
                self.edges.remove(i);
                self.islands.remove(i);
            }
        }
        let island = island.unwrap_or_else(|| {
            self.nisland += 1;
            self.nisland - 1
        });
        for (k, e) in [(v1, v2), (v2, v3), (v3, v1)].into_iter().enumerate() {
            if add[k] {
                self.edges.push(e);
                self.islands.push(island);
            }
        }
    }

    /// The boundary loops, one per island (`MeshPolygon::Paths`).
    fn paths(&self) -> Vec<Vec<i32>> {
        if self.edges.len() == 3 {
            return vec![vec![self.edges[0].0, self.edges[1].0, self.edges[2].0]];
        }
        let mut out = Vec::new();
        for i in 0..self.nisland {
            let Some(j) = (0..self.edges.len()).find(|&j| self.islands[j] == i) else {
                continue;
            };
            let mut path = vec![self.edges[j].0, self.edges[j].1];
            let mut next = self.edges[j].1;
            for _ in 0..self.edges.len() {
                let mut finished = false;
                for k in 1..self.edges.len() {
                    if self.islands[k] == i && self.edges[k].0 == next {
                        next = self.edges[k].1;
                        if next == path[0] {
                            out.push(path.clone());
                            finished = true;
                            break;
                        }
                        path.push(next);
                        break;
                    }
                }
                if finished {
                    break;
                }
            }
        }
        out
    }
}

/// The polygons of the hull triangles `tris` (outward, vertex ids into `dvert`).
pub fn polygons(dvert: &[f64], tris: &[i32]) -> Polygons {
    let nv = dvert.len() / 3;
    let p = |i: i32| &dvert[3 * i as usize..3 * i as usize + 3];
    // the groups in the order their first triangle comes, found by key
    let mut index: HashMap<(i64, i64), usize> = HashMap::new();
    let mut groups: Vec<Group> = Vec::new();
    for t in tris.chunks_exact(3) {
        let Some(k) = key(p(t[0]), p(t[1]), p(t[2])) else {
            continue;
        };
        match index.entry(k) {
            Entry::Occupied(g) => groups[*g.get()].insert(t[0], t[1], t[2]),
            Entry::Vacant(g) => {
                g.insert(groups.len());
                groups.push(Group::new(t[0], t[1], t[2]));
            }
        }
    }
    let mut loops = Vec::new();
    for g in &groups {
        for path in g.paths() {
            if path.len() >= 3 {
                loops.push(path);
            }
        }
    }
    let mut map = vec![Vec::new(); nv];
    for (i, l) in loops.iter().enumerate() {
        for &v in l {
            map[v as usize].push(i as i32);
        }
    }
    Polygons { loops, map }
}

/// Unit normal of a loop from its first three vertices (`mjuu_makenormal`), in the mesh's
/// final frame.
pub fn loop_normal(vert: &[f64], l: &[i32]) -> [f64; 3] {
    let p = |i: i32| {
        [
            vert[3 * i as usize],
            vert[3 * i as usize + 1],
            vert[3 * i as usize + 2],
        ]
    };
    let (area, n, _) = triangle(&p(l[0]), &p(l[1]), &p(l[2]));
    if area == 0.0 {
        return [0.0; 3];
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cube_has_six_square_faces() {
        let mut v = Vec::new();
        for i in 0..8 {
            v.extend_from_slice(&[(i & 1) as f64, ((i >> 1) & 1) as f64, (i >> 2) as f64]);
        }
        let tris = crate::compile::hull::convex_hull(&v).unwrap();
        let tris: Vec<i32> = tris.iter().flat_map(|t| t.map(|i| i as i32)).collect();
        let p = polygons(&v, &tris);
        assert_eq!(p.loops.len(), 6);
        assert!(p.loops.iter().all(|l| l.len() == 4));
        assert!(p.map.iter().all(|m| m.len() == 3));
        // loops run counter-clockwise about the outward normal
        for l in &p.loops {
            let n = loop_normal(&v, l);
            let c: Vec<f64> = (0..3)
                .map(|k| l.iter().map(|&i| v[3 * i as usize + k]).sum::<f64>() / 4.0 - 0.5)
                .collect();
            assert!(n[0] * c[0] + n[1] * c[1] + n[2] * c[2] > 0.0);
        }
    }
}
