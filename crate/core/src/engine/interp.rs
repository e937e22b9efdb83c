//! Interpolated ("nodal") flexes at run time, as MuJoCo 3.15.0 runs `dof="trilinear"` and
//! `dof="quadratic"`: the node state gather, corotated stretch forces and their damping
//! (`mj_flexPassiveInterp`), interpolated shell bending (`mj_flexPassiveBendInterp`), the
//! node-force mapping to dofs, the discrete integrator's rotated element stiffness cache
//! (`flexelem_krot`) and its matrix-free operator (`mjd_flexInterp_mul`), and the rows of strain
//! equalities (`mjEQ_FLEXSTRAIN`).
//!
//! Elements are the cells of the node grid (volume mode, `flex_interp > 0`) or the quads of its
//! six boundary faces (shell mode, `flex_interp < 0`). Every element block of `flex_stiffness`
//! is the *negative* of its stiffness, `(3·npe)²` numbers row-major, in MuJoCo's local node
//! order. MuJoCo's quirks are kept on purpose and marked where they act.

use super::flex::{dphi, phi, shell_track_interior};
use super::Scratch;
use crate::data::Data;
use crate::flexkind::{flex_interp_assemblable, flex_interp_processed};
use crate::math::*;
use crate::model::Model;

/// Most nodes of one element (a quadratic cell).
pub const MAX_NPE: usize = 27;
/// Most element dofs (`3·MAX_NPE`).
pub const MAX_EDOF: usize = 3 * MAX_NPE;

/// The message MuJoCo 3.15.0 prints (with `mju_warning`, on every passive-force evaluation)
/// when an interpolated shell with bending has damping: no bending damping force exists.
pub const BENDING_DAMPING_MESSAGE: &str =
    "Bending damping is not yet supported for interpolated flex shells.";

// boundary faces of the node box: x=0, x=max, y=0, y=max, z=0, z=max
const FACE_NORMAL: [usize; 6] = [0, 0, 1, 1, 2, 2];

/// Element layout of one interpolated flex.
#[derive(Debug, Clone, Copy)]
pub struct Layout {
    /// Interpolation order (1 trilinear, 2 quadratic).
    pub order: usize,
    /// Shell mode: elements are boundary quads.
    pub shell: bool,
    /// Cells per axis.
    pub cells: [usize; 3],
    /// Nodes per element.
    pub npe: usize,
    /// Number of finite elements.
    pub nelem: usize,
}

/// The axes of one shell face: its normal and its slow and fast in-plane axes.
#[derive(Debug, Clone, Copy, Default)]
pub struct FaceAxes {
    pub normal: usize,
    pub a0: usize,
    pub a1: usize,
}

impl Layout {
    /// Layout from `flex_interp` and the cell counts.
    pub fn new(interp: i32, cellnum: &[i32]) -> Layout {
        let order = interp.unsigned_abs() as usize;
        let shell = interp < 0;
        let cells = [
            cellnum[0].max(0) as usize,
            cellnum[1].max(0) as usize,
            cellnum[2].max(0) as usize,
        ];
        let [cx, cy, cz] = cells;
        let (npe, nelem) = if shell {
            ((order + 1).pow(2), 2 * (cy * cz + cx * cz + cx * cy))
        } else {
            ((order + 1).pow(3), cx * cy * cz)
        };
        Layout {
            order,
            shell,
            cells,
            npe,
            nelem,
        }
    }

    /// Layout of flex `f` of a compiled model.
    pub fn of(m: &Model, f: usize) -> Layout {
        Layout::new(m.flex_interp[f], &m.flex_cellnum[3 * f..3 * f + 3])
    }

    /// Dofs of one element.
    pub fn edof(&self) -> usize {
        3 * self.npe
    }

    /// Nodes per grid axis.
    pub fn grid(&self) -> [usize; 3] {
        let o = self.order;
        [
            self.cells[0] * o + 1,
            self.cells[1] * o + 1,
            self.cells[2] * o + 1,
        ]
    }

    /// Flex-local node indices of element `fe` in MuJoCo's local order (cell: x slowest;
    /// face: slow in-plane axis outer), and for faces their axes.
    pub fn element(&self, fe: usize, nodes: &mut [usize; MAX_NPE]) -> FaceAxes {
        let o = self.order;
        let [_, ny, nz] = self.grid();
        let [cx, cy, cz] = self.cells;
        if !self.shell {
            let (ci, cj, ck) = (fe / (cy * cz), (fe / cz) % cy, fe % cz);
            let mut n = 0;
            for li in 0..=o {
                for lj in 0..=o {
                    for lk in 0..=o {
                        let (gi, gj, gk) = (ci * o + li, cj * o + lj, ck * o + lk);
                        nodes[n] = gi * ny * nz + gj * nz + gk;
                        n += 1;
                    }
                }
            }
            return FaceAxes::default();
        }
        let (face, within) = face_of(self.cells, fe);
        let normal = FACE_NORMAL[face];
        let (a0, a1) = ((normal + 1) % 3, (normal + 2) % 3);
        let count1 = [cz, cz, cx, cx, cy, cy][face];
        let fixed = [0, cx * o, 0, cy * o, 0, cz * o][face];
        let (q0, q1) = (within / count1.max(1), within % count1.max(1));
        let mut n = 0;
        for l0 in 0..=o {
            for l1 in 0..=o {
                let mut g = [0; 3];
                g[normal] = fixed;
                g[a0] = q0 * o + l0;
                g[a1] = q1 * o + l1;
                nodes[n] = g[0] * ny * nz + g[1] * nz + g[2];
                n += 1;
            }
        }
        FaceAxes { normal, a0, a1 }
    }
}

/// Number of quads on each of the six boundary faces.
pub fn face_sizes(cells: [usize; 3]) -> [usize; 6] {
    let [cx, cy, cz] = cells;
    [cy * cz, cy * cz, cx * cz, cx * cz, cx * cy, cx * cy]
}

/// The face (0..6) and the index within it of shell element `fe`.
pub fn face_of(cells: [usize; 3], fe: usize) -> (usize, usize) {
    let sizes = face_sizes(cells);
    let mut cumul = 0;
    for (f, &s) in sizes.iter().enumerate() {
        if fe < cumul + s {
            return (f, fe - cumul);
        }
        cumul += s;
    }
    (0, fe)
}

/// `mju_mat2Rot`: the rotation nearest to `mat` (Müller et al. 2016), iterated from `quat`.
pub fn mat2rot(quat: &mut Quat, mat: &Mat3) {
    let cm = [
        [mat[0], mat[3], mat[6]],
        [mat[1], mat[4], mat[7]],
        [mat[2], mat[5], mat[8]],
    ];
    for _ in 0..500 {
        let rot = quat_to_mat(quat);
        let cr = [
            [rot[0], rot[3], rot[6]],
            [rot[1], rot[4], rot[7]],
            [rot[2], rot[5], rot[8]],
        ];
        let v1 = cross(&cr[0], &cm[0]);
        let v2 = cross(&cr[1], &cm[1]);
        let v3 = cross(&cr[2], &cm[2]);
        let mut omega = add3(&v1, &v2);
        add_to3(&mut omega, &v3);
        let scale = 1.0
            / ((dot3(&cr[0], &cm[0]) + dot3(&cr[1], &cm[1]) + dot3(&cr[2], &cm[2])).abs() + MINVAL);
        omega = scl3(&omega, scale);
        let w = normalize3(&mut omega);
        if w < 1e-9 {
            break;
        }
        let qrot = axis_angle_to_quat(&omega, w);
        *quat = mul_quat(&qrot, quat);
        normalize4(quat);
    }
}

/// Corotation quaternion of a cell (world → rest frame): the rotation of the parametric
/// deformation gradient at the cell centre (`mju_defGradient`, `mju_mat2Rot`), conjugated.
pub fn cell_quat(x: &[f64], order: usize) -> Quat {
    let p = [0.5, 0.5, 0.5];
    let mut f = [0.0; 9];
    let mut idx = 0;
    for i in 0..=order {
        for j in 0..=order {
            for k in 0..=order {
                let g = [
                    dphi(p[0], i, order) * phi(p[1], j, order) * phi(p[2], k, order),
                    phi(p[0], i, order) * dphi(p[1], j, order) * phi(p[2], k, order),
                    phi(p[0], i, order) * phi(p[1], j, order) * dphi(p[2], k, order),
                ];
                for c in 0..3 {
                    for a in 0..3 {
                        f[3 * c + a] += x[3 * idx + c] * g[a];
                    }
                }
                idx += 1;
            }
        }
    }
    let mut q = IDENTITY_QUAT;
    mat2rot(&mut q, &f);
    neg_quat(&q)
}

/// Tangents `∂x/∂ξ`, `∂x/∂η` of a face at the local point `loc` (`mju_flexFaceNormal2D`),
/// and their cross product (the unnormalised normal).
pub fn face_tangents(x: &[f64], order: usize, loc: &[f64; 2]) -> (Vec3, Vec3, Vec3) {
    let mut t1 = [0.0; 3];
    let mut t2 = [0.0; 3];
    let mut idx = 0;
    for l0 in 0..=order {
        for l1 in 0..=order {
            let g0 = dphi(loc[0], l0, order) * phi(loc[1], l1, order);
            let g1 = phi(loc[0], l0, order) * dphi(loc[1], l1, order);
            for d in 0..3 {
                t1[d] += x[3 * idx + d] * g0;
                t2[d] += x[3 * idx + d] * g1;
            }
            idx += 1;
        }
    }
    let n = cross(&t1, &t2);
    (t1, t2, n)
}

/// Corotation quaternion of a shell face (`mju_flexInterpRotation2D` at the face centre): the
/// tangents and normal placed as the columns of the face's axes, then as [`cell_quat`].
pub fn face_quat(x: &[f64], order: usize, axes: &FaceAxes) -> Quat {
    let (t1, t2, n) = face_tangents(x, order, &[0.5, 0.5]);
    let mut cols = [[0.0; 3]; 3];
    cols[axes.a0] = t1;
    cols[axes.a1] = t2;
    cols[axes.normal] = n;
    let mut mat = [0.0; 9];
    for col in 0..3 {
        for row in 0..3 {
            mat[3 * row + col] = cols[col][row];
        }
    }
    let mut q = IDENTITY_QUAT;
    mat2rot(&mut q, &mat);
    neg_quat(&q)
}

/// Corotation quaternion of element `fe` from its gathered node positions `x`.
fn element_quat(lay: &Layout, axes: &FaceAxes, x: &[f64]) -> Quat {
    if lay.shell {
        face_quat(x, lay.order, axes)
    } else {
        cell_quat(x, lay.order)
    }
}

/// Buffers of the interpolated-flex computations, sized once per model (no allocation while
/// stepping), and the per-step rotated stiffness cache.
#[derive(Debug, Clone, Default)]
pub struct InterpScratch {
    /// Node world positions (m) and velocities (m/s), 3 per node of one flex.
    y: Vec<f64>,
    v: Vec<f64>,
    /// World node forces (N) of stretch/bending springs and dampers.
    frc: Vec<f64>,
    dmp: Vec<f64>,
    /// Per-face node positions, node indices and corotation quaternions (shell bending).
    face_x: Vec<f64>,
    face_nodes: Vec<usize>,
    face_q: Vec<Quat>,
    /// `flexelem_krot`: per element `Cᵀ·K·C` at the current positions, unscaled, with the same
    /// offsets and (negative) sign as `flex_stiffness`; filled at the position stage.
    pub krot: Vec<f64>,
    /// Scaled element block of the operator.
    kc: Vec<f64>,
    /// Element node Jacobian over the union of the nodes' dof chains: `3·npe` rows of
    /// `nchain` columns.
    jac: Vec<f64>,
    chain: Vec<usize>,
    nchain: usize,
    col: Vec<i32>,
    body_chain: Vec<i32>,
    /// Assembled node rows of the metric (when MuJoCo assembles them).
    csr: NodeCsr,
    /// Strain equality being built: Jacobian row, corotated displacement, world → rest
    /// rotation conjugate, offset of its modes in `flex_stiffness`, element dofs.
    row: Vec<f64>,
    sdisp: Vec<f64>,
    squat: Quat,
    smodes: usize,
    sedof: usize,
    /// How often MuJoCo would have printed [`BENDING_DAMPING_MESSAGE`].
    pub bending_damping_warnings: u64,
}

impl InterpScratch {
    #[cold]
    pub fn new(m: &Model) -> Self {
        let interp: Vec<usize> = (0..m.nflex).filter(|&f| m.flex_interp[f] != 0).collect();
        if interp.is_empty() {
            return InterpScratch::default();
        }
        let maxnode = interp
            .iter()
            .map(|&f| m.flex_nodenum[f] as usize)
            .max()
            .unwrap_or(0);
        let maxfaces = interp
            .iter()
            .map(|&f| {
                let lay = Layout::of(m, f);
                if lay.shell {
                    lay.nelem
                } else {
                    0
                }
            })
            .max()
            .unwrap_or(0);
        let nv = m.nv;
        InterpScratch {
            y: crate::data::zeros::<f64>(3 * maxnode),
            v: crate::data::zeros::<f64>(3 * maxnode),
            frc: crate::data::zeros::<f64>(3 * maxnode),
            dmp: crate::data::zeros::<f64>(3 * maxnode),
            face_x: crate::data::zeros::<f64>(maxfaces * 3 * MAX_NPE),
            face_nodes: crate::data::zeros(maxfaces * MAX_NPE),
            face_q: vec![IDENTITY_QUAT; maxfaces],
            krot: crate::data::zeros::<f64>(m.nflexstiffness),
            kc: crate::data::zeros::<f64>(MAX_EDOF * MAX_EDOF),
            jac: crate::data::zeros::<f64>(MAX_EDOF * nv),
            chain: crate::data::zeros(nv),
            nchain: 0,
            col: vec![-1; nv],
            body_chain: crate::data::zeros(nv),
            row: crate::data::zeros::<f64>(nv),
            csr: NodeCsr::new(m),
            sdisp: crate::data::zeros::<f64>(MAX_EDOF),
            squat: IDENTITY_QUAT,
            smodes: 0,
            sedof: 0,
            bending_damping_warnings: 0,
        }
    }
}

/// True if node `i` (global) sits at its body's origin, so its force maps straight onto the
/// body's own dofs.
#[inline]
fn at_origin(m: &Model, f: usize, i: usize) -> bool {
    m.flex_centered[f] != 0 || m.flex_node[3 * i..3 * i + 3] == [0.0; 3]
}

/// World position of node `i` (global) before the shell's interior tracking.
#[inline]
fn raw_node(m: &Model, d: &Data, f: usize, i: usize) -> Vec3 {
    let b = m.flex_nodebodyid[i] as usize;
    let xp = [d.xpos[3 * b], d.xpos[3 * b + 1], d.xpos[3 * b + 2]];
    if at_origin(m, f, i) {
        return xp;
    }
    let mut mat = [0.0; 9];
    mat.copy_from_slice(&d.xmat[9 * b..9 * b + 9]);
    let node = [
        m.flex_node[3 * i],
        m.flex_node[3 * i + 1],
        m.flex_node[3 * i + 2],
    ];
    add3(&mul_mat_vec3(&mat, &node), &xp)
}

/// Node positions (and velocities) of flex `f` (`mju_flexGatherState`): body-attached points,
/// their velocities from the body's spatial velocity, and for shells the interior rebuilt from
/// the boundary by transfinite interpolation.
fn gather(m: &Model, d: &Data, f: usize, y: &mut [f64], v: Option<&mut [f64]>) {
    let a = m.flex_nodeadr[f] as usize;
    let nn = m.flex_nodenum[f] as usize;
    for n in 0..nn {
        y[3 * n..3 * n + 3].copy_from_slice(&raw_node(m, d, f, a + n));
    }
    let lay = Layout::of(m, f);
    let [nx, ny, nz] = lay.grid();
    if let Some(v) = v {
        for n in 0..nn {
            let b = m.flex_nodebodyid[a + n] as usize;
            let root = m.body_rootid[b] as usize;
            let w = [d.cvel[6 * b], d.cvel[6 * b + 1], d.cvel[6 * b + 2]];
            let lin = [d.cvel[6 * b + 3], d.cvel[6 * b + 4], d.cvel[6 * b + 5]];
            let xi = [d.xipos[3 * b], d.xipos[3 * b + 1], d.xipos[3 * b + 2]];
            let com = [
                d.subtree_com[3 * root],
                d.subtree_com[3 * root + 1],
                d.subtree_com[3 * root + 2],
            ];
            // mj_objectVelocity: the velocity at the body's centre of mass, world frame
            let vcom = sub3(&lin, &cross(&sub3(&xi, &com), &w));
            let r = sub3(&[y[3 * n], y[3 * n + 1], y[3 * n + 2]], &xi);
            let vn = add3(&vcom, &cross(&w, &r));
            v[3 * n..3 * n + 3].copy_from_slice(&vn);
        }
        if lay.shell {
            shell_track_interior(v, nx, ny, nz);
        }
    }
    if lay.shell {
        shell_track_interior(y, nx, ny, nz);
    }
}

/// Adds world node forces `frc` of flex `f` to `out` (MuJoCo's scatter): a node at its body's
/// origin writes `xmatᵀ·f` into the body's own first three dofs (3.15.0 quirk: a moving parent
/// receives nothing); any other node goes through the body Jacobian at its position.
fn scatter(
    m: &Model,
    d: &Data,
    jac: &mut super::jacobian::JacScratch,
    f: usize,
    y: &[f64],
    frc: &[f64],
    out: &mut [f64],
) {
    let a = m.flex_nodeadr[f] as usize;
    for n in 0..m.flex_nodenum[f] as usize {
        let b = m.flex_nodebodyid[a + n] as usize;
        let fv = [frc[3 * n], frc[3 * n + 1], frc[3 * n + 2]];
        if m.body_dofnum[b] > 0 && at_origin(m, f, a + n) {
            let mut mat = [0.0; 9];
            mat.copy_from_slice(&d.xmat[9 * b..9 * b + 9]);
            let q = mul_mat_t_vec3(&mat, &fv);
            let da = m.body_dofadr[b] as usize;
            for k in 0..3 {
                out[da + k] += q[k];
            }
        } else {
            let p = [y[3 * n], y[3 * n + 1], y[3 * n + 2]];
            super::support::apply_ft(m, d, jac, &fv, &[0.0; 3], &p, b, out);
        }
    }
}

/// Passive forces of interpolated flex `f`: corotated stretch and damping, then shell bending
/// (the order of `mj_springdamper`).
pub fn passive(m: &Model, d: &mut Data, s: &mut Scratch, f: usize, spring: bool, damper: bool) {
    stretch(m, d, s, f, spring, damper);
    bend(m, d, s, f, spring, damper);
}

/// Adds world node forces and damping forces to `qfrc_spring` / `qfrc_damper`.
fn apply(m: &Model, d: &mut Data, s: &mut Scratch, f: usize, spring: bool, damper: bool) {
    let nn = 3 * m.flex_nodenum[f] as usize;
    let is = &mut s.interp;
    if spring {
        let mut q = std::mem::take(&mut d.a.qfrc_spring);
        scatter(m, d, &mut s.jac, f, &is.y[..nn], &is.frc[..nn], &mut q);
        d.a.qfrc_spring = q;
    }
    if damper {
        let mut q = std::mem::take(&mut d.a.qfrc_damper);
        scatter(m, d, &mut s.jac, f, &is.y[..nn], &is.dmp[..nn], &mut q);
        d.a.qfrc_damper = q;
    }
}

/// Corotated linear stretch forces `f = C·Ke·(Cᵀy − y₀)` and damping `β·C·Ke·Cᵀ·v` per element
/// (`Ke` stored negative, so these are restoring), `mj_flexPassiveInterp`.
fn stretch(m: &Model, d: &mut Data, s: &mut Scratch, f: usize, spring: bool, damper: bool) {
    let sadr = m.flex_stiffnessadr[f];
    if sadr < 0 {
        return;
    }
    // the whole-flex gate on element 0's first entry (3.15.0): no shell membrane forces
    if m.flex_stiffness[sadr as usize] == 0.0 || m.flex_edgeequality[f] == 3 {
        return;
    }
    let lay = Layout::of(m, f);
    let nn = m.flex_nodenum[f] as usize;
    let de = lay.edof();
    let is = &mut s.interp;
    gather(m, d, f, &mut is.y, Some(&mut is.v));
    is.frc[..3 * nn].fill(0.0);
    is.dmp[..3 * nn].fill(0.0);
    let k = &m.flex_stiffness[sadr as usize..];
    let y0 = &m.flex_node0[3 * m.flex_nodeadr[f] as usize..];
    let mut nodes = [0usize; MAX_NPE];
    let mut xe = [0.0; MAX_EDOF];
    let mut ve = [0.0; MAX_EDOF];
    let mut disp = [0.0; MAX_EDOF];
    let mut fe_ = [0.0; MAX_EDOF];
    let mut dmp_e = [0.0; MAX_EDOF];
    for fe in 0..lay.nelem {
        let ke = &k[fe * de * de..(fe + 1) * de * de];
        if ke[0] == 0.0 {
            continue;
        }
        let axes = lay.element(fe, &mut nodes);
        for n in 0..lay.npe {
            let g = 3 * nodes[n];
            xe[3 * n..3 * n + 3].copy_from_slice(&is.y[g..g + 3]);
            ve[3 * n..3 * n + 3].copy_from_slice(&is.v[g..g + 3]);
        }
        let q = element_quat(&lay, &axes, &xe[..de]);
        for n in 0..lay.npe {
            let x = rot_vec_quat(&[xe[3 * n], xe[3 * n + 1], xe[3 * n + 2]], &q);
            let v = rot_vec_quat(&[ve[3 * n], ve[3 * n + 1], ve[3 * n + 2]], &q);
            ve[3 * n..3 * n + 3].copy_from_slice(&v);
            let g = 3 * nodes[n];
            for c in 0..3 {
                disp[3 * n + c] = x[c] - y0[g + c];
            }
        }
        if spring {
            for r in 0..de {
                fe_[r] = dot(&ke[r * de..(r + 1) * de], &disp[..de]);
            }
        }
        if damper {
            for r in 0..de {
                dmp_e[r] = dot(&ke[r * de..(r + 1) * de], &ve[..de]);
            }
        }
        let qi = neg_quat(&q);
        for n in 0..lay.npe {
            let g = 3 * nodes[n];
            if spring {
                let w = rot_vec_quat(&[fe_[3 * n], fe_[3 * n + 1], fe_[3 * n + 2]], &qi);
                for c in 0..3 {
                    is.frc[g + c] += w[c];
                }
            }
            if damper {
                let w = rot_vec_quat(&[dmp_e[3 * n], dmp_e[3 * n + 1], dmp_e[3 * n + 2]], &qi);
                for c in 0..3 {
                    is.dmp[g + c] += w[c];
                }
            }
        }
    }
    let beta = m.flex_damping[f];
    for x in is.dmp[..3 * nn].iter_mut() {
        *x *= beta;
    }
    apply(m, d, s, f, spring, damper);
}

/// Interpolated shell bending (`mj_flexPassiveBendInterp`): per hinge, the energy
/// `½κ|(n_A − n_B) − R̄·Δn₀|²` with the averaged face rotation `R̄` held fixed. MuJoCo 3.15.0
/// has no bending damping; with damping set it prints [`BENDING_DAMPING_MESSAGE`] on every call
/// (counted in `bending_damping_warnings`).
fn bend(m: &Model, d: &mut Data, s: &mut Scratch, f: usize, spring: bool, damper: bool) {
    if m.flex_interp[f] >= 0 || m.flex_bendingadr[f] < 0 {
        return;
    }
    let b = &m.flex_bending[m.flex_bendingadr[f] as usize..];
    let nedge = b[0] as usize;
    if nedge == 0 {
        return;
    }
    let lay = Layout::of(m, f);
    let o = lay.order;
    let npe = lay.npe;
    let nn = m.flex_nodenum[f] as usize;
    let is = &mut s.interp;
    gather(m, d, f, &mut is.y, None);
    is.frc[..3 * nn].fill(0.0);
    is.dmp[..3 * nn].fill(0.0);
    let mut nodes = [0usize; MAX_NPE];
    for fi in 0..lay.nelem {
        let axes = lay.element(fi, &mut nodes);
        let x = &mut is.face_x[fi * 3 * MAX_NPE..fi * 3 * MAX_NPE + 3 * npe];
        for n in 0..npe {
            x[3 * n..3 * n + 3].copy_from_slice(&is.y[3 * nodes[n]..3 * nodes[n] + 3]);
        }
        is.face_q[fi] = face_quat(x, o, &axes);
        is.face_nodes[fi * MAX_NPE..fi * MAX_NPE + npe].copy_from_slice(&nodes[..npe]);
    }
    let h = m.opt.timestep;
    let kd = if h > 0.0 { m.flex_damping[f] / h } else { 0.0 };
    if damper && kd > 0.0 {
        is.bending_damping_warnings += 1;
    }
    for e in 0..nedge {
        let r = &b[1 + 10 * e..11 + 10 * e];
        let (fa, fb) = (r[0] as usize, r[1] as usize);
        let loc = [[r[2], r[3]], [r[4], r[5]]];
        let kappa = r[6];
        let dn0 = [r[7], r[8], r[9]];
        if kappa == 0.0 || fa >= lay.nelem || fb >= lay.nelem {
            continue;
        }
        let xa = &is.face_x[fa * 3 * MAX_NPE..fa * 3 * MAX_NPE + 3 * npe];
        let xb = &is.face_x[fb * 3 * MAX_NPE..fb * 3 * MAX_NPE + 3 * npe];
        let (t1a, t2a, mut na) = face_tangents(xa, o, &loc[0]);
        let (t1b, t2b, mut nb) = face_tangents(xb, o, &loc[1]);
        let (la, lb) = (norm3(&na), norm3(&nb));
        if la < MINVAL || lb < MINVAL {
            continue;
        }
        let (ia, ib) = (1.0 / la, 1.0 / lb);
        for c in 0..3 {
            na[c] *= ia;
            nb[c] *= ib;
        }
        let qa = is.face_q[fa];
        let mut qb = is.face_q[fb];
        if dot(&qa, &qb) < 0.0 {
            for x in qb.iter_mut() {
                *x *= -1.0;
            }
        }
        let mut qavg = [qa[0] + qb[0], qa[1] + qb[1], qa[2] + qb[2], qa[3] + qb[3]];
        // mju_normalize (n = 4): no "already unit" shortcut, unlike normalize4
        let norm = dot(&qavg, &qavg).sqrt();
        if norm < MINVAL {
            qavg = IDENTITY_QUAT;
        } else {
            let inv = 1.0 / norm;
            for x in qavg.iter_mut() {
                *x *= inv;
            }
        }
        let qavg = neg_quat(&qavg);
        let dn = rot_vec_quat(&dn0, &qavg);
        let mut res = sub3(&na, &nb);
        for c in 0..3 {
            res[c] -= dn[c];
        }
        if !spring {
            continue;
        }
        let proj = |n: &Vec3, inv: f64| -> Vec3 {
            let dd = dot3(n, &res);
            [
                (res[0] - n[0] * dd) * inv,
                (res[1] - n[1] * dd) * inv,
                (res[2] - n[2] * dd) * inv,
            ]
        };
        let wa = proj(&na, ia);
        let wb = proj(&nb, ib);
        let sides = [
            (fa, loc[0], cross(&wa, &t2a), cross(&wa, &t1a), 1.0),
            (fb, loc[1], cross(&wb, &t2b), cross(&wb, &t1b), -1.0),
        ];
        for (face, l, wt2, wt1, sign) in sides {
            let mut idx = 0;
            for l0 in 0..=o {
                for l1 in 0..=o {
                    let g0 = dphi(l[0], l0, o) * phi(l[1], l1, o);
                    let g1 = phi(l[0], l0, o) * dphi(l[1], l1, o);
                    let gi = 3 * is.face_nodes[face * MAX_NPE + idx];
                    for j in 0..3 {
                        let fj = kappa * (g0 * wt2[j] - g1 * wt1[j]);
                        if sign > 0.0 {
                            is.frc[gi + j] += fj;
                        } else {
                            is.frc[gi + j] -= fj;
                        }
                    }
                    idx += 1;
                }
            }
        }
    }
    apply(m, d, s, f, spring, damper);
}

/// Fills `jac` with the translational Jacobians of the element nodes at `x` over the union of
/// their bodies' dof chains (increasing dofs, in `chain[..nchain]`); rows `3n+c`.
fn element_jacobian(
    m: &Model,
    d: &Data,
    is: &mut InterpScratch,
    bodies: &[usize],
    x: &[f64],
) -> usize {
    // union of the chains, via a dof → column map
    let mut nchain = 0;
    for &b in bodies {
        let n = super::jacobian::body_chain(m, b, &mut is.body_chain);
        for k in 0..n {
            let dof = is.body_chain[k] as usize;
            if is.col[dof] < 0 {
                is.col[dof] = 0;
                is.chain[nchain] = dof;
                nchain += 1;
            }
        }
    }
    super::sort::sort_small(&mut is.chain[..nchain]);
    for (c, &dof) in is.chain[..nchain].iter().enumerate() {
        is.col[dof] = c as i32;
    }
    let rows = 3 * bodies.len();
    is.jac[..rows * nchain].fill(0.0);
    for (n, &b) in bodies.iter().enumerate() {
        let w = m.body_weldid[b] as usize;
        if m.body_dofnum[w] == 0 {
            continue;
        }
        let root = m.body_rootid[b] as usize;
        let off = [
            x[3 * n] - d.subtree_com[3 * root],
            x[3 * n + 1] - d.subtree_com[3 * root + 1],
            x[3 * n + 2] - d.subtree_com[3 * root + 2],
        ];
        let mut da = m.body_dofadr[w] + m.body_dofnum[w] - 1;
        while da >= 0 {
            let i = da as usize;
            let c = &d.cdof[6 * i..6 * i + 6];
            let t = cross(&[c[0], c[1], c[2]], &off);
            let col = is.col[i] as usize;
            for r in 0..3 {
                is.jac[(3 * n + r) * nchain + col] = c[3 + r] + t[r];
            }
            da = m.dof_parentid[i];
        }
    }
    for &dof in &is.chain[..nchain] {
        is.col[dof] = -1;
    }
    is.nchain = nchain;
    nchain
}

/// MuJoCo's metric scale of flex `f`, `s1 + s2·flex_damping` with `s1 = h²` and `s2 = h`,
/// each dropped when springs or dampers are disabled.
pub fn metric_scale(m: &Model, f: usize) -> f64 {
    let (s1, s2) = super::metric::stiffness_scales(m);
    s1 + s2 * m.flex_damping[f]
}

/// The dof-space rows MuJoCo's `efm_K` holds for the nodes of assembled interpolated flexes
/// (`mjd_flexStiff_assemble` with the rotated cache): three rows per node body with 3 dofs,
/// each with the 3 dofs of every node sharing an element with it, sorted by dof.
#[derive(Debug, Clone, Default)]
struct NodeCsr {
    /// Node-body dofs with rows (the first of each triple), increasing.
    rowdof: Vec<usize>,
    /// Per row triple: first neighbour in `neigh`, and the end (`rowdof.len() + 1` entries).
    nadr: Vec<usize>,
    /// Neighbour first dofs, per row triple.
    neigh: Vec<usize>,
    /// Values, per row triple: 3 rows × (3 per neighbour).
    val: Vec<f64>,
    /// Value offset of each row triple.
    vadr: Vec<usize>,
}

impl NodeCsr {
    /// The structure (constant for the model), or an empty CSR if MuJoCo would not assemble.
    #[cold]
    fn new(m: &Model) -> NodeCsr {
        let mut csr = NodeCsr::default();
        if !assembles(m) {
            return csr;
        }
        let mut cand: Vec<Vec<usize>> = vec![Vec::new(); m.nv];
        let mut nodes = [0usize; MAX_NPE];
        for f in 0..m.nflex {
            if !flex_interp_processed(m, f) {
                continue;
            }
            let lay = Layout::of(m, f);
            let de = lay.edof();
            let sadr = m.flex_stiffnessadr[f] as usize;
            let na = m.flex_nodeadr[f] as usize;
            let dof = |n: usize| {
                let b = m.flex_nodebodyid[na + n] as usize;
                (m.body_dofnum[b] == 3).then(|| m.body_dofadr[b] as usize)
            };
            for fe in 0..lay.nelem {
                if m.flex_stiffness[sadr + fe * de * de] == 0.0 {
                    continue;
                }
                lay.element(fe, &mut nodes);
                for &i in &nodes[..lay.npe] {
                    let Some(di) = dof(i) else { continue };
                    for &j in &nodes[..lay.npe] {
                        if let Some(dj) = dof(j) {
                            cand[di].push(dj);
                        }
                    }
                }
            }
        }
        csr.nadr.push(0);
        for (di, c) in cand.iter_mut().enumerate() {
            if c.is_empty() {
                continue;
            }
            super::sort::sort_small(c);
            c.dedup();
            csr.rowdof.push(di);
            csr.vadr.push(csr.val.len());
            csr.neigh.extend_from_slice(c);
            csr.nadr.push(csr.neigh.len());
            csr.val.resize(csr.val.len() + 9 * c.len(), 0.0);
        }
        csr
    }

    /// Row triple of node dof `dof`.
    fn row(&self, dof: usize) -> Option<usize> {
        self.rowdof.binary_search(&dof).ok()
    }

    /// Adds the 3×3 block `blk` at (row triple `r`, neighbour dof `dj`).
    fn add(&mut self, r: usize, dj: usize, blk: &[f64; 9]) {
        let nb = &self.neigh[self.nadr[r]..self.nadr[r + 1]];
        let Ok(pos) = nb.binary_search(&dj) else {
            return;
        };
        let n = nb.len();
        let v = &mut self.val[self.vadr[r]..self.vadr[r] + 9 * n];
        for rr in 0..3 {
            for c in 0..3 {
                v[rr * 3 * n + 3 * pos + c] += blk[3 * rr + c];
            }
        }
    }
}

/// Position stage of the discrete metric: the corotated element blocks
/// (`mjd_flexInterp_cacheKrot`, `krot = Rᵀ·Ke·R` with R the world → rest rotation, still
/// negative) of every processed flex at the current positions, and, when MuJoCo assembles
/// them, their dof-space rows `xmat_iᵀ·(−scale·krot_e(i,j))·xmat_j` summed over elements.
pub fn build(m: &Model, d: &Data, is: &mut InterpScratch) {
    is.krot.fill(0.0);
    for f in 0..m.nflex {
        if !flex_interp_processed(m, f) {
            continue;
        }
        let lay = Layout::of(m, f);
        let de = lay.edof();
        let sadr = m.flex_stiffnessadr[f] as usize;
        gather(m, d, f, &mut is.y, None);
        let mut nodes = [0usize; MAX_NPE];
        let mut xe = [0.0; MAX_EDOF];
        for fe in 0..lay.nelem {
            let adr = sadr + fe * de * de;
            let ke = &m.flex_stiffness[adr..adr + de * de];
            if ke[0] == 0.0 {
                continue;
            }
            let axes = lay.element(fe, &mut nodes);
            for n in 0..lay.npe {
                xe[3 * n..3 * n + 3].copy_from_slice(&is.y[3 * nodes[n]..3 * nodes[n] + 3]);
            }
            let q = element_quat(&lay, &axes, &xe[..de]);
            let r = quat_to_mat(&q);
            let rt = transpose3(&r);
            let out = &mut is.krot[adr..adr + de * de];
            for a in 0..lay.npe {
                for bb in 0..lay.npe {
                    let mut blk = [0.0; 9];
                    for rr in 0..3 {
                        for c in 0..3 {
                            blk[3 * rr + c] = ke[(3 * a + rr) * de + 3 * bb + c];
                        }
                    }
                    let tmp = mul_mat_mat3(&blk, &r);
                    let blk = mul_mat_mat3(&rt, &tmp);
                    for rr in 0..3 {
                        for c in 0..3 {
                            out[(3 * a + rr) * de + 3 * bb + c] = blk[3 * rr + c];
                        }
                    }
                }
            }
        }
    }
    assemble(m, d, is);
}

/// Fills the values of the node CSR from the rotated cache.
fn assemble(m: &Model, d: &Data, is: &mut InterpScratch) {
    if is.csr.rowdof.is_empty() {
        return;
    }
    is.csr.val.fill(0.0);
    let xmat = |b: usize| -> Mat3 {
        let mut r = [0.0; 9];
        r.copy_from_slice(&d.xmat[9 * b..9 * b + 9]);
        r
    };
    let mut nodes = [0usize; MAX_NPE];
    for f in 0..m.nflex {
        if !flex_interp_processed(m, f) {
            continue;
        }
        let iscale = -metric_scale(m, f);
        if iscale == 0.0 {
            continue;
        }
        let lay = Layout::of(m, f);
        let de = lay.edof();
        let sadr = m.flex_stiffnessadr[f] as usize;
        let na = m.flex_nodeadr[f] as usize;
        for fe in 0..lay.nelem {
            let adr = sadr + fe * de * de;
            if m.flex_stiffness[adr] == 0.0 {
                continue;
            }
            lay.element(fe, &mut nodes);
            for i in 0..lay.npe {
                let bi = m.flex_nodebodyid[na + nodes[i]] as usize;
                if m.body_dofnum[bi] != 3 {
                    continue;
                }
                let Some(row) = is.csr.row(m.body_dofadr[bi] as usize) else {
                    continue;
                };
                let rit = transpose3(&xmat(bi));
                for j in 0..lay.npe {
                    let bj = m.flex_nodebodyid[na + nodes[j]] as usize;
                    if m.body_dofnum[bj] != 3 {
                        continue;
                    }
                    let mut k = [0.0; 9];
                    for r in 0..3 {
                        for c in 0..3 {
                            k[3 * r + c] = iscale * is.krot[adr + (3 * i + r) * de + 3 * j + c];
                        }
                    }
                    let tmp = mul_mat_mat3(&k, &xmat(bj));
                    let blk = mul_mat_mat3(&rit, &tmp);
                    is.csr.add(row, m.body_dofadr[bj] as usize, &blk);
                }
            }
        }
    }
}

/// `res += Σ_f scale(f)·Jᵀ·krot·J·vec` over the processed flexes (`mjd_flexInterp_mul` with the
/// cached blocks); flexes with scale 0 are skipped. The nodes on simple slide bodies of a
/// centred flex take MuJoCo's fast path (`J = xmat`), any other flex the node Jacobians.
fn kernel(
    m: &Model,
    d: &Data,
    is: &mut InterpScratch,
    res: &mut [f64],
    vec: &[f64],
    scale: &dyn Fn(usize) -> f64,
) {
    for f in 0..m.nflex {
        if !flex_interp_processed(m, f) {
            continue;
        }
        let sc = scale(f);
        if sc == 0.0 {
            continue;
        }
        let lay = Layout::of(m, f);
        let de = lay.edof();
        let sadr = m.flex_stiffnessadr[f] as usize;
        let na = m.flex_nodeadr[f] as usize;
        let nn = m.flex_nodenum[f] as usize;
        let bodyid = &m.flex_nodebodyid[na..na + nn];
        let fast =
            m.flex_centered[f] != 0 && bodyid.iter().all(|&b| m.body_simple[b as usize] == 2);
        if !fast {
            gather(m, d, f, &mut is.y, None);
        }
        let mut nodes = [0usize; MAX_NPE];
        let mut bodies = [0usize; MAX_NPE];
        let mut xe = [0.0; MAX_EDOF];
        let mut w = [0.0; MAX_EDOF];
        let mut u = [0.0; MAX_EDOF];
        for fe in 0..lay.nelem {
            let adr = sadr + fe * de * de;
            if m.flex_stiffness[adr] == 0.0 {
                continue;
            }
            lay.element(fe, &mut nodes);
            for i in 0..de * de {
                is.kc[i] = sc * is.krot[adr + i];
            }
            for n in 0..lay.npe {
                bodies[n] = bodyid[nodes[n]] as usize;
            }
            if fast {
                for n in 0..lay.npe {
                    let b = bodies[n];
                    let mut mat = [0.0; 9];
                    mat.copy_from_slice(&d.xmat[9 * b..9 * b + 9]);
                    let da = m.body_dofadr[b] as usize;
                    let t = mul_mat_vec3(&mat, &[vec[da], vec[da + 1], vec[da + 2]]);
                    w[3 * n..3 * n + 3].copy_from_slice(&t);
                }
                for a in 0..lay.npe {
                    let mut row = [0.0; 3];
                    for bb in 0..lay.npe {
                        for r in 0..3 {
                            for c in 0..3 {
                                row[r] += is.kc[(3 * a + r) * de + 3 * bb + c] * w[3 * bb + c];
                            }
                        }
                    }
                    let b = bodies[a];
                    let mut mat = [0.0; 9];
                    mat.copy_from_slice(&d.xmat[9 * b..9 * b + 9]);
                    let q = mul_mat_t_vec3(&mat, &row);
                    let da = m.body_dofadr[b] as usize;
                    for r in 0..3 {
                        res[da + r] += q[r];
                    }
                }
                continue;
            }
            for n in 0..lay.npe {
                xe[3 * n..3 * n + 3].copy_from_slice(&is.y[3 * nodes[n]..3 * nodes[n] + 3]);
            }
            let nc = element_jacobian(m, d, is, &bodies[..lay.npe], &xe);
            for i in 0..de {
                let mut s = 0.0;
                for k in 0..nc {
                    s += is.jac[i * nc + k] * vec[is.chain[k]];
                }
                w[i] = s;
            }
            for i in 0..de {
                u[i] = dot(&is.kc[i * de..(i + 1) * de], &w[..de]);
            }
            for i in 0..de {
                let val = u[i];
                for k in 0..nc {
                    res[is.chain[k]] += is.jac[i * nc + k] * val;
                }
            }
        }
    }
}

/// The metric operator's interpolated part, `res += (h² + h·β)·K·vec` with `K = −Jᵀ·krot·J`:
/// the assembled node rows when MuJoCo assembles them, else the matrix-free kernel with the
/// negated scales `−h², −h` (`mjd_effMulAdd`).
pub fn mul_add(m: &Model, d: &Data, is: &mut InterpScratch, res: &mut [f64], vec: &[f64]) {
    if !is.csr.rowdof.is_empty() {
        // MuJoCo 3.15.0's block product over efm_K (as FlexCsr::mul_add): per dof row, the
        // neighbours' 3×3 blocks in column order into a running sum from zero, each block's row
        // as (v0·x0 + v1·x1) + v2·x2, the sum added to res last
        let csr = &is.csr;
        for (r, &dof) in csr.rowdof.iter().enumerate() {
            let nb = &csr.neigh[csr.nadr[r]..csr.nadr[r + 1]];
            let n = nb.len();
            let vals = &csr.val[csr.vadr[r]..csr.vadr[r] + 9 * n];
            for (rr, v) in vals.chunks_exact(3 * n).enumerate() {
                let mut sum = 0.0;
                for (b, &dj) in v.chunks_exact(3).zip(nb) {
                    let x: [f64; 3] = crate::math::get_at(vec, dj);
                    sum += (b[0] * x[0] + b[1] * x[1]) + b[2] * x[2];
                }
                res[dof + rr] += sum;
            }
        }
        return;
    }
    kernel(m, d, is, res, vec, &|f| -metric_scale(m, f));
}

/// The smooth-force shift's interpolated part (`mjd_effShift`): `c += h·krot·qvel`, i.e.
/// `−h·K·qvel`, always matrix-free and without a damping term. Call only with springs enabled.
pub fn shift(m: &Model, d: &Data, is: &mut InterpScratch, c: &mut [f64], qvel: &[f64]) {
    let h = m.opt.timestep;
    kernel(m, d, is, c, qvel, &|_| h);
}

/// True if some interpolated flex is in the discrete metric and all of them can be assembled in
/// dof space (MuJoCo then folds them into `efm_K` and its 3×3 block preconditioner).
pub fn assembles(m: &Model) -> bool {
    (0..m.nflex).any(|f| flex_interp_processed(m, f)) && flex_interp_assemblable(m)
}

/// Calls `emit(row, col, value)` for every entry of the assembled node rows (both triangles),
/// for solvers that need the metric as a matrix (Newton).
pub fn for_each_entry(is: &InterpScratch, emit: &mut dyn FnMut(usize, usize, f64)) {
    let csr = &is.csr;
    for (r, &dof) in csr.rowdof.iter().enumerate() {
        let nb = &csr.neigh[csr.nadr[r]..csr.nadr[r + 1]];
        let n = nb.len();
        for rr in 0..3 {
            for (k, &dj) in nb.iter().enumerate() {
                for c in 0..3 {
                    emit(
                        dof + rr,
                        dj + c,
                        csr.val[csr.vadr[r] + rr * 3 * n + 3 * k + c],
                    );
                }
            }
        }
    }
}

/// Gives each node body with assembled rows a preconditioner block slot (`slot[body]`, first
/// dof in `block_dof`), after the `nb` slots already taken; returns the new count.
pub fn block_slots(
    m: &Model,
    is: &InterpScratch,
    slot: &mut [i32],
    block_dof: &mut [usize],
    mut nb: usize,
) -> usize {
    for &dof in &is.csr.rowdof {
        let b = m.dof_bodyid[dof] as usize;
        if slot[b] >= 0 || nb >= block_dof.len() {
            continue;
        }
        slot[b] = nb as i32;
        block_dof[nb] = dof;
        nb += 1;
    }
    nb
}

/// Adds the diagonal 3×3 block of each node's assembled rows to its preconditioner block
/// (`blocks[9·slot[body]..]`, which already holds the mass matrix part).
pub fn add_diagonal_blocks(m: &Model, is: &InterpScratch, slot: &[i32], blocks: &mut [f64]) {
    let csr = &is.csr;
    for (r, &dof) in csr.rowdof.iter().enumerate() {
        let k = slot[m.dof_bodyid[dof] as usize];
        if k < 0 {
            continue;
        }
        let nb = &csr.neigh[csr.nadr[r]..csr.nadr[r + 1]];
        let Ok(pos) = nb.binary_search(&dof) else {
            continue;
        };
        let n = nb.len();
        let blk = &mut blocks[9 * k as usize..9 * k as usize + 9];
        for rr in 0..3 {
            for c in 0..3 {
                blk[3 * rr + c] += csr.val[csr.vadr[r] + rr * 3 * n + 3 * pos + c];
            }
        }
    }
}

/// The element of strain equality `eq` (`eq_data` holds the cell (ci, cj, ck), or the face
/// element index for shells).
fn strain_element(m: &Model, eq: usize, lay: &Layout) -> Option<usize> {
    let data = &m.eq_data[11 * eq..11 * eq + 3];
    let fe = if lay.shell {
        data[0] as i64
    } else {
        let [_, cy, cz] = lay.cells;
        let (ci, cj, ck) = (data[0] as i64, data[1] as i64, data[2] as i64);
        ci * (cy * cz) as i64 + cj * cz as i64 + ck
    };
    (fe >= 0 && (fe as usize) < lay.nelem).then_some(fe as usize)
}

/// The interpolated flex, its layout and the element a strain equality `eq` constrains.
fn strain_target(m: &Model, eq: usize) -> Option<(usize, Layout, usize)> {
    let f = m.eq_obj1id[eq];
    if f < 0 || f as usize >= m.nflex || m.flex_interp[f as usize] == 0 {
        return None;
    }
    let f = f as usize;
    let lay = Layout::of(m, f);
    let fe = strain_element(m, eq, &lay)?;
    Some((f, lay, fe))
}

/// Prepares the rows of strain equality `eq` (`mjEQ_FLEXSTRAIN`, one element): the element's
/// corotated displacement `Cᵀy − y₀` and its node Jacobians. Returns the number of rows (the
/// element's stored modes); 0 when the element has no dofs. Follow with [`strain_row`].
pub fn strain_prepare(m: &Model, d: &Data, is: &mut InterpScratch, eq: usize) -> usize {
    let Some((f, lay, fe)) = strain_target(m, eq) else {
        return 0;
    };
    let sadr = m.flex_stiffnessadr[f];
    if m.flex_nodenum[f] == 0 || sadr < 0 {
        return 0;
    }
    let de = lay.edof();
    let madr = sadr as usize + fe * de * de;
    let neig = (m.flex_stiffness[madr].max(0.0) as usize).min((de * de - 1) / de);
    let na = m.flex_nodeadr[f] as usize;
    let mut nodes = [0usize; MAX_NPE];
    let mut bodies = [0usize; MAX_NPE];
    let mut xe = [0.0; MAX_EDOF];
    let axes = lay.element(fe, &mut nodes);
    for n in 0..lay.npe {
        // positions without the shell's interior tracking (face nodes are boundary nodes)
        xe[3 * n..3 * n + 3].copy_from_slice(&raw_node(m, d, f, na + nodes[n]));
        bodies[n] = m.flex_nodebodyid[na + nodes[n]] as usize;
    }
    let q = element_quat(&lay, &axes, &xe[..de]);
    for n in 0..lay.npe {
        let x = rot_vec_quat(&[xe[3 * n], xe[3 * n + 1], xe[3 * n + 2]], &q);
        let g = 3 * (na + nodes[n]);
        for c in 0..3 {
            is.sdisp[3 * n + c] = x[c] - m.flex_node0[g + c];
        }
    }
    is.squat = neg_quat(&q);
    is.smodes = madr;
    is.sedof = de;
    if element_jacobian(m, d, is, &bodies[..lay.npe], &xe) == 0 {
        return 0;
    }
    neig
}

/// Row `e` of the strain equality prepared by [`strain_prepare`]: for the mode `w = √λ·v`, the
/// residual `w·(Cᵀy − y₀)`, with the Jacobian `(C·w)ᵀ·J_nodes` as (values, dofs).
pub fn strain_row<'a>(
    m: &Model,
    is: &'a mut InterpScratch,
    e: usize,
) -> (f64, &'a [f64], &'a [usize]) {
    let de = is.sedof;
    let nc = is.nchain;
    let w = &m.flex_stiffness[is.smodes + 1 + e * de..is.smodes + 1 + (e + 1) * de];
    let mut residual = 0.0;
    for j in 0..de {
        residual += w[j] * is.sdisp[j];
    }
    let mut world = [0.0; MAX_EDOF];
    for n in 0..de / 3 {
        let r = rot_vec_quat(&[w[3 * n], w[3 * n + 1], w[3 * n + 2]], &is.squat);
        world[3 * n..3 * n + 3].copy_from_slice(&r);
    }
    let row = &mut is.row[..nc];
    row.fill(0.0);
    for i in 0..de {
        let wi = world[i];
        if wi == 0.0 {
            continue;
        }
        for k in 0..nc {
            row[k] += wi * is.jac[i * nc + k];
        }
    }
    (residual, &is.row[..nc], &is.chain[..nc])
}

/// `efc_diagA` of a strain-equality row: the mean translational inverse weight of the
/// element's node bodies.
pub fn strain_diag(m: &Model, eq: usize) -> f64 {
    let Some((f, lay, fe)) = strain_target(m, eq) else {
        return 1.0;
    };
    let mut nodes = [0usize; MAX_NPE];
    lay.element(fe, &mut nodes);
    let na = m.flex_nodeadr[f] as usize;
    let mut sum = 0.0;
    for &n in &nodes[..lay.npe] {
        sum += m.body_invweight0[2 * m.flex_nodebodyid[na + n] as usize];
    }
    sum / lay.npe as f64
}
