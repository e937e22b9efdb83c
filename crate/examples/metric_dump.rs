//! Prints a piece of the discrete integrator's effective metric after `forward` (from keyframe 0
//! if any, after `STEPS` steps when that is set in the environment), for comparison with MuJoCo
//! 3.15.0's (`scripts/oracle/metric-probe.py`, same arguments):
//! `metric_dump MODEL.xml WHAT [VECTOR_FILE]`, WHAT one of
//! - `efm_c`, `efm_L`, `flexvert_hessian`, `flexedge_hessian`, or any mjData array flexlab
//!   names (`qfrc_passive`, `qacc_smooth`, ...): the array of that name;
//! - `mul VECTOR_FILE`: `B·v` (`mjd_effMulAdd` on zeros), `prec VECTOR_FILE`: the
//!   preconditioner applied to `v` (`mjd_effPrec`), `mulM VECTOR_FILE`: `M·v`, with `v` read as
//!   whitespace-separated numbers, one per dof.
//!
//! With `ELASTIC3D=FLEX=V` in the environment, that flex's `elastic3d` is set first.
mod common;

fn main() {
    let a: Vec<String> = std::env::args().collect();
    if a.len() < 3 {
        return eprintln!("usage: metric_dump MODEL.xml WHAT [VECTOR_FILE]");
    }
    let m = match common::load(&a[1]) {
        Ok(m) => m,
        Err(e) => return eprintln!("{e}"),
    };
    let mut d = flexlab::Data::new(&m);
    if m.nkey > 0 {
        d.reset_keyframe(&m, 0);
    }
    let steps: usize = std::env::var("STEPS").map_or(0, |s| s.parse().unwrap());
    for _ in 0..steps {
        flexlab::engine::forward::step(&m, &mut d);
    }
    flexlab::engine::forward(&m, &mut d);
    let vector = || -> Vec<f64> {
        std::fs::read_to_string(&a[3])
            .expect("a vector file")
            .split_whitespace()
            .map(|x| x.parse().expect("a number"))
            .collect()
    };
    let ms = &d.scratch.metric;
    match a[2].as_str() {
        "efm_c" => println!("{:?}", ms.efm_c),
        "efm_L" => println!("{:?}", &ms.blocks[..9 * ms.nblock]),
        "flexvert_hessian" => println!("{:?}", d.scratch.elastic.vert_hessian),
        "flexedge_hessian" => println!("{:?}", d.scratch.elastic.edge_hessian),
        op @ ("mul" | "prec" | "mulM") => {
            let v = vector();
            let mut r = vec![0.0; m.nv];
            let mut s = std::mem::take(&mut *d.scratch);
            match op {
                "mul" => flexlab::engine::metric::mul_add(&m, &d, &mut s, &mut r, &v),
                "mulM" => flexlab::engine::inertia::mul_m(&m, &d.M, &v, &mut r),
                _ => flexlab::engine::metric::precondition(&m, &d, &s.metric, &mut r, &v),
            }
            println!("{r:?}");
        }
        other => match d.field(other) {
            Some(f) => println!("{:?}", f.to_f64()),
            None => eprintln!("unknown: {other}"),
        },
    }
}
