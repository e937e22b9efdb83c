//! Flex elasticity against finite differences: every passive force is the negative gradient of
//! its energy, and every metric stiffness (the PSD Hessian the discrete integrator uses) is the
//! derivative of its force where the PSD clamp is inactive.
//!
//! The models use flexcomp vertex bodies with world-aligned slides, so generalized coordinates
//! are vertex displacements and qfrc_spring is the Cartesian vertex force.

#![allow(clippy::needless_range_loop)]

use flexlab::engine::{elastic, forward};
use flexlab::mjcf::MemSource;
use flexlab::{Data, Model};

fn load(xml: &str, snh: bool) -> Model {
    let mut spec =
        flexlab::mjcf::parse(xml, Some("fd.xml"), &MemSource { files: vec![] }).expect("parses");
    if snh {
        spec.set_elastic3d("body", 1).unwrap();
    }
    flexlab::compile::compile(&spec).expect("compiles")
}

const CLOTH: &str = r#"<mujoco><option integrator="discrete"><flag gravity="disable"/></option><worldbody>
 <flexcomp name="body" type="grid" dim="2" count="4 3 1" spacing=".05 .04 .05" radius=".002" mass=".2">
  <elasticity young="3e4" poisson="0.3" thickness="2e-3" elastic2d="both"/>
  <contact contype="0" conaffinity="0"/></flexcomp></worldbody></mujoco>"#;

const BLOCK: &str = r#"<mujoco><option integrator="discrete"><flag gravity="disable"/></option><worldbody>
 <flexcomp name="body" type="grid" dim="3" count="3 3 2" spacing=".05 .05 .05" radius=".002" mass="1">
  <elasticity young="5e4" poisson="0.3"/>
  <contact contype="0" conaffinity="0"/></flexcomp></worldbody></mujoco>"#;

/// A deterministic deformation: a smooth stretch (every element in tension, so StVK's
/// tensile-only geometric term is exact) plus a small irregular shake.
fn deform(m: &Model, d: &mut Data, stretch: f64, shake: f64) {
    for i in 0..m.nq {
        let v = i / 3;
        let c = i % 3;
        let x0 = m.flex_vert[3 * v + c];
        d.qpos[i] = stretch * x0 + shake * ((1.3 * i as f64 + 0.7).sin());
    }
}

fn energy(m: &Model, d: &mut Data) -> f64 {
    forward(m, d);
    elastic::elastic_energy(m, d, 0)
}

fn check_force_is_gradient(m: &Model, stretch: f64, shake: f64) {
    let mut d = Data::new(m);
    deform(m, &mut d, stretch, shake);
    forward(m, &mut d);
    let force = d.qfrc_spring.clone();
    let scale = force.iter().fold(0.0f64, |a, x| a.max(x.abs()));
    assert!(scale > 0.0, "the deformation must load the flex");
    let eps = 1e-7;
    let mut worst = 0.0f64;
    for i in 0..m.nv {
        let q0 = d.qpos[i];
        d.qpos[i] = q0 + eps;
        let ep = energy(m, &mut d);
        d.qpos[i] = q0 - eps;
        let em = energy(m, &mut d);
        d.qpos[i] = q0;
        let fd = -(ep - em) / (2.0 * eps);
        worst = worst.max((fd - force[i]).abs() / scale);
    }
    assert!(
        worst < 1e-6,
        "force differs from −∂E/∂x by {worst:.2e} (relative)"
    );
}

/// Column `j` of the metric stiffness, through the public operator the integrator applies.
fn stiffness_column(m: &Model, d: &mut Data, j: usize) -> Vec<f64> {
    let mut s = std::mem::take(&mut d.scratch);
    let mut e = vec![0.0; m.nv];
    e[j] = 1.0;
    let mut out = vec![0.0; m.nv];
    let saved = s.metric.has_diag;
    s.metric.has_diag = false;
    let scale = s.metric.flex_scale[0];
    flexlab::engine::metric::mul_add(m, d, &mut s, &mut out, &e);
    s.metric.has_diag = saved;
    d.scratch = s;
    out.iter().map(|x| x / scale).collect()
}

fn check_hessian_is_force_derivative(m: &Model, stretch: f64, shake: f64, tol: f64) {
    let mut d = Data::new(m);
    deform(m, &mut d, stretch, shake);
    forward(m, &mut d);
    let eps = 1e-7;
    let mut worst = 0.0f64;
    let mut scale = 0.0f64;
    for j in 0..m.nv {
        let k = stiffness_column(m, &mut d, j);
        let q0 = d.qpos[j];
        d.qpos[j] = q0 + eps;
        forward(m, &mut d);
        let fp = d.qfrc_spring.clone();
        d.qpos[j] = q0 - eps;
        forward(m, &mut d);
        let fm = d.qfrc_spring.clone();
        d.qpos[j] = q0;
        forward(m, &mut d);
        for i in 0..m.nv {
            let fd = -(fp[i] - fm[i]) / (2.0 * eps);
            worst = worst.max((fd - k[i]).abs());
            scale = scale.max(fd.abs());
        }
    }
    assert!(
        worst / scale < tol,
        "stiffness differs from −∂F/∂x by {:.2e} (relative)",
        worst / scale
    );
}

#[test]
fn stvk_and_bending_forces_are_energy_gradients_2d() {
    check_force_is_gradient(&load(CLOTH, false), 0.03, 2e-3);
}

#[test]
fn stvk_forces_are_energy_gradients_3d() {
    check_force_is_gradient(&load(BLOCK, false), 0.03, 2e-3);
}

#[test]
fn snh_forces_are_energy_gradients() {
    check_force_is_gradient(&load(BLOCK, true), 0.03, 2e-3);
}

#[test]
fn stvk_and_bending_stiffness_is_force_derivative_2d() {
    // pure stretch keeps every element tensile and the shell flat, where the metric is exact
    check_hessian_is_force_derivative(&load(CLOTH, false), 0.05, 0.0, 1e-5);
}

#[test]
fn stvk_stiffness_is_force_derivative_3d() {
    check_hessian_is_force_derivative(&load(BLOCK, false), 0.05, 0.0, 1e-5);
}

#[test]
fn snh_projected_stiffness_is_force_derivative_near_rest() {
    // near rest the SNH material Hessian is positive definite, so the projection is inactive
    check_hessian_is_force_derivative(&load(BLOCK, true), 0.02, 0.0, 1e-4);
}

#[test]
fn metric_stiffness_is_positive_semidefinite_when_compressed() {
    // under compression StVK drops the negative geometric term: vᵀKv ≥ 0 for every v
    let m = load(CLOTH, false);
    let mut d = Data::new(&m);
    deform(&m, &mut d, -0.1, 3e-3);
    forward(&m, &mut d);
    for j in 0..m.nv {
        let k = stiffness_column(&m, &mut d, j);
        assert!(k[j] >= -1e-9, "negative diagonal {} at dof {j}", k[j]);
    }
}

const TRILINEAR: &str = r#"<mujoco><option integrator="discrete"><flag gravity="disable"/></option><worldbody>
 <flexcomp name="body" type="grid" dim="3" count="4 4 4" spacing=".05 .05 .05" radius=".002" mass="1"
           dof="trilinear">
  <elasticity young="5e4" poisson="0.3"/>
  <contact contype="0" conaffinity="0" selfcollide="none"/></flexcomp></worldbody></mujoco>"#;

const QUADRATIC: &str = r#"<mujoco><option integrator="discrete"><flag gravity="disable"/></option><worldbody>
 <flexcomp name="body" type="grid" dim="3" count="4 4 4" spacing=".05 .05 .05" radius=".002" mass="1"
           dof="quadratic">
  <elasticity young="5e4" poisson="0.3"/>
  <contact contype="0" conaffinity="0" selfcollide="none"/></flexcomp></worldbody></mujoco>"#;

/// Node displacements for interpolated flexes (their dofs move nodes, not vertices).
fn shake_nodes(m: &Model, d: &mut Data, shake: f64) {
    for i in 0..m.nq {
        d.qpos[i] = shake * ((1.3 * i as f64 + 0.7).sin());
    }
}

/// Interpolated elasticity is corotated linear: its stiffness leaves out the rotation's
/// derivative, so it equals −∂F/∂q up to the (small) rotation of a small deformation.
fn check_interp_stiffness(xml: &str) {
    let m = load(xml, false);
    assert!(m.flex_interp[0] != 0);
    let mut d = Data::new(&m);
    shake_nodes(&m, &mut d, 1e-4);
    forward(&m, &mut d);
    let eps = 1e-7;
    let (mut worst, mut scale) = (0.0f64, 0.0f64);
    for j in 0..m.nv {
        let k = stiffness_column(&m, &mut d, j);
        let q0 = d.qpos[j];
        d.qpos[j] = q0 + eps;
        forward(&m, &mut d);
        let fp = d.qfrc_spring.clone();
        d.qpos[j] = q0 - eps;
        forward(&m, &mut d);
        let fm = d.qfrc_spring.clone();
        d.qpos[j] = q0;
        forward(&m, &mut d);
        for i in 0..m.nv {
            let fd = -(fp[i] - fm[i]) / (2.0 * eps);
            worst = worst.max((fd - k[i]).abs());
            scale = scale.max(fd.abs());
        }
    }
    assert!(scale > 0.0);
    assert!(
        worst / scale < 1e-3,
        "stiffness differs from −∂F/∂q by {:.2e} (relative)",
        worst / scale
    );
}

#[test]
fn trilinear_stiffness_is_force_derivative_near_rest() {
    check_interp_stiffness(TRILINEAR);
}

#[test]
fn quadratic_stiffness_is_force_derivative_near_rest() {
    check_interp_stiffness(QUADRATIC);
}
