//! The compiler against MuJoCo 3.15.0: for every model of `../shared/oracle/models`, MuJoCo's
//! own flex examples (`../shared/oracle/mujoco-examples`), `crate/tests/models` and the
//! compile-time checks of claims-3.15.0.md (`crate/tests/rejections`, one model each), flexlab
//! must accept what MuJoCo accepts with the same sizes, arrays and statistics (bit for bit, but for the
//! models of `HULL_ORDER`) and the same compile warnings, and reject what MuJoCo rejects with
//! the same message. The dumps in `crate/tests/compile/` are written
//! by `scripts/oracle/compile-dumps.py` from MuJoCo 3.15.0.

mod common;

use flexlab::{ErrorKind, Model};
use serde_json::Value;
use std::path::PathBuf;

/// Models MuJoCo loads that need a feature flexlab lacks: they must fail with a located
/// "not supported" error (never a wrong model); remove an entry when the feature lands.
const KNOWN_UNSUPPORTED: &[(&str, &str)] = &[
    ("ours__alignfree_offset", "free-joint alignment"),
    ("ours__discardvisual_geom", "discardvisual"),
    ("ours__joint_armature_negative", "negative joint armature"),
    ("ours__flex_damping_negative", "negative elasticity damping"),
    ("ours__number_nan", "NaN in attribute 'stiffness'"),
    (
        "ours__number_infinite_size",
        "an infinite value in attribute 'mass'",
    ),
    (
        "ours__replicate_keyframe",
        "<keyframe> in a model with <replicate>",
    ),
    (
        "ours__cable_shared_instance",
        "body 'bB_first' continues the cable",
    ),
];

/// Models on which MuJoCo 3.15.0 writes over its own data (past an array, or one flex's rows
/// over another's), and the fields its write changed: flexlab must differ from the dump in each
/// (the test fails once MuJoCo's value shows no fault) and equal it everywhere else.
const MUJOCO_OVERWRITES: &[(&str, &[&str])] = &[
    // A rigid flex with edge damping: mj_flex, run by mj_setConst with flex_rigid cleared, writes
    // each damped edge's Jacobian (nv = 3 zeros of the ball joint) into its empty row, that is
    // past flexedge_J into flexedge_length, so the first three rest lengths are 0 (they are the
    // edges' lengths without the damping) and the mean size follows them.
    (
        "ours__rigid_flex_edge_damping",
        &["flexedge_length0", "stat.meansize"],
    ),
    // A flex with edge Jacobian rows, one without, then one with: makeFlexSparse takes each
    // row's address from the row before it, which is 0 after the flex without rows, so the
    // cable's rows start at 0 again, over the damped cloth's (rowadr, and the colind it writes
    // there).
    (
        "ours__flex_jacobian_alias",
        &["flexedge_J_rowadr", "flexedge_J_colind"],
    ),
];

/// Models with a mesh given by its vertices alone: MuJoCo's faces are qhull's triangles, in
/// qhull's order and with qhull's diagonals across flat facets, which flexlab's hull does not
/// reproduce. `mesh_face` is compared by its size and the vertices it uses.
const HULL_FACES: &[&str] = &["ours__mesh_hull_faces"];

/// Models whose arrays are sums over a mesh's convex-hull triangles (`inertia="convex"`, or a
/// mesh given by its vertices alone), which flexlab's quickhull lists in another order than
/// qhull: compared to 1e-9 of their size. Every other model's arrays must equal MuJoCo's bit for
/// bit (an ulp in a body's principal axes reached a falling body's `qacc`).
const HULL_ORDER: &[&str] = &["ours__mesh_convex", "ours__mesh_hull_faces"];

/// Same length, and the same vertices on some face (the hull's vertices).
fn compare_hull_faces(m: &Model, want: &[Value]) -> Result<(), String> {
    let got = m.field("mesh_face").unwrap();
    let used = |v: Vec<i64>| {
        let mut v = v;
        v.sort_unstable();
        v.dedup();
        v
    };
    let g = used((0..got.len()).map(|i| got.get(i) as i64).collect());
    let w = used(want.iter().map(|x| x.as_i64().unwrap()).collect());
    if got.len() != want.len() || g != w {
        return Err(format!(
            "mesh_face: {} values on vertices {g:?} (MuJoCo {} on {w:?})",
            got.len(),
            want.len()
        ));
    }
    Ok(())
}

fn model_path(set: &str, model: &str) -> PathBuf {
    match set {
        "oracle" => common::shared().join("oracle/models"),
        "examples" => common::shared().join("oracle/mujoco-examples"),
        "rejections" => common::repo().join("crate/tests/rejections"),
        _ => common::repo().join("crate/tests/models"),
    }
    .join(format!("{model}.xml"))
}

/// A number of a dump: JSON has no infinities or NaN, which the dump script writes as the
/// strings "inf", "-inf" and "nan".
fn dumped_number(v: &Value) -> f64 {
    match v.as_str() {
        Some("inf") => f64::INFINITY,
        Some("-inf") => f64::NEG_INFINITY,
        Some("nan") => f64::NAN,
        _ => v.as_f64().unwrap(),
    }
}

/// Fields MuJoCo stores as 32-bit floats: a difference far below 1e-9 in the double
/// computation before the cast can still round to the neighbouring float.
const F32_FIELDS: &[&str] = &["mesh_vert"];

/// One field: equal bit for bit (`exact`), or else within 1e-9·max(|b|, 1e-6·max|ref|) (one
/// float step of |b| for the fields in `F32_FIELDS`); the worst entry is reported.
fn compare_field(m: &Model, name: &str, want: &[Value], exact: bool) -> Result<(), String> {
    let Some(got) = m.field(name) else {
        return Err(format!("{name}: no such field in flexlab's model"));
    };
    if got.len() != want.len() {
        return Err(format!(
            "{name}: length {} (MuJoCo {})",
            got.len(),
            want.len()
        ));
    }
    let want: Vec<f64> = want.iter().map(dumped_number).collect();
    let scale = want.iter().fold(0.0f64, |a, b| a.max(b.abs()));
    let mut worst: Option<(usize, f64)> = None;
    for (i, &w) in want.iter().enumerate() {
        let g = got.get(i);
        if exact {
            // the bits: -0.0 against 0.0 differs too (a sign MuJoCo's sums give)
            if g.to_bits() != w.to_bits() && worst.is_none_or(|(_, e)| (g - w).abs() > e) {
                worst = Some((i, (g - w).abs()));
            }
            continue;
        }
        let mut tol = 1e-9 * w.abs().max(1e-6 * scale).max(1e-300);
        if F32_FIELDS.contains(&name) {
            tol = tol.max(w.abs() * f32::EPSILON as f64);
        }
        let err = (g - w).abs();
        if err > tol && worst.is_none_or(|(_, e)| err / tol > e) {
            worst = Some((i, err / tol));
        }
    }
    match worst {
        None => Ok(()),
        Some((i, _)) => Err(format!("{name}[{i}]: {} (MuJoCo {})", got.get(i), want[i])),
    }
}

/// Loads a model and MuJoCo's warnings about it (their first lines); a header comment
/// `spec: elastic3d FLEX=V` sets that spec-only value first, as the dump script does with
/// MuJoCo's spec.
fn load(path: &std::path::Path) -> flexlab::Result<(Model, Vec<String>)> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut spec = flexlab::mjcf::parse_file(path)?;
    for line in text.lines() {
        if let Some(rest) = line.trim().strip_prefix("spec: elastic3d ") {
            let (flex, v) = rest.trim_end_matches("-->").trim().split_once('=').unwrap();
            spec.set_elastic3d(flex, v.parse().unwrap())?;
        }
    }
    let m = flexlab::compile::compile(&spec)?;
    let warnings = flexlab::compile::warnings::mujoco_warnings(&spec, &m)
        .iter()
        .map(|w| w.message().to_string())
        .collect();
    Ok((m, warnings))
}

fn check_dump(key: &str, dump: &Value) -> Vec<String> {
    let set = dump["set"].as_str().unwrap();
    let model = dump["model"].as_str().unwrap();
    let path = model_path(set, model);
    let ours = load(&path);
    let mut problems = Vec::new();
    if let Some((_, feature)) = KNOWN_UNSUPPORTED.iter().find(|(k, _)| *k == key) {
        match &ours {
            Err(e) if e.kind == ErrorKind::Unsupported && e.to_string().contains(feature) => {}
            Err(e) => problems.push(format!("expected 'not supported: {feature}', got: {e}")),
            Ok(_) => problems.push(format!(
                "compiles now: remove it from KNOWN_UNSUPPORTED ({feature})"
            )),
        }
        return problems;
    }
    if !dump["ok"].as_bool().unwrap() {
        let want = dump["error"].as_str().unwrap();
        match &ours {
            Ok(_) => problems.push(format!("accepted; MuJoCo rejects it: {want}")),
            Err(e) => {
                let text = e.to_string();
                let first = text.lines().next().unwrap_or("");
                if first != want {
                    problems.push(format!("message '{first}', MuJoCo '{want}'"));
                }
            }
        }
        return problems;
    }
    let (m, warnings) = match ours {
        Ok(x) => x,
        Err(e) => return vec![format!("rejected: {e}")],
    };
    let want: Vec<&str> = dump["warnings"]
        .as_array()
        .expect("warnings missing: rerun compile-dumps.py")
        .iter()
        .map(|w| w.as_str().unwrap())
        .collect();
    if warnings != want {
        problems.push(format!("warnings {warnings:?}, MuJoCo {want:?}"));
    }
    for (name, v) in dump["sizes"].as_object().unwrap() {
        let want = v.as_u64().unwrap() as usize;
        match m.size(name) {
            Some(got) if got == want => {}
            got => problems.push(format!("{name} = {got:?}, MuJoCo {want}")),
        }
    }
    if !problems.is_empty() {
        return problems; // arrays of mismatched sizes only repeat the size error
    }
    for (name, v) in dump["fields"].as_object().unwrap() {
        let result = if name == "mesh_face" && HULL_FACES.contains(&key) {
            compare_hull_faces(&m, v.as_array().unwrap())
        } else if name.starts_with("efm0_L") {
            compare_efm0(&m, name, v.as_array().unwrap())
        } else {
            compare_field(&m, name, v.as_array().unwrap(), !HULL_ORDER.contains(&key))
        };
        if let Err(p) = result {
            problems.push(p);
        }
    }
    problems.extend(compare_stat(&m, &dump["stat"], !HULL_ORDER.contains(&key)));
    if let Some((_, fields)) = MUJOCO_OVERWRITES.iter().find(|(k, _)| *k == key) {
        let of =
            |p: &str, f: &str| p.starts_with(&format!("{f}:")) || p.starts_with(&format!("{f}["));
        for f in *fields {
            if !problems.iter().any(|p| of(p, f)) {
                problems.push(format!(
                    "{f} equals MuJoCo's: remove it from MUJOCO_OVERWRITES"
                ));
            }
        }
        problems.retain(|p| !fields.iter().any(|f| of(p, f)));
    }
    problems
}

/// The constant bending factor (`efm0_L` and its sparsity), bit for bit: its values are the
/// CG preconditioner's, whose rounding steers the iterates, and the order of the factor's sums
/// follows its pattern (with a pattern unlike MuJoCo's, fill values parted by 1e-12).
fn compare_efm0(m: &Model, name: &str, want: &[Value]) -> Result<(), String> {
    let got: Vec<f64> = match &m.efm0 {
        None => Vec::new(),
        Some(e) => match name {
            "efm0_L_rownnz" => e.l.rownnz.iter().map(|&x| x as f64).collect(),
            "efm0_L_rowadr" => e.l.rowadr.iter().map(|&x| x as f64).collect(),
            "efm0_L_colind" => e.l.colind.iter().map(|&x| x as f64).collect(),
            "efm0_L" => e.l.val.clone(),
            _ => return Err(format!("{name}: no such part of efm0")),
        },
    };
    let want: Vec<f64> = want.iter().map(|v| v.as_f64().unwrap()).collect();
    if got.len() != want.len() {
        return Err(format!(
            "{name}: length {} (MuJoCo {})",
            got.len(),
            want.len()
        ));
    }
    match (0..got.len()).find(|&i| got[i] != want[i]) {
        None => Ok(()),
        Some(i) => Err(format!("{name}[{i}]: {:e} (MuJoCo {:e})", got[i], want[i])),
    }
}

/// `mjModel.stat`, bit for bit (`exact`), or else each value to 1e-9 of its size.
fn compare_stat(m: &Model, want: &Value, exact: bool) -> Vec<String> {
    let s = &m.stat;
    let got = [
        ("meaninertia", s.meaninertia),
        ("meanmass", s.meanmass),
        ("meansize", s.meansize),
        ("extent", s.extent),
        ("center[0]", s.center[0]),
        ("center[1]", s.center[1]),
        ("center[2]", s.center[2]),
    ];
    let mut problems = Vec::new();
    for (name, g) in got {
        let w = match name.strip_prefix("center[") {
            Some(k) => &want["center"][k[..1].parse::<usize>().unwrap()],
            None => &want[name],
        };
        let w = w
            .as_f64()
            .unwrap_or_else(|| panic!("stat.{name} missing: rerun compile-dumps.py"));
        let differs = if exact {
            g.to_bits() != w.to_bits()
        } else {
            (g - w).abs() > 1e-9 * w.abs().max(1e-6)
        };
        if differs {
            problems.push(format!("stat.{name}: {g} (MuJoCo {w})"));
        }
    }
    problems
}

#[test]
fn compiled_models_match_mujoco() {
    let dir = common::repo().join("crate/tests/compile");
    let mut entries: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("crate/tests/compile: run scripts/oracle/compile-dumps.py")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    entries.sort();
    assert!(
        entries.len() >= 60,
        "expected every dump, found {}",
        entries.len()
    );
    let mut failures = Vec::new();
    for p in &entries {
        let key = p.file_stem().unwrap().to_str().unwrap().to_string();
        let dump: Value = serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap();
        let problems = check_dump(&key, &dump);
        if !problems.is_empty() {
            failures.push(format!("{key}:\n    {}", problems.join("\n    ")));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} models differ from MuJoCo 3.15.0:\n{}",
        failures.len(),
        entries.len(),
        failures.join("\n")
    );
}

#[test]
fn every_test_model_has_a_dump() {
    for (set, dir) in [
        ("ours", "crate/tests/models"),
        ("rejections", "crate/tests/rejections"),
    ] {
        for e in std::fs::read_dir(common::repo().join(dir)).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "xml") {
                let stem = p.file_stem().unwrap().to_str().unwrap();
                let dump = common::repo().join(format!("crate/tests/compile/{set}__{stem}.json"));
                assert!(
                    dump.exists(),
                    "{dir}/{stem}: run scripts/oracle/compile-dumps.py"
                );
            }
        }
    }
}
