//! The cable plugin's restoring torques on a chain built by `<composite type="cable">`.

use flexlab::math;
use flexlab::mjcf::MemSource;
use flexlab::model::Model;
use flexlab::Data;

fn chain(bend: &str) -> Model {
    let xml = format!(
        r#"<mujoco><extension><plugin plugin="mujoco.elasticity.cable"/></extension>
        <option gravity="0 0 0"/>
        <worldbody><composite prefix="c" type="cable" count="6 1 1" size="0.5" curve="s"
                   initial="none"><plugin plugin="mujoco.elasticity.cable">
            <config key="bend" value="{bend}"/><config key="twist" value="{bend}"/></plugin>
          <geom type="capsule" size="0.01"/></composite></worldbody></mujoco>"#
    );
    flexlab::load_xml(&xml, None, &MemSource::default()).unwrap()
}

/// qfrc_passive after bending the second joint by `angle` about z.
fn bent(m: &Model, angle: f64) -> Vec<f64> {
    let mut d = Data::new(m);
    let q = math::axis_angle_to_quat(&[0.0, 0.0, 1.0], angle);
    let adr = m.jnt_qposadr[1] as usize;
    d.a.qpos[adr..adr + 4].copy_from_slice(&q);
    flexlab::engine::forward::forward(m, &mut d);
    d.a.qfrc_passive.clone()
}

#[test]
fn a_bent_joint_is_pushed_back_towards_the_rest_shape() {
    let m = chain("1e6");
    let f = bent(&m, 0.3);
    let z = m.jnt_dofadr[1] as usize + 2;
    // −E·I·θ/L with I = π r⁴/4, r = 0.01 m, L = 0.1 m: only the bent joint feels it (the
    // torque pair acts between its two bodies); L is 0.1 to f32 precision, as MuJoCo keeps
    // the cable's vertices in f32
    let expect = -1e6 * math::PI * 0.01f64.powi(4) / 4.0 * 0.3 / 0.1;
    assert!(
        (f[z] - expect).abs() < 1e-7 * expect.abs(),
        "{} vs {expect}",
        f[z]
    );
    for (i, x) in f.iter().enumerate() {
        assert!(i == z || x.abs() < 1e-15, "qfrc_passive[{i}] = {x}");
    }
    // linear in the stiffness, and nothing at rest
    let f2 = bent(&chain("2e6"), 0.3);
    assert!((f2[z] / f[z] - 2.0).abs() < 1e-12);
    assert!(bent(&m, 0.0).iter().all(|&x| x == 0.0));
    assert!(bent(&chain("0"), 0.3).iter().all(|&x| x == 0.0));
}
