//! Constants of the vertex-equality constraint of 2D flexes (`edge equality="vert"`, MuJoCo's
//! `mjEQ_FLEXVERT`, after Chen, Kry and Vouga, "Locking-free simulation of isometric thin
//! plates", 2019), as `mj_setConst` makes them: the per-vertex list of incident edges, the
//! inverse weighted rest metric `flex_vertmetric`, the sparsity of the two rows per vertex in
//! `flexvert_J`, and the rotation of `flex_vert0` into the XY plane (`mj_alignFlex`).

use crate::engine::flexvert::{neighbour_weight, rest_edge};
use crate::engine::jacobian;
use crate::error::{Error, Result};
use crate::math::{self, MINVAL};
use crate::model::Model;

/// Whether flex `f` carries the vertex-equality rows.
pub fn has_vert_equality(m: &Model, f: usize) -> bool {
    m.flex_dim[f] == 2
        && m.flex_edgeequality[f] == 2
        && m.flex_rigid[f] == 0
        && m.flex_interp[f] == 0
}

/// `nJfv`: for every vertex of a non-rigid, non-interpolated flex, the dofs of the ancestors
/// of its own body and of its edge neighbours' bodies (the compiler sizes every such flex,
/// whether or not it has vertex equality).
pub fn count_njfv(m: &Model) -> usize {
    let mut total = 0;
    let mut seen = vec![false; m.nbody];
    let mut bodies = Vec::new();
    for f in 0..m.nflex {
        if m.flex_rigid[f] != 0 || m.flex_interp[f] != 0 {
            continue;
        }
        let vb = m.flex_vertadr[f] as usize;
        let nvert = m.flex_vertnum[f] as usize;
        let mut adj: Vec<Vec<usize>> = vec![Vec::new(); nvert];
        let e0 = m.flex_edgeadr[f] as usize;
        for e in e0..e0 + m.flex_edgenum[f] as usize {
            let (a, b) = (m.flex_edge[2 * e] as usize, m.flex_edge[2 * e + 1] as usize);
            adj[a].push(b);
            adj[b].push(a);
        }
        for (v, nb) in adj.iter().enumerate() {
            for &u in std::iter::once(&v).chain(nb) {
                let mut b = m.flex_vertbodyid[vb + u] as usize;
                loop {
                    if !seen[b] {
                        seen[b] = true;
                        bodies.push(b);
                    }
                    if b == 0 {
                        break;
                    }
                    b = m.body_parentid[b] as usize;
                }
            }
            for &b in &bodies {
                total += m.body_dofnum[b] as usize;
                seen[b] = false;
            }
            bodies.clear();
        }
    }
    total
}

/// Fills `flex_vertedge*`, `flex_vertmetric` and `flexvert_J_*` for vertex-equality flexes,
/// then rotates their `flex_vert0` so the first element's normal is +Z. As in MuJoCo the metric
/// is computed before the rotation, so a flex must lie parallel to the XY plane at qpos0.
pub fn vert_sparse(m: &mut Model) -> Result<()> {
    let nvtot = m.nflexvert;
    m.flex_vertedgeadr = vec![0; nvtot];
    m.flex_vertedgenum = vec![0; nvtot];
    m.flex_vertedge = vec![0; 2 * m.nflexedge];
    m.flex_vertmetric = vec![0.0; 4 * nvtot];
    m.flexvert_J_rownnz = vec![0; 2 * nvtot];
    m.flexvert_J_rowadr = vec![0; 2 * nvtot];
    m.nJfv = count_njfv(m);
    let mut colind: Vec<i32> = Vec::new();
    let mut adj_offset = 0usize;
    let mut chain = vec![0i32; m.nv.max(1)];
    let mut used = vec![false; m.nv];
    for f in 0..m.nflex {
        if !has_vert_equality(m, f) {
            continue;
        }
        let vb = m.flex_vertadr[f] as usize;
        let nvert = m.flex_vertnum[f] as usize;
        let e0 = m.flex_edgeadr[f] as usize;
        let en = m.flex_edgenum[f] as usize;

        // incident edges per vertex, flex-local edge ids in ascending order
        for e in e0..e0 + en {
            m.flex_vertedgenum[vb + m.flex_edge[2 * e] as usize] += 1;
            m.flex_vertedgenum[vb + m.flex_edge[2 * e + 1] as usize] += 1;
        }
        let mut adr = adj_offset;
        for v in 0..nvert {
            m.flex_vertedgeadr[vb + v] = adr as i32;
            adr += m.flex_vertedgenum[vb + v] as usize;
        }
        let mut fill = vec![0usize; nvert];
        for e in 0..en {
            for k in 0..2 {
                let v = m.flex_edge[2 * (e0 + e) + k] as usize;
                m.flex_vertedge[m.flex_vertedgeadr[vb + v] as usize + fill[v]] = e as i32;
                fill[v] += 1;
            }
        }
        adj_offset = adr;

        // B = Σ w·X Xᵀ over the in-plane block; its inverse is the metric
        for v in 0..nvert {
            let mut bm = [0.0; 4];
            for k in 0..m.flex_vertedgenum[vb + v] as usize {
                let e = e0 + m.flex_vertedge[m.flex_vertedgeadr[vb + v] as usize + k] as usize;
                let dx = rest_edge(m, f, e);
                if dx[2].abs() > MINVAL {
                    return Err(Error::engine("flex vertices are not in the same plane"));
                }
                let w = neighbour_weight(m, f, e, v);
                for r in 0..2 {
                    for c in 0..2 {
                        bm[2 * r + c] += w * dx[r] * dx[c];
                    }
                }
            }
            let det = bm[0] * bm[3] - bm[1] * bm[2];
            if det.abs() >= MINVAL {
                let inv = 1.0 / det;
                let out = &mut m.flex_vertmetric[4 * (vb + v)..4 * (vb + v) + 4];
                out.copy_from_slice(&[bm[3] * inv, -bm[1] * inv, -bm[2] * inv, bm[0] * inv]);
            }
        }

        // both rows of a vertex: the dofs of every body on its incident edges, ascending
        for v in 0..nvert {
            for k in 0..m.flex_vertedgenum[vb + v] as usize {
                let e = e0 + m.flex_vertedge[m.flex_vertedgeadr[vb + v] as usize + k] as usize;
                for end in 0..2 {
                    let b = m.flex_vertbodyid[vb + m.flex_edge[2 * e + end] as usize] as usize;
                    let n = jacobian::body_chain(m, b, &mut chain);
                    for &c in &chain[..n] {
                        used[c as usize] = true;
                    }
                }
            }
            let start = colind.len();
            colind.extend((0..m.nv).filter(|&j| used[j]).map(|j| j as i32));
            used.fill(false);
            let nnz = colind.len() - start;
            colind.extend_from_within(start..start + nnz);
            let row = 2 * (vb + v);
            m.flexvert_J_rownnz[row] = nnz as i32;
            m.flexvert_J_rownnz[row + 1] = nnz as i32;
            m.flexvert_J_rowadr[row] = start as i32;
            m.flexvert_J_rowadr[row + 1] = (start + nnz) as i32;
        }
    }
    // rows of other flexes are empty at address 0, except the row just after a
    // vertex-equality flex, which MuJoCo points at the end of that flex's rows
    let mut owned = vec![false; 2 * nvtot];
    for f in (0..m.nflex).filter(|&f| has_vert_equality(m, f)) {
        let vb = m.flex_vertadr[f] as usize;
        owned[2 * vb..2 * (vb + m.flex_vertnum[f] as usize)].fill(true);
    }
    for r in 0..2 * nvtot {
        if !owned[r] {
            m.flexvert_J_rowadr[r] = if r > 0 && owned[r - 1] {
                m.flexvert_J_rowadr[r - 1] + m.flexvert_J_rownnz[r - 1]
            } else {
                0
            };
        }
    }
    let size = (2 * m.nJfv).max(colind.len());
    colind.resize(size, 0);
    m.flexvert_J_colind = colind;
    align(m);
    Ok(())
}

/// `mj_alignFlex`: rotate each vertex-equality flex's `flex_vert0` so that the normal of its
/// first element maps to +Z.
fn align(m: &mut Model) {
    for f in 0..m.nflex {
        if !(m.flex_dim[f] == 2 && m.flex_edgeequality[f] == 2) {
            continue;
        }
        let vb = m.flex_vertadr[f] as usize;
        let ed = m.flex_elemdataadr[f] as usize;
        let corner = |i: usize| -> [f64; 3] {
            let v = vb + m.flex_elem[ed + i] as usize;
            [
                m.flex_vert0[3 * v],
                m.flex_vert0[3 * v + 1],
                m.flex_vert0[3 * v + 2],
            ]
        };
        let (t0, t1, t2) = (corner(0), corner(1), corner(2));
        let mut normal = math::cross(&math::sub3(&t1, &t0), &math::sub3(&t2, &t0));
        math::normalize3(&mut normal);
        let mat = math::quat_to_mat(&math::quat_z_to_vec(&normal));
        for v in vb..vb + m.flex_vertnum[f] as usize {
            let p = [
                m.flex_vert0[3 * v],
                m.flex_vert0[3 * v + 1],
                m.flex_vert0[3 * v + 2],
            ];
            let r = math::mul_mat_t_vec3(&mat, &p);
            m.flex_vert0[3 * v..3 * v + 3].copy_from_slice(&r);
        }
    }
}
