//! Prints one compiled model field by its MuJoCo name: `field_dump MODEL.xml NAME [FROM] [COUNT]`.
//! With `ELASTIC3D=FLEX=V` in the environment, that flex's `elastic3d` is set first (as
//! `flexlab compile --elastic3d` and `../shared/oracle/trace.py --elastic3d` do).
mod common;

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let m = match common::load(&a[1]) {
        Ok(m) => m,
        Err(e) => return eprintln!("{e}"),
    };
    let Some(f) = m.field(&a[2]) else {
        return eprintln!("no field {}", a[2]);
    };
    let from: usize = a.get(3).map_or(0, |s| s.parse().unwrap());
    let n: usize = a.get(4).map_or(f.len(), |s| s.parse().unwrap());
    let v: Vec<f64> = (from..(from + n).min(f.len())).map(|i| f.get(i)).collect();
    println!("{v:?}");
}
