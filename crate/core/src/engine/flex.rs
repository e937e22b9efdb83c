//! Flex kinematics (MuJoCo's `mj_flex`): vertex world positions (body-attached or interpolated
//! from nodes), element boxes, edge lengths and the sparse edge Jacobian `flexedge_J`.

use super::jacobian::{jac_dif_pair, point_col, JacScratch};
use super::lanes::F64x2;
use crate::data::Data;
use crate::math::*;
use crate::model::Model;

/// 1D shape function of order 1 or 2.
#[inline]
pub fn phi(s: f64, i: usize, order: usize) -> f64 {
    if order == 1 {
        return if i == 0 { 1.0 - s } else { s };
    }
    match i {
        0 => 2.0 * s * s - 3.0 * s + 1.0,
        1 => 4.0 * (s - s * s),
        _ => 2.0 * s * s - s,
    }
}

/// Derivative of [`phi`].
#[inline]
pub fn dphi(s: f64, i: usize, order: usize) -> f64 {
    if order == 1 {
        return if i == 0 { -1.0 } else { 1.0 };
    }
    match i {
        0 => 4.0 * s - 3.0,
        1 => 4.0 * (1.0 - 2.0 * s),
        _ => 4.0 * s - 1.0,
    }
}

/// Tensor-product basis values of all cell nodes at `x` (x slowest), MuJoCo's node order.
pub fn eval_basis(basis: &mut [f64; 27], x: &[f64; 3], order: usize) {
    let n = order + 1;
    let mut p = [[0.0; 3]; 3];
    for d in 0..3 {
        for i in 0..n {
            p[d][i] = phi(x[d], i, order);
        }
    }
    let mut j = 0;
    for i0 in 0..n {
        let w0 = p[0][i0];
        for i1 in 0..n {
            let w01 = w0 * p[1][i1];
            for i2 in 0..n {
                basis[j] = w01 * p[2][i2];
                j += 1;
            }
        }
    }
}

/// Cell containing the parametric point `coord`, its local coordinates and node indices.
pub fn cell_lookup(
    coord: &[f64],
    cellnum: &[i32],
    order: usize,
    local: &mut [f64; 3],
    nodes: &mut [usize; 27],
) -> usize {
    let (cx, cy, cz) = (cellnum[0], cellnum[1], cellnum[2]);
    let ci = ((coord[0] * cx as f64).floor() as i32).min(cx - 1).max(0);
    let cj = ((coord[1] * cy as f64).floor() as i32).min(cy - 1).max(0);
    let ck = ((coord[2] * cz as f64).floor() as i32).min(cz - 1).max(0);
    local[0] = (coord[0] * cx as f64 - ci as f64).clamp(0.0, 1.0);
    local[1] = (coord[1] * cy as f64 - cj as f64).clamp(0.0, 1.0);
    local[2] = (coord[2] * cz as f64 - ck as f64).clamp(0.0, 1.0);
    let o = order as i32;
    let ny = cy * o + 1;
    let nz = cz * o + 1;
    let mut ni = 0;
    for li in 0..=o {
        let gi = ci * o + li;
        for lj in 0..=o {
            let gj = cj * o + lj;
            for lk in 0..=o {
                nodes[ni] = (gi * ny * nz + gj * nz + ck * o + lk) as usize;
                ni += 1;
            }
        }
    }
    (order + 1).pow(3)
}

/// Rebuilds the interior nodes of a shell grid from its boundary (transfinite interpolation).
pub fn shell_track_interior(x: &mut [f64], nx: usize, ny: usize, nz: usize) {
    if nx < 3 || ny < 3 || nz < 3 {
        return;
    }
    let at = |x: &[f64], i: usize, j: usize, k: usize| -> [f64; 3] {
        let b = 3 * (i * ny * nz + j * nz + k);
        [x[b], x[b + 1], x[b + 2]]
    };
    for i in 1..nx - 1 {
        for j in 1..ny - 1 {
            for k in 1..nz - 1 {
                let s = i as f64 / (nx - 1) as f64;
                let t = j as f64 / (ny - 1) as f64;
                let u = k as f64 / (nz - 1) as f64;
                let (a, b, c) = (nx - 1, ny - 1, nz - 1);
                let mut r = [0.0; 3];
                for d in 0..3 {
                    r[d] += (1.0 - s) * at(x, 0, j, k)[d] + s * at(x, a, j, k)[d];
                }
                for d in 0..3 {
                    r[d] += (1.0 - t) * at(x, i, 0, k)[d] + t * at(x, i, b, k)[d];
                }
                for d in 0..3 {
                    r[d] += (1.0 - u) * at(x, i, j, 0)[d] + u * at(x, i, j, c)[d];
                }
                for d in 0..3 {
                    r[d] -= (1.0 - t) * (1.0 - u) * at(x, i, 0, 0)[d];
                    r[d] -= (1.0 - t) * u * at(x, i, 0, c)[d];
                    r[d] -= t * (1.0 - u) * at(x, i, b, 0)[d];
                    r[d] -= t * u * at(x, i, b, c)[d];
                }
                for d in 0..3 {
                    r[d] -= (1.0 - s) * (1.0 - u) * at(x, 0, j, 0)[d];
                    r[d] -= (1.0 - s) * u * at(x, 0, j, c)[d];
                    r[d] -= s * (1.0 - u) * at(x, a, j, 0)[d];
                    r[d] -= s * u * at(x, a, j, c)[d];
                }
                for d in 0..3 {
                    r[d] -= (1.0 - s) * (1.0 - t) * at(x, 0, 0, k)[d];
                    r[d] -= (1.0 - s) * t * at(x, 0, b, k)[d];
                    r[d] -= s * (1.0 - t) * at(x, a, 0, k)[d];
                    r[d] -= s * t * at(x, a, b, k)[d];
                }
                for d in 0..3 {
                    r[d] += (1.0 - s) * (1.0 - t) * (1.0 - u) * at(x, 0, 0, 0)[d];
                    r[d] += (1.0 - s) * (1.0 - t) * u * at(x, 0, 0, c)[d];
                    r[d] += (1.0 - s) * t * (1.0 - u) * at(x, 0, b, 0)[d];
                    r[d] += (1.0 - s) * t * u * at(x, 0, b, c)[d];
                    r[d] += s * (1.0 - t) * (1.0 - u) * at(x, a, 0, 0)[d];
                    r[d] += s * (1.0 - t) * u * at(x, a, 0, c)[d];
                    r[d] += s * t * (1.0 - u) * at(x, a, b, 0)[d];
                    r[d] += s * t * u * at(x, a, b, c)[d];
                }
                let o = 3 * (i * ny * nz + j * nz + k);
                x[o..o + 3].copy_from_slice(&r);
            }
        }
    }
}

/// World positions of the nodes of interpolated flex `f` into `out` (3 per node).
pub fn node_positions(m: &Model, d: &Data, f: usize, out: &mut [f64]) {
    let nstart = m.flex_nodeadr[f] as usize;
    let nnum = m.flex_nodenum[f] as usize;
    for j in 0..nnum {
        let i = nstart + j;
        let b = m.flex_nodebodyid[i] as usize;
        let nv = [
            m.flex_node[3 * i],
            m.flex_node[3 * i + 1],
            m.flex_node[3 * i + 2],
        ];
        let p = if m.flex_centered[f] != 0 || nv == [0.0; 3] {
            [d.xpos[3 * b], d.xpos[3 * b + 1], d.xpos[3 * b + 2]]
        } else {
            let mut mat = [0.0; 9];
            mat.copy_from_slice(&d.xmat[9 * b..9 * b + 9]);
            add3(
                &mul_mat_vec3(&mat, &nv),
                &[d.xpos[3 * b], d.xpos[3 * b + 1], d.xpos[3 * b + 2]],
            )
        };
        out[3 * j..3 * j + 3].copy_from_slice(&p);
    }
    let interp = m.flex_interp[f];
    if interp < 0 {
        let o = (-interp) as usize;
        let c = &m.flex_cellnum[3 * f..3 * f + 3];
        shell_track_interior(
            out,
            c[0] as usize * o + 1,
            c[1] as usize * o + 1,
            c[2] as usize * o + 1,
        );
    }
}

/// Per-vertex data of [`flex`]: the translational Jacobian columns `∂x_v/∂q` of the vertices on
/// simple bodies (the usual vertex bodies), computed once per step ahead of the edge rows (each
/// vertex is in several edges, about 11 in a tetrahedral grid, which had each recomputed them),
/// and the constant cell bases of the vertices of interpolated flexes.
#[derive(Debug, Clone, Default)]
pub struct VertCols {
    /// Per flex vertex (global index), its columns are `adr[v]..adr[v + 1]`, one per dof of its
    /// body in dof order; none when the body is not simple or the flex is interpolated.
    adr: Vec<usize>,
    /// World columns (m per unit of the dof).
    col: Vec<[f64; 3]>,
    /// Per vertex of an interpolated flex (global index), its cell's nodes and their basis
    /// values are `basis_adr[v]..basis_adr[v + 1]` of `basis_node`, `basis`: model constants
    /// (the cell and local coordinates come from `flex_vert0`), so looked up once.
    basis_adr: Vec<usize>,
    basis_node: Vec<usize>,
    basis: Vec<f64>,
}

impl VertCols {
    /// The columns' layout, fixed by the model.
    #[cold]
    pub fn new(m: &Model) -> Self {
        let mut adr = crate::data::with_capacity(m.nflexvert + 1);
        let mut n = 0;
        for f in 0..m.nflex {
            let vadr = m.flex_vertadr[f] as usize;
            for v in vadr..vadr + m.flex_vertnum[f] as usize {
                adr.push(n);
                if m.flex_interp[f] == 0 {
                    let b = m.flex_vertbodyid[v] as usize;
                    if m.body_simple[b] != 0 {
                        n += m.body_dofnum[b] as usize;
                    }
                }
            }
        }
        adr.push(n);
        let (mut basis_adr, mut basis_node, mut basis) = (Vec::new(), Vec::new(), Vec::new());
        let (mut local, mut nodes, mut values) = ([0.0; 3], [0usize; 27], [0.0; 27]);
        for f in 0..m.nflex {
            let vadr = m.flex_vertadr[f] as usize;
            for v in vadr..vadr + m.flex_vertnum[f] as usize {
                basis_adr.push(basis.len());
                if m.flex_interp[f] == 0 {
                    continue;
                }
                let order = m.flex_interp[f].unsigned_abs() as usize;
                let npc = cell_lookup(
                    &m.flex_vert0[3 * v..3 * v + 3],
                    &m.flex_cellnum[3 * f..3 * f + 3],
                    order,
                    &mut local,
                    &mut nodes,
                );
                eval_basis(&mut values, &local, order);
                basis_node.extend_from_slice(&nodes[..npc]);
                basis.extend_from_slice(&values[..npc]);
            }
        }
        basis_adr.push(basis.len());
        VertCols {
            adr,
            col: crate::data::zeros(n),
            basis_adr,
            basis_node,
            basis,
        }
    }

    /// The cell nodes and basis values of vertex `v` of an interpolated flex (model
    /// constants, as [`vert_node_weights`] would find them for the vertex alone).
    pub fn cell(&self, v: usize) -> (&[usize], &[f64]) {
        let (a, b) = (self.basis_adr[v], self.basis_adr[v + 1]);
        (&self.basis_node[a..b], &self.basis[a..b])
    }

    /// Columns of the simple-body vertices `v0..v1` (after their positions): per dof,
    /// `cdof_lin + cdof_ang × (x_v − subtree_com)` as `jac_sparse_simple` forms them.
    fn update(&mut self, m: &Model, d: &Data, v0: usize, v1: usize) {
        for v in v0..v1 {
            let (a, b) = (self.adr[v], self.adr[v + 1]);
            if a == b {
                continue;
            }
            let body = m.flex_vertbodyid[v] as usize;
            let root = m.body_rootid[body] as usize;
            let offset = [
                d.flexvert_xpos[3 * v] - d.subtree_com[3 * root],
                d.flexvert_xpos[3 * v + 1] - d.subtree_com[3 * root + 1],
                d.flexvert_xpos[3 * v + 2] - d.subtree_com[3 * root + 2],
            ];
            let da0 = m.body_dofadr[body] as usize;
            let cdof = &d.cdof[6 * da0..6 * (da0 + b - a)];
            for (col, c) in self.col[a..b].iter_mut().zip(cdof.chunks_exact(6)) {
                *col = point_col(c, &offset);
            }
        }
    }
}

/// Vertex positions, element boxes, edge lengths and edge Jacobians.
pub fn flex(m: &Model, d: &mut Data, s: &mut JacScratch, vc: &mut VertCols, nodebuf: &mut [f64]) {
    if m.nflex == 0 {
        return;
    }
    for f in 0..m.nflex {
        let vstart = m.flex_vertadr[f] as usize;
        let vend = vstart + m.flex_vertnum[f] as usize;
        if m.flex_interp[f] == 0 {
            for i in vstart..vend {
                let b = m.flex_vertbodyid[i] as usize;
                let v = [
                    m.flex_vert[3 * i],
                    m.flex_vert[3 * i + 1],
                    m.flex_vert[3 * i + 2],
                ];
                let bp = [d.xpos[3 * b], d.xpos[3 * b + 1], d.xpos[3 * b + 2]];
                let p = if m.flex_centered[f] != 0 || v == [0.0; 3] {
                    bp
                } else {
                    let mut mat = [0.0; 9];
                    mat.copy_from_slice(&d.xmat[9 * b..9 * b + 9]);
                    add3(&mul_mat_vec3(&mat, &v), &bp)
                };
                d.a.flexvert_xpos[3 * i..3 * i + 3].copy_from_slice(&p);
            }
        } else {
            node_positions(m, d, f, nodebuf);
            for i in vstart..vend {
                let (a, b) = (vc.basis_adr[i], vc.basis_adr[i + 1]);
                let mut r = [0.0; 3];
                for (&n, &w) in vc.basis_node[a..b].iter().zip(&vc.basis[a..b]) {
                    let x: [f64; 3] = get_n(nodebuf, n);
                    for k in 0..3 {
                        r[k] += x[k] * w;
                    }
                }
                set_n(&mut d.a.flexvert_xpos, i, r);
            }
        }
    }

    // element boxes (centre, half-size + radius)
    for f in 0..m.nflex {
        let (e0, ne) = (m.flex_elemadr[f] as usize, m.flex_elemnum[f] as usize);
        let ed0 = m.flex_elemdataadr[f] as usize;
        let nvert = m.flex_dim[f] as usize + 1;
        let elem = &m.flex_elem[ed0..ed0 + ne * nvert];
        let aabb = &mut d.a.flexelem_aabb[6 * e0..6 * (e0 + ne)];
        let (vadr, r) = (m.flex_vertadr[f] as usize, m.flex_radius[f]);
        let xpos = &d.a.flexvert_xpos[3 * vadr..];
        match nvert {
            2 => elem_boxes::<2>(elem, xpos, r, aabb),
            3 => elem_boxes::<3>(elem, xpos, r, aabb),
            4 => elem_boxes::<4>(elem, xpos, r, aabb),
            _ => unreachable!("flex dimension {}", nvert - 1),
        }
    }

    // edge lengths and Jacobians: every row of `flexedge_J` (and of `flexvert_J`) is written
    // or zeroed here, so nothing is cleared wholesale
    for f in 0..m.nflex {
        let ebase = m.flex_edgeadr[f] as usize;
        let eend = ebase + m.flex_edgenum[f] as usize;
        if m.flex_rigid[f] != 0 || m.flex_interp[f] != 0 {
            // no edge Jacobian: the compiler gives these edges empty rows
            debug_assert!((ebase..eend).all(|e| m.flexedge_J_rownnz[e] == 0));
            continue;
        }
        let skipjac = m.flex_edgeequality[f] != 1
            && m.flex_edgedamping[f] == 0.0
            && m.flex_edgestiffness[f] == 0.0
            && m.flex_damping[f] == 0.0;
        let vbase = m.flex_vertadr[f] as usize;
        if !skipjac && m.nv > 0 {
            vc.update(m, d, vbase, vbase + m.flex_vertnum[f] as usize);
        }
        for ei in ebase..eend {
            let v1 = vbase + m.flex_edge[2 * ei] as usize;
            let v2 = vbase + m.flex_edge[2 * ei + 1] as usize;
            let b1 = m.flex_vertbodyid[v1] as usize;
            let b2 = m.flex_vertbodyid[v2] as usize;
            let p1 = [
                d.flexvert_xpos[3 * v1],
                d.flexvert_xpos[3 * v1 + 1],
                d.flexvert_xpos[3 * v1 + 2],
            ];
            let p2 = [
                d.flexvert_xpos[3 * v2],
                d.flexvert_xpos[3 * v2 + 1],
                d.flexvert_xpos[3 * v2 + 2],
            ];
            let mut vec = sub3(&p2, &p1);
            d.a.flexedge_length[ei] = normalize3(&mut vec);
            let adr = m.flexedge_J_rowadr[ei] as usize;
            let nnz = m.flexedge_J_rownnz[ei] as usize;
            // an empty row: no dofs, or a rigid flex's edge in the compiler's pass (`set_const`
            // clears flex_rigid to measure rigid flexes' rest lengths too; there MuJoCo 3.15.0
            // writes a damped edge's Jacobian past its empty row, into flexedge_length)
            if skipjac || m.nv == 0 || nnz == 0 {
                d.a.flexedge_J[adr..adr + nnz].fill(0.0);
                continue;
            }
            let nv = if b1 != b2 && m.body_simple[b1] != 0 && m.body_simple[b2] != 0 {
                // two simple bodies (the usual vertex bodies): the row straight from their
                // `cdof`, the same products and sums as `jac_dif_pair` then the projection
                let n1 = m.body_dofnum[b1] as usize;
                let n2 = m.body_dofnum[b2] as usize;
                let (s1, s2) = if b1 < b2 { (0, n1) } else { (n2, 0) };
                let row = &mut d.a.flexedge_J;
                if n1 == 3 && n2 == 3 {
                    // three slides each, the usual vertex bodies: fixed-size, unrolled
                    let r: &mut [f64; 6] = (&mut row[adr..adr + 6]).try_into().unwrap();
                    let (r1, r2) = (
                        edge_cols3(vc, v1, true, &vec),
                        edge_cols3(vc, v2, false, &vec),
                    );
                    let (lo, hi) = if s1 == 0 { (r1, r2) } else { (r2, r1) };
                    r[..3].copy_from_slice(&lo);
                    r[3..].copy_from_slice(&hi);
                } else {
                    edge_row_simple(vc, &mut row[adr + s1..adr + s1 + n1], v1, true, &vec);
                    edge_row_simple(vc, &mut row[adr + s2..adr + s2 + n2], v2, false, &vec);
                }
                n1 + n2
            } else {
                let nv = jac_dif_pair(m, d, s, b1, b2, &p1, &p2, false);
                for c in 0..nv {
                    d.a.flexedge_J[adr + c] = s.jacdif[c] * vec[0]
                        + s.jacdif[c + nv] * vec[1]
                        + s.jacdif[c + 2 * nv] * vec[2];
                }
                nv
            };
            if nnz > nv {
                d.a.flexedge_J[adr + nv..adr + nnz].fill(0.0);
            }
        }
        if m.flex_dim[f] == 2 && m.flex_edgeequality[f] == 2 {
            let vb = m.flex_vertadr[f] as usize;
            for row in 2 * vb..2 * (vb + m.flex_vertnum[f] as usize) {
                let adr = m.flexvert_J_rowadr[row] as usize;
                let nnz = m.flexvert_J_rownnz[row] as usize;
                d.a.flexvert_J[adr..adr + nnz].fill(0.0);
            }
            super::flexvert::vert_lengths(m, d, s, f);
        }
    }
}

/// Boxes (centre, then half-size plus `radius`) of the elements of `N` vertices whose local
/// vertex indices are `elem` (`N` per element), from the flex's vertex positions `xpos` (3 per
/// vertex).
/// The element size is a compile-time constant so the vertex loop unrolls and the indexing
/// needs no per-coordinate bounds checks (on a trilinear box the boxes were a third of
/// `flex`).
fn elem_boxes<const N: usize>(elem: &[i32], xpos: &[f64], radius: f64, aabb: &mut [f64]) {
    // x and y in two lanes, z in both lanes of another: the browser's min and max are then
    // one instruction each (as scalar selects they became branches, which mispredict)
    let point = |v: i32| {
        let x: [f64; 3] = get_n(xpos, v as usize);
        (F64x2::new(x[0], x[1]), F64x2::splat(x[2]))
    };
    let (half, r) = (F64x2::splat(0.5), F64x2::splat(radius));
    for (ev, out) in elem.chunks_exact(N).zip(aabb.chunks_exact_mut(6)) {
        let ev: &[i32; N] = ev.try_into().unwrap();
        let (mut lo_xy, mut lo_z) = point(ev[0]);
        let (mut hi_xy, mut hi_z) = (lo_xy, lo_z);
        for &v in &ev[1..] {
            let (xy, z) = point(v);
            lo_xy = lo_xy.min(xy);
            hi_xy = hi_xy.max(xy);
            lo_z = lo_z.min(z);
            hi_z = hi_z.max(z);
        }
        let (c_xy, c_z) = (half * (hi_xy + lo_xy), half * (hi_z + lo_z));
        let (s_xy, s_z) = (half * (hi_xy - lo_xy) + r, half * (hi_z - lo_z) + r);
        let ([cx, cy], [cz, _]) = (c_xy.lanes(), c_z.lanes());
        let ([sx, sy], [sz, _]) = (s_xy.lanes(), s_z.lanes());
        *<&mut [f64; 6]>::try_from(out).unwrap() = [cx, cy, cz, sx, sy, sz];
    }
}

/// The columns of vertex `v`'s simple body in an edge row: `±J(v)ᵀ·vec`, negated for the
/// first vertex, as `jac_sparse_simple` followed by the projection in [`flex`].
#[inline]
fn edge_row_simple(vc: &VertCols, row: &mut [f64], v: usize, first: bool, vec: &[f64; 3]) {
    let cols = &vc.col[vc.adr[v]..vc.adr[v + 1]];
    for (r, c) in row.iter_mut().zip(cols) {
        let mut v = *c;
        if first {
            v = [-v[0], -v[1], -v[2]];
        }
        *r = v[0] * vec[0] + v[1] * vec[1] + v[2] * vec[2];
    }
}

/// [`edge_row_simple`] for a vertex whose body has three dofs.
#[inline(always)]
fn edge_cols3(vc: &VertCols, v: usize, first: bool, vec: &[f64; 3]) -> [f64; 3] {
    let a = vc.adr[v];
    let cols: &[[f64; 3]; 3] = vc.col[a..a + 3].try_into().unwrap();
    cols.map(|c| {
        let c = if first { [-c[0], -c[1], -c[2]] } else { c };
        c[0] * vec[0] + c[1] * vec[1] + c[2] * vec[2]
    })
}

/// An edge row of `flexedge_J` (values, columns) as fixed-size arrays when it has six entries,
/// the usual row (an edge between two vertex bodies of three slides each), so the loops over
/// it unroll and need no bounds checks on the row.
#[inline(always)]
pub(super) fn usual_edge_row<'a>(
    row: &'a [f64],
    cols: &'a [i32],
) -> Option<(&'a [f64; 6], &'a [i32; 6])> {
    Some((row.try_into().ok()?, cols.try_into().ok()?))
}

/// `flexedge_velocity = flexedge_J · qvel` for vertex flexes.
pub fn edge_velocity(m: &Model, d: &mut Data) {
    d.a.flexedge_velocity.fill(0.0);
    for f in 0..m.nflex {
        if m.flex_rigid[f] != 0 || m.flex_interp[f] != 0 {
            continue;
        }
        let adr = m.flex_edgeadr[f] as usize;
        for e in adr..adr + m.flex_edgenum[f] as usize {
            let ra = m.flexedge_J_rowadr[e] as usize;
            let n = m.flexedge_J_rownnz[e] as usize;
            let (row, cols) = (
                &d.a.flexedge_J[ra..ra + n],
                &m.flexedge_J_colind[ra..ra + n],
            );
            let v = match usual_edge_row(row, cols) {
                Some((row, cols)) => super::inertia::dot_sparse_n(row, &d.a.qvel, cols),
                None => super::solver::dot_sparse_avx(row, &d.a.qvel, cols),
            };
            d.a.flexedge_velocity[e] = v;
        }
    }
}

/// Maps weighted vertices of interpolated flex `f` onto its node bodies (`mj_vertBodyWeight`):
/// the weighted parametric point selects a cell, whose basis values weight the node bodies.
/// As in MuJoCo, basis values below 1e-5 are dropped (so are the negative values of quadratic
/// bases), a body reached twice gets one summed weight, and in shell mode an interior node's
/// weight is redistributed onto the boundary nodes its position is tracked from (TFI).
///
/// A single vertex of unit weight (a vertex contact) takes its cell and basis from `vc`, where
/// they were found once from the same point: the lookup and basis were most of the mapping.
pub fn vert_node_weights(
    m: &Model,
    vc: &VertCols,
    f: usize,
    verts: &[(usize, f64)],
    sign: f64,
    out: &mut Vec<(usize, f64)>,
) {
    let interp = m.flex_interp[f];
    let order = interp.unsigned_abs() as usize;
    let c = &m.flex_cellnum[3 * f..3 * f + 3];
    let mut nodes = [0usize; 27];
    let mut basis = [0.0; 27];
    let single = match *verts {
        [(v, w)] if w.abs() == 1.0 => Some(v),
        _ => None,
    };
    let n = if let Some(v) = single {
        let (cn, cb) = vc.cell(v);
        nodes[..cn.len()].copy_from_slice(cn);
        basis[..cb.len()].copy_from_slice(cb);
        cn.len()
    } else {
        let mut u = [0.0; 3];
        for &(v, w) in verts {
            for k in 0..3 {
                u[k] += w.abs() * m.flex_vert0[3 * v + k];
            }
        }
        let mut local = [0.0; 3];
        let n = cell_lookup(&u, c, order, &mut local, &mut nodes);
        eval_basis(&mut basis, &local, order);
        n
    };
    let nstart = m.flex_nodeadr[f] as usize;
    let grid = [
        c[0] as usize * order + 1,
        c[1] as usize * order + 1,
        c[2] as usize * order + 1,
    ];
    let first = out.len();
    let add = |out: &mut Vec<(usize, f64)>, node: usize, w: f64| {
        let b = m.flex_nodebodyid[nstart + node] as usize;
        match out[first..].iter_mut().find(|e| e.0 == b) {
            Some(e) => e.1 += w,
            None => out.push((b, w)),
        }
    };
    for k in 0..n {
        let w = basis[k];
        if w < 1e-5 {
            continue;
        }
        let idx = nodes[k];
        // only a shell has interior nodes to redistribute: the grid coordinates (three integer
        // divisions, a fifth of a contact's Jacobian on a small trilinear flex) are needed there
        if interp < 0 {
            let (i, j, kk) = (
                idx / (grid[1] * grid[2]),
                (idx / grid[2]) % grid[1],
                idx % grid[2],
            );
            let interior = (1..grid[0] - 1).contains(&i)
                && (1..grid[1] - 1).contains(&j)
                && (1..grid[2] - 1).contains(&kk);
            if interior {
                tfi_weights(grid, [i, j, kk], sign * w, &mut |node, w| add(out, node, w));
                continue;
            }
        }
        add(out, idx, sign * w);
    }
}

/// The boundary-node weights of interior grid node `ijk` under the shell's transfinite
/// interpolation ([`shell_track_interior`]), times `w` (`mju_shellTFIWeights`, same order).
fn tfi_weights(grid: [usize; 3], ijk: [usize; 3], w: f64, add: &mut dyn FnMut(usize, f64)) {
    let [nx, ny, nz] = grid;
    let [i, j, k] = ijk;
    let s = i as f64 / (nx - 1) as f64;
    let t = j as f64 / (ny - 1) as f64;
    let u = k as f64 / (nz - 1) as f64;
    let (a, b, c) = (nx - 1, ny - 1, nz - 1);
    let g = |i: usize, j: usize, k: usize| i * ny * nz + j * nz + k;
    add(g(0, j, k), w * (1.0 - s));
    add(g(a, j, k), w * s);
    add(g(i, 0, k), w * (1.0 - t));
    add(g(i, b, k), w * t);
    add(g(i, j, 0), w * (1.0 - u));
    add(g(i, j, c), w * u);
    add(g(i, 0, 0), -w * (1.0 - t) * (1.0 - u));
    add(g(i, 0, c), -w * (1.0 - t) * u);
    add(g(i, b, 0), -w * t * (1.0 - u));
    add(g(i, b, c), -w * t * u);
    add(g(0, j, 0), -w * (1.0 - s) * (1.0 - u));
    add(g(0, j, c), -w * (1.0 - s) * u);
    add(g(a, j, 0), -w * s * (1.0 - u));
    add(g(a, j, c), -w * s * u);
    add(g(0, 0, k), -w * (1.0 - s) * (1.0 - t));
    add(g(0, b, k), -w * (1.0 - s) * t);
    add(g(a, 0, k), -w * s * (1.0 - t));
    add(g(a, b, k), -w * s * t);
    add(g(0, 0, 0), w * (1.0 - s) * (1.0 - t) * (1.0 - u));
    add(g(0, 0, c), w * (1.0 - s) * (1.0 - t) * u);
    add(g(0, b, 0), w * (1.0 - s) * t * (1.0 - u));
    add(g(0, b, c), w * (1.0 - s) * t * u);
    add(g(a, 0, 0), w * s * (1.0 - t) * (1.0 - u));
    add(g(a, 0, c), w * s * (1.0 - t) * u);
    add(g(a, b, 0), w * s * t * (1.0 - u));
    add(g(a, b, c), w * s * t * u);
}
