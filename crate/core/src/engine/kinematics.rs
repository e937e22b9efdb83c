//! Forward kinematics over the body tree, the centre-of-mass frames (`cinert`, `cdof`) and the
//! com-based velocities (`cvel`, `cdof_dot`), as MuJoCo's `mj_kinematics`, `mj_comPos` and
//! `mj_comVel`.

use crate::data::Data;
use crate::math::*;
use crate::model::Model;

const SF_NONE: u8 = 0;
const SF_BODY: u8 = 1;
const SF_INERTIA: u8 = 2;
const SF_BODYROT: u8 = 3;
const SF_INERTIAROT: u8 = 4;

// vectors read whole (math::get_n): one bounds check per vector, not one per coordinate
#[inline]
fn v3(a: &[f64], i: usize) -> Vec3 {
    get_n(a, i)
}
#[inline]
fn q4(a: &[f64], i: usize) -> Quat {
    get_n(a, i)
}
#[inline]
fn m9(a: &[f64], i: usize) -> Mat3 {
    get_n(a, i)
}

/// Global position and orientation of a frame attached to `body` (MuJoCo's `mj_local2Global`).
fn local_to_global(d: &Data, body: usize, pos: &Vec3, quat: &Quat, sf: u8) -> (Vec3, Mat3) {
    let xpos = match sf {
        SF_BODY => v3(&d.xpos, body),
        SF_INERTIA => v3(&d.xipos, body),
        _ => {
            let m = m9(&d.xmat, body);
            add3(&mul_mat_vec3(&m, pos), &v3(&d.xpos, body))
        }
    };
    let xmat = match sf {
        SF_NONE => quat_to_mat(&mul_quat(&q4(&d.xquat, body), quat)),
        SF_BODY | SF_BODYROT => m9(&d.xmat, body),
        SF_INERTIA | SF_INERTIAROT => m9(&d.ximat, body),
        _ => unreachable!(),
    };
    (xpos, xmat)
}

/// Body, geom and site frames from `qpos` (and mocap poses).
pub fn kinematics(m: &Model, d: &mut Data) {
    let a = &mut d.a;
    a.xpos[..3].fill(0.0);
    a.xquat[..4].copy_from_slice(&IDENTITY_QUAT);
    a.xipos[..3].fill(0.0);
    a.xmat[..9].copy_from_slice(&IDENTITY_MAT);
    a.ximat[..9].copy_from_slice(&IDENTITY_MAT);

    for i in 1..m.nbody {
        let jntadr = m.body_jntadr[i];
        let jntnum = m.body_jntnum[i] as usize;
        let mut xpos: Vec3;
        let mut xquat: Quat;
        if jntnum == 1 && m.jnt_type[jntadr as usize] == 0 {
            let j = jntadr as usize;
            let qa = m.jnt_qposadr[j] as usize;
            xpos = [a.qpos[qa], a.qpos[qa + 1], a.qpos[qa + 2]];
            xquat = [
                a.qpos[qa + 3],
                a.qpos[qa + 4],
                a.qpos[qa + 5],
                a.qpos[qa + 6],
            ];
            normalize4(&mut xquat);
            a.xanchor[3 * j..3 * j + 3].copy_from_slice(&xpos);
            a.xaxis[3 * j..3 * j + 3].copy_from_slice(&m.jnt_axis[3 * j..3 * j + 3]);
        } else {
            let pid = m.body_parentid[i] as usize;
            let (bodypos, bodyquat) = if m.body_mocapid[i] >= 0 {
                let mid = m.body_mocapid[i] as usize;
                let mut q = q4(&a.mocap_quat, mid);
                normalize4(&mut q);
                (v3(&a.mocap_pos, mid), q)
            } else {
                (v3(&m.body_pos, i), q4(&m.body_quat, i))
            };
            if pid > 0 {
                xpos = add3(
                    &mul_mat_vec3(&m9(&a.xmat, pid), &bodypos),
                    &v3(&a.xpos, pid),
                );
                xquat = mul_quat(&q4(&a.xquat, pid), &bodyquat);
            } else {
                xpos = bodypos;
                xquat = bodyquat;
            }
            for k in 0..jntnum {
                let j = jntadr as usize + k;
                let qa = m.jnt_qposadr[j] as usize;
                let jaxis = v3(&m.jnt_axis, j);
                let jpos = v3(&m.jnt_pos, j);
                let xaxis = rot_vec_quat(&jaxis, &xquat);
                let xanchor = add3(&rot_vec_quat(&jpos, &xquat), &xpos);
                match m.jnt_type[j] {
                    2 => add_to_scl3(&mut xpos, &xaxis, a.qpos[qa] - m.qpos0[qa]),
                    1 | 3 => {
                        let qloc = if m.jnt_type[j] == 1 {
                            let mut q =
                                [a.qpos[qa], a.qpos[qa + 1], a.qpos[qa + 2], a.qpos[qa + 3]];
                            normalize4(&mut q);
                            q
                        } else {
                            axis_angle_to_quat(&jaxis, a.qpos[qa] - m.qpos0[qa])
                        };
                        xquat = mul_quat(&xquat, &qloc);
                        let vec = rot_vec_quat(&jpos, &xquat);
                        xpos = sub3(&xanchor, &vec);
                    }
                    _ => {}
                }
                a.xanchor[3 * j..3 * j + 3].copy_from_slice(&xanchor);
                a.xaxis[3 * j..3 * j + 3].copy_from_slice(&xaxis);
            }
        }
        normalize4(&mut xquat);
        a.xquat[4 * i..4 * i + 4].copy_from_slice(&xquat);
        a.xpos[3 * i..3 * i + 3].copy_from_slice(&xpos);
        let mat = quat_to_mat(&xquat);
        a.xmat[9 * i..9 * i + 9].copy_from_slice(&mat);
    }

    for i in 1..m.nbody {
        let (p, r) = local_to_global(
            d,
            i,
            &v3(&m.body_ipos, i),
            &q4(&m.body_iquat, i),
            m.body_sameframe[i],
        );
        d.a.xipos[3 * i..3 * i + 3].copy_from_slice(&p);
        d.a.ximat[9 * i..9 * i + 9].copy_from_slice(&r);
    }
    for g in 0..m.ngeom {
        let b = m.geom_bodyid[g] as usize;
        let (p, r) = local_to_global(
            d,
            b,
            &v3(&m.geom_pos, g),
            &q4(&m.geom_quat, g),
            m.geom_sameframe[g],
        );
        d.a.geom_xpos[3 * g..3 * g + 3].copy_from_slice(&p);
        d.a.geom_xmat[9 * g..9 * g + 9].copy_from_slice(&r);
    }
    for s in 0..m.nsite {
        let b = m.site_bodyid[s] as usize;
        let (p, r) = local_to_global(
            d,
            b,
            &v3(&m.site_pos, s),
            &q4(&m.site_quat, s),
            m.site_sameframe[s],
        );
        d.a.site_xpos[3 * s..3 * s + 3].copy_from_slice(&p);
        d.a.site_xmat[9 * s..9 * s + 9].copy_from_slice(&r);
    }
}

/// Subtree centres of mass, com-frame inertias and motion axes (MuJoCo's `mj_comPos`).
pub fn com_pos(m: &Model, d: &mut Data) {
    let a = &mut d.a;
    let nbody = m.nbody;
    for i in 0..nbody {
        let s = scl3(&v3(&a.xipos, i), m.body_mass[i]);
        a.subtree_com[3 * i..3 * i + 3].copy_from_slice(&s);
    }
    for i in (1..nbody).rev() {
        let p = m.body_parentid[i] as usize;
        for k in 0..3 {
            a.subtree_com[3 * p + k] += a.subtree_com[3 * i + k];
        }
    }
    for i in 0..nbody {
        if m.body_subtreemass[i] < MINVAL {
            for k in 0..3 {
                a.subtree_com[3 * i + k] = a.xipos[3 * i + k];
            }
        } else {
            let inv = 1.0 / m.body_subtreemass[i];
            for k in 0..3 {
                a.subtree_com[3 * i + k] *= inv;
            }
        }
    }
    a.cinert[..10].fill(0.0);
    for i in 1..nbody {
        let root = m.body_rootid[i] as usize;
        let off = sub3(&v3(&a.xipos, i), &v3(&a.subtree_com, root));
        let c = inert_com(
            &v3(&m.body_inertia, i),
            &m9(&a.ximat, i),
            &off,
            m.body_mass[i],
        );
        a.cinert[10 * i..10 * i + 10].copy_from_slice(&c);
    }
    for i in 1..nbody {
        let jntnum = m.body_jntnum[i] as usize;
        if jntnum == 0 {
            continue;
        }
        let root = m.body_rootid[i] as usize;
        let start = m.body_jntadr[i] as usize;
        for j in start..start + jntnum {
            let da = 6 * m.jnt_dofadr[j] as usize;
            let offset = sub3(&v3(&a.subtree_com, root), &v3(&a.xanchor, j));
            let xaxis = v3(&a.xaxis, j);
            let jt = m.jnt_type[j];
            let mut ball_start = da;
            if jt == 0 {
                a.cdof[da..da + 18].fill(0.0);
                a.cdof[da + 3] = 1.0;
                a.cdof[da + 3 + 7] = 1.0;
                a.cdof[da + 3 + 14] = 1.0;
                ball_start = da + 18;
            }
            match jt {
                0 | 1 => {
                    for k in 0..3 {
                        let axis = [
                            a.xmat[9 * i + k],
                            a.xmat[9 * i + k + 3],
                            a.xmat[9 * i + k + 6],
                        ];
                        let c = cross(&axis, &offset);
                        let o = ball_start + 6 * k;
                        a.cdof[o..o + 3].copy_from_slice(&axis);
                        a.cdof[o + 3..o + 6].copy_from_slice(&c);
                    }
                }
                2 => {
                    a.cdof[da..da + 3].fill(0.0);
                    a.cdof[da + 3..da + 6].copy_from_slice(&xaxis);
                }
                _ => {
                    let c = cross(&xaxis, &offset);
                    a.cdof[da..da + 3].copy_from_slice(&xaxis);
                    a.cdof[da + 3..da + 6].copy_from_slice(&c);
                }
            }
        }
    }
}

/// Body spatial velocities and the time derivatives of the motion axes (`mj_comVel`).
pub fn com_vel(m: &Model, d: &mut Data) {
    let a = &mut d.a;
    a.cvel[..6].fill(0.0);
    for i in 1..m.nbody {
        let p = m.body_parentid[i] as usize;
        let mut cvel = [0.0; 6];
        cvel.copy_from_slice(&a.cvel[6 * p..6 * p + 6]);
        let dofnum = m.body_dofnum[i] as usize;
        let bda = m.body_dofadr[i].max(0) as usize;
        let mut j = 0;
        while j < dofnum {
            let jt = m.jnt_type[m.dof_jntid[bda + j] as usize];
            match jt {
                0 => {
                    // translations: cdot = 0
                    for k in 0..3 {
                        a.cdof_dot[6 * (bda + j + k)..6 * (bda + j + k) + 6].fill(0.0);
                    }
                    let mut tmp = [0.0; 6];
                    for k in 0..3 {
                        let c = &a.cdof[6 * (bda + j + k)..6 * (bda + j + k) + 6];
                        let q = a.qvel[bda + j + k];
                        for r in 0..6 {
                            tmp[r] += c[r] * q;
                        }
                    }
                    for r in 0..6 {
                        cvel[r] += tmp[r];
                    }
                    j += 3;
                    ball_rot(a, &mut cvel, bda + j);
                    j += 3;
                }
                1 => {
                    ball_rot(a, &mut cvel, bda + j);
                    j += 3;
                }
                _ => {
                    let dofi = bda + j;
                    let c = &a.cdof[6 * dofi..6 * dofi + 6];
                    let cd = cross_motion(&cvel, c);
                    let q = a.qvel[dofi];
                    for r in 0..6 {
                        cvel[r] += c[r] * q;
                    }
                    a.cdof_dot[6 * dofi..6 * dofi + 6].copy_from_slice(&cd);
                    j += 1;
                }
            }
        }
        a.cvel[6 * i..6 * i + 6].copy_from_slice(&cvel);
    }
}

/// Three rotational dofs of a ball (or free) joint starting at `dof`.
fn ball_rot(a: &mut crate::data::DataArrays, cvel: &mut [f64; 6], dof: usize) {
    for k in 0..3 {
        let cd = cross_motion(cvel, &a.cdof[6 * (dof + k)..6 * (dof + k) + 6]);
        a.cdof_dot[6 * (dof + k)..6 * (dof + k) + 6].copy_from_slice(&cd);
    }
    let mut tmp = [0.0; 6];
    for k in 0..3 {
        for r in 0..6 {
            tmp[r] += a.cdof[6 * (dof + k) + r] * a.qvel[dof + k];
        }
    }
    for r in 0..6 {
        cvel[r] += tmp[r];
    }
}
