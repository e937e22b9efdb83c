//! The compiled model's sparse layouts of dof-indexed matrices, as MuJoCo builds them
//! (`mj_makeDofDofSparse`, `mj_makeBSparse`): the reduced mass matrix `M`, the dof-dof matrix
//! `D` of the velocity derivatives (`qDeriv`, `qLU`) and the body-dof matrix `B` of
//! `mjd_rne_vel`'s intermediate derivatives. Every row lists its columns in increasing order.

use flexlab_core::model::Model;

/// M's reduced sparse layout: each row holds its ancestor dofs then the diagonal; simple dofs
/// keep only the diagonal.
pub(super) fn make_m_sparse(m: &mut Model) {
    let nv = m.nv;
    let mut rownnz = vec![0i32; nv];
    for i in (0..nv).rev() {
        rownnz[i] += 1;
        if m.dof_simplenum[i] == 0 {
            let mut j = m.dof_parentid[i];
            while j >= 0 {
                rownnz[i] += 1;
                j = m.dof_parentid[j as usize];
            }
        }
    }
    let mut rowadr = vec![0i32; nv];
    for i in 1..nv {
        rowadr[i] = rowadr[i - 1] + rownnz[i - 1];
    }
    let nc = if nv > 0 {
        (rowadr[nv - 1] + rownnz[nv - 1]) as usize
    } else {
        0
    };
    let mut colind = vec![0i32; nc];
    for i in 0..nv {
        let mut k = (rowadr[i] + rownnz[i] - 1) as usize;
        colind[k] = i as i32;
        if m.dof_simplenum[i] == 0 {
            let mut j = m.dof_parentid[i];
            while j >= 0 {
                k -= 1;
                colind[k] = j;
                j = m.dof_parentid[j as usize];
            }
        }
    }
    // legacy qM addresses: each dof stores its diagonal then its ancestors
    let mut madr = Vec::with_capacity(nv);
    let mut adr = 0i32;
    for i in 0..nv {
        madr.push(adr);
        adr += 1;
        let mut j = m.dof_parentid[i];
        while j >= 0 {
            adr += 1;
            j = m.dof_parentid[j as usize];
        }
    }
    m.dof_Madr = madr;
    m.M_rownnz = rownnz;
    m.M_rowadr = rowadr;
    m.M_colind = colind;
    m.nC = nc;
}

/// Ancestors of dof `i` in the dof tree, nearest first.
fn dof_ancestors(m: &Model, i: usize) -> impl Iterator<Item = usize> + '_ {
    std::iter::successors(usize::try_from(m.dof_parentid[i]).ok(), |&j| {
        usize::try_from(m.dof_parentid[j]).ok()
    })
}

/// `D`'s layout (MuJoCo's unreduced, full sparsity): row `i` holds every dof related to `i` in
/// the dof tree (its ancestors, itself, its descendants), so `M − h·qDeriv` factors without
/// fill-in. Unlike M it keeps the pairs of a simple body's dofs. Also `D_diag` (the diagonal's
/// place in each row), `mapM2D` (each entry's place in M, or −1 where M's reduced layout
/// stores none) and `mapD2M` (each entry of M's place in D).
pub(super) fn make_d_sparse(m: &mut Model) {
    let nv = m.nv;
    let mut rows: Vec<Vec<i32>> = vec![Vec::new(); nv];
    for i in 0..nv {
        rows[i].push(i as i32);
        for j in dof_ancestors(m, i) {
            rows[i].push(j as i32);
            rows[j].push(i as i32);
        }
    }
    let (mut rownnz, mut rowadr, mut diag) = (Vec::new(), Vec::new(), Vec::new());
    let mut colind = Vec::new();
    for (i, row) in rows.iter_mut().enumerate() {
        row.sort_unstable();
        rowadr.push(colind.len() as i32);
        rownnz.push(row.len() as i32);
        diag.push(row.iter().position(|&c| c == i as i32).unwrap() as i32);
        colind.extend_from_slice(row);
    }
    let mut map = Vec::with_capacity(colind.len());
    for i in 0..nv {
        let adr = rowadr[i] as usize;
        for &c in &colind[adr..adr + rownnz[i] as usize] {
            // M stores the lower triangle: (i, c) is at row max(i, c), column min(i, c)
            let (r, c) = if c as usize <= i {
                (i, c)
            } else {
                (c as usize, i as i32)
            };
            let (ma, mn) = (m.M_rowadr[r] as usize, m.M_rownnz[r] as usize);
            let at = m.M_colind[ma..ma + mn].iter().position(|&k| k == c);
            map.push(at.map_or(-1, |k| (ma + k) as i32));
        }
    }
    // and each entry of M's its place in D (M's rows are subsets of D's)
    let mut map_d = Vec::with_capacity(m.M_colind.len());
    for i in 0..nv {
        let (ma, mn) = (m.M_rowadr[i] as usize, m.M_rownnz[i] as usize);
        let (da, dn) = (rowadr[i] as usize, rownnz[i] as usize);
        for &c in &m.M_colind[ma..ma + mn] {
            let k = colind[da..da + dn]
                .binary_search(&c)
                .expect("M's entry in D");
            map_d.push((da + k) as i32);
        }
    }
    m.nD = colind.len();
    m.mapD2M = map_d;
    m.D_rownnz = rownnz;
    m.D_rowadr = rowadr;
    m.D_diag = diag;
    m.D_colind = colind;
    m.mapM2D = map;
}

/// `B`'s layout: row `b` holds the dofs of body `b`'s ancestors, of `b` itself and of its
/// subtree (the world's row every dof). A dof's row of `D` equals its body's row of `B`.
pub(super) fn make_b_sparse(m: &mut Model) {
    let nb = m.nbody;
    let mut rows: Vec<Vec<i32>> = vec![Vec::new(); nb];
    for b in 0..nb {
        let dofs = m.body_dofadr[b]..m.body_dofadr[b] + m.body_dofnum[b];
        // b's own dofs go to b and to every body above it
        let mut a = b;
        loop {
            rows[a].extend(dofs.clone());
            if a == 0 {
                break;
            }
            a = m.body_parentid[a] as usize;
        }
        // and its ancestors' dofs to b (the world has none)
        let mut p = m.body_parentid[b];
        while b > 0 && p > 0 {
            let p_ = p as usize;
            rows[b].extend(m.body_dofadr[p_]..m.body_dofadr[p_] + m.body_dofnum[p_]);
            p = m.body_parentid[p_];
        }
    }
    let (mut rownnz, mut rowadr, mut colind) = (Vec::new(), Vec::new(), Vec::new());
    for row in &mut rows {
        row.sort_unstable();
        rowadr.push(colind.len() as i32);
        rownnz.push(row.len() as i32);
        colind.extend_from_slice(row);
    }
    m.nB = colind.len();
    m.B_rownnz = rownnz;
    m.B_rowadr = rowadr;
    m.B_colind = colind;
}
