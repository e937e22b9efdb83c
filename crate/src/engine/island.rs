//! Constraint islands (MuJoCo's `mj_island`): kinematic trees coupled by constraint rows, or by
//! the stiffness of a flex that spans them, form one island; the solvers treat each island as
//! its own problem on island-local dofs and rows.

use crate::data::Data;
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
    /// Fill counters per island.
    count: Vec<usize>,
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

impl Islands {
    /// Buffers sized for the model and the row capacity; the flex couplings are found once.
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
            dof_adr: Vec::with_capacity(m.ntree + 1),
            dofs: Vec::with_capacity(m.nv),
            efc_adr: Vec::with_capacity(m.ntree + 1),
            efcs: Vec::with_capacity(maxefc),
            parent: Vec::with_capacity(m.ntree),
            tree_island: Vec::with_capacity(m.ntree),
            count: Vec::with_capacity(m.ntree + 1),
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
        for r in 0..n {
            let adr = d.a.efc_J_rowadr[r] as usize;
            let cols = &d.a.efc_J_colind[adr..adr + d.a.efc_J_rownnz[r] as usize];
            let Some(&c0) = cols.first() else {
                return;
            };
            let t0 = m.dof_treeid[c0 as usize] as usize;
            merge(parent, t0, t0);
            for &c in &cols[1..] {
                let t = m.dof_treeid[c as usize] as usize;
                if t != t0 {
                    merge(parent, t0, t);
                }
            }
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
        let island_of_row = |r: usize| {
            let c = d.a.efc_J_colind[d.a.efc_J_rowadr[r] as usize] as usize;
            ti[m.dof_treeid[c] as usize]
        };
        let island_of_dof = |i: usize| ti[m.dof_treeid[i] as usize];
        fill(
            nisland,
            &mut self.count,
            &mut self.dof_adr,
            &mut self.dofs,
            (0..m.nv).map(island_of_dof),
        );
        fill(
            nisland,
            &mut self.count,
            &mut self.efc_adr,
            &mut self.efcs,
            (0..n).map(island_of_row),
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

/// Groups items `0..` by their island (`NONE`: dropped) into `out`, with `adr[k]..adr[k + 1]`
/// the items of island `k` in ascending order.
fn fill(
    nisland: usize,
    count: &mut Vec<usize>,
    adr: &mut Vec<usize>,
    out: &mut Vec<usize>,
    island: impl Iterator<Item = usize> + Clone,
) {
    count.clear();
    count.resize(nisland, 0);
    for k in island.clone() {
        if k != NONE {
            count[k] += 1;
        }
    }
    adr.clear();
    adr.push(0);
    for k in 0..nisland {
        adr.push(adr[k] + count[k]);
        count[k] = adr[k];
    }
    out.clear();
    out.resize(adr[nisland], 0);
    for (i, k) in island.enumerate() {
        if k != NONE {
            out[count[k]] = i;
            count[k] += 1;
        }
    }
}
