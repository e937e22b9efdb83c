//! `flexlab lessons check` on the real lessons and on small broken lessons: every failure
//! must name the right file and line, and a check waiting for an engine feature must be
//! reported as pending without failing.

use flexlab::lessons::check::check_dir;
use std::path::{Path, PathBuf};
use std::process::Command;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/lessons")
        .join(name)
}

fn lines(name: &str) -> (Vec<String>, bool) {
    check_dir(&fixture(name), false)
}

/// The single error line of a broken fixture, with the fixture's folder stripped.
fn only_error(name: &str) -> String {
    let (out, ok) = lines(name);
    assert!(!ok, "{name} must fail: {out:?}");
    let errs: Vec<&String> = out.iter().filter(|l| !l.starts_with("pending:")).collect();
    assert_eq!(errs.len(), 1, "{name}: {out:?}");
    let prefix = format!("{}/", fixture(name).display());
    errs[0].strip_prefix(&prefix).unwrap_or(errs[0]).to_string()
}

#[test]
fn the_lessons_pass_with_nine_exercises() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../lessons");
    let (out, ok) = check_dir(&dir, true);
    assert!(ok, "{out:#?}");
    let last = out.last().unwrap();
    assert!(
        last.starts_with("lessons: 1, sections: 8, scenes: 12, exercises: 9 ("),
        "{last}"
    );
    // every exercise either ran its measured check or waits for an engine feature
    let (measured, pending) = (
        out.iter().filter(|l| l.starts_with("measured: ex")).count(),
        out.iter().filter(|l| l.starts_with("pending: ex")).count(),
    );
    assert_eq!(measured + pending, 9, "{out:#?}");
    // MuJoCo warns about the two undamped elastic volumes (section 3 explains why); the check
    // lists the warnings with file and line and still passes
    let warned: Vec<&String> = out.iter().filter(|l| l.contains(": WARNING: ")).collect();
    assert_eq!(warned.len(), 2, "{out:#?}");
    assert!(warned[0].ends_with(
        "scenes/tet_probe.xml:9: WARNING: flex 'tet' is not rigid and has no equality \
         constraints or passive forces"
    ));
}

#[test]
fn a_good_fixture_passes() {
    let (out, ok) = lines("good");
    assert!(ok, "{out:?}");
    assert_eq!(
        out,
        vec!["lessons: 1, sections: 1, scenes: 1, exercises: 1 (1 with measured checks)"]
    );
}

#[test]
fn bad_mjcf_names_the_scene_file_and_line() {
    let e = only_error("bad-mjcf");
    assert!(e.starts_with("scenes/drop.xml:6: "), "{e}");
    assert!(e.contains("unrecognized attribute: 'bouncy'"), "{e}");
}

#[test]
fn an_unknown_scene_names_the_exercise_line() {
    let e = only_error("unknown-scene");
    assert!(e.starts_with("exercises.toml:4: "), "{e}");
    assert!(e.contains("unknown scene 'dorp'"), "{e}");
}

#[test]
fn a_malformed_exercise_names_its_line() {
    let e = only_error("malformed-exercise");
    assert!(e.starts_with("exercises.toml:12: "), "{e}");
    assert!(e.contains("quantity"), "{e}");
}

#[test]
fn a_tolerance_no_run_can_meet_fails_at_expect() {
    let e = only_error("impossible-tolerance");
    assert!(e.starts_with("exercises.toml:16: "), "{e}");
    assert!(e.contains("gives 4.91 but expect = 5.5"), "{e}");
}

#[test]
fn a_missing_engine_feature_is_pending_not_failing() {
    let (out, ok) = lines("pending");
    assert!(ok, "{out:?}");
    assert!(
        out.iter()
            .any(|l| l.starts_with("pending: fall: Not supported")),
        "{out:?}"
    );
    assert_eq!(
        out.last().unwrap(),
        "lessons: 1, sections: 1, scenes: 1, exercises: 1 (0 with measured checks, 1 pending engine features)"
    );
}

#[test]
fn the_cli_prints_file_line_errors_and_exits_1() {
    let exe = env!("CARGO_BIN_EXE_flexlab");
    let out = Command::new(exe)
        .args(["lessons", "check"])
        .arg(fixture("impossible-tolerance"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("exercises.toml:16: 'fall'"), "{text}");
    let out = Command::new(exe)
        .args(["lessons", "check"])
        .arg(fixture("good"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("lessons: 1, sections: 1"));
}

/// `flexlab lessons bundle`: what the page is built with. A lesson's errors travel in its
/// compiled form (and to stderr) with the same file and line the checker prints.
#[test]
fn the_cli_compiles_lessons_for_the_page() {
    let exe = env!("CARGO_BIN_EXE_flexlab");
    let run = |dir: PathBuf| {
        let out = Command::new(exe)
            .args(["lessons", "bundle"])
            .arg(dir)
            .output()
            .unwrap();
        let v = flexlab::json::parse(&String::from_utf8_lossy(&out.stdout));
        (
            out.status.code(),
            v,
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, v, stderr) = run(Path::new(env!("CARGO_MANIFEST_DIR")).join("../lessons"));
    assert_eq!(code, Some(0));
    assert_eq!(stderr, "");
    let v = v.unwrap();
    let b6 = v.get("b6-flex").expect("lesson b6-flex");
    let b = flexlab::lessons::wire::from_wire(b6).unwrap();
    assert_eq!((b.sections.len(), b.scenes.len()), (8, 12));
    assert!(b.errors.is_empty(), "{:?}", b.errors);

    // a folder of broken lessons: each is still compiled, with its errors
    let (code, v, stderr) = run(fixture(""));
    assert_eq!(code, Some(0));
    let v = v.unwrap();
    let b = flexlab::lessons::wire::from_wire(v.get("unknown-scene").unwrap()).unwrap();
    assert_eq!(b.errors.len(), 1, "{:?}", b.errors);
    assert_eq!(
        (b.errors[0].file.as_str(), b.errors[0].line),
        ("exercises.toml", 4)
    );
    assert!(
        stderr.contains("unknown-scene/exercises.toml:4: "),
        "{stderr}"
    );
    assert!(v.get("good").is_some());

    let (code, _, stderr) = run(fixture("no-such-folder"));
    assert_eq!(code, Some(1));
    assert!(stderr.contains("not a folder"), "{stderr}");
}

#[test]
fn a_scene_reading_a_binary_file_is_told_lessons_carry_text() {
    // a binary GMSH file beside the scene: MuJoCo reads it, but a lesson reaches the browser as
    // text, so the checker names the file and the line that reads it instead of "not found"
    let e = only_error("binary-asset");
    assert!(
        e.starts_with("scenes/drop.xml:6: 'scenes/block.msh' is not a text file"),
        "{e}"
    );
}
