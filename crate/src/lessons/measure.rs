//! Running a measured check headlessly: each run compiles the exercise's scene with its
//! parameter values, steps it for the run's duration under a hard work budget, and reads the
//! quantity; the runs are then combined into the measured value.
//!
//! A run that needs an engine feature flexlab does not have yet does not give a wrong
//! number: the measurement is *pending*, with the engine's own message. Missing features
//! that the engine does not reject at compile time (contact, equality rows, passive contact)
//! are found by probing the engine once with a tiny model, so a check goes live by itself
//! the day the feature lands.

use super::bundle::{Bundle, Combine, Diag, Exercise, ParamValue};
use super::params::{self, Prepared};
use super::quantity::{self, Ctx, Val};
use crate::error::ErrorKind;
use crate::json::Value;
use crate::mjcf::MemSource;
use crate::{Data, Model};
use std::sync::OnceLock;

/// Most steps one run may take.
pub const MAX_STEPS_PER_RUN: usize = 50_000;
/// Most work one run may do, in steps × (nv + nflexelem + nflexedge): bounds a check's time
/// in the browser's worker whatever the lesson asks.
pub const MAX_WORK_PER_RUN: f64 = 4e7;

/// One run of a measured check.
#[derive(Debug, Clone, PartialEq)]
pub struct RunResult {
    /// The parameter values of the run (defaults filled in are not listed).
    pub params: Vec<(String, ParamValue)>,
    pub compiles: bool,
    /// The compiler's message when the scene did not compile.
    pub error: Option<String>,
    pub value: Option<Val>,
    pub steps: usize,
    /// Simulated time at the end (s).
    pub time: f64,
    pub diverged: bool,
}

/// The outcome of a measured check.
#[derive(Debug, Clone, PartialEq)]
pub struct Measurement {
    /// The combined value; `None` while pending.
    pub value: Option<Val>,
    /// Why the check cannot run yet (an engine feature flexlab lacks), in the engine's words.
    pub pending: Option<String>,
    pub runs: Vec<RunResult>,
}

/// Compiles a prepared scene and checks the engine can step it; `file` names it in messages.
pub fn compile_prepared(p: &Prepared, file: &str) -> crate::Result<Model> {
    compile_prepared_warned(p, file).map(|(m, _)| m)
}

/// The files a prepared scene may read (its includes and meshes), by path from its folder.
pub fn source(p: &Prepared) -> MemSource {
    MemSource {
        files: p
            .files
            .iter()
            .map(|(n, t)| (n.clone(), t.as_bytes().to_vec()))
            .collect(),
    }
}

/// [`compile_prepared`] and the scene's compile warnings.
pub fn compile_prepared_warned(
    p: &Prepared,
    file: &str,
) -> crate::Result<(Model, Vec<crate::Error>)> {
    let mut spec = crate::mjcf::parse(&p.xml, Some(file), &source(p))?;
    for (flex, v) in &p.elastic3d {
        spec.set_elastic3d(flex, *v)?;
    }
    let m = crate::compile::compile(&spec)?;
    crate::compile::support::check_supported(&m)?;
    let warnings = crate::compile::warnings::warnings(&spec, &m);
    Ok((m, warnings))
}

/// The first line of an error as MuJoCo prints it (prefix and message, no location block).
pub fn error_text(e: &crate::Error) -> String {
    e.to_string().lines().next().unwrap_or_default().to_string()
}

fn probe(xml: &str, ok: impl Fn(&Model, &Data) -> bool) -> bool {
    let Ok(m) = crate::load_xml(xml, None, &MemSource::default()) else {
        return false;
    };
    let mut d = Data::new(&m);
    crate::engine::forward(&m, &mut d);
    ok(&m, &d)
}

fn has_contact() -> bool {
    static P: OnceLock<bool> = OnceLock::new();
    *P.get_or_init(|| {
        probe(
            r#"<mujoco><worldbody><geom type="plane" size="1 1 .1"/>
               <body pos="0 0 0.09"><freejoint/><geom type="sphere" size="0.1"/></body>
               </worldbody></mujoco>"#,
            |_, d| d.ncon > 0,
        )
    })
}

fn has_equality() -> bool {
    static P: OnceLock<bool> = OnceLock::new();
    *P.get_or_init(|| {
        probe(
            r#"<mujoco><option gravity="0 0 -9.81"><flag contact="disable"/></option><worldbody>
               <flexcomp name="r" type="grid" dim="1" count="3 1 1" spacing=".1 .1 .1" mass="1">
               <pin id="0"/><edge equality="true"/></flexcomp></worldbody></mujoco>"#,
            |_, d| d.nefc > 0,
        )
    })
}

fn has_passive_contact() -> bool {
    static P: OnceLock<bool> = OnceLock::new();
    *P.get_or_init(|| {
        probe(
            r#"<mujoco><option integrator="discrete" solver="CG"/><worldbody>
               <geom type="plane" size="1 1 .1"/>
               <flexcomp name="c" type="grid" dim="2" count="3 3 1" spacing=".1 .1 .1"
                         pos="0 0 0.004" radius="0.005" mass="0.1">
               <contact passive="true" selfcollide="none"/></flexcomp></worldbody></mujoco>"#,
            |_, d| d.ncon > 0 && d.nefc == 0 && d.qfrc_passive.iter().any(|&f| f > 0.0),
        )
    })
}

/// An engine feature this model needs that flexlab does not have yet, found by probing.
pub fn missing_feature(m: &Model) -> Option<String> {
    use crate::model::disable;
    if m.opt.disabled(disable::CONTACT) {
        // equality rows still matter without contact
    } else {
        let geoms = (0..m.ngeom)
            .filter(|&g| m.geom_contype[g] != 0 || m.geom_conaffinity[g] != 0)
            .count();
        let flexes = (0..m.nflex)
            .filter(|&f| m.flex_contype[f] != 0 || m.flex_conaffinity[f] != 0)
            .count();
        if geoms + flexes >= 2 && !has_contact() {
            return Some("engine feature not in flexlab yet: contact (a sphere pressed into a plane makes no contact)".into());
        }
        if (0..m.nflex).any(|f| m.flex_passive[f] != 0) && !has_passive_contact() {
            return Some("engine feature not in flexlab yet: passive flex contact (<contact passive=\"true\"/> makes no penalty force)".into());
        }
    }
    let eq = m.neq > 0 || (0..m.nflex).any(|f| m.flex_edgeequality[f] != 0);
    if eq && !m.opt.disabled(disable::EQUALITY) && !has_equality() {
        return Some("engine feature not in flexlab yet: equality constraints (an edge-equality rope makes no constraint rows)".into());
    }
    None
}

/// Work units of one step of `m` (see [`MAX_WORK_PER_RUN`]).
fn step_cost(m: &Model) -> f64 {
    (m.nv + m.nflexelem + m.nflexedge + 1) as f64
}

enum Outcome {
    Done(RunResult),
    Pending(String),
}

fn run_one(b: &Bundle, ex: &Exercise, k: usize) -> Result<Outcome, Diag> {
    const F: &str = "exercises.toml";
    let spec = &ex.measure;
    let run = &spec.runs[k];
    let scene = b
        .scene(&ex.scene)
        .ok_or_else(|| Diag::new(F, ex.line, format!("unknown scene '{}'", ex.scene)))?;
    let prepared =
        params::prepare(scene, &b.files, &run.values).map_err(|m| Diag::new(F, run.line, m))?;
    let mut r = RunResult {
        params: run.values.clone(),
        compiles: false,
        error: None,
        value: None,
        steps: 0,
        time: 0.0,
        diverged: false,
    };
    let model = match compile_prepared(&prepared, &scene.file) {
        Ok(m) => Some(m),
        Err(e) if e.kind == ErrorKind::Unsupported => return Ok(Outcome::Pending(error_text(&e))),
        Err(e) => {
            r.error = Some(error_text(&e));
            None
        }
    };
    let (ninit, npeak) = spec.quantity.slots();
    let Some(m) = model else {
        if spec.quantity.needs_model() {
            return Err(Diag::new(
                F,
                run.line,
                format!(
                    "run {} of '{}': the scene does not compile ({}), so '{}' cannot be read",
                    k + 1,
                    ex.id,
                    r.error.as_deref().unwrap_or(""),
                    spec.quantity_src
                ),
            ));
        }
        let c = Ctx {
            model: None,
            data: None,
            compiles: false,
            error: r.error.as_deref(),
            diverged: false,
            initial: &vec![f64::NAN; ninit],
            peak: &vec![f64::NAN; npeak],
        };
        r.value = Some(
            quantity::eval(&spec.quantity, &c).map_err(|m| Diag::new(F, spec.quantity_line, m))?,
        );
        return Ok(Outcome::Done(r));
    };
    r.compiles = true;
    if let Some(gap) = missing_feature(&m) {
        return Ok(Outcome::Pending(gap));
    }
    let steps = if spec.duration > 0.0 {
        (spec.duration / m.opt.timestep).round() as usize
    } else {
        0
    };
    let work = steps as f64 * step_cost(&m);
    if steps > MAX_STEPS_PER_RUN || work > MAX_WORK_PER_RUN {
        return Err(Diag::new(
            F,
            spec.duration_line,
            format!(
                "'{}': {} s is {steps} steps of this scene ({} work units); the budget per run is {MAX_STEPS_PER_RUN} steps and {} units",
                ex.id,
                crate::decimal::Decimal(spec.duration),
                super::judge::fmt_num(work),
                super::judge::fmt_num(MAX_WORK_PER_RUN)
            ),
        ));
    }
    let mut d = Data::new(&m);
    if m.nkey > 0 {
        d.reset_keyframe(&m, 0);
    }
    crate::engine::forward(&m, &mut d);
    let qerr = |msg: String| Diag::new(F, spec.quantity_line, format!("'{}': {msg}", ex.id));
    let mut initial = vec![f64::NAN; ninit];
    let mut peak = vec![f64::NEG_INFINITY; npeak];
    {
        let mut c = Ctx {
            model: Some(&m),
            data: Some(&d),
            compiles: true,
            error: None,
            diverged: false,
            initial: &[],
            peak: &[],
        };
        for i in 0..ninit {
            initial[i] = quantity::sample_initial(&spec.quantity, i, &c).map_err(qerr)?;
        }
        c.initial = &initial;
        for (i, p) in peak.iter_mut().enumerate() {
            *p = quantity::sample_peak(&spec.quantity, i, &c).map_err(qerr)?;
        }
    }
    for _ in 0..steps {
        crate::engine::step(&m, &mut d);
        r.steps += 1;
        if quantity::bad_state(&d) {
            // the engine has reset the state: what follows would measure a restart
            r.diverged = true;
            break;
        }
        if npeak > 0 {
            let c = Ctx {
                model: Some(&m),
                data: Some(&d),
                compiles: true,
                error: None,
                diverged: false,
                initial: &initial,
                peak: &[],
            };
            for (i, p) in peak.iter_mut().enumerate() {
                let x = quantity::sample_peak(&spec.quantity, i, &c).map_err(qerr)?;
                if x > *p || x.is_nan() {
                    *p = x;
                }
            }
        }
    }
    r.time = d.time;
    let c = Ctx {
        model: Some(&m),
        data: Some(&d),
        compiles: true,
        error: None,
        diverged: r.diverged,
        initial: &initial,
        peak: &peak,
    };
    r.value = Some(quantity::eval(&spec.quantity, &c).map_err(qerr)?);
    Ok(Outcome::Done(r))
}

/// Runs the measured check of `ex`. Errors are the lesson's (bad quantity, bad run, over
/// budget), located in `exercises.toml`.
pub fn measure(b: &Bundle, ex: &Exercise) -> Result<Measurement, Diag> {
    let mut runs = Vec::new();
    for k in 0..ex.measure.runs.len() {
        match run_one(b, ex, k)? {
            Outcome::Pending(msg) => {
                return Ok(Measurement {
                    value: None,
                    pending: Some(msg),
                    runs,
                })
            }
            Outcome::Done(r) => runs.push(r),
        }
    }
    let num = |r: &RunResult| match &r.value {
        Some(Val::Num(x)) => Ok(*x),
        _ => Err(Diag::new(
            "exercises.toml",
            ex.measure.quantity_line,
            format!("'{}': combine = ratio/difference needs a number", ex.id),
        )),
    };
    let value = match ex.measure.combine {
        Combine::Value => runs[0].value.clone(),
        Combine::Ratio => Some(Val::Num(num(&runs[1])? / num(&runs[0])?)),
        Combine::Difference => Some(Val::Num(num(&runs[1])? - num(&runs[0])?)),
    };
    Ok(Measurement {
        value,
        pending: None,
        runs,
    })
}

impl Measurement {
    /// As JSON: `{value, pending, runs:[{params, compiles, error, value, steps, time, diverged}]}`.
    pub fn to_json(&self) -> Value {
        let val = |v: &Option<Val>| match v {
            Some(Val::Num(x)) if x.is_finite() => Value::Number(*x),
            Some(Val::Num(x)) => Value::String(crate::decimal::Decimal(*x).to_string()),
            Some(Val::Text(t)) => Value::from(t),
            None => Value::Null,
        };
        let runs: Vec<Value> = self
            .runs
            .iter()
            .map(|r| {
                let params = Value::object(r.params.iter().map(|(k, v)| (k.clone(), v.to_json())));
                Value::object([
                    ("params", params),
                    ("compiles", r.compiles.into()),
                    ("error", r.error.clone().into()),
                    ("value", val(&r.value)),
                    ("steps", r.steps.into()),
                    ("time", r.time.into()),
                    ("diverged", r.diverged.into()),
                ])
            })
            .collect();
        Value::object([
            ("value", val(&self.value)),
            ("pending", self.pending.clone().into()),
            ("runs", Value::Array(runs)),
        ])
    }

    /// Reads the JSON of [`Measurement::to_json`] back (what the browser hands to `judge`).
    pub fn from_json(v: &Value) -> Result<Measurement, String> {
        let val = |x: &Value| -> Option<Val> {
            match x {
                Value::Number(n) => Some(Val::Num(*n)),
                Value::String(s) => crate::decimal::parse_f64(s)
                    .map(Val::Num)
                    .or(Some(Val::Text(s.clone()))),
                _ => None,
            }
        };
        let obj = v.as_object().ok_or("a measurement is a JSON object")?;
        let mut runs = Vec::new();
        for r in obj
            .get("runs")
            .and_then(|r| r.as_array())
            .into_iter()
            .flatten()
        {
            let params = r
                .get("params")
                .and_then(|p| p.as_object())
                .map(|p| {
                    p.iter()
                        .filter_map(|(k, v)| ParamValue::from_json(v).map(|pv| (k.clone(), pv)))
                        .collect()
                })
                .unwrap_or_default();
            runs.push(RunResult {
                params,
                compiles: r.get("compiles").and_then(|c| c.as_bool()).unwrap_or(false),
                error: r
                    .get("error")
                    .and_then(|e| e.as_str())
                    .map(|s| s.to_string()),
                value: r.get("value").and_then(val),
                steps: r.get("steps").and_then(|s| s.as_u64()).unwrap_or(0) as usize,
                time: r.get("time").and_then(|t| t.as_f64()).unwrap_or(0.0),
                diverged: r.get("diverged").and_then(|x| x.as_bool()).unwrap_or(false),
            });
        }
        // a compiler message stays text even when it looks like a number
        let value = match obj.get("value") {
            Some(Value::String(s)) if crate::decimal::parse_f64(s).is_none() || s.is_empty() => {
                Some(Val::Text(s.clone()))
            }
            Some(x) => val(x),
            None => None,
        };
        Ok(Measurement {
            value,
            pending: obj
                .get("pending")
                .and_then(|p| p.as_str())
                .map(|s| s.to_string()),
            runs,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lessons::bundle::tests::tiny;

    #[test]
    fn a_falling_body_measures_half_g_t_squared() {
        let b = Bundle::from_files(tiny());
        assert!(b.errors.is_empty(), "{:?}", b.errors);
        let m = measure(&b, &b.exercises[0]).unwrap();
        let Some(Val::Num(x)) = m.value else {
            panic!("{m:?}")
        };
        // semi-implicit Euler at dt = 1 ms over 1000 steps: g·dt²·n(n+1)/2
        let want = 9.81 * 1e-6 * 1000.0 * 1001.0 / 2.0;
        assert!((x - want).abs() < 1e-9, "{x} vs {want}");
        assert_eq!(m.runs[0].steps, 1000);
        let back = Measurement::from_json(&m.to_json()).unwrap();
        assert_eq!(back, m);
    }

    #[test]
    fn over_budget_is_a_located_error() {
        let mut f = tiny();
        let ex = f["exercises.toml"].replace("duration = 1.0", "duration = 59.0");
        f.insert("exercises.toml".into(), ex);
        let b = Bundle::from_files(f);
        let e = measure(&b, &b.exercises[0]).unwrap_err();
        assert_eq!(e.line, 11, "{e}");
        assert!(e.message.contains("budget"), "{e}");
    }
}
