//! Shared helpers of the reference tests: repository paths, the reference manifest and a trace
//! comparison with the semantics of `../shared/oracle/compare.py`.
#![allow(dead_code)]

use std::path::PathBuf;

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// The fuzz tests' xorshift generator: a fixed seed gives the same cases on every machine.
pub struct Rng(pub u64);
impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    /// Uniform-ish in `0..n` (`n` at least 1).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    pub fn pick<'a, T>(&mut self, v: &'a [T]) -> &'a T {
        &v[self.below(v.len())]
    }
}

/// `../shared` next to the repository (CI has it there); overridable with FLEXLAB_SHARED.
pub fn shared() -> PathBuf {
    std::env::var("FLEXLAB_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|_| repo().parent().unwrap().join("shared"))
}

pub struct RefCase {
    pub name: String,
    pub model: PathBuf,
    pub steps: usize,
    pub every: usize,
    pub pos_tol: f64,
    pub vel_tol: f64,
    pub force_tol: f64,
    pub elastic3d: Vec<(String, i32)>,
    /// `Some(T)`: compare per-frame vertex statistics within T metres instead of every frame.
    pub stat: Option<f64>,
}

/// The cases of `scripts/oracle/references.txt`.
pub fn manifest() -> Vec<RefCase> {
    let text =
        std::fs::read_to_string(repo().join("scripts/oracle/references.txt")).expect("manifest");
    let mut out = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let f: Vec<&str> = line.split('|').map(|s| s.trim()).collect();
        let model = f[1].replace("$ORACLE", &shared().join("oracle").to_string_lossy());
        let mut elastic3d = Vec::new();
        let extra: Vec<&str> = f
            .get(7)
            .map(|s| s.split_whitespace().collect())
            .unwrap_or_default();
        let mut i = 0;
        while i < extra.len() {
            if extra[i] == "--elastic3d" {
                let (n, v) = extra[i + 1].split_once('=').unwrap();
                elastic3d.push((n.to_string(), v.parse().unwrap()));
                i += 1;
            }
            i += 1;
        }
        let model = PathBuf::from(model);
        let model = if model.is_absolute() {
            model
        } else {
            repo().join(model)
        };
        let stat = f
            .get(8)
            .and_then(|c| c.strip_prefix("stat:"))
            .map(|t| t.trim().parse().expect("stat tolerance"));
        out.push(RefCase {
            name: f[0].to_string(),
            model,
            steps: f[2].parse().unwrap(),
            every: f[3].parse().unwrap(),
            pos_tol: f[4].parse().unwrap(),
            vel_tol: f[5].parse().unwrap(),
            force_tol: f[6].parse().unwrap(),
            elastic3d,
            stat,
        });
    }
    out
}

pub fn load_case(c: &RefCase) -> flexlab::Model {
    let mut spec =
        flexlab::mjcf::parse_file(&c.model).unwrap_or_else(|e| panic!("{}: {e}", c.name));
    for (n, v) in &c.elastic3d {
        spec.set_elastic3d(n, *v).unwrap();
    }
    flexlab::compile::compile(&spec).unwrap_or_else(|e| panic!("{}: {e}", c.name))
}

/// Result of comparing two traces, as compare.py reports it.
#[derive(Debug)]
pub struct Agreement {
    pub horizon: f64,
    pub t_end: f64,
    pub worst_pos: f64,
    pub worst_vel: f64,
    pub worst_force: f64,
    pub first_bad: Option<String>,
    pub sizes_ok: bool,
    /// qfrc_passive error of the first frame, relative to its largest entry.
    pub first_force: f64,
}

impl Agreement {
    pub fn complete(&self) -> bool {
        self.sizes_ok && self.first_bad.is_none()
    }
}

fn arr(v: &serde_json::Value, k: &str) -> Vec<f64> {
    v[k].as_array()
        .map(|a| a.iter().map(|x| x.as_f64().unwrap_or(f64::NAN)).collect())
        .unwrap_or_default()
}

fn worst(a: &[f64], b: &[f64]) -> f64 {
    if a.len() != b.len() {
        return f64::INFINITY;
    }
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, |m, d| {
            if d.is_finite() {
                m.max(d)
            } else {
                f64::INFINITY
            }
        })
}

pub fn compare(
    reference: &serde_json::Value,
    candidate: &serde_json::Value,
    pos_tol: f64,
    vel_tol: f64,
    force_tol: f64,
    force_floor: f64,
) -> Agreement {
    let mut sizes_ok = true;
    for (k, v) in reference["sizes"].as_object().unwrap() {
        if candidate["sizes"][k] != *v {
            sizes_ok = false;
        }
    }
    let rf = reference["frames"].as_array().unwrap();
    let cf = candidate["frames"].as_array().unwrap();
    let t_end = rf.last().unwrap()["time"].as_f64().unwrap();
    let mut ag = Agreement {
        horizon: 0.0,
        t_end,
        worst_pos: 0.0,
        worst_vel: 0.0,
        worst_force: 0.0,
        first_bad: None,
        sizes_ok,
        first_force: f64::INFINITY,
    };
    for f in rf {
        let step = f["step"].as_u64().unwrap();
        let Some(c) = cf.iter().find(|c| c["step"].as_u64() == Some(step)) else {
            ag.first_bad
                .get_or_insert(format!("frame at step {step} missing"));
            break;
        };
        let ep = worst(&arr(f, "qpos"), &arr(c, "qpos"))
            .max(worst(&arr(f, "flexvert_xpos"), &arr(c, "flexvert_xpos")));
        let ev = worst(&arr(f, "qvel"), &arr(c, "qvel"));
        let rp = arr(f, "qfrc_passive");
        // forces far below the model's weight are roundoff (a free-falling flex) and not compared
        let scale = rp.iter().fold(force_floor, |m, x| m.max(x.abs()));
        let ef = worst(&rp, &arr(c, "qfrc_passive")) / scale;
        if step == rf[0]["step"].as_u64().unwrap() {
            ag.first_force = ef;
        }
        ag.worst_pos = ag.worst_pos.max(ep);
        ag.worst_vel = ag.worst_vel.max(ev);
        ag.worst_force = ag.worst_force.max(ef);
        if ep <= pos_tol && ev <= vel_tol && ef <= force_tol && ag.first_bad.is_none() {
            ag.horizon = f["time"].as_f64().unwrap();
        } else if ag.first_bad.is_none() {
            ag.first_bad = Some(format!(
                "step {step} t={:.4}: pos {ep:.3e} vel {ev:.3e} qfrc_passive {ef:.3e}",
                f["time"].as_f64().unwrap()
            ));
        }
    }
    ag
}

/// Worst per-frame difference of the mean vertex position and the lowest vertex height.
pub fn stat_difference(reference: &serde_json::Value, candidate: &serde_json::Value) -> f64 {
    let rf = reference["frames"].as_array().unwrap();
    let cf = candidate["frames"].as_array().unwrap();
    let mut worst: f64 = 0.0;
    for f in rf {
        let step = f["step"].as_u64();
        let Some(c) = cf.iter().find(|c| c["step"].as_u64() == step) else {
            return f64::INFINITY;
        };
        let (a, b) = (arr(f, "flexvert_xpos"), arr(c, "flexvert_xpos"));
        if a.len() != b.len() || a.is_empty() {
            return f64::INFINITY;
        }
        let n = (a.len() / 3) as f64;
        for k in 0..3 {
            let ma: f64 = a.iter().skip(k).step_by(3).sum::<f64>() / n;
            let mb: f64 = b.iter().skip(k).step_by(3).sum::<f64>() / n;
            worst = worst.max((ma - mb).abs());
        }
        let za = a
            .iter()
            .skip(2)
            .step_by(3)
            .fold(f64::INFINITY, |m, &z| m.min(z));
        let zb = b
            .iter()
            .skip(2)
            .step_by(3)
            .fold(f64::INFINITY, |m, &z| m.min(z));
        worst = worst.max((za - zb).abs());
        if !worst.is_finite() {
            return f64::INFINITY;
        }
    }
    worst
}
