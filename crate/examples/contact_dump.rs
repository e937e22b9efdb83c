//! Prints the contact list after `STEPS` steps, one line per contact in the format of
//! `scripts/oracle/contacts.py` (MuJoCo 3.15.0's list), so the two can be diffed:
//! `contact_dump MODEL.xml STEPS`.
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
    let steps: usize = a.get(2).map_or(0, |s| s.parse().unwrap());
    for _ in 0..steps {
        flexlab::engine::forward::step(&m, &mut d);
    }
    flexlab::engine::forward::forward(&m, &mut d);
    for c in &d.contact[..d.ncon] {
        let f = |v: &[f64]| {
            v.iter()
                .map(|x| format!("{x:.12e}"))
                .collect::<Vec<_>>()
                .join(" ")
        };
        println!(
            "geom {} {} flex {} {} elem {} {} vert {} {} dist {:.12e} pos {} normal {}",
            c.geom[0],
            c.geom[1],
            c.flex[0],
            c.flex[1],
            c.elem[0],
            c.elem[1],
            c.vert[0],
            c.vert[1],
            c.dist,
            f(&c.pos),
            f(&c.frame[..3])
        );
    }
}
