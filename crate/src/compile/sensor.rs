//! Compiles sensors as MuJoCo's `mjCSensor::Compile` does: the checks and their messages, the
//! object and reference ids, data type, stage, dimension and address of each.

use super::cerr_obj;
use crate::engine::sensor::{datatype, kind, obj, stage};
use crate::error::{Error, Result};
use crate::model::Model;
use crate::spec::{SensorSpec, Spec};

/// Adds every sensor; joints, tendons and actuators must be compiled already.
pub fn compile(m: &mut Model, spec: &Spec) -> Result<()> {
    for s in &spec.sensors {
        let err = |msg: String| cerr_obj(msg, "sensor", &s.name, s.line);
        if s.noise < 0.0 {
            return Err(err("negative noise in sensor".into()));
        }
        if s.cutoff < 0.0 {
            return Err(err("negative cutoff in sensor".into()));
        }
        if s.objtype != obj::UNKNOWN && s.objname.is_empty() {
            return Err(err("missing name of sensorized object in sensor".into()));
        }
        if s.reftype != obj::UNKNOWN && s.refname.is_empty() {
            return Err(err(
                "missing name of reference frame object in sensor".into()
            ));
        }
        let objid = match s.objtype {
            obj::UNKNOWN => -1,
            t => find(m, t, &s.objname, s)?.ok_or_else(|| {
                err(format!(
                    "unrecognized name '{}' of sensorized object",
                    s.objname
                ))
            })? as i32,
        };
        let refid = match s.reftype {
            obj::UNKNOWN => -1,
            t => find(m, t, &s.refname, s)?
                .ok_or_else(|| err(format!("unrecognized name '{}' of object", s.refname)))?
                as i32,
        };
        check_object(m, s, objid as usize).map_err(err)?;
        // a cutoff clamps each value, which would leave a unit vector or quaternion
        let dtype = datatype_of(s.stype);
        if s.cutoff > 0.0 && (dtype == datatype::AXIS || dtype == datatype::QUATERNION) {
            return Err(err(
                "cutoff applied to axis or quaternion datatype in sensor".into(),
            ));
        }
        let adr = m.nsensordata;
        let dim = dim(s.stype);
        m.sensor_type.push(s.stype);
        m.sensor_datatype.push(datatype_of(s.stype));
        m.sensor_needstage.push(stage_of(s.stype));
        m.sensor_objtype.push(s.objtype);
        m.sensor_objid.push(objid);
        m.sensor_reftype.push(s.reftype);
        m.sensor_refid.push(refid);
        m.sensor_dim.push(dim as i32);
        m.sensor_adr.push(adr as i32);
        m.sensor_cutoff.push(s.cutoff);
        m.sensor_noise.push(s.noise);
        m.names_sensor.push(s.name.clone());
        m.nsensordata += dim;
        m.nsensor += 1;
    }
    Ok(())
}

/// The id of the object of type `objtype` named `name`.
fn find(m: &Model, objtype: i32, name: &str, s: &SensorSpec) -> Result<Option<usize>> {
    let names = match objtype {
        obj::BODY | obj::XBODY => &m.names_body,
        obj::JOINT => &m.names_jnt,
        obj::GEOM => &m.names_geom,
        obj::SITE => &m.names_site,
        obj::TENDON => &m.names_tendon,
        obj::ACTUATOR => &m.names_actuator,
        _ => {
            return Err(
                Error::unsupported("a sensor on a camera is not supported by flexlab yet")
                    .at_element("sensor")
                    .at_line(s.line),
            )
        }
    };
    Ok(names.iter().position(|n| n == name))
}

/// MuJoCo's checks of the sensorized object against the sensor type.
fn check_object(m: &Model, s: &SensorSpec, id: usize) -> std::result::Result<(), String> {
    const BALL: i32 = 1;
    let problem = match s.stype {
        kind::JOINTPOS | kind::JOINTVEL | kind::JOINTACTFRC if !matches!(m.jnt_type[id], 2 | 3) => {
            "joint must be slide or hinge in sensor"
        }
        kind::BALLQUAT | kind::BALLANGVEL if m.jnt_type[id] != BALL => {
            "joint must be ball in sensor"
        }
        kind::JOINTLIMITPOS | kind::JOINTLIMITVEL | kind::JOINTLIMITFRC
            if m.jnt_limited[id] == 0 =>
        {
            "joint must be limited in sensor"
        }
        kind::TENDONLIMITPOS | kind::TENDONLIMITVEL | kind::TENDONLIMITFRC
            if m.tendon_limited[id] == 0 =>
        {
            "tendon must be limited in sensor"
        }
        _ => return Ok(()),
    };
    Err(problem.into())
}

/// Number of values (`mjs_sensorDim`; flexlab's actuators have one output each).
fn dim(stype: i32) -> usize {
    match stype {
        kind::FRAMEQUAT | kind::BALLQUAT => 4,
        kind::INSIDESITE => 1,
        kind::MAGNETOMETER
        | kind::ACCELEROMETER
        | kind::FORCE
        | kind::TORQUE
        | kind::FRAMELINACC
        | kind::FRAMEANGACC
        | kind::VELOCIMETER
        | kind::GYRO
        | kind::BALLANGVEL
        | kind::FRAMEPOS
        | kind::FRAMEXAXIS
        | kind::FRAMEYAXIS
        | kind::FRAMEZAXIS
        | kind::FRAMELINVEL
        | kind::FRAMEANGVEL
        | kind::SUBTREECOM
        | kind::SUBTREELINVEL
        | kind::SUBTREEANGMOM => 3,
        _ => 1,
    }
}

/// `sensorDatatype`: how a cutoff applies.
fn datatype_of(stype: i32) -> i32 {
    match stype {
        kind::FRAMEXAXIS | kind::FRAMEYAXIS | kind::FRAMEZAXIS => datatype::AXIS,
        kind::BALLQUAT | kind::FRAMEQUAT => datatype::QUATERNION,
        kind::TOUCH | kind::INSIDESITE => datatype::POSITIVE,
        _ => datatype::REAL,
    }
}

/// `sensorNeedstage`: the forward stage after which the sensor is computed.
fn stage_of(stype: i32) -> i32 {
    match stype {
        kind::TOUCH
        | kind::ACCELEROMETER
        | kind::FORCE
        | kind::TORQUE
        | kind::FRAMELINACC
        | kind::FRAMEANGACC
        | kind::ACTUATORFRC
        | kind::JOINTACTFRC
        | kind::TENDONACTFRC
        | kind::JOINTLIMITFRC
        | kind::TENDONLIMITFRC => stage::ACC,
        kind::VELOCIMETER
        | kind::GYRO
        | kind::JOINTVEL
        | kind::TENDONVEL
        | kind::ACTUATORVEL
        | kind::BALLANGVEL
        | kind::JOINTLIMITVEL
        | kind::TENDONLIMITVEL
        | kind::FRAMELINVEL
        | kind::FRAMEANGVEL
        | kind::SUBTREELINVEL
        | kind::SUBTREEANGMOM => stage::VEL,
        _ => stage::POS,
    }
}
