//! Typed reading of the lesson TOML files, on the `toml` crate's parser.
//!
//! `toml` parses a document into a tree that keeps the byte span of every key and value
//! ([`toml::de::DeTable`]); the lesson reader walks that tree with the few typed accessors
//! here. This replaces serde's derived deserializers, whose generic code was a fifth of the
//! wasm, with the same rules: unknown keys are errors, a missing required key is an error at
//! its table, integers are read where floats are expected, and the first problem of a file
//! is reported with its span.

use std::ops::Range;
use toml::de::{DeTable, DeValue};
pub use toml::Spanned;

/// A TOML value, owned.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    String(String),
    Integer(i64),
    Float(f64),
    Boolean(bool),
    /// An offset date-time, local date-time, local date or local time, as written.
    Datetime(String),
    Array(Vec<Item>),
    Table(Table),
}

/// A value with its byte span in the file.
pub type Item = Spanned<Value>;

/// A table's entries with their keys' spans, in the order `toml` keeps them (sorted by key).
pub type Table = Vec<(Spanned<String>, Item)>;

/// The first problem found in a file.
#[derive(Debug, Clone, PartialEq)]
pub struct Error {
    pub span: Range<usize>,
    pub message: String,
}

pub type Result<T> = std::result::Result<T, Error>;

fn error(span: Range<usize>, message: impl Into<String>) -> Error {
    Error {
        span,
        message: message.into(),
    }
}

impl Value {
    /// The type's name in messages.
    pub fn type_str(&self) -> &'static str {
        match self {
            Value::String(_) => "string",
            Value::Integer(_) => "integer",
            Value::Float(_) => "float",
            Value::Boolean(_) => "boolean",
            Value::Datetime(_) => "datetime",
            Value::Array(_) => "array",
            Value::Table(_) => "table",
        }
    }
}

/// Parses a TOML document into its top-level table.
pub fn parse(text: &str) -> Result<Item> {
    let doc = DeTable::parse(text)
        .map_err(|e| error(e.span().unwrap_or(0..0), e.message().trim().to_string()))?;
    let span = doc.span();
    let table = convert_table(doc.into_inner())?;
    Ok(Spanned::new(span, Value::Table(table)))
}

fn convert_table(t: DeTable<'_>) -> Result<Table> {
    let mut out = Vec::with_capacity(t.len());
    for (k, v) in t {
        let ks = k.span();
        out.push((Spanned::new(ks, k.into_inner().into_owned()), convert(v)?));
    }
    Ok(out)
}

fn convert(v: Spanned<DeValue<'_>>) -> Result<Item> {
    let span = v.span();
    let value = match v.into_inner() {
        DeValue::String(s) => Value::String(s.into_owned()),
        DeValue::Integer(i) => match i64::from_str_radix(i.as_str(), i.radix()) {
            Ok(n) => Value::Integer(n),
            Err(_) => return Err(error(span, "integer number overflowed")),
        },
        // as toml's own reading: an infinite result is an overflow unless written as inf
        DeValue::Float(f) => match f.as_str().parse::<f64>() {
            Ok(x) if x.is_finite() || f.as_str().contains("inf") => Value::Float(x),
            _ => return Err(error(span, "floating-point number overflowed")),
        },
        DeValue::Boolean(b) => Value::Boolean(b),
        DeValue::Datetime(d) => Value::Datetime(d.to_string()),
        DeValue::Array(a) => Value::Array(a.into_iter().map(convert).collect::<Result<Vec<_>>>()?),
        DeValue::Table(t) => Value::Table(convert_table(t)?),
    };
    Ok(Spanned::new(span, value))
}

fn invalid(v: &Item, expected: &str) -> Error {
    error(
        v.span(),
        format!(
            "invalid type: {}, expected {expected}",
            v.get_ref().type_str()
        ),
    )
}

/// The keys of a table that must have only known keys.
pub struct Fields<'a> {
    table: &'a Table,
    span: Range<usize>,
}

/// `v` as a table whose keys are all in `known`; `what` names it in messages.
pub fn fields<'a>(v: &'a Item, what: &str, known: &[&str]) -> Result<Fields<'a>> {
    let Value::Table(table) = v.get_ref() else {
        return Err(invalid(v, what));
    };
    for (k, _) in table {
        if !known.contains(&k.get_ref().as_str()) {
            let list: Vec<String> = known.iter().map(|n| format!("`{n}`")).collect();
            let expected = match list.len() {
                0 => "there are no fields".to_string(),
                1 => format!("expected {}", list[0]),
                _ => format!("expected one of {}", list.join(", ")),
            };
            return Err(error(
                k.span(),
                format!("unknown field `{}`, {expected}", k.get_ref()),
            ));
        }
    }
    Ok(Fields {
        table,
        span: v.span(),
    })
}

impl<'a> Fields<'a> {
    /// The value of `name`, if present.
    pub fn get(&self, name: &str) -> Option<&'a Item> {
        self.table
            .iter()
            .find(|(k, _)| k.get_ref() == name)
            .map(|(_, v)| v)
    }

    /// The value of a required key.
    pub fn req(&self, name: &str) -> Result<&'a Item> {
        self.get(name)
            .ok_or_else(|| error(self.span.clone(), format!("missing field `{name}`")))
    }

    /// A required key read by `read`.
    pub fn read<T>(&self, name: &str, read: impl FnOnce(&'a Item) -> Result<T>) -> Result<T> {
        read(self.req(name)?)
    }

    /// An optional key read by `read`.
    pub fn opt<T>(
        &self,
        name: &str,
        read: impl FnOnce(&'a Item) -> Result<T>,
    ) -> Result<Option<T>> {
        self.get(name).map(read).transpose()
    }
}

/// A string.
pub fn string(v: &Item) -> Result<String> {
    match v.get_ref() {
        Value::String(s) => Ok(s.clone()),
        _ => Err(invalid(v, "a string")),
    }
}

/// A string with its span.
pub fn spanned_string(v: &Item) -> Result<Spanned<String>> {
    Ok(Spanned::new(v.span(), string(v)?))
}

/// A number (an integer reads as a float, as serde's f64 does).
pub fn float(v: &Item) -> Result<f64> {
    match v.get_ref() {
        Value::Float(x) => Ok(*x),
        Value::Integer(i) => Ok(*i as f64),
        _ => Err(invalid(v, "f64")),
    }
}

/// The items of an array.
pub fn array(v: &Item) -> Result<&Vec<Item>> {
    match v.get_ref() {
        Value::Array(a) => Ok(a),
        _ => Err(invalid(v, "a sequence")),
    }
}

/// An array read item by item.
pub fn array_of<T>(v: &Item, read: impl Fn(&Item) -> Result<T>) -> Result<Vec<T>> {
    array(v)?.iter().map(read).collect()
}

/// An array of exactly `N` numbers.
pub fn floats<const N: usize>(v: &Item) -> Result<[f64; N]> {
    let a = array(v)?;
    if a.len() != N {
        return Err(error(
            v.span(),
            format!(
                "invalid length {}, expected an array of length {N}",
                a.len()
            ),
        ));
    }
    let mut out = [0.0; N];
    for (o, x) in out.iter_mut().zip(a) {
        *o = float(x)?;
    }
    Ok(out)
}

/// A table's entries.
pub fn table(v: &Item) -> Result<&Table> {
    match v.get_ref() {
        Value::Table(t) => Ok(t),
        _ => Err(invalid(v, "a table")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_keep_their_spans_and_types() {
        let text = "a = 1\nb = 2.5\nc = \"x\"\nd = [1, 2, 3]\n[t]\ne = true\nf = 1979-05-27\n";
        let doc = parse(text).unwrap();
        let f = fields(&doc, "doc", &["a", "b", "c", "d", "t"]).unwrap();
        assert_eq!(f.read("a", float).unwrap(), 1.0);
        assert_eq!(f.read("b", float).unwrap(), 2.5);
        let c = f.read("c", spanned_string).unwrap();
        assert_eq!((c.get_ref().as_str(), c.span()), ("x", 18..21));
        assert_eq!(f.read("d", floats::<3>).unwrap(), [1.0, 2.0, 3.0]);
        assert!(f
            .read("d", floats::<2>)
            .unwrap_err()
            .message
            .contains("length 3"));
        let t = fields(f.req("t").unwrap(), "t", &["e", "f"]).unwrap();
        assert_eq!(t.get("e").unwrap().get_ref(), &Value::Boolean(true));
        assert_eq!(
            t.get("f").unwrap().get_ref(),
            &Value::Datetime("1979-05-27".into())
        );
        assert_eq!(f.opt("zz", float).unwrap(), None);
    }

    #[test]
    fn problems_are_errors_at_their_place() {
        let text = "a = 1\nbad = 2\n";
        let doc = parse(text).unwrap();
        let e = fields(&doc, "doc", &["a"]).err().unwrap();
        assert_eq!(e.span, 6..9);
        assert_eq!(e.message, "unknown field `bad`, expected `a`");
        let f = fields(&doc, "doc", &["a", "bad", "c"]).unwrap();
        assert_eq!(f.req("c").err().unwrap().message, "missing field `c`");
        let e = f.read("a", string).unwrap_err();
        assert_eq!(
            (e.span, e.message.as_str()),
            (4..5, "invalid type: integer, expected a string")
        );
        assert_eq!(
            parse("a = 99999999999999999999").unwrap_err().message,
            "integer number overflowed"
        );
        assert_eq!(
            parse("a = 1e999").unwrap_err().message,
            "floating-point number overflowed"
        );
        let x = parse("a = -inf\nb = 0x1F\nc = 1_000.5").unwrap();
        let f = fields(&x, "doc", &["a", "b", "c"]).unwrap();
        assert_eq!(f.read("a", float).unwrap(), f64::NEG_INFINITY);
        assert_eq!(f.read("b", float).unwrap(), 31.0);
        assert_eq!(f.read("c", float).unwrap(), 1000.5);
        let e = parse("a = \nb = 1").unwrap_err();
        assert_eq!(e.span.start, 4, "{e:?}");
    }
}
