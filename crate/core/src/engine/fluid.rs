//! Fluid forces of MuJoCo's inertia-box model (`mj_inertiaBoxFluidModel`): each body with mass
//! moves through a medium of `density` (kg/m³, quadratic drag) and `viscosity` (Pa·s, Stokes
//! drag) blowing at `wind` (m/s), seen as the box with the body's mass and principal inertia.
//! A flexcomp's vertex bodies get it too, which is how MuJoCo's flag.xml flutters.

use super::jacobian::JacScratch;
use crate::data::Data;
use crate::math::MINVAL;
use crate::model::Model;

/// Whether the model has a fluid at all (MuJoCo's `mj_fluid` test).
pub fn active(m: &Model) -> bool {
    m.opt.density > 0.0 || m.opt.viscosity > 0.0
}

/// Computes `qfrc_fluid` (N or N·m), zero when there is no fluid. The caller has zeroed it.
pub fn fluid(m: &Model, d: &mut Data, jac: &mut JacScratch) {
    let mut out = std::mem::take(&mut d.a.qfrc_fluid);
    if active(m) {
        for b in 1..m.nbody {
            if m.body_mass[b] >= MINVAL {
                inertia_box(m, d, jac, b, &mut out);
            }
        }
    }
    d.a.qfrc_fluid = out;
}

fn inertia_box(m: &Model, d: &Data, jac: &mut JacScratch, b: usize, out: &mut [f64]) {
    let (rho, mu) = (m.opt.density, m.opt.viscosity);
    let inertia = &m.body_inertia[3 * b..3 * b + 3];
    let mass = m.body_mass[b];
    // the box whose principal inertia is the body's
    let side = |a: usize, c: usize, e: usize| {
        ((inertia[c] + inertia[e] - inertia[a]).max(MINVAL) / mass * 6.0).sqrt()
    };
    let bx = [side(0, 1, 2), side(1, 0, 2), side(2, 0, 1)];

    // body velocity at its centre of mass, in the inertial frame, minus the wind
    let a = &d.a;
    let r = &a.ximat[9 * b..9 * b + 9];
    let p = &a.xipos[3 * b..3 * b + 3];
    let root = m.body_rootid[b] as usize;
    let c = &a.subtree_com[3 * root..3 * root + 3];
    let cv = &a.cvel[6 * b..6 * b + 6];
    let w = [cv[0], cv[1], cv[2]];
    let off = [p[0] - c[0], p[1] - c[1], p[2] - c[2]];
    // linear velocity at p: v + ω × (p − c), less the wind
    let vlin = [
        cv[3] + w[1] * off[2] - w[2] * off[1] - m.opt.wind[0],
        cv[4] + w[2] * off[0] - w[0] * off[2] - m.opt.wind[1],
        cv[5] + w[0] * off[1] - w[1] * off[0] - m.opt.wind[2],
    ];
    let to_local = |v: &[f64; 3]| {
        [
            r[0] * v[0] + r[3] * v[1] + r[6] * v[2],
            r[1] * v[0] + r[4] * v[1] + r[7] * v[2],
            r[2] * v[0] + r[5] * v[1] + r[8] * v[2],
        ]
    };
    let la = to_local(&w);
    let ll = to_local(&vlin);

    let mut torque = [0.0; 3];
    let mut force = [0.0; 3];
    if mu > 0.0 {
        let diam = (bx[0] + bx[1] + bx[2]) / 3.0;
        for k in 0..3 {
            torque[k] = -std::f64::consts::PI * diam * diam * diam * mu * la[k];
            force[k] = -3.0 * std::f64::consts::PI * diam * mu * ll[k];
        }
    }
    if rho > 0.0 {
        let p4 = |x: f64| (x * x) * (x * x);
        force[0] -= 0.5 * rho * bx[1] * bx[2] * ll[0].abs() * ll[0];
        force[1] -= 0.5 * rho * bx[0] * bx[2] * ll[1].abs() * ll[1];
        force[2] -= 0.5 * rho * bx[0] * bx[1] * ll[2].abs() * ll[2];
        torque[0] -= rho * bx[0] * (p4(bx[1]) + p4(bx[2])) * la[0].abs() * la[0] / 64.0;
        torque[1] -= rho * bx[1] * (p4(bx[0]) + p4(bx[2])) * la[1].abs() * la[1] / 64.0;
        torque[2] -= rho * bx[2] * (p4(bx[0]) + p4(bx[1])) * la[2].abs() * la[2] / 64.0;
    }
    let to_world = |v: &[f64; 3]| {
        [
            r[0] * v[0] + r[1] * v[1] + r[2] * v[2],
            r[3] * v[0] + r[4] * v[1] + r[5] * v[2],
            r[6] * v[0] + r[7] * v[1] + r[8] * v[2],
        ]
    };
    let (fw, tw) = (to_world(&force), to_world(&torque));
    let point = [p[0], p[1], p[2]];
    super::support::apply_ft(m, d, jac, &fw, &tw, &point, b, out);
}
