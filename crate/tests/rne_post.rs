//! `mj_rnePostConstraint`'s arrays by hand, where MuJoCo's own state cannot carry the case:
//! the data-field references load qpos/qvel only, so a perturbation (`xfrc_applied`, what the
//! lab's drag applies) is checked here against Newton's laws. The rest (contacts, connect,
//! weld, the sensors) is compared with MuJoCo 3.15.0 by the `sensors_acc` data-field case.

use flexlab::mjcf::MemSource;

fn load(xml: &str) -> flexlab::Model {
    flexlab::load_xml(xml, None, &MemSource::default()).unwrap()
}

/// A free body pushed off its centre of mass, without gravity: the push is its only external
/// force (moved to the centre of mass, it gains the torque r × F), its acceleration is what
/// that gives it, and nothing passes through the free joint, so its interaction force is zero.
#[test]
fn a_perturbation_is_external_and_a_free_body_transmits_nothing() {
    let m = load(
        r#"<mujoco><option gravity="0 0 0"/><worldbody>
        <body name="b" pos="0 0 1"><freejoint/><geom type="box" size=".1 .2 .3" mass="2"/>
        <site name="s" pos=".05 0 0"/></body></worldbody>
        <sensor><force site="s"/><framelinacc objtype="body" objname="b"/></sensor></mujoco>"#,
    );
    let mut d = flexlab::Data::new(&m);
    // a 3 N push along x at a point 0.1 m above the centre of mass
    let (force, arm) = ([3.0, 0.0, 0.0], [0.0, 0.0, 0.1]);
    d.xfrc_applied[6..9].copy_from_slice(&force);
    // xfrc_applied holds the torque about the centre of mass
    d.xfrc_applied[9..12].copy_from_slice(&flexlab::math::cross(&arm, &force));
    flexlab::engine::forward(&m, &mut d);
    let ext = &d.cfrc_ext[6..12];
    let want = [0.0, 0.3, 0.0, 3.0, 0.0, 0.0];
    for k in 0..6 {
        assert!((ext[k] - want[k]).abs() < 1e-12, "cfrc_ext {ext:?}");
        assert!(
            d.cfrc_int[6 + k].abs() < 1e-12,
            "cfrc_int {:?}",
            &d.cfrc_int[6..12]
        );
    }
    // the force sensor reads the interaction force: none; the centre of mass accelerates at F/m
    assert!(d.sensordata[..3].iter().all(|f| f.abs() < 1e-12));
    assert!(
        (d.sensordata[3] - 1.5).abs() < 1e-12,
        "{:?}",
        &d.sensordata[3..6]
    );
}

/// A body hanging at rest from a hinge: its parent holds up its weight, so the interaction
/// force, and the force sensor at a site aligned with the world, read m·g upwards.
#[test]
fn a_hanging_body_is_held_up_by_its_weight() {
    let m = load(
        r#"<mujoco><worldbody><body pos="0 0 1"><joint type="hinge" axis="0 1 0"/>
        <geom type="sphere" size=".05" pos="0 0 -.3" mass="0.5"/><site name="s"/></body>
        </worldbody><sensor><force site="s"/><accelerometer site="s"/></sensor></mujoco>"#,
    );
    let mut d = flexlab::Data::new(&m);
    flexlab::engine::forward(&m, &mut d);
    let weight = 0.5 * 9.81;
    let want = [0.0, 0.0, weight];
    for (k, w) in want.iter().enumerate() {
        assert!(
            (d.sensordata[k] - w).abs() < 1e-9,
            "{:?}",
            &d.sensordata[..3]
        );
        // an accelerometer at rest reads minus gravity
        assert!((d.sensordata[3 + k] - w / 0.5).abs() < 1e-9);
    }
}
