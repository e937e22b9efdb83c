//! What a compiled flex allows, read by both the compiler (its checks and sizes) and the step
//! (which paths it takes): MuJoCo's `mj_effFlex*Possible`-style predicates over the model.

use crate::model::Model;

/// `mj_effFlexStiffPossible`: flex `f` has elastic stiffness that enters the effective metric
/// (a non-zero first stretch coefficient outside strain-equality mode, or any non-zero bending
/// coefficient).
pub fn flex_stiffness_possible(m: &Model, f: usize) -> bool {
    if m.flex_rigid[f] != 0 || m.flex_dim[f] < 2 {
        return false;
    }
    let sadr = m.flex_stiffnessadr[f];
    if sadr >= 0 && m.flex_stiffness[sadr as usize] != 0.0 && m.flex_edgeequality[f] != 3 {
        return true;
    }
    let badr = m.flex_bendingadr[f];
    if badr < 0 {
        return false;
    }
    let blen = flex_bending_len(m, f);
    m.flex_bending[badr as usize..badr as usize + blen]
        .iter()
        .any(|&x| x != 0.0)
}

/// Doubles of `flex_stiffness` owned by flex `f`.
pub fn flex_stiffness_len(m: &Model, f: usize) -> usize {
    let adr = m.flex_stiffnessadr[f];
    if adr < 0 {
        return 0;
    }
    let next = (f + 1..m.nflex)
        .map(|g| m.flex_stiffnessadr[g])
        .find(|&a| a >= 0)
        .unwrap_or(m.nflexstiffness as i32);
    (next - adr) as usize
}

/// Doubles of `flex_bending` owned by flex `f`.
pub fn flex_bending_len(m: &Model, f: usize) -> usize {
    let adr = m.flex_bendingadr[f];
    if adr < 0 {
        return 0;
    }
    let next = (f + 1..m.nflex)
        .map(|g| m.flex_bendingadr[g])
        .find(|&a| a >= 0)
        .unwrap_or(m.nflexbending as i32);
    (next - adr) as usize
}

/// True if flex `f` uses passive (penalty) contact.
pub fn flex_contact_possible(m: &Model, f: usize) -> bool {
    m.flex_passive[f] != 0 && m.flex_rigid[f] == 0 && m.flex_interp[f] == 0 && m.flex_dim[f] >= 2
}

/// True if the flex has terms in the effective metric.
pub fn flex_metric_possible(m: &Model, f: usize) -> bool {
    flex_stiffness_possible(m, f) || flex_contact_possible(m, f)
}

/// `mj_flexBodySimple`: the weld body of `b` has exactly three slide joints along its local
/// x, y, z in that order, and its parent's weld body has no dofs.
pub fn body_simple_slider(m: &Model, b: usize) -> bool {
    let b = m.body_weldid[b] as usize;
    let pw = m.body_weldid[m.body_parentid[b] as usize] as usize;
    if m.body_dofnum[b] != 3 || m.body_jntnum[b] != 3 || m.body_dofnum[pw] != 0 {
        return false;
    }
    let j0 = m.body_jntadr[b] as usize;
    (0..3).all(|j| {
        m.jnt_type[j0 + j] == 2
            && (0..3).all(|k| {
                let target = if j == k { 1.0 } else { 0.0 };
                (m.jnt_axis[3 * (j0 + j) + k] - target).abs() <= crate::math::MINVAL
            })
    })
}

/// `mj_flexSimple`: every vertex's weld body either has no dofs or is a simple slider.
pub fn flex_simple(m: &Model, f: usize) -> bool {
    let a = m.flex_vertadr[f] as usize;
    m.flex_vertbodyid[a..a + m.flex_vertnum[f] as usize]
        .iter()
        .all(|&b| {
            let w = m.body_weldid[b as usize] as usize;
            m.body_dofnum[w] == 0 || body_simple_slider(m, w)
        })
}

/// `flexInterp_processed`: interpolated flex `f` has corotated stretch stiffness that the
/// passive forces and the discrete metric use. MuJoCo gates the whole flex on the first entry
/// of its first element block, so shells (face 0 has a zero normal row) and volume flexes whose
/// first cell is empty never qualify.
pub fn flex_interp_processed(m: &Model, f: usize) -> bool {
    if m.flex_interp[f] == 0 || m.flex_rigid[f] != 0 || m.flex_edgeequality[f] == 3 {
        return false;
    }
    let sadr = m.flex_stiffnessadr[f];
    sadr >= 0 && m.flex_stiffness[sadr as usize] != 0.0
}

/// `mjd_flexInterpAssemblable`: every node of every processed interpolated flex sits on a body
/// with no dofs or on a simple body of exactly three slides, so the corotated stiffness can be
/// assembled in dof space (all or nothing, as MuJoCo decides it).
pub fn flex_interp_assemblable(m: &Model) -> bool {
    (0..m.nflex).all(|f| {
        if !flex_interp_processed(m, f) {
            return true;
        }
        let a = m.flex_nodeadr[f] as usize;
        m.flex_nodebodyid[a..a + m.flex_nodenum[f] as usize]
            .iter()
            .all(|&b| {
                let b = b as usize;
                let n = m.body_dofnum[b];
                n == 0 || (m.body_simple[b] == 2 && n == 3)
            })
    })
}
