//! The quantity expressions of measured checks, read over [`Model`] and [`Data`] fields by
//! MuJoCo's names:
//!
//! ```text
//! flexvert_xpos[79].z   qpos[3]   flex_bending[2][0]   nv   ncon   nefc   time
//! min(flexvert_xpos.z)  max(…)  mean(…)  sum(…)  maxabs(qfrc_passive)
//! initial(q)            value of q at time 0 (after the first forward)
//! peak(q)               largest value of q over the run (sampled after every step)
//! abs(q)  sqrt(q)       q1 + q2 - q3 * q4 / q5, unary minus, parentheses, numbers
//! compiles              1 if the run's scene compiled, else 0
//! diverged              1 if the engine hit a bad state (NaN/Inf/huge) during the run
//! error                 the compiler's message (text; for `contains '…'` outcomes)
//! ```

use crate::data::Warning;
use crate::{Data, Model};

/// A parsed quantity expression.
#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    Num(f64),
    /// A field element, or a scalar size/state when `index` is `None` and the name is one.
    Ref(Ref),
    Agg(Agg, Column),
    /// `initial(q)`; the number is its slot among the expression's time-0 samples.
    Initial(usize, Box<Expr>),
    /// `peak(q)`; the number is its slot among the per-step maxima.
    Peak(usize, Box<Expr>),
    Abs(Box<Expr>),
    Sqrt(Box<Expr>),
    Neg(Box<Expr>),
    Bin(char, Box<Expr>, Box<Expr>),
    Compiles,
    Diverged,
    Error,
}

/// `name[row].comp` or `name[row][col]`.
#[derive(Debug, Clone, PartialEq)]
pub struct Ref {
    pub name: String,
    pub row: Option<usize>,
    pub col: Option<usize>,
}

/// A column of a field over all its rows: `name.comp` or `name`.
#[derive(Debug, Clone, PartialEq)]
pub struct Column {
    pub name: String,
    pub col: Option<usize>,
}

/// Reductions over a column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Agg {
    Min,
    Max,
    Mean,
    Sum,
    MaxAbs,
}

/// A quantity's value.
#[derive(Debug, Clone, PartialEq)]
pub enum Val {
    Num(f64),
    Text(String),
}

/// Data scalars readable by name.
const STATE_SCALARS: &[&str] = &["time", "ncon", "nefc"];

fn known_field(name: &str) -> bool {
    Model::ARRAY_NAMES.contains(&name) || crate::data::DataArrays::NAMES.contains(&name)
}

fn known_scalar(name: &str) -> bool {
    STATE_SCALARS.contains(&name) || Model::default().size(name).is_some()
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
    ninitial: usize,
    npeak: usize,
}

type PResult<T> = Result<T, String>;

impl Parser<'_> {
    fn ws(&mut self) {
        while self.i < self.s.len() && self.s[self.i].is_ascii_whitespace() {
            self.i += 1;
        }
    }
    fn peek(&mut self) -> Option<u8> {
        self.ws();
        self.s.get(self.i).copied()
    }
    fn eat(&mut self, c: u8) -> bool {
        if self.peek() == Some(c) {
            self.i += 1;
            true
        } else {
            false
        }
    }
    fn expect(&mut self, c: u8) -> PResult<()> {
        if self.eat(c) {
            Ok(())
        } else {
            Err(format!("expected '{}' at column {}", c as char, self.i + 1))
        }
    }
    fn ident(&mut self) -> Option<String> {
        self.ws();
        let st = self.i;
        while self.i < self.s.len()
            && (self.s[self.i].is_ascii_alphanumeric() || self.s[self.i] == b'_')
        {
            self.i += 1;
        }
        if self.i > st && !self.s[st].is_ascii_digit() {
            Some(String::from_utf8_lossy(&self.s[st..self.i]).to_string())
        } else {
            self.i = st;
            None
        }
    }
    fn uint(&mut self) -> PResult<usize> {
        self.ws();
        let st = self.i;
        while self.i < self.s.len() && self.s[self.i].is_ascii_digit() {
            self.i += 1;
        }
        std::str::from_utf8(&self.s[st..self.i])
            .ok()
            .and_then(|t| t.parse().ok())
            .ok_or_else(|| format!("expected an index at column {}", st + 1))
    }
    fn number(&mut self) -> PResult<f64> {
        self.ws();
        let st = self.i;
        while self.i < self.s.len() {
            let c = self.s[self.i];
            let exp_sign = (c == b'-' || c == b'+')
                && self.i > st
                && matches!(self.s[self.i - 1], b'e' | b'E');
            if c.is_ascii_digit() || c == b'.' || c == b'e' || c == b'E' || exp_sign {
                self.i += 1;
            } else {
                break;
            }
        }
        std::str::from_utf8(&self.s[st..self.i])
            .ok()
            .and_then(crate::decimal::parse_f64)
            .ok_or_else(|| format!("bad number at column {}", st + 1))
    }
    fn comp(&mut self) -> PResult<Option<usize>> {
        if self.eat(b'.') {
            let c = self.ident().ok_or("expected x, y, z or w after '.'")?;
            return match c.as_str() {
                "x" => Ok(Some(0)),
                "y" => Ok(Some(1)),
                "z" => Ok(Some(2)),
                "w" => Ok(Some(3)),
                _ => Err(format!("unknown component '.{c}' (x, y, z, w or [i])")),
            };
        }
        if self.eat(b'[') {
            let c = self.uint()?;
            self.expect(b']')?;
            return Ok(Some(c));
        }
        Ok(None)
    }
    fn expr(&mut self) -> PResult<Expr> {
        let mut a = self.term()?;
        loop {
            let op = match self.peek() {
                Some(c @ (b'+' | b'-')) => c,
                _ => return Ok(a),
            };
            self.i += 1;
            let b = self.term()?;
            a = Expr::Bin(op as char, Box::new(a), Box::new(b));
        }
    }
    fn term(&mut self) -> PResult<Expr> {
        let mut a = self.unary()?;
        loop {
            let op = match self.peek() {
                Some(c @ (b'*' | b'/')) => c,
                _ => return Ok(a),
            };
            self.i += 1;
            let b = self.unary()?;
            a = Expr::Bin(op as char, Box::new(a), Box::new(b));
        }
    }
    fn unary(&mut self) -> PResult<Expr> {
        if self.eat(b'-') {
            return Ok(Expr::Neg(Box::new(self.unary()?)));
        }
        self.atom()
    }
    fn atom(&mut self) -> PResult<Expr> {
        match self.peek() {
            None => return Err("unexpected end of expression".into()),
            Some(b'(') => {
                self.i += 1;
                let e = self.expr()?;
                self.expect(b')')?;
                return Ok(e);
            }
            Some(c) if c.is_ascii_digit() || c == b'.' => return Ok(Expr::Num(self.number()?)),
            _ => {}
        }
        let at = self.i + 1;
        let name = self
            .ident()
            .ok_or_else(|| format!("unexpected '{}' at column {at}", self.s[self.i] as char))?;
        let agg = match name.as_str() {
            "min" => Some(Agg::Min),
            "max" => Some(Agg::Max),
            "mean" => Some(Agg::Mean),
            "sum" => Some(Agg::Sum),
            "maxabs" => Some(Agg::MaxAbs),
            _ => None,
        };
        if let Some(agg) = agg {
            self.expect(b'(')?;
            let f = self.ident().ok_or("expected a field name")?;
            if !known_field(&f) {
                return Err(format!("unknown field '{f}'"));
            }
            let col = self.comp()?;
            self.expect(b')')?;
            return Ok(Expr::Agg(agg, Column { name: f, col }));
        }
        match name.as_str() {
            "initial" | "peak" | "abs" | "sqrt" => {
                self.expect(b'(')?;
                let e = Box::new(self.expr()?);
                self.expect(b')')?;
                return Ok(match name.as_str() {
                    "initial" => {
                        self.ninitial += 1;
                        Expr::Initial(self.ninitial - 1, e)
                    }
                    "peak" => {
                        self.npeak += 1;
                        Expr::Peak(self.npeak - 1, e)
                    }
                    "abs" => Expr::Abs(e),
                    _ => Expr::Sqrt(e),
                });
            }
            "compiles" => return Ok(Expr::Compiles),
            "diverged" => return Ok(Expr::Diverged),
            "error" => return Ok(Expr::Error),
            _ => {}
        }
        if known_field(&name) {
            let mut row = None;
            if self.eat(b'[') {
                row = Some(self.uint()?);
                self.expect(b']')?;
            }
            let col = if row.is_some() { self.comp()? } else { None };
            if row.is_none() {
                return Err(format!(
                    "'{name}' is an array: index it (e.g. {name}[0]) or reduce it (e.g. max({name}))"
                ));
            }
            return Ok(Expr::Ref(Ref { name, row, col }));
        }
        if known_scalar(&name) {
            return Ok(Expr::Ref(Ref {
                name,
                row: None,
                col: None,
            }));
        }
        Err(format!("unknown field or quantity '{name}'"))
    }
}

/// Parses a quantity; field names are checked against the Model and Data names here,
/// indices against a compiled model at evaluation.
pub fn parse(src: &str) -> Result<Expr, String> {
    if src.len() > 1000 {
        return Err("quantity is longer than 1000 characters".into());
    }
    let mut p = Parser {
        s: src.as_bytes(),
        i: 0,
        ninitial: 0,
        npeak: 0,
    };
    let e = p.expr()?;
    if p.peek().is_some() {
        return Err(format!(
            "unexpected '{}' at column {}",
            p.s[p.i] as char,
            p.i + 1
        ));
    }
    if depth(&e) > 64 {
        return Err("quantity is nested too deeply".into());
    }
    Ok(e)
}

fn depth(e: &Expr) -> usize {
    match e {
        Expr::Initial(_, a) | Expr::Peak(_, a) | Expr::Abs(a) | Expr::Sqrt(a) | Expr::Neg(a) => {
            1 + depth(a)
        }
        Expr::Bin(_, a, b) => 1 + depth(a).max(depth(b)),
        _ => 1,
    }
}

impl Expr {
    /// Number of `initial(…)` and `peak(…)` slots.
    pub fn slots(&self) -> (usize, usize) {
        let mut n = (0, 0);
        self.visit(&mut |e| match e {
            Expr::Initial(i, _) => n.0 = n.0.max(i + 1),
            Expr::Peak(i, _) => n.1 = n.1.max(i + 1),
            _ => {}
        });
        n
    }

    /// Whether evaluating needs a compiled model (anything but `compiles`, `error`, numbers).
    pub fn needs_model(&self) -> bool {
        let mut needs = false;
        self.visit(&mut |e| {
            if matches!(e, Expr::Ref(_) | Expr::Agg(..) | Expr::Diverged) {
                needs = true;
            }
        });
        needs
    }

    fn visit(&self, f: &mut dyn FnMut(&Expr)) {
        f(self);
        match self {
            Expr::Initial(_, a)
            | Expr::Peak(_, a)
            | Expr::Abs(a)
            | Expr::Sqrt(a)
            | Expr::Neg(a) => a.visit(f),
            Expr::Bin(_, a, b) => {
                a.visit(f);
                b.visit(f);
            }
            _ => {}
        }
    }
}

/// What an expression is evaluated over.
pub struct Ctx<'a> {
    pub model: Option<&'a Model>,
    pub data: Option<&'a Data>,
    pub compiles: bool,
    pub error: Option<&'a str>,
    pub diverged: bool,
    /// Time-0 values of the `initial(…)` slots (NaN while they are being taken).
    pub initial: &'a [f64],
    /// Running maxima of the `peak(…)` slots.
    pub peak: &'a [f64],
}

/// Which slots the evaluation reads: final value, time-0 samples, or per-step samples.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Phase {
    Final,
    SampleInitial(usize),
    SamplePeak(usize),
}

fn field<'a>(m: &'a Model, d: &'a Data, name: &str) -> Option<crate::fields::FieldRef<'a>> {
    m.field(name).or_else(|| d.field(name))
}

fn num_of(v: Val) -> Result<f64, String> {
    match v {
        Val::Num(x) => Ok(x),
        Val::Text(_) => Err("'error' is text: use it only in a `contains '…'` outcome".into()),
    }
}

fn eval_ref(c: &Ctx, r: &Ref) -> Result<f64, String> {
    let (Some(m), Some(d)) = (c.model, c.data) else {
        return Err(format!("'{}' needs a compiled scene", r.name));
    };
    let Some(row) = r.row else {
        return Ok(match r.name.as_str() {
            "time" => d.time,
            "ncon" => d.ncon as f64,
            "nefc" => d.nefc as f64,
            n => m.size(n).ok_or_else(|| format!("unknown size '{n}'"))? as f64,
        });
    };
    let f = field(m, d, &r.name).ok_or_else(|| format!("unknown field '{}'", r.name))?;
    let cols = f.cols();
    let rows = f.len() / cols;
    if row >= rows {
        return Err(format!("{}[{row}]: the field has {rows} rows", r.name));
    }
    let col = match (r.col, cols) {
        (Some(c), _) if c < cols => c,
        (Some(c), _) => return Err(format!("{}: component {c} of {cols}", r.name)),
        (None, 1) => 0,
        (None, _) => {
            return Err(format!(
                "{}[{row}] has {cols} components: add .x/.y/.z or [i]",
                r.name
            ))
        }
    };
    Ok(f.get(row * cols + col))
}

fn eval_agg(c: &Ctx, a: Agg, col: &Column) -> Result<f64, String> {
    let (Some(m), Some(d)) = (c.model, c.data) else {
        return Err(format!("'{}' needs a compiled scene", col.name));
    };
    let f = field(m, d, &col.name).ok_or_else(|| format!("unknown field '{}'", col.name))?;
    let cols = f.cols();
    let k = match (col.col, cols) {
        (Some(k), _) if k < cols => k,
        (Some(k), _) => return Err(format!("{}: component {k} of {cols}", col.name)),
        (None, 1) => 0,
        (None, _) => {
            return Err(format!(
                "{} has {cols} components: reduce one (e.g. {}.z)",
                col.name, col.name
            ))
        }
    };
    let rows = f.len() / cols;
    if rows == 0 {
        return Err(format!("{} is empty in this scene", col.name));
    }
    let vals = (0..rows).map(|i| f.get(i * cols + k));
    Ok(match a {
        Agg::Min => vals.fold(f64::INFINITY, f64::min),
        Agg::Max => vals.fold(f64::NEG_INFINITY, f64::max),
        Agg::Sum => vals.sum(),
        Agg::Mean => vals.sum::<f64>() / rows as f64,
        Agg::MaxAbs => vals.fold(0.0, |acc: f64, x| acc.max(x.abs())),
    })
}

fn eval_in(e: &Expr, c: &Ctx, phase: Phase) -> Result<Val, String> {
    Ok(match e {
        Expr::Num(x) => Val::Num(*x),
        Expr::Ref(r) => Val::Num(eval_ref(c, r)?),
        Expr::Agg(a, col) => Val::Num(eval_agg(c, *a, col)?),
        Expr::Initial(i, a) => match phase {
            Phase::SampleInitial(k) if k == *i => eval_in(a, c, phase)?,
            Phase::Final | Phase::SamplePeak(_) => {
                Val::Num(c.initial.get(*i).copied().unwrap_or(f64::NAN))
            }
            Phase::SampleInitial(_) => Val::Num(f64::NAN),
        },
        Expr::Peak(i, a) => match phase {
            Phase::SamplePeak(k) if k == *i => eval_in(a, c, phase)?,
            _ => Val::Num(c.peak.get(*i).copied().unwrap_or(f64::NAN)),
        },
        Expr::Abs(a) => Val::Num(num_of(eval_in(a, c, phase)?)?.abs()),
        Expr::Sqrt(a) => Val::Num(num_of(eval_in(a, c, phase)?)?.sqrt()),
        Expr::Neg(a) => Val::Num(-num_of(eval_in(a, c, phase)?)?),
        Expr::Bin(op, a, b) => {
            let x = num_of(eval_in(a, c, phase)?)?;
            let y = num_of(eval_in(b, c, phase)?)?;
            Val::Num(match op {
                '+' => x + y,
                '-' => x - y,
                '*' => x * y,
                _ => x / y,
            })
        }
        Expr::Compiles => Val::Num(if c.compiles { 1.0 } else { 0.0 }),
        Expr::Diverged => Val::Num(if c.diverged { 1.0 } else { 0.0 }),
        Expr::Error => Val::Text(c.error.unwrap_or("").to_string()),
    })
}

/// The value of `e` at the end of a run.
pub fn eval(e: &Expr, c: &Ctx) -> Result<Val, String> {
    eval_in(e, c, Phase::Final)
}

fn find<'a>(e: &'a Expr, want: &dyn Fn(&Expr) -> bool) -> Option<&'a Expr> {
    if want(e) {
        return Some(e);
    }
    match e {
        Expr::Initial(_, a) | Expr::Peak(_, a) | Expr::Abs(a) | Expr::Sqrt(a) | Expr::Neg(a) => {
            find(a, want)
        }
        Expr::Bin(_, a, b) => find(a, want).or_else(|| find(b, want)),
        _ => None,
    }
}

/// Samples slot `i` of `initial(…)` in the current state.
pub fn sample_initial(e: &Expr, i: usize, c: &Ctx) -> Result<f64, String> {
    let node = find(e, &|x| matches!(x, Expr::Initial(k, _) if *k == i)).ok_or("no such slot")?;
    num_of(eval_in(node, c, Phase::SampleInitial(i))?)
}

/// Samples slot `i` of `peak(…)` in the current state.
pub fn sample_peak(e: &Expr, i: usize, c: &Ctx) -> Result<f64, String> {
    let node = find(e, &|x| matches!(x, Expr::Peak(k, _) if *k == i)).ok_or("no such slot")?;
    num_of(eval_in(node, c, Phase::SamplePeak(i))?)
}

/// Whether the engine recorded one of MuJoCo's bad-state warnings.
pub fn bad_state(d: &Data) -> bool {
    [Warning::BadQpos, Warning::BadQvel, Warning::BadQacc]
        .iter()
        .any(|w| d.warning[*w as usize].number > 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model() -> (Model, Data) {
        let xml = r#"<mujoco><worldbody><body pos="0 0 1"><joint type="slide" axis="0 0 1"/>
            <geom type="sphere" size="0.1" mass="2"/></body></worldbody></mujoco>"#;
        let m = crate::load_xml(xml, None, &crate::mjcf::MemSource::default()).unwrap();
        let mut d = Data::new(&m);
        crate::engine::forward(&m, &mut d);
        (m, d)
    }

    fn ctx<'a>(m: &'a Model, d: &'a Data) -> Ctx<'a> {
        Ctx {
            model: Some(m),
            data: Some(d),
            compiles: true,
            error: None,
            diverged: false,
            initial: &[],
            peak: &[],
        }
    }

    #[test]
    fn a_scene_sensor_is_read_from_sensordata() {
        let xml = r#"<mujoco><worldbody><body pos="0 0 1"><joint name="z" type="slide"
            axis="0 0 1"/><geom type="sphere" size="0.1"/></body></worldbody>
            <sensor><clock/><jointpos joint="z"/></sensor></mujoco>"#;
        let m = crate::load_xml(xml, None, &crate::mjcf::MemSource::default()).unwrap();
        let mut d = Data::new(&m);
        for _ in 0..10 {
            crate::engine::step(&m, &mut d);
        }
        let c = ctx(&m, &d);
        let v = |s: &str| eval(&parse(s).unwrap(), &c).unwrap();
        // the step's forward pass computed them, before its integration moved time and qpos
        let Val::Num(clock) = v("sensordata[0]") else {
            panic!()
        };
        assert!((clock - (d.time - m.opt.timestep)).abs() < 1e-12);
        assert_eq!(v("sensor_adr[1]"), Val::Num(1.0));
        assert!(matches!(v("sensordata[1]"), Val::Num(q) if q < 0.0 && q > d.qpos[0]));
    }

    #[test]
    fn fields_sizes_and_arithmetic() {
        let (m, d) = model();
        let c = ctx(&m, &d);
        let v = |s: &str| eval(&parse(s).unwrap(), &c).unwrap();
        assert_eq!(v("nv"), Val::Num(1.0));
        assert_eq!(v("xpos[1].z"), Val::Num(1.0));
        assert_eq!(v("xpos[1][2] * 2 - -1"), Val::Num(3.0));
        assert_eq!(v("body_mass[1] / 4 + 1"), Val::Num(1.5));
        assert_eq!(v("max(xpos.z)"), Val::Num(1.0));
        assert_eq!(v("mean(xpos.z)"), Val::Num(0.5));
        assert_eq!(v("sqrt(abs(-16))"), Val::Num(4.0));
        assert_eq!(v("1e-3 * 2"), Val::Num(0.002));
        assert_eq!(v("compiles"), Val::Num(1.0));
        assert!(eval(&parse("xpos[7].z").unwrap(), &c)
            .unwrap_err()
            .contains("2 rows"));
        assert!(eval(&parse("xpos[1]").unwrap(), &c)
            .unwrap_err()
            .contains("components"));
    }

    #[test]
    fn bad_expressions_are_errors() {
        for bad in [
            "",
            "qpos",
            "nosuch[0]",
            "max(qpos",
            "1 +",
            "xpos[1].q",
            "min(nv)",
            "2 3",
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn slots_are_numbered() {
        let e = parse("qpos[0] - initial(qpos[0]) + peak(qvel[0]) + initial(time)").unwrap();
        assert_eq!(e.slots(), (2, 1));
        assert!(e.needs_model());
        assert!(!parse("compiles").unwrap().needs_model());
    }
}
