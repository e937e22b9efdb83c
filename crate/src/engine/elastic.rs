//! Flex elasticity forces: StVK stretch, discrete-shell bending, Stable Neo-Hookean, and the
//! passive penalty contact path.

use super::Scratch;
use crate::data::Data;
use crate::model::Model;

/// Buffers for the elastic forces.
#[derive(Debug, Clone, Default)]
pub struct ElasticScratch {}

impl ElasticScratch {
    pub fn new(_m: &Model) -> Self {
        ElasticScratch {}
    }
}

/// StVK (or SNH) stretch forces of vertex flex `f`.
pub fn stretch(_m: &Model, _d: &mut Data, _s: &mut Scratch, _f: usize) {}

/// Bending forces of 2D vertex flex `f`.
pub fn bend(_m: &Model, _d: &mut Data, _s: &mut Scratch, _f: usize, _spring: bool, _damper: bool) {}

/// Interpolated flex elasticity.
pub fn interp(
    _m: &Model,
    _d: &mut Data,
    _s: &mut Scratch,
    _f: usize,
    _spring: bool,
    _damper: bool,
) {
}

/// Passive penalty contact forces.
pub fn contact_passive(_m: &Model, _d: &mut Data, _s: &mut Scratch) {}
