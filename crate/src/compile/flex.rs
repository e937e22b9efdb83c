//! Flex compilation (MuJoCo's `mjCFlex::Compile`): checks, rest positions, tet orientation,
//! edges in first-occurrence order, bending flaps, shells and element layers, the material
//! coefficients, and the normalised rest coordinates `vert0`.

use super::material;
use crate::error::{Error, Result};
use crate::spec::FlexSpec;
use flexlab_core::model::flexself;

/// Local edges per element, in MuJoCo's order, for dim 1, 2, 3.
pub const ELEM_EDGES: [&[[usize; 2]]; 3] = [
    &[[0, 1]],
    &[[1, 2], [2, 0], [0, 1]],
    &[[0, 1], [1, 2], [2, 0], [2, 3], [0, 3], [1, 3]],
];

/// Everything compiled for one flex, in flex-local numbering.
#[derive(Debug, Clone, Default)]
pub struct CompiledFlex {
    pub dim: usize,
    pub nvert: usize,
    pub nnode: usize,
    pub nelem: usize,
    pub interpolated: bool,
    pub rigid: bool,
    pub centered: bool,
    pub vertbodyid: Vec<i32>,
    pub nodebodyid: Vec<i32>,
    pub vert: Vec<f64>,
    pub node: Vec<f64>,
    pub elem: Vec<i32>,
    pub elemtexcoord: Vec<i32>,
    pub texcoord: Vec<f32>,
    pub edge: Vec<[i32; 2]>,
    /// Element → local edge ids (nE per element).
    pub elemedge: Vec<i32>,
    /// (opp1, opp2) per edge, dim 2 with bending only.
    pub edgeflap: Vec<[i32; 2]>,
    /// Compile-order bending stencils (v0, v1, opp1, opp2) per edge.
    pub bendstencil: Vec<[i32; 4]>,
    pub shell: Vec<i32>,
    pub elemlayer: Vec<i32>,
    pub stiffness: Vec<f64>,
    pub bending: Vec<f64>,
    pub vert0: Vec<f64>,
    pub node0: Vec<f64>,
    pub size: [f64; 3],
    /// Global rest vertex positions.
    pub vertxpos: Vec<f64>,
    pub cellnum: [i32; 3],
    pub interp: i32,
    pub matid: i32,
}

fn cerr(msg: impl Into<String>) -> Error {
    Error::compile(msg)
}

/// Body poses at the reference configuration, needed for rest positions.
pub struct BodyFrames<'a> {
    pub xpos0: &'a [[f64; 3]],
    pub xquat0: &'a [[f64; 4]],
    /// Joint count per body (for the bending pin rule).
    pub njnt: &'a [usize],
}

/// Compiles one flex. `body_id` resolves names; `strain_eq` tells whether a strain equality
/// names this flex.
pub fn compile(
    f: &FlexSpec,
    body_id: &dyn Fn(&str) -> Option<usize>,
    frames: &BodyFrames,
    matid: i32,
    strain_eq: bool,
) -> Result<CompiledFlex> {
    let dim = f.dim;
    let interpolated = !f.nodebody.is_empty();
    if !(1..=3).contains(&dim) {
        return Err(cerr("dim must be 1, 2 or 3"));
    }
    let dim = dim as usize;
    if f.elem.is_empty() {
        return Err(cerr("elem is empty"));
    }
    if f.elem.len() % (dim + 1) != 0 {
        return Err(cerr("elem size must be multiple of (dim+1)"));
    }
    if f.vertbody.is_empty() && !interpolated {
        return Err(cerr("vertbody and nodebody are both empty"));
    }
    if f.vert.len() % 3 != 0 {
        return Err(cerr("vert size must be a multiple of 3"));
    }
    if f.edgestiffness > 0.0 && dim > 1 {
        return Err(cerr(
            "edge stiffness only available for dim=1, please use elasticity plugins",
        ));
    }
    if interpolated && f.selfcollide != crate::spec::FLEXSELF_NONE {
        return Err(cerr("trilinear interpolation cannot do self-collision"));
    }
    let nelem = f.elem.len() / (dim + 1);
    if f.elastic2d != 0 {
        if f.thickness <= 0.0 {
            return Err(cerr("2d elasticity requires positive thickness"));
        }
        if f.poisson < 0.0 || f.poisson >= 0.5 {
            return Err(cerr("Poisson ratio must be in [0, 0.5)"));
        }
        if dim != 2 && !interpolated {
            return Err(cerr("2d elasticity requires 2d flex"));
        }
    }
    if f.elastic3d != 0 && f.elastic3d != 1 {
        return Err(cerr("elastic3d must be 0 (StVK) or 1 (SNH)"));
    }
    if f.elastic3d == 1 && (dim != 3 || interpolated) {
        return Err(cerr(
            "stable Neo-Hookean elasticity requires a non-interpolated 3d flex",
        ));
    }

    let mut c = CompiledFlex {
        dim,
        nelem,
        interpolated,
        matid,
        ..Default::default()
    };
    let mut rigid = false;
    let mut centered = false;
    let nvert;
    if f.vert.is_empty() {
        centered = true;
        nvert = f.vertbody.len();
    } else {
        nvert = f.vert.len() / 3;
        if f.vertbody.len() == 1 {
            rigid = true;
        } else if f.vertbody.len() != nvert {
            return Err(cerr("vertbody size must be 1 or nvert"));
        }
    }
    if nvert < dim + 1 {
        return Err(cerr("not enough vertices"));
    }
    let nnode = f.nodebody.len();
    if nnode > 0 && f.order == 0 {
        return Err(cerr(
            "Interpolation order must be explicitly specified (dof is missing)",
        ));
    }
    if f.order > 0 {
        if f.cellcount.contains(&0) {
            return Err(cerr(
                "cellcount cannot be 0 in any dimension when interpolation order > 0",
            ));
        }
        let expected = f
            .cellcount
            .iter()
            .map(|&k| (k * f.order + 1) as i64)
            .product::<i64>();
        if nnode as i64 != expected {
            return Err(cerr(format!(
                "number of nodes ({nnode}) does not match cellcount and dof expected ({expected})"
            )));
        }
    }
    for &e in &f.elem {
        if e < 0 || e as usize >= nvert {
            return Err(cerr("elem vertex id out of range"));
        }
    }
    if !f.texcoord.is_empty() && f.texcoord.len() != 2 * nvert && f.elemtexcoord.is_empty() {
        return Err(cerr("two texture coordinates per vertex expected"));
    }
    c.texcoord = f.texcoord.clone();
    c.elemtexcoord = if f.elemtexcoord.is_empty() && !f.texcoord.is_empty() {
        f.elem.clone()
    } else {
        f.elemtexcoord.clone()
    };

    // bodies
    for name in &f.vertbody {
        let b = body_id(name).ok_or_else(|| cerr(format!("unknown body '{name}' in flex")))?;
        // 3.15.0 accepts pin bodies with joints for bending (forces map through Jacobians)
        c.vertbodyid.push(b as i32);
    }
    for name in &f.nodebody {
        let b = body_id(name).ok_or_else(|| cerr(format!("unknown body '{name}' in flex")))?;
        c.nodebodyid.push(b as i32);
    }
    for e in 0..nelem {
        let mut el: Vec<i32> = f.elem[e * (dim + 1)..(e + 1) * (dim + 1)].to_vec();
        crate::sort::sort(&mut el);
        if el.windows(2).any(|w| w[0] == w[1]) {
            return Err(cerr("repeated vertex in element"));
        }
    }
    if !rigid && !interpolated {
        rigid = c.vertbodyid.iter().all(|&b| b == c.vertbodyid[0]);
    }
    if !centered && !interpolated {
        centered = f.vert.iter().all(|&v| v == 0.0);
    }
    if !centered && interpolated {
        centered = f.node.iter().all(|&v| v == 0.0);
    }

    // global rest positions
    let mut vertxpos = vec![0.0; 3 * nvert];
    for i in 0..nvert {
        let b = if rigid {
            c.vertbodyid[0]
        } else {
            c.vertbodyid[i]
        } as usize;
        let mut p = frames.xpos0[b];
        if !centered || interpolated {
            let v = [f.vert[3 * i], f.vert[3 * i + 1], f.vert[3 * i + 2]];
            let off = crate::math::rot_vec_quat(&v, &frames.xquat0[b]);
            crate::math::add_to3(&mut p, &off);
        }
        vertxpos[3 * i..3 * i + 3].copy_from_slice(&p);
    }
    if interpolated {
        c.vertbodyid.iter_mut().for_each(|b| *b = -1);
    }
    let mut nodexpos = vec![0.0; 3 * nnode];
    for i in 0..nnode {
        let b = c.nodebodyid[i] as usize;
        let mut p = frames.xpos0[b];
        if !centered {
            let v = [f.node[3 * i], f.node[3 * i + 1], f.node[3 * i + 2]];
            let off = crate::math::rot_vec_quat(&v, &frames.xquat0[b]);
            crate::math::add_to3(&mut p, &off);
        }
        nodexpos[3 * i..3 * i + 3].copy_from_slice(&p);
    }
    let (nodexpos_local, r0) = unrotated_nodes(f, &nodexpos, interpolated, nnode)?;

    // tets: make the signed volume non-positive
    let mut elem = f.elem.clone();
    if dim == 3 {
        for e in 0..nelem {
            let d = &elem[4 * e..4 * e + 4];
            let p = |k: usize| -> [f64; 3] {
                let i = d[k] as usize;
                [vertxpos[3 * i], vertxpos[3 * i + 1], vertxpos[3 * i + 2]]
            };
            let (v0, v1, v2, v3) = (p(0), p(1), p(2), p(3));
            let n = crate::math::cross(&crate::math::sub3(&v1, &v0), &crate::math::sub3(&v2, &v0));
            if crate::math::dot3(&n, &crate::math::sub3(&v3, &v0)) > 0.0 {
                elem.swap(4 * e + 1, 4 * e + 2);
            }
        }
    }

    // edges in first-occurrence order
    let ne = ELEM_EDGES[dim - 1].len();
    let mut edge_map: std::collections::HashMap<(i32, i32), i32> = std::collections::HashMap::new();
    let mut elemedge = vec![0i32; nelem * ne];
    let mut edges: Vec<[i32; 2]> = Vec::new();
    for e in 0..nelem {
        let v = &elem[e * (dim + 1)..(e + 1) * (dim + 1)];
        for (k, le) in ELEM_EDGES[dim - 1].iter().enumerate() {
            let a = v[le[0]];
            let b = v[le[1]];
            let key = (a.min(b), a.max(b));
            let next = edges.len() as i32;
            let id = *edge_map.entry(key).or_insert_with(|| {
                edges.push([key.0, key.1]);
                next
            });
            elemedge[e * ne + k] = id;
        }
    }

    // bending flaps (triangles): the sorted edge, then the opposite vertices of its first and
    // second triangle. MuJoCo 3.15.0 orders (v0, v1) as the sorted edge, which is also how the
    // runtime reads the stencil (older releases used the first triangle's order: see the
    // compiler notes); checked on MuJoCo's disc example, pancake.xml
    let mut flaps: Vec<[i32; 4]> = Vec::new();
    if dim == 2 {
        let mut seen: std::collections::HashMap<(i32, i32), usize> =
            std::collections::HashMap::new();
        for t in 0..nelem {
            let v = &elem[3 * t..3 * t + 3];
            for le in ELEM_EDGES[1].iter() {
                let a = v[le[0]];
                let b = v[le[1]];
                let key = (a.min(b), a.max(b));
                let opp = v[(le[1] + 1) % 3];
                match seen.get(&key) {
                    None => {
                        seen.insert(key, flaps.len());
                        flaps.push([key.0, key.1, opp, -1]);
                    }
                    Some(&i) => flaps[i][3] = opp,
                }
            }
        }
    }

    // material
    let nedge = edges.len();
    let mut stiffness = Vec::new();
    let mut bending = Vec::new();
    if f.young > 0.0 {
        if f.poisson < 0.0 || f.poisson >= 0.5 {
            return Err(cerr("Poisson ratio must be in [0, 0.5)"));
        }
        if !interpolated {
            let stride = if dim == 3 {
                material::STRIDE_3D
            } else {
                material::STRIDE_2D
            };
            stiffness = vec![0.0; stride * nelem];
            for t in 0..nelem {
                let v = &elem[t * (dim + 1)..(t + 1) * (dim + 1)];
                let out = &mut stiffness[stride * t..stride * (t + 1)];
                if dim == 2 && f.elastic2d >= 2 && f.thickness > 0.0 {
                    material::stvk_triangle(out, &vertxpos, v, f.young, f.poisson, f.thickness);
                } else if dim == 3 {
                    if f.elastic3d == 1 {
                        material::snh_tet(out, &vertxpos, v, f.young, f.poisson);
                    } else {
                        material::stvk_tet(out, &vertxpos, v, f.young, f.poisson);
                    }
                }
            }
        }
        if dim == 2 && (f.elastic2d == 1 || f.elastic2d == 3) && !interpolated {
            bending = vec![0.0; 17 * nedge];
            let mu = f.young / (2.0 * (1.0 + f.poisson));
            for (e, fl) in flaps.iter().enumerate() {
                material::bending(
                    &mut bending[17 * e..17 * e + 17],
                    &vertxpos,
                    fl,
                    mu,
                    f.thickness,
                );
            }
        }
    }

    let (shell, elemlayer) = shells_and_layers(&elem, dim, nelem);
    // MuJoCo's sweep and prune packs two element indices in an int and stops the simulation
    // with "SAP failed" from 65536 active elements (unless midphase is disabled)
    let sap = f.selfcollide == flexself::SAP || (f.selfcollide == flexself::AUTO && dim < 3);
    let nactive = if dim < 3 {
        nelem
    } else {
        elemlayer.iter().filter(|&&l| l < f.activelayers).count()
    };
    if sap && nactive >= 0x10000 {
        return Err(Error::unsupported(format!(
            "self-collision by sweep and prune of {nactive} active elements (MuJoCo stops at \
             65536 with 'SAP failed'): set contact selfcollide to \"bvh\", \"narrow\" or \"none\""
        )));
    }

    // interpolated elasticity
    let mut cell_empty = f.cell_empty.clone();
    if interpolated && f.elastic2d == 0 && cell_empty.is_empty() {
        let cc = f.cellcount;
        if cc[0] * cc[1] * cc[2] > 1 {
            cell_empty = compute_cell_empty(&vertxpos, &elem, dim as i32, cc, None);
        }
    }
    let has_strain_eq = f.has_strain_eq || strain_eq;
    if interpolated && (f.young > 0.0 || has_strain_eq) {
        stiffness = super::interp::stiffness(f, &nodexpos_local, &cell_empty, has_strain_eq)?;
    }
    if interpolated && (f.elastic2d == 1 || f.elastic2d == 3) && f.thickness > 0.0 && f.young > 0.0
    {
        bending = super::interp::shell_bending(f, &nodexpos_local);
    }

    // vert0 and size
    let mut vert0 = vec![0.0; 3 * nvert];
    let mut size = [0.0; 3];
    if interpolated && nnode > 0 {
        let mut local = vec![0.0; 3 * nvert];
        for j in 0..nvert {
            let p = [vertxpos[3 * j], vertxpos[3 * j + 1], vertxpos[3 * j + 2]];
            let q = crate::math::mul_mat_vec3(&r0, &p);
            local[3 * j..3 * j + 3].copy_from_slice(&q);
        }
        let mut lo = [1e30f64; 3];
        let mut hi = [-1e30f64; 3];
        for p in nodexpos_local.chunks_exact(3) {
            for k in 0..3 {
                lo[k] = lo[k].min(p[k]);
                hi[k] = hi[k].max(p[k]);
            }
        }
        for k in 0..3 {
            size[k] = (hi[k] - lo[k]) / 2.0;
        }
        for j in 0..nvert {
            for k in 0..3 {
                let ext = hi[k] - lo[k];
                vert0[3 * j + k] = if ext > crate::math::MINVAL {
                    (local[3 * j + k] - lo[k]) / ext
                } else {
                    0.5
                };
            }
        }
    } else {
        let root = root_box(&elem, &vertxpos, dim, &elemlayer, f.activelayers, f.radius);
        for k in 0..3 {
            size[k] = root[3 + k] - f.radius;
        }
        for j in 0..nvert {
            for k in 0..3 {
                vert0[3 * j + k] = if size[k] > crate::math::MINVAL {
                    (vertxpos[3 * j + k] - root[k]) / (2.0 * size[k]) + 0.5
                } else {
                    0.5
                };
            }
        }
    }

    c.nvert = nvert;
    c.nnode = nnode;
    c.rigid = rigid;
    c.centered = centered;
    c.vert = f.vert.clone();
    c.node = f.node.clone();
    c.elem = elem;
    c.edge = edges;
    c.elemedge = elemedge;
    let has_bend = dim == 2 && (f.elastic2d == 1 || f.elastic2d == 3) && !interpolated;
    c.edgeflap = (0..nedge)
        .map(|e| {
            if has_bend {
                [flaps[e][2], flaps[e][3]]
            } else {
                [-1, -1]
            }
        })
        .collect();
    c.bendstencil = if has_bend { flaps } else { Vec::new() };
    c.shell = shell;
    c.elemlayer = elemlayer;
    c.stiffness = stiffness;
    c.bending = bending;
    c.vert0 = vert0;
    c.node0 = nodexpos_local;
    c.size = size;
    c.vertxpos = vertxpos;
    c.cellnum = if interpolated { f.cellcount } else { [1, 1, 1] };
    c.interp = if f.elastic2d != 0 && interpolated {
        -f.order
    } else if interpolated {
        f.order
    } else {
        0
    };
    Ok(c)
}

/// Node positions in the unrotated grid frame, and the rotation R0 (rows: grid axes).
fn unrotated_nodes(
    f: &FlexSpec,
    nodexpos: &[f64],
    interpolated: bool,
    nnode: usize,
) -> Result<(Vec<f64>, [f64; 9])> {
    let mut r0 = crate::math::IDENTITY_MAT;
    if !(interpolated && nnode > 0) {
        return Ok((nodexpos.to_vec(), r0));
    }
    let o = f.order;
    let [cx, cy, cz] = f.cellcount;
    let ny = cy * o + 1;
    let nz = cz * o + 1;
    let mut reference = (0, 0, 0);
    'find: for ci in 0..cx {
        for cj in 0..cy {
            for ck in 0..cz {
                let idx = (ci * cy * cz + cj * cz + ck) as usize;
                if f.cell_empty.is_empty() || !f.cell_empty[idx] {
                    reference = (ci, cj, ck);
                    break 'find;
                }
            }
        }
    }
    let (ci, cj, ck) = reference;
    let g = |i: i32, j: i32, k: i32| ((i * ny * nz + j * nz + k) * 3) as usize;
    let g000 = g(ci * o, cj * o, ck * o);
    let g100 = g(ci * o + o, cj * o, ck * o);
    let g010 = g(ci * o, cj * o + o, ck * o);
    let g001 = g(ci * o, cj * o, ck * o + o);
    for d in 0..3 {
        r0[d] = nodexpos[g100 + d] - nodexpos[g000 + d];
        r0[3 + d] = nodexpos[g010 + d] - nodexpos[g000 + d];
        r0[6 + d] = nodexpos[g001 + d] - nodexpos[g000 + d];
    }
    super::orient::normvec(&mut r0[0..3]);
    super::orient::normvec(&mut r0[3..6]);
    super::orient::normvec(&mut r0[6..9]);
    for a in 0..3 {
        for b in a..3 {
            let dot = r0[3 * a] * r0[3 * b]
                + r0[3 * a + 1] * r0[3 * b + 1]
                + r0[3 * a + 2] * r0[3 * b + 2];
            let expected = if a == b { 1.0 } else { 0.0 };
            if (dot - expected).abs() > 1e-8 {
                return Err(cerr("flex grid rotation R0 is not orthonormal"));
            }
        }
    }
    let mut local = vec![0.0; 3 * nnode];
    for i in 0..nnode {
        let p = [nodexpos[3 * i], nodexpos[3 * i + 1], nodexpos[3 * i + 2]];
        let q = crate::math::mul_mat_vec3(&r0, &p);
        local[3 * i..3 * i + 3].copy_from_slice(&q);
    }
    Ok((local, r0))
}

/// The root box (centre, half-size incl. radius) of the element boxes MuJoCo puts in the
/// flex BVH (in 3D only the active layers).
fn root_box(
    elem: &[i32],
    x: &[f64],
    dim: usize,
    layer: &[i32],
    activelayers: i32,
    radius: f64,
) -> [f64; 6] {
    let mut aamm = [
        f64::MAX,
        f64::MAX,
        f64::MAX,
        -f64::MAX,
        -f64::MAX,
        -f64::MAX,
    ];
    let nelem = elem.len() / (dim + 1);
    for e in 0..nelem {
        if dim == 3 && layer[e] >= activelayers {
            continue;
        }
        let d = &elem[e * (dim + 1)..(e + 1) * (dim + 1)];
        let mut lo = [
            x[3 * d[0] as usize],
            x[3 * d[0] as usize + 1],
            x[3 * d[0] as usize + 2],
        ];
        let mut hi = lo;
        for &v in &d[1..] {
            for k in 0..3 {
                lo[k] = lo[k].min(x[3 * v as usize + k]);
                hi[k] = hi[k].max(x[3 * v as usize + k]);
            }
        }
        for k in 0..3 {
            let c = 0.5 * (hi[k] + lo[k]);
            let h = 0.5 * (hi[k] - lo[k]) + radius;
            aamm[k] = aamm[k].min(c - h);
            aamm[k + 3] = aamm[k + 3].max(c + h);
        }
    }
    for k in 0..3 {
        if (aamm[k] - aamm[k + 3]).abs() < crate::math::EPS {
            aamm[k] -= crate::math::EPS;
            aamm[k + 3] += crate::math::EPS;
        }
    }
    [
        (aamm[3] + aamm[0]) / 2.0,
        (aamm[4] + aamm[1]) / 2.0,
        (aamm[5] + aamm[2]) / 2.0,
        (aamm[3] - aamm[0]) / 2.0,
        (aamm[4] - aamm[1]) / 2.0,
        (aamm[5] - aamm[2]) / 2.0,
    ]
}

/// An element fragment: its sorted vertices, its element, its vertices in element order.
type Fragment = (Vec<i32>, i32, Vec<i32>);

/// Border fragments (`flex_shell`) and element layers (graph distance to the border, 3D).
fn shells_and_layers(elem: &[i32], dim: usize, nelem: usize) -> (Vec<i32>, Vec<i32>) {
    // fragment: (sorted vertices, element, original vertices)
    let mut frags: Vec<Fragment> = Vec::with_capacity(nelem * (dim + 1));
    let mut slots: Vec<Option<Fragment>> = vec![None; nelem * (dim + 1)];
    for e in 0..nelem {
        let n = e * (dim + 1);
        let el = &elem[n..n + dim + 1];
        let mut put = |slot: usize, verts: Vec<i32>| {
            let mut sorted = verts.clone();
            if dim > 1 {
                crate::sort::sort(&mut sorted);
            }
            slots[slot] = Some((sorted, e as i32, verts));
        };
        match dim {
            1 => {
                put(n, vec![el[0]]);
                put(n + 1, vec![el[1]]);
            }
            2 => {
                put(n, vec![el[0], el[1]]);
                put(n + 2, vec![el[1], el[2]]);
                put(n + 1, vec![el[2], el[0]]);
            }
            _ => {
                put(n, vec![el[0], el[1], el[2]]);
                put(n + 2, vec![el[0], el[2], el[3]]);
                put(n + 1, vec![el[0], el[3], el[1]]);
                put(n + 3, vec![el[1], el[3], el[2]]);
            }
        }
    }
    for s in slots {
        frags.push(s.expect("every fragment slot is filled"));
    }
    // MuJoCo sorts whole fragment records lexicographically (sorted verts, elem, original)
    crate::sort::sort(&mut frags); // records differ in their original index: no ties
    let nf = frags.len();
    let mut border = vec![false; nelem];
    let mut borderfrag = vec![false; nf];
    let mut connect: Vec<(i32, i32)> = Vec::new();
    let mut cnt = 1;
    for n in 1..nf {
        if frags[n - 1].0 == frags[n].0 {
            connect.push((frags[n - 1].1, frags[n].1));
            cnt += 1;
        } else {
            if cnt == 1 {
                border[frags[n - 1].1 as usize] = true;
                borderfrag[n - 1] = true;
            }
            cnt = 1;
        }
    }
    if cnt == 1 && nf > 0 {
        border[frags[nf - 1].1 as usize] = true;
        borderfrag[nf - 1] = true;
    }
    let mut shell = Vec::new();
    for (i, f) in frags.iter().enumerate() {
        if borderfrag[i] {
            shell.extend_from_slice(&f.2);
        }
    }
    let layer = if dim < 3 {
        vec![0; nelem]
    } else {
        let mut l = vec![nelem as i32 + 1; nelem];
        for e in 0..nelem {
            if border[e] {
                l[e] = 0;
            }
        }
        let mut change = true;
        while change {
            change = false;
            for &(a, b) in &connect {
                let (a, b) = (a as usize, b as usize);
                if l[a] > l[b] + 1 {
                    l[a] = l[b] + 1;
                    change = true;
                } else if l[b] > l[a] + 1 {
                    l[b] = l[a] + 1;
                    change = true;
                }
            }
        }
        l
    };
    (shell, layer)
}

/// Which cells of the interpolation grid hold no element (MuJoCo's `ComputeCellEmpty`).
pub fn compute_cell_empty(
    vpos: &[f64],
    elem: &[i32],
    dim: i32,
    cellcount: [i32; 3],
    bbox: Option<&[f64; 6]>,
) -> Vec<bool> {
    let [cx, cy, cz] = cellcount;
    let ncells = (cx * cy * cz).max(0) as usize;
    let minmax = match bbox {
        Some(b) => *b,
        None => {
            let mut m = [1e30f64, 1e30, 1e30, -1e30, -1e30, -1e30];
            for p in vpos.chunks_exact(3) {
                for k in 0..3 {
                    m[k] = m[k].min(p[k]);
                    m[k + 3] = m[k + 3].max(p[k]);
                }
            }
            m
        }
    };
    let d = [
        minmax[3] - minmax[0],
        minmax[4] - minmax[1],
        minmax[5] - minmax[2],
    ];
    let nvpe = (dim + 1) as usize;
    let ne = elem.len() / nvpe;
    let mut has = vec![false; ncells];
    let cell_idx = |coord: f64, lo: f64, dd: f64, nc: i32| -> i32 {
        if dd <= 0.0 {
            return 0;
        }
        let c = ((coord - lo) / dd * nc as f64) as i32;
        c.clamp(0, nc - 1)
    };
    for e in 0..ne {
        let mut lo = [1e30f64; 3];
        let mut hi = [-1e30f64; 3];
        for v in 0..nvpe {
            let id = elem[nvpe * e + v] as usize;
            for k in 0..3 {
                lo[k] = lo[k].min(vpos[3 * id + k]);
                hi[k] = hi[k].max(vpos[3 * id + k]);
            }
        }
        let (i0, i1) = (
            cell_idx(lo[0], minmax[0], d[0], cx),
            cell_idx(hi[0], minmax[0], d[0], cx),
        );
        let (j0, j1) = (
            cell_idx(lo[1], minmax[1], d[1], cy),
            cell_idx(hi[1], minmax[1], d[1], cy),
        );
        let (k0, k1) = (
            cell_idx(lo[2], minmax[2], d[2], cz),
            cell_idx(hi[2], minmax[2], d[2], cz),
        );
        for ci in i0..=i1 {
            for cj in j0..=j1 {
                for ck in k0..=k1 {
                    has[(ci * cy * cz + cj * cz + ck) as usize] = true;
                }
            }
        }
    }
    let mut empty = vec![false; ncells];
    if dim == 2 && ne > 0 {
        let mut visited = vec![false; ncells];
        let mut queue = std::collections::VecDeque::new();
        for ci in 0..cx {
            for cj in 0..cy {
                for ck in 0..cz {
                    if ci == 0 || ci == cx - 1 || cj == 0 || cj == cy - 1 || ck == 0 || ck == cz - 1
                    {
                        let idx = (ci * cy * cz + cj * cz + ck) as usize;
                        if !has[idx] && !visited[idx] {
                            visited[idx] = true;
                            empty[idx] = true;
                            queue.push_back((ci, cj, ck));
                        }
                    }
                }
            }
        }
        const DIRS: [[i32; 3]; 6] = [
            [-1, 0, 0],
            [1, 0, 0],
            [0, -1, 0],
            [0, 1, 0],
            [0, 0, -1],
            [0, 0, 1],
        ];
        while let Some((ci, cj, ck)) = queue.pop_front() {
            for dd in DIRS {
                let (ni, nj, nk) = (ci + dd[0], cj + dd[1], ck + dd[2]);
                if ni < 0 || ni >= cx || nj < 0 || nj >= cy || nk < 0 || nk >= cz {
                    continue;
                }
                let idx = (ni * cy * cz + nj * cz + nk) as usize;
                if !visited[idx] && !has[idx] {
                    visited[idx] = true;
                    empty[idx] = true;
                    queue.push_back((ni, nj, nk));
                }
            }
        }
    } else {
        for c in 0..ncells {
            empty[c] = !has[c];
        }
    }
    empty
}
