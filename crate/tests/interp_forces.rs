//! Interpolated (trilinear, quadratic) flex forces and their derivatives on the verification
//! cell of the implementation notes, through the public step.

use flexlab::data::Data;
use flexlab::model::Model;

/// The verification model of the implementation notes (§9): one 1-m cell of 8 or 27
/// nodes on slide bodies at z ∈ [0.5, 1.5].
fn model(dof: &str, extra: &str, integrator: &str) -> Model {
    let xml = format!(
        r#"<mujoco><option timestep="0.001" integrator="{integrator}" gravity="0 0 0"/>
        <worldbody><flexcomp type="grid" count="3 3 3" spacing=".5 .5 .5" pos="0 0 1"
        dim="3" radius=".001" mass="8" name="B" dof="{dof}">
        <elasticity young="1000" poisson="0.3" {extra}/>
        <contact selfcollide="none"/></flexcomp></worldbody></mujoco>"#
    );
    flexlab::load_xml(&xml, None, &flexlab::mjcf::MemSource::default()).unwrap()
}

fn forward(m: &Model, qpos: &[(usize, f64)], qvel: &[(usize, f64)]) -> Data {
    let mut d = Data::new(m);
    for &(i, v) in qpos {
        d.a.qpos[i] = v;
    }
    for &(i, v) in qvel {
        d.a.qvel[i] = v;
    }
    flexlab::engine::forward(m, &mut d);
    d
}

fn close(got: &[f64], want: &[f64], tol: f64) {
    assert_eq!(got.len(), want.len());
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!((g - w).abs() <= tol, "entry {i}: {g} vs {w}");
    }
}

const DISP: [(usize, f64); 3] = [(21, 0.01), (22, 0.02), (23, -0.03)];

#[test]
fn trilinear_forces_after_a_node_displacement() {
    let m = model("trilinear", r#"damping="0.05""#, "Euler");
    assert_eq!(m.nflexstiffness, 576);
    let d = forward(&m, &DISP, &[]);
    let want = [
        0.057641240738,
        0.111075819139,
        -0.156097072868,
        1.397985336876,
        1.346245799188,
        -0.329989328083,
        -1.004443536861,
        0.211160539621,
        -0.786498937434,
        0.553322795449,
        -0.220102639707,
        0.312296667461,
        0.108338782596,
        -0.574677653635,
        -0.305023562127,
        -0.115712037671,
        1.086104260684,
        0.308823497435,
        -0.121320374584,
        -0.229214192254,
        -1.586817963824,
        -0.875812206542,
        -1.730591933038,
        2.54330669944,
    ];
    close(&d.a.qfrc_spring, &want, 1e-11);
}

#[test]
fn trilinear_damping_at_rest() {
    let m = model("trilinear", r#"damping="0.05""#, "Euler");
    let d = forward(&m, &[], &[(21, 0.1)]);
    let want = [
        0.186965811966,
        0.160256410256,
        0.160256410256,
        0.293803418803,
        0.320512820513,
        -0.080128205128,
        0.293803418803,
        -0.080128205128,
        0.320512820513,
        0.42735042735,
        -0.160256410256,
        -0.160256410256,
        -0.026709401709,
        0.080128205128,
        0.080128205128,
        -0.213675213675,
        0.160256410256,
        -0.160256410256,
        -0.213675213675,
        -0.160256410256,
        0.160256410256,
        -0.747863247863,
        -0.320512820513,
        -0.320512820513,
    ];
    close(&d.a.qfrc_damper, &want, 1e-11);
}

#[test]
fn rigid_rotation_gives_no_force() {
    let m = model("trilinear", r#"damping="0.05""#, "Euler");
    // rotate every node 30° about z through the box centre (0, 0, 1)
    let (c, s) = (30f64.to_radians().cos(), 30f64.to_radians().sin());
    let mut qpos = Vec::new();
    for n in 0..8 {
        let p = &m.flex_node0[3 * n..3 * n + 3];
        let (x, y) = (p[0], p[1]);
        qpos.push((3 * n, c * x - s * y - x));
        qpos.push((3 * n + 1, s * x + c * y - y));
    }
    let d = forward(&m, &qpos, &[]);
    let worst = d.a.qfrc_spring.iter().fold(0.0f64, |a, b| a.max(b.abs()));
    assert!(worst < 1e-12, "{worst}");
}

#[test]
fn quadratic_forces_after_a_node_displacement() {
    let m = model("quadratic", r#"damping="0.05""#, "Euler");
    assert_eq!(m.nflexstiffness, 6561);
    let d = forward(&m, &[(78, 0.01), (79, 0.02), (80, -0.03)], &[]);
    close(
        &d.a.qfrc_spring[78..81],
        &[-14.967469433252, -29.934938866504, 44.902408299756],
        1e-9,
    );
    close(
        &d.a.qfrc_spring[0..3],
        &[-1.121203229304, -2.242406458608, 3.363609687912],
        1e-10,
    );
    let sum: f64 = d.a.qfrc_spring.iter().sum();
    assert!(sum.abs() < 1e-10);
}

#[test]
fn trilinear_shell_bending() {
    let m = model(
        "trilinear",
        r#"elastic2d="bend" thickness="0.05" damping="0""#,
        "Euler",
    );
    assert_eq!(m.flex_interp[0], -1);
    assert_eq!((m.nflexstiffness, m.nflexbending), (864, 121));
    let d = forward(&m, &DISP, &[]);
    let want = [
        -1.413998093895e-05,
        -2.831393744902e-05,
        4.344943287779e-05,
        3.534146996213e-07,
        -4.245838213596e-05,
        4.906199856454e-05,
        -7.145245552541e-05,
        -2.537272984690e-05,
        1.006392952838e-04,
        6.447702168396e-05,
        3.951858697336e-04,
        -4.410150311151e-04,
        -1.278524467219e-05,
        -9.987138891596e-05,
        1.149812361195e-04,
        2.946065685844e-04,
        1.578029418961e-04,
        -3.579649015330e-04,
        -4.412917810556e-05,
        1.411887505556e-04,
        -2.601290315706e-04,
        -2.169301457258e-04,
        -4.981611238374e-04,
        7.509770013732e-04,
    ];
    close(&d.a.qfrc_spring, &want, 1e-15);
}

#[test]
fn shell_membrane_is_gated_off() {
    let m = model(
        "trilinear",
        r#"elastic2d="stretch" thickness="0.05" damping="0.05""#,
        "Euler",
    );
    let d = forward(&m, &DISP, &[]);
    assert!(d.a.qfrc_spring.iter().all(|&x| x == 0.0));
}

#[test]
fn bending_damping_is_reported_not_applied() {
    let m = model(
        "trilinear",
        r#"elastic2d="bend" thickness="0.05" damping="0.05""#,
        "Euler",
    );
    let mut d = forward(&m, &[], &[(21, 0.1)]);
    assert!(d.a.qfrc_damper.iter().all(|&x| x == 0.0));
    flexlab::engine::forward(&m, &mut d);
    assert_eq!(d.scratch.interp.bending_damping_warnings, 2);
}

#[test]
fn discrete_step_matches_mujoco() {
    let m = model("trilinear", r#"damping="0.05""#, "discrete");
    let d = forward(&m, &DISP, &[(21, 0.1)]);
    let c = &d.scratch.metric.efm_c;
    close(
        &c[21..24],
        &[-0.015005008215041, -0.006482126688779, -0.006361491585047],
        1e-12,
    );
    close(
        &c[0..3],
        &[0.003763187868204, 0.003241063344390, 0.003180745792524],
        1e-12,
    );
    let want = [
        0.238218647429,
        0.264838035445,
        -0.003716346189,
        1.664516224996,
        1.641391530753,
        -0.399346890386,
        -0.699123151343,
        0.137544596983,
        -0.463307513802,
        0.969450396891,
        -0.363987326264,
        0.152015438478,
        0.088092054007,
        -0.491554436584,
        -0.230119671985,
        -0.315012749698,
        1.226428685485,
        0.150955342193,
        -0.330164943032,
        -0.38225773762,
        -1.416786914915,
        -1.615976480285,
        -2.032403349769,
        2.210306560515,
    ];
    close(&d.a.qacc, &want, 1e-7);
}
