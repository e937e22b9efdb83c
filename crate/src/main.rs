//! `flexlab`: the native command line through which the engine is judged against MuJoCo.
//!
//! ```text
//! flexlab compile MODEL.xml [--elastic3d FLEX=V]
//! flexlab trace MODEL.xml --steps N --every K [--elastic3d FLEX=V]
//! flexlab lessons check DIR [--verbose]
//! flexlab lessons bundle DIR
//! flexlab bench MODEL.xml [--steps N] [--warmup W] [--repeat R]
//! ```

use flexlab::trace::json_str;
use std::io::Write as _;
use std::process::ExitCode;

const USAGE: &str = "usage:
  flexlab compile MODEL.xml [--elastic3d FLEX=V]
  flexlab trace MODEL.xml --steps N --every K [--elastic3d FLEX=V]
  flexlab lessons check DIR [--verbose]
  flexlab lessons bundle DIR
  flexlab bench MODEL.xml [--steps N] [--warmup W] [--repeat R]";

struct Args {
    model: String,
    steps: usize,
    every: usize,
    elastic3d: Vec<(String, i32)>,
}

fn parse_args(rest: &[String]) -> Result<Args, String> {
    let mut a = Args {
        model: String::new(),
        steps: 500,
        every: 10,
        elastic3d: Vec::new(),
    };
    let mut i = 0;
    while i < rest.len() {
        let s = &rest[i];
        let mut value = || -> Result<String, String> {
            i += 1;
            rest.get(i)
                .cloned()
                .ok_or_else(|| format!("{s} needs a value"))
        };
        match s.as_str() {
            "--steps" => {
                a.steps = value()?
                    .parse()
                    .map_err(|_| "--steps needs an integer".to_string())?
            }
            "--every" => {
                a.every = value()?
                    .parse()
                    .map_err(|_| "--every needs an integer".to_string())?
            }
            "--elastic3d" => {
                let v = value()?;
                let (name, val) = v.split_once('=').ok_or("--elastic3d needs FLEX=VALUE")?;
                let val: i32 = val
                    .parse()
                    .map_err(|_| "--elastic3d value must be an integer".to_string())?;
                a.elastic3d.push((name.to_string(), val));
            }
            _ if s.starts_with("--") => return Err(format!("unknown option {s}")),
            _ => {
                if !a.model.is_empty() {
                    return Err(format!("unexpected argument {s}"));
                }
                a.model = s.clone();
            }
        }
        i += 1;
    }
    if a.model.is_empty() {
        return Err("missing MODEL.xml".into());
    }
    if a.every == 0 {
        return Err("--every must be positive".into());
    }
    Ok(a)
}

/// Compiles the model and prints its compile warnings on stderr, as MuJoCo prints its own
/// (stdout keeps the command's JSON).
fn load(a: &Args) -> flexlab::Result<flexlab::Model> {
    let mut spec = flexlab::mjcf::parse_file(std::path::Path::new(&a.model))?;
    for (name, v) in &a.elastic3d {
        spec.set_elastic3d(name, *v)?;
    }
    let m = flexlab::compile::compile(&spec)?;
    for w in flexlab::compile::warnings::warnings(&spec, &m) {
        eprintln!("{w}\n");
    }
    Ok(m)
}

/// `flexlab lessons check DIR`: one `file:line: message` per error and exit 1, or the summary
/// line and exit 0; checks waiting for an engine feature print `pending: …` without failing.
///
/// `flexlab lessons bundle DIR`: every lesson below DIR compiled for the page, as one JSON
/// object `{"<lesson folder name>": <compiled lesson>}` on stdout. A lesson's errors travel
/// in it (the page shows them) and are also listed on stderr; only an unreadable DIR fails.
fn lessons(rest: &[String]) -> ExitCode {
    let verbose = rest.iter().any(|a| a == "--verbose");
    let rest: Vec<&String> = rest.iter().filter(|a| *a != "--verbose").collect();
    let [sub, dir] = rest[..] else {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    };
    if sub == "bundle" {
        return match flexlab::lessons::wire::bundle_dir(std::path::Path::new(dir)) {
            Ok((json, diags)) => {
                for d in diags {
                    eprintln!("{d}");
                }
                // a closed pipe (`| head`) ends the output; it is not a failure of the bundle
                let _ = writeln!(std::io::stdout().lock(), "{json}");
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("flexlab: {e}");
                ExitCode::from(1)
            }
        };
    }
    if sub != "check" {
        eprintln!("flexlab: unknown lessons command '{sub}'\n{USAGE}");
        return ExitCode::from(2);
    }
    let (lines, ok) = flexlab::lessons::check::check_dir(std::path::Path::new(dir), verbose);
    for l in lines {
        println!("{l}");
    }
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

fn main() -> ExitCode {
    let argv: Vec<String> = std::env::args().collect();
    if argv.len() < 2 {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    }
    let cmd = argv[1].as_str();
    if cmd == "lessons" {
        return lessons(&argv[2..]);
    }
    if cmd == "bench" {
        return match flexlab::bench::cli(&argv[2..]) {
            Ok(line) => {
                println!("{line}");
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("flexlab: {e}\n{USAGE}");
                ExitCode::from(1)
            }
        };
    }
    let args = match parse_args(&argv[2..]) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("flexlab: {e}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match cmd {
        "compile" => match load(&args) {
            Ok(m) => {
                let sizes: Vec<String> = m
                    .sizes()
                    .iter()
                    .map(|(k, v)| format!("\"{k}\":{v}"))
                    .collect();
                println!("{{\"ok\":true,\"sizes\":{{{}}}}}", sizes.join(","));
                ExitCode::SUCCESS
            }
            Err(e) => {
                let mut s = String::new();
                json_str(&mut s, &e.to_string());
                println!("{{\"ok\":false,\"error\":{s}}}");
                ExitCode::from(1)
            }
        },
        "trace" => match load(&args).and_then(|m| {
            flexlab::compile::support::check_supported(&m)?;
            Ok(m)
        }) {
            Ok(m) => {
                let xml = std::fs::read_to_string(&args.model).unwrap_or_default();
                let stem = std::path::Path::new(&args.model)
                    .file_stem()
                    .map(|s| s.to_string_lossy().to_string())
                    .unwrap_or_default();
                let name = flexlab::trace::model_name(&xml, &stem);
                print!(
                    "{}",
                    flexlab::trace::trace(&m, &name, args.steps, args.every)
                );
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("{e}");
                ExitCode::from(1)
            }
        },
        _ => {
            eprintln!("flexlab: unknown command '{cmd}'\n{USAGE}");
            ExitCode::from(2)
        }
    }
}
