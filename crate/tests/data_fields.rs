//! Every mjModel and mjData array flexlab names (the lab's inspector lists them by these names)
//! against MuJoCo 3.15.0's array of that name, from the very same state: each case of
//! scripts/oracle/data-field-references.txt loads MuJoCo's qpos, qvel, act, qacc_warmstart and time
//! (committed in crate/tests/data_fields/, written by scripts/oracle/data-fields.py), runs
//! `forward` and compares the arrays bit for bit. This catches an array that is never filled, laid out
//! otherwise or defined otherwise than MuJoCo's, which the trajectories alone do not see (the
//! compile dumps hold only the model arrays the compiler tests need, for many more models).

mod common;

/// Model arrays MuJoCo's mjModel does not have: flexlab's own (`flex_elastic3d`, `mesh_plugin`;
/// the inspector lists them apart, `web/src/ui/inspector.ts`).
const NOT_IN_MJMODEL: &[&str] = &["flex_elastic3d", "mesh_plugin"];

struct Case {
    name: String,
    model: std::path::PathBuf,
    /// Arrays not compared in this case (the manifest says why).
    skip: Vec<String>,
}

fn cases() -> Vec<Case> {
    let text =
        std::fs::read_to_string(common::repo().join("scripts/oracle/data-field-references.txt"))
            .expect("manifest");
    let oracle = common::shared().join("oracle");
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let f: Vec<&str> = l.split('|').map(str::trim).collect();
            let model = f[1].replace("$ORACLE", &oracle.to_string_lossy());
            let model = if model.starts_with('/') {
                model.into()
            } else {
                common::repo().join(model)
            };
            Case {
                name: f[0].to_string(),
                model,
                skip: f[3].split_whitespace().map(String::from).collect(),
            }
        })
        .collect()
}

fn numbers(v: &serde_json::Value) -> Vec<f64> {
    v.as_array()
        .expect("an array")
        .iter()
        .map(|x| x.as_f64().expect("a number"))
        .collect()
}

/// The difference of one array from MuJoCo's, if any: lengths, then values, bit for bit. Every
/// value comes from the same state and is computed in MuJoCo's order and rounding, the
/// iterative solves too (so they stop where MuJoCo's stop); a last-bit difference here is a sum
/// taken in another order, which the trajectories would show later or never (a sensor's).
fn differ(name: &str, ours: &[f64], theirs: &[f64]) -> Option<String> {
    if ours.len() != theirs.len() {
        return Some(format!(
            "{name}: {} values, MuJoCo {}",
            ours.len(),
            theirs.len()
        ));
    }
    let scale = theirs.iter().fold(0.0f64, |a, x| a.max(x.abs()));
    // equal, or both NaN (an array MuJoCo leaves undefined where flexlab does too)
    let same = |a: f64, b: f64| a == b || (a.is_nan() && b.is_nan());
    let differing = ours
        .iter()
        .zip(theirs)
        .filter(|(a, b)| !same(**a, **b))
        .count();
    let worst = ours
        .iter()
        .zip(theirs)
        .enumerate()
        .filter(|(_, (a, b))| !same(**a, **b))
        .map(|(i, (a, b))| (i, (a - b).abs()))
        .fold(None, |w: Option<(usize, f64)>, x| match w {
            Some(w) if x.1 <= w.1 => Some(w),
            _ => Some(x),
        });
    worst.map(|(i, off)| {
        format!(
            "{name}[{i}]: {} vs MuJoCo {} (off by {off:.3e}; {differing} values differ, MuJoCo's \
             largest |value| {scale:.3e})",
            ours[i], theirs[i]
        )
    })
}

/// How many entries of MuJoCo's `actuator_moment` its moment rows use.
fn moment_used(fields: &serde_json::Value) -> usize {
    let adr = numbers(&fields["moment_rowadr"]);
    let nnz = numbers(&fields["moment_rownnz"]);
    adr.iter()
        .zip(&nnz)
        .map(|(a, n)| (a + n) as usize)
        .max()
        .unwrap_or(0)
}

/// flexlab's CSR constraint Jacobian as MuJoCo's dense nefc × nv matrix.
fn dense_jacobian(d: &flexlab::Data, nv: usize) -> Vec<f64> {
    let mut out = vec![0.0; d.nefc * nv];
    for r in 0..d.nefc {
        let adr = d.efc_J_rowadr[r] as usize;
        for k in adr..adr + d.efc_J_rownnz[r] as usize {
            out[r * nv + d.efc_J_colind[k] as usize] = d.efc_J[k];
        }
    }
    out
}

/// The differences of one case, one line per array that disagrees.
fn compare(case: &Case) -> Vec<String> {
    let path = common::repo().join(format!("crate/tests/data_fields/{}.json", case.name));
    let reference: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("reference")).unwrap();
    assert_eq!(reference["format"], "flexlab-data-fields/1");
    let m = flexlab::load_file(&case.model).expect("the model compiles");
    let mut d = flexlab::Data::new(&m);
    // ctrl and mocap poses come from keyframe 0, as in MuJoCo's run
    if m.nkey > 0 {
        d.reset_keyframe(&m, 0);
    }
    let state = &reference["state"];
    d.qpos.copy_from_slice(&numbers(&state["qpos"]));
    d.qvel.copy_from_slice(&numbers(&state["qvel"]));
    d.act.copy_from_slice(&numbers(&state["act"]));
    d.qacc_warmstart
        .copy_from_slice(&numbers(&state["qacc_warmstart"]));
    d.time = state["time"]
        .as_f64()
        .expect("state time: rerun data-fields.py");
    flexlab::engine::forward(&m, &mut d);
    assert_eq!(
        d.nefc as u64,
        reference["nefc"].as_u64().unwrap(),
        "{}: nefc",
        case.name
    );
    let sparse = reference["sparse"].as_bool().unwrap();
    assert_eq!(
        flexlab::engine::constraint::sparse_jacobian(&m),
        sparse,
        "{}: mj_isSparse",
        case.name
    );
    let mut out = Vec::new();
    for &name in flexlab::model::Model::ARRAY_NAMES {
        if case.skip.iter().any(|s| s == name) {
            continue;
        }
        let f = m.field(name).expect("a named array");
        match reference["model"].get(name) {
            None if NOT_IN_MJMODEL.contains(&name) => {}
            None => out.push(format!("{name}: not in MuJoCo's mjModel")),
            Some(_) if NOT_IN_MJMODEL.contains(&name) => {
                out.push(format!("{name}: MuJoCo's mjModel has it after all"))
            }
            Some(theirs) => out.extend(differ(name, &f.to_f64(), &numbers(theirs))),
        }
    }
    for &name in flexlab::data::DataArrays::NAMES {
        if case.skip.iter().any(|s| s == name) {
            continue;
        }
        let dense = !sparse && name.starts_with("efc_J");
        // a dense Jacobian leaves MuJoCo's CSR index arrays unset (stale arena memory)
        if dense && name != "efc_J" {
            continue;
        }
        let Some(theirs) = reference["fields"].get(name) else {
            out.push(format!("{name}: not in MuJoCo's mjData"));
            continue;
        };
        let f = d.field(name).expect("a named array");
        let mut ours = if dense {
            dense_jacobian(&d, m.nv)
        } else {
            f.to_f64()
        };
        let mut theirs = numbers(theirs);
        // the moment rows are compressed in place: past the last row MuJoCo's buffer holds
        // values of earlier steps, which a state loaded into a fresh mjData cannot recreate
        if name == "actuator_moment" || name == "moment_colind" {
            let used = moment_used(&reference["fields"]);
            if ours.len() == theirs.len() && used <= ours.len() {
                ours.truncate(used);
                theirs.truncate(used);
            }
        }
        out.extend(differ(name, &ours, &theirs));
    }
    out
}

#[test]
fn data_arrays_match_mujoco_from_its_state() {
    let cases = cases();
    assert!(cases.len() >= 5, "the manifest lists the cases");
    let mut failures = Vec::new();
    for case in &cases {
        for line in compare(case) {
            failures.push(format!("{}: {line}", case.name));
        }
    }
    assert!(
        failures.is_empty(),
        "mjData arrays that differ from MuJoCo 3.15.0's:\n{}",
        failures.join("\n")
    );
}

/// The lists of arrays not compared are not a blanket: each case's listed arrays do differ
/// (else the entry is no longer needed and hides a check).
#[test]
fn arrays_not_compared_are_needed() {
    for case in cases().iter().filter(|c| !c.skip.is_empty()) {
        let unlisted = Case {
            name: case.name.clone(),
            model: case.model.clone(),
            skip: Vec::new(),
        };
        let differing = compare(&unlisted);
        for s in &case.skip {
            assert!(
                differing
                    .iter()
                    .any(|l| l.starts_with(&format!("{s}[")) || l.starts_with(&format!("{s}:"))),
                "{}: '{s}' is listed as not compared but agrees with MuJoCo",
                case.name
            );
        }
    }
}
