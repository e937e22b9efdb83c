//! Prints one data field by its MuJoCo name after `forward` from keyframe 0 (if any) and
//! `STEPS` steps: `data_dump MODEL.xml NAME [STEPS] [FROM] [COUNT]`. With `STATE=FILE` in the
//! environment (qpos then qvel, one number a line, as `scripts/oracle/contacts.py` writes
//! MuJoCo's; a third block, if there, is `qacc_warmstart`, and a fourth `act`), that state is
//! loaded after the
//! steps, so both engines start from the same bits;
//! `AFTER=N` then steps N more times from it. `NOFWD=1` skips the final `forward`.
fn main() {
    let a: Vec<String> = std::env::args().collect();
    let m = match flexlab::load_file(std::path::Path::new(&a[1])) {
        Ok(m) => m,
        Err(e) => return eprintln!("{e}"),
    };
    let mut d = flexlab::Data::new(&m);
    if m.nkey > 0 {
        d.reset_keyframe(&m, 0);
    }
    let steps: usize = a.get(3).map_or(0, |s| s.parse().unwrap());
    for _ in 0..steps {
        flexlab::engine::forward::step(&m, &mut d);
    }
    if let Ok(path) = std::env::var("STATE") {
        let text = std::fs::read_to_string(path).expect("state file");
        let x: Vec<f64> = text.lines().map(|l| l.trim().parse().unwrap()).collect();
        // qpos, qvel and, optionally, qacc_warmstart (the solver's start in the next step)
        // and act (actuator activations)
        let warm = m.nq + 2 * m.nv;
        assert!(
            x.len() == m.nq + m.nv || x.len() == warm || x.len() == warm + m.na,
            "state file holds qpos, qvel [and qacc_warmstart [and act]]"
        );
        d.a.qpos.copy_from_slice(&x[..m.nq]);
        d.a.qvel.copy_from_slice(&x[m.nq..m.nq + m.nv]);
        if x.len() >= warm {
            d.a.qacc_warmstart.copy_from_slice(&x[m.nq + m.nv..warm]);
        }
        if x.len() == warm + m.na {
            d.a.act.copy_from_slice(&x[warm..]);
        }
        // AFTER=N: N more steps from that state (a fresh warm start, as a new MjData has)
        let after: usize = std::env::var("AFTER").map_or(0, |s| s.parse().unwrap());
        for _ in 0..after {
            flexlab::engine::forward::step(&m, &mut d);
        }
    }
    // NOFWD=1: the fields as the last step left them (qLU, qDeriv: step-only products)
    if std::env::var("NOFWD").is_err() {
        flexlab::engine::forward::forward(&m, &mut d);
    }
    if a[2] == "efc_AR" {
        // the dual solvers' matrix, built from this state as PGS builds it (with M's factor)
        let mut dm = flexlab::engine::dualmat::DualMatrix::default();
        dm.build(&m, &d, &d.a.qLD);
        return println!("{:?}", dm.efc_ar());
    }
    let Some(f) = d.field(&a[2]) else {
        return eprintln!("no field {}", a[2]);
    };
    let from: usize = a.get(4).map_or(0, |s| s.parse().unwrap());
    let n: usize = a.get(5).map_or(f.len(), |s| s.parse().unwrap());
    let v: Vec<f64> = (from..(from + n).min(f.len())).map(|i| f.get(i)).collect();
    println!("{v:?}");
}
