//! The metric's stored flex stiffness (`FlexCsr`): its product against the row-major blocks,
//! summed in MuJoCo 3.15.0's order (`mjd_effMulAdd`'s block product), bit for bit.

use flexlab::data::Data;
use flexlab::mjcf::MemSource;
use flexlab::model::Model;

/// A 5×5 cloth with stretch and bending under the discrete integrator, in a static body
/// turned by `euler` (degrees), so its slide axes are the world axes only at `0 0 0`.
fn cloth(euler: &str) -> Model {
    let xml = format!(
        r#"<mujoco><option integrator="discrete" solver="CG"/><worldbody>
        <body name="frame" euler="{euler}"><flexcomp name="c" type="grid" dim="2" count="5 5 1"
          spacing=".05 .05 .05" radius=".005" mass="0.2">
          <elasticity young="5e4" poisson="0.2" thickness="1e-3" elastic2d="both"/>
          <contact selfcollide="none"/></flexcomp></body></worldbody></mujoco>"#
    );
    flexlab::load_xml(&xml, None, &MemSource::default()).unwrap()
}

/// Checks the stored product against the row-major blocks, bit for bit, on a stretched cloth;
/// returns the number of blocks stored as scalars.
fn product_matches_blocks(m: &Model) -> usize {
    let mut d = Data::new(m);
    for (i, q) in d.a.qpos.iter_mut().enumerate() {
        *q += 0.004 * ((i as f64) * 0.77).sin();
    }
    flexlab::engine::forward(m, &mut d);
    let csr = &d.scratch.metric.csr;
    assert!(csr.nslot() == 25, "the cloth's 25 vertices are covered");
    let x: Vec<f64> = (0..m.nv)
        .map(|i| ((i as f64) * 1.3).cos() * 10f64.powi(i as i32 % 5 - 2))
        .collect();
    let mut got = vec![0.0; m.nv];
    csr.mul_add(&mut got, &x);
    // MuJoCo's order: per row a running sum from zero over the blocks in column order, each
    // block's row as (v0·x0 + v1·x1) + v2·x2, added to the result last
    let mut want = vec![0.0; m.nv];
    for s in 0..csr.nslot() {
        let dr = csr.slot_dof[s];
        for r in 0..3 {
            let mut acc = 0.0;
            for k in csr.row[s]..csr.row[s + 1] {
                let (dc, b) = (csr.slot_dof[csr.col[k]], csr.block(k));
                acc += (b[3 * r] * x[dc] + b[3 * r + 1] * x[dc + 1]) + b[3 * r + 2] * x[dc + 2];
            }
            want[dr + r] += acc;
        }
    }
    assert!(want.iter().any(|&w| w != 0.0));
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g.to_bits(), w.to_bits(), "dof {i}: {g} vs {w}");
    }
    (0..csr.col.len()).filter(|&k| csr.is_scalar(k)).count()
}

#[test]
fn bending_only_pairs_are_scalars_on_world_axes() {
    // the far vertices of each interior edge's two triangles: one pair per interior edge
    let m = cloth("0 0 0");
    let interior = (0..m.nflexedge)
        .filter(|&e| m.flex_edgeflap[2 * e + 1] >= 0)
        .count();
    assert_eq!(product_matches_blocks(&m), 2 * interior);
}

#[test]
fn turned_slide_axes_store_every_block_in_full() {
    assert_eq!(product_matches_blocks(&cloth("30 20 10")), 0);
}
