//! One number of a numeric MJCF attribute, read as MuJoCo 3.15.0 reads it: C's `strtod` (its
//! `StringToVector`), with `errno` deciding the refusals. So besides decimals it takes
//! hexadecimal floats (`0x1.8p3`), `inf`/`infinity` and `nan`/`nan(…)` in any case, and it
//! refuses what `strtod` flags `ERANGE`: a value past the largest double, and an inexact result
//! below the smallest normal one (`1e-310`, `1e-400`), which MuJoCo reports as "number is too
//! large" too.

/// Why a token is not a number MuJoCo accepts.
#[derive(Debug, PartialEq)]
pub enum BadNumber {
    /// Not a number at all (`EINVAL`: MuJoCo's "bad format").
    Format,
    /// Out of the double's range (`ERANGE`: MuJoCo's "number is too large").
    TooLarge,
}

impl BadNumber {
    /// MuJoCo's words, then the token that failed.
    pub fn message(&self, attr: &str, tok: &str) -> String {
        match self {
            BadNumber::Format => format!("bad format in attribute '{attr}' ('{tok}')"),
            BadNumber::TooLarge => format!("number is too large in attribute '{attr}' ('{tok}')"),
        }
    }
}

/// The value of one whitespace-free token, as `strtod` with MuJoCo's `errno` rules gives it.
pub fn parse(tok: &str) -> Result<f64, BadNumber> {
    let (negative, body) = match tok.as_bytes().first() {
        Some(b'-') => (true, &tok[1..]),
        Some(b'+') => (false, &tok[1..]),
        _ => (false, tok),
    };
    if body.starts_with(['+', '-']) {
        return Err(BadNumber::Format);
    }
    let sign = |v: f64| if negative { -v } else { v };
    let lower = body.to_ascii_lowercase();
    if lower == "inf" || lower == "infinity" {
        return Ok(sign(f64::INFINITY));
    }
    if lower == "nan" || is_nan_with_payload(&lower) {
        return Ok(f64::NAN);
    }
    if let Some(hex) = lower.strip_prefix("0x") {
        return parse_hex(hex).map(sign);
    }
    // a decimal: `from_str`'s syntax is strtod's once the words are out of the way
    if lower.contains(['i', 'n']) {
        return Err(BadNumber::Format);
    }
    let v = crate::decimal::parse_f64(body).ok_or(BadNumber::Format)?;
    if v.is_infinite() {
        return Err(BadNumber::TooLarge);
    }
    // an exact subnormal needs hundreds of decimal digits: any other is inexact, and so is a
    // zero from non-zero digits
    let underflow = v.abs() < f64::MIN_POSITIVE && mantissa_has_nonzero(body);
    if underflow {
        return Err(BadNumber::TooLarge);
    }
    Ok(sign(v))
}

/// One token of an integer attribute, as `strtol` (base 10) with MuJoCo's `int` range check
/// reads it: an optional sign and decimal digits.
pub fn parse_int(tok: &str) -> Result<i32, BadNumber> {
    tok.parse::<i32>().map_err(|e| match e.kind() {
        std::num::IntErrorKind::PosOverflow | std::num::IntErrorKind::NegOverflow => {
            BadNumber::TooLarge
        }
        _ => BadNumber::Format,
    })
}

/// `nan(chars)`: strtod's NaN with a payload of letters, digits and underscores.
fn is_nan_with_payload(lower: &str) -> bool {
    lower
        .strip_prefix("nan(")
        .and_then(|s| s.strip_suffix(')'))
        .is_some_and(|p| p.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_'))
}

/// Whether a decimal literal's digits before its exponent are not all zero.
fn mantissa_has_nonzero(body: &str) -> bool {
    body.bytes()
        .take_while(|c| !matches!(c, b'e' | b'E'))
        .any(|c| matches!(c, b'1'..=b'9'))
}

/// The digits after `0x` (lower case): hex digits with at most one point (a digit on at least
/// one side), then optionally `p`, a sign and decimal digits, the power of two. Correctly
/// rounded (to nearest, ties to even), as glibc's strtod.
fn parse_hex(s: &str) -> Result<f64, BadNumber> {
    let (mant, exp) = match s.split_once('p') {
        Some((m, e)) => (m, Some(e)),
        None => (s, None),
    };
    // the significant bits: up to 60 in `bits`, the rest only as "something non-zero"
    let mut bits: u64 = 0;
    let mut sticky = false;
    let mut shift: i64 = 0; // value = (bits + sticky) * 2^shift * 2^exp
    let mut digits = 0;
    let mut seen_point = false;
    for c in mant.bytes() {
        if c == b'.' {
            if seen_point {
                return Err(BadNumber::Format);
            }
            seen_point = true;
            continue;
        }
        let d = (c as char).to_digit(16).ok_or(BadNumber::Format)? as u64;
        digits += 1;
        if bits >> 56 == 0 {
            bits = bits << 4 | d;
            if seen_point {
                shift -= 4;
            }
        } else {
            sticky |= d != 0;
            if !seen_point {
                shift += 4;
            }
        }
    }
    if digits == 0 {
        return Err(BadNumber::Format);
    }
    let exp: i64 = match exp {
        None => 0,
        Some(e) => {
            let digits = e.strip_prefix(['+', '-']).unwrap_or(e);
            if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
                return Err(BadNumber::Format);
            }
            // saturate: anything past ±1e6 is far outside the double's range either way
            let v = digits
                .bytes()
                .fold(0i64, |a, c| (a * 10 + (c - b'0') as i64).min(1 << 20));
            if e.starts_with('-') {
                -v
            } else {
                v
            }
        }
    };
    if bits == 0 {
        return Ok(0.0);
    }
    round_binary(bits, sticky, shift + exp)
}

/// `(bits + ε)·2^e2` (ε in (0, 1) when `sticky`) rounded to a double, or `ERANGE`'s refusal for
/// an overflow or an inexact result below the smallest normal double.
fn round_binary(bits: u64, sticky: bool, e2: i64) -> Result<f64, BadNumber> {
    let lz = bits.leading_zeros() as i64;
    let m = bits << lz;
    // value = m·2^(e2 − lz) = 1.f·2^top
    let top = e2 - lz + 63;
    if top > 1023 {
        return Err(BadNumber::TooLarge);
    }
    // bits of m to drop: 11 for a normal double (53 kept), more below the normal range
    let drop = 11 + (-1022 - top).max(0);
    if drop > 64 {
        return Err(BadNumber::TooLarge); // below half the smallest subnormal: rounds to 0
    }
    let (kept, rest, half) = if drop == 64 {
        (0, m, 1u64 << 63)
    } else {
        (m >> drop, m & ((1u64 << drop) - 1), 1u64 << (drop - 1))
    };
    let inexact = rest != 0 || sticky;
    let up = rest > half || (rest == half && (sticky || kept & 1 == 1));
    let q = kept + up as u64;
    // the exponent of q's unit: q·2^unit
    let unit = top - 52 + (drop - 11);
    let value = q as f64 * pow2(unit);
    if value.is_infinite() {
        return Err(BadNumber::TooLarge);
    }
    if value < f64::MIN_POSITIVE && inexact {
        return Err(BadNumber::TooLarge);
    }
    Ok(value)
}

/// 2^k for k in the doubles' range (normal or subnormal), exactly.
fn pow2(k: i64) -> f64 {
    if k >= -1022 {
        f64::from_bits(((k + 1023) as u64) << 52)
    } else {
        f64::from_bits(1u64 << (k + 1074))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals_as_strtod() {
        assert_eq!(parse("+5"), Ok(5.0));
        assert_eq!(parse(".5"), Ok(0.5));
        assert_eq!(parse("5."), Ok(5.0));
        assert_eq!(parse("-2.5e-3"), Ok(-2.5e-3));
        assert_eq!(parse("0e-999"), Ok(0.0));
        assert_eq!(parse("2.2250738585072014e-308"), Ok(f64::MIN_POSITIVE));
        assert_eq!(parse("1e308"), Ok(1e308));
        // ERANGE: past the largest double, or an inexact subnormal or zero
        for t in ["1.8e308", "1e-310", "4.9e-324", "1e-400", "-1e999"] {
            assert_eq!(parse(t), Err(BadNumber::TooLarge), "{t}");
        }
        for t in [
            "1e", "1_0", "e5", ".", "-", "+-5", "1.2.3", "infin", "nana", "1e5x",
        ] {
            assert_eq!(parse(t), Err(BadNumber::Format), "{t}");
        }
    }

    #[test]
    fn words_as_strtod() {
        assert_eq!(parse("inf"), Ok(f64::INFINITY));
        assert_eq!(parse("+INF"), Ok(f64::INFINITY));
        assert_eq!(parse("-Infinity"), Ok(f64::NEG_INFINITY));
        for t in ["nan", "NAN", "-nan", "nan()", "nan(abc_1)"] {
            assert!(parse(t).unwrap().is_nan(), "{t}");
        }
        assert_eq!(parse("nan(a-b)"), Err(BadNumber::Format));
    }

    /// Values read by MuJoCo 3.15.0 (glibc's strtod) from the same tokens.
    #[test]
    fn hex_floats_as_strtod() {
        assert_eq!(parse("0x10"), Ok(16.0));
        assert_eq!(parse("0X1.8P1"), Ok(3.0));
        assert_eq!(parse("0x.8"), Ok(0.5));
        assert_eq!(parse("-0x1p3"), Ok(-8.0));
        assert_eq!(parse("0x0p-9999"), Ok(0.0));
        assert_eq!(parse("0x1p-1022"), Ok(f64::MIN_POSITIVE));
        // an exact subnormal is not ERANGE
        assert_eq!(parse("0x1p-1074"), Ok(f64::from_bits(1)));
        assert_eq!(parse("0x1.fffffffffffffp1023"), Ok(f64::MAX));
        assert_eq!(parse("0x10000000000000001"), Ok(18446744073709551616.0));
        // ties to even, and past the tie up
        assert_eq!(parse("0x1.00000000000008p0"), Ok(1.0));
        assert_eq!(parse("0x1.000000000000081p0"), Ok(1.0 + f64::EPSILON));
        assert_eq!(parse("0x1.00000000000018p0"), Ok(1.0 + 2.0 * f64::EPSILON));
        for t in ["0x1p1024", "0x1.8p-1074", "0x1p-1080"] {
            assert_eq!(parse(t), Err(BadNumber::TooLarge), "{t}");
        }
        for t in ["0x", "0x.", "0x1p", "0x1p+", "0xg", "0x1.2.3", "0x1q"] {
            assert_eq!(parse(t), Err(BadNumber::Format), "{t}");
        }
    }
}
