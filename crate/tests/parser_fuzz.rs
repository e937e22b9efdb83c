//! Property test of the parser, compiler and step on hostile input: thousands of mutations of
//! real models (truncations, deleted and duplicated spans, extreme or malformed numbers, stray
//! elements and attributes) must each give a model or a located error, never a panic; models
//! that compile must step (a few steps, bounded) without panicking, and a diverging state must
//! be caught as MuJoCo's bad-qacc warning, not carried on as NaN.
//! Deterministic: a fixed xorshift seed, so a failure names the case that reproduces it.
//! A longer campaign draws other cases: `FLEXLAB_FUZZ_SEED=7 FLEXLAB_FUZZ_CASES=100000 cargo test
//! --release -p flexlab --test parser_fuzz` (the same seed and count give the same cases).

mod common;

use flexlab::mjcf::DirSource;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;

use common::Rng;

const NUMBERS: &[&str] = &[
    "0",
    "-1",
    "1e308",
    "-1e308",
    "1e-300",
    "nan",
    "inf",
    "-inf",
    "1e9",
    "3.5",
    "abc",
    "",
    "1 2",
    "0 0 0 0 0 0 0 0 0 0 0 0",
    "-0",
    "2147483648",
    "99999999999999999999",
    "-inf inf",
    "0 inf",
    "-Infinity 0",
    "0x1p-3",
    "0x1.fffffffffffffp1023",
    "1e-310",
];
const SNIPPETS: &[&str] = &[
    "<body/>",
    "<geom/>",
    "<flexcomp name=\"z\" type=\"grid\" dim=\"2\" count=\"2 2 1\"/>",
    "<joint/>",
    "<include file=\"missing.xml\"/>",
    "<include file=\"/etc/passwd\"/>",
    "<unknown/>",
    " foo=\"1\"",
    "<!--",
    "]]>",
    "&amp;",
    "<mujoco>",
    "</worldbody>",
    "<pin id=\"-5\"/>",
    "<edge equality=\"strain\"/>",
    "<elasticity young=\"-1\"/>",
];

/// Replaces the value of a random attribute with a hostile number.
fn mutate_number(text: &str, rng: &mut Rng) -> String {
    let quotes: Vec<usize> = text.match_indices("=\"").map(|(i, _)| i + 2).collect();
    if quotes.is_empty() {
        return text.to_string();
    }
    let start = quotes[rng.below(quotes.len())];
    let end = text[start..].find('"').map_or(text.len(), |e| start + e);
    format!(
        "{}{}{}",
        &text[..start],
        NUMBERS[rng.below(NUMBERS.len())],
        &text[end..]
    )
}

fn mutate(text: &str, rng: &mut Rng) -> String {
    let n = text.len();
    let at = |rng: &mut Rng| {
        let mut i = rng.below(n);
        while !text.is_char_boundary(i) {
            i -= 1;
        }
        i
    };
    match rng.below(6) {
        0 => text[..at(rng)].to_string(),
        1 => {
            let (a, b) = (at(rng), at(rng));
            let (a, b) = (a.min(b), a.max(b).min(a.min(b) + 200));
            let b = (b..=n).find(|&i| text.is_char_boundary(i)).unwrap_or(n);
            format!("{}{}", &text[..a], &text[b..])
        }
        2 => {
            let (a, b) = (at(rng), at(rng));
            let (a, b) = (a.min(b), a.max(b).min(a.min(b) + 400));
            let b = (b..=n).find(|&i| text.is_char_boundary(i)).unwrap_or(n);
            format!("{}{}{}", &text[..b], &text[a..b], &text[b..])
        }
        3 | 4 => mutate_number(text, rng),
        _ => {
            let i = at(rng);
            format!(
                "{}{}{}",
                &text[..i],
                SNIPPETS[rng.below(SNIPPETS.len())],
                &text[i..]
            )
        }
    }
}

fn seeds() -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    for dir in [
        "crate/tests/models",
        "crate/tests/rejections",
        "lessons/b6-flex/scenes",
    ] {
        for e in std::fs::read_dir(common::repo().join(dir)).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "xml") {
                out.push((p.clone(), std::fs::read_to_string(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn mutated_models_never_panic() {
    let seeds = seeds();
    let env = |name: &str| std::env::var(name).ok().and_then(|v| v.parse::<u64>().ok());
    // xorshift needs a non-zero state
    let seed = env("FLEXLAB_FUZZ_SEED").map_or(0x9E37_79B9_7F4A_7C15, |s| s.max(1));
    let cases = env("FLEXLAB_FUZZ_CASES").unwrap_or(6000);
    let mut rng = Rng(seed);
    let (mut compiled, mut rejected) = (0, 0);
    for case in 0..cases {
        let (path, text) = &seeds[rng.below(seeds.len())];
        let mut bad = text.clone();
        for _ in 0..1 + rng.below(2) {
            bad = mutate(&bad, &mut rng);
        }
        let dir = path.parent().unwrap().to_path_buf();
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            let src = DirSource { dir: dir.clone() };
            match flexlab::load_xml(&bad, Some("fuzz.xml"), &src) {
                Err(e) => {
                    assert!(!e.to_string().is_empty(), "empty error message");
                    false
                }
                Ok(m) => {
                    if m.nv <= 2000 {
                        let mut d = flexlab::Data::new(&m);
                        let bad = flexlab::data::Warning::BadQpos as usize;
                        for _ in 0..4 {
                            let finite = d.a.qpos.iter().all(|x| x.is_finite());
                            let warned = d.warning[bad].number;
                            flexlab::engine::step(&m, &mut d);
                            // a diverged state is reset and counted, as MuJoCo's mj_step does
                            assert!(
                                finite || d.warning[bad].number > warned,
                                "non-finite qpos stepped on without a reset"
                            );
                        }
                    }
                    true
                }
            }
        }));
        match outcome {
            Ok(true) => compiled += 1,
            Ok(false) => rejected += 1,
            Err(_) => panic!(
                "case {case} of seed {seed} (from {}) panicked; input:\n{bad}",
                path.display()
            ),
        }
    }
    // the mutations must exercise both paths
    assert!(
        compiled > 200 && rejected > 1000,
        "compiled {compiled}, rejected {rejected}"
    );
}

/// The GMSH reader on mutations of the test files (every layout, ASCII and binary): flipped,
/// deleted and duplicated bytes, truncations, hostile numbers in the text and huge counts in
/// the binary fields. Each must give a mesh or a message, never a panic or a read past the
/// end; a mesh's node ids are whatever the file says (the flexcomp's check bounds them).
#[test]
fn mutated_gmsh_files_never_panic() {
    let mut files = Vec::new();
    for dir in ["crate/tests/models", "crate/tests/rejections"] {
        for e in std::fs::read_dir(common::repo().join(dir)).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "msh") {
                files.push((p.clone(), std::fs::read(&p).unwrap()));
            }
        }
    }
    files.sort();
    assert!(files.len() >= 6, "the GMSH fixtures are missing");
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let (mut read, mut refused) = (0, 0);
    for case in 0..4000 {
        let (path, bytes) = &files[rng.below(files.len())];
        let mut bad = bytes.clone();
        for _ in 0..1 + rng.below(3) {
            let n = bad.len().max(1);
            let i = rng.below(n).min(bad.len());
            match rng.below(6) {
                0 => bad.truncate(i),
                1 if i < bad.len() => bad[i] = rng.next() as u8,
                2 => {
                    let j = (i + rng.below(64)).min(bad.len());
                    bad.drain(i..j);
                }
                3 => {
                    let j = (i + rng.below(64)).min(bad.len());
                    let span = bad[i..j].to_vec();
                    bad.splice(i..i, span);
                }
                4 => {
                    let num = NUMBERS[rng.below(NUMBERS.len())];
                    bad.splice(i..i, num.bytes());
                }
                _ => {
                    // a little-endian u64 or i32 field set to an extreme
                    let v: u64 = *rng.pick(&[u64::MAX, 1 << 62, 1 << 32, i32::MAX as u64, 0]);
                    let w = if rng.below(2) == 0 { 8 } else { 4 };
                    if i + w <= bad.len() {
                        bad[i..i + w].copy_from_slice(&v.to_le_bytes()[..w]);
                    }
                }
            }
        }
        let res = catch_unwind(AssertUnwindSafe(|| flexlab::compile::gmsh::load(&bad)));
        match res {
            Ok(Ok(g)) => {
                read += 1;
                assert_eq!(g.point.len() % 3, 0, "case {case} ({path:?})");
                assert!(
                    (1..=3).contains(&g.dim),
                    "case {case} ({path:?}): dim {}",
                    g.dim
                );
            }
            Ok(Err(msg)) => {
                refused += 1;
                assert!(!msg.is_empty(), "case {case} ({path:?}): empty message");
            }
            Err(_) => panic!("case {case}: the GMSH reader panicked on a mutation of {path:?}"),
        }
    }
    eprintln!("gmsh mutations: {read} read, {refused} refused");
}
