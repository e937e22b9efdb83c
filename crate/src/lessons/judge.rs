//! Judging a student's committed answer against what the engine measured, with feedback
//! that explains the physics. The measured value comes from [`mod@super::measure`], so the
//! verdict is the simulation's, never a number stored in the lesson.

use super::bundle::{Exercise, ExerciseKind, Expect, Text};
use super::measure::Measurement;
use super::quantity::Val;
use crate::decimal::Decimal;

/// The test of an outcome: `< x`, `<= x`, `> x`, `>= x`, `== x`, `!= x` on a number, or
/// `contains 'text'` on the compiler's message.
#[derive(Debug, Clone, PartialEq)]
pub enum Condition {
    Cmp(&'static str, f64),
    Contains(String),
}

impl Condition {
    /// Parses a `when` text.
    pub fn parse(s: &str) -> Result<Condition, String> {
        let t = s.trim();
        if let Some(rest) = t.strip_prefix("contains") {
            let q = rest.trim();
            let inner = q
                .strip_prefix('\'')
                .and_then(|x| x.strip_suffix('\''))
                .ok_or("write contains 'text'")?;
            return Ok(Condition::Contains(inner.to_string()));
        }
        for op in ["<=", ">=", "==", "!=", "<", ">"] {
            if let Some(rest) = t.strip_prefix(op) {
                let x = crate::decimal::parse_f64(rest.trim())
                    .ok_or_else(|| format!("'{}' is not a number", rest.trim()))?;
                return Ok(Condition::Cmp(op, x));
            }
        }
        Err("a condition is '< x', '<= x', '> x', '>= x', '== x', '!= x' or contains 'text'".into())
    }

    /// Whether the measured value meets the condition.
    pub fn holds(&self, v: &Val) -> bool {
        match (self, v) {
            (Condition::Cmp(op, x), Val::Num(y)) => match *op {
                "<" => y < x,
                "<=" => y <= x,
                ">" => y > x,
                ">=" => y >= x,
                "==" => y == x,
                _ => y != x,
            },
            (Condition::Contains(s), Val::Text(t)) => t.contains(s.as_str()),
            _ => false,
        }
    }
}

/// A verdict on one answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    pub correct: bool,
    pub feedback: Text,
    /// The explanation shown by "Show answer", with the measurement filled in.
    pub explain: Text,
}

/// A number for a student to read: four significant digits, scientific when very large or
/// small.
pub fn fmt_num(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return Decimal(x).to_string();
    }
    // rounded as a number, then printed shortest: the nearest double to a decimal of at most
    // four significant digits prints as that decimal (and needs no fixed-precision formatting,
    // whose code the browser would otherwise load for this alone)
    let scaled = |v: f64, k: i32| {
        let p = 10f64.powi(k.abs());
        if k >= 0 {
            (v * p).round() / p
        } else {
            (v / p).round() * p
        }
    };
    let a = x.abs();
    if !(1e-3..1e5).contains(&a) {
        let mut e = a.log10().floor() as i32;
        let mut m = if e >= 0 {
            x / 10f64.powi(e)
        } else {
            x * 10f64.powi(-e)
        };
        m = scaled(m, 3);
        if m.abs() >= 10.0 {
            m = scaled(m / 10.0, 3);
            e += 1;
        }
        return format!("{}e{e}", Decimal(m));
    }
    Decimal(scaled(x, (3 - a.log10().floor() as i32).max(0))).to_string()
}

/// The choice id a measured value selects (the first outcome that holds).
pub fn selected_choice<'a>(ex: &'a Exercise, v: &Val) -> Option<&'a str> {
    ex.answer
        .outcomes
        .iter()
        .find(|o| o.when.holds(v))
        .map(|o| o.choice.as_str())
}

fn val_text(v: &Val) -> String {
    match v {
        Val::Num(x) => fmt_num(*x),
        Val::Text(t) => t.clone(),
    }
}

/// The explanation with `{measured}`, `{outcome}` and `{error}` filled in.
pub fn explain(ex: &Exercise, m: &Measurement) -> Text {
    let Some(v) = &m.value else {
        return ex.feedback.explain.clone();
    };
    let measured = val_text(v);
    let mut t = ex.feedback.explain.fill("measured", &measured, &measured);
    if let Some(c) = selected_choice(ex, v).and_then(|id| ex.choices.iter().find(|c| c.id == id)) {
        t = t.fill("outcome", &c.zh, &c.en);
    }
    let err = m
        .runs
        .iter()
        .find_map(|r| r.error.clone())
        .unwrap_or_default();
    t.fill("error", &err, &err)
}

/// A student's answer: a number, or a choice id.
#[derive(Debug, Clone, PartialEq)]
pub enum AnswerValue {
    Number(f64),
    Choice(String),
}

/// Judges `answer` against the measurement `m` of exercise `ex`.
pub fn judge(ex: &Exercise, answer: &AnswerValue, m: &Measurement) -> Result<Verdict, String> {
    let v = m.value.as_ref().ok_or_else(|| match &m.pending {
        Some(p) => format!("this check waits for an engine feature: {p}"),
        None => "the measurement has no value".to_string(),
    })?;
    let correct = match (ex.kind, answer) {
        (ExerciseKind::Number, AnswerValue::Number(x)) => {
            let Val::Num(y) = v else {
                return Err("the measurement is not a number".into());
            };
            let tol = ex.answer.tolerance.ok_or("no tolerance")?;
            x.is_finite() && tol.admits(*x, *y)
        }
        (ExerciseKind::Choice, AnswerValue::Choice(c)) => {
            if !ex.choices.iter().any(|k| &k.id == c) {
                return Err(format!("'{c}' is not a choice of '{}'", ex.id));
            }
            let sel = selected_choice(ex, v)
                .ok_or_else(|| format!("no outcome of '{}' matches {}", ex.id, val_text(v)))?;
            sel == c
        }
        (ExerciseKind::Measure, _) => return Err(format!("'{}' asks nothing", ex.id)),
        (ExerciseKind::Number, _) => return Err(format!("'{}' expects a number", ex.id)),
        (ExerciseKind::Choice, _) => return Err(format!("'{}' expects a choice id", ex.id)),
    };
    Ok(Verdict {
        correct,
        feedback: if correct {
            ex.feedback.right.clone()
        } else {
            ex.feedback.wrong.clone()
        },
        explain: explain(ex, m),
    })
}

/// Whether the measurement gives what the author expects; the message says what it gave.
pub fn meets_expect(ex: &Exercise, v: &Val) -> Result<(), String> {
    match (&ex.answer.expect, v) {
        (Expect::Number(e), Val::Num(y)) => {
            let tol = ex.answer.tolerance.ok_or("no tolerance")?;
            if tol.admits(*e, *y) {
                Ok(())
            } else {
                Err(format!(
                    "'{}': the measurement gives {} but expect = {} (tolerance {})",
                    ex.id,
                    fmt_num(*y),
                    e,
                    match tol {
                        super::bundle::Tolerance::Relative(r) => format!("relative {r}"),
                        super::bundle::Tolerance::Absolute(a) => format!("absolute {a}"),
                    }
                ))
            }
        }
        (Expect::Choice(c), v) => match selected_choice(ex, v) {
            Some(s) if s == c => Ok(()),
            Some(s) => Err(format!(
                "'{}': the measurement gives {} which selects '{s}', but expect = '{c}'",
                ex.id,
                val_text(v)
            )),
            None => Err(format!(
                "'{}': no outcome matches the measured {}",
                ex.id,
                val_text(v)
            )),
        },
        (Expect::Number(_), Val::Text(_)) => Err(format!("'{}': the quantity is text", ex.id)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conditions() {
        let c = Condition::parse("> 0.02").unwrap();
        assert!(c.holds(&Val::Num(0.03)) && !c.holds(&Val::Num(0.02)));
        let c = Condition::parse("<= 0.02").unwrap();
        assert!(c.holds(&Val::Num(0.02)));
        let c = Condition::parse("== 0").unwrap();
        assert!(c.holds(&Val::Num(0.0)) && !c.holds(&Val::Num(1e-300)));
        let c = Condition::parse("contains 'discrete'").unwrap();
        assert!(c.holds(&Val::Text("set integrator='discrete'".into())));
        assert!(!c.holds(&Val::Num(1.0)));
        for bad in ["~ 3", "> x", "contains discrete", ""] {
            assert!(Condition::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn numbers_read_well() {
        assert_eq!(fmt_num(7.8679), "7.868");
        assert_eq!(fmt_num(0.125), "0.125");
        assert_eq!(fmt_num(1.0), "1");
        assert_eq!(fmt_num(192.0), "192");
        assert_eq!(fmt_num(1.962e-7), "1.962e-7");
        assert_eq!(fmt_num(-2.2774), "-2.277");
    }
}
