//! Force mapping helpers (MuJoCo's `mj_applyFT`).

use super::jacobian::{body_chain, JacScratch};
use crate::data::Data;
use crate::math::cross;
use crate::model::Model;

/// Adds the generalized force of a Cartesian force/torque applied at `point` on `body`.
#[allow(clippy::too_many_arguments)]
pub fn apply_ft(
    m: &Model,
    d: &Data,
    s: &mut JacScratch,
    force: &[f64; 3],
    torque: &[f64; 3],
    point: &[f64; 3],
    body: usize,
    out: &mut [f64],
) {
    let n = body_chain(m, body, &mut s.chain);
    if n == 0 {
        return;
    }
    let root = m.body_rootid[body] as usize;
    let off = [
        point[0] - d.subtree_com[3 * root],
        point[1] - d.subtree_com[3 * root + 1],
        point[2] - d.subtree_com[3 * root + 2],
    ];
    for k in 0..n {
        let i = s.chain[k] as usize;
        let c = &d.cdof[6 * i..6 * i + 6];
        let t = cross(&[c[0], c[1], c[2]], &off);
        let jp = [c[3] + t[0], c[4] + t[1], c[5] + t[2]];
        out[i] += jp[0] * force[0]
            + jp[1] * force[1]
            + jp[2] * force[2]
            + c[0] * torque[0]
            + c[1] * torque[1]
            + c[2] * torque[2];
    }
}
