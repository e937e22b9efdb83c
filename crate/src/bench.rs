//! Native stepping speed, measured the way `scripts/bench/mujoco_native.py` measures MuJoCo
//! 3.15.0: the same model, reset (keyframe 0 if any) and `mj_forward`, `warmup` untimed steps,
//! then `steps` timed steps; repeated `repeat` times from the same initial state, keeping the
//! fastest run (the one least disturbed by other work on the machine).
//!
//! ```text
//! flexlab bench MODEL.xml [--steps N] [--warmup W] [--repeat R]
//! {"model":"cloth30_sphere","steps":500,"seconds":…,"steps_per_second":…,"ncon":…,"nefc":…,…}
//! ```
//!
//! The JSON line's first six keys are fixed; the rest (`warmup`, `repeat`, `timestep`,
//! `realtime`, `niter`, `bad`, `engine`) say what was measured: `ncon`/`nefc` after the last
//! timed step and `niter`, the mean solver iterations per timed step, show that both engines did
//! the same work; `bad` counts MuJoCo's bad-state warnings (a diverged run measures nothing).

use crate::data::Warning;
use crate::trace::{json_str, num};
use crate::{Data, Model};
use std::time::Instant;

/// What to measure: steps excluded and timed, and how many runs to keep the best of.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    pub steps: usize,
    pub warmup: usize,
    pub repeat: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            steps: 500,
            warmup: 100,
            repeat: 1,
        }
    }
}

/// One measurement of one model.
#[derive(Clone, Debug)]
pub struct BenchResult {
    /// The model file's stem (`jelly` for `jelly.xml`).
    pub model: String,
    pub opts: Options,
    /// Wall seconds of the fastest timed run.
    pub seconds: f64,
    pub timestep: f64,
    /// Contacts and constraint rows after the last timed step.
    pub ncon: usize,
    pub nefc: usize,
    /// Mean solver iterations per timed step (of the fastest run).
    pub niter: f64,
    /// Bad qpos/qvel/qacc warnings raised over all runs.
    pub bad: i64,
}

impl BenchResult {
    pub fn steps_per_second(&self) -> f64 {
        if self.seconds > 0.0 {
            self.opts.steps as f64 / self.seconds
        } else {
            0.0
        }
    }

    /// Simulated seconds per wall second.
    pub fn realtime(&self) -> f64 {
        self.steps_per_second() * self.timestep
    }

    /// The one-line JSON the CLI prints.
    pub fn to_json(&self) -> String {
        let mut s = String::from("{\"model\":");
        json_str(&mut s, &self.model);
        s.push_str(&format!(",\"steps\":{},\"seconds\":", self.opts.steps));
        num(&mut s, self.seconds);
        s.push_str(",\"steps_per_second\":");
        num(&mut s, self.steps_per_second());
        s.push_str(&format!(
            ",\"ncon\":{},\"nefc\":{},\"warmup\":{},\"repeat\":{},\"timestep\":",
            self.ncon, self.nefc, self.opts.warmup, self.opts.repeat
        ));
        num(&mut s, self.timestep);
        s.push_str(",\"realtime\":");
        num(&mut s, self.realtime());
        s.push_str(",\"niter\":");
        num(&mut s, self.niter);
        s.push_str(&format!(
            ",\"bad\":{},\"engine\":\"flexlab {}\"}}",
            self.bad,
            env!("CARGO_PKG_VERSION")
        ));
        s
    }
}

fn initial_state(m: &Model, d: &mut Data) {
    d.reset(m);
    if m.nkey > 0 {
        d.reset_keyframe(m, 0);
    }
    crate::engine::forward(m, d);
}

fn bad_count(d: &Data) -> i64 {
    [Warning::BadQpos, Warning::BadQvel, Warning::BadQacc]
        .iter()
        .map(|&w| d.warning[w as usize].number as i64)
        .sum()
}

/// Measures `m` (named `name` in the result). One [`Data`] is allocated up front and reused by
/// every run, so only the step itself is timed.
pub fn run(m: &Model, name: &str, opts: &Options) -> BenchResult {
    let mut d = Data::new(m);
    let mut best: Option<BenchResult> = None;
    let mut bad = 0;
    for _ in 0..opts.repeat.max(1) {
        initial_state(m, &mut d);
        for _ in 0..opts.warmup {
            crate::engine::step(m, &mut d);
        }
        let mut niter = 0i64;
        let t0 = Instant::now();
        for _ in 0..opts.steps {
            crate::engine::step(m, &mut d);
            niter += d.solver_niter as i64;
        }
        let seconds = t0.elapsed().as_secs_f64();
        bad += bad_count(&d);
        let r = BenchResult {
            model: name.to_string(),
            opts: opts.clone(),
            seconds,
            timestep: m.opt.timestep,
            ncon: d.ncon,
            nefc: d.nefc,
            niter: niter as f64 / opts.steps.max(1) as f64,
            bad: 0,
        };
        if best.as_ref().is_none_or(|b| r.seconds < b.seconds) {
            best = Some(r);
        }
    }
    let mut best = best.expect("at least one run");
    best.bad = bad;
    best
}

/// Parses `MODEL.xml [--steps N] [--warmup W] [--repeat R]`.
pub fn parse_args(rest: &[String]) -> Result<(String, Options), String> {
    let mut model = String::new();
    let mut o = Options::default();
    let mut it = rest.iter();
    while let Some(s) = it.next() {
        let mut int = |what: &str| -> Result<usize, String> {
            it.next()
                .ok_or_else(|| format!("{what} needs a value"))?
                .parse()
                .map_err(|_| format!("{what} needs a non-negative integer"))
        };
        match s.as_str() {
            "--steps" => o.steps = int("--steps")?,
            "--warmup" => o.warmup = int("--warmup")?,
            "--repeat" => o.repeat = int("--repeat")?,
            _ if s.starts_with("--") => return Err(format!("unknown option {s}")),
            _ if model.is_empty() => model = s.clone(),
            _ => return Err(format!("unexpected argument {s}")),
        }
    }
    if model.is_empty() {
        return Err("missing MODEL.xml".into());
    }
    if o.steps == 0 || o.repeat == 0 {
        return Err("--steps and --repeat must be positive".into());
    }
    Ok((model, o))
}

/// `flexlab bench …`: the JSON line, or a message (usage errors and compile errors alike).
pub fn cli(rest: &[String]) -> Result<String, String> {
    let (path, opts) = parse_args(rest)?;
    let p = std::path::Path::new(&path);
    let m = crate::load_file(p).map_err(|e| e.to_string())?;
    let name = p
        .file_stem()
        .map(|s| s.to_string_lossy().to_string())
        .unwrap_or_default();
    Ok(run(&m, &name, &opts).to_json())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn parses_options() {
        let (m, o) = parse_args(&args("m.xml --steps 7 --warmup 3 --repeat 2")).unwrap();
        assert_eq!(m, "m.xml");
        assert_eq!(
            o,
            Options {
                steps: 7,
                warmup: 3,
                repeat: 2
            }
        );
        assert_eq!(parse_args(&args("m.xml")).unwrap().1, Options::default());
        assert!(parse_args(&args("--steps 3")).is_err());
        assert!(parse_args(&args("m.xml --steps")).is_err());
        assert!(parse_args(&args("m.xml --steps 0")).is_err());
        assert!(parse_args(&args("m.xml --fast")).is_err());
        assert!(parse_args(&args("a.xml b.xml")).is_err());
    }

    #[test]
    fn measures_the_requested_steps() {
        let xml = r#"<mujoco model="b"><worldbody><geom type="plane" size="1 1 .1"/>
            <body pos="0 0 .05"><freejoint/><geom type="sphere" size=".1"/></body>
            </worldbody></mujoco>"#;
        let m = crate::load_xml(xml, None, &crate::mjcf::MemSource::default()).unwrap();
        let opts = Options {
            steps: 5,
            warmup: 2,
            repeat: 2,
        };
        let r = run(&m, "b", &opts);
        assert_eq!(r.opts.steps, 5);
        assert_eq!(r.bad, 0);
        assert!(r.ncon >= 1, "the resting sphere touches the plane");
        let j: serde_json::Value = serde_json::from_str(&r.to_json()).unwrap();
        let keys: Vec<&str> = j.as_object().unwrap().keys().map(|k| k.as_str()).collect();
        for k in [
            "model",
            "steps",
            "seconds",
            "steps_per_second",
            "ncon",
            "nefc",
        ] {
            assert!(keys.contains(&k), "{k} in {keys:?}");
        }
        assert_eq!(j["model"], "b");
        assert_eq!(j["steps"], 5);
    }
}
