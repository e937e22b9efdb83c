//! Property test of the lesson reader on hostile input. Lesson folders, compiled lessons, URL
//! parameters and typed answers are untrusted: thousands of mutations of the real lessons
//! (truncations, deleted and duplicated spans, hostile values, stray TOML and Markdown) must
//! each read as a lesson whose every problem names a file of the lesson and a line inside it,
//! never a panic; a mutated compiled lesson (what the page downloads) must open or be refused
//! with a message; scene parameters and answers of any shape must be answered or refused.
//! Deterministic: a fixed xorshift seed, so a failure names the case that reproduces it. A
//! longer campaign: `FLEXLAB_FUZZ_SEED=7 FLEXLAB_FUZZ_CASES=100000 cargo test --release -p
//! flexlab --test lesson_fuzz`.

mod common;

use flexlab::lessons::{api, wire, Bundle};
use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;

use common::Rng;

/// Values that replace a quoted or bare value: wrong types, extremes, injection attempts.
const VALUES: &[&str] = &[
    "0",
    "-1",
    "1e308",
    "-1e308",
    "nan",
    "inf",
    "1e-320",
    "\"\"",
    "\"x\"",
    "[]",
    "[1, \"a\"]",
    "{}",
    "true",
    "\"../../etc/passwd\"",
    "\"<script>alert(1)</script>\"",
    "\"$$\\\\href{javascript:alert(1)}{x}$$\"",
    "\"scenes/../../x.xml\"",
    "99999999999999999999",
    "\"1 +\"",
    "\"qpos[999999]\"",
    "\"sqrt(-1) / 0\"",
    "\"((((((((((((((((((((1))))))))))))))))))))\"",
];

/// Text a careless or hostile author might leave anywhere in a lesson file.
const SNIPPETS: &[&str] = &[
    "[[exercise]]\n",
    "[[scene]]\nid = \"s\"\n",
    "[[section]]\n",
    "id = \"dup\"\n",
    "steps = 1000000000\n",
    "\n# title\n",
    "\n::: scene nope\n:::\n",
    "\n::: exercise nope\n:::\n",
    ":::\n",
    "$$\\frac{1}{",
    "$x$",
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "[link](javascript:alert(1))",
    "```\n",
    "\"\"\"",
    "'''",
    "= = =",
    "\u{0}",
    "\u{feff}",
    "\r\n",
    "é中",
];

fn char_at(text: &str, rng: &mut Rng) -> usize {
    let mut i = rng.below(text.len() + 1).min(text.len());
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn end_at(text: &str, from: usize) -> usize {
    (from..=text.len())
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(text.len())
}

/// Replaces the value after a random `= ` (TOML) or `": ` (JSON) with a hostile one.
fn mutate_value(text: &str, rng: &mut Rng) -> String {
    let starts: Vec<usize> = text
        .match_indices("= ")
        .chain(text.match_indices("\": "))
        .map(|(i, s)| i + s.len())
        .collect();
    if starts.is_empty() {
        return text.to_string();
    }
    let start = *rng.pick(&starts);
    let end = text[start..]
        .find(['\n', ','])
        .map_or(text.len(), |e| start + e);
    format!("{}{}{}", &text[..start], rng.pick(VALUES), &text[end..])
}

fn mutate(text: &str, rng: &mut Rng) -> String {
    match rng.below(6) {
        0 => text[..char_at(text, rng)].to_string(),
        1 => {
            let a = char_at(text, rng);
            let b = end_at(text, (a + 1 + rng.below(200)).min(text.len()));
            format!("{}{}", &text[..a], &text[b..])
        }
        2 => {
            let a = char_at(text, rng);
            let b = end_at(text, (a + 1 + rng.below(400)).min(text.len()));
            format!("{}{}{}", &text[..b], &text[a..b], &text[b..])
        }
        3 | 4 => mutate_value(text, rng),
        _ => {
            let i = char_at(text, rng);
            format!("{}{}{}", &text[..i], rng.pick(SNIPPETS), &text[i..])
        }
    }
}

/// Every file of a lesson folder, by path relative to it.
fn read_lesson(dir: &Path) -> BTreeMap<String, String> {
    let mut files = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if let Ok(text) = std::fs::read_to_string(&p) {
                let rel = p
                    .strip_prefix(dir)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                files.insert(rel, text);
            }
        }
    }
    files
}

fn lessons() -> Vec<BTreeMap<String, String>> {
    let root = common::repo();
    ["lessons/b6-flex", "crate/tests/fixtures/lessons/good"]
        .iter()
        .map(|d| read_lesson(&root.join(d)))
        .collect()
}

fn seed_and_cases(default_cases: u64) -> (u64, u64) {
    let env = |name: &str| std::env::var(name).ok().and_then(|v| v.parse::<u64>().ok());
    // xorshift needs a non-zero state
    let seed = env("FLEXLAB_FUZZ_SEED").map_or(0x2545_F491_4F6C_DD1D, |s| s.max(1));
    (seed, env("FLEXLAB_FUZZ_CASES").unwrap_or(default_cases))
}

/// Every problem names a file of the lesson and a line inside it (or line 1 of a missing file,
/// which the author must create), with a message.
fn check_located(b: &Bundle, files: &BTreeMap<String, String>) -> Result<(), String> {
    for e in &b.errors {
        if e.message.trim().is_empty() {
            return Err(format!("{}:{}: empty message", e.file, e.line));
        }
        let lines = match files.get(&e.file) {
            Some(t) => t.lines().count().max(1) as u32 + 1,
            None => 1,
        };
        if e.file.is_empty() || e.line == 0 || e.line > lines {
            return Err(format!("'{e}' is not inside the lesson ({lines} lines)"));
        }
    }
    Ok(())
}

#[test]
fn mutated_lessons_never_panic_and_locate_every_problem() {
    let lessons = lessons();
    let (seed, cases) = seed_and_cases(1500);
    let mut rng = Rng(seed);
    let (mut clean, mut flagged) = (0, 0);
    for case in 0..cases {
        let mut files = rng.pick(&lessons).clone();
        let names: Vec<String> = files.keys().cloned().collect();
        for _ in 0..1 + rng.below(2) {
            let name = rng.pick(&names).clone();
            let text = mutate(&files[&name], &mut rng);
            files.insert(name, text);
        }
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            let b = Bundle::from_files(files.clone());
            check_located(&b, &files)?;
            if b.errors.is_empty() {
                // what the page is sent, and the compiled form it may download instead
                let _ = api::bundle_json(&b);
                let _ = api::open(&wire::to_wire(&b).to_string());
            }
            Ok::<bool, String>(b.errors.is_empty())
        }));
        match outcome {
            Ok(Ok(true)) => clean += 1,
            Ok(Ok(false)) => flagged += 1,
            Ok(Err(e)) => panic!("case {case} of seed {seed}: {e}"),
            Err(_) => panic!("case {case} of seed {seed} panicked"),
        }
    }
    // the mutations must reach both outcomes
    assert!(
        clean > cases / 20 && flagged > cases / 4,
        "clean {clean}, flagged {flagged}"
    );
}

#[test]
fn mutated_compiled_lessons_open_or_are_refused() {
    let lessons = lessons();
    let wires: Vec<String> = lessons
        .iter()
        .map(|f| wire::to_wire(&Bundle::from_files(f.clone())).to_string())
        .collect();
    let (seed, cases) = seed_and_cases(1500);
    let mut rng = Rng(seed ^ 0x5DEE_CE66);
    let (mut opened, mut refused) = (0, 0);
    for case in 0..cases {
        let mut text = rng.pick(&wires).clone();
        for _ in 0..1 + rng.below(2) {
            text = mutate(&text, &mut rng);
        }
        match catch_unwind(AssertUnwindSafe(|| api::open(&text))) {
            Ok(Ok(b)) => {
                opened += 1;
                let _ = catch_unwind(AssertUnwindSafe(|| api::bundle_json(&b)))
                    .unwrap_or_else(|_| panic!("case {case} of seed {seed}: bundle_json panicked"));
            }
            Ok(Err(e)) => {
                assert!(!e.trim().is_empty(), "case {case}: empty refusal");
                refused += 1;
            }
            Err(_) => panic!("case {case} of seed {seed} panicked; input:\n{text}"),
        }
    }
    assert!(
        opened > 0 && refused > cases / 4,
        "opened {opened}, refused {refused}"
    );
}

#[test]
fn hostile_parameters_and_answers_are_answered_or_refused() {
    let files = &lessons()[0];
    let b = Bundle::from_files(files.clone());
    assert!(b.errors.is_empty(), "{:?}", b.errors);
    let (seed, cases) = seed_and_cases(3000);
    let mut rng = Rng(seed ^ 0x9E37_79B9);
    let mut prepared = 0;
    for case in 0..cases {
        let scene = rng.pick(&b.scenes);
        // a URL's parameters: known names with hostile values, unknown names, broken JSON
        let mut params = String::from("{");
        for k in 0..rng.below(3) {
            let name = match scene.params.get(rng.below(scene.params.len() + 1)) {
                Some(p) => p.name.clone(),
                None => "nope".to_string(),
            };
            if k > 0 {
                params.push(',');
            }
            params.push_str(&format!("\"{name}\": {}", rng.pick(VALUES)));
        }
        params.push('}');
        if rng.below(8) == 0 {
            params = mutate(&params, &mut rng);
        }
        let out = catch_unwind(AssertUnwindSafe(|| {
            api::prepare_scene_json(&b, &scene.id, &params)
        }))
        .unwrap_or_else(|_| panic!("case {case} of seed {seed}: params {params} panicked"));
        if out.is_ok() {
            prepared += 1;
        }
        // a typed answer of any shape against a made-up measurement
        let ex = rng.pick(&b.exercises);
        let answer = rng.pick(VALUES);
        let measured = format!(
            "{{\"value\": {}, \"pending\": false, \"runs\": []}}",
            rng.pick(VALUES)
        );
        catch_unwind(AssertUnwindSafe(|| {
            let _ = api::judge_json(&b, &ex.id, answer, &measured);
        }))
        .unwrap_or_else(|_| {
            panic!(
                "case {case} of seed {seed}: answer {answer} to {} against {measured} panicked",
                ex.id
            )
        });
    }
    assert!(prepared > 0, "no parameters were accepted");
}
