//! Contact adhesion (MuJoCo 3.15.0's geom and pair `adhesion`): a contact may pull with up to
//! `a` newtons along its normal before it lets go. MuJoCo gets this from a friction cone
//! translated by `a` along the normal, and factors the translated cone into the plain cone plus
//! a constant pull, so no solver changes:
//! - the collision gives each contact its `adhesion` (two geoms' add up, a higher priority or an
//!   explicit pair replaces them) and keeps an adhesive contact active in the gap band, as a
//!   normal-only row (`collision::add_contact`);
//! - `qfrc_adhesion` holds the constant pull `−a·J_nᵀ`, added to `qfrc_passive` ([`passive`]);
//! - the rows' reference acceleration gains `R·a` ([`reference`]), so a contact pressed
//!   together rests at the penetration it would have without adhesion;
//! - the reported contact force is the cone's force minus `a` (`support::contact_force`), so a
//!   pulling contact reports a negative normal force.
//!
//! A negative `a` pushes instead (an air-hockey table).

use super::Scratch;
use crate::data::Data;
use crate::model::{disable, Cone, Model};

/// Adds the adhesive contacts' pull to `qfrc_adhesion`, zeroed by the passive stage
/// (`mj_adhesion`). Contacts on the passive penalty path, fused or without dofs
/// (`exclude > 1`) pull with nothing.
pub fn passive(m: &Model, d: &mut Data, s: &mut Scratch) {
    if !m.flg_adhesion || m.opt.disabled(disable::CONTACT) {
        return;
    }
    let mut rs = std::mem::take(&mut s.rows);
    for i in 0..d.ncon {
        let (adhesion, exclude) = (d.contact[i].adhesion, d.contact[i].exclude);
        if adhesion == 0.0 || exclude > 1 {
            continue;
        }
        let n = super::constraint::normal_row(m, d, &mut rs, &s.vertcols, &d.contact[i]);
        let (ind, val) = super::constraint::normal_row_values(&rs, n);
        for (&dof, &j) in ind.iter().zip(val) {
            d.a.qfrc_adhesion[dof] += j * -adhesion;
        }
        super::constraint::clear_row(&mut rs, m.nv);
    }
    s.rows = rs;
}

/// Biases the reference acceleration of adhesive contacts' rows by `R·adhesion`
/// (`mj_adhesionRef`), after the discrete integrator's division; a pyramid's edges share the
/// pull equally.
pub fn reference(m: &Model, d: &mut Data) {
    if !m.flg_adhesion {
        return;
    }
    let pyramidal = m.opt.cone == Cone::Pyramidal;
    for c in &d.contact[..d.ncon] {
        if c.adhesion == 0.0 || c.efc_address < 0 {
            continue;
        }
        let (adr, dim) = (c.efc_address as usize, c.dim as usize);
        let (rows, pull) = if dim == 1 || !pyramidal {
            (1, c.adhesion)
        } else {
            (2 * (dim - 1), c.adhesion / (2 * (dim - 1)) as f64)
        };
        let aref = &mut d.a.efc_aref[adr..adr + rows];
        for (a, r) in aref.iter_mut().zip(&d.a.efc_R[adr..]) {
            *a += r * pull;
        }
    }
}
