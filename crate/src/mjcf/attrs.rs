//! Typed attribute readers. Each failure names the element, the attribute and the line.

use super::xml::Element;
use crate::error::Result;

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
        Ok(())
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

    /// All numbers of a numeric attribute.
    pub fn numbers(&self, name: &str) -> Result<Option<Vec<f64>>> {
        let Some(text) = self.attr(name) else {
            return Ok(None);
        };
        let mut out = Vec::new();
        for tok in text.split_ascii_whitespace() {
            let v = parse_number(tok).ok_or_else(|| {
                self.attr_error(name, format!("bad number '{tok}' in attribute '{name}'"))
            })?;
            out.push(v);
        }
        Ok(Some(out))
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
        // MuJoCo's words (its ReadAttr), which say which way the count is off
        if v.len() > N {
            let msg = format!("attribute '{name}' has too much data");
            return Err(self.attr_error(name, msg));
        }
        if v.len() < min {
            let msg = format!("attribute '{name}' does not have enough data");
            return Err(self.attr_error(name, msg));
        }
        out[..v.len()].copy_from_slice(&v);
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
        if self.read_f64s(name, N, &mut tmp)? {
            for (o, t) in out.iter_mut().zip(tmp.iter()) {
                *o = *t as f32;
            }
        }
        Ok(())
    }

    /// An integer attribute.
    pub fn int(&self, name: &str) -> Result<Option<i32>> {
        let Some(text) = self.attr(name) else {
            return Ok(None);
        };
        let t = text.trim();
        t.parse::<i32>()
            .map(Some)
            .map_err(|_| self.attr_error(name, format!("bad integer '{t}' in attribute '{name}'")))
    }

    pub fn read_int(&self, name: &str, out: &mut i32) -> Result<()> {
        if let Some(v) = self.int(name)? {
            *out = v;
        }
        Ok(())
    }

    /// A list of integers (MuJoCo accepts integral reals in some lists, e.g. `<pin id>`).
    pub fn ints(&self, name: &str) -> Result<Option<Vec<i32>>> {
        let Some(v) = self.numbers(name)? else {
            return Ok(None);
        };
        let mut out = Vec::with_capacity(v.len());
        for x in v {
            if x.fract() != 0.0 || x.abs() > i32::MAX as f64 {
                return Err(self.attr_error(
                    name,
                    format!(
                        "attribute '{name}' must hold integers, got {}",
                        crate::decimal::Decimal(x)
                    ),
                ));
            }
            out.push(x as i32);
        }
        Ok(Some(out))
    }

    pub fn int3(&self, name: &str, out: &mut [i32; 3]) -> Result<()> {
        if let Some(v) = self.ints(name)? {
            if v.len() != 3 {
                return Err(self.attr_error(
                    name,
                    format!("attribute '{name}' must have 3 values, got {}", v.len()),
                ));
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
        Err(self.attr_error(
            name,
            format!(
                "invalid keyword '{t}' in attribute '{name}'; valid: {}",
                valid.join(", ")
            ),
        ))
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

fn parse_number(tok: &str) -> Option<f64> {
    let v = crate::decimal::parse_f64(tok)?;
    if v.is_finite() {
        Some(v)
    } else {
        None
    }
}
