//! JSON (RFC 8259) for the lesson API: a value tree, a strict parser and a writer.
//!
//! The browser hands the lesson API small JSON documents (files, parameter values, answers) and
//! reads JSON back. serde_json did this before, but its generic (de)serializers were about a
//! tenth of the wasm; this module does the same job in a few hundred lines with the same
//! semantics where they show: objects are key-sorted maps (the last of duplicate keys wins),
//! numbers are f64 (as JavaScript's), parsing is strict (no trailing commas, comments, leading
//! zeros, lone surrogates or raw control characters) and nesting is limited to 128 levels.
//! The tests compare it with serde_json on the same inputs.

use std::collections::BTreeMap;
use std::fmt::{self, Write as _};

/// A JSON value. Numbers are f64, as JavaScript reads them.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Value {
    #[default]
    Null,
    Bool(bool),
    Number(f64),
    String(String),
    Array(Vec<Value>),
    Object(BTreeMap<String, Value>),
}

/// Deepest nesting of arrays and objects accepted (serde_json's limit).
pub const MAX_DEPTH: usize = 128;

impl Value {
    /// An object from `(key, value)` pairs (the last of duplicate keys wins).
    pub fn object<K: Into<String>>(pairs: impl IntoIterator<Item = (K, Value)>) -> Value {
        // inserted one by one: `collect` into a BTreeMap sorts first, with a stable sort
        // instantiated for every call site's iterator type (a tenth of the sort code in the wasm)
        let mut m = BTreeMap::new();
        for (k, v) in pairs {
            m.insert(k.into(), v);
        }
        Value::Object(m)
    }

    /// A number; NaN and infinities, which JSON cannot write, become `null`.
    pub fn num(x: f64) -> Value {
        if x.is_finite() {
            Value::Number(x)
        } else {
            Value::Null
        }
    }

    pub fn as_object(&self) -> Option<&BTreeMap<String, Value>> {
        match self {
            Value::Object(m) => Some(m),
            _ => None,
        }
    }
    pub fn as_array(&self) -> Option<&Vec<Value>> {
        match self {
            Value::Array(a) => Some(a),
            _ => None,
        }
    }
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Number(x) => Some(*x),
            _ => None,
        }
    }
    /// A number that is a non-negative integer (as serde_json's `as_u64` of an integer).
    pub fn as_u64(&self) -> Option<u64> {
        match self {
            Value::Number(x) if *x >= 0.0 && x.fract() == 0.0 && *x < 18446744073709551616.0 => {
                Some(*x as u64)
            }
            _ => None,
        }
    }
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }
    /// The member `key` of an object.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.as_object().and_then(|m| m.get(key))
    }
}

impl From<f64> for Value {
    fn from(x: f64) -> Value {
        Value::num(x)
    }
}
impl From<bool> for Value {
    fn from(b: bool) -> Value {
        Value::Bool(b)
    }
}
impl From<usize> for Value {
    fn from(n: usize) -> Value {
        Value::Number(n as f64)
    }
}
impl From<u32> for Value {
    fn from(n: u32) -> Value {
        Value::Number(n as f64)
    }
}
impl From<&str> for Value {
    fn from(s: &str) -> Value {
        Value::String(s.to_string())
    }
}
impl From<&String> for Value {
    fn from(s: &String) -> Value {
        Value::String(s.clone())
    }
}
impl From<String> for Value {
    fn from(s: String) -> Value {
        Value::String(s)
    }
}
impl<T: Into<Value>> From<Option<T>> for Value {
    fn from(o: Option<T>) -> Value {
        o.map_or(Value::Null, Into::into)
    }
}
impl<T: Into<Value>> From<Vec<T>> for Value {
    fn from(v: Vec<T>) -> Value {
        Value::Array(v.into_iter().map(Into::into).collect())
    }
}
impl From<&Vec<String>> for Value {
    fn from(v: &Vec<String>) -> Value {
        Value::Array(v.iter().map(Into::into).collect())
    }
}

// ------------------------------------------------------------------ writing

/// Writes `s` as a JSON string.
pub fn write_str(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

fn write_value(out: &mut String, v: &Value) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        // integers as integers ("5", "-0"), else the shortest text that reads back to the
        // same f64 ("0.1", "1e-7", "1e21")
        Value::Number(x) if x.fract() == 0.0 && x.abs() < 1e16 => {
            crate::decimal::write_integer(out, *x, false);
        }
        Value::Number(x) if x.is_finite() => crate::decimal::write_round_trip(out, *x),
        Value::Number(_) => out.push_str("null"),
        Value::String(s) => write_str(out, s),
        Value::Array(a) => {
            out.push('[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_value(out, x);
            }
            out.push(']');
        }
        Value::Object(m) => {
            out.push('{');
            for (i, (k, x)) in m.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_str(out, k);
                out.push(':');
                write_value(out, x);
            }
            out.push('}');
        }
    }
}

/// Compact JSON text.
impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = String::new();
        write_value(&mut s, self);
        f.write_str(&s)
    }
}

// ------------------------------------------------------------------ parsing

/// Why a text is not JSON, and where (1-based line and column, in characters).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    pub message: &'static str,
    pub line: usize,
    pub column: usize,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} at line {} column {}",
            self.message, self.line, self.column
        )
    }
}

impl std::error::Error for Error {}

/// Parses one JSON value (surrounding whitespace allowed, nothing else).
pub fn parse(text: &str) -> Result<Value, Error> {
    let mut p = Parser {
        s: text.as_bytes(),
        text,
        i: 0,
    };
    p.ws();
    let v = p.value(0)?;
    p.ws();
    if p.i < p.s.len() {
        return Err(p.err("trailing characters"));
    }
    Ok(v)
}

struct Parser<'a> {
    s: &'a [u8],
    text: &'a str,
    i: usize,
}

impl Parser<'_> {
    fn err(&self, message: &'static str) -> Error {
        let before = &self.text[..floor_char_boundary(self.text, self.i)];
        let line = before.matches('\n').count() + 1;
        let start = before.rfind('\n').map_or(0, |k| k + 1);
        let column = before[start..].chars().count() + 1;
        Error {
            message,
            line,
            column,
        }
    }

    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    fn ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.i += 1;
        }
    }

    fn literal(&mut self, word: &[u8], v: Value) -> Result<Value, Error> {
        if self.s[self.i..].starts_with(word) {
            self.i += word.len();
            Ok(v)
        } else {
            Err(self.err("expected value"))
        }
    }

    fn value(&mut self, depth: usize) -> Result<Value, Error> {
        match self.peek() {
            None => Err(self.err("EOF while parsing a value")),
            Some(b'n') => self.literal(b"null", Value::Null),
            Some(b't') => self.literal(b"true", Value::Bool(true)),
            Some(b'f') => self.literal(b"false", Value::Bool(false)),
            Some(b'"') => Ok(Value::String(self.string()?)),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(b'[') => {
                if depth >= MAX_DEPTH {
                    return Err(self.err("recursion limit exceeded"));
                }
                self.i += 1;
                let mut a = Vec::new();
                self.ws();
                if self.peek() == Some(b']') {
                    self.i += 1;
                    return Ok(Value::Array(a));
                }
                loop {
                    self.ws();
                    a.push(self.value(depth + 1)?);
                    self.ws();
                    match self.peek() {
                        Some(b',') => self.i += 1,
                        Some(b']') => {
                            self.i += 1;
                            return Ok(Value::Array(a));
                        }
                        None => return Err(self.err("EOF while parsing a list")),
                        _ => return Err(self.err("expected `,` or `]`")),
                    }
                }
            }
            Some(b'{') => {
                if depth >= MAX_DEPTH {
                    return Err(self.err("recursion limit exceeded"));
                }
                self.i += 1;
                let mut m = BTreeMap::new();
                self.ws();
                if self.peek() == Some(b'}') {
                    self.i += 1;
                    return Ok(Value::Object(m));
                }
                loop {
                    self.ws();
                    match self.peek() {
                        Some(b'"') => {}
                        None => return Err(self.err("EOF while parsing an object")),
                        _ => return Err(self.err("key must be a string")),
                    }
                    let k = self.string()?;
                    self.ws();
                    match self.peek() {
                        Some(b':') => self.i += 1,
                        None => return Err(self.err("EOF while parsing an object")),
                        _ => return Err(self.err("expected `:`")),
                    }
                    self.ws();
                    let v = self.value(depth + 1)?;
                    m.insert(k, v);
                    self.ws();
                    match self.peek() {
                        Some(b',') => self.i += 1,
                        Some(b'}') => {
                            self.i += 1;
                            return Ok(Value::Object(m));
                        }
                        None => return Err(self.err("EOF while parsing an object")),
                        _ => return Err(self.err("expected `,` or `}`")),
                    }
                }
            }
            Some(_) => Err(self.err("expected value")),
        }
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`, read as the nearest f64.
    fn number(&mut self) -> Result<Value, Error> {
        let start = self.i;
        let digits = |p: &mut Self| {
            let d0 = p.i;
            while let Some(b'0'..=b'9') = p.peek() {
                p.i += 1;
            }
            p.i - d0
        };
        if self.peek() == Some(b'-') {
            self.i += 1;
        }
        match self.peek() {
            Some(b'0') => {
                self.i += 1;
                if let Some(b'0'..=b'9') = self.peek() {
                    return Err(self.err("invalid number"));
                }
            }
            Some(b'1'..=b'9') => {
                digits(self);
            }
            _ => return Err(self.err("invalid number")),
        }
        if self.peek() == Some(b'.') {
            self.i += 1;
            if digits(self) == 0 {
                return Err(self.err("invalid number"));
            }
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.i += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.i += 1;
            }
            if digits(self) == 0 {
                return Err(self.err("invalid number"));
            }
        }
        let x = crate::decimal::parse_f64(&self.text[start..self.i])
            .ok_or_else(|| self.err("invalid number"))?;
        if !x.is_finite() {
            return Err(self.err("number out of range"));
        }
        Ok(Value::Number(x))
    }

    fn hex4(&mut self) -> Result<u32, Error> {
        let mut n = 0u32;
        for _ in 0..4 {
            let d = match self.peek() {
                Some(c @ b'0'..=b'9') => c - b'0',
                Some(c @ b'a'..=b'f') => c - b'a' + 10,
                Some(c @ b'A'..=b'F') => c - b'A' + 10,
                None => return Err(self.err("EOF while parsing a string")),
                _ => return Err(self.err("invalid escape")),
            };
            n = n * 16 + d as u32;
            self.i += 1;
        }
        Ok(n)
    }

    fn string(&mut self) -> Result<String, Error> {
        self.i += 1; // the opening quote
        let mut out = String::new();
        loop {
            // copy the run of plain characters at once (the input is valid UTF-8)
            let run = self.i;
            while let Some(c) = self.peek() {
                if c == b'"' || c == b'\\' || c < 0x20 {
                    break;
                }
                self.i += 1;
            }
            out.push_str(&self.text[run..self.i]);
            match self.peek() {
                None => return Err(self.err("EOF while parsing a string")),
                Some(b'"') => {
                    self.i += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    self.i += 1;
                    let c = match self.peek() {
                        None => return Err(self.err("EOF while parsing a string")),
                        Some(b'"') => '"',
                        Some(b'\\') => '\\',
                        Some(b'/') => '/',
                        Some(b'b') => '\u{8}',
                        Some(b'f') => '\u{c}',
                        Some(b'n') => '\n',
                        Some(b'r') => '\r',
                        Some(b't') => '\t',
                        Some(b'u') => {
                            self.i += 1;
                            let hi = self.hex4()?;
                            let code = if (0xD800..0xDC00).contains(&hi) {
                                if !self.s[self.i..].starts_with(b"\\u") {
                                    return Err(self.err("lone leading surrogate in hex escape"));
                                }
                                self.i += 2;
                                let lo = self.hex4()?;
                                if !(0xDC00..0xE000).contains(&lo) {
                                    return Err(self.err("lone leading surrogate in hex escape"));
                                }
                                0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)
                            } else if (0xDC00..0xE000).contains(&hi) {
                                return Err(self.err("lone trailing surrogate in hex escape"));
                            } else {
                                hi
                            };
                            // every value left is a scalar value
                            out.push(char::from_u32(code).unwrap_or('\u{fffd}'));
                            continue;
                        }
                        Some(_) => return Err(self.err("invalid escape")),
                    };
                    self.i += 1;
                    out.push(c);
                }
                Some(_) => {
                    return Err(self
                        .err("control character (\\u0000-\\u001F) found while parsing a string"))
                }
            }
        }
    }
}

/// The largest char boundary ≤ `i` (error positions may sit inside a character).
fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    /// serde_json's reading of `text`, in this module's value type.
    fn serde(text: &str) -> Option<Value> {
        fn conv(v: serde_json::Value) -> Value {
            match v {
                serde_json::Value::Null => Value::Null,
                serde_json::Value::Bool(b) => Value::Bool(b),
                serde_json::Value::Number(n) => Value::Number(n.as_f64().unwrap()),
                serde_json::Value::String(s) => Value::String(s),
                serde_json::Value::Array(a) => Value::Array(a.into_iter().map(conv).collect()),
                serde_json::Value::Object(m) => {
                    Value::Object(m.into_iter().map(|(k, v)| (k, conv(v))).collect())
                }
            }
        }
        serde_json::from_str::<serde_json::Value>(text)
            .ok()
            .map(conv)
    }

    const GOOD: &[&str] = &[
        "null",
        " true ",
        "false",
        "0",
        "-0",
        "1",
        "-12.5e3",
        "1E+2",
        "2.5e-3",
        "0.1",
        "123456789012345678901234567890",
        "18446744073709551615",
        "9007199254740993",
        "1.7976931348623157e308",
        "5e-324",
        "1e-400",
        "\"\"",
        "\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\"",
        "\"\\u00e9\\u4E2D\\ud83d\\ude00\"",
        "\"中文 ✓ 😀\"",
        "[]",
        "[ 1 , [2, [3]], {\"a\": []} ]",
        "{}",
        "{\"b\": 1, \"a\": {\"c\": null}, \"b\": 2}",
        "\n\t{ \"k\" :\"v\" }\r\n",
    ];

    const BAD: &[&str] = &[
        "",
        " ",
        "nul",
        "True",
        "01",
        "-",
        "+1",
        "1.",
        ".5",
        "1e",
        "1e+",
        "0x10",
        "NaN",
        "Infinity",
        "1e400",
        "\"abc",
        "\"a\nb\"",
        "\"\\x\"",
        "\"\\u12\"",
        "\"\\ud800\"",
        "\"\\ud800\\u0041\"",
        "\"\\udc00\"",
        "[1,]",
        "[1 2]",
        "[",
        "{\"a\":1,}",
        "{\"a\" 1}",
        "{a:1}",
        "{\"a\":1",
        "[1] x",
        "// c\n1",
        "'a'",
    ];

    #[test]
    fn reads_what_serde_json_reads() {
        for t in GOOD {
            let mine = parse(t).unwrap_or_else(|e| panic!("{t:?}: {e}"));
            assert_eq!(Some(mine), serde(t), "{t:?}");
        }
    }

    #[test]
    fn rejects_what_serde_json_rejects() {
        for t in BAD {
            assert!(parse(t).is_err(), "{t:?} parsed");
            assert!(serde(t).is_none(), "serde_json reads {t:?}");
        }
    }

    #[test]
    fn numbers_are_correctly_rounded() {
        // just above half the least subnormal: rounds up, as JavaScript's JSON.parse does
        // (serde_json without its float_roundtrip feature reads 0 here)
        assert_eq!(parse("2.4703282292062328e-324"), Ok(Value::Number(5e-324)));
        assert_eq!(parse("2.4703282292062327e-324"), Ok(Value::Number(0.0)));
        assert_eq!(
            parse("9007199254740993"),
            Ok(Value::Number(9007199254740992.0))
        );
        assert_eq!(parse("0.30000000000000004"), Ok(Value::Number(0.1 + 0.2)));
    }

    #[test]
    fn nesting_is_limited() {
        let ok = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
        assert!(parse(&ok).is_ok());
        let deep = format!("{}{}", "[".repeat(MAX_DEPTH + 1), "]".repeat(MAX_DEPTH + 1));
        assert!(parse(&deep).is_err());
        assert!(parse(&"{\"a\":".repeat(100_000)).is_err());
    }

    #[test]
    fn errors_are_located() {
        let e = parse("{\n  \"a\": 1,\n  \"b\": x\n}").unwrap_err();
        assert_eq!((e.line, e.column), (3, 8), "{e}");
        assert_eq!(e.to_string(), "expected value at line 3 column 8");
        let e = parse("\"é\\q\"").unwrap_err();
        assert_eq!((e.line, e.column), (1, 4), "{e}");
    }

    #[test]
    fn writes_what_reads_back_and_what_serde_json_reads() {
        let v = Value::object([
            ("s", Value::from("q\"\\/\n\r\t\u{1}\u{8}\u{c}é😀")),
            (
                "n",
                Value::from(vec![0.1, -0.0, 1e-7, 1e21, 5.0, f64::MAX, 5e-324]),
            ),
            ("bad", Value::from(vec![f64::NAN, f64::INFINITY])),
            (
                "o",
                Value::object([("z", Value::Bool(true)), ("a", Value::Null)]),
            ),
            ("e", Value::Array(vec![])),
        ]);
        let text = v.to_string();
        let back = parse(&text).unwrap();
        assert_eq!(serde(&text), Some(back.clone()));
        assert_eq!(back.get("bad"), Some(&Value::Array(vec![Value::Null; 2])));
        assert_eq!(back.get("s"), v.get("s"));
        assert_eq!(back.get("n"), v.get("n"));
        assert!(
            text.starts_with("{\"bad\":[null,null],\"e\":[],\"n\":[0.1,-0,1e-7,1e21,5,"),
            "{text}"
        );
        for x in [0.1, 1.0 / 3.0, 123456.789, 2f64.powi(60), 1e-300, -2.5e-8] {
            let t = Value::Number(x).to_string();
            assert_eq!(t.parse::<f64>().unwrap(), x);
            assert_eq!(serde(&t), Some(Value::Number(x)), "{t}");
        }
    }

    #[test]
    fn accessors() {
        let v = parse(r#"{"n": 5, "f": 2.5, "neg": -1, "s": "x", "b": true, "a": [1]}"#).unwrap();
        assert_eq!(v.get("n").and_then(Value::as_u64), Some(5));
        assert_eq!(v.get("f").and_then(Value::as_u64), None);
        assert_eq!(v.get("neg").and_then(Value::as_u64), None);
        assert_eq!(v.get("f").and_then(Value::as_f64), Some(2.5));
        assert_eq!(v.get("s").and_then(Value::as_str), Some("x"));
        assert_eq!(v.get("b").and_then(Value::as_bool), Some(true));
        assert_eq!(v.get("a").and_then(Value::as_array).map(Vec::len), Some(1));
        assert_eq!(v.get("zz"), None);
        assert_eq!(Value::from(None::<f64>), Value::Null);
    }
}
