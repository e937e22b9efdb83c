//! Prints one data field by its MuJoCo name after `forward` from keyframe 0 (if any) and
//! `STEPS` steps: `data_dump MODEL.xml NAME [STEPS] [FROM] [COUNT]`.
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
    flexlab::engine::forward::forward(&m, &mut d);
    let Some(f) = d.field(&a[2]) else {
        return eprintln!("no field {}", a[2]);
    };
    let from: usize = a.get(4).map_or(0, |s| s.parse().unwrap());
    let n: usize = a.get(5).map_or(f.len(), |s| s.parse().unwrap());
    let v: Vec<f64> = (from..(from + n).min(f.len())).map(|i| f.get(i)).collect();
    println!("{v:?}");
}
