//! When the sensors are computed: MuJoCo 3.15.0 fills `sensordata` in the forward pass that
//! starts each `mj_step`, stage by stage, and its RK4 skips the sensors in the inner stages
//! (`mj_forwardSkip(.., skipsensor = 1)`). So after a step, under every integrator, the
//! sensors describe the state before the step: the clock reads the old time, the joint sensors
//! the old qpos and qvel. (The values themselves are compared with MuJoCo's from the same
//! state by the `sensors` case of `data_fields.rs`.)

use flexlab::mjcf::MemSource;

fn model(integrator: &str) -> flexlab::Model {
    let xml = format!(
        r#"<mujoco><option integrator="{integrator}" timestep="0.01"/><worldbody>
        <body pos="0 0 1"><joint name="z" type="slide" axis="0 0 1" damping=".5"/>
        <geom type="sphere" size=".1"/></body></worldbody>
        <sensor><clock/><jointpos joint="z"/><jointvel joint="z"/></sensor></mujoco>"#
    );
    flexlab::load_xml(&xml, None, &MemSource::default()).unwrap()
}

#[test]
fn sensors_read_the_state_at_the_start_of_the_step_under_every_integrator() {
    for integrator in ["Euler", "RK4", "implicit", "implicitfast", "discrete"] {
        let m = model(integrator);
        let mut d = flexlab::Data::new(&m);
        d.qvel[0] = 0.3;
        for step in 0..5 {
            let before = [d.time, d.qpos[0], d.qvel[0]];
            flexlab::engine::step(&m, &mut d);
            assert_ne!(d.qpos[0], before[1], "{integrator}: the body moves");
            for (k, what) in ["clock", "jointpos", "jointvel"].iter().enumerate() {
                assert_eq!(
                    d.sensordata[k], before[k],
                    "{integrator}, step {step}: {what} is not the state before the step"
                );
            }
        }
    }
}

/// A NaN cutoff clamps nothing, as in MuJoCo (whose compile check, `cutoff < 0`, lets it
/// through). flexlab's MJCF reader refuses "nan" with a located error, so it is set here on the
/// compiled model: the step must not panic on it either.
#[test]
fn a_nan_cutoff_clamps_nothing() {
    let xml = r#"<mujoco><worldbody><body><joint name="z" type="slide" axis="0 0 1"/>
        <geom type="sphere" size=".1"/></body></worldbody>
        <sensor><jointvel joint="z" cutoff="1"/><jointvel joint="z" cutoff=".5"/></sensor>
        </mujoco>"#;
    let mut m = flexlab::load_xml(xml, None, &MemSource::default()).unwrap();
    m.sensor_cutoff[0] = f64::NAN;
    let mut d = flexlab::Data::new(&m);
    d.qvel[0] = -2.0;
    flexlab::engine::forward(&m, &mut d);
    assert_eq!(&d.sensordata[..], &[-2.0, -0.5]);
}

/// With the energy flag on, MuJoCo 3.15.0's kinetic-energy sensor reads `energy[1]` as the
/// previous evaluation's energy stage left it (that stage runs after the velocity sensors):
/// at step n+1 it reports what `energy[1]` held after step n (found against MuJoCo: its value
/// at step 50 of a swinging arm was the fresh one of step 49). The potential-energy sensor is
/// current. Without the flag both sensors compute their own, current values.
#[test]
fn the_kinetic_energy_sensor_lags_one_evaluation_under_the_energy_flag() {
    let model = |flag: &str| {
        let xml = format!(
            r#"<mujoco><option><flag energy="{flag}"/></option><worldbody>
            <body pos="0 0 1"><joint type="hinge" axis="0 1 0"/>
            <geom type="capsule" size=".02" fromto="0 0 0 .3 0 0"/></body></worldbody>
            <sensor><e_potential/><e_kinetic/></sensor></mujoco>"#
        );
        flexlab::load_xml(&xml, None, &MemSource::default()).unwrap()
    };
    let m = model("enable");
    let mut d = flexlab::Data::new(&m);
    for _ in 0..20 {
        let last = d.energy[1];
        flexlab::engine::step(&m, &mut d);
        assert_eq!(
            d.sensordata[1], last,
            "the sensor reads the previous energy stage"
        );
    }
    assert!(d.energy[1] > 0.0, "the arm swings");
    let m = model("disable");
    let mut d = flexlab::Data::new(&m);
    let mut fresh = flexlab::Data::new(&m);
    for _ in 0..20 {
        fresh.qpos.copy_from_slice(&d.qpos);
        fresh.qvel.copy_from_slice(&d.qvel);
        flexlab::engine::step(&m, &mut d);
        flexlab::engine::forward(&m, &mut fresh);
        assert_eq!(
            d.sensordata[1], fresh.sensordata[1],
            "the sensor is current"
        );
    }
}

/// Under RK4 with the energy flag, MuJoCo 3.15.0's intermediate evaluations
/// (`mj_forwardSkip(.., skipsensor = 1)`) still run the energy stage, so after a step `energy`
/// holds the last stage's value and the kinetic-energy sensor of the next evaluation reads it.
/// The expected values are MuJoCo 3.15.0's `d.energy[1]` after each of the first five
/// `mj_step`s of this model (PyPI mujoco==3.15.0, `mj_forward` first), and its `sensordata`
/// after each step is the value of the step before.
#[test]
fn rk4_stages_update_the_energy_as_mujoco_does() {
    let xml = r#"<mujoco><option timestep="0.01" integrator="RK4"><flag energy="enable"/></option>
        <worldbody><body pos="0 0 1"><joint type="hinge" axis="0 1 0"/>
        <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03"/></body></worldbody>
        <sensor><e_kinetic/></sensor></mujoco>"#;
    let m = flexlab::load_xml(xml, None, &MemSource::default()).unwrap();
    let mut d = flexlab::Data::new(&m);
    flexlab::engine::forward(&m, &mut d);
    let mujoco = [
        0.0032120388261773244,
        0.012847956577103902,
        0.028905964805124924,
        0.05137910991372115,
        0.08024932281327604,
    ];
    let mut last = 0.0;
    for want in mujoco {
        flexlab::engine::step(&m, &mut d);
        assert_eq!(
            d.sensordata[0], last,
            "the sensor reads the energy before the step"
        );
        assert_eq!(d.energy[1], want, "the energy of RK4's last stage");
        last = want;
    }
}
