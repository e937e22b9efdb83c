//! The lesson API as JSON in and JSON out: what `crate::wasm::Lesson` hands to the browser's
//! worker, kept here so that it is native code the tests and the checker share.
//!
//! - [`load`]: `{ "<path relative to the lesson folder>": "<text>" }` → [`Bundle`] (native:
//!   the reader of lesson files)
//! - [`open`]: a compiled lesson ([`super::wire`]) → [`Bundle`] (what the browser does)
//! - [`bundle_json`]: the lesson for the player (texts, scenes, parameters, questions, errors)
//! - [`prepare_scene_json`]: a scene's MJCF with parameter values applied
//! - [`measure_json`]: run a measured check (bounded work)
//! - [`judge_json`]: judge an answer against a measurement

use super::bundle::{Bundle, Camera, Choice, Diag, ExerciseKind, ParamKind, ParamValue, Textbook};
use super::judge::{judge, AnswerValue};
use super::measure::{measure, Measurement};
use super::params::prepare;
use crate::json::{self, Value};
use std::collections::BTreeMap;

/// Most bytes of lesson text accepted in one call.
pub const MAX_FILES_JSON_BYTES: usize = 32 << 20;

/// Reads a lesson from a JSON object of files.
pub fn load(files_json: &str) -> Result<Bundle, String> {
    if files_json.len() > MAX_FILES_JSON_BYTES {
        return Err(format!(
            "lesson files are larger than {} MB",
            MAX_FILES_JSON_BYTES >> 20
        ));
    }
    let v = json::parse(files_json).map_err(|e| format!("files_json is not JSON: {e}"))?;
    let obj = v
        .as_object()
        .ok_or("files_json must be an object { path: text }")?;
    let mut files = BTreeMap::new();
    for (k, t) in obj {
        let t = t
            .as_str()
            .ok_or_else(|| format!("files_json: '{k}' must be a string"))?;
        files.insert(k.trim_start_matches("./").to_string(), t.to_string());
    }
    Ok(Bundle::from_files(files))
}

/// Reads a compiled lesson, as `flexlab lessons bundle` writes it ([`super::wire`]).
pub fn open(bundle_json: &str) -> Result<Bundle, String> {
    if bundle_json.len() > MAX_FILES_JSON_BYTES {
        return Err(format!(
            "the compiled lesson is larger than {} MB",
            MAX_FILES_JSON_BYTES >> 20
        ));
    }
    let v = json::parse(bundle_json).map_err(|e| format!("compiled lesson is not JSON: {e}"))?;
    super::wire::from_wire(&v).map_err(|e| format!("compiled lesson: {e}"))
}

/// The bundle as the player reads it.
pub fn bundle_json(b: &Bundle) -> String {
    let sections: Vec<Value> = b
        .sections
        .iter()
        .map(|s| {
            Value::object([
                ("id", Value::from(&s.id)),
                ("title", s.title.to_json()),
                ("markdown", s.markdown.to_json()),
            ])
        })
        .collect();
    let scenes: Vec<Value> = b
        .scenes
        .iter()
        .map(|s| {
            let params: Vec<Value> = s
                .params
                .iter()
                .map(|p| {
                    let kind = match p.kind {
                        ParamKind::Number => "number",
                        ParamKind::Choice => "choice",
                        ParamKind::Bool => "bool",
                    };
                    Value::object([
                        ("name", Value::from(&p.name)),
                        ("label", p.label.to_json()),
                        ("target", Value::from(&p.target_src)),
                        ("kind", Value::from(kind)),
                        ("min", p.min.into()),
                        ("max", p.max.into()),
                        ("step", p.step.into()),
                        ("choices", Value::from(&p.choices)),
                        ("default", p.default.to_json()),
                    ])
                })
                .collect();
            Value::object([
                ("id", Value::from(&s.id)),
                ("file", Value::from(&s.file)),
                ("title", s.title.to_json()),
                (
                    "camera",
                    s.camera.as_ref().map_or(Value::Null, Camera::to_json),
                ),
                ("show", Value::from(&s.show)),
                ("params", Value::Array(params)),
            ])
        })
        .collect();
    let exercises: Vec<Value> = b
        .exercises
        .iter()
        .filter(|e| e.kind != ExerciseKind::Measure)
        .map(|e| {
            Value::object([
                ("id", Value::from(&e.id)),
                ("section", Value::from(&e.section)),
                ("scene", Value::from(&e.scene)),
                ("kind", Value::from(e.kind.name())),
                ("prompt", e.prompt.to_json()),
                ("unit", Value::from(&e.unit)),
                (
                    "choices",
                    Value::Array(e.choices.iter().map(Choice::to_json).collect()),
                ),
            ])
        })
        .collect();
    let measurements: Vec<Value> = b
        .exercises
        .iter()
        .filter(|e| e.kind == ExerciseKind::Measure)
        .map(|e| {
            Value::object([
                ("id", Value::from(&e.id)),
                ("section", Value::from(&e.section)),
                ("scene", Value::from(&e.scene)),
                ("caption", e.prompt.to_json()),
                ("unit", Value::from(&e.unit)),
                (
                    "textbook",
                    e.textbook.as_ref().map_or(Value::Null, Textbook::to_json),
                ),
            ])
        })
        .collect();
    Value::object([
        ("id", Value::from(&b.id)),
        ("title", b.title.to_json()),
        ("sections", Value::Array(sections)),
        ("scenes", Value::Array(scenes)),
        ("exercises", Value::Array(exercises)),
        ("measurements", Value::Array(measurements)),
        (
            "errors",
            Value::Array(b.errors.iter().map(Diag::to_json).collect()),
        ),
    ])
    .to_string()
}

/// `{xml, elastic3d: {flex: value}, files: [[name, text]]}` for a scene with the parameter
/// values of `params_json` (an object `{name: value}`; missing names take their defaults).
pub fn prepare_scene_json(b: &Bundle, scene_id: &str, params_json: &str) -> Result<String, String> {
    let scene = b
        .scene(scene_id)
        .ok_or_else(|| format!("no scene '{scene_id}' in this lesson"))?;
    let t = params_json.trim();
    let mut values = Vec::new();
    if !t.is_empty() {
        let v = json::parse(t).map_err(|e| format!("params_json is not JSON: {e}"))?;
        let obj = v.as_object().ok_or("params_json must be an object")?;
        for (k, x) in obj {
            let pv = ParamValue::from_json(x)
                .ok_or_else(|| format!("parameter '{k}' must be a number, string or boolean"))?;
            values.push((k.clone(), pv));
        }
    }
    let p = prepare(scene, &b.files, &values)?;
    let elastic3d = Value::object(
        p.elastic3d
            .iter()
            .map(|(f, v)| (f.clone(), Value::Number(*v as f64))),
    );
    let files: Vec<Value> = p
        .files
        .iter()
        .map(|(n, t)| Value::Array(vec![n.into(), t.into()]))
        .collect();
    Ok(Value::object([
        ("xml", Value::from(&p.xml)),
        ("elastic3d", elastic3d),
        ("files", Value::Array(files)),
    ])
    .to_string())
}

/// Runs the measured check of an exercise or measurement: `{value, pending, runs}`.
pub fn measure_json(b: &Bundle, id: &str) -> Result<String, String> {
    let ex = b
        .exercise(id)
        .ok_or_else(|| format!("no exercise or measurement '{id}' in this lesson"))?;
    let m = measure(b, ex).map_err(|d| d.to_string())?;
    Ok(m.to_json().to_string())
}

/// Judges `answer_json` (a number, or a choice id as a JSON string) against
/// `measured_json` (what [`measure_json`] returned): `{correct, feedback, explain}`.
pub fn judge_json(
    b: &Bundle,
    id: &str,
    answer_json: &str,
    measured_json: &str,
) -> Result<String, String> {
    let ex = b
        .exercise(id)
        .ok_or_else(|| format!("no exercise '{id}' in this lesson"))?;
    let a = json::parse(answer_json).map_err(|e| format!("answer_json is not JSON: {e}"))?;
    let answer = match &a {
        Value::Number(n) => AnswerValue::Number(*n),
        Value::String(s) => match ex.kind {
            // a number typed into a text field still counts as a number
            ExerciseKind::Number => AnswerValue::Number(
                crate::decimal::parse_f64(s.trim())
                    .ok_or_else(|| format!("'{s}' is not a number"))?,
            ),
            _ => AnswerValue::Choice(s.clone()),
        },
        _ => return Err("answer_json must be a number or a string".into()),
    };
    let mv = json::parse(measured_json).map_err(|e| format!("measured_json is not JSON: {e}"))?;
    let m = Measurement::from_json(&mv)?;
    let v = judge(ex, &answer, &m)?;
    Ok(Value::object([
        ("correct", Value::Bool(v.correct)),
        ("feedback", v.feedback.to_json()),
        ("explain", v.explain.to_json()),
    ])
    .to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lessons::bundle::tests::tiny;
    use serde_json::Value;

    fn files_json() -> String {
        serde_json::to_string(&tiny()).unwrap()
    }

    #[test]
    fn bundle_lists_sections_scenes_and_exercises() {
        let b = load(&files_json()).unwrap();
        let v: Value = serde_json::from_str(&bundle_json(&b)).unwrap();
        assert_eq!(v["id"], "t");
        assert_eq!(v["sections"][0]["title"]["en"], "One");
        assert_eq!(v["scenes"][0]["params"][0]["default"], 0.01);
        assert_eq!(v["scenes"][0]["params"][0]["step"], Value::Null);
        assert_eq!(v["exercises"][0]["kind"], "number");
        assert_eq!(v["errors"].as_array().unwrap().len(), 0);
    }

    #[test]
    fn prepare_measure_and_judge_round_trip() {
        let b = load(&files_json()).unwrap();
        let p: Value =
            serde_json::from_str(&prepare_scene_json(&b, "drop", r#"{"dt": 0.005}"#).unwrap())
                .unwrap();
        assert!(p["xml"].as_str().unwrap().contains(r#"timestep="0.005""#));
        assert!(prepare_scene_json(&b, "drop", r#"{"dt": 5}"#).is_err());
        assert!(prepare_scene_json(&b, "drop", r#"{"nope": 1}"#).is_err());
        let m = measure_json(&b, "fall").unwrap();
        let right: Value =
            serde_json::from_str(&judge_json(&b, "fall", "4.9", &m).unwrap()).unwrap();
        assert_eq!(right["correct"], true);
        assert_eq!(right["feedback"]["en"], "Right");
        assert!(
            right["explain"]["en"].as_str().unwrap().contains("4.91"),
            "{right}"
        );
        let wrong: Value =
            serde_json::from_str(&judge_json(&b, "fall", "\"9.8\"", &m).unwrap()).unwrap();
        assert_eq!(wrong["correct"], false);
        assert!(judge_json(&b, "fall", "[1]", &m).is_err());
        assert!(judge_json(&b, "nope", "1", &m).is_err());
    }

    #[test]
    fn bad_input_is_an_error_not_a_panic() {
        assert!(load("not json").is_err());
        assert!(load("[1,2]").is_err());
        assert!(load(r#"{"lesson.toml": 3}"#).is_err());
        let b = load("{}").unwrap();
        assert!(!b.errors.is_empty());
        assert!(measure_json(&b, "x").is_err());
        assert!(prepare_scene_json(&b, "x", "{}").is_err());
    }
}
