//! A lesson compiled for the browser: the [`Bundle`] that [`Bundle::from_files`] read and
//! validated, written as JSON by `flexlab lessons bundle` when the page is built and read back
//! by the engine in the browser with [`from_wire`].
//!
//! The page therefore never parses TOML: the `toml` crates and the lesson reader stay out of the
//! wasm (about 55 kB of its gzip size), while everything the player does with a lesson
//! (prepare scenes, run measured checks, judge answers) still runs the same native code in both
//! places. The reader keeps its errors with file and line; they travel in the bundle.
//!
//! The form is lossless: numbers are written as the shortest text that reads back to the same
//! f64 (a non-finite one as `{"nonfinite": "inf"}`), and the parsed pieces (parameter targets,
//! quantities, outcome conditions) are carried as the text the author wrote and parsed again.
//! The compiled bundle is input like any other: reading it checks every field and fails with a
//! message that names the field, never a panic.

use super::bundle::{
    Answer, Bundle, Camera, Choice, Combine, Diag, Directive, DirectiveKind, Exercise,
    ExerciseKind, Expect, Feedback, MeasureSpec, Outcome, Param, ParamKind, ParamValue, Run, Scene,
    Section, Text, Textbook, Tolerance,
};
use super::judge::Condition;
use super::params::{parse_target, Target};
use super::quantity::{self, Expr};
use crate::json::Value as Json;
use std::collections::BTreeMap;

/// The `format` member of a compiled lesson; a reader refuses any other.
pub const FORMAT: &str = "flexlab-lesson/1";

type Obj = BTreeMap<String, Json>;
type R<T> = Result<T, String>;

// ------------------------------------------------------------------ writing

fn num(x: f64) -> Json {
    if x.is_finite() {
        return Json::Number(x);
    }
    let s = if x.is_nan() {
        "nan"
    } else if x > 0.0 {
        "inf"
    } else {
        "-inf"
    };
    Json::object([("nonfinite", Json::from(s))])
}

fn opt_num(x: Option<f64>) -> Json {
    x.map_or(Json::Null, num)
}

fn array<T>(items: &[T], f: impl Fn(&T) -> Json) -> Json {
    Json::Array(items.iter().map(f).collect())
}

fn param_value(v: &ParamValue) -> Json {
    match v {
        ParamValue::Number(x) => Json::object([("number", num(*x))]),
        ParamValue::Text(s) => Json::object([("text", Json::from(s))]),
        ParamValue::Bool(b) => Json::object([("bool", Json::Bool(*b))]),
    }
}

fn param_kind_name(k: ParamKind) -> &'static str {
    match k {
        ParamKind::Number => "number",
        ParamKind::Choice => "choice",
        ParamKind::Bool => "bool",
    }
}

fn directive_kind_name(k: DirectiveKind) -> &'static str {
    match k {
        DirectiveKind::Scene => "scene",
        DirectiveKind::Exercise => "exercise",
        DirectiveKind::Measure => "measure",
    }
}

fn combine_name(c: Combine) -> &'static str {
    match c {
        Combine::Value => "value",
        Combine::Ratio => "ratio",
        Combine::Difference => "difference",
    }
}

fn section(s: &Section) -> Json {
    Json::object([
        ("id", Json::from(&s.id)),
        ("title", s.title.to_json()),
        ("markdown", s.markdown.to_json()),
        (
            "directives",
            array(&s.directives, |d| {
                Json::object([
                    ("kind", Json::from(directive_kind_name(d.kind))),
                    ("id", Json::from(&d.id)),
                    ("file", Json::from(&d.file)),
                    ("line", Json::from(d.line)),
                ])
            }),
        ),
    ])
}

fn param(p: &Param) -> Json {
    Json::object([
        ("name", Json::from(&p.name)),
        ("label", p.label.to_json()),
        ("target", Json::from(&p.target_src)),
        ("kind", Json::from(param_kind_name(p.kind))),
        ("min", opt_num(p.min)),
        ("max", opt_num(p.max)),
        ("step", opt_num(p.step)),
        ("choices", Json::from(&p.choices)),
        ("default", param_value(&p.default)),
        ("on", Json::from(&p.on)),
        ("off", Json::from(&p.off)),
        ("line", Json::from(p.line)),
    ])
}

fn scene(s: &Scene) -> Json {
    let camera = s.camera.as_ref().map_or(Json::Null, |c| {
        Json::object([
            ("lookat", array(&c.lookat, |x| num(*x))),
            ("distance", num(c.distance)),
            ("azimuth", num(c.azimuth)),
            ("elevation", num(c.elevation)),
        ])
    });
    Json::object([
        ("id", Json::from(&s.id)),
        ("file", Json::from(&s.file)),
        ("title", s.title.to_json()),
        ("camera", camera),
        ("show", Json::from(&s.show)),
        ("params", array(&s.params, param)),
        ("line", Json::from(s.line)),
    ])
}

fn measure_spec(m: &MeasureSpec) -> Json {
    let run = |r: &Run| {
        Json::object([
            (
                "values",
                array(&r.values, |(k, v)| {
                    Json::Array(vec![Json::from(k), param_value(v)])
                }),
            ),
            ("line", Json::from(r.line)),
        ])
    };
    Json::object([
        ("runs", array(&m.runs, run)),
        ("duration", num(m.duration)),
        ("quantity", Json::from(&m.quantity_src)),
        ("combine", Json::from(combine_name(m.combine))),
        ("line", Json::from(m.line)),
        ("duration_line", Json::from(m.duration_line)),
        ("quantity_line", Json::from(m.quantity_line)),
    ])
}

fn answer(a: &Answer) -> Json {
    let tolerance = match a.tolerance {
        None => Json::Null,
        Some(Tolerance::Relative(r)) => Json::object([("relative", num(r))]),
        Some(Tolerance::Absolute(x)) => Json::object([("absolute", num(x))]),
    };
    let expect = match &a.expect {
        Expect::Number(x) => Json::object([("number", num(*x))]),
        Expect::Choice(c) => Json::object([("choice", Json::from(c))]),
    };
    Json::object([
        ("tolerance", tolerance),
        ("expect", expect),
        (
            "outcomes",
            array(&a.outcomes, |o| {
                Json::object([
                    ("when", Json::from(&o.when_src)),
                    ("choice", Json::from(&o.choice)),
                    ("line", Json::from(o.line)),
                ])
            }),
        ),
        ("line", Json::from(a.line)),
    ])
}

fn exercise(e: &Exercise) -> Json {
    let textbook = e.textbook.as_ref().map_or(Json::Null, |t| {
        Json::object([("value", opt_num(t.value)), ("text", t.text.to_json())])
    });
    Json::object([
        ("id", Json::from(&e.id)),
        ("section", Json::from(&e.section)),
        ("scene", Json::from(&e.scene)),
        ("kind", Json::from(e.kind.name())),
        ("prompt", e.prompt.to_json()),
        ("unit", Json::from(&e.unit)),
        ("choices", array(&e.choices, Choice::to_json)),
        ("measure", measure_spec(&e.measure)),
        ("answer", answer(&e.answer)),
        (
            "feedback",
            Json::object([
                ("right", e.feedback.right.to_json()),
                ("wrong", e.feedback.wrong.to_json()),
                ("explain", e.feedback.explain.to_json()),
            ]),
        ),
        ("textbook", textbook),
        ("line", Json::from(e.line)),
        ("scene_line", Json::from(e.scene_line)),
    ])
}

/// The compiled lesson as a JSON value.
pub fn to_wire(b: &Bundle) -> Json {
    Json::object([
        ("format", Json::from(FORMAT)),
        ("id", Json::from(&b.id)),
        ("title", b.title.to_json()),
        ("sections", array(&b.sections, section)),
        ("scenes", array(&b.scenes, scene)),
        ("exercises", array(&b.exercises, exercise)),
        (
            "files",
            Json::Object(
                b.files
                    .iter()
                    .map(|(k, t)| (k.clone(), Json::from(t)))
                    .collect(),
            ),
        ),
        ("errors", array(&b.errors, Diag::to_json)),
        ("broken", Json::from(&b.broken)),
    ])
}

// ------------------------------------------------------------------ reading

static EMPTY: Obj = BTreeMap::new();
static NULL: Json = Json::Null;

/// Reads fields and keeps the first thing found wrong, with where it was. A failed read gives
/// a placeholder and reading goes on, so no half-built value has to be unwound: with `?` at
/// every field, that unwinding was most of this reader's code in the wasm. The placeholders
/// never leave [`from_wire`], which returns the error instead.
#[derive(Default)]
struct Rd {
    err: Option<String>,
}

impl Rd {
    fn fail(&mut self, m: String) {
        if self.err.is_none() {
            self.err = Some(m);
        }
    }

    fn failed(&self) -> bool {
        self.err.is_some()
    }

    /// Names where an error that appeared after `had` (a [`Rd::failed`]) happened.
    fn at(&mut self, had: bool, place: &str) {
        if !had {
            if let Some(e) = &mut self.err {
                *e = format!("{place}: {e}");
            }
        }
    }

    fn obj<'a>(&mut self, v: &'a Json, what: &str) -> &'a Obj {
        v.as_object().unwrap_or_else(|| {
            self.fail(format!("{what} must be an object"));
            &EMPTY
        })
    }

    fn get<'a>(&mut self, o: &'a Obj, k: &str) -> &'a Json {
        o.get(k).unwrap_or_else(|| {
            self.fail(format!("'{k}' is missing"));
            &NULL
        })
    }

    fn member<'a>(&mut self, o: &'a Obj, k: &str) -> &'a Obj {
        let v = self.get(o, k);
        self.obj(v, k)
    }

    fn num_of(&mut self, v: &Json, k: &str) -> f64 {
        if let Some(x) = v.as_f64() {
            return x;
        }
        match v.get("nonfinite").and_then(Json::as_str) {
            Some("inf") => f64::INFINITY,
            Some("-inf") => f64::NEG_INFINITY,
            Some("nan") => f64::NAN,
            _ => {
                self.fail(format!("'{k}' must be a number"));
                0.0
            }
        }
    }

    fn number(&mut self, o: &Obj, k: &str) -> f64 {
        let v = self.get(o, k);
        self.num_of(v, k)
    }

    fn opt_number(&mut self, o: &Obj, k: &str) -> Option<f64> {
        match self.get(o, k) {
            Json::Null => None,
            v => Some(self.num_of(v, k)),
        }
    }

    fn string(&mut self, o: &Obj, k: &str) -> String {
        match self.get(o, k).as_str() {
            Some(s) => s.to_string(),
            None => {
                self.fail(format!("'{k}' must be a string"));
                String::new()
            }
        }
    }

    fn line(&mut self, o: &Obj, k: &str) -> u32 {
        match self.get(o, k).as_u64().and_then(|n| u32::try_from(n).ok()) {
            Some(n) => n,
            None => {
                self.fail(format!("'{k}' must be a line number"));
                1
            }
        }
    }

    fn text(&mut self, o: &Obj, k: &str) -> Text {
        let had = self.failed();
        let t = self.member(o, k);
        let text = Text {
            zh: self.string(t, "zh"),
            en: self.string(t, "en"),
        };
        self.at(had, k);
        text
    }

    /// Reads the array `k` item by item, up to the first item that fails (named by its index).
    fn list<T>(&mut self, o: &Obj, k: &str, item: fn(&mut Rd, &Json) -> T) -> Vec<T> {
        let Some(a) = self.get(o, k).as_array() else {
            self.fail(format!("'{k}' must be an array"));
            return Vec::new();
        };
        let mut out = Vec::with_capacity(a.len());
        for (i, v) in a.iter().enumerate() {
            let had = self.failed();
            out.push(item(self, v));
            if self.failed() {
                self.at(had, &format!("{k}[{i}]"));
                break;
            }
        }
        out
    }

    fn strings(&mut self, o: &Obj, k: &str) -> Vec<String> {
        self.list(o, k, |r, v| match v.as_str() {
            Some(s) => s.to_string(),
            None => {
                r.fail("must be a string".into());
                String::new()
            }
        })
    }

    /// `kinds[i]` for the name at `k` that is `names[i]`.
    fn kind<T: Copy>(&mut self, o: &Obj, k: &str, names: &[&str], kinds: &[T]) -> T {
        let n = self.string(o, k);
        match names.iter().position(|x| *x == n) {
            Some(i) => kinds[i],
            None => {
                self.fail(format!("unknown {k} '{n}'"));
                kinds[0]
            }
        }
    }

    /// A value parsed from text by `parse`; `place` names it in the message.
    fn parsed<T>(&mut self, r: Result<T, String>, place: &str, placeholder: T) -> T {
        r.unwrap_or_else(|e| {
            self.fail(format!("{place}: {e}"));
            placeholder
        })
    }
}

fn read_param_value(r: &mut Rd, v: &Json) -> ParamValue {
    let o = r.obj(v, "a parameter value");
    if let Some(x) = o.get("number") {
        return ParamValue::Number(r.num_of(x, "number"));
    }
    if let Some(s) = o.get("text").and_then(Json::as_str) {
        return ParamValue::Text(s.to_string());
    }
    if let Some(b) = o.get("bool").and_then(Json::as_bool) {
        return ParamValue::Bool(b);
    }
    r.fail("a parameter value is {number}, {text} or {bool}".into());
    ParamValue::Bool(false)
}

fn read_directive(r: &mut Rd, v: &Json) -> Directive {
    let d = r.obj(v, "a directive");
    Directive {
        kind: r.kind(
            d,
            "kind",
            &["scene", "exercise", "measure"],
            &[
                DirectiveKind::Scene,
                DirectiveKind::Exercise,
                DirectiveKind::Measure,
            ],
        ),
        id: r.string(d, "id"),
        file: r.string(d, "file"),
        line: r.line(d, "line"),
    }
}

fn read_section(r: &mut Rd, v: &Json) -> Section {
    let o = r.obj(v, "a section");
    Section {
        id: r.string(o, "id"),
        title: r.text(o, "title"),
        markdown: r.text(o, "markdown"),
        directives: r.list(o, "directives", read_directive),
    }
}

fn read_param(r: &mut Rd, v: &Json) -> Param {
    let o = r.obj(v, "a parameter");
    let target_src = r.string(o, "target");
    let target = r.parsed(
        parse_target(&target_src),
        "target",
        Target::Elastic3d {
            flex: String::new(),
        },
    );
    Param {
        name: r.string(o, "name"),
        label: r.text(o, "label"),
        target_src,
        target,
        kind: r.kind(
            o,
            "kind",
            &["number", "choice", "bool"],
            &[ParamKind::Number, ParamKind::Choice, ParamKind::Bool],
        ),
        min: r.opt_number(o, "min"),
        max: r.opt_number(o, "max"),
        step: r.opt_number(o, "step"),
        choices: r.strings(o, "choices"),
        default: {
            let v = r.get(o, "default");
            read_param_value(r, v)
        },
        on: r.string(o, "on"),
        off: r.string(o, "off"),
        line: r.line(o, "line"),
    }
}

fn read_camera(r: &mut Rd, v: &Json) -> Option<Camera> {
    if matches!(v, Json::Null) {
        return None;
    }
    let c = r.obj(v, "camera");
    let l = r.list(c, "lookat", |r, x| r.num_of(x, "lookat"));
    let lookat: [f64; 3] = l.try_into().unwrap_or_else(|_| {
        r.fail("camera.lookat must have 3 numbers".into());
        [0.0; 3]
    });
    Some(Camera {
        lookat,
        distance: r.number(c, "distance"),
        azimuth: r.number(c, "azimuth"),
        elevation: r.number(c, "elevation"),
    })
}

fn read_scene(r: &mut Rd, v: &Json) -> Scene {
    let o = r.obj(v, "a scene");
    Scene {
        id: r.string(o, "id"),
        file: r.string(o, "file"),
        title: r.text(o, "title"),
        camera: {
            let c = r.get(o, "camera");
            read_camera(r, c)
        },
        show: r.strings(o, "show"),
        params: r.list(o, "params", read_param),
        line: r.line(o, "line"),
    }
}

fn read_run(r: &mut Rd, v: &Json) -> Run {
    let o = r.obj(v, "a run");
    Run {
        values: r.list(o, "values", |r, p| match p.as_array().map(Vec::as_slice) {
            Some([Json::String(k), v]) => (k.clone(), read_param_value(r, v)),
            _ => {
                r.fail("a run value is [name, value]".into());
                (String::new(), ParamValue::Bool(false))
            }
        }),
        line: r.line(o, "line"),
    }
}

fn read_measure(r: &mut Rd, o: &Obj) -> MeasureSpec {
    let quantity_src = r.string(o, "quantity");
    let quantity = r.parsed(quantity::parse(&quantity_src), "quantity", Expr::Error);
    MeasureSpec {
        runs: r.list(o, "runs", read_run),
        duration: r.number(o, "duration"),
        quantity_src,
        quantity,
        combine: r.kind(
            o,
            "combine",
            &["value", "ratio", "difference"],
            &[Combine::Value, Combine::Ratio, Combine::Difference],
        ),
        line: r.line(o, "line"),
        duration_line: r.line(o, "duration_line"),
        quantity_line: r.line(o, "quantity_line"),
    }
}

fn read_outcome(r: &mut Rd, v: &Json) -> Outcome {
    let o = r.obj(v, "an outcome");
    let when_src = r.string(o, "when");
    Outcome {
        when: r.parsed(
            Condition::parse(&when_src),
            "when",
            Condition::Contains(String::new()),
        ),
        when_src,
        choice: r.string(o, "choice"),
        line: r.line(o, "line"),
    }
}

fn read_answer(r: &mut Rd, o: &Obj) -> Answer {
    let t = r.get(o, "tolerance");
    let tolerance = match (t, t.get("relative"), t.get("absolute")) {
        (Json::Null, _, _) => None,
        (_, Some(x), None) => Some(Tolerance::Relative(r.num_of(x, "relative"))),
        (_, None, Some(x)) => Some(Tolerance::Absolute(r.num_of(x, "absolute"))),
        _ => {
            r.fail("a tolerance is {relative} or {absolute}".into());
            None
        }
    };
    let e = r.get(o, "expect");
    let expect = match (e.get("number"), e.get("choice").and_then(Json::as_str)) {
        (Some(x), None) => Expect::Number(r.num_of(x, "expect")),
        (None, Some(c)) => Expect::Choice(c.to_string()),
        _ => {
            r.fail("expect is {number} or {choice}".into());
            Expect::Number(0.0)
        }
    };
    Answer {
        tolerance,
        expect,
        outcomes: r.list(o, "outcomes", read_outcome),
        line: r.line(o, "line"),
    }
}

fn read_choice(r: &mut Rd, v: &Json) -> Choice {
    let c = r.obj(v, "a choice");
    Choice {
        id: r.string(c, "id"),
        zh: r.string(c, "zh"),
        en: r.string(c, "en"),
    }
}

fn read_exercise(r: &mut Rd, v: &Json) -> Exercise {
    let o = r.obj(v, "an exercise");
    let t = r.get(o, "textbook");
    let textbook = match t {
        Json::Null => None,
        t => {
            let t = r.obj(t, "textbook");
            Some(Textbook {
                value: r.opt_number(t, "value"),
                text: r.text(t, "text"),
            })
        }
    };
    let had = r.failed();
    let m = r.member(o, "measure");
    let measure = read_measure(r, m);
    r.at(had, "measure");
    let had = r.failed();
    let a = r.member(o, "answer");
    let answer = read_answer(r, a);
    r.at(had, "answer");
    let f = r.member(o, "feedback");
    Exercise {
        id: r.string(o, "id"),
        section: r.string(o, "section"),
        scene: r.string(o, "scene"),
        kind: r.kind(
            o,
            "kind",
            &["number", "choice", "measure"],
            &[
                ExerciseKind::Number,
                ExerciseKind::Choice,
                ExerciseKind::Measure,
            ],
        ),
        prompt: r.text(o, "prompt"),
        unit: r.string(o, "unit"),
        choices: r.list(o, "choices", read_choice),
        measure,
        answer,
        feedback: Feedback {
            right: r.text(f, "right"),
            wrong: r.text(f, "wrong"),
            explain: r.text(f, "explain"),
        },
        textbook,
        line: r.line(o, "line"),
        scene_line: r.line(o, "scene_line"),
    }
}

fn read_diag(r: &mut Rd, v: &Json) -> Diag {
    let d = r.obj(v, "an error");
    Diag::new(
        &r.string(d, "file"),
        r.line(d, "line"),
        r.string(d, "message"),
    )
}

/// Reads a compiled lesson; the message names the first field that is not as
/// [`to_wire`] writes it.
pub fn from_wire(v: &Json) -> R<Bundle> {
    let mut r = Rd::default();
    let o = r.obj(v, "a compiled lesson");
    match o.get("format").and_then(Json::as_str) {
        Some(FORMAT) => {}
        Some(f) => return Err(format!("compiled lesson format '{f}' is not '{FORMAT}'")),
        None => return Err(format!("not a compiled lesson (no format '{FORMAT}')")),
    }
    let mut files = BTreeMap::new();
    for (k, t) in r.member(o, "files") {
        match t.as_str() {
            Some(t) => files.insert(k.clone(), t.to_string()),
            None => return Err(format!("files: '{k}' must be a string")),
        };
    }
    let b = Bundle {
        id: r.string(o, "id"),
        title: r.text(o, "title"),
        sections: r.list(o, "sections", read_section),
        scenes: r.list(o, "scenes", read_scene),
        exercises: r.list(o, "exercises", read_exercise),
        files,
        errors: r.list(o, "errors", read_diag),
        broken: r.strings(o, "broken"),
        // the compiled lesson holds its text files only
        binary: Vec::new(),
    };
    match r.err {
        None => Ok(b),
        Some(e) => Err(e),
    }
}

/// Every lesson below `dir` (or `dir` itself), compiled: `{"<folder name>": <compiled
/// lesson>}`, and each lesson's errors as `path:line: message` lines.
pub fn bundle_dir(dir: &std::path::Path) -> R<(Json, Vec<String>)> {
    if !dir.is_dir() {
        return Err(format!("{}: not a folder", dir.display()));
    }
    let mut out = BTreeMap::new();
    let mut diags = Vec::new();
    for d in super::check::lesson_dirs(dir) {
        let b = Bundle::from_dir(&d);
        diags.extend(b.errors.iter().map(|e| e.located(&d)));
        let name = d
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        out.insert(name, to_wire(&b));
    }
    Ok((Json::Object(out), diags))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lessons::api;
    use crate::lessons::bundle::tests::tiny;

    fn lesson_dirs() -> Vec<std::path::PathBuf> {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut v = crate::lessons::check::lesson_dirs(&root.join("lessons"));
        v.extend(crate::lessons::check::lesson_dirs(
            &root.join("e2e/fixtures/lessons"),
        ));
        v
    }

    /// Everything the player asks of a lesson gives the same answer from the compiled form.
    #[test]
    fn compiled_lessons_answer_as_read_ones() {
        let dirs = lesson_dirs();
        assert!(dirs.len() >= 2, "{dirs:?}");
        for d in dirs {
            let read = Bundle::from_dir(&d);
            let text = to_wire(&read).to_string();
            let back = from_wire(&crate::json::parse(&text).unwrap()).unwrap();
            // a second trip writes the same text: nothing is lost or reordered
            assert_eq!(to_wire(&back).to_string(), text, "{}", d.display());
            assert_eq!(api::bundle_json(&back), api::bundle_json(&read));
            for s in &read.scenes {
                assert_eq!(
                    api::prepare_scene_json(&back, &s.id, "{}"),
                    api::prepare_scene_json(&read, &s.id, "{}"),
                );
            }
            assert!(!back.exercises.is_empty() || !read.errors.is_empty());
            for e in &read.exercises {
                let a = back.exercise(&e.id).unwrap();
                assert_eq!(a.measure.quantity, e.measure.quantity);
                assert_eq!(a.answer.outcomes.len(), e.answer.outcomes.len());
                for (x, y) in a.answer.outcomes.iter().zip(&e.answer.outcomes) {
                    assert_eq!(x.when, y.when);
                }
                for (x, y) in a.measure.runs.iter().zip(&e.measure.runs) {
                    assert_eq!(x.values, y.values);
                }
            }
        }
    }

    #[test]
    fn measure_and_judge_from_the_compiled_form() {
        let read = api::load(&serde_json::to_string(&tiny()).unwrap()).unwrap();
        let back = api::open(&to_wire(&read).to_string()).unwrap();
        let m = api::measure_json(&back, "fall").unwrap();
        assert_eq!(m, api::measure_json(&read, "fall").unwrap());
        assert_eq!(
            api::judge_json(&back, "fall", "4.9", &m).unwrap(),
            api::judge_json(&read, "fall", "4.9", &m).unwrap()
        );
    }

    #[test]
    fn errors_travel_with_their_lines() {
        let mut files = tiny();
        files.insert("scenes.toml".into(), "[[scene]]\nid = 3\n".into());
        let read = api::load(&serde_json::to_string(&files).unwrap()).unwrap();
        assert!(!read.errors.is_empty());
        let back = api::open(&to_wire(&read).to_string()).unwrap();
        assert_eq!(back.errors, read.errors);
    }

    #[test]
    fn non_finite_numbers_survive() {
        let mut b = Bundle::default();
        b.scenes.push(Scene {
            id: "s".into(),
            file: "s.xml".into(),
            title: Text::default(),
            camera: None,
            show: vec![],
            params: vec![Param {
                name: "p".into(),
                label: Text::default(),
                target_src: "option@timestep".into(),
                target: parse_target("option@timestep").unwrap(),
                kind: ParamKind::Number,
                min: Some(f64::NEG_INFINITY),
                max: Some(f64::INFINITY),
                step: None,
                choices: vec![],
                default: ParamValue::Number(-0.0),
                on: String::new(),
                off: String::new(),
                line: 4,
            }],
            line: 2,
        });
        let back = from_wire(&to_wire(&b)).unwrap();
        let p = &back.scenes[0].params[0];
        assert_eq!(
            (p.min, p.max, p.step),
            (Some(f64::NEG_INFINITY), Some(f64::INFINITY), None)
        );
        assert!(matches!(p.default, ParamValue::Number(x) if x == 0.0 && x.is_sign_negative()));
    }

    #[test]
    fn bad_compiled_lessons_are_errors_that_name_the_field() {
        let good = to_wire(&Bundle::default());
        assert!(from_wire(&good).is_ok());
        assert!(from_wire(&Json::Null).is_err());
        let mut v = good.clone();
        if let Json::Object(o) = &mut v {
            o.insert("format".into(), "flexlab-lesson/0".into());
        }
        assert!(from_wire(&v).unwrap_err().contains("flexlab-lesson/0"));
        let text =
            to_wire(&api::load(&serde_json::to_string(&tiny()).unwrap()).unwrap()).to_string();
        let broken = text.replacen("\"quantity\":\"", "\"quantity\":\"((", 1);
        let e = api::open(&broken).unwrap_err();
        assert!(e.contains("exercises[0]: measure: quantity"), "{e}");
        let broken = text.replacen("\"line\":", "\"line\":-", 1);
        assert!(api::open(&broken).unwrap_err().contains("'line'"));
        assert!(api::open("[]").is_err());
        assert!(api::open("{").is_err());
    }
}
