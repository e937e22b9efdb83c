//! Decimal numbers from text (MJCF attributes, OBJ files, lesson answers and JSON): the syntax
//! and the correctly rounded value of Rust's `f64::from_str`, which are also `strtod`'s for
//! these forms.
//!
//! Natively this is `str::parse`. In the browser build the syntax is checked here and the
//! value comes from JavaScript's `parseFloat` (correctly rounded too): Rust's parser carries a
//! 10 kB table of powers of five and its slow path, about 12 kB of the gzipped wasm, for work
//! the browser already does.

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
}
