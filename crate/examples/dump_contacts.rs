//! Developer tool: steps a model and prints its contact list as JSON lines, for comparing
//! contact detection with MuJoCo's (`cargo run --release --example dump_contacts M.xml N`).

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        eprintln!("usage: dump_contacts MODEL.xml STEPS");
        std::process::exit(2);
    }
    let m = match flexlab::load_file(std::path::Path::new(&args[1])) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    };
    let steps: usize = args[2].parse().unwrap_or(0);
    let mut d = flexlab::Data::new(&m);
    if m.nkey > 0 {
        d.reset_keyframe(&m, 0);
    }
    for i in 0..steps {
        flexlab::engine::step(&m, &mut d);
        if std::env::var("NITER").is_ok() {
            eprintln!(
                "step {i} ncon {} nefc {} niter {}",
                d.ncon, d.nefc, d.solver_niter
            );
        }
    }
    flexlab::engine::forward(&m, &mut d);
    if std::env::var("EFC").is_ok() {
        for r in 0..d.nefc {
            let adr = d.a.efc_J_rowadr[r] as usize;
            let n = d.a.efc_J_rownnz[r] as usize;
            let cols: Vec<String> = (adr..adr + n)
                .map(|k| format!("{}:{:.6}", d.a.efc_J_colind[k], d.a.efc_J[k]))
                .collect();
            eprintln!(
                "efc {r} type {} id {} pos {:.6e} R {:.6e} aref {:.6e} force {:.6e} J {}",
                d.a.efc_type[r],
                d.a.efc_id[r],
                d.a.efc_pos[r],
                d.a.efc_R[r],
                d.a.efc_aref[r],
                d.a.efc_force[r],
                cols.join(" ")
            );
        }
    }
    for c in &d.contact[..d.ncon] {
        println!(
            "{{\"dist\":{:.9},\"pos\":[{:.6},{:.6},{:.6}],\"n\":[{:.6},{:.6},{:.6}],\"geom\":{:?},\"flex\":{:?},\"elem\":{:?},\"vert\":{:?},\"exclude\":{}}}",
            c.dist, c.pos[0], c.pos[1], c.pos[2], c.frame[0], c.frame[1], c.frame[2],
            c.geom, c.flex, c.elem, c.vert, c.exclude
        );
    }
}
