//! Constraint islands (MuJoCo's `mj_island`): kinematic trees coupled by constraint rows, or by
//! the stiffness of a flex that spans them, form one island; the solvers treat each island as
//! its own problem on island-local dofs and rows.

use crate::data::{cnstr, Data};
use crate::model::{disable, Model};

/// "No tree" / "no island" in the index arrays.
const NONE: usize = usize::MAX;

/// This step's islands: for island `k`, its dofs are `dofs[dof_adr[k]..dof_adr[k + 1]]` and its
/// rows `efcs[efc_adr[k]..efc_adr[k + 1]]`, both ascending (MuJoCo's `map_idof2dof` and
/// `map_iefc2efc` order). Islands are numbered by their smallest tree, as MuJoCo numbers them.
#[derive(Debug, Clone, Default)]
pub struct Islands {
    /// Number of islands (0: islands disabled or no rows).
    pub nisland: usize,
    pub dof_adr: Vec<usize>,
    pub dofs: Vec<usize>,
    pub efc_adr: Vec<usize>,
    pub efcs: Vec<usize>,
    /// Union-find over trees (`NONE`: the tree is in no island).
    parent: Vec<usize>,
    /// Island of each tree (`NONE`: unconstrained).
    tree_island: Vec<usize>,
    /// Tree of each row: the first its constraint touches (MuJoCo's `efc_tree`).
    efc_tree: Vec<usize>,
    /// Model constant: pairs of trees that a stiff or passive-contact flex couples without any
    /// constraint row (a star around the flex's first tree with dofs).
    flex_pairs: Vec<(usize, usize)>,
}

/// Whether flex `f` couples all its vertices (or nodes) outside the constraint rows: a
/// deformable flex of dimension 2 or 3 with stretch or bending stiffness, or with passive
/// contacts (both enter the effective metric, so MuJoCo 3.15.0 keeps the flex in one island).
fn flex_couples(m: &Model, f: usize) -> bool {
    if m.flex_rigid[f] != 0 || m.flex_dim[f] < 2 {
        return false;
    }
    let sadr = m.flex_stiffnessadr[f];
    let stiff = m.flex_bendingadr[f] >= 0 || (sadr >= 0 && m.flex_stiffness[sadr as usize] != 0.0);
    stiff || m.flex_passive[f] != 0
}

/// Whether constraint `(ty, id)` is a flex equality (`mjEQ_FLEX`, `FLEXVERT`, `FLEXSTRAIN`),
/// whose rows MuJoCo's islands scan one by one.
fn is_flex_equality(m: &Model, ty: i32, id: i32) -> bool {
    ty == cnstr::EQUALITY && (4..=6).contains(&m.eq_type[id as usize])
}

/// The two trees (negative: static) MuJoCo's `mj_island` takes for a constraint without looking
/// at its Jacobian: a dof's friction, a joint's limit, a contact between two geoms, a connect or
/// weld; `None` for the others, whose trees it scans from the first row.
fn constraint_trees(m: &Model, d: &Data, ty: i32, id: i32) -> Option<(i32, i32)> {
    let id = id as usize;
    let body_tree = |b: usize| m.body_treeid[b];
    match ty {
        cnstr::FRICTION_DOF => Some((m.dof_treeid[id], -1)),
        cnstr::LIMIT_JOINT => Some((m.dof_treeid[m.jnt_dofadr[id] as usize], -1)),
        cnstr::CONTACT_FRICTIONLESS | cnstr::CONTACT_PYRAMIDAL | cnstr::CONTACT_ELLIPTIC => {
            let [g1, g2] = d.contact[id].geom;
            (g1 >= 0 && g2 >= 0).then(|| {
                (
                    body_tree(m.geom_bodyid[g1 as usize] as usize),
                    body_tree(m.geom_bodyid[g2 as usize] as usize),
                )
            })
        }
        cnstr::EQUALITY if m.eq_type[id] <= 1 => {
            let (o1, o2) = (m.eq_obj1id[id] as usize, m.eq_obj2id[id] as usize);
            let (b1, b2) = if m.eq_objtype[id] == crate::model::obj::SITE {
                (m.site_bodyid[o1] as usize, m.site_bodyid[o2] as usize)
            } else {
                (o1, o2)
            };
            Some((body_tree(b1), body_tree(b2)))
        }
        _ => None,
    }
}

impl Islands {
    /// Buffers sized for the model and the row capacity; the flex couplings are found once.
    #[cold]
    pub fn new(m: &Model, maxefc: usize) -> Self {
        let mut flex_pairs = Vec::new();
        for f in 0..m.nflex {
            if !flex_couples(m, f) {
                continue;
            }
            let (adr, num, body) = if m.flex_interp[f] != 0 {
                (m.flex_nodeadr[f], m.flex_nodenum[f], &m.flex_nodebodyid)
            } else {
                (m.flex_vertadr[f], m.flex_vertnum[f], &m.flex_vertbodyid)
            };
            let mut first = NONE;
            for j in adr as usize..(adr + num) as usize {
                let t = m.body_treeid[body[j] as usize];
                if t < 0 || t as usize == first {
                    continue;
                }
                if first == NONE {
                    first = t as usize;
                } else {
                    flex_pairs.push((first, t as usize));
                }
            }
        }
        Islands {
            nisland: 0,
            dof_adr: crate::data::with_capacity(m.ntree + 2),
            dofs: crate::data::with_capacity(m.nv),
            efc_adr: crate::data::with_capacity(m.ntree + 2),
            efcs: crate::data::with_capacity(maxefc),
            parent: crate::data::with_capacity(m.ntree),
            tree_island: crate::data::with_capacity(m.ntree),
            efc_tree: crate::data::with_capacity(maxefc),
            flex_pairs,
        }
    }

    /// Island of dof `i` (`NONE` if it is unconstrained); valid after `find`.
    pub fn dof_island(&self, m: &Model, i: usize) -> usize {
        self.tree_island[m.dof_treeid[i] as usize]
    }

    /// Finds this step's islands from the rows' Jacobians (`mj_island`). Leaves `nisland = 0`
    /// when islands are disabled, there are no rows, or a row touches no dof.
    pub fn find(&mut self, m: &Model, d: &Data) {
        self.nisland = 0;
        let n = d.nefc;
        if m.opt.disabled(disable::ISLAND) || n == 0 || m.ntree == 0 {
            return;
        }
        let parent = &mut self.parent;
        parent.clear();
        parent.resize(m.ntree, NONE);
        fn root(p: &mut [usize], mut t: usize) -> usize {
            while p[t] != t {
                p[t] = p[p[t]];
                t = p[t];
            }
            t
        }
        // activate both trees and link the larger root under the smaller (`mj_dsuMerge`)
        fn merge(p: &mut [usize], a: usize, b: usize) {
            if p[a] == NONE {
                p[a] = a;
            }
            if p[b] == NONE {
                p[b] = b;
            }
            let (ra, rb) = (root(p, a), root(p, b));
            if ra < rb {
                p[rb] = ra;
            } else if rb < ra {
                p[ra] = rb;
            }
        }
        let dense = !super::constraint::sparse_jacobian(m);
        self.efc_tree.clear();
        self.efc_tree.resize(n, NONE);
        for r in 0..n {
            let (ty, id) = (d.a.efc_type[r], d.a.efc_id[r]);
            // the rows of one constraint take the trees of its first row, as MuJoCo scans only
            // that one (a pyramid's first edge may miss a dof its other edges move: that dof's
            // tree then stays out, and MuJoCo leaves it at its smooth acceleration); a flex
            // equality's rows each hold other vertices
            if r > 0
                && ty == d.a.efc_type[r - 1]
                && id == d.a.efc_id[r - 1]
                && !is_flex_equality(m, ty, id)
            {
                self.efc_tree[r] = self.efc_tree[r - 1];
                continue;
            }
            let (mut first, mut prev) = (NONE, NONE);
            let mut link = |t: i32| {
                if t < 0 {
                    return;
                }
                let t = t as usize;
                if first == NONE {
                    first = t;
                    merge(parent, t, t);
                } else if t != prev {
                    merge(parent, prev, t);
                }
                prev = t;
            };
            if let Some((t1, t2)) = constraint_trees(m, d, ty, id) {
                link(t1);
                link(t2);
            } else {
                // MuJoCo's generic scan: the row's columns in a sparse model, its nonzero
                // entries in a dense one
                let adr = d.a.efc_J_rowadr[r] as usize;
                let k = d.a.efc_J_rownnz[r] as usize;
                let (cols, vals) = (&d.a.efc_J_colind[adr..adr + k], &d.a.efc_J[adr..adr + k]);
                for (&c, &v) in cols.iter().zip(vals) {
                    if !(dense && v == 0.0) {
                        link(m.dof_treeid[c as usize]);
                    }
                }
            }
            if first == NONE {
                return;
            }
            self.efc_tree[r] = first;
        }
        for &(a, b) in &self.flex_pairs {
            merge(parent, a, b);
        }
        // number the islands by ascending root tree (`mj_dsuAssign`)
        self.tree_island.clear();
        self.tree_island.resize(m.ntree, NONE);
        let mut nisland = 0;
        for t in 0..m.ntree {
            if parent[t] == NONE {
                continue;
            }
            let r = root(parent, t);
            if r == t {
                self.tree_island[t] = nisland;
                nisland += 1;
            } else {
                self.tree_island[t] = self.tree_island[r];
            }
        }
        self.nisland = nisland;
        // counting sort of dofs and rows by island, ascending within each
        let ti = &self.tree_island;
        let efc_tree = &self.efc_tree;
        let island_of_row = |r: usize| ti[efc_tree[r]];
        let island_of_dof = |i: usize| ti[m.dof_treeid[i] as usize];
        let dof = |_, i: usize| (island_of_dof(i) != NONE).then(|| (island_of_dof(i), i));
        bucket(
            nisland,
            &mut self.dof_adr,
            &mut self.dofs,
            1,
            |_| 0..m.nv,
            dof,
            0,
        );
        let row = |_, r: usize| (island_of_row(r) != NONE).then(|| (island_of_row(r), r));
        bucket(
            nisland,
            &mut self.efc_adr,
            &mut self.efcs,
            1,
            |_| 0..n,
            row,
            0,
        );
    }

    /// Dofs of island `k`.
    pub fn island_dofs(&self, k: usize) -> &[usize] {
        &self.dofs[self.dof_adr[k]..self.dof_adr[k + 1]]
    }

    /// Rows of island `k`.
    pub fn island_efcs(&self, k: usize) -> &[usize] {
        &self.efcs[self.efc_adr[k]..self.efc_adr[k + 1]]
    }
}

/// Counting sort into buckets: `ptr[b]..ptr[b + 1]` of `out` holds, in order, the items
/// whose key is `b`. The items are `item(r, k)` for each source row `r < nrows` and `k` in
/// `range(r)`, `None` to drop one. Plain nested loops over the rows (not a cloned iterator
/// chain): the rows' transposed Jacobian is sorted this way every step, and in wasm the
/// iterator form was 6% of a small model's step.
pub(super) fn bucket<T: Copy>(
    nb: usize,
    ptr: &mut Vec<usize>,
    out: &mut Vec<T>,
    nrows: usize,
    range: impl Fn(usize) -> std::ops::Range<usize>,
    item: impl Fn(usize, usize) -> Option<(usize, T)>,
    fill: T,
) {
    ptr.clear();
    ptr.resize(nb + 2, 0);
    for r in 0..nrows {
        for k in range(r) {
            if let Some((b, _)) = item(r, k) {
                ptr[b + 2] += 1;
            }
        }
    }
    for b in 2..nb + 2 {
        ptr[b] += ptr[b - 1];
    }
    out.clear();
    out.resize(ptr[nb + 1], fill);
    for r in 0..nrows {
        for k in range(r) {
            if let Some((b, it)) = item(r, k) {
                out[ptr[b + 1]] = it;
                ptr[b + 1] += 1;
            }
        }
    }
    ptr.pop();
}
