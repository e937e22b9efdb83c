//! Lessons as data: a lesson folder (Markdown text, MJCF scenes, declarative exercises) is read
//! into a [`Bundle`], its scenes are prepared with parameter values ([`params`]), its measured
//! checks are run headlessly ([`mod@measure`]) and a student's answer is judged against the
//! measurement ([`mod@judge`]). The same code runs in `flexlab lessons check` and, through
//! `crate::wasm`, in the browser, so the validator and the player can never disagree.
//!
//! Every failure is a [`Diag`] naming the lesson file and line; nothing here panics on bad
//! input.

pub mod api;
pub mod bundle;
pub mod check;
pub mod judge;
pub mod measure;
pub mod params;
pub mod quantity;
pub mod tomlread;
pub mod wire;

pub use bundle::{Bundle, Diag, Exercise, ExerciseKind, ParamValue, Scene, Section, Text};
pub use judge::{judge, Verdict};
pub use measure::{measure, Measurement, RunResult};
