//! flexlab's contact list against MuJoCo 3.15.0's from the very same state: each case of
//! scripts/oracle/contact-references.txt loads MuJoCo's qpos and qvel (committed, written by
//! scripts/oracle/contacts.py), runs `forward` and compares the lists entry by entry, in order,
//! bit for bit (ids, depth, position and normal).
//! Where a trace can only be compared until chaos parts MuJoCo from itself, this still checks
//! collision at any later state.

mod common;

/// Each contact as MuJoCo's list prints it: the ids, then dist, pos and normal.
struct Line {
    ids: Vec<i64>,
    values: Vec<f64>,
}

fn parse(text: &str) -> Vec<Line> {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let tokens: Vec<&str> = l.split_whitespace().collect();
            // "geom a b flex a b elem a b vert a b dist x pos x y z normal x y z"
            let num = |i: usize| tokens[i].parse::<f64>().unwrap();
            Line {
                ids: [1, 2, 4, 5, 7, 8, 10, 11]
                    .iter()
                    .map(|&i| tokens[i].parse().unwrap())
                    .collect(),
                values: [13, 15, 16, 17, 19, 20, 21]
                    .iter()
                    .map(|&i| num(i))
                    .collect(),
            }
        })
        .collect()
}

fn ours(model: &flexlab::Model, state: &str) -> Vec<Line> {
    let x: Vec<f64> = state.lines().map(|l| l.trim().parse().unwrap()).collect();
    assert_eq!(
        x.len(),
        model.nq + model.nv,
        "the state holds qpos and qvel"
    );
    let mut d = flexlab::Data::new(model);
    d.qpos.copy_from_slice(&x[..model.nq]);
    d.qvel.copy_from_slice(&x[model.nq..]);
    flexlab::engine::forward(model, &mut d);
    d.contact[..d.ncon]
        .iter()
        .map(|c| Line {
            ids: [c.geom, c.flex, c.elem, c.vert]
                .iter()
                .flat_map(|p| p.iter().map(|&i| i as i64))
                .collect(),
            values: [
                c.dist, c.pos[0], c.pos[1], c.pos[2], c.frame[0], c.frame[1], c.frame[2],
            ]
            .to_vec(),
        })
        .collect()
}

#[test]
fn contact_lists_match_mujoco_from_its_state() {
    let manifest =
        std::fs::read_to_string(common::repo().join("scripts/oracle/contact-references.txt"))
            .unwrap();
    let mut failures = Vec::new();
    let mut cases = 0;
    for line in manifest
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let f: Vec<&str> = line.split('|').map(str::trim).collect();
        let (name, model) = (f[0], f[1]);
        cases += 1;
        let m = flexlab::load_file(&common::repo().join(model))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let dir = common::repo().join("crate/tests/contacts");
        let read = |ext: &str| std::fs::read_to_string(dir.join(format!("{name}.{ext}"))).unwrap();
        let want = parse(&read("txt"));
        let got = ours(&m, &read("state"));
        if got.len() != want.len() {
            failures.push(format!(
                "{name}: {} contacts, MuJoCo {}",
                got.len(),
                want.len()
            ));
            continue;
        }
        // MuJoCo's list is printed with 17 significant digits (make-contact-references.sh's
        // DIGITS=16), which a parse gives back exactly: the lists must agree bit for bit
        let worst = got.iter().zip(&want).enumerate().find_map(|(k, (g, w))| {
            if g.ids != w.ids {
                return Some(format!("contact {k}: ids {:?}, MuJoCo {:?}", g.ids, w.ids));
            }
            g.values
                .iter()
                .zip(&w.values)
                .any(|(a, b)| a != b)
                .then(|| format!("contact {k}: {:?}, MuJoCo {:?}", g.values, w.values))
        });
        println!(
            "{name:<32} {} contacts{}",
            want.len(),
            if worst.is_some() { ", DIFFER" } else { "" }
        );
        if let Some(w) = worst {
            failures.push(format!("{name}: {w}"));
        }
    }
    assert!(cases > 0);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
