//! flexlab's numeric core: the compiled [`Model`] (MuJoCo's names, struct of arrays), the
//! per-step [`Data`] and the MuJoCo 3.15.0 step over them ([`engine`]). It has no parser, no
//! compiler front end, no lesson code and no JS types: the `flexlab` crate builds Models from
//! MJCF and re-exports these modules under the same paths (`flexlab::engine`, …).
//!
//! It is a crate of its own so that the browser build can optimise the step for speed and the
//! once-per-load code around it (XML, compiler, lessons) for size: Cargo sets optimisation
//! levels per crate.

// Numeric kernels index several parallel arrays with one counter, as MuJoCo's do; iterator
// rewrites would obscure the correspondence with the reference pipeline.
#![allow(clippy::needless_range_loop, clippy::too_many_arguments)]

pub mod data;
pub mod engine;
pub mod error;
pub mod fields;
pub mod flexkind;
pub mod math;
pub mod model;

pub use data::Data;

/// Reads a decimal number with `f64::from_str`'s syntax and value. Plugin configs are text; the
/// compiler passes its own reader (`flexlab::decimal::parse_f64`, which in the browser leaves
/// the value to JavaScript rather than carry Rust's float parser).
pub type ParseF64 = fn(&str) -> Option<f64>;
pub use error::{Error, ErrorKind, Result};
pub use model::Model;
