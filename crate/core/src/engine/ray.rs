//! Queries of a primitive shape: ray intersection (MuJoCo's `mju_rayGeom`, without the
//! normal), for the touch sensor's test of a contact force's ray against its site zone, and
//! point inclusion (`mju_insideGeom`), for the insidesite sensor.

use crate::math::{Mat3, Vec3, MINVAL};
use crate::model::GeomType;

/// The shapes a ray meets here, as `geom_type`/`site_type` numbers.
mod geom {
    use super::GeomType;
    pub const PLANE: i32 = GeomType::Plane as i32;
    pub const SPHERE: i32 = GeomType::Sphere as i32;
    pub const CAPSULE: i32 = GeomType::Capsule as i32;
    pub const ELLIPSOID: i32 = GeomType::Ellipsoid as i32;
    pub const CYLINDER: i32 = GeomType::Cylinder as i32;
    pub const BOX: i32 = GeomType::Box as i32;
}

/// Distance along `vec` (in units of |vec|) from `pnt` to the first intersection with the shape
/// of type `geomtype` (sphere, capsule, ellipsoid, cylinder or box) and half-sizes `size` at
/// `pos` with orientation `mat`; -1 when the ray misses. A ray starting inside meets the surface
/// on its way out, so a point inside the shape always counts.
pub fn ray_geom(pos: &Vec3, mat: &Mat3, size: &Vec3, pnt: &Vec3, vec: &Vec3, geomtype: i32) -> f64 {
    match geomtype {
        geom::SPHERE => ray_sphere(pos, size[0] * size[0], pnt, vec),
        geom::CAPSULE => ray_capsule(pos, mat, size, pnt, vec),
        geom::ELLIPSOID => ray_ellipsoid(pos, mat, size, pnt, vec),
        geom::CYLINDER => ray_cylinder(pos, mat, size, pnt, vec),
        geom::BOX => ray_box(pos, mat, size, pnt, vec),
        // sites have no other shapes
        _ => -1.0,
    }
}

/// Whether `point` lies strictly inside the shape of type `geomtype` and half-sizes `size` at
/// `pos` with orientation `mat` (`mju_insideGeom`; a plane's inside is below it).
pub fn inside_geom(pos: &Vec3, mat: &Mat3, size: &Vec3, geomtype: i32, point: &Vec3) -> bool {
    let v = [point[0] - pos[0], point[1] - pos[1], point[2] - pos[2]];
    if geomtype == geom::SPHERE {
        return v[0] * v[0] + v[1] * v[1] + v[2] * v[2] < size[0] * size[0];
    }
    let p = crate::math::mul_mat_t_vec3(mat, &v);
    let r2 = p[0] * p[0] + p[1] * p[1];
    match geomtype {
        geom::CAPSULE => {
            let dz = p[2] - crate::math::clip(p[2], -size[1], size[1]);
            r2 + dz * dz < size[0] * size[0]
        }
        geom::ELLIPSOID => {
            p[0] * p[0] / (size[0] * size[0])
                + p[1] * p[1] / (size[1] * size[1])
                + p[2] * p[2] / (size[2] * size[2])
                < 1.0
        }
        geom::CYLINDER => p[2].abs() < size[1] && r2 < size[0] * size[0],
        geom::BOX => (0..3).all(|k| p[k].abs() < size[k]),
        geom::PLANE => p[2] < 0.0,
        _ => false,
    }
}

/// The ray in the shape's frame: point relative to `pos` and direction, both rotated by `matᵀ`.
fn to_local(pos: &Vec3, mat: &Mat3, pnt: &Vec3, vec: &Vec3) -> (Vec3, Vec3) {
    let dif = [pnt[0] - pos[0], pnt[1] - pos[1], pnt[2] - pos[2]];
    let rot = |v: &Vec3| {
        [
            mat[0] * v[0] + mat[3] * v[1] + mat[6] * v[2],
            mat[1] * v[0] + mat[4] * v[1] + mat[7] * v[2],
            mat[2] * v[0] + mat[5] * v[1] + mat[8] * v[2],
        ]
    };
    (rot(&dif), rot(vec))
}

/// Both real roots of `a x² + 2 b x + c = 0` (ascending; -1 each when there are none) and the
/// smallest non-negative one, or -1.
fn quad(a: f64, b: f64, c: f64) -> (f64, [f64; 2]) {
    let det = b * b - a * c;
    if det < 0.0 || a < MINVAL {
        return (-1.0, [-1.0, -1.0]);
    }
    let det = det.sqrt();
    let x = [(-b - det) / a, (-b + det) / a];
    let first = if x[0] >= 0.0 {
        x[0]
    } else if x[1] >= 0.0 {
        x[1]
    } else {
        -1.0
    };
    (first, x)
}

fn ray_sphere(pos: &Vec3, dist_sqr: f64, pnt: &Vec3, vec: &Vec3) -> f64 {
    let dif = [pnt[0] - pos[0], pnt[1] - pos[1], pnt[2] - pos[2]];
    let a = vec[0] * vec[0] + vec[1] * vec[1] + vec[2] * vec[2];
    let b = vec[0] * dif[0] + vec[1] * dif[1] + vec[2] * dif[2];
    let c = dif[0] * dif[0] + dif[1] * dif[1] + dif[2] * dif[2] - dist_sqr;
    quad(a, b, c).0
}

/// The smaller non-negative of the best so far (`x`, -1 for none) and `sol`.
fn nearer(x: f64, sol: f64) -> f64 {
    if sol >= 0.0 && (x < 0.0 || sol < x) {
        sol
    } else {
        x
    }
}

fn ray_capsule(pos: &Vec3, mat: &Mat3, size: &Vec3, pnt: &Vec3, vec: &Vec3) -> f64 {
    let bound = size[0] + size[1];
    if ray_sphere(pos, bound * bound, pnt, vec) < 0.0 {
        return -1.0;
    }
    let (lp, lv) = to_local(pos, mat, pnt, vec);
    let mut x = round_side(&lp, &lv, size);
    // the caps: the outer half of each end sphere
    let a = lv[0] * lv[0] + lv[1] * lv[1] + lv[2] * lv[2];
    for side in [1.0, -1.0] {
        let d = [lp[0], lp[1], lp[2] - side * size[1]];
        let b = lv[0] * d[0] + lv[1] * d[1] + lv[2] * d[2];
        let c = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] - size[0] * size[0];
        let (_, roots) = quad(a, b, c);
        for r in roots {
            if r >= 0.0 && side * (lp[2] + r * lv[2]) >= size[1] {
                x = nearer(x, r);
            }
        }
    }
    x
}

fn ray_ellipsoid(pos: &Vec3, mat: &Mat3, size: &Vec3, pnt: &Vec3, vec: &Vec3) -> f64 {
    let (lp, lv) = to_local(pos, mat, pnt, vec);
    let s = size.map(|r| 1.0 / (r * r));
    let a = s[0] * lv[0] * lv[0] + s[1] * lv[1] * lv[1] + s[2] * lv[2] * lv[2];
    let b = s[0] * lv[0] * lp[0] + s[1] * lv[1] * lp[1] + s[2] * lv[2] * lp[2];
    let c = s[0] * lp[0] * lp[0] + s[1] * lp[1] * lp[1] + s[2] * lp[2] * lp[2] - 1.0;
    quad(a, b, c).0
}

fn ray_cylinder(pos: &Vec3, mat: &Mat3, size: &Vec3, pnt: &Vec3, vec: &Vec3) -> f64 {
    if ray_sphere(pos, size[0] * size[0] + size[1] * size[1], pnt, vec) < 0.0 {
        return -1.0;
    }
    let (lp, lv) = to_local(pos, mat, pnt, vec);
    let mut x = -1.0;
    // the flat ends, within the radius
    if lv[2].abs() > MINVAL {
        for side in [-1.0, 1.0] {
            let sol = (side * size[1] - lp[2]) / lv[2];
            if sol >= 0.0 {
                let p0 = lp[0] + sol * lv[0];
                let p1 = lp[1] + sol * lv[1];
                if p0 * p0 + p1 * p1 <= size[0] * size[0] {
                    x = nearer(x, sol);
                }
            }
        }
    }
    nearer(x, round_side(&lp, &lv, size))
}

/// A ray in a capsule's or cylinder's frame against its round side (radius `size[0]` about z)
/// between `z = ±size[1]`: the distance, or -1.
fn round_side(lp: &Vec3, lv: &Vec3, size: &Vec3) -> f64 {
    let a = lv[0] * lv[0] + lv[1] * lv[1];
    let b = lv[0] * lp[0] + lv[1] * lp[1];
    let c = lp[0] * lp[0] + lp[1] * lp[1] - size[0] * size[0];
    let (sol, _) = quad(a, b, c);
    if sol >= 0.0 && (lp[2] + sol * lv[2]).abs() <= size[1] {
        sol
    } else {
        -1.0
    }
}

fn ray_box(pos: &Vec3, mat: &Mat3, size: &Vec3, pnt: &Vec3, vec: &Vec3) -> f64 {
    if ray_sphere(
        pos,
        size[0] * size[0] + size[1] * size[1] + size[2] * size[2],
        pnt,
        vec,
    ) < 0.0
    {
        return -1.0;
    }
    let (lp, lv) = to_local(pos, mat, pnt, vec);
    let mut x = -1.0;
    // each face: the ray meets its plane inside the face's rectangle
    for i in 0..3 {
        if lv[i].abs() <= MINVAL {
            continue;
        }
        let (j, k) = ((i + 1) % 3, (i + 2) % 3);
        for side in [-1.0, 1.0] {
            let sol = (side * size[i] - lp[i]) / lv[i];
            if sol >= 0.0
                && (lp[j] + sol * lv[j]).abs() <= size[j]
                && (lp[k] + sol * lv[k]).abs() <= size[k]
            {
                x = nearer(x, sol);
            }
        }
    }
    x
}

#[cfg(test)]
mod tests {
    use super::*;

    const EYE: Mat3 = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0];

    /// Distances worked by hand for rays from outside, from inside and missing, each shape.
    #[test]
    fn distances_by_hand() {
        let o = [0.0; 3];
        let down = [0.0, 0.0, -1.0];
        let cases: [(i32, Vec3, Vec3, Vec3, f64); 12] = [
            // a unit sphere from 3 above: the top at distance 2
            (geom::SPHERE, [1.0, 0.0, 0.0], [0.0, 0.0, 3.0], down, 2.0),
            // from the centre: the bottom at 1
            (geom::SPHERE, [1.0, 0.0, 0.0], o, down, 1.0),
            // passing beside it
            (geom::SPHERE, [1.0, 0.0, 0.0], [2.0, 0.0, 3.0], down, -1.0),
            // capsule radius 0.5, half-length 1 along z: its top cap at z = 1.5
            (geom::CAPSULE, [0.5, 1.0, 0.0], [0.0, 0.0, 3.0], down, 1.5),
            // from the side at x = 2 towards -x: the round side at x = 0.5
            (
                geom::CAPSULE,
                [0.5, 1.0, 0.0],
                [2.0, 0.0, 0.0],
                [-1.0, 0.0, 0.0],
                1.5,
            ),
            // ellipsoid half-axes 1, 2, 3: from 5 above, the top at z = 3
            (geom::ELLIPSOID, [1.0, 2.0, 3.0], [0.0, 0.0, 5.0], down, 2.0),
            // cylinder radius 1, half-height 0.5: the flat top from 2 above
            (geom::CYLINDER, [1.0, 0.5, 0.0], [0.0, 0.0, 2.0], down, 1.5),
            // the round side, a ray along -y from y = 3
            (
                geom::CYLINDER,
                [1.0, 0.5, 0.0],
                [0.0, 3.0, 0.0],
                [0.0, -1.0, 0.0],
                2.0,
            ),
            // box half-sizes 1, 2, 3: the top face from z = 4, with a ray of length 2
            (
                geom::BOX,
                [1.0, 2.0, 3.0],
                [0.5, 0.5, 4.0],
                [0.0, 0.0, -2.0],
                0.5,
            ),
            // from inside, towards +x: the face at x = 1
            (
                geom::BOX,
                [1.0, 2.0, 3.0],
                [0.25, 0.0, 0.0],
                [1.0, 0.0, 0.0],
                0.75,
            ),
            // beside the box
            (geom::BOX, [1.0, 2.0, 3.0], [1.5, 0.0, 4.0], down, -1.0),
            // pointing away
            (
                geom::BOX,
                [1.0, 2.0, 3.0],
                [0.0, 0.0, 4.0],
                [0.0, 0.0, 1.0],
                -1.0,
            ),
        ];
        for (t, size, pnt, vec, want) in cases {
            let got = ray_geom(&o, &EYE, &size, &pnt, &vec, t);
            assert!(
                (got - want).abs() < 1e-12,
                "type {t} {pnt:?}: {got} vs {want}"
            );
        }
    }

    /// Points inside and outside each shape, by hand.
    #[test]
    fn inside_by_hand() {
        let o = [0.0; 3];
        let cases: [(i32, Vec3, Vec3, bool); 12] = [
            (geom::SPHERE, [1.0, 0.0, 0.0], [0.5, 0.5, 0.5], true),
            (geom::SPHERE, [1.0, 0.0, 0.0], [0.7, 0.7, 0.2], false),
            // capsule radius 0.5, half-length 1: inside the end cap, outside beyond it
            (geom::CAPSULE, [0.5, 1.0, 0.0], [0.0, 0.3, 1.3], true),
            (geom::CAPSULE, [0.5, 1.0, 0.0], [0.0, 0.4, 1.4], false),
            (geom::ELLIPSOID, [1.0, 2.0, 3.0], [0.0, 1.9, 0.0], true),
            (geom::ELLIPSOID, [1.0, 2.0, 3.0], [0.8, 0.0, 2.0], false),
            (geom::CYLINDER, [1.0, 0.5, 0.0], [0.6, 0.6, 0.4], true),
            (geom::CYLINDER, [1.0, 0.5, 0.0], [0.0, 0.0, 0.6], false),
            (geom::BOX, [1.0, 2.0, 3.0], [0.9, -1.9, 2.9], true),
            (geom::BOX, [1.0, 2.0, 3.0], [1.0, 0.0, 0.0], false),
            (geom::PLANE, [1.0, 1.0, 0.0], [5.0, 5.0, -0.1], true),
            (geom::PLANE, [1.0, 1.0, 0.0], [0.0, 0.0, 0.1], false),
        ];
        for (t, size, p, want) in cases {
            assert_eq!(inside_geom(&o, &EYE, &size, t, &p), want, "type {t} {p:?}");
        }
    }

    /// The shape's pose applies: a box turned 90° about z and moved.
    #[test]
    fn pose_applies() {
        let rz: Mat3 = [0.0, -1.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0];
        let pos = [10.0, 0.0, 0.0];
        // half-sizes 1 (local x, world y) and 3 (local y, world x): from x = 20 towards -x
        let x = ray_geom(
            &pos,
            &rz,
            &[1.0, 3.0, 1.0],
            &[20.0, 0.0, 0.0],
            &[-1.0, 0.0, 0.0],
            geom::BOX,
        );
        assert!((x - 7.0).abs() < 1e-12, "{x}");
    }
}
