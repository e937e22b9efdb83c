//! Interpolated (trilinear / quadratic) flex elasticity: per-cell corotational stiffness blocks
//! and shell bending edges.

use crate::error::{Error, Result};
use crate::spec::FlexSpec;

/// Stiffness blocks of an interpolated flex.
pub fn stiffness(
    _f: &FlexSpec,
    _node0: &[f64],
    _cell_empty: &[bool],
    _strain: bool,
) -> Result<Vec<f64>> {
    Err(Error::unsupported(
        "elasticity of interpolated (trilinear/quadratic) flexes is not supported by flexlab yet",
    ))
}

/// Shell bending records of an interpolated flex.
pub fn shell_bending(_f: &FlexSpec, _node0: &[f64]) -> Vec<f64> {
    Vec::new()
}
