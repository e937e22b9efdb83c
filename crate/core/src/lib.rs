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
pub use error::{Error, ErrorKind, Result};
pub use model::Model;
