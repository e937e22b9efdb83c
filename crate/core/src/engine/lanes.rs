//! Two `f64` lanes that the browser runs as one wasm `simd128` register. Kernels that repeat one
//! small computation over independent items (3×3 block products, dot products) run two items or
//! rows at once with it. Every lane operation is the IEEE operation of the scalar code it
//! replaces (no fused multiply-add), so results are bit-identical to the scalar kernel on every
//! target.

use std::ops::{Add, Div, Mul, Sub};

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod imp {
    use core::arch::wasm32::*;
    pub type Reg = v128;
    #[inline(always)]
    pub fn new(a: f64, b: f64) -> Reg {
        f64x2(a, b)
    }
    #[inline(always)]
    pub fn load(s: &[f64]) -> Reg {
        let s = &s[..2];
        // SAFETY: `s` holds two f64 (checked by the slice above), and wasm loads need no
        // alignment.
        unsafe { v128_load(s.as_ptr() as *const v128) }
    }
    #[inline(always)]
    pub fn lanes(r: Reg) -> [f64; 2] {
        [f64x2_extract_lane::<0>(r), f64x2_extract_lane::<1>(r)]
    }
    #[inline(always)]
    pub fn add(a: Reg, b: Reg) -> Reg {
        f64x2_add(a, b)
    }
    #[inline(always)]
    pub fn sub(a: Reg, b: Reg) -> Reg {
        f64x2_sub(a, b)
    }
    #[inline(always)]
    pub fn mul(a: Reg, b: Reg) -> Reg {
        f64x2_mul(a, b)
    }
    #[inline(always)]
    pub fn div(a: Reg, b: Reg) -> Reg {
        f64x2_div(a, b)
    }
    // pmin(b, a) is `a < b ? a : b` and pmax(b, a) is `b < a ? a : b` per lane: math::min and
    // math::max exactly, as one instruction each where a scalar select became a branch
    #[inline(always)]
    pub fn min(a: Reg, b: Reg) -> Reg {
        f64x2_pmin(b, a)
    }
    #[inline(always)]
    pub fn max(a: Reg, b: Reg) -> Reg {
        f64x2_pmax(b, a)
    }
}

// Natively a pair of plain `f64` operations, which the compiler vectorises where it sees fit.
// The browser is where the lanes are meant to pay; SSE2 intrinsics would need `unsafe` for the
// native bench.
#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
mod imp {
    pub type Reg = [f64; 2];
    #[inline(always)]
    pub fn new(a: f64, b: f64) -> Reg {
        [a, b]
    }
    #[inline(always)]
    pub fn load(s: &[f64]) -> Reg {
        [s[0], s[1]]
    }
    #[inline(always)]
    pub fn lanes(r: Reg) -> [f64; 2] {
        r
    }
    #[inline(always)]
    pub fn add(a: Reg, b: Reg) -> Reg {
        [a[0] + b[0], a[1] + b[1]]
    }
    #[inline(always)]
    pub fn sub(a: Reg, b: Reg) -> Reg {
        [a[0] - b[0], a[1] - b[1]]
    }
    #[inline(always)]
    pub fn mul(a: Reg, b: Reg) -> Reg {
        [a[0] * b[0], a[1] * b[1]]
    }
    #[inline(always)]
    pub fn div(a: Reg, b: Reg) -> Reg {
        [a[0] / b[0], a[1] / b[1]]
    }
    #[inline(always)]
    pub fn min(a: Reg, b: Reg) -> Reg {
        [crate::math::min(a[0], b[0]), crate::math::min(a[1], b[1])]
    }
    #[inline(always)]
    pub fn max(a: Reg, b: Reg) -> Reg {
        [crate::math::max(a[0], b[0]), crate::math::max(a[1], b[1])]
    }
}

/// Two `f64` lanes.
#[derive(Clone, Copy)]
pub struct F64x2(imp::Reg);

impl F64x2 {
    #[inline(always)]
    pub fn new(a: f64, b: f64) -> Self {
        F64x2(imp::new(a, b))
    }

    #[inline(always)]
    pub fn splat(a: f64) -> Self {
        F64x2(imp::new(a, a))
    }

    /// `s[0]`, `s[1]` (one vector load in the browser).
    #[inline(always)]
    pub fn load(s: &[f64]) -> Self {
        F64x2(imp::load(s))
    }

    /// Lanes 0 and 1.
    #[inline(always)]
    pub fn lanes(self) -> [f64; 2] {
        imp::lanes(self.0)
    }

    /// [`crate::math::min`] per lane (`self < o ? self : o`, NaN and signed zeros included).
    #[inline(always)]
    pub fn min(self, o: F64x2) -> F64x2 {
        F64x2(imp::min(self.0, o.0))
    }

    /// [`crate::math::max`] per lane (`self > o ? self : o`).
    #[inline(always)]
    pub fn max(self, o: F64x2) -> F64x2 {
        F64x2(imp::max(self.0, o.0))
    }
}

impl Add for F64x2 {
    type Output = F64x2;
    #[inline(always)]
    fn add(self, o: F64x2) -> F64x2 {
        F64x2(imp::add(self.0, o.0))
    }
}

impl Sub for F64x2 {
    type Output = F64x2;
    #[inline(always)]
    fn sub(self, o: F64x2) -> F64x2 {
        F64x2(imp::sub(self.0, o.0))
    }
}

impl Mul for F64x2 {
    type Output = F64x2;
    #[inline(always)]
    fn mul(self, o: F64x2) -> F64x2 {
        F64x2(imp::mul(self.0, o.0))
    }
}

impl Div for F64x2 {
    type Output = F64x2;
    #[inline(always)]
    fn div(self, o: F64x2) -> F64x2 {
        F64x2(imp::div(self.0, o.0))
    }
}

#[cfg(test)]
mod tests {
    use super::F64x2;

    #[test]
    fn lanes_are_the_scalar_operations() {
        let (a, b) = (F64x2::new(1.0 / 3.0, -7.25), F64x2::new(0.1, 3.0));
        assert_eq!((a + b).lanes(), [1.0 / 3.0 + 0.1, -7.25 + 3.0]);
        assert_eq!((a - b).lanes(), [1.0 / 3.0 - 0.1, -7.25 - 3.0]);
        assert_eq!((a * b).lanes(), [1.0 / 3.0 * 0.1, -7.25 * 3.0]);
        assert_eq!((a / b).lanes(), [1.0 / 3.0 / 0.1, -7.25 / 3.0]);
        assert_eq!(F64x2::splat(2.5).lanes(), [2.5, 2.5]);
        assert_eq!(F64x2::load(&[4.0, 5.0, 6.0][1..]).lanes(), [5.0, 6.0]);
    }

    #[test]
    fn min_max_are_math_min_max_bit_for_bit() {
        use crate::math::{max, min};
        let v = [
            -1.5,
            0.0,
            -0.0,
            2.0,
            f64::NAN,
            f64::INFINITY,
            -f64::INFINITY,
        ];
        for &a in &v {
            for &b in &v {
                let (x, y) = (F64x2::new(a, b), F64x2::new(b, a));
                let (lo, hi) = (x.min(y).lanes(), x.max(y).lanes());
                assert_eq!(lo[0].to_bits(), min(a, b).to_bits(), "min({a}, {b})");
                assert_eq!(lo[1].to_bits(), min(b, a).to_bits(), "min({b}, {a})");
                assert_eq!(hi[0].to_bits(), max(a, b).to_bits(), "max({a}, {b})");
                assert_eq!(hi[1].to_bits(), max(b, a).to_bits(), "max({b}, {a})");
            }
        }
    }
}
