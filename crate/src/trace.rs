//! The trace format `flexlab-trace/1` shared with `../shared/oracle/trace.py`: sizes, options
//! and frames (qpos, qvel, flexvert_xpos, qfrc_passive, ncon, nefc), frame 0 being the initial
//! state after reset, keyframe 0 and forward; derived fields come from a forward pass on a copy.

use crate::data::Data;
use crate::engine;
use crate::model::Model;
use std::fmt::Write;

/// A JSON number as Python's `json` writes it (NaN and infinities included).
pub fn num(out: &mut String, x: f64) {
    if x.is_nan() {
        out.push_str("NaN");
    } else if x.is_infinite() {
        out.push_str(if x > 0.0 { "Infinity" } else { "-Infinity" });
    } else if x == x.trunc() && x.abs() < 1e16 {
        crate::decimal::write_integer(out, x, true);
    } else {
        crate::decimal::write_round_trip(out, x);
    }
}

fn arr(out: &mut String, v: &[f64]) {
    out.push('[');
    for (i, x) in v.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        num(out, *x);
    }
    out.push(']');
}

fn frame(out: &mut String, m: &Model, d: &Data, scratch: &mut Data, step: usize) {
    scratch.copy_state_from(d);
    engine::forward(m, scratch);
    let _ = write!(out, "{{\"step\": {step}, \"time\": ");
    num(out, d.time);
    out.push_str(", \"qpos\": ");
    arr(out, &d.qpos);
    out.push_str(", \"qvel\": ");
    arr(out, &d.qvel);
    out.push_str(", \"flexvert_xpos\": ");
    arr(out, &scratch.flexvert_xpos);
    out.push_str(", \"qfrc_passive\": ");
    arr(out, &scratch.qfrc_passive);
    let _ = write!(
        out,
        ", \"ncon\": {}, \"nefc\": {}}}",
        scratch.ncon, scratch.nefc
    );
}

/// Model name as trace.py reports it: the `model` attribute, else the file stem.
pub fn model_name(xml: &str, stem: &str) -> String {
    match xml.split_once("model=\"") {
        Some((_, rest)) => rest.split('"').next().unwrap_or(stem).to_string(),
        None => stem.to_string(),
    }
}

/// Runs `steps` steps, recording every `every`-th, and returns the trace JSON.
pub fn trace(m: &Model, name: &str, steps: usize, every: usize) -> String {
    let mut d = Data::new(m);
    d.reset(m);
    if m.nkey > 0 {
        d.reset_keyframe(m, 0);
    }
    engine::forward(m, &mut d);
    let mut scratch = Data::new(m);
    let mut out = String::new();
    out.push_str("{\"format\": \"flexlab-trace/1\", \"engine\": \"flexlab ");
    out.push_str(env!("CARGO_PKG_VERSION"));
    out.push_str("\", \"model\": ");
    json_str(&mut out, name);
    out.push_str(", \"sizes\": {");
    for (i, (k, v)) in m.sizes().iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        let _ = write!(out, "\"{k}\": {v}");
    }
    let o = &m.opt;
    out.push_str("}, \"options\": {\"timestep\": ");
    num(&mut out, o.timestep);
    let _ = write!(
        out,
        ", \"integrator\": \"{}\", \"solver\": \"{}\", \"cone\": \"{}\", \"iterations\": {}, \"tolerance\": ",
        o.integrator.trace_name(),
        o.solver.trace_name(),
        o.cone.trace_name(),
        o.iterations
    );
    num(&mut out, o.tolerance);
    out.push_str("}, \"frames\": [");
    frame(&mut out, m, &d, &mut scratch, 0);
    for k in 1..=steps {
        engine::step(m, &mut d);
        if every > 0 && k % every == 0 {
            out.push_str(", ");
            frame(&mut out, m, &d, &mut scratch, k);
        }
    }
    out.push_str("]}\n");
    out
}

/// A JSON string literal (one writer for every JSON the crate emits).
pub use crate::json::write_str as json_str;
