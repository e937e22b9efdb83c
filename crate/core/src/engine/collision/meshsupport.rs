//! Support points of a convex mesh geom (MuJoCo 3.15.0's `mjc_meshSupport`,
//! `mjc_hillclimbSupport` and the mesh case of `mjccd_support`).
//!
//! A mesh with fewer than [`HILLCLIMB_MIN`] vertices, or without a hull graph, is searched
//! exhaustively; a larger one climbs its hull graph from a seed vertex. Both remember the
//! vertex they found (`vertindex`, `meshindex`) and start the next query of the same CCD call
//! from it, which decides ties: the remembered vertex wins over an equally far one. The
//! exhaustive search is independent of the graph, so it matches MuJoCo exactly; the climb
//! ends on a vertex as far as any other, and only when several are equally far (a face or
//! edge exactly normal to the direction) can flexlab's graph order (see
//! `compile::hullgraph`) make it stop on a different one of them than qhull's order makes
//! MuJoCo stop on.

use crate::math::{mul_mat_t_vec3, Mat3, Vec3};
use std::cell::Cell;

/// Fewest vertices for which the native CCD climbs the hull graph (`mjMESH_HILLCLIMB_MIN`).
pub const HILLCLIMB_MIN: usize = 10;

/// A mesh geom's data for support queries: vertices (local frame, f32 values), its hull
/// graph (empty: exhaustive search) and the 27 climb seeds.
#[derive(Debug, Clone, Copy)]
pub struct MeshData<'a> {
    pub vert: &'a [f64],
    pub graph: &'a [i32],
    pub extrema: &'a [i32],
    /// The hull's polygons, for the multi-contact step (`None`: no mesh).
    pub polys: Option<super::plane_mesh::MeshPolys<'a>>,
}

/// Search state one CCD object keeps between queries: the last vertex found (mesh order) and
/// the last hull vertex found (graph order), -1 before the first.
#[derive(Debug, Default)]
pub struct Warm {
    pub vertindex: Cell<i32>,
    pub meshindex: Cell<i32>,
}

impl Warm {
    pub fn new() -> Self {
        Warm {
            vertindex: Cell::new(-1),
            meshindex: Cell::new(-1),
        }
    }
}

#[inline]
fn vdot(l: &Vec3, vert: &[f64], i: usize) -> f64 {
    l[0] * vert[3 * i] + l[1] * vert[3 * i + 1] + l[2] * vert[3 * i + 2]
}

impl MeshData<'_> {
    fn nvert(&self) -> usize {
        self.vert.len() / 3
    }

    /// The hull graph's parts (`mesh_graph`): each hull vertex's first edge, its mesh vertex,
    /// and the -1-terminated neighbour lists.
    fn graph_parts(&self) -> (&[i32], &[i32], &[i32]) {
        let g = self.graph;
        let numvert = g[0] as usize;
        (
            &g[2..2 + numvert],
            &g[2 + numvert..2 + 2 * numvert],
            &g[2 + 2 * numvert..],
        )
    }

    /// Climbs the hull graph along `l` (local frame) from hull vertex `start`: each pass scans
    /// the neighbours of the vertex it started from, moving to every strictly farther one, until
    /// a pass moves nowhere. Returns the hull vertex reached.
    fn climb(&self, l: &Vec3, start: usize) -> usize {
        let (edgeadr, globalid, edges) = self.graph_parts();
        let mut imax = start;
        let mut max = vdot(l, self.vert, globalid[imax] as usize);
        let mut prev = usize::MAX;
        while imax != prev {
            prev = imax;
            let mut i = edgeadr[imax] as usize;
            while edges[i] >= 0 {
                let sub = edges[i] as usize;
                let v = vdot(l, self.vert, globalid[sub] as usize);
                if v > max {
                    max = v;
                    imax = sub;
                }
                i += 1;
            }
        }
        imax
    }

    /// Whether the native CCD climbs this mesh's graph.
    pub fn climbs(&self) -> bool {
        !self.graph.is_empty() && self.nvert() >= HILLCLIMB_MIN
    }

    /// Index (mesh order) of the vertex farthest along `d` (world frame), for the native CCD,
    /// warm-started from and updating `w`.
    pub fn support_index(&self, mat: &Mat3, d: &Vec3, w: &Warm) -> usize {
        let l = mul_mat_t_vec3(mat, d);
        if !self.climbs() {
            // mjc_meshSupport
            let mut imax = 0;
            let mut max = -(f32::MAX as f64);
            if w.vertindex.get() >= 0 {
                imax = w.vertindex.get() as usize;
                max = vdot(&l, self.vert, imax);
            }
            for i in 0..self.nvert() {
                let v = vdot(&l, self.vert, i);
                if v > max {
                    max = v;
                    imax = i;
                }
            }
            w.vertindex.set(imax as i32);
            return imax;
        }
        // mjc_hillclimbSupport: seed from the 3×3×3 direction grid or the last vertex
        let (_, globalid, _) = self.graph_parts();
        let cell = |x: f64| (x > 0.4) as usize + 1 - (x < -0.4) as usize;
        let grid = self.extrema[cell(l[0]) * 9 + cell(l[1]) * 3 + cell(l[2])] as usize;
        let seed = if w.meshindex.get() >= 0 {
            let cached = w.meshindex.get() as usize;
            let cdot = vdot(&l, self.vert, globalid[cached] as usize);
            let sdot = vdot(&l, self.vert, globalid[grid] as usize);
            if sdot > cdot {
                grid
            } else {
                cached
            }
        } else {
            grid
        };
        let imax = self.climb(&l, seed);
        w.meshindex.set(imax as i32);
        let gi = globalid[imax];
        w.vertindex.set(gi);
        gi as usize
    }

    /// The libccd-style search `mjc_PlaneConvex` uses (`mjccd_support`) along `l` (local
    /// frame): exhaustive below [`HILLCLIMB_MIN`] vertices (first farthest in mesh order),
    /// else a climb from hull vertex 0. Returns the vertex (mesh order).
    pub fn ccd_support_index(&self, l: &Vec3) -> usize {
        if !self.climbs() {
            let mut best = -1i32;
            let mut tmp = -1e10;
            for i in 0..self.nvert() {
                let v = vdot(l, self.vert, i);
                if v > tmp {
                    tmp = v;
                    best = i as i32;
                }
            }
            return best.max(0) as usize;
        }
        let ibest = self.climb(l, 0);
        let (_, globalid, _) = self.graph_parts();
        globalid[ibest] as usize
    }

    /// Vertex `i` (local frame).
    pub fn vertex(&self, i: usize) -> Vec3 {
        [self.vert[3 * i], self.vert[3 * i + 1], self.vert[3 * i + 2]]
    }
}
