//! Constraint solvers: PGS, CG and Newton.

use super::Scratch;
use crate::data::Data;
use crate::model::Model;

#[derive(Debug, Clone, Default)]
pub struct SolverScratch {}

impl SolverScratch {
    pub fn new(_m: &Model, _maxefc: usize) -> Self {
        SolverScratch {}
    }
}

/// Solves for `qacc` and `efc_force`.
pub fn solve(_m: &Model, d: &mut Data, _s: &mut Scratch) {
    let a = &mut d.a;
    a.qacc.copy_from_slice(&a.qacc_smooth);
}
