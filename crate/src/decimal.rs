//! Decimal numbers from text (MJCF attributes, OBJ files, lesson answers and JSON): the syntax
//! and the correctly rounded value of Rust's `f64::from_str`, which are also `strtod`'s for
//! these forms; and numbers to text (messages, JSON, traces), the shortest decimal that reads
//! back as the same f64.
//!
//! Natively these are `str::parse` and Rust's float printing. In the browser build the syntax
//! is checked here and the value comes from JavaScript's `parseFloat` (correctly rounded too),
//! and the text from JavaScript's `String(x)` (shortest round trip too): Rust's parser carries
//! a 10 kB table of powers of five and its slow path, about 12 kB of the gzipped wasm, and its
//! printer (Grisu with the Dragon fallback) about 8 kB, for work the browser already does.
//! Every float the browser build prints goes through here, so the wasm holds neither.

use std::fmt;

/// The value of `s` when it is a decimal literal as `f64::from_str` accepts it: an optional
/// sign, then digits with at most one point (a digit on at least one side) and an optional
/// exponent (`e`/`E`, optional sign, digits), or `inf`, `infinity`, `nan` in any case.
/// Out-of-range literals give ±infinity or ±0, as there.
pub fn parse_f64(s: &str) -> Option<f64> {
    #[cfg(target_arch = "wasm32")]
    {
        let (negative, word) = check_literal(s)?;
        Some(match word {
            Some(w) if negative => -w,
            Some(w) => w,
            // parseFloat reads the sign itself
            None => crate::wasm::js_parse_float(s),
        })
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        s.parse().ok()
    }
}

/// Checks the syntax of `s`: `None` when it is not a literal, else whether it starts with `-`
/// and, for the words `inf`/`infinity`/`nan`, their unsigned value (`None` for a number).
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
fn check_literal(s: &str) -> Option<(bool, Option<f64>)> {
    let b = s.as_bytes();
    let negative = b.first() == Some(&b'-');
    let body = if matches!(b.first(), Some(b'+' | b'-')) {
        &b[1..]
    } else {
        b
    };
    for (word, value) in [
        ("inf", f64::INFINITY),
        ("infinity", f64::INFINITY),
        ("nan", f64::NAN),
    ] {
        if body.eq_ignore_ascii_case(word.as_bytes()) {
            return Some((negative, Some(value)));
        }
    }
    let digits = |from: usize| {
        body[from..]
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .count()
    };
    let int = digits(0);
    let mut i = int;
    let mut frac = 0;
    if body.get(i) == Some(&b'.') {
        frac = digits(i + 1);
        i += 1 + frac;
    }
    if int + frac == 0 {
        return None;
    }
    if matches!(body.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(body.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        let exp = digits(i);
        if exp == 0 {
            return None;
        }
        i += exp;
    }
    (i == body.len()).then_some((negative, None))
}

/// A number for a message, `format!("… got {}", Decimal(x))`: the shortest decimal that reads
/// back as `x`. Natively Rust's `{}` (never an exponent: "0.0000001"); in the browser
/// JavaScript's `String(x)` (an exponent below 1e-6 and from 1e21: "1e-7", "1e+21"). Zeros and
/// the non-finite are spelled alike in both ("0", "-0", "inf", "-inf", "NaN").
#[derive(Clone, Copy, Debug)]
pub struct Decimal(pub f64);

impl fmt::Display for Decimal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let x = self.0;
        if let Some(word) = special_word(x) {
            return f.write_str(word);
        }
        #[cfg(target_arch = "wasm32")]
        {
            f.write_str(&crate::wasm::js_number_text(x))
        }
        #[cfg(not(target_arch = "wasm32"))]
        {
            fmt::Display::fmt(&x, f)
        }
    }
}

/// Appends `x` as the shortest decimal that reads back as `x`, for JSON and traces, which
/// spell integers themselves ([`write_integer`]). Natively Rust's `{:?}` ("0.1", "1e-7",
/// "1e16"); in the browser JavaScript's `String(x)` ("0.1", "1e-7", "1e+21"). Both read back
/// to the same f64.
pub fn write_round_trip(out: &mut String, x: f64) {
    if let Some(word) = special_word(x) {
        out.push_str(word);
        return;
    }
    #[cfg(target_arch = "wasm32")]
    out.push_str(&crate::wasm::js_number_text(x));
    #[cfg(not(target_arch = "wasm32"))]
    {
        use std::fmt::Write;
        let _ = write!(out, "{x:?}");
    }
}

/// Appends an integer-valued `x` with |x| < 2^63 in digits, with its sign ("5", "-0"), and
/// `.0` when `point` ("5.0", "-0.0", as Rust's `{:.1}`): integer printing, without the float
/// printer.
pub fn write_integer(out: &mut String, x: f64, point: bool) {
    use std::fmt::Write;
    debug_assert!(x.fract() == 0.0 && x.abs() < 9.2e18, "{x} is not an i64");
    if x.is_sign_negative() {
        out.push('-');
    }
    let _ = write!(out, "{}", x.abs() as u64);
    if point {
        out.push_str(".0");
    }
}

/// The words of zeros and non-finite numbers, the same in both builds (`String(-0)` is "0").
fn special_word(x: f64) -> Option<&'static str> {
    if x == 0.0 {
        Some(if x.is_sign_negative() { "-0" } else { "0" })
    } else if x.is_nan() {
        Some("NaN")
    } else if x.is_infinite() {
        Some(if x > 0.0 { "inf" } else { "-inf" })
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The browser build accepts exactly what Rust's parser accepts: the syntax check against
    /// `f64::from_str` on literals and near-literals.
    #[test]
    fn syntax_check_accepts_what_rust_parses() {
        let cases = [
            "0",
            "1",
            "-1",
            "+1",
            "1.",
            ".5",
            "-.5",
            "+.5e3",
            "1e5",
            "1E5",
            "1e+5",
            "1e-5",
            "1.5e-300",
            "1e400",
            "-1e400",
            "1e-400",
            "00012.3400",
            "inf",
            "-inf",
            "+Infinity",
            "NaN",
            "nan",
            "-NAN",
            "",
            "+",
            "-",
            ".",
            "e5",
            ".e5",
            "1e",
            "1e+",
            "1.2.3",
            "1e5.5",
            " 1",
            "1 ",
            "0x10",
            "1_000",
            "--1",
            "+-1",
            "infinit",
            "nana",
            "1,5",
            "١",
            "1e٣",
            "12a",
            "a12",
            "+.",
            "-.e1",
            "0.0000001",
            "123456789012345678901234567890",
        ];
        for c in cases {
            let rust = c.parse::<f64>().is_ok();
            assert_eq!(check_literal(c).is_some(), rust, "'{c}'");
            if let Some((negative, Some(w))) = check_literal(c) {
                let x: f64 = c.parse().unwrap();
                let w = if negative { -w } else { w };
                assert!(w.is_nan() && x.is_nan() || w == x, "'{c}'");
            }
        }
    }

    /// Natively the printed forms are Rust's own: `{}` for messages, `{:?}` and `{:.1}` for JSON
    /// and traces.
    #[test]
    fn printing_is_rusts_natively() {
        for x in [
            0.1,
            -2.5,
            1e-7,
            1.5e16,
            1e21,
            123456.789,
            f64::MAX,
            5e-324,
            0.0,
            -0.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
        ] {
            assert_eq!(Decimal(x).to_string(), format!("{x}"), "{x:?}");
            if x.is_finite() && x != 0.0 {
                let mut s = String::new();
                write_round_trip(&mut s, x);
                assert_eq!(s, format!("{x:?}"));
                assert_eq!(s.parse::<f64>().unwrap(), x);
            }
        }
        for x in [0.0, -0.0, 5.0, -7.0, 1e15, -9.0e15, 4.0e18] {
            let (mut a, mut b) = (String::new(), String::new());
            write_integer(&mut a, x, false);
            write_integer(&mut b, x, true);
            assert_eq!(a, format!("{x}"));
            assert_eq!(b, format!("{x:.1}"));
        }
    }
}
