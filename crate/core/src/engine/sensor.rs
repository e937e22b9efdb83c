//! Sensors (`mj_sensorPos`, `mj_sensorVel`, `mj_sensorAcc`): each stage of the forward pass
//! fills `sensordata` for the sensors that need it, then clamps by `sensor_cutoff`. Noise is
//! kept in the model and never applied, as in MuJoCo.

use super::constraint::kind as efc;
use crate::data::Data;
use crate::math::{self, get_at, Mat3, Vec3};
use crate::model::{disable, Model};

/// `mjtSensor` values of the sensors flexlab computes (MuJoCo's numbering).
pub mod kind {
    pub const TOUCH: i32 = 0;
    pub const ACCELEROMETER: i32 = 1;
    pub const FORCE: i32 = 4;
    pub const TORQUE: i32 = 5;
    pub const MAGNETOMETER: i32 = 6;
    pub const VELOCIMETER: i32 = 2;
    pub const GYRO: i32 = 3;
    pub const JOINTPOS: i32 = 9;
    pub const JOINTVEL: i32 = 10;
    pub const TENDONPOS: i32 = 11;
    pub const TENDONVEL: i32 = 12;
    pub const ACTUATORPOS: i32 = 13;
    pub const ACTUATORVEL: i32 = 14;
    pub const ACTUATORFRC: i32 = 15;
    pub const JOINTACTFRC: i32 = 16;
    pub const TENDONACTFRC: i32 = 17;
    pub const BALLQUAT: i32 = 18;
    pub const BALLANGVEL: i32 = 19;
    pub const JOINTLIMITPOS: i32 = 20;
    pub const JOINTLIMITVEL: i32 = 21;
    pub const JOINTLIMITFRC: i32 = 22;
    pub const TENDONLIMITPOS: i32 = 23;
    pub const TENDONLIMITVEL: i32 = 24;
    pub const TENDONLIMITFRC: i32 = 25;
    pub const FRAMEPOS: i32 = 26;
    pub const FRAMEQUAT: i32 = 27;
    pub const FRAMEXAXIS: i32 = 28;
    pub const FRAMEYAXIS: i32 = 29;
    pub const FRAMEZAXIS: i32 = 30;
    pub const FRAMELINVEL: i32 = 31;
    pub const FRAMEANGVEL: i32 = 32;
    pub const FRAMELINACC: i32 = 33;
    pub const FRAMEANGACC: i32 = 34;
    pub const SUBTREECOM: i32 = 35;
    pub const SUBTREELINVEL: i32 = 36;
    pub const SUBTREEANGMOM: i32 = 37;
    pub const INSIDESITE: i32 = 38;
    pub const E_POTENTIAL: i32 = 43;
    pub const E_KINETIC: i32 = 44;
    pub const CLOCK: i32 = 45;
}

/// `mjtObj` values a sensor refers to (the model's object types).
pub use crate::model::obj;

/// `mjtDataType`: how a cutoff applies.
pub mod datatype {
    pub const REAL: i32 = 0;
    pub const POSITIVE: i32 = 1;
    pub const AXIS: i32 = 2;
    pub const QUATERNION: i32 = 3;
}

/// `mjtStage`.
pub mod stage {
    pub const POS: i32 = 1;
    pub const VEL: i32 = 2;
    pub const ACC: i32 = 3;
}

/// Position-stage sensors (after the position stage of the forward pass).
/// Returns whether a potential-energy sensor computed `energy[0]` (MuJoCo's `flg_energypos`),
/// so that the energy stage need not compute it again.
pub fn sensor_pos(m: &Model, d: &mut Data) -> bool {
    run_stage(m, d, stage::POS)
}

/// Velocity-stage sensors.
pub fn sensor_vel(m: &Model, d: &mut Data) {
    run_stage(m, d, stage::VEL);
}

/// Acceleration/force-stage sensors (after the constraint solve).
pub fn sensor_acc(m: &Model, d: &mut Data) {
    run_stage(m, d, stage::ACC);
}

/// Returns whether it computed the potential energy.
fn run_stage(m: &Model, d: &mut Data, which: i32) -> bool {
    if m.nsensor == 0 || m.opt.disabled(disable::SENSOR) {
        return false;
    }
    // what some sensors read is computed once, for the first that needs it (MuJoCo's
    // flg_subtreevel and flg_energypos/vel); MuJoCo computes the energy here whether or not
    // the energy flag is on, before its own energy stage; and the accelerations and forces
    // after the solve (flg_rnepost)
    let (mut subtree, mut rnepost) = (false, false);
    let (mut energy_pos, mut energy_vel) = (false, false);
    for i in 0..m.nsensor {
        if m.sensor_needstage[i] != which {
            continue;
        }
        match m.sensor_type[i] {
            kind::SUBTREELINVEL | kind::SUBTREEANGMOM if !subtree => {
                subtree_vel(m, d);
                subtree = true;
            }
            kind::E_POTENTIAL if !energy_pos => {
                super::energy::energy_pos(m, d);
                energy_pos = true;
            }
            // with the energy flag on, MuJoCo 3.15.0's kinetic-energy sensor reads the value
            // its energy stage left at the previous evaluation (that stage runs after the
            // velocity sensors); with it off, the sensor computes its own
            kind::E_KINETIC if !energy_vel && !m.opt.enabled(crate::model::enable::ENERGY) => {
                super::energy::energy_vel(m, d);
                energy_vel = true;
            }
            kind::ACCELEROMETER
            | kind::FORCE
            | kind::TORQUE
            | kind::FRAMELINACC
            | kind::FRAMEANGACC
                if !rnepost =>
            {
                super::rne::rne_post_constraint(m, d);
                rnepost = true;
            }
            _ => {}
        }
        let (adr, dim) = (m.sensor_adr[i] as usize, m.sensor_dim[i] as usize);
        let mut out = [0.0; 4];
        compute(m, d, i, &mut out[..dim]);
        cutoff(m, i, &mut out[..dim]);
        d.a.sensordata[adr..adr + dim].copy_from_slice(&out[..dim]);
    }
    energy_pos
}

/// Clamps sensor `i`'s values: both sides for real data, the upper side for positive data.
fn cutoff(m: &Model, i: usize, v: &mut [f64]) {
    let c = m.sensor_cutoff[i];
    if c <= 0.0 {
        return;
    }
    for x in v.iter_mut() {
        match m.sensor_datatype[i] {
            datatype::REAL => *x = math::clip(*x, -c, c),
            // mju_min(cutoff, x): a NaN cutoff leaves x
            datatype::POSITIVE if c < *x => *x = c,
            _ => {}
        }
    }
}

// out of line: sensors are read once a step, and inlined copies cost the browser build bytes
#[inline(never)]
fn compute(m: &Model, d: &Data, i: usize, out: &mut [f64]) {
    let (objtype, objid) = (m.sensor_objtype[i], m.sensor_objid[i] as usize);
    let (reftype, refid) = (m.sensor_reftype[i], m.sensor_refid[i]);
    let a = &d.a;
    let qadr = |j: usize| m.jnt_qposadr[j] as usize;
    let vadr = |j: usize| m.jnt_dofadr[j] as usize;
    match m.sensor_type[i] {
        kind::MAGNETOMETER => {
            let r: Mat3 = get_at(&a.site_xmat, 9 * objid);
            out.copy_from_slice(&math::mul_mat_t_vec3(&r, &m.opt.magnetic));
        }
        kind::JOINTPOS => out[0] = a.qpos[qadr(objid)],
        kind::JOINTVEL => out[0] = a.qvel[vadr(objid)],
        kind::TENDONPOS => out[0] = a.ten_length[objid],
        kind::TENDONVEL => out[0] = a.ten_velocity[objid],
        kind::ACTUATORPOS => out[0] = a.actuator_length[objid],
        kind::ACTUATORVEL => out[0] = a.actuator_velocity[objid],
        kind::ACTUATORFRC => out[0] = a.actuator_force[objid],
        kind::JOINTACTFRC => out[0] = a.qfrc_actuator[vadr(objid)],
        kind::TENDONACTFRC => {
            out[0] = (0..m.nu)
                .filter(|&u| {
                    m.actuator_trntype[u] == super::actuation::TENDON
                        && m.actuator_trnid[2 * u] as usize == objid
                })
                .map(|u| a.actuator_force[u])
                .sum();
        }
        kind::BALLQUAT => {
            let mut q: [f64; 4] = get_at(&a.qpos, qadr(objid));
            math::normalize4(&mut q);
            out.copy_from_slice(&q);
        }
        kind::BALLANGVEL => out.copy_from_slice(&a.qvel[vadr(objid)..vadr(objid) + 3]),
        // joint limit pos, vel, frc, then the tendon's
        t @ kind::JOINTLIMITPOS..=kind::TENDONLIMITFRC => {
            let k = t - kind::JOINTLIMITPOS;
            let efc_type = if k < 3 {
                efc::LIMIT_JOINT
            } else {
                efc::LIMIT_TENDON
            };
            out[0] = limit_row(d, efc_type, objid, k % 3);
        }
        t @ (kind::FRAMEPOS | kind::FRAMEXAXIS | kind::FRAMEYAXIS | kind::FRAMEZAXIS) => {
            let (pos, mat) = pose(d, objtype, objid);
            let v = if t == kind::FRAMEPOS {
                pos
            } else {
                let c = (t - kind::FRAMEXAXIS) as usize;
                [mat[c], mat[c + 3], mat[c + 6]]
            };
            let v = match refid {
                -1 => v,
                r => {
                    let (rpos, rmat) = pose(d, reftype, r as usize);
                    let v = if t == kind::FRAMEPOS {
                        math::sub3(&v, &rpos)
                    } else {
                        v
                    };
                    math::mul_mat_t_vec3(&rmat, &v)
                }
            };
            out.copy_from_slice(&v);
        }
        kind::FRAMEQUAT => {
            let q = quat(m, d, objtype, objid);
            let q = match refid {
                -1 => q,
                r => math::mul_quat(&math::neg_quat(&quat(m, d, reftype, r as usize)), &q),
            };
            out.copy_from_slice(&q);
        }
        kind::SUBTREECOM => out.copy_from_slice(&a.subtree_com[3 * objid..3 * objid + 3]),
        kind::SUBTREELINVEL => out.copy_from_slice(&a.subtree_linvel[3 * objid..3 * objid + 3]),
        kind::SUBTREEANGMOM => out.copy_from_slice(&a.subtree_angmom[3 * objid..3 * objid + 3]),
        kind::VELOCIMETER | kind::GYRO => {
            let v = object_velocity(m, d, obj::SITE, objid, true);
            let at = if m.sensor_type[i] == kind::GYRO { 0 } else { 3 };
            out.copy_from_slice(&v[at..at + 3]);
        }
        t @ (kind::FRAMELINVEL | kind::FRAMEANGVEL) => {
            let mut v = object_velocity(m, d, objtype, objid, false);
            if refid >= 0 {
                let r = refid as usize;
                let (pos, _) = pose(d, objtype, objid);
                let (rpos, rmat) = pose(d, reftype, r);
                let vref = object_velocity(m, d, reftype, r, false);
                let mut rel: [f64; 6] = std::array::from_fn(|k| v[k] - vref[k]);
                // a point fixed in the turning reference frame moves with it
                let c = math::cross(&math::sub3(&pos, &rpos), &get_at(&vref, 0));
                for k in 0..3 {
                    rel[3 + k] += c[k];
                }
                let ang = math::mul_mat_t_vec3(&rmat, &get_at(&rel, 0));
                let lin = math::mul_mat_t_vec3(&rmat, &get_at(&rel, 3));
                v = [ang[0], ang[1], ang[2], lin[0], lin[1], lin[2]];
            }
            let at = if t == kind::FRAMEANGVEL { 0 } else { 3 };
            out.copy_from_slice(&v[at..at + 3]);
        }
        t @ (kind::E_POTENTIAL | kind::E_KINETIC) => {
            out[0] = d.energy[(t == kind::E_KINETIC) as usize];
        }
        kind::CLOCK => out[0] = d.time,
        kind::TOUCH => out[0] = touch(m, d, objid),
        kind::INSIDESITE => {
            let (mut p, _) = pose(d, objtype, objid);
            // a massless body that carries mass below it (a flex's parent, say): its inertial
            // frame is only its body frame, so the subtree's centre of mass stands for it
            if objtype == obj::BODY
                && objid > 0
                && m.body_mass[objid] < math::MINVAL
                && m.body_subtreemass[objid] >= math::MINVAL
            {
                p = get_at(&a.subtree_com, 3 * objid);
            }
            let site = refid as usize;
            let inside = super::ray::inside_geom(
                &get_at(&a.site_xpos, 3 * site),
                &get_at(&a.site_xmat, 9 * site),
                &get_at(&m.site_size, 3 * site),
                m.site_type[site],
                &p,
            );
            out[0] = f64::from(u8::from(inside));
        }
        kind::ACCELEROMETER => {
            let acc = object_acceleration(m, d, obj::SITE, objid, true);
            out.copy_from_slice(&acc[3..]);
        }
        t @ (kind::FORCE | kind::TORQUE) => {
            // what the parent gives the site's body, at the site, in the site's frame
            let body = m.site_bodyid[objid] as usize;
            let root = m.body_rootid[body] as usize;
            let f = math::transform_spatial(
                &get_at(&a.cfrc_int, 6 * body),
                true,
                &get_at(&a.site_xpos, 3 * objid),
                &get_at(&a.subtree_com, 3 * root),
                Some(&get_at(&a.site_xmat, 9 * objid)),
            );
            let at = if t == kind::FORCE { 3 } else { 0 };
            out.copy_from_slice(&f[at..at + 3]);
        }
        t @ (kind::FRAMELINACC | kind::FRAMEANGACC) => {
            let acc = object_acceleration(m, d, objtype, objid, false);
            let at = if t == kind::FRAMELINACC { 3 } else { 0 };
            out.copy_from_slice(&acc[at..at + 3]);
        }
        // the compiler refuses every other type
        _ => out.fill(0.0),
    }
}

/// The sum of the normal forces of the site's body's contacts whose ray meets the site's zone
/// (`mjSENS_TOUCH`; N): from the contact point along the frame's normal (side 0 towards side
/// 1), reversed when the site's body is side 1. A contact point inside the zone always counts.
#[inline(never)]
fn touch(m: &Model, d: &Data, site: usize) -> f64 {
    let body = m.site_bodyid[site];
    let mut total = 0.0;
    for (j, con) in d.contact[..d.ncon].iter().enumerate() {
        let side_body = |k: usize| match con.geom[k] {
            g if g >= 0 => m.geom_bodyid[g as usize],
            _ => super::support::flex_body(m, con, k),
        };
        let (b0, b1) = (side_body(0), side_body(1));
        if con.efc_address < 0 || (body != b0 && body != b1) {
            continue;
        }
        let normal = super::support::contact_force(m, d, j)[0];
        if normal <= 0.0 {
            continue;
        }
        let mut ray: Vec3 = [con.frame[0], con.frame[1], con.frame[2]].map(|x| x * normal);
        math::normalize3(&mut ray);
        if body == b1 {
            ray = ray.map(|x| -x);
        }
        let a = &d.a;
        let hit = super::ray::ray_geom(
            &get_at(&a.site_xpos, 3 * site),
            &get_at(&a.site_xmat, 9 * site),
            &get_at(&m.site_size, 3 * site),
            &con.pos,
            &ray,
            m.site_type[site],
        );
        if hit >= 0.0 {
            total += normal;
        }
    }
    total
}

/// The first limit row of this type and object: its distance less its margin (`what` 0), its
/// velocity (1) or its force (2); 0 when the limit is not active.
fn limit_row(d: &Data, efc_type: i32, id: usize, what: i32) -> f64 {
    let a = &d.a;
    for j in d.ne + d.nf..d.nefc {
        if a.efc_type[j] == efc_type && a.efc_id[j] as usize == id {
            return match what {
                0 => a.efc_pos[j] - a.efc_margin[j],
                1 => a.efc_vel[j],
                _ => a.efc_force[j],
            };
        }
    }
    0.0
}

/// Position and orientation of an object with a frame: a body's inertial frame, a body's own
/// frame (`xbody`), a geom or a site.
fn pose(d: &Data, objtype: i32, id: usize) -> (Vec3, Mat3) {
    let a = &d.a;
    match objtype {
        obj::BODY => (get_at(&a.xipos, 3 * id), get_at(&a.ximat, 9 * id)),
        obj::XBODY => (get_at(&a.xpos, 3 * id), get_at(&a.xmat, 9 * id)),
        obj::GEOM => (get_at(&a.geom_xpos, 3 * id), get_at(&a.geom_xmat, 9 * id)),
        _ => (get_at(&a.site_xpos, 3 * id), get_at(&a.site_xmat, 9 * id)),
    }
}

/// Orientation of an object as a quaternion, from its body's and its own (`get_xquat`).
fn quat(m: &Model, d: &Data, objtype: i32, id: usize) -> [f64; 4] {
    let a = &d.a;
    let (body, local) = match objtype {
        obj::XBODY => return get_at(&a.xquat, 4 * id),
        obj::BODY => (id, get_at(&m.body_iquat, 4 * id)),
        obj::GEOM => (m.geom_bodyid[id] as usize, get_at(&m.geom_quat, 4 * id)),
        _ => (m.site_bodyid[id] as usize, get_at(&m.site_quat, 4 * id)),
    };
    math::mul_quat(&get_at(&a.xquat, 4 * body), &local)
}

fn body_of(m: &Model, objtype: i32, id: usize) -> usize {
    match objtype {
        obj::BODY | obj::XBODY => id,
        obj::GEOM => m.geom_bodyid[id] as usize,
        _ => m.site_bodyid[id] as usize,
    }
}

/// An object's spatial velocity `[angular, linear]` at its position (`mj_objectVelocity`), in
/// the world frame or in its own (`local`).
#[inline(never)]
pub fn object_velocity(m: &Model, d: &Data, objtype: i32, id: usize, local: bool) -> [f64; 6] {
    let body = body_of(m, objtype, id);
    if m.body_dofnum[m.body_weldid[body] as usize] == 0 {
        return [0.0; 6];
    }
    let (pos, mat) = pose(d, objtype, id);
    let com: Vec3 = get_at(&d.a.subtree_com, 3 * m.body_rootid[body] as usize);
    let cvel = get_at(&d.a.cvel, 6 * body);
    math::transform_spatial(&cvel, false, &pos, &com, local.then_some(&mat))
}

/// An object's spatial acceleration `[angular, linear]` at its position, with the Coriolis
/// term of its rotating frame (`mj_objectAcceleration`), in the world frame or its own
/// (`local`); from `cacc`, so after [`super::rne::rne_post_constraint`].
#[inline(never)]
fn object_acceleration(m: &Model, d: &Data, objtype: i32, id: usize, local: bool) -> [f64; 6] {
    let body = body_of(m, objtype, id);
    if m.body_dofnum[m.body_weldid[body] as usize] == 0 {
        return [0.0; 6];
    }
    let (pos, mat) = pose(d, objtype, id);
    let com: Vec3 = get_at(&d.a.subtree_com, 3 * m.body_rootid[body] as usize);
    let rot = local.then_some(&mat);
    let mut acc = math::transform_spatial(&get_at(&d.a.cacc, 6 * body), false, &pos, &com, rot);
    let vel = math::transform_spatial(&get_at(&d.a.cvel, 6 * body), false, &pos, &com, rot);
    let c = math::cross(&get_at(&vel, 0), &get_at(&vel, 3));
    for k in 0..3 {
        acc[3 + k] += c[k];
    }
    acc
}

/// Subtree linear velocities and angular momenta (`mj_subtreeVel`).
pub fn subtree_vel(m: &Model, d: &mut Data) {
    let nb = m.nbody;
    // each body's own linear and angular momentum first, then summed up the tree
    for b in 0..nb {
        let v = object_velocity(m, d, obj::BODY, b, false);
        let a = &mut d.a;
        for k in 0..3 {
            a.subtree_linvel[3 * b + k] = m.body_mass[b] * v[3 + k];
        }
        let r: Mat3 = get_at(&a.ximat, 9 * b);
        let mut w = math::mul_mat_t_vec3(&r, &get_at(&v, 0));
        for k in 0..3 {
            w[k] *= m.body_inertia[3 * b + k];
        }
        a.subtree_angmom[3 * b..3 * b + 3].copy_from_slice(&math::mul_mat_vec3(&r, &w));
    }
    for b in (0..nb).rev() {
        let a = &mut d.a;
        if b > 0 {
            let p = m.body_parentid[b] as usize;
            for k in 0..3 {
                a.subtree_linvel[3 * p + k] += a.subtree_linvel[3 * b + k];
            }
        }
        let inv = 1.0 / m.body_subtreemass[b].max(math::MINVAL);
        for k in 0..3 {
            a.subtree_linvel[3 * b + k] *= inv;
        }
    }
    for b in (1..nb).rev() {
        let p = m.body_parentid[b] as usize;
        let vel = object_velocity(m, d, obj::BODY, b, false);
        let a = &mut d.a;
        let lin_b: Vec3 = get_at(&a.subtree_linvel, 3 * b);
        let dx = math::sub3(&get_at(&a.xipos, 3 * b), &get_at(&a.subtree_com, 3 * b));
        let dv = math::sub3(&get_at(&vel, 3), &lin_b);
        let dl = math::cross(&dx, &dv.map(|x| x * m.body_mass[b]));
        for k in 0..3 {
            a.subtree_angmom[3 * b + k] += dl[k];
        }
        for k in 0..3 {
            a.subtree_angmom[3 * p + k] += a.subtree_angmom[3 * b + k];
        }
        let dx = math::sub3(
            &get_at(&a.subtree_com, 3 * b),
            &get_at(&a.subtree_com, 3 * p),
        );
        let dv = math::sub3(&lin_b, &get_at(&a.subtree_linvel, 3 * p));
        let dl = math::cross(&dx, &dv.map(|x| x * m.body_subtreemass[b]));
        for k in 0..3 {
            a.subtree_angmom[3 * p + k] += dl[k];
        }
    }
}
