//! Small fixed-size vector, matrix and quaternion operations on `[f64; N]`.
//!
//! The engine reproduces MuJoCo's numbers, so these follow MuJoCo's conventions: matrices are
//! row-major 3×3, quaternions are `(w, x, y, z)`, and each operation evaluates its terms in the
//! same order as MuJoCo does, so rounding agrees to the last bits where it matters.

/// MuJoCo's `mjMINVAL`: the smallest value treated as non-zero.
pub const MINVAL: f64 = 1e-15;
/// MuJoCo's `mjMAXVAL`: values above this are treated as diverged.
pub const MAXVAL: f64 = 1e10;
/// The compiler's `mjEPS` (user_util.h): the tolerance of compile-time geometry tests and
/// normalizations. Not the engine's `mjMINVAL`.
pub const EPS: f64 = 1e-14;
/// π as MuJoCo spells it.
pub const PI: f64 = std::f64::consts::PI;

pub type Vec3 = [f64; 3];
pub type Quat = [f64; 4];
pub type Mat3 = [f64; 9];

/// The smaller of `a` and `b` as MuJoCo's `mju_min` picks it (`a < b ? a : b`). In the
/// browser `f64::min` is a call to `fmin` (wasm's own `f64.min` treats NaN differently), so hot
/// loops over boxes use this, which is one compare and select.
#[inline(always)]
pub fn min(a: f64, b: f64) -> f64 {
    if a < b {
        a
    } else {
        b
    }
}

/// The larger of `a` and `b` as MuJoCo's `mju_max` picks it (`a > b ? a : b`); see [`min`].
#[inline(always)]
pub fn max(a: f64, b: f64) -> f64 {
    if a > b {
        a
    } else {
        b
    }
}

#[inline]
pub fn add3(a: &Vec3, b: &Vec3) -> Vec3 {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

#[inline]
pub fn sub3(a: &Vec3, b: &Vec3) -> Vec3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

#[inline]
pub fn scl3(a: &Vec3, s: f64) -> Vec3 {
    [a[0] * s, a[1] * s, a[2] * s]
}

#[inline]
pub fn add_to3(a: &mut Vec3, b: &Vec3) {
    a[0] += b[0];
    a[1] += b[1];
    a[2] += b[2];
}

#[inline]
pub fn add_to_scl3(a: &mut Vec3, b: &Vec3, s: f64) {
    a[0] += b[0] * s;
    a[1] += b[1] * s;
    a[2] += b[2] * s;
}

#[inline]
pub fn dot3(a: &Vec3, b: &Vec3) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

#[inline]
pub fn norm3(a: &Vec3) -> f64 {
    dot3(a, a).sqrt()
}

#[inline]
pub fn cross(a: &Vec3, b: &Vec3) -> Vec3 {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// Normalizes in place and returns the original length; a near-zero vector becomes (1,0,0).
#[inline]
pub fn normalize3(v: &mut Vec3) -> f64 {
    let norm = norm3(v);
    if norm < MINVAL {
        *v = [1.0, 0.0, 0.0];
    } else {
        let inv = 1.0 / norm;
        v[0] *= inv;
        v[1] *= inv;
        v[2] *= inv;
    }
    norm
}

/// Normalizes a quaternion in place; a near-zero quaternion becomes the identity.
#[inline]
pub fn normalize4(q: &mut Quat) -> f64 {
    let norm = (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]).sqrt();
    if norm < MINVAL {
        *q = [1.0, 0.0, 0.0, 0.0];
    } else if (norm - 1.0).abs() > MINVAL {
        let inv = 1.0 / norm;
        q[0] *= inv;
        q[1] *= inv;
        q[2] *= inv;
        q[3] *= inv;
    }
    norm
}

/// `x` within `[lo, hi]` by comparisons, as MuJoCo's `mju_clip`: bounds that come from a model
/// may be reversed or NaN, where `f64::clamp` panics (here a NaN bound clamps nothing, and
/// reversed bounds give MuJoCo's answer).
#[inline]
pub fn clip(x: f64, lo: f64, hi: f64) -> f64 {
    if x < lo {
        lo
    } else if x > hi {
        hi
    } else {
        x
    }
}

#[inline]
pub fn mul_mat_vec3(m: &Mat3, v: &Vec3) -> Vec3 {
    [
        m[0] * v[0] + m[1] * v[1] + m[2] * v[2],
        m[3] * v[0] + m[4] * v[1] + m[5] * v[2],
        m[6] * v[0] + m[7] * v[1] + m[8] * v[2],
    ]
}

#[inline]
pub fn mul_mat_t_vec3(m: &Mat3, v: &Vec3) -> Vec3 {
    [
        m[0] * v[0] + m[3] * v[1] + m[6] * v[2],
        m[1] * v[0] + m[4] * v[1] + m[7] * v[2],
        m[2] * v[0] + m[5] * v[1] + m[8] * v[2],
    ]
}

/// Transpose of a row-major 3×3 matrix.
#[inline]
pub fn transpose3(m: &Mat3) -> Mat3 {
    [m[0], m[3], m[6], m[1], m[4], m[7], m[2], m[5], m[8]]
}

/// Row-major 3×3 product `a·b`.
#[inline]
pub fn mul_mat_mat3(a: &Mat3, b: &Mat3) -> Mat3 {
    let mut r = [0.0; 9];
    for i in 0..3 {
        for j in 0..3 {
            r[3 * i + j] = a[3 * i] * b[j] + a[3 * i + 1] * b[3 + j] + a[3 * i + 2] * b[6 + j];
        }
    }
    r
}

pub const IDENTITY_QUAT: Quat = [1.0, 0.0, 0.0, 0.0];
pub const IDENTITY_MAT: Mat3 = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0];

#[inline]
fn is_identity_quat(q: &Quat) -> bool {
    q[0] == 1.0 && q[1] == 0.0 && q[2] == 0.0 && q[3] == 0.0
}

/// Rotates `v` by the unit quaternion `q`.
#[inline]
pub fn rot_vec_quat(v: &Vec3, q: &Quat) -> Vec3 {
    if v[0] == 0.0 && v[1] == 0.0 && v[2] == 0.0 {
        return [0.0; 3];
    }
    if is_identity_quat(q) {
        return *v;
    }
    let t = [
        q[0] * v[0] + q[2] * v[2] - q[3] * v[1],
        q[0] * v[1] + q[3] * v[0] - q[1] * v[2],
        q[0] * v[2] + q[1] * v[1] - q[2] * v[0],
    ];
    [
        v[0] + 2.0 * (q[2] * t[2] - q[3] * t[1]),
        v[1] + 2.0 * (q[3] * t[0] - q[1] * t[2]),
        v[2] + 2.0 * (q[1] * t[1] - q[2] * t[0]),
    ]
}

/// Quaternion product `a·b`.
#[inline]
pub fn mul_quat(a: &Quat, b: &Quat) -> Quat {
    [
        a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3],
        a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
        a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1],
        a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0],
    ]
}

/// The rotation vector (axis·angle, rad) of a quaternion, with the angle wrapped into
/// (−π, π] (MuJoCo's `mju_quat2Vel` with dt = 1).
#[inline]
pub fn quat_to_vel(q: &Quat) -> Vec3 {
    let mut axis = [q[1], q[2], q[3]];
    let sin_a2 = normalize3(&mut axis);
    let mut speed = 2.0 * sin_a2.atan2(q[0]);
    if speed > PI {
        speed -= 2.0 * PI;
    }
    scl3(&axis, speed)
}

#[inline]
pub fn neg_quat(q: &Quat) -> Quat {
    [q[0], -q[1], -q[2], -q[3]]
}

/// Quaternion of a rotation by `angle` (rad) about the unit `axis`.
#[inline]
pub fn axis_angle_to_quat(axis: &Vec3, angle: f64) -> Quat {
    if angle == 0.0 {
        return IDENTITY_QUAT;
    }
    let s = (angle * 0.5).sin();
    [(angle * 0.5).cos(), axis[0] * s, axis[1] * s, axis[2] * s]
}

/// Rotation matrix of a unit quaternion.
#[inline]
pub fn quat_to_mat(q: &Quat) -> Mat3 {
    if is_identity_quat(q) {
        return IDENTITY_MAT;
    }
    let q00 = q[0] * q[0];
    let q01 = q[0] * q[1];
    let q02 = q[0] * q[2];
    let q03 = q[0] * q[3];
    let q11 = q[1] * q[1];
    let q12 = q[1] * q[2];
    let q13 = q[1] * q[3];
    let q22 = q[2] * q[2];
    let q23 = q[2] * q[3];
    let q33 = q[3] * q[3];
    [
        q00 + q11 - q22 - q33,
        2.0 * (q12 - q03),
        2.0 * (q13 + q02),
        2.0 * (q12 + q03),
        q00 - q11 + q22 - q33,
        2.0 * (q23 - q01),
        2.0 * (q13 - q02),
        2.0 * (q23 + q01),
        q00 - q11 - q22 + q33,
    ]
}

/// Unit quaternion of a rotation matrix.
pub fn mat_to_quat(m: &Mat3) -> Quat {
    let mut q = [0.0; 4];
    if m[0] + m[4] + m[8] > 0.0 {
        q[0] = 0.5 * (1.0 + m[0] + m[4] + m[8]).sqrt();
        q[1] = 0.25 * (m[7] - m[5]) / q[0];
        q[2] = 0.25 * (m[2] - m[6]) / q[0];
        q[3] = 0.25 * (m[3] - m[1]) / q[0];
    } else if m[0] > m[4] && m[0] > m[8] {
        q[1] = 0.5 * (1.0 + m[0] - m[4] - m[8]).sqrt();
        q[0] = 0.25 * (m[7] - m[5]) / q[1];
        q[2] = 0.25 * (m[1] + m[3]) / q[1];
        q[3] = 0.25 * (m[2] + m[6]) / q[1];
    } else if m[4] > m[8] {
        q[2] = 0.5 * (1.0 - m[0] + m[4] - m[8]).sqrt();
        q[0] = 0.25 * (m[2] - m[6]) / q[2];
        q[1] = 0.25 * (m[1] + m[3]) / q[2];
        q[3] = 0.25 * (m[5] + m[7]) / q[2];
    } else {
        q[3] = 0.5 * (1.0 - m[0] - m[4] + m[8]).sqrt();
        q[0] = 0.25 * (m[3] - m[1]) / q[3];
        q[1] = 0.25 * (m[2] + m[6]) / q[3];
        q[2] = 0.25 * (m[5] + m[7]) / q[3];
    }
    normalize4(&mut q);
    q
}

/// Integrates a quaternion by the angular velocity `vel` (rad/s) over `scale` seconds.
pub fn quat_integrate(q: &mut Quat, vel: &Vec3, scale: f64) {
    let mut axis = *vel;
    let angle = scale * normalize3(&mut axis);
    let qrot = axis_angle_to_quat(&axis, angle);
    normalize4(q);
    *q = mul_quat(q, &qrot);
}

/// The rotation taking the z axis to `vec` (identity for a near-zero vector).
pub fn quat_z_to_vec(vec: &Vec3) -> Quat {
    let mut vn = *vec;
    if normalize3(&mut vn) < MINVAL {
        return IDENTITY_QUAT;
    }
    let z = [0.0, 0.0, 1.0];
    let mut axis = cross(&z, &vn);
    let a = normalize3(&mut axis);
    if a.abs() < MINVAL {
        if dot3(&vn, &z) < 0.0 {
            return [0.0, 1.0, 0.0, 0.0];
        }
        return IDENTITY_QUAT;
    }
    let angle = a.atan2(dot3(&vn, &z));
    axis_angle_to_quat(&axis, angle)
}

/// Spatial cross product for motion vectors `[ang; lin]`: `vel ×ₘ v`.
#[inline]
pub fn cross_motion(vel: &[f64], v: &[f64]) -> [f64; 6] {
    let mut r = [
        -vel[2] * v[1] + vel[1] * v[2],
        vel[2] * v[0] - vel[0] * v[2],
        -vel[1] * v[0] + vel[0] * v[1],
        -vel[2] * v[4] + vel[1] * v[5],
        vel[2] * v[3] - vel[0] * v[5],
        -vel[1] * v[3] + vel[0] * v[4],
    ];
    r[3] += -vel[5] * v[1] + vel[4] * v[2];
    r[4] += vel[5] * v[0] - vel[3] * v[2];
    r[5] += -vel[4] * v[0] + vel[3] * v[1];
    r
}

/// Spatial cross product for force vectors: `vel ×f f`.
#[inline]
pub fn cross_force(vel: &[f64], f: &[f64]) -> [f64; 6] {
    let mut r = [
        -vel[2] * f[1] + vel[1] * f[2],
        vel[2] * f[0] - vel[0] * f[2],
        -vel[1] * f[0] + vel[0] * f[1],
        -vel[2] * f[4] + vel[1] * f[5],
        vel[2] * f[3] - vel[0] * f[5],
        -vel[1] * f[3] + vel[0] * f[4],
    ];
    r[0] += -vel[5] * f[4] + vel[4] * f[5];
    r[1] += vel[5] * f[3] - vel[3] * f[5];
    r[2] += -vel[4] * f[3] + vel[3] * f[4];
    r
}

/// A spatial vector `[rotational; translational]` moved from `oldpos` to `newpos` and, with
/// `rot`, expressed in that frame (`mju_transformSpatial`): a force's torque changes with the
/// point (`force`), a motion's linear part does.
#[inline(never)]
pub fn transform_spatial(
    vec: &[f64; 6],
    force: bool,
    newpos: &Vec3,
    oldpos: &Vec3,
    rot: Option<&Mat3>,
) -> [f64; 6] {
    let mut tran = *vec;
    let dif = sub3(newpos, oldpos);
    if force {
        let c = cross(&dif, &[vec[3], vec[4], vec[5]]);
        for k in 0..3 {
            tran[k] = vec[k] - c[k];
        }
    } else {
        let c = cross(&dif, &[vec[0], vec[1], vec[2]]);
        for k in 0..3 {
            tran[3 + k] = vec[3 + k] - c[k];
        }
    }
    match rot {
        Some(r) => {
            let a = mul_mat_t_vec3(r, &[tran[0], tran[1], tran[2]]);
            let b = mul_mat_t_vec3(r, &[tran[3], tran[4], tran[5]]);
            [a[0], a[1], a[2], b[0], b[1], b[2]]
        }
        None => tran,
    }
}

/// Rotational inertia `mat·diag(inert)·matᵀ` of principal inertia `inert` in frame `mat`, as
/// its 6 distinct entries (xx, yy, zz, xy, xz, yz), summed in `mj_comPos`'s order.
#[inline]
pub fn rotate_inertia(inert: &Vec3, mat: &Mat3) -> [f64; 6] {
    let t = [
        mat[0] * inert[0],
        mat[3] * inert[0],
        mat[6] * inert[0],
        mat[1] * inert[1],
        mat[4] * inert[1],
        mat[7] * inert[1],
        mat[2] * inert[2],
        mat[5] * inert[2],
        mat[8] * inert[2],
    ];
    [
        mat[0] * t[0] + mat[1] * t[3] + mat[2] * t[6],
        mat[3] * t[1] + mat[4] * t[4] + mat[5] * t[7],
        mat[6] * t[2] + mat[7] * t[5] + mat[8] * t[8],
        mat[0] * t[1] + mat[1] * t[4] + mat[2] * t[7],
        mat[0] * t[2] + mat[1] * t[5] + mat[2] * t[8],
        mat[3] * t[2] + mat[4] * t[5] + mat[5] * t[8],
    ]
}

/// Spatial inertia (10 numbers: rotational 6, first moment 3, mass) about a point offset by
/// `dif` from the body's centre of mass, from principal inertia `inert` in frame `mat`.
pub fn inert_com(inert: &Vec3, mat: &Mat3, dif: &Vec3, mass: f64) -> [f64; 10] {
    let mut r = [0.0; 10];
    r[..6].copy_from_slice(&rotate_inertia(inert, mat));
    r[0] += mass * (dif[1] * dif[1] + dif[2] * dif[2]);
    r[1] += mass * (dif[0] * dif[0] + dif[2] * dif[2]);
    r[2] += mass * (dif[0] * dif[0] + dif[1] * dif[1]);
    r[3] -= mass * dif[0] * dif[1];
    r[4] -= mass * dif[0] * dif[2];
    r[5] -= mass * dif[1] * dif[2];
    r[6] = mass * dif[0];
    r[7] = mass * dif[1];
    r[8] = mass * dif[2];
    r[9] = mass;
    r
}

/// Product of a 10-number spatial inertia with a motion vector.
#[inline]
pub fn mul_inert_vec(i: &[f64], v: &[f64]) -> [f64; 6] {
    [
        i[0] * v[0] + i[3] * v[1] + i[4] * v[2] - i[8] * v[4] + i[7] * v[5],
        i[3] * v[0] + i[1] * v[1] + i[5] * v[2] + i[8] * v[3] - i[6] * v[5],
        i[4] * v[0] + i[5] * v[1] + i[2] * v[2] - i[7] * v[3] + i[6] * v[4],
        i[8] * v[1] - i[7] * v[2] + i[9] * v[3],
        i[6] * v[2] - i[8] * v[0] + i[9] * v[4],
        i[7] * v[0] - i[6] * v[1] + i[9] * v[5],
    ]
}

/// Vector `i` of `a` read as consecutive `N`-vectors, with one bounds check for the whole
/// vector (indexing coordinate by coordinate checks each).
#[inline(always)]
pub fn get_n<const N: usize>(a: &[f64], i: usize) -> [f64; N] {
    get_at(a, N * i)
}

/// The `N` values of `a` from offset `at` (a dof address, say), with one bounds check (see
/// [`get_n`]).
#[inline(always)]
pub fn get_at<const N: usize>(a: &[f64], at: usize) -> [f64; N] {
    a[at..at + N].try_into().unwrap()
}

/// Writes `v` as vector `i` of `a` read as consecutive `N`-vectors (see [`get_n`]).
#[inline(always)]
pub fn set_n<const N: usize>(a: &mut [f64], i: usize, v: [f64; N]) {
    *a[N * i..].first_chunk_mut::<N>().unwrap() = v;
}

/// Dense dot product with MuJoCo's summation order (four running sums, then the tail), so
/// long sums round exactly as `mju_dot` does.
#[inline]
pub fn dot(a: &[f64], b: &[f64]) -> f64 {
    let n = a.len().min(b.len());
    let (mut r0, mut r1, mut r2, mut r3) = (0.0, 0.0, 0.0, 0.0);
    let mut i = 0;
    while i + 4 <= n {
        r0 += a[i] * b[i];
        r1 += a[i + 1] * b[i + 1];
        r2 += a[i + 2] * b[i + 2];
        r3 += a[i + 3] * b[i + 3];
        i += 4;
    }
    let mut res = (r0 + r2) + (r1 + r3);
    match n - i {
        3 => res += a[i] * b[i] + a[i + 1] * b[i + 1] + a[i + 2] * b[i + 2],
        2 => res += a[i] * b[i] + a[i + 1] * b[i + 1],
        1 => res += a[i] * b[i],
        _ => {}
    }
    res
}

/// True for NaN, ±Inf or a magnitude above [`MAXVAL`] (MuJoCo's `mju_isBad`).
#[inline]
pub fn is_bad(x: f64) -> bool {
    x.is_nan() || !(-MAXVAL..=MAXVAL).contains(&x)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quaternion_rotation_matches_matrix() {
        let mut q = [0.3, -0.2, 0.9, 0.1];
        normalize4(&mut q);
        let m = quat_to_mat(&q);
        let v = [0.4, -1.2, 2.5];
        let a = rot_vec_quat(&v, &q);
        let b = mul_mat_vec3(&m, &v);
        for k in 0..3 {
            assert!((a[k] - b[k]).abs() < 1e-14);
        }
        let q2 = mat_to_quat(&m);
        for k in 0..4 {
            assert!((q[k] - q2[k]).abs() < 1e-14);
        }
    }
}
