//! Force mapping and contact queries (MuJoCo's `mj_applyFT`, `mj_contactForce`,
//! `mj_flexBody`).

use super::jacobian::{body_chain, JacScratch};
use crate::data::{Contact, Data};
use crate::math::cross;
use crate::model::{Cone, Model};

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

/// Contact `id`'s force and torque in its contact frame (normal, two tangents, torsion, two
/// rolling; N and N·m) from the solver's `efc_force`, as `mj_contactForce`: a pyramidal
/// contact's edges are decoded, an elliptic one's copied, and the normal is net of the
/// contact's adhesion (negative while it pulls). Zero for a contact without rows (excluded, or
/// on the passive penalty path).
pub fn contact_force(m: &Model, d: &Data, id: usize) -> [f64; 6] {
    let mut out = [0.0; 6];
    let Some(con) = d.contact[..d.ncon].get(id) else {
        return out;
    };
    if con.efc_address < 0 {
        return out;
    }
    let (adr, dim) = (con.efc_address as usize, con.dim as usize);
    let f = &d.a.efc_force[adr..];
    if m.opt.cone == Cone::Elliptic || dim == 1 {
        out[..dim].copy_from_slice(&f[..dim]);
    } else {
        // edge pair i pushes along normal ± mu_i tangent_i
        out[0] = f[..2 * (dim - 1)].iter().sum();
        for i in 0..dim - 1 {
            out[i + 1] = (f[2 * i] - f[2 * i + 1]) * con.friction[i];
        }
    }
    out[0] -= con.adhesion;
    out
}

/// The body that stands for side `side` (0 or 1) of a contact with a flex (`mj_flexBody`): a
/// vertex's body, an element's first vertex's body, or an interpolated flex's first node's.
pub fn flex_body(m: &Model, con: &Contact, side: usize) -> i32 {
    let f = con.flex[side] as usize;
    let interp = m.flex_interp[f] != 0;
    let vertbody = |v: i32| m.flex_vertbodyid[m.flex_vertadr[f] as usize + v as usize];
    if con.vert[side] >= 0 && !interp {
        return vertbody(con.vert[side]);
    }
    if con.elem[side] >= 0 && !interp {
        let dim = m.flex_dim[f] as usize;
        let first = m.flex_elemdataadr[f] as usize + con.elem[side] as usize * (dim + 1);
        return vertbody(m.flex_elem[first]);
    }
    m.flex_nodebodyid[m.flex_nodeadr[f] as usize]
}
