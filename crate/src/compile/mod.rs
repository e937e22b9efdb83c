//! The model compiler: [`Spec`] → [`Model`], as MuJoCo's `mjCModel::Compile` followed by
//! `mj_setConst` and the engine checks of its compile-time test step.

pub mod flex;
pub mod flexbvh;
pub mod flexcomp;
pub mod flexvert;
pub mod gmsh;
pub mod hull;
pub mod hullgraph;
pub mod interp;
pub mod marching_cubes;
pub mod material;
pub mod mesh;
pub mod meshasset;
pub mod meshpoly;
pub mod orient;
pub mod support;
pub mod warnings;

pub mod actuation;
pub mod bodybvh;
pub mod bvh;
pub mod checks;
pub mod composite;
mod efm0;
mod sensor;
mod setconst;
mod sparsity;

use crate::error::{Error, Result};
use crate::math;
use crate::model::{obj, Model};
use crate::spec::*;

pub use checks::check_engine;

/// Number of `size` values each geom type uses (`mjGEOMINFO`).
const GEOMINFO: [usize; 9] = [3, 0, 1, 2, 3, 2, 3, 0, 0];

/// The depth below the world at which MuJoCo's model signature (`mjCModel::PrintTree`) stops.
const MAX_BODY_DEPTH: usize = 1024;

fn cerr_obj(msg: impl Into<String>, kind: &str, name: &str, line: u32) -> Error {
    let mut e = Error::compile(msg).at_element(kind).at_object(name);
    if line > 0 {
        e = e.at_line(line);
    }
    e
}

/// Explicit contact pairs (`mjCPair::Compile`), in MuJoCo's order: each pair's geoms with the
/// one of the lower body id first, then every pair stably sorted by body signature, the order
/// `mj_collision` merges them with the broad phase's body pairs.
fn compile_pairs(spec: &Spec, m: &mut Model) -> Result<()> {
    // the map type of the flexes' body lookup, so no other hash-table code is built for it
    let mut geom_ids = std::collections::HashMap::with_capacity(m.ngeom);
    for (g, n) in m.names_geom.iter().enumerate() {
        if !n.is_empty() {
            geom_ids.entry(n.clone()).or_insert(g);
        }
    }
    let mut compiled = Vec::with_capacity(spec.pairs.len());
    for (id, p) in spec.pairs.iter().enumerate() {
        let err = |msg: String| cerr_obj(msg, "pair", &p.name, p.line);
        if ![1, 3, 4, 6].contains(&p.condim) {
            return Err(err("invalid condim in contact pair".into()));
        }
        let find = |name: &str| {
            geom_ids
                .get(name)
                .copied()
                .ok_or_else(|| err(format!("geom '{name}' not found in collision {id}")))
        };
        let (mut g1, mut g2) = (find(&p.geom1)?, find(&p.geom2)?);
        if m.geom_bodyid[g1] > m.geom_bodyid[g2] {
            std::mem::swap(&mut g1, &mut g2);
        }
        let signature = (m.geom_bodyid[g1] << 16) + m.geom_bodyid[g2];
        compiled.push((signature, g1, g2, p));
    }
    // stable: pairs of one body signature keep the order they were written in (the crate's
    // own sort: the standard one would add 3 kB of wasm for this one element type)
    crate::sort::sort_by(&mut compiled, |a, b| a.0.cmp(&b.0));
    for (signature, g1, g2, p) in compiled {
        m.pair_dim.push(p.condim);
        m.pair_geom1.push(g1 as i32);
        m.pair_geom2.push(g2 as i32);
        m.pair_signature.push(signature);
        m.pair_solref.extend_from_slice(&p.solref);
        m.pair_solreffriction.extend_from_slice(&p.solreffriction);
        m.pair_solimp.extend_from_slice(&p.solimp);
        m.pair_margin.push(p.margin);
        m.pair_gap.push(p.gap);
        m.pair_adhesion.push(p.adhesion);
        m.pair_friction.extend_from_slice(&p.friction);
    }
    m.npair = spec.pairs.len();
    Ok(())
}

/// A located "not supported" error for a feature MuJoCo has and flexlab lacks (the object named
/// when it has a name).
fn unsupported_at(msg: &str, element: &str, name: &str, line: u32) -> Error {
    let mut e = Error::unsupported(msg).at_element(element).at_line(line);
    if !name.is_empty() {
        e = e.at_object(name);
    }
    e
}

/// A compiled body (body-frame quantities, ids in the compiled order).
#[derive(Clone)]
struct CBody {
    spec: usize,
    parent: usize,
    weldid: usize,
    rootid: usize,
    pos: [f64; 3],
    quat: [f64; 4],
    ipos: [f64; 3],
    iquat: [f64; 4],
    mass: f64,
    inertia: [f64; 3],
    xpos0: [f64; 3],
    xquat0: [f64; 4],
    joints: Vec<usize>,
    geoms: Vec<usize>,
    sites: Vec<usize>,
    dofnum: usize,
}

/// A compiled geom in its body frame.
#[derive(Clone)]
struct CGeom {
    spec: usize,
    body: usize,
    pos: [f64; 3],
    quat: [f64; 4],
    size: [f64; 3],
    mass: f64,
    inertia: [f64; 3],
    aabb: [f64; 6],
    rbound: f64,
    /// Mesh asset of a mesh or sdf geom.
    mesh: Option<usize>,
    /// `geom_matid`: the material, or -1.
    matid: i32,
}

/// The id of material `name` (-1 for none), or None when no material has that name.
fn material_id(spec: &Spec, name: &str) -> Option<i32> {
    if name.is_empty() {
        return Some(-1);
    }
    spec.materials
        .iter()
        .position(|mt| mt.name == name)
        .map(|p| p as i32)
}

/// The pose of `<frame>` `f` (with its enclosing frames) in its body, or None without one.
fn frame_pose(
    frames: &[FrameSpec],
    c: &CompilerSpec,
    f: Option<usize>,
) -> Result<Option<([f64; 3], [f64; 4])>> {
    let Some(mut f) = f else {
        return Ok(None);
    };
    let mut pose = ([0.0; 3], [1.0, 0.0, 0.0, 0.0]);
    // innermost first: each enclosing frame is applied on the left
    loop {
        let fs = &frames[f];
        let err = |e| Error::compile(format!("orientation error '{e}' in frame")).at_line(fs.line);
        let own = match &fs.placement {
            FramePlacement::Copy(r) => replicate_pose(r, c).map_err(err)?,
            FramePlacement::Pose { pos, orient } => (*pos, resolve_quat(orient, c).map_err(err)?),
        };
        pose = in_pose(&own, &pose);
        match fs.parent {
            Some(p) => f = p,
            None => return Ok(Some(pose)),
        }
    }
}

/// The pose of copy `r.index` of a `<replicate>`: turned by index·euler (resolved anew for
/// each copy, as MuJoCo does), placed at the sum of the offsets turned by each earlier copy's
/// rotation (MuJoCo's running `mjuu_frameaccum`).
fn replicate_pose(
    r: &ReplicateCopy,
    c: &CompilerSpec,
) -> std::result::Result<([f64; 3], [f64; 4]), String> {
    let turned = |k: usize| {
        let k = k as f64;
        let e = [k * r.euler[0], k * r.euler[1], k * r.euler[2]];
        resolve_quat(&Orientation::Euler(e), c)
    };
    let mut pos = [0.0; 3];
    for k in 0..r.index {
        pos = in_pose(&(pos, turned(k)?), &(r.offset, [1.0, 0.0, 0.0, 0.0])).0;
    }
    Ok((pos, turned(r.index)?))
}

/// `child` (a pose in frame `frame`) in the frame's parent: MuJoCo's `mjuu_frameaccum`.
fn in_pose(frame: &([f64; 3], [f64; 4]), child: &([f64; 3], [f64; 4])) -> ([f64; 3], [f64; 4]) {
    let r = math::mul_mat_vec3(&math::quat_to_mat(&frame.1), &child.0);
    (
        math::add3(&frame.0, &r),
        orient::mulquat(&frame.1, &child.1),
    )
}

/// The `quat` attribute of an orientation: the identity when another form gives it.
fn written_quat(o: &Orientation) -> [f64; 4] {
    match o {
        Orientation::Quat(q) => *q,
        _ => [1.0, 0.0, 0.0, 0.0],
    }
}

/// Places every body, joint, camera and light read inside a `<frame>` in its body (a body's and
/// camera's orientation becomes a quaternion), so the compiler sees no frames there; the MJCF
/// reader calls it once the document (and its compiler settings) is read. Geoms and sites are
/// placed where their pose is resolved, since a `fromto` gives it in the frame.
pub(crate) fn place_framed(spec: &mut Spec) -> Result<()> {
    let (frames, c) = (&spec.frames, &spec.compiler);
    for b in spec.bodies.iter_mut() {
        if let Some(frame) = frame_pose(frames, c, b.frame.take())? {
            b.written_pose = Some((b.pos, written_quat(&b.orient)));
            let q = resolve_quat(&b.orient, c).map_err(|e| {
                cerr_obj(
                    format!("error '{e}' in frame alternative"),
                    "body",
                    &b.name,
                    b.line,
                )
            })?;
            let (pos, quat) = in_pose(&frame, &(b.pos, q));
            b.pos = pos;
            b.orient = Orientation::Quat(quat);
        }
    }
    for j in spec.joints.iter_mut() {
        if let Some(frame) = frame_pose(frames, c, j.frame.take())? {
            j.pos = in_pose(&frame, &(j.pos, [1.0, 0.0, 0.0, 0.0])).0;
            j.axis = math::mul_mat_vec3(&math::quat_to_mat(&frame.1), &j.axis);
        }
    }
    for v in spec.cameras.iter_mut().chain(spec.lights.iter_mut()) {
        if let Some(frame) = frame_pose(frames, c, v.frame.take())? {
            let q = resolve_quat(&v.orient, c).unwrap_or([1.0, 0.0, 0.0, 0.0]);
            let (pos, quat) = in_pose(&frame, &(v.pos, q));
            v.pos = pos;
            v.orient = Orientation::Quat(quat);
            v.dir = math::mul_mat_vec3(&math::quat_to_mat(&frame.1), &v.dir);
        }
    }
    Ok(())
}

/// Compiles a spec into a model, running the compile-time checks MuJoCo runs.
pub fn compile(spec: &Spec) -> Result<Model> {
    if spec.compiler.discardvisual {
        // MuJoCo drops these geoms (and meshes only they use) after their mass is counted
        if let Some(g) = spec
            .geoms
            .iter()
            .find(|g| g.contype == 0 && g.conaffinity == 0)
        {
            return Err(unsupported_at(
                "compiler discardvisual='true' with a visual-only geom (contype=conaffinity=0) is not supported by flexlab yet",
                "geom",
                &g.name,
                g.line,
            ));
        }
    }
    let (mut m, jnt_spec) = build(spec)?;
    if spec.compiler.settotalmass > 0.0 {
        set_totalmass(&mut m, spec.compiler.settotalmass);
    }
    setconst::set_const(&mut m)?;
    auto_spring_damper(&mut m, spec, &jnt_spec);
    setconst::apply_statistic(&mut m, &spec.statistic);
    checks::check_engine(&m)?;
    let configs: Vec<Option<&[(String, String)]>> = spec
        .plugins
        .iter()
        .map(|p| (p.plugin == crate::engine::cable::CABLE_PLUGIN).then_some(p.config.as_slice()))
        .collect();
    if configs.iter().any(Option::is_some) {
        let mut d = crate::Data::new(&m);
        m.cable = crate::engine::cable::init(&m, &mut d, &configs, crate::decimal::parse_f64)?;
    }
    m.plugin_torus = spec
        .plugins
        .iter()
        .map(|p| {
            (p.plugin == crate::engine::sdf::TORUS_PLUGIN)
                .then(|| {
                    crate::engine::sdf::Torus::from_config(&p.config, crate::decimal::parse_f64)
                        .ok()
                })
                .flatten()
        })
        .collect();
    Ok(m)
}

/// `body_subtreemass`: each body's mass plus its descendants'.
fn set_subtreemass(m: &mut Model) {
    let mut sub = m.body_mass.clone();
    for i in (1..m.nbody).rev() {
        sub[m.body_parentid[i] as usize] += sub[i];
    }
    m.body_subtreemass = sub;
}

/// `compiler settotalmass` (`mj_setTotalmass`): every body's mass and inertia scaled by one
/// factor so the masses sum to `total` (kg), before the constants that depend on them.
fn set_totalmass(m: &mut Model, total: f64) {
    let sum: f64 = m.body_mass[1..].iter().sum();
    let scale = (total / sum.max(math::MINVAL)).max(math::MINVAL);
    for b in 1..m.nbody {
        m.body_mass[b] *= scale;
        for k in 0..3 {
            m.body_inertia[3 * b + k] *= scale;
        }
    }
    set_subtreemass(m);
}

/// MuJoCo moves the frame of a body whose only joint is free and which has no children onto its
/// inertial frame when the joint says `align="true"`, or `"auto"` under `compiler
/// alignfree="true"`. flexlab does not: where that would move the frame (`ipos`, `iquat` not
/// already the identity) it refuses instead of compiling other coordinates.
fn check_free_alignment(spec: &Spec, body: usize, ipos: &[f64; 3], iquat: &[f64; 4]) -> Result<()> {
    let b = &spec.bodies[body];
    let [j] = b.joints[..] else {
        return Ok(());
    };
    let j = &spec.joints[j];
    let aligned = j.align == 1 || (j.align == 2 && spec.compiler.alignfree);
    let moves = *ipos != [0.0; 3] || *iquat != [1.0, 0.0, 0.0, 0.0];
    if j.jtype == crate::spec::JointType::Free && b.children.is_empty() && aligned && moves {
        return Err(unsupported_at(
            "free-joint alignment (freejoint align='true', or compiler alignfree='true') of a body whose inertial frame is not its own is not supported by flexlab yet",
            "joint",
            &j.name,
            j.line,
        ));
    }
    Ok(())
}

/// The plugins of the bodies (in compiled order): each must be declared in `<extension>` and
/// configured with keys it knows, as MuJoCo's compiler checks them.
fn check_body_plugins(spec: &Spec, order: &[usize]) -> Result<()> {
    for &b in order {
        let body = &spec.bodies[b];
        let Some(p) = body.plugin.map(|p| &spec.plugins[p]) else {
            continue;
        };
        let err = |msg: String| cerr_obj(msg, "body", &body.name, body.line);
        if !spec.extensions.contains(&p.plugin) {
            return Err(err(format!("unrecognized plugin '{}'", p.plugin)));
        }
        crate::engine::cable::check_config(&p.config).map_err(err)?;
    }
    Ok(())
}

/// Relative tolerance of a body's principal axes (MuJoCo 3.15.0's `mjCBody` passes 4e-15 to
/// `mjuu_eig3`).
const BODY_EIG_TOL: f64 = 4e-15;

/// Principal axes of a symmetric inertia tensor as MuJoCo 3.15.0's compiler finds them
/// (`mjuu_eig3`, read from the 3.15.0 binary: its source is newer than the 3.12 one), giving
/// the frame quaternion and the eigenvalues in decreasing order.
///
/// Jacobi rotations accumulated in a quaternion, until the largest off-diagonal entry is within
/// `max(4e-15, tol)` of the matrix's largest entry; each rotation is built from the half-angle
/// tangent of the 2×2 Schur step. Eigenvalues closer than `max(1e-12, tol)` of that scale keep
/// their order. Bodies pass 4e-15, meshes 1e-7: 3.12's absolute 1e-12 stopped a small mesh one
/// rotation early, and its rotation built from `√(½ − ½c)` rounded otherwise (an ulp in a
/// two-capsule body's frame, which reached the mannequin's `qacc` at step 35).
pub(crate) fn eig3(mat: &[f64; 9], tol: f64) -> ([f64; 3], [f64; 4]) {
    let scale = mat.iter().fold(0.0f64, |a, &x| x.abs().max(a));
    let off_tol = tol.max(4e-15) * scale;
    let mut quat = [1.0, 0.0, 0.0, 0.0];
    let mut eigval = [0.0; 3];
    for _ in 0..500 {
        let ev = math::quat_to_mat(&quat);
        let evt = [
            ev[0], ev[3], ev[6], ev[1], ev[4], ev[7], ev[2], ev[5], ev[8],
        ];
        let tmp = math::mul_mat_mat3(&evt, mat);
        let d = math::mul_mat_mat3(&tmp, &ev);
        eigval = [d[0], d[4], d[8]];
        let (rk, ck, rotk) = if d[1].abs() > d[2].abs() && d[1].abs() > d[5].abs() {
            (0, 1, 2)
        } else if d[2].abs() > d[5].abs() {
            (0, 2, 1)
        } else {
            (1, 2, 0)
        };
        if d[3 * rk + ck].abs() <= off_tol {
            break;
        }
        let tau = (d[4 * ck] - d[4 * rk]) / (2.0 * d[3 * rk + ck]);
        let root = (1.0 + tau * tau).sqrt();
        let t = if tau >= 0.0 {
            1.0 / (tau + root)
        } else {
            -1.0 / (root - tau)
        };
        // tan(θ/2) from tan θ, then cos(θ/2) and sin(θ/2): a unit quaternion by construction
        let half = t / (1.0 + (1.0 + t * t).sqrt());
        let chalf = 1.0 / (1.0 + half * half).sqrt();
        let mut r = [chalf, 0.0, 0.0, 0.0];
        r[rotk + 1] = if rotk == 1 { half } else { -half } * chalf;
        quat = orient::mulquat(&quat, &r);
        orient::normvec(&mut quat);
    }
    let sort_tol = tol.max(1e-12) * scale;
    for j in 0..3 {
        let j1 = j % 2;
        if eigval[j1] + sort_tol < eigval[j1 + 1] {
            eigval.swap(j1, j1 + 1);
            // MuJoCo's literal cos(π/4), kept to its 15 digits
            #[allow(clippy::approx_constant)]
            let mut r = [0.707106781186548, 0.0, 0.0, 0.0];
            r[(j1 + 2) % 3 + 1] = r[0];
            quat = orient::mulquat(&quat, &r);
            orient::normvec(&mut quat);
        }
    }
    (eigval, quat)
}

fn geom_volume(t: GeomType, s: &[f64; 3], shell: bool) -> f64 {
    let pi = math::PI;
    match t {
        GeomType::Sphere => {
            if shell {
                4.0 * pi * s[0] * s[0]
            } else {
                4.0 * pi * s[0] * s[0] * s[0] / 3.0
            }
        }
        GeomType::Capsule => {
            let h = 2.0 * s[1];
            let r = s[0];
            if shell {
                4.0 * pi * r * r + 2.0 * pi * r * h
            } else {
                pi * (r * r * h + 4.0 * r * r * r / 3.0)
            }
        }
        GeomType::Cylinder => {
            let h = 2.0 * s[1];
            let r = s[0];
            if shell {
                2.0 * pi * r * r + 2.0 * pi * r * h
            } else {
                pi * r * r * h
            }
        }
        GeomType::Ellipsoid => {
            if shell {
                let p = 1.6075;
                let t = (s[0] * s[1]).powf(p) + (s[1] * s[2]).powf(p) + (s[2] * s[0]).powf(p);
                4.0 * pi * (t / 3.0).powf(1.0 / p)
            } else {
                4.0 * pi * s[0] * s[1] * s[2] / 3.0
            }
        }
        GeomType::Box => {
            if shell {
                8.0 * (s[0] * s[1] + s[1] * s[2] + s[2] * s[0])
            } else {
                s[0] * s[1] * s[2] * 8.0
            }
        }
        _ => 0.0,
    }
}

fn geom_inertia(t: GeomType, s: &[f64; 3], mass: f64, shell: bool) -> [f64; 3] {
    match t {
        GeomType::Sphere => {
            let i = if shell {
                2.0 * mass * s[0] * s[0] / 3.0
            } else {
                2.0 * mass * s[0] * s[0] / 5.0
            };
            [i, i, i]
        }
        GeomType::Capsule => {
            let hh = s[1];
            let h = 2.0 * s[1];
            let r = s[0];
            if !shell {
                let sm = mass * 4.0 * r / (4.0 * r + 3.0 * h);
                let cm = mass - sm;
                let mut i = [
                    cm * (3.0 * r * r + h * h) / 12.0,
                    cm * (3.0 * r * r + h * h) / 12.0,
                    cm * r * r / 2.0,
                ];
                let si = 2.0 * sm * r * r / 5.0;
                i[0] += si + sm * h * (3.0 * r + 2.0 * h) / 8.0;
                i[1] += si + sm * h * (3.0 * r + 2.0 * h) / 8.0;
                i[2] += si;
                i
            } else {
                let asph = 4.0 * math::PI * r * r;
                let acyl = 2.0 * math::PI * r * h;
                let sm = mass * asph / (asph + acyl);
                let cm = mass - sm;
                let mut i = [
                    cm * (6.0 * r * r + h * h) / 12.0,
                    cm * (6.0 * r * r + h * h) / 12.0,
                    cm * r * r,
                ];
                let si = 2.0 * sm * r * r / 3.0;
                let hs_com = r / 2.0;
                let hs_pos = hh + hs_com;
                i[0] += si + sm * (hs_pos * hs_pos - hs_com * hs_com);
                i[1] += si + sm * (hs_pos * hs_pos - hs_com * hs_com);
                i[2] += si;
                i
            }
        }
        GeomType::Cylinder => {
            let h = 2.0 * s[1];
            let r = s[0];
            if !shell {
                [
                    mass * (3.0 * r * r + h * h) / 12.0,
                    mass * (3.0 * r * r + h * h) / 12.0,
                    mass * r * r / 2.0,
                ]
            } else {
                // a tube and two disks, as MuJoCo sums them
                let hh = s[1];
                let ad = math::PI * r * r;
                let al = 2.0 * math::PI * r * h;
                let md = mass * ad / (2.0 * ad + al);
                let ml = mass - 2.0 * md;
                let tube = ml * (6.0 * r * r + h * h) / 12.0;
                let disk_x = md * r * r / 4.0 + md * hh * hh;
                let disk_z = md * r * r / 2.0;
                [
                    tube + 2.0 * disk_x,
                    tube + 2.0 * disk_x,
                    ml * r * r + 2.0 * disk_z,
                ]
            }
        }
        GeomType::Ellipsoid => {
            if !shell {
                [
                    mass * (s[1] * s[1] + s[2] * s[2]) / 5.0,
                    mass * (s[0] * s[0] + s[2] * s[2]) / 5.0,
                    mass * (s[0] * s[0] + s[1] * s[1]) / 5.0,
                ]
            } else {
                // MuJoCo's approximation: a solid ellipsoid grown by 1e-6 m on every axis
                // minus the solid one, the mass spread over the difference of volumes
                let (s00, s11, s22) = (s[0] * s[0], s[1] * s[1], s[2] * s[2]);
                let eps = 1e-6;
                let va = 4.0 * math::PI * s[0] * s[1] * s[2] / 3.0;
                let (ae, be, ce) = (s[0] + eps, s[1] + eps, s[2] + eps);
                let vb = 4.0 * math::PI * ae * be * ce / 3.0;
                let density = mass / (vb - va);
                let (ma, mb) = (va * density, vb * density);
                [
                    mb * (be * be + ce * ce) / 5.0 - ma * (s11 + s22) / 5.0,
                    mb * (ae * ae + ce * ce) / 5.0 - ma * (s00 + s22) / 5.0,
                    mb * (ae * ae + be * be) / 5.0 - ma * (s00 + s11) / 5.0,
                ]
            }
        }
        GeomType::Box => {
            if !shell {
                [
                    mass * (s[1] * s[1] + s[2] * s[2]) / 3.0,
                    mass * (s[0] * s[0] + s[2] * s[2]) / 3.0,
                    mass * (s[0] * s[0] + s[1] * s[1]) / 3.0,
                ]
            } else {
                // six plates: each pair's own inertia plus its mass at the half-size offset
                let (s00, s11, s22) = (s[0] * s[0], s[1] * s[1], s[2] * s[2]);
                let (lx, ly, lz) = (2.0 * s[0], 2.0 * s[1], 2.0 * s[2]);
                let (a0, a1, a2) = (lx * ly, ly * lz, lz * lx);
                let total = 2.0 * (a0 + a1 + a2);
                let m0 = mass * a0 / total;
                let (ix0, iy0, iz0) = (
                    m0 * ly * ly / 12.0,
                    m0 * lx * lx / 12.0,
                    m0 * (lx * lx + ly * ly) / 12.0,
                );
                let m1 = mass * a1 / total;
                let (ix1, iy1, iz1) = (
                    m1 * (ly * ly + lz * lz) / 12.0,
                    m1 * lz * lz / 12.0,
                    m1 * ly * ly / 12.0,
                );
                let m2 = mass * a2 / total;
                let (ix2, iy2, iz2) = (
                    m2 * lz * lz / 12.0,
                    m2 * (lx * lx + lz * lz) / 12.0,
                    m2 * lx * lx / 12.0,
                );
                [
                    2.0 * (m0 * s22 + m2 * s11 + ix0 + ix1 + ix2),
                    2.0 * (m0 * s22 + m1 * s00 + iy0 + iy1 + iy2),
                    2.0 * (m1 * s00 + m2 * s11 + iz0 + iz1 + iz2),
                ]
            }
        }
        _ => [0.0; 3],
    }
}

fn resolve_quat(o: &Orientation, c: &CompilerSpec) -> std::result::Result<[f64; 4], String> {
    let mut q = orient::resolve(o, c.degree, &c.eulerseq)?;
    orient::normvec(&mut q);
    Ok(q)
}

fn compile_geom(
    spec: &Spec,
    meshes: &[meshasset::CMesh],
    gi: usize,
    body: usize,
    weld_static: bool,
) -> Result<CGeom> {
    let g = &spec.geoms[gi];
    let name = &g.name;
    let err = |msg: String| cerr_obj(msg, "geom", name, g.line);
    let is_mesh = matches!(g.gtype, GeomType::Mesh | GeomType::Sdf);
    let mesh = if g.mesh.is_empty() {
        None
    } else {
        let id = spec.meshes.iter().position(|m| m.name == g.mesh);
        Some(id.ok_or_else(|| err(format!("mesh '{}' not found in geom {gi}", g.mesh)))?)
    };
    let matid = material_id(spec, &g.material)
        .ok_or_else(|| err(format!("material '{}' not found in geom {gi}", g.material)))?;
    if g.condim != 1 && g.condim != 3 && g.condim != 4 && g.condim != 6 {
        return Err(err("invalid condim in geom".into()));
    }
    if is_mesh && mesh.is_none() {
        return Err(err(format!(
            "mesh geom '{name}' (id = {gi}) must have valid meshid"
        )));
    }
    if let Some(p) = g.plugin.map(|k| &spec.plugins[k]) {
        if !spec.extensions.contains(&p.plugin) {
            return Err(err(format!("unrecognized plugin '{}'", p.plugin)));
        }
        if p.plugin != crate::engine::sdf::TORUS_PLUGIN {
            return Err(err(format!(
                "plugin '{}' does not support sign distance fields",
                p.plugin
            )));
        }
    }
    if g.gtype == GeomType::Sdf && g.plugin.is_none() {
        return Err(Error::unsupported(
            "sdf geoms without a plugin (octree SDF of a mesh) are not supported by flexlab yet",
        )
        .at_element("geom")
        .at_line(g.line));
    }
    if g.gtype == GeomType::Plane && !weld_static {
        return Err(err("plane only allowed in static bodies".into()));
    }
    let mut pos = g.pos;
    let mut size = g.size;
    let mut quat;
    if let Some(ft) = g.fromto {
        if mesh.is_some() {
            return Err(err("fromto cannot be used with mesh geom".into()));
        }
        if !matches!(
            g.gtype,
            GeomType::Capsule | GeomType::Cylinder | GeomType::Ellipsoid | GeomType::Box
        ) {
            return Err(err(
                "fromto requires capsule, cylinder, box or ellipsoid in geom".into(),
            ));
        }
        if pos != [0.0; 3] {
            return Err(err("both pos and fromto defined in geom".into()));
        }
        let mut v = [ft[0] - ft[3], ft[1] - ft[4], ft[2] - ft[5]];
        size[1] = orient::normvec(&mut v) / 2.0;
        if size[1] < math::EPS {
            return Err(err("fromto points too close in geom".into()));
        }
        if matches!(g.gtype, GeomType::Ellipsoid | GeomType::Box) {
            size[2] = size[1];
            size[1] = size[0];
        }
        pos = [
            (ft[0] + ft[3]) / 2.0,
            (ft[1] + ft[4]) / 2.0,
            (ft[2] + ft[5]) / 2.0,
        ];
        quat = orient::z_to_quat(&v);
    } else {
        quat = resolve_quat(&g.orient, &spec.compiler).map_err(|e| {
            err(format!(
                "orientation specification error '{e}' in geom {gi}"
            ))
        })?;
    }
    if let Some(frame) = frame_pose(&spec.frames, &spec.compiler, g.frame)? {
        (pos, quat) = in_pose(&frame, &(pos, quat));
    }
    let mut mesh = mesh;
    let mut center = [0.0; 3];
    if let Some(mi) = mesh {
        let cm = &meshes[mi];
        if !is_mesh {
            // a primitive fitted to the mesh's equivalent inertia box, or with compiler
            // fitaabb to its bounding box (MuJoCo's FitGeom); the geom then keeps no
            // reference to the mesh
            let mname = &spec.meshes[mi].name;
            if !spec.compiler.fitaabb {
                let b = &cm.boxsz;
                size = match g.gtype {
                    GeomType::Sphere => [(b[0] + b[1] + b[2]) / 3.0, size[1], size[2]],
                    GeomType::Capsule => {
                        let r = (b[0] + b[1]) / 2.0;
                        [r, 0f64.max(b[2] - r / 2.0), size[2]]
                    }
                    GeomType::Cylinder => [(b[0] + b[1]) / 2.0, b[2], size[2]],
                    GeomType::Ellipsoid | GeomType::Box => *b,
                    _ => return Err(err(format!("invalid geom type in fitting mesh {mname}"))),
                };
            } else {
                let a = &cm.aamm;
                center = [
                    (a[0] + a[3]) / 2.0,
                    (a[1] + a[4]) / 2.0,
                    (a[2] + a[5]) / 2.0,
                ];
                let h = [a[3] - center[0], a[4] - center[1], a[5] - center[2]];
                size = match g.gtype {
                    GeomType::Sphere => [h[0].max(h[1]).max(h[2]), size[1], size[2]],
                    GeomType::Capsule => {
                        let r = h[0].max(h[1]);
                        [r, h[2] - r, size[2]]
                    }
                    GeomType::Cylinder => [h[0].max(h[1]), h[2], size[2]],
                    GeomType::Ellipsoid | GeomType::Box => h,
                    _ => return Err(err(format!("invalid fittype in mesh {mname}"))),
                };
            }
            for x in &mut size {
                *x *= g.fitscale;
            }
            mesh = None;
        } else if g.shellinertia {
            return Err(err(
                "for mesh geoms, inertia should be specified in the mesh asset".into(),
            ));
        }
        // the geom frame absorbs the mesh's inertial frame, offset by a fitted box's centre
        // (mjuu_frameaccum)
        let meshpos = math::add3(&math::rot_vec_quat(&center, &cm.quat), &cm.pos);
        (pos, quat) = in_pose(&(pos, quat), &(meshpos, cm.quat));
        if is_mesh {
            let a = &cm.aamm;
            size = [
                a[0].abs().max(a[3].abs()),
                a[1].abs().max(a[4].abs()),
                a[2].abs().max(a[5].abs()),
            ];
        }
    }
    if g.gtype == GeomType::Plane {
        if size[2] <= 0.0 {
            return Err(err("plane size(3) must be positive".into()));
        }
    } else {
        for i in 0..GEOMINFO[g.gtype as usize] {
            if size[i] <= 0.0 {
                return Err(err(format!("size {i} must be positive in geom")));
            }
        }
    }
    let aamm: [f64; 6] = match g.gtype {
        GeomType::Sphere => [-size[0], -size[0], -size[0], size[0], size[0], size[0]],
        GeomType::Capsule => [
            -size[0],
            -size[0],
            -(size[0] + size[1]),
            size[0],
            size[0],
            size[0] + size[1],
        ],
        GeomType::Cylinder => [-size[0], -size[0], -size[1], size[0], size[0], size[1]],
        GeomType::Plane => [
            -math::MAXVAL,
            -math::MAXVAL,
            -math::MAXVAL,
            math::MAXVAL,
            math::MAXVAL,
            0.0,
        ],
        GeomType::Mesh | GeomType::Sdf => mesh.map_or([0.0; 6], |mi| meshes[mi].aamm),
        _ => [-size[0], -size[1], -size[2], size[0], size[1], size[2]],
    };
    let aabb = [
        (aamm[3] + aamm[0]) / 2.0,
        (aamm[4] + aamm[1]) / 2.0,
        (aamm[5] + aamm[2]) / 2.0,
        (aamm[3] - aamm[0]) / 2.0,
        (aamm[4] - aamm[1]) / 2.0,
        (aamm[5] - aamm[2]) / 2.0,
    ];
    let rbound = match g.gtype {
        GeomType::Sphere => size[0],
        GeomType::Capsule => size[0] + size[1],
        GeomType::Cylinder => (size[0] * size[0] + size[1] * size[1]).sqrt(),
        GeomType::Ellipsoid => size[0].max(size[1]).max(size[2]),
        GeomType::Box | GeomType::Mesh | GeomType::Sdf => {
            (size[0] * size[0] + size[1] * size[1] + size[2] * size[2]).sqrt()
        }
        _ => 0.0,
    };
    // mass and inertia (only geoms that contribute to the body's inertia)
    let mut mass = 0.0;
    let mut inertia = [0.0; 3];
    let b = &spec.bodies[body];
    let infer = body > 0
        && (!b.explicit_inertial || spec.compiler.inertiafromgeom == TriState::True)
        && g.group >= spec.compiler.inertiagrouprange[0]
        && g.group <= spec.compiler.inertiagrouprange[1];
    if infer {
        let cm = mesh.map(|mi| &meshes[mi]);
        let vol = cm.map_or_else(|| geom_volume(g.gtype, &size, g.shellinertia), |c| c.volume);
        // a mesh's inertia is that of its equivalent box
        let geom_inertia = |t: GeomType, s: &[f64; 3], mass: f64, shell: bool| match cm {
            Some(c) => {
                let b = &c.boxsz;
                [
                    mass * (b[1] * b[1] + b[2] * b[2]) / 3.0,
                    mass * (b[0] * b[0] + b[2] * b[2]) / 3.0,
                    mass * (b[0] * b[0] + b[1] * b[1]) / 3.0,
                ]
            }
            None => geom_inertia(t, s, mass, shell),
        };
        if !g.mass.is_nan() {
            if g.mass == 0.0 {
                mass = 0.0;
            } else if vol > math::EPS {
                mass = g.mass;
                inertia = geom_inertia(g.gtype, &size, mass, g.shellinertia);
            }
        } else if g.density != 0.0 {
            mass = g.density * vol;
            inertia = geom_inertia(g.gtype, &size, mass, g.shellinertia);
        }
        if mass < 0.0 || inertia.iter().any(|&x| x < 0.0) || g.density < 0.0 {
            return Err(err("mass, inertia or density are negative in geom".into()));
        }
    }
    Ok(CGeom {
        spec: gi,
        body,
        pos,
        quat,
        size,
        mass,
        inertia,
        aabb,
        rbound,
        mesh,
        matid,
    })
}

fn global_inertia(local: &[f64; 3], quat: &[f64; 4]) -> [f64; 6] {
    math::rotate_inertia(local, &math::quat_to_mat(quat))
}

fn full_inertia(full: &[f64; 6]) -> std::result::Result<([f64; 3], [f64; 4]), String> {
    let mat = [
        full[0], full[3], full[4], full[3], full[1], full[5], full[4], full[5], full[2],
    ];
    let (val, q) = eig3(&mat, BODY_EIG_TOL);
    if val[2] < math::EPS {
        return Err("inertia must have positive eigenvalues".into());
    }
    Ok((val, q))
}

/// The model without its constants (`set_const`), and the spec joint of each model joint.
fn build(spec: &Spec) -> Result<(Model, Vec<usize>)> {
    let c = &spec.compiler;
    // ---- bodies in depth-first order
    let mut order = Vec::with_capacity(spec.bodies.len());
    let mut stack = vec![0usize];
    while let Some(b) = stack.pop() {
        order.push(b);
        for &ch in spec.bodies[b].children.iter().rev() {
            stack.push(ch);
        }
    }
    // MuJoCo 3.15.0 refuses a body 1024 levels below the world when it writes the model's
    // signature, at the end of its compile (some 40 s for the 1,026-link cable of the
    // rejection model body_depth_limit);
    // checked here first, before the work that grows with the chain's length cubed
    let mut depth = vec![0usize; spec.bodies.len()];
    for &b in &order[1..] {
        depth[b] = depth[spec.bodies[b].parent] + 1;
        if depth[b] == MAX_BODY_DEPTH {
            let (name, line) = (&spec.bodies[b].name, spec.bodies[b].line);
            return Err(cerr_obj(
                "depth limit exceeded in signature computation",
                "body",
                name,
                line,
            ));
        }
    }
    let nbody = order.len();
    if nbody + spec.flexes.len() >= 65534 {
        return Err(Error::compile(
            "number of bodies plus flexes must be less than 65534",
        ));
    }
    let mut newid = vec![0usize; spec.bodies.len()];
    for (i, &b) in order.iter().enumerate() {
        newid[b] = i;
    }
    let mut names_body: Vec<String> = Vec::with_capacity(nbody);
    // A set, not a scan of the names so far: a 30×30 cloth has 900 bodies.
    let mut named = std::collections::HashSet::with_capacity(nbody);
    for &b in &order {
        let n = &spec.bodies[b].name;
        if !n.is_empty() && !named.insert(n.as_str()) {
            return Err(cerr_obj(
                format!("repeated name '{n}' in body"),
                "body",
                n,
                spec.bodies[b].line,
            ));
        }
        names_body.push(n.clone());
    }

    check_body_plugins(spec, &order)?;
    let meshes = compile_meshes(spec)?;
    let mut bodies: Vec<CBody> = Vec::with_capacity(nbody);
    let mut geoms: Vec<CGeom> = Vec::new();
    for (i, &sb) in order.iter().enumerate() {
        let b = &spec.bodies[sb];
        let err = |msg: String| cerr_obj(msg, "body", &b.name, b.line);
        let parent = if i == 0 { 0 } else { newid[b.parent] };
        let mut quat = resolve_quat(&b.orient, c)
            .map_err(|e| err(format!("error '{e}' in frame alternative")))?;
        orient::normvec(&mut quat);
        let weld_root = !b.joints.is_empty() || b.mocap;
        let weldid = if i == 0 {
            0
        } else if weld_root {
            i
        } else {
            bodies[parent].weldid
        };
        let rootid = if i == 0 || parent == 0 {
            i
        } else {
            bodies[parent].rootid
        };
        if b.mocap && (!b.joints.is_empty() || parent != 0) {
            return Err(err(format!(
                "mocap body '{}' is not a fixed child of world",
                b.name
            )));
        }
        let (xpos0, xquat0) = if i == 0 {
            ([0.0; 3], [1.0, 0.0, 0.0, 0.0])
        } else {
            let p = &bodies[parent];
            let r = math::rot_vec_quat(&b.pos, &p.xquat0);
            (math::add3(&r, &p.xpos0), orient::mulquat(&p.xquat0, &quat))
        };
        // geoms
        let weld_static = weldid == 0 || spec.bodies[order[weldid]].mocap;
        let mut gids = Vec::new();
        for &g in &b.geoms {
            let cg = compile_geom(spec, &meshes, g, sb, weld_static)?;
            gids.push(geoms.len());
            geoms.push(CGeom { body: i, ..cg });
        }
        // inertia
        let mut mass = b.mass;
        let mut inertia = b.inertia;
        let mut ipos: Option<[f64; 3]> = if b.explicit_inertial {
            Some(b.ipos)
        } else {
            None
        };
        let mut iquat = resolve_quat(&b.iorient, c)
            .map_err(|e| err(format!("error '{e}' in inertia alternative")))?;
        if let Some(full) = b.fullinertia {
            let (val, q) =
                full_inertia(&full).map_err(|e| err(format!("error '{e}' in fullinertia")))?;
            inertia = val;
            iquat = q;
        }
        if i > 0
            && (c.inertiafromgeom == TriState::True
                || (ipos.is_none() && c.inertiafromgeom == TriState::Auto))
        {
            let sel: Vec<&CGeom> = gids
                .iter()
                .map(|&k| &geoms[k])
                .filter(|g| {
                    let gs = &spec.geoms[g.spec];
                    gs.group >= c.inertiagrouprange[0]
                        && gs.group <= c.inertiagrouprange[1]
                        && g.mass > math::EPS
                })
                .collect();
            if sel.len() == 1 {
                ipos = Some(sel[0].pos);
                iquat = sel[0].quat;
                mass = sel[0].mass;
                inertia = sel[0].inertia;
            } else if sel.len() > 1 {
                mass = 0.0;
                let mut com = [0.0; 3];
                for g in &sel {
                    mass += g.mass;
                    for k in 0..3 {
                        com[k] += g.mass * g.pos[k];
                    }
                }
                if mass < math::EPS {
                    return Err(err(
                        "body mass is too small, cannot compute center of mass".into()
                    ));
                }
                let ip = [com[0] / mass, com[1] / mass, com[2] / mass];
                let mut tot = [0.0; 6];
                for g in &sel {
                    let d = math::sub3(&g.pos, &ip);
                    let i0 = global_inertia(&g.inertia, &g.quat);
                    let i1 = [
                        g.mass * (d[1] * d[1] + d[2] * d[2]),
                        g.mass * (d[0] * d[0] + d[2] * d[2]),
                        g.mass * (d[0] * d[0] + d[1] * d[1]),
                        -g.mass * d[0] * d[1],
                        -g.mass * d[0] * d[2],
                        -g.mass * d[1] * d[2],
                    ];
                    for k in 0..6 {
                        tot[k] = tot[k] + i0[k] + i1[k];
                    }
                }
                let (val, q) = full_inertia(&tot)
                    .map_err(|e| err(format!("error '{e}' in alternative for principal axes")))?;
                ipos = Some(ip);
                iquat = q;
                inertia = val;
            }
        }
        let ipos = match ipos {
            Some(p) => p,
            None => {
                // MuJoCo copies the body frame into an undefined inertial frame
                iquat = quat;
                b.pos
            }
        };
        orient::normvec(&mut iquat);
        if i > 0 {
            mass = mass.max(c.boundmass);
            for k in 0..3 {
                inertia[k] = inertia[k].max(c.boundinertia);
            }
            if mass < 0.0 || inertia.iter().any(|&x| x < 0.0) {
                return Err(err("mass and inertia cannot be negative".into()));
            }
            if inertia[0] + inertia[1] < inertia[2]
                || inertia[0] + inertia[2] < inertia[1]
                || inertia[1] + inertia[2] < inertia[0]
            {
                if c.balanceinertia {
                    let a = (inertia[0] + inertia[1] + inertia[2]) / 3.0;
                    inertia = [a; 3];
                } else {
                    return Err(err(
                        "inertia must satisfy A + B >= C; use 'balanceinertia' to fix".into(),
                    ));
                }
            }
        }
        check_free_alignment(spec, sb, &ipos, &iquat)?;
        bodies.push(CBody {
            spec: sb,
            parent,
            weldid,
            rootid,
            pos: b.pos,
            quat,
            ipos,
            iquat,
            mass,
            inertia,
            xpos0,
            xquat0,
            joints: b.joints.clone(),
            geoms: gids,
            sites: b.sites.clone(),
            dofnum: 0,
        });
    }

    // ---- joints and dofs in body order
    let mut m = Model {
        name: spec.modelname.clone(),
        opt: spec.option.clone(),
        ..Default::default()
    };
    m.nbody = nbody;
    let mut jnt_order: Vec<(usize, usize)> = Vec::new(); // (spec joint, body)
    for (i, b) in bodies.iter().enumerate() {
        for &j in &b.joints {
            jnt_order.push((j, i));
        }
    }
    let njnt = jnt_order.len();
    m.njnt = njnt;
    let mut qposadr = 0usize;
    let mut dofadr = 0usize;
    let mut lastdof: Vec<i32> = vec![-1; nbody];
    m.body_jntnum = vec![0; nbody];
    m.body_jntadr = vec![-1; nbody];
    m.body_dofnum = vec![0; nbody];
    m.body_dofadr = vec![-1; nbody];
    // the raw pose attributes of the bodies (euler and the like not applied, frames not
    // composed), with which MuJoCo 3.15.0 fills a keyframe's short vectors (ComputeReference)
    let raw_pose = |bi: usize| {
        let b = &spec.bodies[order[bi]];
        b.written_pose
            .unwrap_or_else(|| (b.pos, written_quat(&b.orient)))
    };
    let mut key_qpos0: Vec<f64> = Vec::with_capacity(m.nq);
    for (ji, &(sj, bi)) in jnt_order.iter().enumerate() {
        let j = &spec.joints[sj];
        let err = |msg: String| cerr_obj(msg, "joint", &j.name, j.line);
        if j.armature < 0.0 {
            // MuJoCo accepts it; its mass matrix can then be indefinite, and its solve of the
            // smooth acceleration diverges (mjWARN_INERTIA, then a reset) where flexlab's
            // factorisation would step on without a warning
            return Err(unsupported_at(
                "negative joint armature is not supported by flexlab",
                "joint",
                &j.name,
                j.line,
            ));
        }
        let sd = j.springdamper;
        if (sd[0] != 0.0 || sd[1] != 0.0) && (sd[0] <= 0.0 || sd[1] <= 0.0) {
            return Err(err(
                "when defined, springdamper values must be positive in joint".into(),
            ));
        }
        if m.body_jntnum[bi] == 0 {
            m.body_jntadr[bi] = ji as i32;
        }
        m.body_jntnum[bi] += 1;
        let (nq, nv) = match j.jtype {
            JointType::Free => (7, 6),
            JointType::Ball => (4, 3),
            _ => (1, 1),
        };
        let mut limited = match j.jtype {
            JointType::Free => false,
            _ => actuation::resolve_limited(j.limited, j.range, c.autolimits, "joint", "range")
                .map_err(err)?,
        };
        if j.jtype == JointType::Free && j.limited == TriState::True {
            return Err(err("limits should not be defined in free joint".into()));
        }
        let mut range = j.range;
        if limited {
            if range[0] >= range[1] && j.jtype != JointType::Ball {
                return Err(err(
                    "range[0] should be smaller than range[1] in joint".into()
                ));
            }
            if range[0] != 0.0 && j.jtype == JointType::Ball {
                return Err(err("range[0] should be 0 in ball joint".into()));
            }
            if c.degree && matches!(j.jtype, JointType::Hinge | JointType::Ball) {
                range[0] *= math::PI / 180.0;
                range[1] *= math::PI / 180.0;
            }
        } else if j.jtype == JointType::Free {
            limited = false;
        }
        // the actuators' force on the joint: never limited on free and ball joints
        let actfrclimited = match j.jtype {
            JointType::Free | JointType::Ball => false,
            _ => actuation::resolve_limited(
                j.actfrclimited,
                j.actfrcrange,
                c.autolimits,
                "joint",
                "actuatorfrcrange",
            )
            .map_err(err)?,
        };
        if actfrclimited && j.actfrcrange[0] >= j.actfrcrange[1] {
            return Err(err(
                "actfrcrange[0] should be smaller than actfrcrange[1] in joint".into(),
            ));
        }
        let mut axis = if matches!(j.jtype, JointType::Free | JointType::Ball) {
            [0.0, 0.0, 1.0]
        } else {
            j.axis
        };
        if orient::normvec(&mut axis) < math::EPS {
            return Err(err("axis too small in joint".into()));
        }
        let pos = if j.jtype == JointType::Free {
            [0.0; 3]
        } else {
            j.pos
        };
        let (mut reference, mut springref) = (j.reference, j.springref);
        if j.jtype == JointType::Hinge && c.degree {
            reference *= math::PI / 180.0;
            springref *= math::PI / 180.0;
        }
        m.jnt_type.push(j.jtype as i32);
        m.jnt_qposadr.push(qposadr as i32);
        m.jnt_dofadr.push(dofadr as i32);
        m.jnt_bodyid.push(bi as i32);
        m.jnt_group.push(j.group);
        m.jnt_limited.push(limited as u8);
        m.jnt_actfrclimited.push(actfrclimited as u8);
        m.jnt_actfrcrange.extend_from_slice(&j.actfrcrange);
        m.jnt_actgravcomp.push(j.actgravcomp as u8);
        m.jnt_solref.extend_from_slice(&j.solref_limit);
        m.jnt_solimp.extend_from_slice(&j.solimp_limit);
        m.jnt_pos.extend_from_slice(&pos);
        m.jnt_axis.extend_from_slice(&axis);
        m.jnt_stiffness.push(j.stiffness);
        m.jnt_range.extend_from_slice(&range);
        m.jnt_margin.push(j.margin);
        m.names_jnt.push(j.name.clone());
        // qpos0 / qpos_spring
        let b = &bodies[bi];
        match j.jtype {
            JointType::Free => {
                let (p, q) = raw_pose(bi);
                key_qpos0.extend_from_slice(&p);
                key_qpos0.extend_from_slice(&q);
            }
            JointType::Ball => key_qpos0.extend_from_slice(&[1.0, 0.0, 0.0, 0.0]),
            // the reference as written: not turned into radians
            _ => key_qpos0.push(j.reference),
        }
        match j.jtype {
            JointType::Free => {
                m.qpos0.extend_from_slice(&b.pos);
                m.qpos0.extend_from_slice(&b.quat);
                m.qpos_spring.extend_from_slice(&b.pos);
                m.qpos_spring.extend_from_slice(&b.quat);
            }
            JointType::Ball => {
                m.qpos0.extend_from_slice(&[1.0, 0.0, 0.0, 0.0]);
                m.qpos_spring.extend_from_slice(&[1.0, 0.0, 0.0, 0.0]);
            }
            _ => {
                m.qpos0.push(reference);
                m.qpos_spring.push(springref);
            }
        }
        if m.body_dofnum[bi] == 0 {
            m.body_dofadr[bi] = dofadr as i32;
        }
        m.body_dofnum[bi] += nv;
        for _ in 0..nv {
            m.dof_bodyid.push(bi as i32);
            m.dof_jntid.push(ji as i32);
            m.dof_solref.extend_from_slice(&j.solref_friction);
            m.dof_solimp.extend_from_slice(&j.solimp_friction);
            m.dof_frictionloss.push(j.frictionloss);
            m.dof_armature.push(j.armature);
            m.dof_damping.push(j.damping);
            // dof parent: previous dof in this body, else the last dof of the ancestors
            let parentdof = if lastdof[bi] >= 0 {
                lastdof[bi]
            } else {
                ancestor_lastdof(&bodies, &lastdof, bi)
            };
            m.dof_parentid.push(parentdof);
            lastdof[bi] = dofadr as i32;
            dofadr += 1;
        }
        qposadr += nq;
    }
    for (i, b) in bodies.iter_mut().enumerate() {
        b.dofnum = m.body_dofnum[i] as usize;
        let sb = &spec.bodies[b.spec];
        // a free joint beside any other joint makes more than 6 dofs: MuJoCo says so first
        if b.dofnum > 6 {
            return Err(cerr_obj(
                format!("more than 6 dofs in body '{}'", sb.name),
                "body",
                &sb.name,
                sb.line,
            ));
        }
        let free = b
            .joints
            .iter()
            .any(|&j| spec.joints[j].jtype == JointType::Free);
        if free && b.parent != 0 {
            return Err(cerr_obj(
                "free joint can only be used on top level",
                "body",
                &sb.name,
                sb.line,
            ));
        }
        let mut hasball = false;
        for &j in &b.joints {
            let t = spec.joints[j].jtype;
            if matches!(t, JointType::Ball | JointType::Hinge) && hasball {
                return Err(cerr_obj(
                    format!("ball followed by rotation in body '{}'", sb.name),
                    "body",
                    &sb.name,
                    sb.line,
                ));
            }
            if t == JointType::Ball {
                hasball = true;
            }
        }
    }
    m.nq = qposadr;
    m.nv = dofadr;

    // ---- body arrays, simple flags
    m.nmocap = 0;
    for (i, b) in bodies.iter().enumerate() {
        let sb = &spec.bodies[b.spec];
        m.body_parentid.push(b.parent as i32);
        m.body_rootid.push(b.rootid as i32);
        m.body_weldid.push(b.weldid as i32);
        if sb.mocap {
            m.body_mocapid.push(m.nmocap as i32);
            m.nmocap += 1;
        } else {
            m.body_mocapid.push(-1);
        }
        m.body_geomnum.push(b.geoms.len() as i32);
        m.body_geomadr.push(if b.geoms.is_empty() {
            -1
        } else {
            b.geoms[0] as i32
        });
        m.body_pos.extend_from_slice(&b.pos);
        m.body_quat.extend_from_slice(&b.quat);
        m.body_ipos.extend_from_slice(&b.ipos);
        m.body_iquat.extend_from_slice(&b.iquat);
        m.body_mass.push(b.mass);
        m.body_inertia.extend_from_slice(&b.inertia);
        m.body_gravcomp.push(sb.gravcomp);
        let (mut ct, mut ca) = (0, 0);
        for &g in &b.geoms {
            ct |= spec.geoms[geoms[g].spec].contype;
            ca |= spec.geoms[geoms[g].spec].conaffinity;
        }
        m.body_contype.push(ct);
        m.body_conaffinity.push(ca);
        m.body_plugin.push(sb.plugin.map_or(-1, |p| p as i32));
        // sameframe: inertial frame equal to body frame
        let null_pos = setconst::is_null_vec3(&b.ipos);
        let null_quat = setconst::is_null_quat(&b.iquat);
        // exact test here (drives body_simple); set_const recomputes with a tolerance
        m.body_sameframe.push(if null_pos && null_quat {
            1
        } else if null_quat {
            3
        } else {
            0
        });
        if i > 0 && !b.joints.is_empty() && !check_mass(&bodies, i) {
            return Err(cerr_obj(
                "mass and inertia of moving bodies must be larger than mjMINVAL",
                "body",
                &sb.name,
                sb.line,
            ));
        }
    }
    set_subtreemass(&mut m);
    // simple bodies (MuJoCo's fast paths for sliders under a static parent)
    let mut simple = vec![0u8; nbody];
    for i in 0..nbody {
        let p = bodies[i].parent;
        let sameframe = m.body_sameframe[i] == 1;
        let s = sameframe
            && (bodies[i].rootid == i || (m.body_parentid[p] == 0 && m.body_dofnum[p] == 0));
        simple[i] = s as u8;
        if !spec.bodies[bodies[i].spec].simple {
            simple[i] = 0;
        }
        if i > 0 && p > 0 {
            simple[p] = 0;
        }
        let mut rotfound = false;
        for &j in &bodies[i].joints {
            let js = &spec.joints[j];
            let a = &js.axis;
            let mut ax = *a;
            orient::normvec(&mut ax);
            let aligned = (ax[0].abs() > math::EPS) as i32
                + (ax[1].abs() > math::EPS) as i32
                + (ax[2].abs() > math::EPS) as i32
                == 1;
            let jpos = if js.jtype == JointType::Free {
                [0.0; 3]
            } else {
                js.pos
            };
            if rotfound
                || jpos != [0.0; 3]
                || (matches!(js.jtype, JointType::Hinge | JointType::Slide) && !aligned)
            {
                simple[i] = 0;
            }
            if matches!(js.jtype, JointType::Ball | JointType::Hinge) {
                rotfound = true;
            }
        }
    }
    for i in 0..nbody {
        if simple[i] != 0 && m.body_dofnum[i] > 0 {
            simple[i] = 2;
            if bodies[i]
                .joints
                .iter()
                .any(|&j| spec.joints[j].jtype != JointType::Slide)
            {
                simple[i] = 1;
            }
        }
    }
    m.body_simple = simple;
    let mut dof_simplenum = vec![0i32; m.nv];
    let mut count = 0;
    for i in (0..m.nv).rev() {
        if m.body_simple[m.dof_bodyid[i] as usize] != 0 {
            count += 1;
        } else {
            count = 0;
        }
        dof_simplenum[i] = count;
    }
    m.dof_simplenum = dof_simplenum;
    // trees
    m.body_treeid = vec![-1; nbody];
    let mut ntree = 0;
    for i in 1..nbody {
        let p = bodies[i].parent;
        if m.body_treeid[p] >= 0 {
            m.body_treeid[i] = m.body_treeid[p];
        } else if m.body_dofnum[i] > 0 {
            m.body_treeid[i] = ntree;
            ntree += 1;
        }
    }
    m.ntree = ntree as usize;
    m.dof_treeid = m
        .dof_bodyid
        .iter()
        .map(|&b| m.body_treeid[b as usize])
        .collect();

    // ---- sparse layouts: M (lower triangle rows, diagonal last), the dof-dof matrix D and the
    // body-dof matrix B of the velocity derivatives
    sparsity::make_m_sparse(&mut m);
    sparsity::make_d_sparse(&mut m);
    sparsity::make_b_sparse(&mut m);

    // ---- geoms
    m.ngeom = geoms.len();
    for g in &geoms {
        let gs = &spec.geoms[g.spec];
        m.geom_type.push(gs.gtype as i32);
        m.geom_contype.push(gs.contype);
        m.geom_conaffinity.push(gs.conaffinity);
        m.geom_condim.push(gs.condim);
        m.geom_bodyid.push(g.body as i32);
        m.geom_dataid.push(g.mesh.map_or(-1, |k| k as i32));
        m.geom_plugin.push(gs.plugin.map_or(-1, |k| k as i32));
        m.geom_group.push(gs.group);
        m.geom_priority.push(gs.priority);
        m.geom_sameframe.push(0); // set by set_const
        m.geom_solmix.push(gs.solmix);
        m.geom_solref.extend_from_slice(&gs.solref);
        m.geom_solimp.extend_from_slice(&gs.solimp);
        m.geom_size.extend_from_slice(&g.size);
        m.geom_aabb.extend_from_slice(&g.aabb);
        m.geom_rbound.push(g.rbound);
        m.geom_pos.extend_from_slice(&g.pos);
        m.geom_quat.extend_from_slice(&g.quat);
        m.geom_friction.extend_from_slice(&gs.friction);
        m.geom_margin.push(gs.margin);
        m.geom_gap.push(gs.gap);
        m.geom_adhesion.push(gs.adhesion);
        // the geom's own colour, as MuJoCo keeps it: drawing prefers the material's when this
        // is the default grey (mjv's setMaterial)
        m.geom_rgba.extend_from_slice(&gs.rgba);
        m.geom_matid.push(g.matid);
        m.names_geom.push(gs.name.clone());
    }

    // ---- sites
    for (bi, b) in bodies.iter().enumerate() {
        for &s in &b.sites {
            let ss = &spec.sites[s];
            if material_id(spec, &ss.material).is_none() {
                return Err(cerr_obj(
                    format!(
                        "material '{}' not found in site {}",
                        ss.material,
                        m.site_type.len()
                    ),
                    "site",
                    &ss.name,
                    ss.line,
                ));
            }
            let mut pos = ss.pos;
            let mut size = ss.size;
            let site_err = |msg: &str| cerr_obj(msg, "site", &ss.name, ss.line);
            let quat = if let Some(ft) = ss.fromto {
                if !matches!(
                    ss.gtype,
                    GeomType::Capsule | GeomType::Cylinder | GeomType::Ellipsoid | GeomType::Box
                ) {
                    return Err(site_err(
                        "fromto requires capsule, cylinder, box or ellipsoid in site",
                    ));
                }
                if pos != [0.0; 3] {
                    return Err(site_err("both pos and fromto defined in site"));
                }
                let mut v = [ft[0] - ft[3], ft[1] - ft[4], ft[2] - ft[5]];
                size[1] = orient::normvec(&mut v) / 2.0;
                if size[1] < math::EPS {
                    return Err(site_err("fromto points too close in site"));
                }
                // a box or ellipsoid along the segment: (r, r, half-length)
                if matches!(ss.gtype, GeomType::Ellipsoid | GeomType::Box) {
                    size[2] = size[1];
                    size[1] = size[0];
                }
                pos = [
                    (ft[0] + ft[3]) / 2.0,
                    (ft[1] + ft[4]) / 2.0,
                    (ft[2] + ft[5]) / 2.0,
                ];
                orient::z_to_quat(&v)
            } else {
                resolve_quat(&ss.orient, c).map_err(|e| {
                    cerr_obj(
                        format!(
                            "orientation specification error '{e}' in site {}",
                            m.site_type.len()
                        ),
                        "site",
                        &ss.name,
                        ss.line,
                    )
                })?
            };
            let (pos, quat) = match frame_pose(&spec.frames, c, ss.frame)? {
                Some(frame) => in_pose(&frame, &(pos, quat)),
                None => (pos, quat),
            };
            // MuJoCo checks a site's size with the geoms' words
            for (i, &v) in size.iter().enumerate().take(GEOMINFO[ss.gtype as usize]) {
                if v <= 0.0 {
                    return Err(site_err(&format!("size {i} must be positive in geom")));
                }
            }
            m.site_type.push(ss.gtype as i32);
            m.site_bodyid.push(bi as i32);
            m.site_sameframe.push(0); // set by set_const
            m.site_size.extend_from_slice(&size);
            m.site_pos.extend_from_slice(&pos);
            m.site_quat.extend_from_slice(&quat);
            m.site_rgba.extend_from_slice(&ss.rgba);
            m.names_site.push(ss.name.clone());
        }
    }
    m.nsite = m.site_type.len();
    for v in &spec.cameras {
        m.cam_bodyid.push(newid[v.body] as i32);
        m.cam_pos.extend_from_slice(&v.pos);
        let q = resolve_quat(&v.orient, c).unwrap_or([1.0, 0.0, 0.0, 0.0]);
        m.cam_quat.extend_from_slice(&q);
        m.cam_fovy.push(v.fovy);
    }
    m.ncam = spec.cameras.len();
    for v in &spec.lights {
        m.light_bodyid.push(newid[v.body] as i32);
        m.light_pos.extend_from_slice(&v.pos);
        let mut dir = v.dir;
        orient::normvec(&mut dir);
        m.light_dir.extend_from_slice(&dir);
    }
    m.nlight = spec.lights.len();

    m.names_body = names_body;

    // ---- flexes
    // Body ids by name (the first body of a name, as a scan would find it), for every flex
    // vertex's body: a scan per vertex made a 30×30 cloth's load quadratic.
    let mut body_ids = std::collections::HashMap::with_capacity(m.names_body.len());
    for (i, n) in m.names_body.iter().enumerate() {
        body_ids.entry(n.clone()).or_insert(i);
    }
    let body_lookup = |name: &str| -> Option<usize> { body_ids.get(name).copied() };
    let xpos0: Vec<[f64; 3]> = bodies.iter().map(|b| b.xpos0).collect();
    let xquat0: Vec<[f64; 4]> = bodies.iter().map(|b| b.xquat0).collect();
    let njnt_body: Vec<usize> = bodies.iter().map(|b| b.joints.len()).collect();
    let frames = flex::BodyFrames {
        xpos0: &xpos0,
        xquat0: &xquat0,
        njnt: &njnt_body,
    };
    let mut compiled = Vec::with_capacity(spec.flexes.len());
    for (fi, f) in spec.flexes.iter().enumerate() {
        if !f.name.is_empty() && spec.flexes[..fi].iter().any(|g| g.name == f.name) {
            return Err(cerr_obj(
                format!("repeated name '{}' in flex", f.name),
                "flex",
                &f.name,
                f.line,
            ));
        }
        let matid = material_id(spec, &f.material).ok_or_else(|| {
            cerr_obj(
                format!("unknown material '{}' in flex", f.material),
                "flex",
                &f.name,
                f.line,
            )
        })?;
        let strain = spec
            .equalities
            .iter()
            .any(|q| q.eqtype == EqType::FlexStrain && q.name1 == f.name);
        let cf = flex::compile(f, &body_lookup, &frames, matid, strain).map_err(|e| {
            Error {
                location: e.location.clone(),
                ..e
            }
            .at_element("flex")
            .at_object(&f.name)
            .at_line(f.line)
        })?;
        compiled.push(cf);
    }
    copy_flexes(&mut m, spec, &compiled, &bodies)?;
    checks::check_flex_bodies(&m)?;
    // ---- tendons and actuators
    actuation::compile(&mut m, spec)?;
    sensor::compile(&mut m, spec)?;

    // ---- equalities
    compile_equalities(&mut m, spec, &compiled)?;

    // ---- keyframes
    let (mut raw_mpos, mut raw_mquat) = (Vec::new(), Vec::new());
    for b in 0..nbody {
        if m.body_mocapid[b] >= 0 {
            let (p, q) = raw_pose(b);
            raw_mpos.extend(p);
            raw_mquat.extend(q);
        }
    }
    // MuJoCo 3.15.0 words the size checks two ways: by name (qpos, qvel, act) and by index
    // (ctrl, mpos, mquat)
    for (ki, k) in spec.keys.iter().enumerate() {
        let err = |msg: String| cerr_obj(msg, "key", &k.name, k.line);
        let by_name = |what: &str, want: usize, got: usize| {
            err(format!(
                "keyframe '{}': invalid {what} size, expected {want}, got {got}",
                k.name
            ))
        };
        let by_index = |what: &str, want: usize| {
            err(format!(
                "keyframe {ki}: invalid {what} size, expected length {want}"
            ))
        };
        m.key_time.push(k.time);
        // shorter vectors keep the defaults for the remaining entries, as MuJoCo does
        // a keyframe without qpos has the compiled qpos0; a short one is filled from the raw
        // references (a hinge's ref in degrees stays in degrees, as in MuJoCo 3.15.0)
        let mut qpos = m.qpos0.clone();
        if let Some(q) = &k.qpos {
            if q.len() > m.nq {
                return Err(by_name("qpos", m.nq, q.len()));
            }
            if q.len() < m.nq {
                qpos.copy_from_slice(&key_qpos0);
            }
            qpos[..q.len()].copy_from_slice(q);
        }
        // ball and free joint quaternions are normalized, by the compiler's rule and then by
        // mj_normalizeQuat (a zero quaternion becomes the identity), as MuJoCo 3.15.0 does
        for j in 0..m.njnt {
            let at = m.jnt_qposadr[j] as usize;
            let at = match m.jnt_type[j] {
                0 => at + 3,
                1 => at,
                _ => continue,
            };
            orient::normvec(&mut qpos[at..at + 4]);
            let q: &mut [f64; 4] = (&mut qpos[at..at + 4]).try_into().unwrap();
            math::normalize4(q);
        }
        m.key_qpos.extend_from_slice(&qpos);
        let mut qvel = vec![0.0; m.nv];
        if let Some(v) = &k.qvel {
            if v.len() > m.nv {
                return Err(by_name("qvel", m.nv, v.len()));
            }
            qvel[..v.len()].copy_from_slice(v);
        }
        m.key_qvel.extend_from_slice(&qvel);
        let mut act = vec![0.0; m.na];
        if let Some(v) = &k.act {
            if v.len() > m.na {
                return Err(by_name("act", m.na, v.len()));
            }
            act[..v.len()].copy_from_slice(v);
        }
        m.key_act.extend_from_slice(&act);
        let mut ctrl = vec![0.0; m.nu];
        if let Some(c) = &k.ctrl {
            if c.len() > m.nu {
                return Err(by_index("ctrl", m.nu));
            }
            ctrl[..c.len()].copy_from_slice(c);
        }
        m.key_ctrl.extend_from_slice(&ctrl);
        let mut mpos = Vec::new();
        let mut mquat = Vec::new();
        for b in 0..nbody {
            if m.body_mocapid[b] >= 0 {
                mpos.extend_from_slice(&m.body_pos[3 * b..3 * b + 3]);
                mquat.extend_from_slice(&m.body_quat[4 * b..4 * b + 4]);
            }
        }
        // too long is an error; shorter sets the mocap bodies whose values are all there and
        // fills the others with their raw pose attributes (ExpandKeyframe)
        if let Some(p) = &k.mpos {
            if p.len() > 3 * m.nmocap {
                return Err(by_index("mpos", 3 * m.nmocap));
            }
            if p.len() < 3 * m.nmocap {
                mpos.copy_from_slice(&raw_mpos);
            }
            let whole = p.len() / 3 * 3;
            mpos[..whole].copy_from_slice(&p[..whole]);
        }
        if let Some(q) = &k.mquat {
            if q.len() > 4 * m.nmocap {
                return Err(by_index("mquat", 4 * m.nmocap));
            }
            if q.len() < 4 * m.nmocap {
                mquat.copy_from_slice(&raw_mquat);
            }
            let whole = q.len() / 4 * 4;
            mquat[..whole].copy_from_slice(&q[..whole]);
            for q in mquat.chunks_exact_mut(4) {
                orient::normvec(q);
            }
        }
        m.key_mpos.extend_from_slice(&mpos);
        m.key_mquat.extend_from_slice(&mquat);
        m.names_key.push(k.name.clone());
    }
    m.nkey = spec.keys.len();

    // ---- contact exclusions
    for (xi, ex) in spec.excludes.iter().enumerate() {
        let b1 = body_lookup(&ex.body1).ok_or_else(|| {
            cerr_obj(
                format!("body '{}' not found in bodypair {xi}", ex.body1),
                "exclude",
                "",
                ex.line,
            )
        })?;
        let b2 = body_lookup(&ex.body2).ok_or_else(|| {
            cerr_obj(
                format!("body '{}' not found in bodypair {xi}", ex.body2),
                "exclude",
                "",
                ex.line,
            )
        })?;
        m.exclude_signature
            .push(((b1.min(b2) as i32) << 16) + b1.max(b2) as i32);
    }
    m.nexclude = m.exclude_signature.len();
    compile_pairs(spec, &mut m)?;
    m.nskin = spec.skins.len();
    m.nplugin = spec.plugins.len();
    // ---- meshes
    m.nmesh = meshes.len();
    for mt in &spec.materials {
        m.mat_rgba.extend_from_slice(&mt.rgba);
    }
    m.nmat = spec.materials.len();
    for (cm, ms) in meshes.iter().zip(&spec.meshes) {
        m.mesh_vertadr.push(m.nmeshvert as i32);
        m.mesh_vertnum.push((cm.vert.len() / 3) as i32);
        m.mesh_faceadr.push(m.nmeshface as i32);
        m.mesh_facenum.push((cm.face.len() / 3) as i32);
        m.mesh_vert.extend(cm.vert.iter().map(|&x| x as f64));
        m.mesh_face.extend_from_slice(&cm.face);
        m.mesh_pos.extend_from_slice(&cm.pos);
        m.mesh_quat.extend_from_slice(&cm.quat);
        m.mesh_plugin.push(cm.plugin.map_or(-1, |k| k as i32));
        m.mesh_graphadr.push(if cm.graph.is_empty() {
            -1
        } else {
            m.nmeshgraph as i32
        });
        m.nmeshgraph += cm.graph.len();
        m.mesh_extrema
            .extend_from_slice(&hullgraph::extrema(&cm.graph, &cm.vert));
        m.mesh_graph.extend_from_slice(&cm.graph);
        m.mesh_polyadr.push(m.nmeshpoly as i32);
        m.mesh_polynum.push(cm.poly.loops.len() as i32);
        m.mesh_polynormal.extend_from_slice(&cm.polynormal);
        for l in &cm.poly.loops {
            m.mesh_polyvertadr.push(m.nmeshpolyvert as i32);
            m.mesh_polyvertnum.push(l.len() as i32);
            m.mesh_polyvert.extend_from_slice(l);
            m.nmeshpolyvert += l.len();
        }
        m.nmeshpoly += cm.poly.loops.len();
        for pm in &cm.poly.map {
            m.mesh_polymapadr.push(m.nmeshpolymap as i32);
            m.mesh_polymapnum.push(pm.len() as i32);
            m.mesh_polymap.extend_from_slice(pm);
            m.nmeshpolymap += pm.len();
        }
        m.nmeshvert += cm.vert.len() / 3;
        m.nmeshface += cm.face.len() / 3;
        m.names_mesh.push(ms.name.clone());
    }
    Ok((m, jnt_order.iter().map(|&(j, _)| j).collect()))
}

/// Joints with a `springdamper` get the stiffness and damping of a spring-damper with that time
/// constant and damping ratio for the joint's mean inertia at `qpos0`, `ndof / Σ dof_invweight0`
/// (MuJoCo's `mjCModel::AutoSpringDamper`, after `mj_setConst`).
fn auto_spring_damper(m: &mut Model, spec: &Spec, jnt_spec: &[usize]) {
    for (j, &sj) in jnt_spec.iter().enumerate() {
        let [timeconst, dampratio] = spec.joints[sj].springdamper;
        if timeconst <= 0.0 || dampratio <= 0.0 {
            continue;
        }
        let adr = m.jnt_dofadr[j] as usize;
        let ndim = crate::model::jnt_dofnum(m.jnt_type[j]);
        let mut inertia = 0.0;
        for i in 0..ndim {
            inertia += m.dof_invweight0[adr + i];
        }
        inertia = ndim as f64 / inertia.max(math::MINVAL);
        let stiffness = inertia / (timeconst * timeconst * dampratio * dampratio).max(math::MINVAL);
        let damping = 2.0 * inertia / timeconst.max(math::MINVAL);
        m.jnt_stiffness[j] = stiffness;
        m.dof_damping[adr..adr + ndim].fill(damping);
    }
}

/// Compiles every mesh asset (used or not, as MuJoCo does); a mesh used by a colliding mesh
/// or sdf geom gets the convex-hull input checks.
fn compile_meshes(spec: &Spec) -> Result<Vec<meshasset::CMesh>> {
    // geoms resolve their mesh names before any mesh is compiled, as in MuJoCo
    for (gi, g) in spec.geoms.iter().enumerate() {
        if !g.mesh.is_empty() && !spec.meshes.iter().any(|m| m.name == g.mesh) {
            return Err(cerr_obj(
                format!("mesh '{}' not found in geom {gi}", g.mesh),
                "geom",
                &g.name,
                g.line,
            ));
        }
    }
    let mut needhull = vec![false; spec.meshes.len()];
    // a geom that can collide, or that an explicit pair names (MuJoCo's `SetNotVisual`)
    let in_pair = |name: &str| {
        !name.is_empty()
            && spec
                .pairs
                .iter()
                .any(|p| p.geom1 == name || p.geom2 == name)
    };
    for g in &spec.geoms {
        if matches!(g.gtype, GeomType::Mesh | GeomType::Sdf)
            && (g.contype != 0 || g.conaffinity != 0 || in_pair(&g.name))
        {
            if let Some(k) = spec.meshes.iter().position(|m| m.name == g.mesh) {
                needhull[k] = true;
            }
        }
    }
    for (i, ms) in spec.meshes.iter().enumerate() {
        if !ms.name.is_empty() && spec.meshes[..i].iter().any(|o| o.name == ms.name) {
            return Err(cerr_obj(
                format!("repeated name '{}' in mesh", ms.name),
                "mesh",
                &ms.name,
                ms.line,
            ));
        }
    }
    (0..spec.meshes.len())
        .map(|i| meshasset::compile_mesh(spec, i, needhull[i]))
        .collect()
}

fn ancestor_lastdof(bodies: &[CBody], lastdof: &[i32], bi: usize) -> i32 {
    let mut b = bodies[bi].parent;
    loop {
        if lastdof[b] >= 0 {
            return lastdof[b];
        }
        if b == 0 {
            return -1;
        }
        b = bodies[b].parent;
    }
}

/// MuJoCo's `CheckBodyMassInertia`: a moving body needs mass and inertia of its own or of a
/// static child.
fn check_mass(bodies: &[CBody], i: usize) -> bool {
    let b = &bodies[i];
    if b.mass >= math::MINVAL && b.inertia.iter().all(|&x| x >= math::MINVAL) {
        return true;
    }
    // a static child welded to it counts; a child with joints is a moving body of its own
    (i + 1..bodies.len())
        .filter(|&k| bodies[k].parent == i && bodies[k].joints.is_empty())
        .any(|k| check_mass(bodies, k))
}

fn copy_flexes(
    m: &mut Model,
    spec: &Spec,
    fl: &[flex::CompiledFlex],
    bodies: &[CBody],
) -> Result<()> {
    let (
        mut vadr,
        mut nadr,
        mut eadr,
        mut eladr,
        mut edadr,
        mut eeadr,
        mut shadr,
        mut tadr,
        mut sadr,
        mut badr,
    ) = (0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32, 0i32);
    for (f, c) in spec.flexes.iter().zip(fl.iter()) {
        m.flex_contype.push(f.contype);
        m.flex_conaffinity.push(f.conaffinity);
        m.flex_condim.push(f.condim);
        m.flex_priority.push(f.priority);
        m.flex_solmix.push(f.solmix);
        m.flex_solref.extend_from_slice(&f.solref);
        m.flex_solimp.extend_from_slice(&f.solimp);
        m.flex_friction.extend_from_slice(&f.friction);
        m.flex_margin.push(f.margin);
        m.flex_gap.push(f.gap);
        m.flex_selfcollide.push(f.selfcollide);
        m.flex_activelayers.push(f.activelayers);
        m.flex_passive.push(f.passive as i32);
        m.flex_dim.push(f.dim);
        m.flex_matid.push(c.matid);
        m.flex_group.push(f.group);
        m.flex_interp.push(c.interp);
        m.flex_cellnum.extend_from_slice(&c.cellnum);
        m.flex_nodeadr.push(nadr);
        m.flex_nodenum.push(c.nnode as i32);
        m.flex_vertadr.push(vadr);
        m.flex_vertnum.push(c.nvert as i32);
        m.flex_edgeadr.push(eadr);
        m.flex_edgenum.push(c.edge.len() as i32);
        m.flex_elemadr.push(eladr);
        m.flex_elemnum.push(c.nelem as i32);
        m.flex_elemdataadr.push(edadr);
        m.flex_elemedgeadr.push(eeadr);
        let shellnum = (c.shell.len() / c.dim) as i32;
        m.flex_shellnum.push(shellnum);
        m.flex_shelldataadr
            .push(if shellnum > 0 { shadr } else { -1 });
        if c.texcoord.is_empty() {
            m.flex_texcoordadr.push(-1);
            m.flex_elemtexcoord.extend_from_slice(&c.elem);
        } else {
            m.flex_texcoordadr.push(tadr);
            m.flex_texcoord.extend_from_slice(&c.texcoord);
            m.flex_elemtexcoord.extend_from_slice(&c.elemtexcoord);
            tadr += (c.texcoord.len() / 2) as i32;
        }
        let nodebody: Vec<i32> = if c.rigid && !c.nodebodyid.is_empty() {
            vec![c.nodebodyid[0]; c.nnode]
        } else {
            c.nodebodyid.clone()
        };
        m.flex_nodebodyid.extend_from_slice(&nodebody);
        let vb: Vec<i32> = if c.rigid && !c.interpolated {
            vec![c.vertbodyid[0]; c.nvert]
        } else {
            c.vertbodyid.clone()
        };
        m.flex_vertbodyid.extend_from_slice(&vb);
        for e in &c.edge {
            m.flex_edge.extend_from_slice(e);
        }
        for e in &c.edgeflap {
            m.flex_edgeflap.extend_from_slice(e);
        }
        m.flex_elem.extend_from_slice(&c.elem);
        m.flex_elemedge.extend_from_slice(&c.elemedge);
        m.flex_elemlayer.extend_from_slice(&c.elemlayer);
        m.flex_shell.extend_from_slice(&c.shell);
        if c.vert.is_empty() {
            m.flex_vert.extend(std::iter::repeat_n(0.0, 3 * c.nvert));
        } else {
            m.flex_vert.extend_from_slice(&c.vert);
        }
        m.flex_vert0.extend_from_slice(&c.vert0);
        if c.node.is_empty() {
            m.flex_node.extend(std::iter::repeat_n(0.0, 3 * c.nnode));
        } else {
            m.flex_node.extend_from_slice(&c.node);
        }
        m.flex_node0.extend_from_slice(&c.node0);
        m.flex_radius.push(f.radius);
        m.flex_size.extend_from_slice(&c.size);
        if c.stiffness.is_empty() {
            m.flex_stiffnessadr.push(-1);
        } else {
            m.flex_stiffnessadr.push(sadr);
            m.flex_stiffness.extend_from_slice(&c.stiffness);
            sadr += c.stiffness.len() as i32;
        }
        if c.bending.is_empty() {
            m.flex_bendingadr.push(-1);
        } else {
            m.flex_bendingadr.push(badr);
            m.flex_bending.extend_from_slice(&c.bending);
            badr += c.bending.len() as i32;
        }
        m.flex_damping.push(f.damping);
        m.flex_edgestiffness.push(f.edgestiffness);
        m.flex_edgedamping.push(f.edgedamping);
        m.flex_rigid.push(c.rigid as u8);
        m.flex_centered.push(c.centered as u8);
        m.flex_flatskin.push(f.flatskin as u8);
        m.flex_rgba.extend_from_slice(&f.rgba);
        m.flex_elastic3d.push(f.elastic3d);
        for e in &c.edge {
            let rigid = if c.rigid {
                1
            } else if !c.interpolated {
                let b1 = c.vertbodyid[e[0] as usize] as usize;
                let b2 = c.vertbodyid[e[1] as usize] as usize;
                (bodies[b1].weldid == bodies[b2].weldid) as u8
            } else {
                0
            };
            m.flexedge_rigid.push(rigid);
        }
        // edge equality mode from the first equality naming this flex
        let mode = spec
            .equalities
            .iter()
            .find(|q| {
                q.name1 == f.name
                    && matches!(
                        q.eqtype,
                        EqType::Flex | EqType::FlexVert | EqType::FlexStrain
                    )
            })
            .map(|q| match q.eqtype {
                EqType::Flex => 1,
                EqType::FlexVert => 2,
                _ => 3,
            })
            .unwrap_or(0);
        m.flex_edgeequality.push(mode);
        m.names_flex.push(f.name.clone());

        vadr += c.nvert as i32;
        nadr += c.nnode as i32;
        eadr += c.edge.len() as i32;
        eladr += c.nelem as i32;
        edadr += c.elem.len() as i32;
        eeadr += c.elemedge.len() as i32;
        shadr += c.shell.len() as i32;
    }
    m.nflex = fl.len();
    m.nflexvert = vadr as usize;
    m.nflexnode = nadr as usize;
    m.nflexedge = eadr as usize;
    m.nflexelem = eladr as usize;
    m.nflexelemdata = edadr as usize;
    m.nflexelemedge = eeadr as usize;
    m.nflexshelldata = shadr as usize;
    m.nflextexcoord = tadr as usize;
    m.nflexstiffness = sadr as usize;
    m.nflexbending = badr as usize;
    Ok(())
}

fn compile_equalities(m: &mut Model, spec: &Spec, fl: &[flex::CompiledFlex]) -> Result<()> {
    for (i, q) in spec.equalities.iter().enumerate() {
        let err = |msg: String| cerr_obj(msg, "equality", &q.name, q.line);
        let (obj1, obj2, objtype) = match q.eqtype {
            EqType::Connect | EqType::Weld => {
                if q.sites {
                    let s1 = m
                        .names_site
                        .iter()
                        .position(|n| *n == q.name1)
                        .ok_or_else(|| {
                            err(format!(
                                "unknown element '{}' in equality constraint",
                                q.name1
                            ))
                        })?;
                    let s2 = m
                        .names_site
                        .iter()
                        .position(|n| *n == q.name2)
                        .ok_or_else(|| {
                            // MuJoCo 3.15.0 numbers the constraint for the second object only
                            err(format!(
                                "unknown element '{}' in equality constraint {i}",
                                q.name2
                            ))
                        })?;
                    (s1 as i32, s2 as i32, obj::SITE)
                } else {
                    let b1 = m.body_id(&q.name1).ok_or_else(|| {
                        err(format!(
                            "unknown element '{}' in equality constraint",
                            q.name1
                        ))
                    })?;
                    let b2 = if q.name2.is_empty() {
                        0
                    } else {
                        m.body_id(&q.name2).ok_or_else(|| {
                            err(format!(
                                "unknown element '{}' in equality constraint {i}",
                                q.name2
                            ))
                        })?
                    };
                    (b1 as i32, b2 as i32, obj::BODY)
                }
            }
            EqType::Joint => {
                let j1 = m
                    .names_jnt
                    .iter()
                    .position(|n| *n == q.name1)
                    .ok_or_else(|| {
                        err(format!(
                            "unknown element '{}' in equality constraint",
                            q.name1
                        ))
                    })?;
                let j2 = if q.name2.is_empty() {
                    -1
                } else {
                    m.names_jnt
                        .iter()
                        .position(|n| *n == q.name2)
                        .ok_or_else(|| {
                            // MuJoCo 3.15.0 numbers the constraint for the second object only
                            err(format!(
                                "unknown element '{}' in equality constraint {i}",
                                q.name2
                            ))
                        })? as i32
                };
                for j in [j1 as i32, j2] {
                    if j >= 0 && !matches!(m.jnt_type[j as usize], 2 | 3) {
                        return Err(err(
                            "only HINGE and SLIDE joint allowed in constraint".into()
                        ));
                    }
                }
                (j1 as i32, j2, obj::UNKNOWN)
            }
            EqType::Tendon => {
                // needs tendon equality rows in the constraint stage
                return Err(
                    Error::unsupported("tendon equality is not supported by flexlab yet")
                        .at_element("tendon")
                        .at_line(q.line),
                );
            }
            EqType::Flex | EqType::FlexVert | EqType::FlexStrain => {
                let f = m.flex_id(&q.name1).ok_or_else(|| {
                    err(format!(
                        "unknown element '{}' in equality constraint",
                        q.name1
                    ))
                })?;
                if fl[f].rigid {
                    return Err(err(format!(
                        "rigid flex '{}' in equality constraint {i}",
                        q.name1
                    )));
                }
                // as for a flexcomp's own edge equality: bending alone may sit beside them
                let fs = &spec.flexes[f];
                if fs.elastic2d != 1 && fs.young > 0.0 {
                    return Err(err(
                        "flex constraints and elasticity (young) cannot both be present".into(),
                    ));
                }
                if fs.edgestiffness > 0.0 {
                    return Err(err(
                        "flex constraints and edge stiffness cannot both be present".into(),
                    ));
                }
                (f as i32, -1, obj::UNKNOWN)
            }
        };
        // an equality between an object and itself (a body weld without body2 names the world)
        if obj1 == obj2
            && !matches!(
                q.eqtype,
                EqType::Flex | EqType::FlexVert | EqType::FlexStrain
            )
        {
            let name = if q.name1.is_empty() {
                "world"
            } else {
                &q.name1
            };
            return Err(err(format!(
                "element '{name}' is repeated in equality constraint {i}"
            )));
        }
        m.eq_type.push(q.eqtype as i32);
        m.eq_obj1id.push(obj1);
        m.eq_obj2id.push(obj2);
        m.eq_objtype.push(objtype);
        m.eq_active0.push(q.active as u8);
        m.eq_solref.extend_from_slice(&q.solref);
        m.eq_solimp.extend_from_slice(&q.solimp);
        m.eq_data.extend_from_slice(&q.data);
        m.names_eq.push(q.name.clone());
    }
    m.neq = spec.equalities.len();
    Ok(())
}
