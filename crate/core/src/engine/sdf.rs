//! Signed distance fields of MuJoCo's SDF plugins (`plugin/sdf/*.cc`), callable by the
//! compiler (which meshes them) and by the collision stage. Only `mujoco.sdf.torus` so far.

use crate::math::{self, Vec3};

/// Plugin name of the torus SDF.
pub const TORUS_PLUGIN: &str = "mujoco.sdf.torus";

/// A torus around the z axis: ring radius `radius1` and tube radius `radius2` (m).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Torus {
    /// Distance from the axis to the centre of the tube (m).
    pub radius1: f64,
    /// Radius of the tube (m).
    pub radius2: f64,
}

impl Torus {
    /// The plugin's config keys, in its attribute order.
    pub const ATTRIBUTES: [&'static str; 2] = ["radius1", "radius2"];

    /// Reads the instance config as the plugin's `SdfDefault` does: an unset key takes its
    /// default (0.35, 0.15 m); a value that is not a number is an error naming the key.
    pub fn from_config(
        config: &[(String, String)],
        parse: crate::ParseF64,
    ) -> Result<Torus, String> {
        let get = |key: &str, default: f64| -> Result<f64, String> {
            let v = config
                .iter()
                .find(|(k, _)| k == key)
                .map_or("", |(_, v)| v.as_str());
            if v.is_empty() {
                return Ok(default);
            }
            leading_number(v, parse).ok_or_else(|| format!("invalid attribute value for '{key}'"))
        };
        Ok(Torus {
            radius1: get("radius1", 0.35)?,
            radius2: get("radius2", 0.15)?,
        })
    }

    /// Signed distance from point `p` (m, torus frame) to the surface: negative inside.
    pub fn distance(&self, p: &Vec3) -> f64 {
        let q = (p[0] * p[0] + p[1] * p[1]).sqrt() - self.radius1;
        (q * q + p[2] * p[2]).sqrt() - self.radius2
    }

    /// Gradient of [`Torus::distance`] at `p` (unit length away from the tube's core circle).
    pub fn gradient(&self, p: &Vec3) -> Vec3 {
        let len_xy = (p[0] * p[0] + p[1] * p[1]).sqrt();
        let q = len_xy - self.radius1;
        let grad_q = [p[0] / len_xy, p[1] / len_xy];
        // MuJoCo guards the tube-core singularity with mjMINVAL, not the axis one
        let len_qz = (q * q + p[2] * p[2]).sqrt().max(math::MINVAL);
        [
            q * grad_q[0] / len_qz,
            q * grad_q[1] / len_qz,
            p[2] / len_qz,
        ]
    }

    /// Axis-aligned bounding box as MuJoCo's `sdf_aabb`: centre then half-sizes (m).
    pub fn aabb(&self) -> [f64; 6] {
        let r = self.radius1 + self.radius2;
        [0.0, 0.0, 0.0, r, r, self.radius2]
    }
}

/// `std::stod`: the longest leading decimal number (after leading white space), or None.
fn leading_number(s: &str, parse: crate::ParseF64) -> Option<f64> {
    let t = s.trim_start();
    (1..=t.len())
        .rev()
        .filter(|&n| t.is_char_boundary(n))
        .find_map(|n| parse(&t[..n]))
}

#[cfg(test)]
mod tests {
    use super::*;

    const RUST: crate::ParseF64 = |s| s.parse().ok();

    #[test]
    fn distance_gradient_and_defaults() {
        let t = Torus::from_config(&[], RUST).unwrap();
        assert_eq!((t.radius1, t.radius2), (0.35, 0.15));
        let t = Torus::from_config(&[("radius1".into(), "0.55".into())], RUST).unwrap();
        assert_eq!(t.distance(&[0.55, 0.0, 0.0]), -0.15);
        assert!((t.distance(&[0.0, 0.9, 0.0]) - 0.2).abs() < 1e-15);
        assert_eq!(t.gradient(&[0.0, 0.0, 0.0]).len(), 3);
        let g = t.gradient(&[0.0, 0.9, 0.0]);
        assert!((g[1] - 1.0).abs() < 1e-15 && g[0] == 0.0 && g[2] == 0.0);
        assert_eq!(t.aabb(), [0.0, 0.0, 0.0, 0.55 + 0.15, 0.55 + 0.15, 0.15]);
        assert!(Torus::from_config(&[("radius2".into(), "x".into())], RUST).is_err());
        assert_eq!(
            Torus::from_config(&[("radius2".into(), " 0.2m".into())], RUST)
                .unwrap()
                .radius2,
            0.2
        );
    }
}
