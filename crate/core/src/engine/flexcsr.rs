//! The assembled flex stiffness of simple flexes (MuJoCo's `efm_K` CSR): one 3×3 block per pair
//! of neighbouring vertex slots, holding `(h² + h·β)·(K_bend + K_stretch)` in dof coordinates.
//!
//! Assembling once per step and multiplying by blocks is several times faster than the
//! matrix-free gather → local Hessian → scatter, and gives Newton its matrix for free. The
//! sparsity (and the index of every edge and bending stencil entry) is fixed per model.

use super::lanes::F64x2;
use crate::data::Data;
use crate::flexkind::flex_simple;
use crate::model::Model;

/// Block-sparse stiffness over the slide triples of simple flexes, scaled by each flex's
/// metric scale `h² + h·β` (MuJoCo's `efm_K_val` holds the scaled values).
///
/// The product [`FlexCsr::mul_add`] streams the whole matrix tens of times per step, so the
/// values are stored as it reads them, in two kinds of block:
/// - a block that is a multiple of the identity (a bending-only pair: the two far vertices of a
///   hinge, while both slots slide along the world axes) is one scalar;
/// - any other block is 9 values in the order `[v0,v3, v1,v4, v2,v5, v6,v7,v8]` of its
///   row-major entries `v`, so rows 0 and 1 of `B·x` are three two-lane multiply-adds.
///
/// On a cloth an interior vertex's row has 7 general blocks (itself and its 6 edge neighbours)
/// and 6 scalars, (7·9 + 6)/(13·9) = 59% of the values of 13 plain 3×3 blocks. Both kinds are
/// read in one stream in column order, as MuJoCo 3.15.0's block product sums them.
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
    /// Whether block `k` only ever holds bending (a pair that is neither a diagonal nor an edge).
    bending_only: Vec<bool>,
    /// Whether each slot's slide axes are the world axes (scratch of each assembly).
    slot_world: Vec<bool>,
    /// Whether bending-only blocks are stored as scalars (every slot on world axes).
    split: bool,
    /// 9 values per general block, in the order above.
    full_val: Vec<f64>,
    /// The multiple of each identity-multiple block.
    scalar_val: Vec<f64>,
    /// Block `k` in the product's stream: the first dof of its column slot.
    seq_dof: Vec<u32>,
    /// Where block `k` is: its index into `scalar_val` with [`SCALAR`] set, or its index into
    /// the general blocks of `full_val`.
    seq_at: Vec<u32>,
    /// Whether a slot's flex has a zero metric scale (its row adds nothing).
    slot_off: Vec<bool>,
    /// One past the last dof of any slot: the length the product's vectors must have.
    vec_len: usize,
}

/// Marks a scalar block in [`FlexCsr`]'s stream.
const SCALAR: u32 = 1 << 31;

/// Position in the stored order of row-major entry `q` of a general block.
const STORED: [usize; 9] = [0, 2, 4, 1, 3, 5, 6, 7, 8];

/// `B·x` for one block `v` in the stored order: rows 0 and 1 in the two lanes, row 2 beside.
#[inline(always)]
fn stored_block_mul(v: &[f64], x: [f64; 3]) -> (F64x2, f64) {
    let [x0, x1, x2] = x;
    let r01 = F64x2::load(&v[0..2]) * F64x2::splat(x0)
        + F64x2::load(&v[2..4]) * F64x2::splat(x1)
        + F64x2::load(&v[4..6]) * F64x2::splat(x2);
    (r01, v[6] * x0 + v[7] * x1 + v[8] * x2)
}

const NONE: u32 = u32::MAX;

impl FlexCsr {
    /// The sparsity of all simple 2D/3D flexes with stiffness (`on[f]`).
    #[cold]
    pub fn new(m: &Model, on: &[bool]) -> Self {
        let mut c = FlexCsr {
            vert_slot: vec![-1; m.nflexvert],
            diag: vec![NONE; m.nflexvert],
            edge: vec![[NONE; 2]; m.nflexedge],
            flap: vec![[NONE; 16]; m.nflexedge],
            covered: crate::data::zeros(m.nflex),
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
                let stencil = match m.flex_dim[f] {
                    2 => super::elastic::bending_stencil(m, e),
                    _ => None,
                };
                if let Some(st) = stencil {
                    let st = st.map(|v| v as usize);
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
            super::sort::sort_small(n);
            n.dedup();
            c.col.extend_from_slice(n);
            c.row.push(c.col.len());
        }
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
                let stencil = match m.flex_dim[f] {
                    2 => super::elastic::bending_stencil(m, e),
                    _ => None,
                };
                if let Some(st) = stencil {
                    let st = st.map(|v| va + v as usize);
                    for i in 0..4 {
                        for j in 0..4 {
                            c.flap[e][4 * i + j] = find(&c, c.vert_slot[st[i]], c.vert_slot[st[j]]);
                        }
                    }
                }
            }
        }
        // bending-only: every block that is neither a diagonal nor an edge pair
        let n = c.col.len();
        c.bending_only = vec![true; n];
        for &k in c.diag.iter().chain(c.edge.iter().flatten()) {
            if k != NONE {
                c.bending_only[k as usize] = false;
            }
        }
        // room for every block in either kind, so a change of layout never allocates
        let ns = c.slot_dof.len();
        c.slot_world = vec![true; ns];
        c.full_val = crate::data::with_capacity(9 * n);
        c.scalar_val = crate::data::with_capacity(n);
        c.seq_dof = crate::data::zeros(n);
        c.seq_at = crate::data::zeros(n);
        c.slot_off = vec![false; ns];
        c.layout(true);
        c
    }

    /// Places every block: bending-only blocks as scalars when `split`, all others general,
    /// each kind numbered in block order. The product relies on the indices written here being
    /// in range (see [`FlexCsr::mul_add`]).
    fn layout(&mut self, split: bool) {
        self.split = split;
        let (mut nfull, mut nscalar) = (0, 0);
        for k in 0..self.col.len() {
            self.seq_dof[k] = self.slot_dof[self.col[k]] as u32;
            self.seq_at[k] = if split && self.bending_only[k] {
                nscalar += 1;
                (nscalar - 1) | SCALAR
            } else {
                nfull += 1;
                nfull - 1
            };
        }
        self.vec_len = self.slot_dof.iter().map(|&d| d + 3).max().unwrap_or(0);
        self.full_val.resize(9 * nfull as usize, 0.0);
        self.scalar_val.resize(nscalar as usize, 0.0);
    }

    /// Whether block `k` is stored as one scalar.
    #[inline]
    pub fn is_scalar(&self, k: usize) -> bool {
        self.seq_at[k] & SCALAR != 0
    }

    /// Block `k`'s index into `scalar_val` or into the general blocks of `full_val`.
    #[inline]
    fn at(&self, k: usize) -> usize {
        (self.seq_at[k] & !SCALAR) as usize
    }

    /// Block `k` as row-major 3×3 values (scaled).
    pub fn block(&self, k: usize) -> [f64; 9] {
        let a = self.at(k);
        if self.is_scalar(k) {
            let c = self.scalar_val[a];
            return [c, 0.0, 0.0, 0.0, c, 0.0, 0.0, 0.0, c];
        }
        let v = &self.full_val[9 * a..9 * a + 9];
        std::array::from_fn(|q| v[STORED[q]])
    }

    /// Adds the row-major 3×3 `w` (transposed when `transpose`) to general block `k`.
    #[inline]
    fn add_full(&mut self, k: u32, w: &[f64], transpose: bool) {
        let a = self.at(k as usize);
        let dst = &mut self.full_val[9 * a..9 * a + 9];
        for r in 0..3 {
            for c in 0..3 {
                let q = if transpose { 3 * c + r } else { 3 * r + c };
                dst[STORED[3 * r + c]] += w[q];
            }
        }
    }

    pub fn nslot(&self) -> usize {
        self.slot_dof.len()
    }

    /// Refills the values from the cached stretch Hessian and the bending stencils, times
    /// `scale[f]` (each flex's `h² + h·β`).
    pub fn assemble(
        &mut self,
        m: &Model,
        d: &Data,
        es: &mut super::elastic::ElasticScratch,
        scale: &[f64],
    ) {
        let mut all_world = true;
        for s in 0..self.nslot() {
            self.slot_world[s] = axes_are_world(d, self.slot_dof[s]);
            all_world &= self.slot_world[s];
        }
        if all_world != self.split {
            self.layout(all_world);
        }
        self.full_val.fill(0.0);
        self.scalar_val.fill(0.0);
        for s in 0..self.nslot() {
            self.slot_off[s] = scale[self.slot_flex[s]] == 0.0;
        }
        // MuJoCo 3.15.0's order and rounding (`mjd_flexStiff_assemble`): per flex, the bending
        // stencils first and then the stretch Hessian, each term scaled before it is added
        for f in 0..m.nflex {
            let sc = scale[f];
            if !self.covered[f] || sc == 0.0 {
                continue;
            }
            let va = m.flex_vertadr[f] as usize;
            let ea = m.flex_edgeadr[f] as usize;
            let badr = m.flex_bendingadr[f];
            if m.flex_dim[f] == 2 && badr >= 0 {
                let b = &m.flex_bending[badr as usize..];
                for e in 0..m.flex_edgenum[f] as usize {
                    // a boundary edge: no bending stencil (`bending_stencil`)
                    if m.flex_edgeflap[2 * (ea + e) + 1] < 0 {
                        continue;
                    }
                    for (q, &k) in self.flap[ea + e].iter().enumerate() {
                        let c = sc * b[17 * e + q];
                        if k == NONE || c == 0.0 {
                            continue;
                        }
                        let a = self.at(k as usize);
                        if self.is_scalar(k as usize) {
                            self.scalar_val[a] += c;
                        } else {
                            let blk = &mut self.full_val[9 * a..9 * a + 9];
                            blk[STORED[0]] += c;
                            blk[STORED[4]] += c;
                            blk[STORED[8]] += c;
                        }
                    }
                }
            }
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
                    self.add_full(k, &w.map(|x| sc * x), false);
                }
                for e in ea..ea + m.flex_edgenum[f] as usize {
                    let a: [f64; 9] = std::array::from_fn(|q| sc * es.edge_hessian[9 * e + q]);
                    let [k01, k10] = self.edge[e];
                    if k01 != NONE {
                        self.add_full(k01, &a, false);
                    }
                    if k10 != NONE {
                        self.add_full(k10, &a, true);
                    }
                }
            }
        }
        if !all_world {
            self.turn_to_dof_axes(d);
        }
    }

    /// World blocks → dof blocks, for slide axes that are not the world axes (every block is
    /// general in this layout). MuJoCo turns each term before it adds it; turning the sums
    /// rounds differently, so a flex on turned slide axes agrees with MuJoCo's `efm_K` to
    /// rounding, not bit for bit.
    fn turn_to_dof_axes(&mut self, d: &Data) {
        for s in 0..self.nslot() {
            let ds = self.slot_dof[s];
            for k in self.row[s]..self.row[s + 1] {
                let t = self.col[k];
                if self.slot_world[s] && self.slot_world[t] {
                    continue;
                }
                let (a, b) = (axes(d, ds), axes(d, self.slot_dof[t]));
                let w = self.block(k);
                let at = self.at(k);
                let blk = &mut self.full_val[9 * at..9 * at + 9];
                for r in 0..3 {
                    for c in 0..3 {
                        let mut acc = 0.0;
                        for x in 0..3 {
                            for y in 0..3 {
                                acc += a[r][x] * w[3 * x + y] * b[c][y];
                            }
                        }
                        blk[STORED[3 * r + c]] = acc;
                    }
                }
            }
        }
    }

    /// `res += K·vec` over all slots, each row summed as MuJoCo 3.15.0's block product
    /// (`mjd_effMulAdd`) sums it: block by block in column order into a running sum that starts
    /// at zero, each block's row as `(v0·x0 + v1·x1) + v2·x2`, the sum added to `res` last. Rows 0
    /// and 1 of a slot run in the two lanes of [`F64x2`], row 2 beside them. A scalar block `c`
    /// adds `c·x` (MuJoCo multiplies its zeros too, which adds +0).
    ///
    /// The stream's indices are checked once, where [`FlexCsr::layout`] writes them, and not per
    /// block: the bounds checks were a sixth of the product's time in the browser.
    pub fn mul_add(&self, res: &mut [f64], vec: &[f64]) {
        assert!(
            vec.len() >= self.vec_len,
            "vector shorter than the slots' dofs"
        );
        let (full, scalar) = (&self.full_val[..], &self.scalar_val[..]);
        for s in 0..self.nslot() {
            if self.slot_off[s] {
                continue;
            }
            let mut r01 = F64x2::splat(0.0);
            let mut r2 = 0.0;
            let (lo, hi) = (self.row[s], self.row[s + 1]);
            for (&c, &at) in self.seq_dof[lo..hi].iter().zip(&self.seq_at[lo..hi]) {
                let c = c as usize;
                // SAFETY: `layout` made every `seq_dof + 3 <= vec_len <= vec.len()` (asserted
                // above), every scalar index `< scalar_val.len()` and every general index
                // `< full_val.len() / 9`; nothing else writes the stream or resizes the values.
                let x = unsafe {
                    [
                        *vec.get_unchecked(c),
                        *vec.get_unchecked(c + 1),
                        *vec.get_unchecked(c + 2),
                    ]
                };
                if at & SCALAR != 0 {
                    let a = unsafe { *scalar.get_unchecked((at & !SCALAR) as usize) };
                    r01 = r01 + F64x2::splat(a) * F64x2::new(x[0], x[1]);
                    r2 += a * x[2];
                } else {
                    let a = 9 * at as usize;
                    let (b01, b2) = stored_block_mul(unsafe { full.get_unchecked(a..a + 9) }, x);
                    r01 = r01 + b01;
                    r2 += b2;
                }
            }
            let [r0, r1] = r01.lanes();
            let d = self.slot_dof[s];
            res[d] += r0;
            res[d + 1] += r1;
            res[d + 2] += r2;
        }
    }

    /// The diagonal block of slot `s` (scaled, row-major).
    pub fn diag_block(&self, s: usize) -> Option<[f64; 9]> {
        let cols = &self.col[self.row[s]..self.row[s + 1]];
        cols.binary_search(&s)
            .ok()
            .map(|k| self.block(self.row[s] + k))
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
