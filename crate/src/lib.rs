//! flexlab: MuJoCo 3.15.0's flex pipeline — MJCF in, the same model and the same numbers out —
//! as a plain Rust numeric core shared by the native CLI, the tests and the browser (wasm).
//!
//! The pipeline reads like MuJoCo's: [`mjcf`] parses into a [`spec::Spec`], [`compile`] builds
//! an immutable [`Model`], [`Data`] holds the state, and [`engine`] steps it.

// Numeric kernels index several parallel arrays with one counter, as MuJoCo's do; iterator
// rewrites would obscure the correspondence with the reference pipeline.
#![allow(clippy::needless_range_loop, clippy::too_many_arguments)]

pub mod bench;
pub mod compile;
pub mod decimal;
pub mod json;
pub mod lessons;
pub mod mjcf;
pub mod sort;
pub mod spec;
pub mod trace;

#[cfg(target_arch = "wasm32")]
pub mod wasm;

// The numeric core, under the paths it always had (`flexlab::engine`, `crate::model`, …).
pub use flexlab_core::{data, engine, error, fields, flexkind, math, model};
pub use flexlab_core::{Data, Error, ErrorKind, Model, Result};

/// Parses and compiles MJCF text; `file` names it in messages, `src` resolves includes/assets.
pub fn load_xml(text: &str, file: Option<&str>, src: &dyn mjcf::FileSource) -> Result<Model> {
    let spec = mjcf::parse(text, file, src)?;
    compile::compile(&spec)
}

/// Parses and compiles an MJCF file from disk.
pub fn load_file(path: &std::path::Path) -> Result<Model> {
    let spec = mjcf::parse_file(path)?;
    compile::compile(&spec)
}

/// [`load_file`] with `elastic3d` set on named flexes first (`mjsFlex.elastic3d`, which MJCF
/// cannot express: 1 is Stable Neo-Hookean), as `../shared/oracle/trace.py --elastic3d` does.
pub fn load_file_elastic3d(path: &std::path::Path, elastic3d: &[(&str, i32)]) -> Result<Model> {
    let mut spec = mjcf::parse_file(path)?;
    for &(name, v) in elastic3d {
        spec.set_elastic3d(name, v)?;
    }
    compile::compile(&spec)
}
