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
