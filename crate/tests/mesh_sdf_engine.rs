//! Mesh and sdf geoms in the engine: a model needing a collision function flexlab lacks is
//! refused before stepping (never stepped with the contact skipped or faked); mesh geoms
//! against planes, spheres, ellipsoids and flexes collide; a geom that cannot touch anything
//! steps normally.

mod common;

use flexlab::compile::support::check_supported;
use flexlab::mjcf::MemSource;
use flexlab::{Data, ErrorKind};

fn refusal(m: &flexlab::Model) -> String {
    let e = check_supported(m).expect_err("refused");
    assert_eq!(e.kind, ErrorKind::Unsupported);
    e.to_string()
}

fn model(name: &str) -> flexlab::Model {
    flexlab::load_file(&common::repo().join("crate/tests/models").join(name)).expect("compiles")
}

#[test]
fn supported_mesh_pairs_and_sdf_geoms_collide() {
    let sdf = common::shared().join("oracle/mujoco-examples/cloth_sdf.xml");
    check_supported(&flexlab::load_file(&sdf).unwrap()).unwrap();
    for name in [
        "mesh_inline_free.xml",
        "mesh_plane_box.xml",
        "mesh_plane_ico.xml",
        "mesh_sphere_ellipsoid.xml",
        "cloth_on_mesh.xml",
        "mesh_box_margin.xml",
        "mesh_on_box.xml",
        "clip_meshes.xml",
    ] {
        check_supported(&model(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}

/// A hexagonal prism's `<mesh>` attributes: its two hexagons are polygons of six vertices.
fn hex_prism() -> String {
    let mut v = String::new();
    for z in [-0.05, 0.05] {
        for i in 0..6 {
            let a = std::f64::consts::PI / 3.0 * i as f64;
            v += &format!("{:.6} {:.6} {z} ", 0.07 * a.cos(), 0.07 * a.sin());
        }
    }
    let mut f = String::new();
    for i in 1..5 {
        f += &format!("0 {} {}  6 {} {}  ", i + 1, i, 6 + i, 7 + i);
    }
    for i in 0..6 {
        let j = (i + 1) % 6;
        f += &format!("{i} {j} {}  {i} {} {}  ", 6 + j, 6 + j, 6 + i);
    }
    format!(r#"vertex="{v}" face="{f}""#)
}

#[test]
fn a_plane_under_a_mesh_with_a_hexagonal_face_is_refused() {
    let xml = format!(
        r#"<mujoco><asset><mesh name="hex" {}/></asset>
        <worldbody><geom type="plane" size="1 1 .1"/>
        <body pos="0 0 .2"><freejoint/><geom name="nut" type="mesh" mesh="hex"/></body>
        </worldbody></mujoco>"#,
        hex_prism()
    );
    let m = flexlab::load_xml(&xml, Some("hex.xml"), &MemSource::default()).unwrap();
    let msg = refusal(&m);
    assert!(
        msg.contains("polygons of more than 4 vertices") && msg.contains("6-vertex"),
        "{msg}"
    );
}

#[test]
fn an_explicit_pair_the_engine_cannot_collide_is_refused_by_its_geoms() {
    // neither geom collides through the broad phase: only the pair makes them touch
    let xml = format!(
        r#"<mujoco><asset><mesh name="hex" {}/></asset>
        <worldbody><geom name="floor" type="plane" size="1 1 .1" contype="0" conaffinity="0"/>
        <body pos="0 0 .2"><freejoint/>
        <geom name="nut" type="mesh" mesh="hex" contype="0" conaffinity="0"/></body>
        </worldbody><contact><pair geom1="nut" geom2="floor"/></contact></mujoco>"#,
        hex_prism()
    );
    let m = flexlab::load_xml(&xml, Some("hex.xml"), &MemSource::default()).unwrap();
    let msg = refusal(&m);
    assert!(
        msg.contains("polygons of more than 4 vertices")
            && msg.contains("geom 'nut'")
            && msg.contains("geom 'floor'")
            && msg.contains("remove the pair"),
        "{msg}"
    );
    // without the pair the model steps: nothing else can touch the mesh
    let free = xml.replace(r#"<pair geom1="nut" geom2="floor"/>"#, "");
    check_supported(&flexlab::load_xml(&free, Some("hex.xml"), &MemSource::default()).unwrap())
        .unwrap();
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
