//! `flexlab lessons check`: reads a lesson, compiles every scene with its defaults, runs every
//! measured check (which compiles the scene with every parameter value the check uses) and
//! verifies that each gives the author's `expect`.

use super::bundle::{Bundle, Diag, ExerciseKind};
use super::judge::meets_expect;
use super::measure::{compile_prepared_warned, error_text, measure, source};
use super::params;
use crate::error::ErrorKind;

/// What checking one lesson found.
#[derive(Debug, Clone, Default)]
pub struct Report {
    pub sections: usize,
    pub scenes: usize,
    /// Exercises (measurements not counted).
    pub exercises: usize,
    /// Exercises whose measured check ran and met its `expect`.
    pub measured: usize,
    /// `(what, engine message)` of exercises, measurements and scenes waiting for an engine
    /// feature; `what` is an id, or `scene <id>`.
    pub pending: Vec<(String, String)>,
    /// Exercises waiting for an engine feature.
    pub pending_exercises: usize,
    /// `(id, measured value)` of every check that ran, for `--verbose`.
    pub values: Vec<(String, String)>,
    pub errors: Vec<Diag>,
    /// Compile warnings of the scenes with their defaults (MuJoCo's, and what would crash
    /// MuJoCo 3.15.0): listed, not failing the check.
    pub warnings: Vec<Diag>,
}

/// Where a compile error of a scene is: its MJCF file and line when known.
fn scene_error_at(scene_file: &str, e: &crate::Error, fallback: Diag) -> Diag {
    let Some(line) = e.location.line else {
        return fallback;
    };
    let dir = match scene_file.rfind('/') {
        Some(i) => &scene_file[..i + 1],
        None => "",
    };
    let file = match e.location.file.as_deref() {
        None => scene_file.to_string(),
        Some(f) if f == scene_file => f.to_string(),
        Some(f) => format!("{dir}{f}"),
    };
    Diag::new(&file, line, error_text(e))
}

/// A file attribute of a scene or its includes (`file`, a texture's `fileup`, …) that names
/// one of the lesson's files that are not text (a binary STL or GMSH file, an image): the lesson
/// reaches the browser as text, where MuJoCo's reader would find no such file, so the checker
/// says why rather than "not found". None too when the scene does not parse (its compile
/// reports that).
fn binary_reference(b: &Bundle, p: &params::Prepared, scene_file: &str) -> Option<Diag> {
    let root = crate::mjcf::xml::parse(&p.xml, Some(scene_file.into()), &source(p)).ok()?;
    let dir = scene_file.rfind('/').map_or("", |i| &scene_file[..i + 1]);
    let mut stack = vec![&root];
    while let Some(e) = stack.pop() {
        stack.extend(e.children.iter().rev());
        for (_, name) in e.attrs.iter().filter(|(k, _)| k.starts_with("file")) {
            // the name as written, beside the scene, or under a meshdir
            let Some(path) = b.binary.iter().find(|p| {
                !name.is_empty()
                    && (**p == format!("{dir}{name}") || p.ends_with(&format!("/{name}")))
            }) else {
                continue;
            };
            let file = match e.file.as_deref() {
                Some(f) if f != scene_file => format!("{dir}{f}"),
                _ => scene_file.to_string(),
            };
            return Some(Diag::new(
                &file,
                e.line,
                format!(
                    "'{path}' is not a text file: a lesson reaches the browser as text, so its \
                     scenes can read only text files (MJCF, OBJ meshes, ASCII GMSH files)"
                ),
            ));
        }
    }
    None
}

/// Checks a lesson that has been read.
pub fn check(b: &Bundle) -> Report {
    let mut r = Report {
        sections: b.sections.len(),
        scenes: b.scenes.len(),
        errors: b.errors.clone(),
        ..Default::default()
    };
    // scenes that fail to compile with their defaults: already reported, not measured again
    let mut broken_scenes: Vec<&str> = Vec::new();
    for s in &b.scenes {
        let prepared = match params::prepare(s, &b.files, &[]) {
            Ok(p) => p,
            Err(m) => {
                r.errors.push(Diag::new(
                    "scenes.toml",
                    s.line,
                    format!("scene '{}': {m}", s.id),
                ));
                continue;
            }
        };
        if let Some(d) = binary_reference(b, &prepared, &s.file) {
            r.errors.push(d);
            broken_scenes.push(&s.id);
            continue;
        }
        match compile_prepared_warned(&prepared, &s.file) {
            Ok((_, warnings)) => {
                for w in &warnings {
                    let fallback = Diag::new("scenes.toml", s.line, error_text(w));
                    r.warnings.push(scene_error_at(&s.file, w, fallback));
                }
            }
            Err(e) if e.kind == ErrorKind::Unsupported => {
                r.pending.push((format!("scene {}", s.id), error_text(&e)));
            }
            Err(e) => {
                let fallback = Diag::new(
                    "scenes.toml",
                    s.line,
                    format!("scene '{}' does not compile: {}", s.id, error_text(&e)),
                );
                r.errors.push(scene_error_at(&s.file, &e, fallback));
                broken_scenes.push(&s.id);
            }
        }
    }
    for ex in &b.exercises {
        let is_exercise = ex.kind != ExerciseKind::Measure;
        if is_exercise {
            r.exercises += 1;
        }
        if b.scene(&ex.scene).is_none() || broken_scenes.contains(&ex.scene.as_str()) {
            continue; // reported already
        }
        match measure(b, ex) {
            Err(d) => r.errors.push(d),
            Ok(m) => {
                if let Some(p) = m.pending {
                    r.pending.push((ex.id.clone(), p));
                    if is_exercise {
                        r.pending_exercises += 1;
                    }
                    continue;
                }
                let Some(v) = m.value else { continue };
                r.values.push((
                    ex.id.clone(),
                    match &v {
                        super::quantity::Val::Num(x) => format!("{x}"),
                        super::quantity::Val::Text(t) => format!("'{t}'"),
                    },
                ));
                match meets_expect(ex, &v) {
                    Ok(()) => {
                        if is_exercise {
                            r.measured += 1;
                        }
                    }
                    Err(msg) => r
                        .errors
                        .push(Diag::new("exercises.toml", ex.answer.line, msg)),
                }
            }
        }
    }
    // one mistake may be found by two passes (the reader and a run): report it once
    let mut seen = Vec::new();
    r.errors.retain(|d| {
        let new = !seen.contains(d);
        if new {
            seen.push(d.clone());
        }
        new
    });
    r
}

/// The summary line of a check over `lessons` lessons.
pub fn summary(lessons: usize, reports: &[Report]) -> String {
    let sum = |f: fn(&Report) -> usize| reports.iter().map(f).sum::<usize>();
    let pending = sum(|r| r.pending_exercises);
    let mut s = format!(
        "lessons: {lessons}, sections: {}, scenes: {}, exercises: {} ({} with measured checks",
        sum(|r| r.sections),
        sum(|r| r.scenes),
        sum(|r| r.exercises),
        sum(|r| r.measured)
    );
    if pending > 0 {
        s.push_str(&format!(", {pending} pending engine features"));
    }
    s.push(')');
    s
}

/// The lesson folders below `dir`: `dir` itself if it holds a `lesson.toml`, else every
/// sub-folder that does, in name order.
pub fn lesson_dirs(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    if dir.join("lesson.toml").is_file() {
        return vec![dir.to_path_buf()];
    }
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.join("lesson.toml").is_file())
        .collect();
    v.sort();
    v
}

/// Checks every lesson below `dir`; returns the printed lines and whether all passed.
/// `verbose` adds a `measured: <id>: <value>` line per check that ran.
pub fn check_dir(dir: &std::path::Path, verbose: bool) -> (Vec<String>, bool) {
    let dirs = lesson_dirs(dir);
    let mut out = Vec::new();
    if dirs.is_empty() {
        out.push(format!(
            "{}:1: no lesson.toml here or in any sub-folder",
            dir.display()
        ));
        return (out, false);
    }
    let mut reports = Vec::new();
    let mut ok = true;
    for d in &dirs {
        let b = Bundle::from_dir(d);
        let rep = check(&b);
        for e in &rep.errors {
            ok = false;
            out.push(e.located(d));
        }
        // "file:line: WARNING: …", after the errors: an editor lists them, the check passes
        out.extend(rep.warnings.iter().map(|w| w.located(d)));
        if verbose {
            for (id, v) in &rep.values {
                out.push(format!("measured: {id}: {v}"));
            }
        }
        for (what, msg) in &rep.pending {
            out.push(format!("pending: {what}: {msg}"));
        }
        reports.push(rep);
    }
    if ok {
        out.push(summary(dirs.len(), &reports));
    }
    (out, ok)
}
