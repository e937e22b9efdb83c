//! Reading a lesson folder: `lesson.toml`, `text/<section>.<lang>.md`, `scenes.toml`,
//! `exercises.toml` and the scene files, into one validated [`Bundle`].
//!
//! The folder arrives as a map from relative path to text, so the same reader serves the CLI
//! (files from disk) and the browser (files from the dev server). Reading never stops at the
//! first problem: every error found is kept as a [`Diag`] with its file and line, and whatever
//! could be read is still returned, so an instructor sees all mistakes in one check.

use super::judge::Condition;
use super::params::{self, Target};
use super::quantity::{self, Expr};
use super::tomlread::{self as tr, fields, float, spanned_string, string, Item, Spanned};
use crate::decimal::Decimal;
use crate::json::Value as Json;
use std::collections::BTreeMap;

/// One problem in a lesson, located in a lesson file (path relative to the lesson folder).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diag {
    pub file: String,
    /// 1-based line.
    pub line: u32,
    pub message: String,
}

impl Diag {
    /// A problem at `line` of `file`.
    pub fn new(file: &str, line: u32, message: impl Into<String>) -> Self {
        Diag {
            file: file.to_string(),
            line: line.max(1),
            message: message.into(),
        }
    }
}

impl Diag {
    /// `file:line: message`, the file under the lesson folder `dir` (as editors read it).
    pub fn located(&self, dir: &std::path::Path) -> String {
        format!(
            "{}:{}: {}",
            dir.join(&self.file).display(),
            self.line,
            self.message
        )
    }

    /// As JSON: `{file, line, message}`.
    pub fn to_json(&self) -> Json {
        Json::object([
            ("file", Json::from(&self.file)),
            ("line", Json::from(self.line)),
            ("message", Json::from(&self.message)),
        ])
    }
}

impl std::fmt::Display for Diag {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}: {}", self.file, self.line, self.message)
    }
}

/// A text in both languages of the lab: Chinese with English terms, and English.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Text {
    pub zh: String,
    pub en: String,
}

impl Text {
    fn from_toml(v: &Item) -> tr::Result<Text> {
        let f = fields(v, "struct Text", &["zh", "en"])?;
        Ok(Text {
            zh: f.read("zh", string)?,
            en: f.read("en", string)?,
        })
    }

    /// As JSON: `{zh, en}`.
    pub fn to_json(&self) -> Json {
        Json::object([("zh", Json::from(&self.zh)), ("en", Json::from(&self.en))])
    }

    /// Replaces `{key}` by `value` in both languages.
    pub fn fill(&self, key: &str, zh: &str, en: &str) -> Text {
        let k = format!("{{{key}}}");
        Text {
            zh: self.zh.replace(&k, zh),
            en: self.en.replace(&k, en),
        }
    }
}

/// A scene parameter's value, as the URL, the runs of an exercise and the player carry it.
#[derive(Debug, Clone, PartialEq)]
pub enum ParamValue {
    Number(f64),
    Text(String),
    Bool(bool),
}

impl ParamValue {
    /// From a TOML value (numbers, strings and booleans only).
    pub fn from_toml(v: &tr::Value) -> Option<ParamValue> {
        Some(match v {
            tr::Value::Integer(i) => ParamValue::Number(*i as f64),
            tr::Value::Float(x) => ParamValue::Number(*x),
            tr::Value::String(s) => ParamValue::Text(s.clone()),
            tr::Value::Boolean(b) => ParamValue::Bool(*b),
            _ => return None,
        })
    }
    /// From a JSON value (numbers, strings and booleans only).
    pub fn from_json(v: &Json) -> Option<ParamValue> {
        Some(match v {
            Json::Number(n) => ParamValue::Number(*n),
            Json::String(s) => ParamValue::Text(s.clone()),
            Json::Bool(b) => ParamValue::Bool(*b),
            _ => return None,
        })
    }
    /// As JSON.
    pub fn to_json(&self) -> Json {
        match self {
            ParamValue::Number(x) => Json::from(*x),
            ParamValue::Text(s) => Json::from(s),
            ParamValue::Bool(b) => Json::Bool(*b),
        }
    }
}

impl std::fmt::Display for ParamValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ParamValue::Number(x) => write!(f, "{}", Decimal(*x)),
            ParamValue::Text(s) => write!(f, "'{s}'"),
            ParamValue::Bool(b) => write!(f, "{b}"),
        }
    }
}

/// What control a parameter gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamKind {
    Number,
    Choice,
    Bool,
}

impl ParamKind {
    fn name(self) -> &'static str {
        match self {
            ParamKind::Number => "number",
            ParamKind::Choice => "choice",
            ParamKind::Bool => "bool",
        }
    }
}

/// A parameter of a scene: one attribute of its MJCF (or the spec-only SNH switch).
#[derive(Debug, Clone)]
pub struct Param {
    pub name: String,
    pub label: Text,
    /// The target path as written.
    pub target_src: String,
    pub target: Target,
    pub kind: ParamKind,
    pub min: Option<f64>,
    pub max: Option<f64>,
    pub step: Option<f64>,
    pub choices: Vec<String>,
    pub default: ParamValue,
    /// Attribute texts a bool writes when on and off; an empty text removes the attribute.
    pub on: String,
    pub off: String,
    pub line: u32,
}

impl Param {
    /// Checks that `v` is a value of this parameter; the message says why not.
    pub fn admits(&self, v: &ParamValue) -> Result<(), String> {
        match (self.kind, v) {
            (ParamKind::Number, ParamValue::Number(x)) => {
                if !x.is_finite() {
                    return Err(format!("'{}' must be a finite number", self.name));
                }
                if let (Some(lo), Some(hi)) = (self.min, self.max) {
                    if *x < lo || *x > hi {
                        return Err(format!(
                            "{} is outside the range [{}, {}] of parameter '{}'",
                            Decimal(*x),
                            Decimal(lo),
                            Decimal(hi),
                            self.name
                        ));
                    }
                }
                Ok(())
            }
            (ParamKind::Choice, ParamValue::Text(s)) => {
                if self.choices.iter().any(|c| c == s) {
                    Ok(())
                } else {
                    Err(format!(
                        "'{s}' is not a choice of parameter '{}' (choices: {})",
                        self.name,
                        self.choices.join(", ")
                    ))
                }
            }
            (ParamKind::Bool, ParamValue::Bool(_)) => Ok(()),
            (k, v) => Err(format!(
                "parameter '{}' is a {} parameter, not {v}",
                self.name,
                k.name()
            )),
        }
    }

    /// The attribute text this value writes into the MJCF ("" removes the attribute).
    pub fn attr_text(&self, v: &ParamValue) -> String {
        match v {
            ParamValue::Number(x) => Decimal(*x).to_string(),
            ParamValue::Text(s) => s.clone(),
            ParamValue::Bool(true) => self.on.clone(),
            ParamValue::Bool(false) => self.off.clone(),
        }
    }
}

/// The initial camera of a scene.
#[derive(Debug, Clone, PartialEq)]
pub struct Camera {
    pub lookat: [f64; 3],
    pub distance: f64,
    pub azimuth: f64,
    pub elevation: f64,
}

impl Camera {
    fn from_toml(v: &Item) -> tr::Result<Camera> {
        let f = fields(
            v,
            "struct Camera",
            &["lookat", "distance", "azimuth", "elevation"],
        )?;
        Ok(Camera {
            lookat: f.read("lookat", tr::floats::<3>)?,
            distance: f.read("distance", float)?,
            azimuth: f.read("azimuth", float)?,
            elevation: f.read("elevation", float)?,
        })
    }

    /// As JSON: `{lookat, distance, azimuth, elevation}`.
    pub fn to_json(&self) -> Json {
        Json::object([
            ("lookat", Json::from(self.lookat.to_vec())),
            ("distance", Json::from(self.distance)),
            ("azimuth", Json::from(self.azimuth)),
            ("elevation", Json::from(self.elevation)),
        ])
    }
}

/// An interactive scene: an MJCF file and the parameters a student may change.
#[derive(Debug, Clone)]
pub struct Scene {
    pub id: String,
    /// Path of the MJCF file, relative to the lesson folder.
    pub file: String,
    pub title: Text,
    pub camera: Option<Camera>,
    pub show: Vec<String>,
    pub params: Vec<Param>,
    pub line: u32,
}

impl Scene {
    /// The parameter with this name.
    pub fn param(&self, name: &str) -> Option<&Param> {
        self.params.iter().find(|p| p.name == name)
    }
}

/// Which interactive piece a directive places.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DirectiveKind {
    Scene,
    Exercise,
    Measure,
}

/// A `::: kind id` line of a section's text.
#[derive(Debug, Clone, PartialEq)]
pub struct Directive {
    pub kind: DirectiveKind,
    pub id: String,
    pub file: String,
    pub line: u32,
}

/// One section: its title and text in both languages and the pieces its text places.
#[derive(Debug, Clone)]
pub struct Section {
    pub id: String,
    pub title: Text,
    pub markdown: Text,
    /// Directives of the Chinese text (the English text must place the same ones).
    pub directives: Vec<Directive>,
}

/// What a student answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExerciseKind {
    /// A number compared with the measurement within a tolerance.
    Number,
    /// One of listed choices; the measurement selects the right one through outcomes.
    Choice,
    /// No question: a live measured number shown beside the textbook's (`::: measure`).
    Measure,
}

impl ExerciseKind {
    /// The name used in lesson files and in the bundle JSON.
    pub fn name(self) -> &'static str {
        match self {
            ExerciseKind::Number => "number",
            ExerciseKind::Choice => "choice",
            ExerciseKind::Measure => "measure",
        }
    }
}

/// A choice of a choice exercise.
#[derive(Debug, Clone, PartialEq)]
pub struct Choice {
    pub id: String,
    pub zh: String,
    pub en: String,
}

impl Choice {
    fn from_toml(v: &Item) -> tr::Result<Choice> {
        let f = fields(v, "struct Choice", &["id", "zh", "en"])?;
        Ok(Choice {
            id: f.read("id", string)?,
            zh: f.read("zh", string)?,
            en: f.read("en", string)?,
        })
    }

    /// As JSON: `{id, zh, en}`.
    pub fn to_json(&self) -> Json {
        Json::object([
            ("id", Json::from(&self.id)),
            ("zh", Json::from(&self.zh)),
            ("en", Json::from(&self.en)),
        ])
    }
}

/// Parameter values of one run of a measured check.
#[derive(Debug, Clone)]
pub struct Run {
    pub values: Vec<(String, ParamValue)>,
    pub line: u32,
}

/// How the values of the runs make the measured value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Combine {
    /// The single run's value.
    Value,
    /// Run 2 divided by run 1.
    Ratio,
    /// Run 2 minus run 1.
    Difference,
}

/// The measured check of an exercise: runs of its scene and the quantity read at their end.
#[derive(Debug, Clone)]
pub struct MeasureSpec {
    pub runs: Vec<Run>,
    /// Simulated seconds per run.
    pub duration: f64,
    pub quantity_src: String,
    pub quantity: Expr,
    pub combine: Combine,
    pub line: u32,
    pub duration_line: u32,
    pub quantity_line: u32,
}

/// How close a number must be to the measurement.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Tolerance {
    Relative(f64),
    Absolute(f64),
}

impl Tolerance {
    /// Whether `x` is within this tolerance of `reference`.
    pub fn admits(self, x: f64, reference: f64) -> bool {
        let err = (x - reference).abs();
        match self {
            Tolerance::Relative(r) => err <= r * reference.abs(),
            Tolerance::Absolute(a) => err <= a,
        }
    }
}

/// Which choice a measured value selects.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub when_src: String,
    pub when: Condition,
    pub choice: String,
    pub line: u32,
}

/// What the author expects the measurement to give.
#[derive(Debug, Clone, PartialEq)]
pub enum Expect {
    Number(f64),
    Choice(String),
}

/// The answer block of an exercise.
#[derive(Debug, Clone)]
pub struct Answer {
    pub tolerance: Option<Tolerance>,
    pub expect: Expect,
    pub outcomes: Vec<Outcome>,
    /// Line of `expect`.
    pub line: u32,
}

/// Texts shown after a check.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Feedback {
    pub right: Text,
    pub wrong: Text,
    pub explain: Text,
}

impl Feedback {
    fn from_toml(v: &Item) -> tr::Result<Feedback> {
        let f = fields(v, "struct Feedback", &["right", "wrong", "explain"])?;
        Ok(Feedback {
            right: f.read("right", Text::from_toml)?,
            wrong: f.read("wrong", Text::from_toml)?,
            explain: f.read("explain", Text::from_toml)?,
        })
    }
}

/// What the textbook states, shown beside the measurement of a `::: measure` block.
#[derive(Debug, Clone, PartialEq)]
pub struct Textbook {
    pub value: Option<f64>,
    pub text: Text,
}

impl Textbook {
    fn from_toml(v: &Item) -> tr::Result<Textbook> {
        let f = fields(v, "struct Textbook", &["value", "text"])?;
        Ok(Textbook {
            value: f.opt("value", float)?,
            text: f.read("text", Text::from_toml)?,
        })
    }

    /// As JSON: `{value, text}`.
    pub fn to_json(&self) -> Json {
        Json::object([
            ("value", Json::from(self.value)),
            ("text", self.text.to_json()),
        ])
    }
}

/// An exercise (or a `[[measurement]]`, `kind` [`ExerciseKind::Measure`]).
#[derive(Debug, Clone)]
pub struct Exercise {
    pub id: String,
    pub section: String,
    pub scene: String,
    pub kind: ExerciseKind,
    /// The question (an exercise) or the caption (a measurement).
    pub prompt: Text,
    pub unit: String,
    pub choices: Vec<Choice>,
    pub measure: MeasureSpec,
    pub answer: Answer,
    pub feedback: Feedback,
    pub textbook: Option<Textbook>,
    pub line: u32,
    /// Line of `scene = …`.
    pub scene_line: u32,
}

/// A lesson read from its folder, with everything found wrong in it.
#[derive(Debug, Clone, Default)]
pub struct Bundle {
    pub id: String,
    pub title: Text,
    pub sections: Vec<Section>,
    pub scenes: Vec<Scene>,
    /// Exercises and measurements, in file order.
    pub exercises: Vec<Exercise>,
    /// Every file of the folder (relative path → text), for scenes and their includes.
    pub files: BTreeMap<String, String>,
    /// The folder's files that are not text (relative paths): a lesson reaches the browser as
    /// text, so no scene can read them (see `check`).
    pub binary: Vec<String>,
    pub errors: Vec<Diag>,
    /// Ids of exercises that are defined but could not be read (already reported), so that
    /// references to them do not report again.
    pub broken: Vec<String>,
}

// ------------------------------------------------------------------ raw TOML shapes

struct RawLesson {
    id: String,
    mujoco: Option<String>,
    title: Text,
    sections: Vec<Spanned<String>>,
}

impl RawLesson {
    fn from_toml(v: &Item) -> tr::Result<RawLesson> {
        let f = fields(
            v,
            "struct RawLesson",
            &["id", "mujoco", "title", "sections"],
        )?;
        Ok(RawLesson {
            id: f.read("id", string)?,
            mujoco: f.opt("mujoco", string)?,
            title: f.read("title", Text::from_toml)?,
            sections: f.read("sections", |x| tr::array_of(x, spanned_string))?,
        })
    }
}

struct RawScenes {
    scene: Vec<RawScene>,
}

impl RawScenes {
    fn from_toml(v: &Item) -> tr::Result<RawScenes> {
        let f = fields(v, "struct RawScenes", &["scene"])?;
        Ok(RawScenes {
            scene: f
                .opt("scene", |x| tr::array_of(x, RawScene::from_toml))?
                .unwrap_or_default(),
        })
    }
}

struct RawScene {
    id: Spanned<String>,
    file: Spanned<String>,
    title: Text,
    camera: Option<Camera>,
    show: Vec<String>,
    param: Vec<RawParam>,
}

impl RawScene {
    fn from_toml(v: &Item) -> tr::Result<RawScene> {
        let f = fields(
            v,
            "struct RawScene",
            &["id", "file", "title", "camera", "show", "param"],
        )?;
        Ok(RawScene {
            id: f.read("id", spanned_string)?,
            file: f.read("file", spanned_string)?,
            title: f.read("title", Text::from_toml)?,
            camera: f.opt("camera", Camera::from_toml)?,
            show: f
                .opt("show", |x| tr::array_of(x, string))?
                .unwrap_or_default(),
            param: f
                .opt("param", |x| tr::array_of(x, RawParam::from_toml))?
                .unwrap_or_default(),
        })
    }
}

struct RawParam {
    name: Spanned<String>,
    label: Text,
    target: Spanned<String>,
    kind: Spanned<String>,
    min: Option<f64>,
    max: Option<f64>,
    step: Option<f64>,
    choices: Option<Vec<String>>,
    default: Option<Item>,
    on: Option<String>,
    off: Option<String>,
}

impl RawParam {
    fn from_toml(v: &Item) -> tr::Result<RawParam> {
        let f = fields(
            v,
            "struct RawParam",
            &[
                "name", "label", "target", "kind", "min", "max", "step", "choices", "default",
                "on", "off",
            ],
        )?;
        Ok(RawParam {
            name: f.read("name", spanned_string)?,
            label: f.read("label", Text::from_toml)?,
            target: f.read("target", spanned_string)?,
            kind: f.read("kind", spanned_string)?,
            min: f.opt("min", float)?,
            max: f.opt("max", float)?,
            step: f.opt("step", float)?,
            choices: f.opt("choices", |x| tr::array_of(x, string))?,
            default: f.get("default").cloned(),
            on: f.opt("on", string)?,
            off: f.opt("off", string)?,
        })
    }
}

struct RawExercises {
    exercise: Vec<RawExercise>,
    measurement: Vec<RawExercise>,
}

impl RawExercises {
    fn from_toml(v: &Item) -> tr::Result<RawExercises> {
        let f = fields(v, "struct RawExercises", &["exercise", "measurement"])?;
        let list = |name| {
            f.opt(name, |x| tr::array_of(x, RawExercise::from_toml))
                .map(Option::unwrap_or_default)
        };
        Ok(RawExercises {
            exercise: list("exercise")?,
            measurement: list("measurement")?,
        })
    }
}

struct RawExercise {
    id: Spanned<String>,
    section: Spanned<String>,
    scene: Spanned<String>,
    kind: Option<Spanned<String>>,
    prompt: Option<Text>,
    caption: Option<Text>,
    unit: Option<String>,
    choices: Option<Vec<Choice>>,
    measure: Spanned<RawMeasure>,
    answer: Spanned<RawAnswer>,
    feedback: Option<Feedback>,
    textbook: Option<Textbook>,
}

impl RawExercise {
    fn from_toml(v: &Item) -> tr::Result<RawExercise> {
        let f = fields(
            v,
            "struct RawExercise",
            &[
                "id", "section", "scene", "kind", "prompt", "caption", "unit", "choices",
                "measure", "answer", "feedback", "textbook",
            ],
        )?;
        Ok(RawExercise {
            id: f.read("id", spanned_string)?,
            section: f.read("section", spanned_string)?,
            scene: f.read("scene", spanned_string)?,
            kind: f.opt("kind", spanned_string)?,
            prompt: f.opt("prompt", Text::from_toml)?,
            caption: f.opt("caption", Text::from_toml)?,
            unit: f.opt("unit", string)?,
            choices: f.opt("choices", |x| tr::array_of(x, Choice::from_toml))?,
            measure: f.read("measure", |x| {
                Ok(Spanned::new(x.span(), RawMeasure::from_toml(x)?))
            })?,
            answer: f.read("answer", |x| {
                Ok(Spanned::new(x.span(), RawAnswer::from_toml(x)?))
            })?,
            feedback: f.opt("feedback", Feedback::from_toml)?,
            textbook: f.opt("textbook", Textbook::from_toml)?,
        })
    }
}

struct RawMeasure {
    /// Tables of parameter values.
    runs: Vec<Spanned<tr::Table>>,
    duration: Spanned<f64>,
    quantity: Spanned<String>,
    combine: Option<Spanned<String>>,
}

impl RawMeasure {
    fn from_toml(v: &Item) -> tr::Result<RawMeasure> {
        let f = fields(
            v,
            "struct RawMeasure",
            &["runs", "duration", "quantity", "combine"],
        )?;
        Ok(RawMeasure {
            runs: f.read("runs", |x| {
                tr::array_of(x, |t| Ok(Spanned::new(t.span(), tr::table(t)?.clone())))
            })?,
            duration: f.read("duration", |x| Ok(Spanned::new(x.span(), float(x)?)))?,
            quantity: f.read("quantity", spanned_string)?,
            combine: f.opt("combine", spanned_string)?,
        })
    }
}

struct RawAnswer {
    tolerance: Option<Spanned<RawTolerance>>,
    expect: Item,
    outcome: Vec<RawOutcome>,
}

impl RawAnswer {
    fn from_toml(v: &Item) -> tr::Result<RawAnswer> {
        let f = fields(v, "struct RawAnswer", &["tolerance", "expect", "outcome"])?;
        Ok(RawAnswer {
            tolerance: f.opt("tolerance", |x| {
                let t = fields(x, "struct RawTolerance", &["relative", "absolute"])?;
                Ok(Spanned::new(
                    x.span(),
                    RawTolerance {
                        relative: t.opt("relative", float)?,
                        absolute: t.opt("absolute", float)?,
                    },
                ))
            })?,
            expect: f.req("expect")?.clone(),
            outcome: f
                .opt("outcome", |x| {
                    tr::array_of(x, |o| {
                        let g = fields(o, "struct RawOutcome", &["when", "choice"])?;
                        Ok(RawOutcome {
                            when: g.read("when", spanned_string)?,
                            choice: g.read("choice", spanned_string)?,
                        })
                    })
                })?
                .unwrap_or_default(),
        })
    }
}

struct RawTolerance {
    relative: Option<f64>,
    absolute: Option<f64>,
}

struct RawOutcome {
    when: Spanned<String>,
    choice: Spanned<String>,
}

// ------------------------------------------------------------------ reading

/// Largest lesson file read (a hostile folder must not exhaust memory).
pub const MAX_FILE_BYTES: usize = 4 << 20;
/// Most scene runs one measured check may ask for.
pub const MAX_RUNS: usize = 8;

/// 1-based line of byte `offset` in `text`.
pub fn line_of(text: &str, offset: usize) -> u32 {
    let end = offset.min(text.len());
    let mut n = 1u32;
    for b in text.as_bytes()[..end].iter() {
        if *b == b'\n' {
            n += 1;
        }
    }
    n
}

struct Reader<'a> {
    files: &'a BTreeMap<String, String>,
    errors: Vec<Diag>,
}

impl<'a> Reader<'a> {
    fn err(&mut self, file: &str, line: u32, msg: impl Into<String>) {
        self.errors.push(Diag::new(file, line, msg));
    }

    /// Parses `file` and reads it with `read`; the first problem becomes a [`Diag`].
    fn toml<T>(&mut self, file: &str, read: fn(&Item) -> tr::Result<T>) -> Option<(T, &'a str)> {
        let files = self.files;
        let Some(text) = files.get(file) else {
            self.err(file, 1, format!("missing file '{file}'"));
            return None;
        };
        match tr::parse(text).and_then(|doc| read(&doc)) {
            Ok(v) => Some((v, text.as_str())),
            Err(e) => {
                let line = line_of(text, e.span.start);
                self.err(file, line, e.message);
                None
            }
        }
    }
}

fn sline<T>(text: &str, s: &Spanned<T>) -> u32 {
    line_of(text, s.span().start)
}

/// Splits a section's Markdown into its title (first `# ` heading) and directives.
fn read_markdown(file: &str, text: &str, errors: &mut Vec<Diag>) -> (String, Vec<Directive>) {
    let mut title = None;
    let mut dirs = Vec::new();
    let mut fence: Option<&str> = None;
    for (i, raw) in text.lines().enumerate() {
        let line = i as u32 + 1;
        let t = raw.trim();
        // directives inside fenced code are examples, not pieces to place
        if let Some(f) = fence {
            if t.starts_with(f) {
                fence = None;
            }
            continue;
        }
        if t.starts_with("```") || t.starts_with("~~~") {
            fence = Some(&t[..3]);
            continue;
        }
        if title.is_none() {
            if let Some(h) = t.strip_prefix("# ") {
                title = Some(h.trim().to_string());
            }
        }
        if let Some(rest) = t.strip_prefix(":::") {
            let words: Vec<&str> = rest.split_whitespace().collect();
            let kind = match words.first().copied() {
                Some("scene") => DirectiveKind::Scene,
                Some("exercise") => DirectiveKind::Exercise,
                Some("measure") => DirectiveKind::Measure,
                other => {
                    errors.push(Diag::new(
                        file,
                        line,
                        format!(
                            "unknown directive '::: {}' (scene, exercise or measure)",
                            other.unwrap_or("")
                        ),
                    ));
                    continue;
                }
            };
            if words.len() != 2 {
                errors.push(Diag::new(
                    file,
                    line,
                    format!("directive needs exactly one id: '::: {} <id>'", words[0]),
                ));
                continue;
            }
            dirs.push(Directive {
                kind,
                id: words[1].to_string(),
                file: file.to_string(),
                line,
            });
        }
    }
    let title = title.unwrap_or_else(|| {
        errors.push(Diag::new(file, 1, "section text has no '# ' title heading"));
        String::new()
    });
    (title, dirs)
}

impl Bundle {
    /// Reads a lesson from its files (relative path → text). Never fails: problems are
    /// collected in [`Bundle::errors`].
    pub fn from_files(files: BTreeMap<String, String>) -> Bundle {
        let mut b = Bundle {
            files,
            ..Default::default()
        };
        let files = std::mem::take(&mut b.files);
        let mut r = Reader {
            files: &files,
            errors: Vec::new(),
        };
        for (name, text) in files.iter() {
            if text.len() > MAX_FILE_BYTES {
                r.err(
                    name,
                    1,
                    format!("file is larger than {} MB", MAX_FILE_BYTES >> 20),
                );
            }
        }
        b.read_lesson(&mut r);
        b.read_scenes(&mut r);
        b.read_exercises(&mut r);
        b.cross_check(&mut r);
        b.errors = r.errors;
        b.files = files;
        b
    }

    /// Reads a lesson folder from disk (every file below it, by relative path).
    pub fn from_dir(dir: &std::path::Path) -> Bundle {
        let mut files = BTreeMap::new();
        let mut errors = Vec::new();
        let mut binary = Vec::new();
        collect_dir(dir, dir, &mut files, &mut binary, &mut errors, 0);
        let mut b = Bundle::from_files(files);
        errors.append(&mut b.errors);
        b.errors = errors;
        b.binary = binary;
        b
    }

    /// The scene with this id.
    pub fn scene(&self, id: &str) -> Option<&Scene> {
        self.scenes.iter().find(|s| s.id == id)
    }

    /// The exercise or measurement with this id.
    pub fn exercise(&self, id: &str) -> Option<&Exercise> {
        self.exercises.iter().find(|e| e.id == id)
    }

    fn read_lesson(&mut self, r: &mut Reader) {
        let Some((raw, text)) = r.toml("lesson.toml", RawLesson::from_toml) else {
            return;
        };
        self.id = raw.id;
        self.title = raw.title;
        if let Some(v) = &raw.mujoco {
            if v != "3.15.0" {
                r.err(
                    "lesson.toml",
                    1,
                    format!("mujoco = '{v}': flexlab implements MuJoCo 3.15.0"),
                );
            }
        }
        if raw.sections.is_empty() {
            r.err("lesson.toml", 1, "sections is empty");
        }
        for s in &raw.sections {
            let line = sline(text, s);
            let id = s.get_ref().clone();
            if self.sections.iter().any(|x| x.id == id) {
                r.err(
                    "lesson.toml",
                    line,
                    format!("section '{id}' is listed twice"),
                );
                continue;
            }
            let mut title = Text::default();
            let mut markdown = Text::default();
            let mut per_lang = Vec::new();
            for lang in ["zh", "en"] {
                let file = format!("text/{id}.{lang}.md");
                let Some(md) = r.files.get(&file) else {
                    r.err(
                        "lesson.toml",
                        line,
                        format!("section '{id}' has no text file '{file}'"),
                    );
                    per_lang.push(Vec::new());
                    continue;
                };
                let (t, dirs) = read_markdown(&file, md, &mut r.errors);
                if lang == "zh" {
                    title.zh = t;
                    markdown.zh = md.clone();
                } else {
                    title.en = t;
                    markdown.en = md.clone();
                }
                per_lang.push(dirs);
            }
            let en = per_lang.pop().unwrap_or_default();
            let zh = per_lang.pop().unwrap_or_default();
            if !zh.is_empty() || !en.is_empty() {
                let key = |d: &Directive| (d.kind, d.id.clone());
                let kz: Vec<_> = zh.iter().map(key).collect();
                let ke: Vec<_> = en.iter().map(key).collect();
                if kz != ke {
                    let at = zh
                        .iter()
                        .zip(en.iter())
                        .find(|(a, b)| key(a) != key(b))
                        .map(|(_, b)| b.line)
                        .or_else(|| en.get(zh.len()).map(|d| d.line))
                        .unwrap_or(1);
                    r.err(
                        &format!("text/{id}.en.md"),
                        at,
                        "the English text must place the same scenes, exercises and measures, in the same order, as the Chinese text",
                    );
                }
            }
            self.sections.push(Section {
                id,
                title,
                markdown,
                directives: zh,
            });
        }
    }

    fn read_scenes(&mut self, r: &mut Reader) {
        const F: &str = "scenes.toml";
        let Some((raw, text)) = r.toml(F, RawScenes::from_toml) else {
            return;
        };
        for s in raw.scene {
            let line = sline(text, &s.id);
            let id = s.id.get_ref().clone();
            if self.scenes.iter().any(|x| x.id == id) {
                r.err(F, line, format!("scene '{id}' is defined twice"));
                continue;
            }
            let file = s.file.get_ref().clone();
            let xml = r.files.get(&file).cloned();
            if xml.is_none() {
                r.err(
                    F,
                    sline(text, &s.file),
                    format!("scene '{id}': no file '{file}' in the lesson"),
                );
            }
            let mut params = Vec::new();
            for p in s.param {
                if let Some(p) = read_param(r, text, xml.as_deref(), &file, p) {
                    if params.iter().any(|q: &Param| q.name == p.name) {
                        r.err(
                            F,
                            p.line,
                            format!("parameter '{}' is defined twice", p.name),
                        );
                        continue;
                    }
                    params.push(p);
                }
            }
            self.scenes.push(Scene {
                id,
                file,
                title: s.title,
                camera: s.camera,
                show: s.show,
                params,
                line,
            });
        }
    }

    fn read_exercises(&mut self, r: &mut Reader) {
        const F: &str = "exercises.toml";
        let Some((raw, text)) = r.toml(F, RawExercises::from_toml) else {
            return;
        };
        let all = raw
            .exercise
            .into_iter()
            .map(|e| (false, e))
            .chain(raw.measurement.into_iter().map(|e| (true, e)));
        for (is_measurement, e) in all {
            let line = sline(text, &e.id);
            let id = e.id.get_ref().clone();
            if self.exercises.iter().any(|x| x.id == id) {
                r.err(F, line, format!("exercise '{id}' is defined twice"));
                continue;
            }
            match read_exercise(r, text, is_measurement, e) {
                Some(ex) => self.exercises.push(ex),
                None => self.broken.push(id),
            }
        }
    }

    /// Checks every reference between the files: directives, sections, scenes, parameters.
    fn cross_check(&self, r: &mut Reader) {
        for s in &self.sections {
            for lang in ["zh", "en"] {
                let file = format!("text/{}.{lang}.md", s.id);
                let Some(md) = r.files.get(&file) else {
                    continue;
                };
                let mut scratch = Vec::new();
                let (_, dirs) = read_markdown(&file, md, &mut scratch);
                for d in &dirs {
                    match d.kind {
                        DirectiveKind::Scene if self.scene(&d.id).is_none() => {
                            r.err(&d.file, d.line, format!("unknown scene '{}'", d.id))
                        }
                        DirectiveKind::Exercise | DirectiveKind::Measure
                            if !self.broken.contains(&d.id) =>
                        {
                            match self.exercise(&d.id) {
                                None => r.err(
                                    &d.file,
                                    d.line,
                                    format!("unknown exercise or measurement '{}'", d.id),
                                ),
                                Some(e) if e.section != s.id => r.err(
                                    &d.file,
                                    d.line,
                                    format!(
                                        "'{}' belongs to section '{}', not '{}'",
                                        d.id, e.section, s.id
                                    ),
                                ),
                                Some(e)
                                    if d.kind == DirectiveKind::Exercise
                                        && e.kind == ExerciseKind::Measure =>
                                {
                                    r.err(
                                        &d.file,
                                        d.line,
                                        format!(
                                            "'{}' is a measurement: place it with '::: measure'",
                                            d.id
                                        ),
                                    )
                                }
                                _ => {}
                            }
                        }
                        _ => {}
                    }
                }
            }
            if !s.directives.iter().any(|d| d.kind == DirectiveKind::Scene) {
                r.err(
                    &format!("text/{}.zh.md", s.id),
                    1,
                    format!("section '{}' places no scene ('::: scene <id>')", s.id),
                );
            }
        }
        const F: &str = "exercises.toml";
        for e in &self.exercises {
            if !self.sections.iter().any(|s| s.id == e.section) {
                r.err(
                    F,
                    e.line,
                    format!("'{}': unknown section '{}'", e.id, e.section),
                );
            }
            let placed = self.sections.iter().any(|s| {
                s.directives
                    .iter()
                    .any(|d| d.id == e.id && d.kind != DirectiveKind::Scene)
            });
            if !placed && self.sections.iter().any(|s| s.id == e.section) {
                let how = if e.kind == ExerciseKind::Measure {
                    "measure"
                } else {
                    "exercise"
                };
                r.err(
                    F,
                    e.line,
                    format!(
                        "'{}' is not placed in the text of section '{}' ('::: {how} {}')",
                        e.id, e.section, e.id
                    ),
                );
            }
            let Some(scene) = self.scene(&e.scene) else {
                r.err(
                    F,
                    e.scene_line,
                    format!("'{}': unknown scene '{}'", e.id, e.scene),
                );
                continue;
            };
            for run in &e.measure.runs {
                for (name, v) in &run.values {
                    match scene.param(name) {
                        None => r.err(
                            F,
                            run.line,
                            format!("scene '{}' has no parameter '{name}'", scene.id),
                        ),
                        Some(p) => {
                            if let Err(m) = p.admits(v) {
                                r.err(F, run.line, m);
                            }
                        }
                    }
                }
            }
        }
    }
}

fn read_param(
    r: &mut Reader,
    text: &str,
    xml: Option<&str>,
    xml_file: &str,
    p: RawParam,
) -> Option<Param> {
    const F: &str = "scenes.toml";
    let line = sline(text, &p.name);
    let name = p.name.get_ref().clone();
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    {
        r.err(
            F,
            line,
            format!("parameter name '{name}' must be letters, digits, '_' or '-'"),
        );
        return None;
    }
    let kind = match p.kind.get_ref().as_str() {
        "number" => ParamKind::Number,
        "choice" => ParamKind::Choice,
        "bool" => ParamKind::Bool,
        k => {
            r.err(
                F,
                sline(text, &p.kind),
                format!("parameter kind '{k}' (number, choice or bool)"),
            );
            return None;
        }
    };
    let tline = sline(text, &p.target);
    let target = match params::parse_target(p.target.get_ref()) {
        Ok(t) => t,
        Err(m) => {
            r.err(F, tline, m);
            return None;
        }
    };
    let mut param = Param {
        name: name.clone(),
        label: p.label,
        target_src: p.target.get_ref().clone(),
        target,
        kind,
        min: p.min,
        max: p.max,
        step: p.step,
        choices: p.choices.unwrap_or_default(),
        default: ParamValue::Bool(false),
        on: p.on.unwrap_or_else(|| "true".into()),
        off: p.off.unwrap_or_else(|| "false".into()),
        line,
    };
    match kind {
        ParamKind::Number => match (param.min, param.max) {
            (Some(lo), Some(hi)) if lo.is_finite() && hi.is_finite() && lo < hi => {}
            _ => {
                r.err(
                    F,
                    line,
                    format!("number parameter '{name}' needs finite min < max"),
                );
                return None;
            }
        },
        ParamKind::Choice => {
            if param.choices.is_empty() {
                r.err(F, line, format!("choice parameter '{name}' needs choices"));
                return None;
            }
        }
        ParamKind::Bool => {}
    }
    if matches!(param.target, Target::Elastic3d { .. }) && kind != ParamKind::Bool {
        r.err(F, tline, "a spec:elastic3d target needs kind = \"bool\"");
        return None;
    }
    // the default: as written in scenes.toml, else what the MJCF file says
    let default = if let Some(d) = &p.default {
        match ParamValue::from_toml(d.get_ref()) {
            Some(v) => Some((v, sline(text, d))),
            None => {
                r.err(
                    F,
                    sline(text, d),
                    "default must be a number, string or boolean",
                );
                return None;
            }
        }
    } else {
        None
    };
    let default = match default {
        Some((v, _)) => v,
        None => {
            let from_file = match (&param.target, xml) {
                (Target::Elastic3d { .. }, _) => Some(ParamValue::Bool(false)),
                (t, Some(xml)) => match params::read_attr(xml, t) {
                    Ok(Some(s)) => text_to_value(&param, &s),
                    Ok(None) if kind == ParamKind::Bool && param.off.is_empty() => {
                        Some(ParamValue::Bool(false))
                    }
                    Ok(None) => {
                        r.err(
                            F,
                            line,
                            format!(
                                "parameter '{name}': {xml_file} does not set '{}'; give a default",
                                param.target_src
                            ),
                        );
                        return None;
                    }
                    Err(m) => {
                        r.err(F, tline, format!("parameter '{name}': {m} in {xml_file}"));
                        return None;
                    }
                },
                (_, None) => return None,
            };
            match from_file {
                Some(v) => v,
                None => {
                    r.err(
                        F,
                        line,
                        format!(
                            "parameter '{name}': the value in {xml_file} is not a {} value; give a default",
                            kind.name()
                        ),
                    );
                    return None;
                }
            }
        }
    };
    if let Err(m) = param.admits(&default) {
        r.err(F, line, format!("default: {m}"));
        return None;
    }
    param.default = default;
    Some(param)
}

/// Reads an attribute's text as a value of `p`.
fn text_to_value(p: &Param, s: &str) -> Option<ParamValue> {
    match p.kind {
        ParamKind::Number => crate::decimal::parse_f64(s.trim()).map(ParamValue::Number),
        ParamKind::Choice => Some(ParamValue::Text(s.to_string())),
        ParamKind::Bool => {
            if s == p.on {
                Some(ParamValue::Bool(true))
            } else if s == p.off {
                Some(ParamValue::Bool(false))
            } else {
                None
            }
        }
    }
}

fn read_exercise(
    r: &mut Reader,
    text: &str,
    is_measurement: bool,
    e: RawExercise,
) -> Option<Exercise> {
    const F: &str = "exercises.toml";
    let line = sline(text, &e.id);
    let scene_line = sline(text, &e.scene);
    let id = e.id.get_ref().clone();
    let kind = if is_measurement {
        if let Some(k) = &e.kind {
            r.err(
                F,
                sline(text, k),
                "a [[measurement]] has no kind (it asks nothing)",
            );
        }
        ExerciseKind::Measure
    } else {
        match e
            .kind
            .as_ref()
            .map(|k| (k.get_ref().as_str(), sline(text, k)))
        {
            Some(("number", _)) => ExerciseKind::Number,
            Some(("choice", _)) => ExerciseKind::Choice,
            Some((k, l)) => {
                r.err(F, l, format!("exercise kind '{k}' (number or choice)"));
                return None;
            }
            None => {
                r.err(
                    F,
                    line,
                    format!("exercise '{id}' needs kind = \"number\" or \"choice\""),
                );
                return None;
            }
        }
    };
    let prompt = if is_measurement { e.caption } else { e.prompt };
    let Some(prompt) = prompt else {
        let what = if is_measurement { "caption" } else { "prompt" };
        r.err(
            F,
            line,
            format!("'{id}' needs a {what} = {{ zh = …, en = … }}"),
        );
        return None;
    };
    let feedback = match (e.feedback, is_measurement) {
        (Some(f), _) => f,
        (None, true) => Feedback::default(),
        (None, false) => {
            r.err(
                F,
                line,
                format!("exercise '{id}' needs [exercise.feedback] right, wrong and explain"),
            );
            return None;
        }
    };
    let choices = e.choices.unwrap_or_default();
    if kind == ExerciseKind::Choice && choices.len() < 2 {
        r.err(
            F,
            line,
            format!("choice exercise '{id}' needs at least two choices"),
        );
        return None;
    }
    if kind != ExerciseKind::Choice && !choices.is_empty() {
        r.err(
            F,
            line,
            format!("'{id}' lists choices but is not a choice exercise"),
        );
    }
    for (i, c) in choices.iter().enumerate() {
        if choices[..i].iter().any(|d| d.id == c.id) {
            r.err(F, line, format!("choice '{}' is listed twice", c.id));
        }
    }

    // measure
    let mline = sline(text, &e.measure);
    let rm = e.measure.into_inner();
    let mut runs = Vec::new();
    if rm.runs.is_empty() || rm.runs.len() > MAX_RUNS {
        r.err(F, mline, format!("measure needs 1 to {MAX_RUNS} runs"));
        return None;
    }
    for run in &rm.runs {
        let rl = sline(text, run);
        let mut values = Vec::new();
        for (k, v) in run.get_ref().iter() {
            let k = k.get_ref();
            match ParamValue::from_toml(v.get_ref()) {
                Some(pv) => values.push((k.clone(), pv)),
                None => r.err(
                    F,
                    rl,
                    format!("run value '{k}' must be a number, string or boolean"),
                ),
            }
        }
        runs.push(Run { values, line: rl });
    }
    let duration_line = sline(text, &rm.duration);
    let duration = *rm.duration.get_ref();
    if !(0.0..=60.0).contains(&duration) {
        r.err(
            F,
            duration_line,
            "duration must be between 0 and 60 simulated seconds",
        );
        return None;
    }
    let quantity_line = sline(text, &rm.quantity);
    let quantity_src = rm.quantity.get_ref().clone();
    let quantity = match quantity::parse(&quantity_src) {
        Ok(q) => q,
        Err(m) => {
            r.err(F, quantity_line, format!("quantity '{quantity_src}': {m}"));
            return None;
        }
    };
    let combine = match rm
        .combine
        .as_ref()
        .map(|c| (c.get_ref().as_str(), sline(text, c)))
    {
        None | Some(("value", _)) => Combine::Value,
        Some(("ratio", _)) => Combine::Ratio,
        Some(("difference", _)) => Combine::Difference,
        Some((c, l)) => {
            r.err(F, l, format!("combine '{c}' (value, ratio or difference)"));
            return None;
        }
    };
    let want = if combine == Combine::Value { 1 } else { 2 };
    if runs.len() != want {
        r.err(
            F,
            mline,
            format!(
                "combine = {:?} needs exactly {want} run(s), not {}",
                combine,
                runs.len()
            )
            .to_ascii_lowercase(),
        );
        return None;
    }

    // answer
    let aline = sline(text, &e.answer);
    let ra = e.answer.into_inner();
    let eline = sline(text, &ra.expect);
    let tolerance = match &ra.tolerance {
        None => None,
        Some(t) => {
            let tl = sline(text, t);
            match (t.get_ref().relative, t.get_ref().absolute) {
                (Some(x), None) if x.is_finite() && x >= 0.0 => Some(Tolerance::Relative(x)),
                (None, Some(x)) if x.is_finite() && x >= 0.0 => Some(Tolerance::Absolute(x)),
                _ => {
                    r.err(
                        F,
                        tl,
                        "tolerance is { relative = r } or { absolute = a }, r and a ≥ 0",
                    );
                    return None;
                }
            }
        }
    };
    let expect = match (kind, ra.expect.get_ref()) {
        (ExerciseKind::Choice, tr::Value::String(s)) => {
            if !choices.iter().any(|c| &c.id == s) {
                r.err(
                    F,
                    eline,
                    format!("expect = '{s}' is not one of the choices"),
                );
                return None;
            }
            Expect::Choice(s.clone())
        }
        (ExerciseKind::Choice, _) => {
            r.err(F, eline, "a choice exercise expects a choice id");
            return None;
        }
        (_, v) => match ParamValue::from_toml(v) {
            Some(ParamValue::Number(x)) if x.is_finite() => Expect::Number(x),
            _ => {
                r.err(F, eline, "expect must be a number");
                return None;
            }
        },
    };
    if kind != ExerciseKind::Choice && tolerance.is_none() {
        r.err(F, aline, "a number check needs a tolerance");
        return None;
    }
    let mut outcomes = Vec::new();
    for o in &ra.outcome {
        let ol = sline(text, &o.when);
        let when = match Condition::parse(o.when.get_ref()) {
            Ok(c) => c,
            Err(m) => {
                r.err(F, ol, format!("when = '{}': {m}", o.when.get_ref()));
                return None;
            }
        };
        let choice = o.choice.get_ref().clone();
        if !choices.iter().any(|c| c.id == choice) {
            r.err(
                F,
                sline(text, &o.choice),
                format!("outcome choice '{choice}' is not one of the choices"),
            );
            return None;
        }
        outcomes.push(Outcome {
            when_src: o.when.get_ref().clone(),
            when,
            choice,
            line: ol,
        });
    }
    if kind == ExerciseKind::Choice && outcomes.is_empty() {
        r.err(
            F,
            aline,
            "a choice exercise needs [[exercise.answer.outcome]] blocks",
        );
        return None;
    }
    if kind != ExerciseKind::Choice && !outcomes.is_empty() {
        r.err(F, aline, "outcomes belong to choice exercises");
    }
    Some(Exercise {
        id,
        section: e.section.get_ref().clone(),
        scene: e.scene.get_ref().clone(),
        kind,
        prompt,
        unit: e.unit.unwrap_or_default(),
        choices,
        measure: MeasureSpec {
            runs,
            duration,
            quantity_src,
            quantity,
            combine,
            line: mline,
            duration_line,
            quantity_line,
        },
        answer: Answer {
            tolerance,
            expect,
            outcomes,
            line: eline,
        },
        feedback,
        textbook: e.textbook,
        line,
        scene_line,
    })
}

fn collect_dir(
    root: &std::path::Path,
    dir: &std::path::Path,
    files: &mut BTreeMap<String, String>,
    binary: &mut Vec<String>,
    errors: &mut Vec<Diag>,
    depth: usize,
) {
    if depth > 4 {
        return;
    }
    let Ok(rd) = std::fs::read_dir(dir) else {
        errors.push(Diag::new(
            &dir.display().to_string(),
            1,
            "cannot read folder",
        ));
        return;
    };
    let mut entries: Vec<_> = rd.filter_map(|e| e.ok()).map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        let rel = p
            .strip_prefix(root)
            .map(|r| {
                r.components()
                    .map(|c| c.as_os_str().to_string_lossy().to_string())
                    .collect::<Vec<_>>()
                    .join("/")
            })
            .unwrap_or_default();
        if p.is_dir() {
            collect_dir(root, &p, files, binary, errors, depth + 1);
        } else if let Ok(bytes) = std::fs::read(&p) {
            match String::from_utf8(bytes) {
                Ok(s) => {
                    files.insert(rel, s);
                }
                // not lesson text (an image, a binary mesh): named, so that a scene that reads
                // one is told why it cannot
                Err(_) => binary.push(rel),
            }
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn tiny() -> BTreeMap<String, String> {
        let mut f = BTreeMap::new();
        f.insert(
            "lesson.toml".into(),
            "id = \"t\"\nmujoco = \"3.15.0\"\ntitle = { zh = \"测试\", en = \"Test\" }\nsections = [\"s1\"]\n".into(),
        );
        f.insert(
            "text/s1.zh.md".into(),
            "# 第一节\n\n::: scene drop\n\n::: exercise fall\n".into(),
        );
        f.insert(
            "text/s1.en.md".into(),
            "# One\n\n::: scene drop\n\n```\n::: scene nope\n```\n::: exercise fall\n".into(),
        );
        f.insert(
            "scenes/drop.xml".into(),
            "<mujoco>\n  <option timestep=\"0.01\"/>\n  <worldbody>\n    <body name=\"b\" pos=\"0 0 1\">\n      <joint name=\"z\" type=\"slide\" axis=\"0 0 1\"/>\n      <geom type=\"sphere\" size=\"0.1\" mass=\"1\"/>\n    </body>\n  </worldbody>\n</mujoco>\n".into(),
        );
        f.insert(
            "scenes.toml".into(),
            "[[scene]]\nid = \"drop\"\nfile = \"scenes/drop.xml\"\ntitle = { zh = \"落\", en = \"Drop\" }\n\n[[scene.param]]\nname = \"dt\"\nlabel = { zh = \"步长\", en = \"timestep\" }\ntarget = \"option@timestep\"\nkind = \"number\"\nmin = 0.001\nmax = 0.02\n".into(),
        );
        f.insert(
            "exercises.toml".into(),
            "[[exercise]]\nid = \"fall\"\nsection = \"s1\"\nscene = \"drop\"\nkind = \"number\"\nprompt = { zh = \"落多远?\", en = \"How far?\" }\nunit = \"m\"\n\n[exercise.measure]\nruns = [ { dt = 0.001 } ]\nduration = 1.0\nquantity = \"initial(qpos[0]) - qpos[0]\"\n\n[exercise.answer]\ntolerance = { relative = 0.01 }\nexpect = 4.9\n\n[exercise.feedback]\nright = { zh = \"对\", en = \"Right\" }\nwrong = { zh = \"错\", en = \"Wrong\" }\nexplain = { zh = \"{measured}\", en = \"g t²/2 = {measured} m\" }\n".into(),
        );
        f
    }

    #[test]
    fn a_good_lesson_reads_without_errors() {
        let b = Bundle::from_files(tiny());
        assert!(b.errors.is_empty(), "{:?}", b.errors);
        assert_eq!(b.sections.len(), 1);
        assert_eq!(b.sections[0].title.en, "One");
        assert_eq!(b.sections[0].directives.len(), 2);
        let p = &b.scenes[0].params[0];
        assert_eq!(p.default, ParamValue::Number(0.01));
        assert_eq!(b.exercises[0].answer.expect, Expect::Number(4.9));
    }

    #[test]
    fn errors_name_file_and_line() {
        let mut f = tiny();
        f.insert(
            "text/s1.zh.md".into(),
            "# 第一节\n\n::: scene drop\n::: exercise fall\n::: scene nosuch\n".into(),
        );
        let b = Bundle::from_files(f);
        assert!(b
            .errors
            .iter()
            .any(|d| d.file == "text/s1.zh.md" && d.line == 5 && d.message.contains("nosuch")));
        let mut f = tiny();
        let ex = f["exercises.toml"].replace("kind = \"number\"", "kind = \"essay\"");
        f.insert("exercises.toml".into(), ex);
        let b = Bundle::from_files(f);
        assert_eq!(b.errors[0].file, "exercises.toml");
        assert_eq!(b.errors[0].line, 5, "{:?}", b.errors);
        let mut f = tiny();
        let ex = f["exercises.toml"].replace("dt = 0.001", "dt = 0.5");
        f.insert("exercises.toml".into(), ex);
        let b = Bundle::from_files(f);
        assert!(
            b.errors[0].message.contains("outside the range"),
            "{:?}",
            b.errors
        );
        assert_eq!(b.errors[0].line, 10);
    }

    #[test]
    fn toml_syntax_errors_are_located() {
        let mut f = tiny();
        f.insert(
            "scenes.toml".into(),
            "[[scene]]\nid = \"drop\"\nfile = \n".into(),
        );
        let b = Bundle::from_files(f);
        let d = b.errors.iter().find(|d| d.file == "scenes.toml").unwrap();
        assert_eq!(d.line, 3, "{d:?}");
    }

    #[test]
    fn unknown_keys_are_rejected() {
        let mut f = tiny();
        let ex = f["exercises.toml"].replace("unit = \"m\"", "unti = \"m\"");
        f.insert("exercises.toml".into(), ex);
        let b = Bundle::from_files(f);
        assert!(b.errors[0].message.contains("unti"), "{:?}", b.errors);
        assert_eq!(b.errors[0].line, 7);
    }

    #[test]
    fn line_of_counts_newlines() {
        assert_eq!(line_of("a\nb\nc", 0), 1);
        assert_eq!(line_of("a\nb\nc", 2), 2);
        assert_eq!(line_of("a\nb\nc", 99), 3);
    }
}
