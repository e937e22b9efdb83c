//! Prints the contact list after `STEPS` steps, one line per contact in the format of
//! `scripts/oracle/contacts.py` (MuJoCo 3.15.0's list), so the two can be diffed:
//! `contact_dump MODEL.xml STEPS [STATE]`; with STATE (qpos then qvel, one number a line, as
//! `contacts.py MODEL.xml STEPS STATE` writes MuJoCo's), the state is loaded after the steps.
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
    if let Some(path) = a.get(3) {
        let text = std::fs::read_to_string(path).expect("state file");
        let x: Vec<f64> = text.lines().map(|l| l.trim().parse().unwrap()).collect();
        assert_eq!(x.len(), m.nq + m.nv, "state file holds qpos and qvel");
        d.a.qpos.copy_from_slice(&x[..m.nq]);
        d.a.qvel.copy_from_slice(&x[m.nq..]);
    }
    flexlab::engine::forward::forward(&m, &mut d);
    // DIGITS=17 in the environment (for both tools) prints every bit
    let p: usize = std::env::var("DIGITS").map_or(12, |s| s.parse().unwrap());
    for c in &d.contact[..d.ncon] {
        let f = |v: &[f64]| {
            v.iter()
                .map(|x| format!("{x:.p$e}"))
                .collect::<Vec<_>>()
                .join(" ")
        };
        println!(
            "geom {} {} flex {} {} elem {} {} vert {} {} dist {:.p$e} pos {} normal {}",
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
