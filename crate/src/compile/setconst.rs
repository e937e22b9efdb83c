//! Model constants that need kinematics at the reference pose (MuJoCo's `mj_setConst`):
//! frame flags, `dof_M0`, the flex edge Jacobian layout, rest edge lengths, inverse weights and
//! statistics.

use crate::data::Data;
use crate::engine::{flex, inertia, jacobian, kinematics};
use crate::error::Result;
use crate::math;
use crate::model::{obj, Model};

const SAMEFRAME_EPS: f64 = 1e-6;

pub fn is_null_vec3(v: &[f64; 3]) -> bool {
    v.iter().all(|x| x.abs() < SAMEFRAME_EPS)
}

pub fn is_null_quat(q: &[f64; 4]) -> bool {
    let plus = (q[0] - 1.0).abs() < SAMEFRAME_EPS && q[1..].iter().all(|x| x.abs() < SAMEFRAME_EPS);
    let minus =
        (q[0] + 1.0).abs() < SAMEFRAME_EPS && q[1..].iter().all(|x| x.abs() < SAMEFRAME_EPS);
    plus || minus
}

fn same_quat(a: &[f64], b: &[f64]) -> bool {
    let plus = (0..4).all(|k| (a[k] - b[k]).abs() < SAMEFRAME_EPS);
    let minus = (0..4).all(|k| (a[k] + b[k]).abs() < SAMEFRAME_EPS);
    plus || minus
}

fn same_vec(a: &[f64], b: &[f64]) -> bool {
    (0..3).all(|k| (a[k] - b[k]).abs() < SAMEFRAME_EPS)
}

fn v3(a: &[f64], i: usize) -> [f64; 3] {
    [a[3 * i], a[3 * i + 1], a[3 * i + 2]]
}
fn q4(a: &[f64], i: usize) -> [f64; 4] {
    [a[4 * i], a[4 * i + 1], a[4 * i + 2], a[4 * i + 3]]
}

fn frame_flag(pos: &[f64; 3], quat: &[f64; 4], ipos: &[f64], iquat: &[f64]) -> u8 {
    if is_null_vec3(pos) && is_null_quat(quat) {
        1
    } else if is_null_quat(quat) {
        3
    } else if same_vec(pos, ipos) && same_quat(quat, iquat) {
        2
    } else if same_quat(quat, iquat) {
        4
    } else {
        0
    }
}

fn set_sameframe(m: &mut Model) {
    for i in 1..m.nbody {
        let (p, q) = (v3(&m.body_ipos, i), q4(&m.body_iquat, i));
        m.body_sameframe[i] = if is_null_vec3(&p) && is_null_quat(&q) {
            1
        } else if is_null_quat(&q) {
            3
        } else {
            0
        };
    }
    for g in 0..m.ngeom {
        let b = m.geom_bodyid[g] as usize;
        m.geom_sameframe[g] = frame_flag(
            &v3(&m.geom_pos, g),
            &q4(&m.geom_quat, g),
            &m.body_ipos[3 * b..],
            &m.body_iquat[4 * b..],
        );
    }
    for s in 0..m.nsite {
        let b = m.site_bodyid[s] as usize;
        m.site_sameframe[s] = frame_flag(
            &v3(&m.site_pos, s),
            &q4(&m.site_quat, s),
            &m.body_ipos[3 * b..],
            &m.body_iquat[4 * b..],
        );
    }
}

/// Sparsity of `flexedge_J` (rows for flexes that need edge Jacobians) and `nJfe`. A flex
/// without rows (rigid, interpolated, or with no edge force) leaves its rows' `rowadr` at 0, as
/// MuJoCo's `makeFlexSparse` does. MuJoCo also computes each row's address from the row before
/// it, so a flex after such a flex starts again at 0 and its rows alias an earlier flex's (whose
/// edge velocities, dampers and equality rows then read the later flex's Jacobian); here the
/// rows keep counting past the earlier ones (see README, `flex_jacobian_alias`).
fn flex_sparse(m: &mut Model, d: &Data) {
    let mut s = jacobian::JacScratch::new(m.nv);
    let ne = m.nflexedge;
    m.flexedge_J_rownnz = vec![0; ne];
    m.flexedge_J_rowadr = vec![0; ne];
    let mut colind = Vec::new();
    let mut adr = 0i32;
    let mut njfe = 0usize;
    for f in 0..m.nflex {
        let e0 = m.flex_edgeadr[f] as usize;
        let en = m.flex_edgenum[f] as usize;
        if m.flex_rigid[f] != 0 || m.flex_interp[f] != 0 {
            continue;
        }
        let skip = m.flex_edgeequality[f] == 0
            && m.flex_edgedamping[f] == 0.0
            && m.flex_edgestiffness[f] == 0.0
            && m.flex_damping[f] == 0.0;
        let vb = m.flex_vertadr[f] as usize;
        for e in e0..e0 + en {
            let b1 = m.flex_vertbodyid[vb + m.flex_edge[2 * e] as usize] as usize;
            let b2 = m.flex_vertbodyid[vb + m.flex_edge[2 * e + 1] as usize] as usize;
            // MuJoCo sizes nJfe by the ancestor dofs of both bodies whether or not rows are used
            njfe += ancestor_dofs(m, b1, b2);
            if skip {
                continue;
            }
            m.flexedge_J_rowadr[e] = adr;
            let p = [0.0; 3];
            let nv = jacobian::jac_dif_pair(m, d, &mut s, b1, b2, &p, &p, false);
            m.flexedge_J_rownnz[e] = nv as i32;
            colind.extend_from_slice(&s.chain[..nv]);
            adr += nv as i32;
        }
    }
    m.nJfe = njfe.max(colind.len());
    colind.resize(m.nJfe, 0);
    m.flexedge_J_colind = colind;
}

fn ancestor_dofs(m: &Model, b1: usize, b2: usize) -> usize {
    let mut seen = std::collections::BTreeSet::new();
    for mut b in [b1, b2] {
        loop {
            seen.insert(b);
            if b == 0 {
                break;
            }
            b = m.body_parentid[b] as usize;
        }
    }
    seen.iter().map(|&b| m.body_dofnum[b] as usize).sum()
}

/// Runs MuJoCo's `mj_setConst` equivalents on a freshly built model.
pub fn set_const(m: &mut Model) -> Result<()> {
    set_sameframe(m);
    m.ngravcomp = m.body_gravcomp.iter().filter(|&&g| g > 0.0).count();
    m.flg_adhesion = [&m.geom_adhesion, &m.pair_adhesion]
        .iter()
        .any(|a| a.iter().any(|&a| a != 0.0));
    m.dof_M0 = vec![0.0; m.nv];
    m.body_invweight0 = vec![0.0; 2 * m.nbody];
    m.dof_invweight0 = vec![0.0; m.nv];
    m.flexedge_length0 = vec![0.0; m.nflexedge];
    m.flexedge_invweight0 = vec![0.0; m.nflexedge];
    m.flexedge_J_rownnz = vec![0; m.nflexedge];
    m.flexedge_J_rowadr = vec![0; m.nflexedge];
    m.flexedge_J_colind = Vec::new();
    m.nJfe = 0;

    let mut d = Data::kinematic(m);
    d.a.qpos.copy_from_slice(&m.qpos0);
    kinematics::kinematics(m, &mut d);
    kinematics::com_pos(m, &mut d);

    // dof_M0 by composite rigid bodies at qpos0
    let mut crb = d.a.cinert.clone();
    for i in (1..m.nbody).rev() {
        let p = m.body_parentid[i] as usize;
        if p > 0 {
            for k in 0..10 {
                crb[10 * p + k] += crb[10 * i + k];
            }
        }
    }
    for i in 0..m.nv {
        let b = m.dof_bodyid[i] as usize;
        let buf = math::mul_inert_vec(&crb[10 * b..10 * b + 10], &d.a.cdof[6 * i..6 * i + 6]);
        m.dof_M0[i] = m.dof_armature[i] + math::dot(&d.a.cdof[6 * i..6 * i + 6], &buf);
    }

    flex_sparse(m, &d);
    super::flexvert::vert_sparse(m)?;
    let mut d = Data::kinematic(m);
    d.a.qpos.copy_from_slice(&m.qpos0);
    kinematics::kinematics(m, &mut d);
    kinematics::com_pos(m, &mut d);
    inertia::make_m(m, &mut d);
    inertia::factor_m(m, &mut d);
    let rigid = std::mem::take(&mut m.flex_rigid);
    m.flex_rigid = vec![0; rigid.len()];
    let mut s = jacobian::JacScratch::new(m.nv);
    let mut nodebuf = vec![0.0; 3 * m.nflexnode.max(1)];
    let mut vc = flex::VertCols::new(m);
    flex::flex(m, &mut d, &mut s, &mut vc, &mut nodebuf);
    m.flex_rigid = rigid;
    m.flexedge_length0.copy_from_slice(&d.a.flexedge_length);
    m.flex_tree = (0..m.nflex)
        .map(|f| {
            let dim = m.flex_dim[f] as usize;
            let (ea, en) = (m.flex_elemadr[f] as usize, m.flex_elemnum[f] as usize);
            let da = m.flex_elemdataadr[f] as usize;
            let va = 3 * m.flex_vertadr[f] as usize;
            let vn = 3 * m.flex_vertnum[f] as usize;
            super::flexbvh::build(
                dim,
                &m.flex_elem[da..da + en * (dim + 1)],
                &m.flex_elemlayer[ea..ea + en],
                m.flex_activelayers[f],
                m.flex_radius[f],
                &d.a.flexvert_xpos[va..va + vn],
            )
        })
        .collect();

    m.body_tree = (0..m.nbody).map(|b| super::bodybvh::build(m, b)).collect();

    // inverse weights
    let nv = m.nv;
    for i in 1..m.nbody {
        let w = m.body_weldid[i] as usize;
        if m.body_dofnum[w] == 0 {
            continue;
        }
        if m.body_simple[i] == 2 {
            m.body_invweight0[2 * i] = 1.0 / m.body_mass[i].max(math::MINVAL);
            continue;
        }
        // A = J M⁻¹ Jᵀ for translation (rows 0..3) and rotation (rows 3..6) at the com
        let mut jac = vec![0.0; 6 * nv];
        body_jac_com(m, &d, i, &mut jac);
        let mut a = [0.0; 36];
        let mut tmp = vec![0.0; nv];
        for r in 0..6 {
            tmp.copy_from_slice(&jac[r * nv..(r + 1) * nv]);
            inertia::solve_m(m, &d, &mut tmp);
            for c in 0..6 {
                a[6 * c + r] = math::dot(&jac[c * nv..(c + 1) * nv], &tmp);
            }
        }
        m.body_invweight0[2 * i] = (a[0] + a[7] + a[14]) / 3.0;
        m.body_invweight0[2 * i + 1] = (a[21] + a[28] + a[35]) / 3.0;
    }
    for j in 0..m.njnt {
        let b = m.jnt_bodyid[j] as usize;
        let id = m.jnt_dofadr[j] as usize;
        if m.body_simple[b] == 2 {
            m.dof_invweight0[id] = 1.0 / m.body_mass[b].max(math::MINVAL);
            continue;
        }
        let dnum = crate::model::jnt_dofnum(m.jnt_type[j]);
        let mut a = vec![0.0; dnum * dnum];
        let mut tmp = vec![0.0; nv];
        for r in 0..dnum {
            tmp.fill(0.0);
            tmp[id + r] = 1.0;
            inertia::solve_m(m, &d, &mut tmp);
            for c in 0..dnum {
                a[dnum * c + r] = tmp[id + c];
            }
        }
        match dnum {
            6 => {
                let t = (a[0] + a[7] + a[14]) / 3.0;
                let r = (a[21] + a[28] + a[35]) / 3.0;
                for k in 0..3 {
                    m.dof_invweight0[id + k] = t;
                    m.dof_invweight0[id + 3 + k] = r;
                }
            }
            3 => {
                let t = (a[0] + a[4] + a[8]) / 3.0;
                for k in 0..3 {
                    m.dof_invweight0[id + k] = t;
                }
            }
            _ => m.dof_invweight0[id] = a[0],
        }
    }
    if nv > 0 {
        for f in 0..m.nflex {
            if m.flex_interp[f] != 0 {
                continue;
            }
            let vb = m.flex_vertadr[f] as usize;
            let e0 = m.flex_edgeadr[f] as usize;
            for e in e0..e0 + m.flex_edgenum[f] as usize {
                let b1 = m.flex_vertbodyid[vb + m.flex_edge[2 * e] as usize] as usize;
                let b2 = m.flex_vertbodyid[vb + m.flex_edge[2 * e + 1] as usize] as usize;
                m.flexedge_invweight0[e] = if m.flexedge_rigid[e] != 0 {
                    0.0
                } else if m.body_simple[b1] == 2 && m.body_simple[b2] == 2 {
                    (1.0 / m.body_mass[b1] + 1.0 / m.body_mass[b2]) / 2.0
                } else {
                    let mut dense = vec![0.0; nv];
                    let ra = m.flexedge_J_rowadr[e] as usize;
                    for k in ra..ra + m.flexedge_J_rownnz[e] as usize {
                        dense[m.flexedge_J_colind[k] as usize] = d.a.flexedge_J[k];
                    }
                    let mut sol = dense.clone();
                    inertia::solve_m(m, &d, &mut sol);
                    math::dot(&dense, &sol)
                };
            }
        }
    }

    super::actuation::set_const(m, &d);

    // connect/weld anchors in body frames
    for i in 0..m.neq {
        let base = 11 * i;
        let (id1, id2) = (m.eq_obj1id[i] as usize, m.eq_obj2id[i] as usize);
        if m.eq_objtype[i] != obj::BODY {
            continue;
        }
        let xmat = |b: usize| {
            let mut r = [0.0; 9];
            r.copy_from_slice(&d.a.xmat[9 * b..9 * b + 9]);
            r
        };
        let xpos = |b: usize| v3(&d.a.xpos, b);
        if m.eq_type[i] == 0 {
            let anchor = [m.eq_data[base], m.eq_data[base + 1], m.eq_data[base + 2]];
            let pos = math::add3(&math::mul_mat_vec3(&xmat(id1), &anchor), &xpos(id1));
            let rel = math::mul_mat_t_vec3(&xmat(id2), &math::sub3(&pos, &xpos(id2)));
            m.eq_data[base + 3..base + 6].copy_from_slice(&rel);
        } else if m.eq_type[i] == 1 {
            if m.eq_data[base + 6..base + 10].iter().any(|&x| x != 0.0) {
                let mut q = [
                    m.eq_data[base + 6],
                    m.eq_data[base + 7],
                    m.eq_data[base + 8],
                    m.eq_data[base + 9],
                ];
                math::normalize4(&mut q);
                m.eq_data[base + 6..base + 10].copy_from_slice(&q);
                continue;
            }
            let anchor = [m.eq_data[base], m.eq_data[base + 1], m.eq_data[base + 2]];
            let pos = math::add3(&math::mul_mat_vec3(&xmat(id2), &anchor), &xpos(id2));
            let rel = math::mul_mat_t_vec3(&xmat(id1), &math::sub3(&pos, &xpos(id1)));
            m.eq_data[base + 3..base + 6].copy_from_slice(&rel);
            let q = math::mul_quat(&math::neg_quat(&q4(&d.a.xquat, id1)), &q4(&d.a.xquat, id2));
            m.eq_data[base + 6..base + 10].copy_from_slice(&q);
        }
    }

    statistics(m, &d);
    super::efm0::set_efm0(m)
}

/// 6×nv Jacobian (translation rows then rotation rows) of body `b`'s centre of mass.
fn body_jac_com(m: &Model, d: &Data, b: usize, jac: &mut [f64]) {
    let nv = m.nv;
    let root = m.body_rootid[b] as usize;
    let p = v3(&d.a.xipos, b);
    let off = math::sub3(&p, &v3(&d.a.subtree_com, root));
    let w = m.body_weldid[b] as usize;
    if m.body_dofnum[w] == 0 {
        return;
    }
    let mut i = m.body_dofadr[w] + m.body_dofnum[w] - 1;
    while i >= 0 {
        let iu = i as usize;
        let c = &d.a.cdof[6 * iu..6 * iu + 6];
        let t = math::cross(&[c[0], c[1], c[2]], &off);
        for k in 0..3 {
            jac[k * nv + iu] = c[3 + k] + t[k];
            jac[(3 + k) * nv + iu] = c[k];
        }
        i = m.dof_parentid[iu];
    }
}

/// `mjModel.stat` as `mj_setConst` computes it at the reference pose: the bounding box of
/// bodies, joint anchors, sites and geoms (planes by a tenth of their size; flex vertices count
/// through their bodies, so pinned ones do not) gives
/// `center` and `extent`; each body's size (farthest joint anchor, geom bound or flex edge)
/// gives `meansize`, and `extent` is at least twice that; `meanmass` and `meaninertia` are the
/// means of the body masses and of M's diagonal.
fn statistics(m: &mut Model, d: &Data) {
    // mj_defaultStatistic's values, which stand where there is nothing to measure
    m.stat = crate::model::Statistic {
        meaninertia: 1.0,
        meanmass: 1.0,
        meansize: 0.2,
        extent: 2.0,
        center: [0.0; 3],
    };
    let mut lo = [1e10f64; 3];
    let mut hi = [-1e10f64; 3];
    let mut upd = |p: &[f64], r: f64| {
        for k in 0..3 {
            lo[k] = lo[k].min(p[k] - r);
            hi[k] = hi[k].max(p[k] + r);
        }
    };
    for i in 1..m.nbody {
        upd(&d.a.xpos[3 * i..], 0.0);
        upd(&d.a.xipos[3 * i..], 0.0);
    }
    for j in 0..m.njnt {
        upd(&d.a.xanchor[3 * j..], 0.0);
    }
    for s in 0..m.nsite {
        upd(&d.a.site_xpos[3 * s..], 0.0);
    }
    for g in 0..m.ngeom {
        let r = if m.geom_rbound[g] > 0.0 {
            m.geom_rbound[g]
        } else if m.geom_type[g] == 0 {
            if m.geom_size[3 * g] != 0.0 || m.geom_size[3 * g + 1] != 0.0 {
                m.geom_size[3 * g].max(m.geom_size[3 * g + 1]) * 0.1
            } else {
                0.01
            }
        } else {
            0.0
        };
        upd(&d.a.geom_xpos[3 * g..], r);
    }
    m.stat.center = [
        (lo[0] + hi[0]) * 0.5,
        (lo[1] + hi[1]) * 0.5,
        (lo[2] + hi[2]) * 0.5,
    ];
    if hi[0] > lo[0] {
        m.stat.extent = 1e-5f64.max((hi[0] - lo[0]).max((hi[1] - lo[1]).max(hi[2] - lo[2])));
    }

    let dist =
        |a: &[f64], i: usize, b: &[f64], j: usize| math::norm3(&math::sub3(&v3(a, i), &v3(b, j)));
    let mut size = vec![0.0f64; m.nbody];
    for j in 0..m.njnt {
        let mut b = m.jnt_bodyid[j] as usize;
        for _ in 0..2 {
            size[b] = size[b].max(dist(&d.a.xipos, b, &d.a.xanchor, j));
            b = m.body_parentid[b] as usize;
        }
    }
    size[0] = 0.0;
    for (b, sz) in size.iter_mut().enumerate().skip(1) {
        let adr = m.body_geomadr[b].max(0) as usize;
        for g in adr..adr + m.body_geomnum[b] as usize {
            if m.geom_rbound[g] > 0.0 {
                *sz = sz.max(m.geom_rbound[g] + dist(&d.a.xipos, b, &d.a.geom_xpos, g));
            }
        }
    }
    for f in 0..m.nflex {
        if m.flex_interp[f] != 0 {
            let nodes =
                m.flex_nodeadr[f] as usize..(m.flex_nodeadr[f] + m.flex_nodenum[f]) as usize;
            for v1 in nodes.clone() {
                let b1 = m.flex_nodebodyid[v1] as usize;
                for v2 in nodes.clone() {
                    let b2 = m.flex_nodebodyid[v2] as usize;
                    size[b1] = size[b1].max(dist(&d.a.xpos, b1, &d.a.xpos, b2));
                }
            }
            continue;
        }
        let vadr = m.flex_vertadr[f] as usize;
        let eadr = m.flex_edgeadr[f] as usize;
        for e in eadr..eadr + m.flex_edgenum[f] as usize {
            for k in 0..2 {
                let b = m.flex_vertbodyid[vadr + m.flex_edge[2 * e + k] as usize] as usize;
                size[b] = size[b].max(m.flexedge_length0[e]);
            }
        }
    }
    if m.nbody > 1 {
        m.stat.meansize = 0.0;
        for sz in &mut size[1..] {
            *sz = sz.max(1e-5);
            m.stat.meansize += *sz / (m.nbody - 1) as f64;
        }
    }
    m.stat.extent = m.stat.extent.max(2.0 * m.stat.meansize);

    if m.nbody > 1 {
        m.stat.meanmass = m.body_mass[1..].iter().sum::<f64>() / (m.nbody - 1) as f64;
    }
    let nv = m.nv;
    if nv > 0 {
        let mut s = 0.0;
        for i in 0..nv {
            s += d.a.M[(m.M_rowadr[i] + m.M_rownnz[i] - 1) as usize];
        }
        m.stat.meaninertia = s / nv as f64;
    }
}

/// `<statistic>`'s values replace the computed ones (after all of `mj_setConst`, as MuJoCo).
pub fn apply_statistic(m: &mut Model, st: &crate::spec::StatisticSpec) {
    let s = &mut m.stat;
    for (over, val) in [
        (st.meaninertia, &mut s.meaninertia),
        (st.meanmass, &mut s.meanmass),
        (st.meansize, &mut s.meansize),
        (st.extent, &mut s.extent),
    ] {
        if let Some(v) = over {
            *val = v;
        }
    }
    if let Some(c) = st.center {
        s.center = c;
    }
}
