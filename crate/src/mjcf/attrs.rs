//! Typed attribute readers. Each failure names the element, the attribute and the line.

use super::number::{self, BadNumber};
use super::xml::Element;
use crate::error::Result;

/// The attributes that take ±infinity: bounds, where an infinite one means no bound.
const INFINITE_OK: &[&str] = &[
    "range",
    "ctrlrange",
    "forcerange",
    "actrange",
    "actuatorfrcrange",
];

impl Element {
    /// Rejects attributes outside `allowed` the way MuJoCo's schema check does.
    pub fn check_attrs(&self, allowed: &[&str]) -> Result<()> {
        for (k, _) in &self.attrs {
            if !allowed.contains(&k.as_str()) {
                return Err(self.attr_error(
                    k,
                    format!("Schema violation: unrecognized attribute: '{k}'"),
                ));
            }
        }
        self.check_presence()
    }

    /// Rejects attributes that are valid MJCF but not implemented by flexlab.
    pub fn reject_unsupported(&self, attrs: &[&str]) -> Result<()> {
        for a in attrs {
            if self.attr(a).is_some() {
                let mut e = self.attr_error(
                    a,
                    format!(
                        "attribute '{a}' of <{}> is not supported by flexlab yet",
                        self.name
                    ),
                );
                e.kind = crate::error::ErrorKind::Unsupported;
                return Err(e);
            }
        }
        Ok(())
    }

    /// The first coefficient of a polynomial attribute (`stiffness`, `damping`): flexlab
    /// implements the linear term only, so any non-zero higher coefficient is a located
    /// "not supported" error naming `what`.
    pub fn linear_coef(&self, name: &str, what: &str) -> Result<Option<f64>> {
        let Some(v) = self.numbers(name)? else {
            return Ok(None);
        };
        if v.len() > 1 && v[1..].iter().any(|x| *x != 0.0) {
            let mut e = self.attr_error(name, format!("{what} is not supported by flexlab yet"));
            e.kind = crate::error::ErrorKind::Unsupported;
            return Err(e);
        }
        Ok(Some(v.first().copied().unwrap_or(0.0)))
    }

    /// All numbers of a numeric attribute; an empty (or blank) one is absent, as MuJoCo's
    /// ReadAttr reads no number from it and leaves the default (`pos=""`, `timestep=" "`).
    pub fn numbers(&self, name: &str) -> Result<Option<Vec<f64>>> {
        self.read_numbers(name, false)
    }

    /// [`Self::numbers`], each checked to be `double` (or, with `single`, also `float`, which
    /// MuJoCo reads with `strtof`: past its range or below its normal range is `ERANGE` too).
    fn read_numbers(&self, name: &str, single: bool) -> Result<Option<Vec<f64>>> {
        let Some(text) = self.attr(name).filter(|t| !t.trim_ascii().is_empty()) else {
            return Ok(None);
        };
        let mut out = Vec::new();
        for tok in text.split_ascii_whitespace() {
            let bad = |e: BadNumber| self.attr_error(name, e.message(name, tok));
            let v = number::parse(tok).map_err(bad)?;
            if single && v.is_finite() {
                let f = v as f32;
                if f.is_infinite() || (v != 0.0 && f.abs() < f32::MIN_POSITIVE) {
                    return Err(bad(BadNumber::TooLarge));
                }
            }
            if v.is_nan() || (v.is_infinite() && !INFINITE_OK.contains(&name)) {
                return Err(self.non_finite(name, v));
            }
            out.push(v);
        }
        Ok(Some(out))
    }

    /// MuJoCo 3.15.0 loads NaN (with a warning) and ±infinity anywhere; flexlab takes ±infinity
    /// in the range attributes, where it means "no bound on this side" (the clamps and limit
    /// rows handle it as MuJoCo's do), and refuses the rest as not supported, rather than
    /// carry a NaN or an infinite size, mass or stiffness into the compiler and the step.
    fn non_finite(&self, name: &str, v: f64) -> crate::Error {
        let msg = if v.is_nan() {
            format!(
                "NaN in attribute '{name}' is not supported by flexlab (MuJoCo 3.15.0 loads it \
                 with the warning \"XML contains a 'NaN'. Please check it carefully.\")"
            )
        } else {
            format!(
                "an infinite value in attribute '{name}' is not supported by flexlab (only the \
                 range attributes take one: {})",
                INFINITE_OK.join(", ")
            )
        };
        let mut e = self.attr_error(name, msg);
        e.kind = crate::error::ErrorKind::Unsupported;
        e
    }

    /// Between `min` and `N` numbers written into `out` (the rest keep their values).
    pub fn read_f64s<const N: usize>(
        &self,
        name: &str,
        min: usize,
        out: &mut [f64; N],
    ) -> Result<bool> {
        let Some(v) = self.numbers(name)? else {
            return Ok(false);
        };
        self.counted(name, &v, min, out)
    }

    /// `v` into `out` when it holds between `min` and `N` numbers.
    fn counted<const N: usize>(
        &self,
        name: &str,
        v: &[f64],
        min: usize,
        out: &mut [f64; N],
    ) -> Result<bool> {
        // MuJoCo's words (its ReadAttr), which say which way the count is off
        if v.len() > N {
            let msg = format!("attribute '{name}' has too much data");
            return Err(self.attr_error(name, msg));
        }
        if v.len() < min {
            let msg = format!("attribute '{name}' does not have enough data");
            return Err(self.attr_error(name, msg));
        }
        out[..v.len()].copy_from_slice(v);
        Ok(true)
    }

    /// Exactly `N` numbers.
    pub fn exact_f64s<const N: usize>(&self, name: &str) -> Result<Option<[f64; N]>> {
        let mut out = [0.0; N];
        Ok(if self.read_f64s(name, N, &mut out)? {
            Some(out)
        } else {
            None
        })
    }

    pub fn f64(&self, name: &str) -> Result<Option<f64>> {
        Ok(self.exact_f64s::<1>(name)?.map(|v| v[0]))
    }

    pub fn read_f64(&self, name: &str, out: &mut f64) -> Result<()> {
        if let Some(v) = self.f64(name)? {
            *out = v;
        }
        Ok(())
    }

    pub fn f32s<const N: usize>(&self, name: &str, out: &mut [f32; N]) -> Result<()> {
        let mut tmp = [0.0f64; N];
        for (t, o) in tmp.iter_mut().zip(out.iter()) {
            *t = *o as f64;
        }
        let Some(v) = self.read_numbers(name, true)? else {
            return Ok(());
        };
        if self.counted(name, &v, N, &mut tmp)? {
            for (o, t) in out.iter_mut().zip(tmp.iter()) {
                *o = *t as f32;
            }
        }
        Ok(())
    }

    /// An integer attribute.
    pub fn int(&self, name: &str) -> Result<Option<i32>> {
        let Some(text) = self.attr(name).filter(|t| !t.trim_ascii().is_empty()) else {
            return Ok(None);
        };
        let t = text.trim();
        if t.split_ascii_whitespace().nth(1).is_some() {
            return Err(self.attr_error(name, format!("attribute '{name}' has too much data")));
        }
        number::parse_int(t)
            .map(Some)
            .map_err(|e| self.attr_error(name, e.message(name, t)))
    }

    pub fn read_int(&self, name: &str, out: &mut i32) -> Result<()> {
        if let Some(v) = self.int(name)? {
            *out = v;
        }
        Ok(())
    }

    /// A list of integers, each read as MuJoCo 3.15.0 reads it (`strtol`, base 10): an optional
    /// sign and digits, so `1.0`, `1e0` and `0x1` are "bad format" (checked on `<pin id>`,
    /// `<flex element>` and `<flexcomp count>`), and past the `int` range "number is too large".
    pub fn ints(&self, name: &str) -> Result<Option<Vec<i32>>> {
        let Some(text) = self.attr(name).filter(|t| !t.trim_ascii().is_empty()) else {
            return Ok(None);
        };
        let mut out = Vec::new();
        for tok in text.split_ascii_whitespace() {
            let v = number::parse_int(tok).map_err(|e| self.attr_error(name, e.message(name, tok)));
            out.push(v?);
        }
        Ok(Some(out))
    }

    pub fn int3(&self, name: &str, out: &mut [i32; 3]) -> Result<()> {
        if let Some(v) = self.ints(name)? {
            if v.len() != 3 {
                let off = if v.len() > 3 {
                    "has too much data"
                } else {
                    "does not have enough data"
                };
                return Err(self.attr_error(name, format!("attribute '{name}' {off}")));
            }
            out.copy_from_slice(&v);
        }
        Ok(())
    }

    /// A keyword attribute mapped through `map`.
    pub fn keyword<T: Copy>(&self, name: &str, map: &[(&str, T)]) -> Result<Option<T>> {
        let Some(text) = self.attr(name) else {
            return Ok(None);
        };
        let t = text.trim();
        for (k, v) in map {
            if *k == t {
                return Ok(Some(*v));
            }
        }
        let valid: Vec<&str> = map.iter().map(|(k, _)| *k).collect();
        Err(self.attr_error(name, invalid_keyword(t, name, &valid)))
    }

    pub fn bool(&self, name: &str) -> Result<Option<bool>> {
        self.keyword(name, &[("false", false), ("true", true)])
    }

    pub fn read_bool(&self, name: &str, out: &mut bool) -> Result<()> {
        if let Some(v) = self.bool(name)? {
            *out = v;
        }
        Ok(())
    }

    pub fn string(&self, name: &str) -> Option<String> {
        self.attr(name).map(|s| s.to_string())
    }
}

/// MuJoCo's words for a keyword it does not know, then which ones the attribute takes.
pub fn invalid_keyword(word: &str, attr: &str, valid: &[&str]) -> String {
    format!(
        "invalid keyword: '{word}' (attribute '{attr}' takes {})",
        valid.join(", ")
    )
}
