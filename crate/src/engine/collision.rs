//! Collision detection: geom–flex, flex–flex and rigid pairs into `Data::contact`.

use super::Scratch;
use crate::data::Data;
use crate::model::Model;

/// Buffers for the broad and narrow phase.
#[derive(Debug, Clone, Default)]
pub struct CollisionScratch {}

impl CollisionScratch {
    pub fn new(_m: &Model, _maxcon: usize) -> Self {
        CollisionScratch {}
    }
}

/// Capacity of the contact buffer for this model.
pub fn max_contacts(m: &Model) -> usize {
    (4 * m.nflexvert + 8 * m.ngeom + 64).min(200_000)
}

/// Detects contacts (none yet: contact is implemented in the contact stage).
pub fn collision(_m: &Model, d: &mut Data, _s: &mut Scratch) {
    d.ncon = 0;
}
