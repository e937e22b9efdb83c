//! Mesh and sdf geoms in the engine: until flexlab has their collision functions, a model
//! where such a geom can touch something is refused before stepping (never stepped with the
//! contact skipped or faked); one where it cannot touch anything steps normally.

mod common;

use flexlab::engine::collision::check_supported;
use flexlab::{Data, ErrorKind};

fn refusal(path: std::path::PathBuf) -> String {
    let m = flexlab::load_file(&path).expect("compiles");
    let e = check_supported(&m).expect_err("refused");
    assert_eq!(e.kind, ErrorKind::Unsupported);
    e.to_string()
}

#[test]
fn colliding_sdf_and_mesh_geoms_are_refused() {
    let sdf = common::shared().join("oracle/mujoco-examples/cloth_sdf.xml");
    assert!(refusal(sdf).contains("collision with sdf geoms is not supported by flexlab yet"));
    let mesh = common::repo().join("crate/tests/models/mesh_inline_free.xml");
    assert!(refusal(mesh).contains("collision with mesh geoms is not supported by flexlab yet"));
}

#[test]
fn a_non_colliding_sdf_body_falls_freely() {
    let path = common::repo().join("crate/tests/models/sdf_torus_implicit.xml");
    let m = flexlab::load_file(&path).unwrap();
    check_supported(&m).unwrap();
    let mut d = Data::new(&m);
    let z0 = d.a.qpos[2];
    let n = 100;
    for _ in 0..n {
        flexlab::engine::step(&m, &mut d);
    }
    // semi-implicit Euler from rest: z drops by g·h²·n(n+1)/2
    let h = m.opt.timestep;
    let want = z0 + m.opt.gravity[2] * h * h * (n * (n + 1)) as f64 / 2.0;
    assert!(
        (d.a.qpos[2] - want).abs() < 1e-9,
        "{} vs {want}",
        d.a.qpos[2]
    );
}
