//! The assembled flex stiffness of simple flexes (MuJoCo's `efm_K` CSR): one 3×3 block per pair
//! of neighbouring vertex slots, holding `K_bend + K_stretch` (unscaled) in dof coordinates.
//!
//! Assembling once per step and multiplying by blocks is several times faster than the
//! matrix-free gather → local Hessian → scatter, and gives Newton its matrix for free. The
//! sparsity (and the index of every edge and bending stencil entry) is fixed per model.

use crate::compile::checks::flex_simple;
use crate::data::Data;
use crate::model::Model;

/// Block-sparse stiffness over the slide triples of simple flexes.
#[derive(Debug, Clone, Default)]
pub struct FlexCsr {
    /// First dof of each slot (a vertex body with three slide dofs).
    pub slot_dof: Vec<usize>,
    /// Flex of each slot.
    pub slot_flex: Vec<usize>,
    /// Row `s` holds blocks `row[s]..row[s+1]`.
    pub row: Vec<usize>,
    /// Column slot of each block.
    pub col: Vec<usize>,
    /// First dof of each block's column slot (`slot_dof[col[k]]`, one indirection less in the
    /// product).
    col_dof: Vec<usize>,
    /// 9 values per block, row-major.
    pub val: Vec<f64>,
    /// Slot of each global vertex, or -1.
    vert_slot: Vec<i32>,
    /// Block index of each vertex's diagonal.
    diag: Vec<u32>,
    /// Block indices (v0,v1), (v1,v0) of each edge.
    edge: Vec<[u32; 2]>,
    /// Block indices of the 4×4 pairs of each bending stencil.
    flap: Vec<[u32; 16]>,
    /// Whether each flex is covered.
    pub covered: Vec<bool>,
}

const NONE: u32 = u32::MAX;

impl FlexCsr {
    /// The sparsity of all simple 2D/3D flexes with stiffness (`on[f]`).
    pub fn new(m: &Model, on: &[bool]) -> Self {
        let mut c = FlexCsr {
            vert_slot: vec![-1; m.nflexvert],
            diag: vec![NONE; m.nflexvert],
            edge: vec![[NONE; 2]; m.nflexedge],
            flap: vec![[NONE; 16]; m.nflexedge],
            covered: vec![false; m.nflex],
            ..Default::default()
        };
        let mut nbrs: Vec<Vec<usize>> = Vec::new();
        for f in 0..m.nflex {
            if !on[f] || m.flex_dim[f] < 2 || !flex_simple(m, f) {
                continue;
            }
            c.covered[f] = true;
            let va = m.flex_vertadr[f] as usize;
            for v in va..va + m.flex_vertnum[f] as usize {
                let b = m.body_weldid[m.flex_vertbodyid[v] as usize] as usize;
                if m.body_dofnum[b] != 3 {
                    continue;
                }
                c.vert_slot[v] = c.slot_dof.len() as i32;
                c.slot_dof.push(m.body_dofadr[b] as usize);
                c.slot_flex.push(f);
                nbrs.push(Vec::new());
            }
            let ea = m.flex_edgeadr[f] as usize;
            let link = |nbrs: &mut Vec<Vec<usize>>, a: usize, b: usize, slot: &[i32]| {
                let (sa, sb) = (slot[va + a], slot[va + b]);
                if sa >= 0 && sb >= 0 {
                    nbrs[sa as usize].push(sb as usize);
                }
            };
            for e in ea..ea + m.flex_edgenum[f] as usize {
                let (v0, v1) = (m.flex_edge[2 * e] as usize, m.flex_edge[2 * e + 1] as usize);
                link(&mut nbrs, v0, v1, &c.vert_slot);
                link(&mut nbrs, v1, v0, &c.vert_slot);
                if m.flex_dim[f] == 2 && m.flex_edgeflap[2 * e + 1] >= 0 {
                    let st = [
                        v0,
                        v1,
                        m.flex_edgeflap[2 * e] as usize,
                        m.flex_edgeflap[2 * e + 1] as usize,
                    ];
                    for &a in &st {
                        for &b in &st {
                            link(&mut nbrs, a, b, &c.vert_slot);
                        }
                    }
                }
            }
            for v in 0..m.flex_vertnum[f] as usize {
                link(&mut nbrs, v, v, &c.vert_slot);
            }
        }
        c.row.push(0);
        for n in nbrs.iter_mut() {
            n.sort_unstable();
            n.dedup();
            c.col.extend_from_slice(n);
            c.row.push(c.col.len());
        }
        c.val = vec![0.0; 9 * c.col.len()];
        c.col_dof = c.col.iter().map(|&t| c.slot_dof[t]).collect();
        let find = |c: &FlexCsr, sa: i32, sb: i32| -> u32 {
            if sa < 0 || sb < 0 {
                return NONE;
            }
            let (s, t) = (sa as usize, sb as usize);
            let cols = &c.col[c.row[s]..c.row[s + 1]];
            match cols.binary_search(&t) {
                Ok(k) => (c.row[s] + k) as u32,
                Err(_) => NONE,
            }
        };
        for f in 0..m.nflex {
            if !c.covered[f] {
                continue;
            }
            let va = m.flex_vertadr[f] as usize;
            for v in va..va + m.flex_vertnum[f] as usize {
                c.diag[v] = find(&c, c.vert_slot[v], c.vert_slot[v]);
            }
            let ea = m.flex_edgeadr[f] as usize;
            for e in ea..ea + m.flex_edgenum[f] as usize {
                let (v0, v1) = (
                    va + m.flex_edge[2 * e] as usize,
                    va + m.flex_edge[2 * e + 1] as usize,
                );
                c.edge[e] = [
                    find(&c, c.vert_slot[v0], c.vert_slot[v1]),
                    find(&c, c.vert_slot[v1], c.vert_slot[v0]),
                ];
                if m.flex_dim[f] == 2 && m.flex_edgeflap[2 * e + 1] >= 0 {
                    let st = [
                        v0,
                        v1,
                        va + m.flex_edgeflap[2 * e] as usize,
                        va + m.flex_edgeflap[2 * e + 1] as usize,
                    ];
                    for i in 0..4 {
                        for j in 0..4 {
                            c.flap[e][4 * i + j] = find(&c, c.vert_slot[st[i]], c.vert_slot[st[j]]);
                        }
                    }
                }
            }
        }
        c
    }

    pub fn nslot(&self) -> usize {
        self.slot_dof.len()
    }

    /// Refills the values from the cached stretch Hessian and the bending stencils.
    pub fn assemble(&mut self, m: &Model, d: &Data, es: &mut super::elastic::ElasticScratch) {
        self.val.fill(0.0);
        for f in 0..m.nflex {
            if !self.covered[f] {
                continue;
            }
            let va = m.flex_vertadr[f] as usize;
            let ea = m.flex_edgeadr[f] as usize;
            let sadr = m.flex_stiffnessadr[f];
            if sadr >= 0 && m.flex_stiffness[sadr as usize] != 0.0 && m.flex_edgeequality[f] != 3 {
                super::elastic::flex_hessian(m, d, es, f);
                for v in va..va + m.flex_vertnum[f] as usize {
                    let k = self.diag[v];
                    if k == NONE {
                        continue;
                    }
                    let h = &es.vert_hessian[6 * v..6 * v + 6];
                    let w = [h[0], h[1], h[2], h[1], h[3], h[4], h[2], h[4], h[5]];
                    add_block(&mut self.val[9 * k as usize..9 * k as usize + 9], &w, false);
                }
                for e in ea..ea + m.flex_edgenum[f] as usize {
                    let a = &es.edge_hessian[9 * e..9 * e + 9];
                    let [k01, k10] = self.edge[e];
                    if k01 != NONE {
                        add_block(
                            &mut self.val[9 * k01 as usize..9 * k01 as usize + 9],
                            a,
                            false,
                        );
                    }
                    if k10 != NONE {
                        add_block(
                            &mut self.val[9 * k10 as usize..9 * k10 as usize + 9],
                            a,
                            true,
                        );
                    }
                }
            }
            let badr = m.flex_bendingadr[f];
            if m.flex_dim[f] == 2 && badr >= 0 {
                let b = &m.flex_bending[badr as usize..];
                for e in 0..m.flex_edgenum[f] as usize {
                    if m.flex_edgeflap[2 * (ea + e) + 1] < 0 {
                        continue;
                    }
                    let idx = &self.flap[ea + e];
                    for q in 0..16 {
                        let k = idx[q];
                        if k == NONE {
                            continue;
                        }
                        let c = b[17 * e + q];
                        let blk = &mut self.val[9 * k as usize..9 * k as usize + 9];
                        blk[0] += c;
                        blk[4] += c;
                        blk[8] += c;
                    }
                }
            }
        }
        // world blocks → dof blocks, for slide axes that are not the world axes
        for s in 0..self.nslot() {
            let ds = self.slot_dof[s];
            for k in self.row[s]..self.row[s + 1] {
                let dt = self.slot_dof[self.col[k]];
                if axes_are_world(d, ds) && axes_are_world(d, dt) {
                    continue;
                }
                let (a, b) = (axes(d, ds), axes(d, dt));
                let w: [f64; 9] = self.val[9 * k..9 * k + 9].try_into().unwrap();
                let blk = &mut self.val[9 * k..9 * k + 9];
                for r in 0..3 {
                    for c in 0..3 {
                        let mut acc = 0.0;
                        for x in 0..3 {
                            for y in 0..3 {
                                acc += a[r][x] * w[3 * x + y] * b[c][y];
                            }
                        }
                        blk[3 * r + c] = acc;
                    }
                }
            }
        }
    }

    /// `res += scale(flex)·K·vec` over all slots; `scale` per flex.
    pub fn mul_add(&self, res: &mut [f64], vec: &[f64], scale: &[f64]) {
        for s in 0..self.nslot() {
            let sc = scale[self.slot_flex[s]];
            if sc == 0.0 {
                continue;
            }
            let (mut r0, mut r1, mut r2) = (0.0, 0.0, 0.0);
            let (lo, hi) = (self.row[s], self.row[s + 1]);
            let blocks = self.val[9 * lo..9 * hi].chunks_exact(9);
            for (&c, v) in self.col_dof[lo..hi].iter().zip(blocks) {
                let x = &vec[c..c + 3];
                let (x0, x1, x2) = (x[0], x[1], x[2]);
                r0 += v[0] * x0 + v[1] * x1 + v[2] * x2;
                r1 += v[3] * x0 + v[4] * x1 + v[5] * x2;
                r2 += v[6] * x0 + v[7] * x1 + v[8] * x2;
            }
            let d = self.slot_dof[s];
            res[d] += sc * r0;
            res[d + 1] += sc * r1;
            res[d + 2] += sc * r2;
        }
    }

    /// The diagonal block of slot `s` (unscaled).
    pub fn diag_block(&self, s: usize) -> Option<&[f64]> {
        let cols = &self.col[self.row[s]..self.row[s + 1]];
        cols.binary_search(&s)
            .ok()
            .map(|k| &self.val[9 * (self.row[s] + k)..9 * (self.row[s] + k) + 9])
    }
}

#[inline]
fn add_block(dst: &mut [f64], w: &[f64], transpose: bool) {
    if transpose {
        for r in 0..3 {
            for c in 0..3 {
                dst[3 * r + c] += w[3 * c + r];
            }
        }
    } else {
        for q in 0..9 {
            dst[q] += w[q];
        }
    }
}

fn axes(d: &Data, da: usize) -> [[f64; 3]; 3] {
    let mut a = [[0.0; 3]; 3];
    for (r, ax) in a.iter_mut().enumerate() {
        ax.copy_from_slice(&d.a.cdof[6 * (da + r) + 3..6 * (da + r) + 6]);
    }
    a
}

fn axes_are_world(d: &Data, da: usize) -> bool {
    (0..3).all(|r| {
        let c = &d.a.cdof[6 * (da + r) + 3..6 * (da + r) + 6];
        (0..3).all(|k| c[k] == if k == r { 1.0 } else { 0.0 })
    })
}
