//! Orientation specifiers (quat, axisangle, xyaxes, zaxis, euler) resolved to quaternions with
//! the compiler's angle unit and euler sequence, following MuJoCo's compiler utilities.

use crate::spec::Orientation;

/// MuJoCo's compiler-side normalisation: zero for a squared norm below 1e-6, and no division
/// when already within 1e-6 of unit length.
pub fn normvec(v: &mut [f64]) -> f64 {
    let mut nrm = 0.0;
    for x in v.iter() {
        nrm += x * x;
    }
    if nrm < crate::math::EPS {
        return 0.0;
    }
    let nrm = nrm.sqrt();
    if (nrm - 1.0).abs() > crate::math::EPS {
        for x in v.iter_mut() {
            *x /= nrm;
        }
    }
    nrm
}

/// Quaternion product followed by the compiler's normalisation.
pub fn mulquat(a: &[f64; 4], b: &[f64; 4]) -> [f64; 4] {
    let mut t = crate::math::mul_quat(a, b);
    normvec(&mut t);
    t
}

/// Quaternion of the frame whose axes are the columns x, y, z.
pub fn frame_to_quat(x: &[f64; 3], y: &[f64; 3], z: &[f64; 3]) -> [f64; 4] {
    let m = [x, y, z]; // m[c][r]
    let mut q = [0.0; 4];
    if m[0][0] + m[1][1] + m[2][2] > 0.0 {
        q[0] = 0.5 * (1.0 + m[0][0] + m[1][1] + m[2][2]).sqrt();
        q[1] = 0.25 * (m[1][2] - m[2][1]) / q[0];
        q[2] = 0.25 * (m[2][0] - m[0][2]) / q[0];
        q[3] = 0.25 * (m[0][1] - m[1][0]) / q[0];
    } else if m[0][0] > m[1][1] && m[0][0] > m[2][2] {
        q[1] = 0.5 * (1.0 + m[0][0] - m[1][1] - m[2][2]).sqrt();
        q[0] = 0.25 * (m[1][2] - m[2][1]) / q[1];
        q[2] = 0.25 * (m[1][0] + m[0][1]) / q[1];
        q[3] = 0.25 * (m[2][0] + m[0][2]) / q[1];
    } else if m[1][1] > m[2][2] {
        q[2] = 0.5 * (1.0 - m[0][0] + m[1][1] - m[2][2]).sqrt();
        q[0] = 0.25 * (m[2][0] - m[0][2]) / q[2];
        q[1] = 0.25 * (m[1][0] + m[0][1]) / q[2];
        q[3] = 0.25 * (m[2][1] + m[1][2]) / q[2];
    } else {
        q[3] = 0.5 * (1.0 - m[0][0] - m[1][1] + m[2][2]).sqrt();
        q[0] = 0.25 * (m[0][1] - m[1][0]) / q[3];
        q[1] = 0.25 * (m[2][0] + m[0][2]) / q[3];
        q[2] = 0.25 * (m[2][1] + m[1][2]) / q[3];
    }
    normvec(&mut q);
    q
}

/// Quaternion rotating +z onto `vec`.
pub fn z_to_quat(vec: &[f64; 3]) -> [f64; 4] {
    let z = [0.0, 0.0, 1.0];
    let c = crate::math::cross(&z, vec);
    let mut q = [0.0, c[0], c[1], c[2]];
    let s = normvec(&mut q[1..4]);
    if s < 1e-10 {
        q[1] = 1.0;
        q[2] = 0.0;
        q[3] = 0.0;
    }
    let ang = s.atan2(vec[2]);
    let (sa, ca) = ((ang / 2.0).sin(), (ang / 2.0).cos());
    [ca, q[1] * sa, q[2] * sa, q[3] * sa]
}

/// Resolves an orientation specifier to a quaternion. A plain `quat` is returned as written;
/// callers that need unit quaternions normalise it, as MuJoCo does per object kind.
pub fn resolve(o: &Orientation, degree: bool, seq: &[u8; 3]) -> Result<[f64; 4], String> {
    let torad = |a: f64| {
        if degree {
            a / 180.0 * crate::math::PI
        } else {
            a
        }
    };
    match *o {
        Orientation::Quat(q) => Ok(q),
        Orientation::AxisAngle(aa) => {
            let mut axis = [aa[0], aa[1], aa[2]];
            let ang = torad(aa[3]);
            if normvec(&mut axis) < crate::math::EPS {
                return Err("axisangle too small".into());
            }
            let h = ang / 2.0;
            Ok([
                h.cos(),
                h.sin() * axis[0],
                h.sin() * axis[1],
                h.sin() * axis[2],
            ])
        }
        Orientation::XYAxes(xy) => {
            let mut x = [xy[0], xy[1], xy[2]];
            let mut y = [xy[3], xy[4], xy[5]];
            if normvec(&mut x) < crate::math::EPS {
                return Err("xaxis too small".into());
            }
            let d = crate::math::dot3(&x, &y);
            y[0] -= x[0] * d;
            y[1] -= x[1] * d;
            y[2] -= x[2] * d;
            if normvec(&mut y) < crate::math::EPS {
                return Err("yaxis too small".into());
            }
            let mut z = crate::math::cross(&x, &y);
            if normvec(&mut z) < crate::math::EPS {
                return Err("cross(xaxis, yaxis) too small".into());
            }
            Ok(frame_to_quat(&x, &y, &z))
        }
        Orientation::ZAxis(z) => {
            let mut z = z;
            if normvec(&mut z) < crate::math::EPS {
                return Err("zaxis too small".into());
            }
            Ok(z_to_quat(&z))
        }
        Orientation::Euler(e) => {
            let mut q = [1.0, 0.0, 0.0, 0.0];
            for i in 0..3 {
                let a = torad(e[i]);
                let sa = (a / 2.0).sin();
                let mut r = [(a / 2.0).cos(), 0.0, 0.0, 0.0];
                match seq[i] {
                    b'x' | b'X' => r[1] = sa,
                    b'y' | b'Y' => r[2] = sa,
                    b'z' | b'Z' => r[3] = sa,
                    _ => return Err("euler sequence can only contain x, y, z, X, Y, Z".into()),
                }
                q = if seq[i].is_ascii_lowercase() {
                    mulquat(&q, &r)
                } else {
                    mulquat(&r, &q)
                };
            }
            normvec(&mut q);
            Ok(q)
        }
    }
}
