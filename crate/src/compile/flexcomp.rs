//! `<flexcomp>`: the modelling macro that generates points and elements of a shape, then one
//! child body per free point (or node), the flex itself and its equality constraints. It runs
//! while the worldbody is read, as MuJoCo's `mjCFlexcomp::Make` does, so body, joint, flex and
//! equality ids come out in MuJoCo's order. Messages are MuJoCo's.

use crate::error::{Error, Result};
use crate::spec::*;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FlexcompType {
    Grid,
    Box,
    Cylinder,
    Ellipsoid,
    Square,
    Disc,
    Circle,
    Mesh,
    Gmsh,
    Direct,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DofType {
    Full,
    Radial,
    Trilinear,
    Quadratic,
    TwoD,
}

/// Everything a `<flexcomp>` element says.
#[derive(Debug, Clone)]
pub struct FlexcompSpec {
    pub name: String,
    pub ftype: FlexcompType,
    pub count: [i32; 3],
    pub cellcount: [i32; 3],
    pub spacing: [f64; 3],
    pub scale: [f64; 3],
    pub mass: f64,
    pub inertiabox: f64,
    pub pos: [f64; 3],
    pub orient: Orientation,
    pub origin: Option<[f64; 3]>,
    pub rigid: bool,
    pub point: Vec<f64>,
    pub element: Vec<i32>,
    pub texcoord: Vec<f32>,
    pub dof: DofType,
    /// 0 none, 1 edges (`mjEQ_FLEX`), 2 vertices (`mjEQ_FLEXVERT`), 3 strain.
    pub equality: i32,
    pub eq_solref: [f64; 2],
    pub eq_solimp: [f64; 5],
    pub pinid: Vec<i32>,
    pub pinrange: Vec<i32>,
    pub pingrid: Vec<i32>,
    pub pingridrange: Vec<i32>,
    /// Loaded mesh (vertices, faces, texcoords) for `type="mesh"`.
    pub mesh: Option<(Vec<f64>, Vec<i32>, Vec<f32>)>,
    /// The file's bytes for `type="gmsh"`, read where the generator runs (as MuJoCo reads
    /// it: after the flexcomp's own checks).
    pub gmsh: Option<Vec<u8>>,
    /// The flex's own attributes (material, contact, elasticity, …).
    pub flex: FlexSpec,
    pub line: u32,
}

impl Default for FlexcompSpec {
    fn default() -> Self {
        FlexcompSpec {
            name: String::new(),
            ftype: FlexcompType::Grid,
            count: [10, 10, 10],
            cellcount: [-1, -1, -1],
            spacing: [0.02, 0.02, 0.02],
            scale: [1.0, 1.0, 1.0],
            mass: 1.0,
            inertiabox: 0.005,
            pos: [0.0; 3],
            orient: Orientation::default(),
            origin: None,
            rigid: false,
            point: Vec::new(),
            element: Vec::new(),
            texcoord: Vec::new(),
            dof: DofType::Full,
            equality: 0,
            eq_solref: [0.02, 1.0],
            eq_solimp: [0.9, 0.95, 0.001, 0.5, 2.0],
            pinid: Vec::new(),
            pinrange: Vec::new(),
            pingrid: Vec::new(),
            pingridrange: Vec::new(),
            mesh: None,
            gmsh: None,
            flex: FlexSpec::default(),
            line: 0,
        }
    }
}

fn err(msg: impl Into<String>) -> Error {
    Error::xml(msg)
}

impl FlexcompSpec {
    fn grid_id2(&self, ix: i32, iy: i32) -> usize {
        (ix * self.count[1] + iy) as usize
    }
    fn grid_id3(&self, ix: i32, iy: i32, iz: i32) -> usize {
        (ix * self.count[1] * self.count[2] + iy * self.count[2] + iz) as usize
    }

    fn needs_texcoord(&self) -> bool {
        self.texcoord.is_empty() && !self.flex.material.is_empty()
    }

    fn make_grid(&mut self) -> Result<()> {
        let dim = self.flex.dim;
        let needtex = self.needs_texcoord();
        let n = self.count;
        let s = self.spacing;
        if dim == 1 {
            for ix in 0..n[0] {
                if self.ftype == FlexcompType::Circle {
                    if ix >= n[0] - 1 {
                        continue;
                    }
                    let theta = 2.0 * crate::math::PI / (n[0] - 1) as f64;
                    let radius = s[0] / (theta / 2.0).sin() / 2.0;
                    self.point.extend_from_slice(&[
                        radius * (theta * ix as f64).cos(),
                        radius * (theta * ix as f64).sin(),
                        0.0,
                    ]);
                    self.element.push(ix);
                    self.element.push(if ix == n[0] - 2 { 0 } else { ix + 1 });
                } else {
                    self.point.extend_from_slice(&[
                        s[0] * (ix as f64 - 0.5 * (n[0] - 1) as f64),
                        0.0,
                        0.0,
                    ]);
                    if ix < n[0] - 1 {
                        self.element.push(ix);
                        self.element.push(ix + 1);
                    }
                }
            }
        } else if dim == 2 {
            for ix in 0..n[0] {
                for iy in 0..n[1] {
                    let mut quad2tri = [[0usize, 1, 2], [0, 2, 3]];
                    let p = [
                        s[0] * (ix as f64 - 0.5 * (n[0] - 1) as f64),
                        s[1] * (iy as f64 - 0.5 * (n[1] - 1) as f64),
                    ];
                    self.point.extend_from_slice(&[p[0], p[1], 0.0]);
                    if needtex {
                        self.texcoord
                            .push((ix as f64 / (n[0] - 1).max(1) as f64) as f32);
                        self.texcoord
                            .push((iy as f64 / (n[1] - 1).max(1) as f64) as f32);
                    }
                    let e = crate::math::EPS;
                    if ((p[0] < -e && p[1] > -e) || (p[0] > -e && p[1] < -e))
                        && self.ftype == FlexcompType::Disc
                    {
                        quad2tri[0][2] = 3;
                        quad2tri[1][0] = 1;
                    }
                    if ix < n[0] - 1 && iy < n[1] - 1 {
                        let v = [
                            n[2] * n[1] * ix + n[2] * iy,
                            n[2] * n[1] * (ix + 1) + n[2] * iy,
                            n[2] * n[1] * (ix + 1) + n[2] * (iy + 1),
                            n[2] * n[1] * ix + n[2] * (iy + 1),
                        ];
                        for tri in quad2tri {
                            for k in tri {
                                self.element.push(v[k]);
                            }
                        }
                    }
                }
            }
        } else {
            const CUBE2TETS: [[usize; 4]; 6] = [
                [0, 3, 1, 7],
                [0, 1, 4, 7],
                [1, 3, 2, 7],
                [1, 2, 6, 7],
                [1, 5, 4, 7],
                [1, 6, 5, 7],
            ];
            for ix in 0..n[0] {
                for iy in 0..n[1] {
                    for iz in 0..n[2] {
                        self.point.extend_from_slice(&[
                            s[0] * (ix as f64 - 0.5 * (n[0] - 1) as f64),
                            s[1] * (iy as f64 - 0.5 * (n[1] - 1) as f64),
                            s[2] * (iz as f64 - 0.5 * (n[2] - 1) as f64),
                        ]);
                        if needtex {
                            self.texcoord.push(ix as f32 / (n[0] - 1).max(1) as f32);
                            self.texcoord.push(iy as f32 / (n[1] - 1).max(1) as f32);
                        }
                        if ix < n[0] - 1 && iy < n[1] - 1 && iz < n[2] - 1 {
                            let b = |dx: i32, dy: i32, dz: i32| {
                                n[2] * n[1] * (ix + dx) + n[2] * (iy + dy) + iz + dz
                            };
                            let v = [
                                b(0, 0, 0),
                                b(1, 0, 0),
                                b(1, 1, 0),
                                b(0, 1, 0),
                                b(0, 0, 1),
                                b(1, 0, 1),
                                b(1, 1, 1),
                                b(0, 1, 1),
                            ];
                            for tet in CUBE2TETS {
                                for k in tet {
                                    self.element.push(v[k]);
                                }
                            }
                        }
                    }
                }
            }
        }
        if self.element.is_empty() {
            return Err(err("No elements were created in grid"));
        }
        Ok(())
    }

    fn box_id(&self, ix: i32, iy: i32, iz: i32) -> i32 {
        let c = self.count;
        if iz == 0 {
            ix * c[1] + iy + 1
        } else if iz == c[2] - 1 {
            c[0] * c[1] + ix * c[1] + iy + 1
        } else if iy == 0 {
            2 * c[0] * c[1] + ix * (c[2] - 2) + iz - 1 + 1
        } else if iy == c[1] - 1 {
            2 * c[0] * c[1] + c[0] * (c[2] - 2) + ix * (c[2] - 2) + iz - 1 + 1
        } else if ix == 0 {
            2 * c[0] * c[1] + 2 * c[0] * (c[2] - 2) + (iy - 1) * (c[2] - 2) + iz - 1 + 1
        } else {
            2 * c[0] * c[1]
                + 2 * c[0] * (c[2] - 2)
                + (c[1] - 2) * (c[2] - 2)
                + (iy - 1) * (c[2] - 2)
                + iz
                - 1
                + 1
        }
    }

    fn box_project(&self, ix: i32, iy: i32, iz: i32) -> [f64; 3] {
        let c = self.count;
        let mut p = [
            2.0 * ix as f64 / (c[0] - 1) as f64 - 1.0,
            2.0 * iy as f64 / (c[1] - 1) as f64 - 1.0,
            2.0 * iz as f64 / (c[2] - 1) as f64 - 1.0,
        ];
        let size = [
            0.5 * self.spacing[0] * (c[0] - 1) as f64,
            0.5 * self.spacing[1] * (c[1] - 1) as f64,
            0.5 * self.spacing[2] * (c[2] - 1) as f64,
        ];
        match self.ftype {
            FlexcompType::Box => {
                for k in 0..3 {
                    p[k] *= size[k];
                }
            }
            FlexcompType::Cylinder => {
                let l0 = p[0].abs().max(p[1].abs());
                super::orient::normvec(&mut p[0..2]);
                p[0] *= size[0] * l0;
                p[1] *= size[1] * l0;
                p[2] *= size[2];
            }
            _ => {
                super::orient::normvec(&mut p);
                for k in 0..3 {
                    p[k] *= size[k];
                }
            }
        }
        p
    }

    fn make_box(&mut self, dim: i32) -> Result<()> {
        let open = true;
        let c = self.count;
        if c.iter().any(|&k| k < 2) {
            // MuJoCo steps its face loops by count-1 and would never terminate
            return Err(err("Count too small"));
        }
        let needtex = self.needs_texcoord();
        self.flex.dim = dim;
        if dim == 3 {
            self.point.extend_from_slice(&[0.0, 0.0, 0.0]);
        }
        if needtex {
            self.texcoord.extend_from_slice(&[0.0, 0.0]);
        }
        let lin = |ix: i32, iy: i32, iz: i32| (ix * c[1] * c[2] + iy * c[2] + iz) as usize;
        let mut idx = vec![0i32; (c[0] * c[1] * c[2]) as usize];
        let mut n = 0;
        let tx = |a: i32, na: i32| a as f32 / (na - 1).max(1) as f32;
        let mut iz = 0;
        while iz < c[2] {
            for ix in 0..c[0] {
                for iy in 0..c[1] {
                    if open && dim == 2 && iz != 0 {
                        continue;
                    }
                    let p = self.box_project(ix, iy, iz);
                    self.point.extend_from_slice(&p);
                    idx[lin(ix, iy, iz)] = n;
                    n += 1;
                    if needtex {
                        self.texcoord.push(tx(ix, c[0]));
                        self.texcoord.push(tx(iy, c[1]));
                    }
                }
            }
            iz += c[2] - 1;
        }
        let mut iy = 0;
        while iy < c[1] {
            for ix in 0..c[0] {
                for iz in 0..c[2] {
                    if iz > 0 && ((open && dim == 2) || iz < c[2] - 1) {
                        let p = self.box_project(ix, iy, iz);
                        self.point.extend_from_slice(&p);
                        idx[lin(ix, iy, iz)] = n;
                        n += 1;
                        if needtex {
                            self.texcoord.push(tx(ix, c[0]));
                            self.texcoord.push(tx(iz, c[2]));
                        }
                    }
                }
            }
            iy += c[1] - 1;
        }
        let mut ix = 0;
        while ix < c[0] {
            for iy in 0..c[1] {
                for iz in 0..c[2] {
                    if iz > 0 && ((open && dim == 2) || iz < c[2] - 1) && iy > 0 && iy < c[1] - 1 {
                        let p = self.box_project(ix, iy, iz);
                        self.point.extend_from_slice(&p);
                        idx[lin(ix, iy, iz)] = n;
                        n += 1;
                        if needtex {
                            self.texcoord.push(tx(iy, c[1]));
                            self.texcoord.push(tx(iz, c[2]));
                        }
                    }
                }
            }
            ix += c[0] - 1;
        }
        // elements
        let mut el = Vec::new();
        let mut iz = 0;
        while iz < c[2] {
            for ix in 0..c[0] {
                for iy in 0..c[1] {
                    if open && dim == 2 && iz != 0 {
                        continue;
                    }
                    if ix < c[0] - 1 && iy < c[1] - 1 {
                        if dim == 3 {
                            el.extend_from_slice(&[
                                0,
                                self.box_id(ix, iy, iz),
                                self.box_id(ix + 1, iy, iz),
                                self.box_id(ix + 1, iy + 1, iz),
                            ]);
                            el.extend_from_slice(&[
                                0,
                                self.box_id(ix, iy, iz),
                                self.box_id(ix, iy + 1, iz),
                                self.box_id(ix + 1, iy + 1, iz),
                            ]);
                        } else {
                            let s1 = if iz == 0 { 1 } else { 0 };
                            let s2 = if iz == 0 { 0 } else { 1 };
                            el.extend_from_slice(&[
                                idx[lin(ix, iy, iz)],
                                idx[lin(ix + 1, iy + s1, iz)],
                                idx[lin(ix + 1, iy + s2, iz)],
                            ]);
                            el.extend_from_slice(&[
                                idx[lin(ix, iy, iz)],
                                idx[lin(ix + s2, iy + 1, iz)],
                                idx[lin(ix + s1, iy + 1, iz)],
                            ]);
                        }
                    }
                }
            }
            iz += c[2] - 1;
        }
        let mut iy = 0;
        while iy < c[1] {
            for ix in 0..c[0] {
                for iz in 0..c[2] {
                    if ix < c[0] - 1 && iz < c[2] - 1 {
                        if dim == 3 {
                            el.extend_from_slice(&[
                                0,
                                self.box_id(ix, iy, iz),
                                self.box_id(ix + 1, iy, iz),
                                self.box_id(ix + 1, iy, iz + 1),
                            ]);
                            el.extend_from_slice(&[
                                0,
                                self.box_id(ix, iy, iz),
                                self.box_id(ix, iy, iz + 1),
                                self.box_id(ix + 1, iy, iz + 1),
                            ]);
                        } else {
                            let ix0 = if iy == 0 { ix } else { ix + 1 };
                            let dx = if iy == 0 { 1 } else { -1 };
                            el.extend_from_slice(&[
                                idx[lin(ix0, iy, iz)],
                                idx[lin(ix0 + dx, iy, iz)],
                                idx[lin(ix0 + dx, iy, iz + 1)],
                            ]);
                            el.extend_from_slice(&[
                                idx[lin(ix0, iy, iz)],
                                idx[lin(ix0 + dx, iy, iz + 1)],
                                idx[lin(ix0, iy, iz + 1)],
                            ]);
                        }
                    }
                }
            }
            iy += c[1] - 1;
        }
        let mut ix = 0;
        while ix < c[0] {
            for iy in 0..c[1] {
                for iz in 0..c[2] {
                    if iy < c[1] - 1 && iz < c[2] - 1 {
                        if dim == 3 {
                            el.extend_from_slice(&[
                                0,
                                self.box_id(ix, iy, iz),
                                self.box_id(ix, iy + 1, iz),
                                self.box_id(ix, iy + 1, iz + 1),
                            ]);
                            el.extend_from_slice(&[
                                0,
                                self.box_id(ix, iy, iz),
                                self.box_id(ix, iy, iz + 1),
                                self.box_id(ix, iy + 1, iz + 1),
                            ]);
                        } else {
                            let iy0 = if ix != 0 { iy } else { iy + 1 };
                            let dy = if ix != 0 { 1 } else { -1 };
                            el.extend_from_slice(&[
                                idx[lin(ix, iy0, iz)],
                                idx[lin(ix, iy0 + dy, iz)],
                                idx[lin(ix, iy0 + dy, iz + 1)],
                            ]);
                            el.extend_from_slice(&[
                                idx[lin(ix, iy0, iz)],
                                idx[lin(ix, iy0 + dy, iz + 1)],
                                idx[lin(ix, iy0, iz + 1)],
                            ]);
                        }
                    }
                }
            }
            ix += c[0] - 1;
        }
        self.element = el;
        Ok(())
    }

    fn make_square(&mut self) -> Result<()> {
        self.flex.dim = 2;
        self.make_grid()?;
        if self.ftype == FlexcompType::Disc {
            let size = [
                0.5 * self.spacing[0] * (self.count[0] - 1) as f64,
                0.5 * self.spacing[1] * (self.count[1] - 1) as f64,
            ];
            for p in self.point.chunks_exact_mut(3) {
                let l0 = p[0].abs().max(p[1].abs());
                super::orient::normvec(&mut p[0..2]);
                p[0] *= size[0] * l0;
                p[1] *= size[1] * l0;
            }
        }
        Ok(())
    }

    /// Points, elements and dimension from a GMSH file (`MakeGMSH`).
    fn make_gmsh(&mut self) -> Result<()> {
        let Some(bytes) = self.gmsh.take() else {
            return Err(err("File is required"));
        };
        let g = super::gmsh::load(&bytes).map_err(err)?;
        self.flex.dim = g.dim;
        self.point = g.point;
        self.element = g.element;
        Ok(())
    }

    fn make_mesh(&mut self) -> Result<()> {
        let Some((vert, face, tex)) = self.mesh.take() else {
            return Err(err("File is required"));
        };
        if self.flex.dim < 1 {
            return Err(err("Flex dim must be at least 1 for mesh"));
        }
        if vert.is_empty() || face.is_empty() {
            return Err(err("Vertex and face data required"));
        }
        self.point = vert;
        if !tex.is_empty() && tex.len() == self.point.len() / 3 * 2 {
            self.texcoord = tex;
        }
        match self.flex.dim {
            2 => self.element = face,
            1 => {
                self.element = face.chunks_exact(3).flat_map(|f| [f[0], f[1]]).collect();
            }
            _ => {
                let o = self.origin.unwrap_or([0.0; 3]);
                self.point.splice(0..0, o);
                let mut el = Vec::new();
                for f in face.chunks_exact(3) {
                    let t = [f[0] + 1, f[1] + 1, f[2] + 1];
                    let p = |i: i32, k: usize| self.point[3 * i as usize + k] - o[k];
                    let e1 = [p(t[0], 0), p(t[0], 1), p(t[0], 2)];
                    let e2 = [p(t[1], 0), p(t[1], 1), p(t[1], 2)];
                    let e3 = [p(t[2], 0), p(t[2], 1), p(t[2], 2)];
                    let nrm = crate::math::cross(&e1, &e2);
                    if crate::math::dot3(&nrm, &e3) < crate::math::MINVAL {
                        continue;
                    }
                    el.extend_from_slice(&[0, t[0], t[1], t[2]]);
                }
                self.element = el;
            }
        }
        Ok(())
    }
}

/// Most points a flexcomp may have (the product of `count`, of the cell counts, or the points
/// a file or `point` gives).
pub const MAX_FLEXCOMP_POINTS: i64 = 250_000;

/// flexlab's bound (MuJoCo has none): a hostile model must not exhaust memory or freeze the
/// page while compiling.
fn too_many_points(n: i64) -> Error {
    Error::unsupported(format!(
        "flexcomp with {n} points exceeds flexlab's limit of {MAX_FLEXCOMP_POINTS}"
    ))
}

/// Expands a flexcomp into `spec` under `body` (MuJoCo's `mjCFlexcomp::Make`).
pub fn make(
    spec: &mut Spec,
    body: usize,
    mut fc: FlexcompSpec,
    eq_default: &EqualitySpec,
    compiler: &CompilerSpec,
) -> Result<()> {
    let direct = matches!(
        fc.ftype,
        FlexcompType::Direct | FlexcompType::Mesh | FlexcompType::Gmsh
    );
    if spec.bodies[body].name.is_empty() {
        return Err(err("Parent body must have name"));
    }
    let dim = fc.flex.dim;
    if !(1..=3).contains(&dim) {
        return Err(err("Invalid dim, must be between 1 and 3"));
    }
    for k in 0..3 {
        if fc.count[k] < 1 || (fc.dof == DofType::Radial && fc.count[k] < 2 && dim == 3) {
            return Err(err("Count too small"));
        }
    }
    // counted points are bounded before they are made
    let points: i64 = fc.count.iter().map(|&c| c.max(1) as i64).product();
    let cells: i64 = fc.cellcount.iter().map(|&c| c.max(1) as i64).product();
    if points > MAX_FLEXCOMP_POINTS || cells > MAX_FLEXCOMP_POINTS {
        return Err(too_many_points(points.max(cells)));
    }
    let minspace = 2.0 * fc.flex.radius + fc.flex.margin;
    if !direct && fc.spacing.iter().any(|&s| s < minspace) {
        return Err(err("Spacing must be larger than geometry size"));
    }
    if fc.scale.iter().any(|&s| s < crate::math::MINVAL) {
        return Err(err("Scale must be larger than mjMINVAL"));
    }
    if fc.mass < crate::math::MINVAL || fc.inertiabox < crate::math::MINVAL {
        return Err(err("Mass and inertiabox must be larger than mjMINVAL"));
    }
    let quat =
        super::orient::resolve(&fc.orient, compiler.degree, &compiler.eulerseq).map_err(err)?;

    // points and elements of the shape
    match fc.ftype {
        FlexcompType::Grid | FlexcompType::Circle => fc.make_grid()?,
        FlexcompType::Box | FlexcompType::Cylinder | FlexcompType::Ellipsoid => {
            let d = fc.flex.dim;
            fc.make_box(d)?
        }
        FlexcompType::Square | FlexcompType::Disc => fc.make_square()?,
        FlexcompType::Mesh => fc.make_mesh()?,
        FlexcompType::Gmsh => fc.make_gmsh()?,
        FlexcompType::Direct => {}
    }
    // points given rather than counted (a file, or `point`) are bounded once they are read
    if fc.point.len() / 3 > MAX_FLEXCOMP_POINTS as usize {
        return Err(too_many_points((fc.point.len() / 3) as i64));
    }
    let dim = fc.flex.dim;
    if matches!(fc.ftype, FlexcompType::Box | FlexcompType::Cylinder)
        || (fc.ftype == FlexcompType::Grid && dim == 3)
    {
        fc.flex.flatskin = true;
    }

    // pin list shapes
    if fc.pinrange.len() % 2 != 0 {
        return Err(err("Pin range number must be multiple of 2"));
    }
    if fc.pingrid.len() % dim as usize != 0 {
        return Err(err("Pin grid number must be multiple of dim"));
    }
    if fc.pingridrange.len() % (2 * dim as usize) != 0 {
        return Err(err("Pin grid range number of must be multiple of 2*dim"));
    }
    let interp = matches!(fc.dof, DofType::Trilinear | DofType::Quadratic);
    if fc.ftype != FlexcompType::Grid
        && !(fc.pingrid.is_empty() && fc.pingridrange.is_empty())
        && !interp
    {
        return Err(err(
            "Pin grid(range) can only be used with grid or interpolated",
        ));
    }
    if dim == 1 && !(fc.pingrid.is_empty() && fc.pingridrange.is_empty()) {
        return Err(err("Pin grid(range) cannot be used with dim=1"));
    }
    if fc.point.is_empty() || fc.element.is_empty() {
        return Err(err("Point and element required"));
    }
    if fc.point.len() % 3 != 0 {
        return Err(err("Point size must be a multiple of 3"));
    }
    if fc.element.len() % (dim as usize + 1) != 0 {
        return Err(err("Element size must be a multiple of dim+1"));
    }
    let mut npnt = fc.point.len() / 3;
    for (i, &v) in fc.element.iter().enumerate() {
        if v < 0 || v as usize >= npnt {
            return Err(err(format!(
                "element {i} has point id {v}, number of points is {npnt}"
            )));
        }
    }

    // scale (direct types), then pose
    if direct && fc.scale != [1.0, 1.0, 1.0] {
        for p in fc.point.chunks_exact_mut(3) {
            for k in 0..3 {
                p[k] *= fc.scale[k];
            }
        }
    }
    for p in fc.point.chunks_exact_mut(3) {
        let r = crate::math::rot_vec_quat(&[p[0], p[1], p[2]], &quat);
        p[0] = r[0] + fc.pos[0];
        p[1] = r[1] + fc.pos[1];
        p[2] = r[2] + fc.pos[2];
    }

    let mut minmax = [
        f64::MAX,
        f64::MAX,
        f64::MAX,
        -f64::MAX,
        -f64::MAX,
        -f64::MAX,
    ];
    for p in fc.point.chunks_exact(3) {
        for k in 0..3 {
            minmax[k] = minmax[k].min(p[k]);
            minmax[k + 3] = minmax[k + 3].max(p[k]);
        }
    }
    // MuJoCo uses mjMAXVAL (1e10) as the initial bound; with at least one point the result is
    // the same.

    // pinned points (or nodes, for interpolated dofs)
    let order = match fc.dof {
        DofType::Trilinear => 1,
        DofType::Quadratic => 2,
        _ => 0,
    };
    let mut nnode = 0usize;
    if interp {
        let mut cc = [1, 1, 1];
        if direct && fc.cellcount[0] >= 0 {
            cc = fc.cellcount;
        }
        nnode = ((cc[0] * order + 1) * (cc[1] * order + 1) * (cc[2] * order + 1)) as usize;
    }
    let mut pinned = vec![fc.rigid; npnt.max(nnode)];
    let mut centered = false;
    let mut rigid = fc.rigid;
    if !rigid {
        for &p in &fc.pinid {
            if p < 0 || p as usize >= npnt {
                return Err(err("pinid out of range"));
            }
            pinned[p as usize] = true;
        }
        for r in fc.pinrange.chunks_exact(2) {
            if r[0] < 0 || r[0] as usize >= npnt || r[1] < 0 || r[1] as usize >= npnt {
                return Err(err("pinrange out of range"));
            }
            for k in r[0]..=r[1] {
                pinned[k as usize] = true;
            }
        }
        for g in fc.pingrid.chunks_exact(dim as usize) {
            let mut check = fc.count;
            if fc.ftype != FlexcompType::Grid && interp {
                let d = if fc.dof == DofType::Trilinear { 2 } else { 3 };
                check = [d, d, d];
            }
            for k in 0..dim as usize {
                if g[k] < 0 || g[k] >= check[k] {
                    return Err(err("pingrid out of range"));
                }
            }
            let id = if dim == 2 {
                fc.grid_id2(g[0], g[1])
            } else {
                fc.grid_id3(g[0], g[1], g[2])
            };
            if id >= pinned.len() {
                return Err(err("pingrid out of range"));
            }
            pinned[id] = true;
        }
        for g in fc.pingridrange.chunks_exact(2 * dim as usize) {
            for k in 0..2 * dim as usize {
                if g[k] < 0 || g[k] >= fc.count[k % dim as usize] {
                    return Err(err("pingridrange out of range"));
                }
            }
            if dim == 2 {
                for ix in g[0]..=g[2] {
                    for iy in g[1]..=g[3] {
                        let id = fc.grid_id2(ix, iy);
                        if id < pinned.len() {
                            pinned[id] = true;
                        }
                    }
                }
            } else if dim == 3 {
                for ix in g[0]..=g[3] {
                    for iy in g[1]..=g[4] {
                        for iz in g[2]..=g[5] {
                            let id = fc.grid_id3(ix, iy, iz);
                            if id < pinned.len() {
                                pinned[id] = true;
                            }
                        }
                    }
                }
            }
        }
        if fc.dof == DofType::Radial {
            pinned[0] = true;
        }
        let allpin = pinned[..npnt].iter().all(|&p| p);
        let nopin = pinned[..npnt].iter().all(|&p| !p);
        if allpin {
            rigid = true;
        } else if nopin {
            centered = true;
        }
    }

    // drop points no element uses (direct types)
    if direct {
        let mut used = vec![false; npnt];
        for &v in &fc.element {
            used[v as usize] = true;
        }
        if used.iter().any(|u| !u) {
            let mut newid = vec![0i32; npnt];
            let mut k = 0i32;
            for i in 0..npnt {
                newid[i] = k;
                if used[i] {
                    k += 1;
                }
            }
            for v in fc.element.iter_mut() {
                *v = newid[*v as usize];
            }
            let mut n = 0;
            let has_tex = !fc.texcoord.is_empty();
            for i in 0..npnt {
                if used[i] {
                    for c in 0..3 {
                        fc.point[3 * n + c] = fc.point[3 * i + c];
                    }
                    if has_tex && fc.texcoord.len() >= 2 * (i + 1) {
                        fc.texcoord[2 * n] = fc.texcoord[2 * i];
                        fc.texcoord[2 * n + 1] = fc.texcoord[2 * i + 1];
                    }
                    pinned[n] = pinned[i];
                    n += 1;
                }
            }
            fc.point.truncate(3 * n);
            if has_tex {
                fc.texcoord.truncate(2 * n);
            }
            pinned.truncate(n.max(nnode));
            npnt = n;
        }
    }

    // the flex itself
    let mut flex = fc.flex.clone();
    flex.name = fc.name.clone();
    flex.elem = fc.element.clone();
    flex.texcoord = fc.texcoord.clone();
    flex.line = fc.line;
    if !centered {
        flex.vert = fc.point.clone();
    }
    let parent_name = spec.bodies[body].name.clone();
    if rigid {
        flex.vertbody = vec![parent_name];
        spec.flexes.push(flex);
        return Ok(());
    }

    let bodymass = fc.mass / npnt as f64;
    let bodyinertia = bodymass * (2.0 * fc.inertiabox * fc.inertiabox) / 3.0;
    // generated joints take the defaults of the class in effect for their body
    let class_joint = spec_joint_default(spec, body);

    for i in 0..npnt {
        if pinned[i] || interp {
            flex.vertbody.push(parent_name.clone());
            continue;
        }
        let name = format!("{}_{}", fc.name, i);
        let b = spec.add_body(body, &name);
        {
            let pb = &mut spec.bodies[b];
            pb.pos = [fc.point[3 * i], fc.point[3 * i + 1], fc.point[3 * i + 2]];
            pb.ipos = [0.0; 3];
            pb.mass = bodymass;
            pb.inertia = [bodyinertia; 3];
            pb.explicit_inertial = true;
        }
        match fc.dof {
            DofType::Radial => {
                let mut axis = spec.bodies[b].pos;
                super::orient::normvec(&mut axis);
                let j = JointSpec {
                    jtype: JointType::Slide,
                    pos: [0.0; 3],
                    axis,
                    ..class_joint.clone()
                };
                spec.add_joint(b, j);
            }
            DofType::Full | DofType::TwoD => {
                let n = if fc.dof == DofType::Full { 3 } else { 2 };
                for k in 0..n {
                    let mut axis = [0.0; 3];
                    axis[k] = 1.0;
                    let j = JointSpec {
                        jtype: JointType::Slide,
                        pos: [0.0; 3],
                        axis,
                        ..class_joint.clone()
                    };
                    spec.add_joint(b, j);
                }
            }
            _ => {}
        }
        flex.vertbody.push(name);
        if !centered {
            fc.point[3 * i] = 0.0;
            fc.point[3 * i + 1] = 0.0;
            fc.point[3 * i + 2] = 0.0;
        }
    }

    if interp {
        flex.order = order;
        if fc.cellcount[0] >= 0 {
            flex.cellcount = fc.cellcount;
        }
        let [cx, cy, cz] = flex.cellcount;
        let (nx, ny, nz) = (cx * order + 1, cy * order + 1, cz * order + 1);
        let nnode = (nx * ny * nz) as usize;
        if pinned.len() < nnode {
            pinned.resize(nnode, false);
        }
        if flex.elastic2d == 0 {
            flex.cell_empty = super::flex::compute_cell_empty(
                &fc.point[..3 * npnt],
                &fc.element,
                dim,
                flex.cellcount,
                Some(&minmax),
            );
            for gi in 0..nx {
                for gj in 0..ny {
                    for gk in 0..nz {
                        let range = |g: i32, c: i32| {
                            let lo = if g == 0 { 0 } else { (g - 1) / order };
                            (lo.max(0), (c - 1).min(g / order))
                        };
                        let (i0, i1) = range(gi, cx);
                        let (j0, j1) = range(gj, cy);
                        let (k0, k1) = range(gk, cz);
                        let mut all_empty = true;
                        'outer: for ci in i0..=i1 {
                            for cj in j0..=j1 {
                                for ck in k0..=k1 {
                                    if !flex.cell_empty[(ci * cy * cz + cj * cz + ck) as usize] {
                                        all_empty = false;
                                        break 'outer;
                                    }
                                }
                            }
                        }
                        if all_empty {
                            pinned[(gi * ny * nz + gj * nz + gk) as usize] = true;
                        }
                    }
                }
            }
        } else {
            for gi in 0..nx {
                for gj in 0..ny {
                    for gk in 0..nz {
                        let boundary = gi == 0
                            || gi == nx - 1
                            || gj == 0
                            || gj == ny - 1
                            || gk == 0
                            || gk == nz - 1;
                        if !boundary {
                            pinned[(gi * ny * nz + gj * nz + gk) as usize] = true;
                        }
                    }
                }
            }
        }
        if centered && pinned[..nnode].iter().any(|&p| p) {
            centered = false;
        }
        let mut node = vec![0.0; 3 * nnode];
        let mass_p2 = [1.0 / 6.0, 2.0 / 3.0, 1.0 / 6.0];
        let mut node_bodies = Vec::new();
        let mut idx = 0usize;
        for gi in 0..nx {
            for gj in 0..ny {
                for gk in 0..nz {
                    let s = gi as f64 / (cx * order) as f64;
                    let t = gj as f64 / (cy * order) as f64;
                    let u = gk as f64 / (cz * order) as f64;
                    let p = [
                        minmax[0] + s * (minmax[3] - minmax[0]),
                        minmax[1] + t * (minmax[4] - minmax[1]),
                        minmax[2] + u * (minmax[5] - minmax[2]),
                    ];
                    if pinned[idx] {
                        node[3 * idx..3 * idx + 3].copy_from_slice(&p);
                        flex.nodebody.push(parent_name.clone());
                        idx += 1;
                        continue;
                    }
                    let name = format!("{}_{}_{}_{}", fc.name, gi, gj, gk);
                    let b = spec.add_body(body, &name);
                    let m = if fc.dof == DofType::Trilinear {
                        1.0
                    } else {
                        let (li, lj, lk) = (gi % order, gj % order, gk % order);
                        let nci = if gi > 0 && gi < nx - 1 && li == 0 {
                            2.0
                        } else {
                            1.0
                        };
                        let ncj = if gj > 0 && gj < ny - 1 && lj == 0 {
                            2.0
                        } else {
                            1.0
                        };
                        let nck = if gk > 0 && gk < nz - 1 && lk == 0 {
                            2.0
                        } else {
                            1.0
                        };
                        mass_p2[li as usize]
                            * mass_p2[lj as usize]
                            * mass_p2[lk as usize]
                            * nci
                            * ncj
                            * nck
                    };
                    {
                        let pb = &mut spec.bodies[b];
                        pb.pos = p;
                        pb.ipos = [0.0; 3];
                        pb.mass = m;
                        let inert = m * (2.0 * fc.inertiabox * fc.inertiabox) / 3.0;
                        pb.inertia = [inert; 3];
                        pb.explicit_inertial = true;
                    }
                    node_bodies.push(b);
                    for k in 0..3 {
                        let mut axis = [0.0; 3];
                        axis[k] = 1.0;
                        let j = JointSpec {
                            jtype: JointType::Slide,
                            pos: [0.0; 3],
                            axis,
                            ..class_joint.clone()
                        };
                        spec.add_joint(b, j);
                    }
                    flex.nodebody.push(name);
                    idx += 1;
                }
            }
        }
        let total: f64 = node_bodies.iter().map(|&b| spec.bodies[b].mass).sum();
        if total > 0.0 {
            let scale = fc.mass / total;
            for &b in &node_bodies {
                let pb = &mut spec.bodies[b];
                pb.mass *= scale;
                for k in 0..3 {
                    pb.inertia[k] *= scale;
                }
            }
        }
        if !centered {
            flex.node = node;
        }
    }

    if !centered || interp {
        flex.vert = fc.point.clone();
    } else {
        flex.vert.clear();
    }

    // equality constraints
    let fname = fc.name.clone();
    let shell = interp && flex.elastic2d != 0;
    let (cx, cy, cz) = (flex.cellcount[0], flex.cellcount[1], flex.cellcount[2]);
    let cell_empty = flex.cell_empty.clone();
    if fc.equality == 3 {
        flex.has_strain_eq = true;
    }
    spec.flexes.push(flex);
    // `cell`: a strain row's cell (or shell face); edge and vertex rows keep the default data
    let make_eq = |t: EqType, cell: Option<[f64; 3]>| {
        let mut q = eq_default.clone();
        q.eqtype = t;
        q.active = true;
        q.name1 = fname.clone();
        q.solref = fc.eq_solref;
        q.solimp = fc.eq_solimp;
        if let Some(cell) = cell {
            q.data[..3].copy_from_slice(&cell);
        }
        q.line = fc.line;
        q
    };
    match fc.equality {
        1 => spec.equalities.push(make_eq(EqType::Flex, None)),
        2 => spec.equalities.push(make_eq(EqType::FlexVert, None)),
        3 => {
            if shell {
                let nfe = 2 * (cy * cz + cx * cz + cx * cy);
                for fe in 0..nfe {
                    spec.equalities
                        .push(make_eq(EqType::FlexStrain, Some([fe as f64, -1.0, -1.0])));
                }
            } else {
                for ci in 0..cx {
                    for cj in 0..cy {
                        for ck in 0..cz {
                            let c = (ci * cy * cz + cj * cz + ck) as usize;
                            if !cell_empty.is_empty() && cell_empty[c] {
                                continue;
                            }
                            spec.equalities.push(make_eq(
                                EqType::FlexStrain,
                                Some([ci as f64, cj as f64, ck as f64]),
                            ));
                        }
                    }
                }
            }
        }
        _ => {}
    }
    Ok(())
}

/// Joint defaults for joints generated under `body`: the class in effect for its children.
fn spec_joint_default(spec: &Spec, body: usize) -> JointSpec {
    let mut j = spec
        .joint_class_defaults
        .get(spec.bodies[body].childclass)
        .cloned()
        .unwrap_or_default();
    j.name.clear();
    j
}

#[cfg(test)]
mod tests {
    use crate::mjcf::{parse, MemSource};

    fn spec(xml: &str) -> crate::spec::Spec {
        parse(xml, None, &MemSource::default()).expect("parses")
    }

    /// MuJoCo's documented example: a 3-point 1D grid with point 0 pinned.
    #[test]
    fn pinned_point_stays_on_parent_and_others_get_bodies() {
        let s = spec(
            r#"<mujoco><worldbody><flexcomp name="FL" type="grid" dim="1" count="3 1 1" mass="3" spacing="0.2 0.2 0.2"><pin id="0"/></flexcomp></worldbody></mujoco>"#,
        );
        let names: Vec<&str> = s.bodies.iter().map(|b| b.name.as_str()).collect();
        assert_eq!(names, ["world", "FL_1", "FL_2"]);
        let f = &s.flexes[0];
        assert_eq!(f.vertbody, ["world", "FL_1", "FL_2"]);
        assert_eq!(f.vert, [-0.2, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
        assert_eq!(f.elem, [0, 1, 1, 2]);
        for b in &s.bodies[1..] {
            assert!((b.mass - 1.0).abs() < 1e-15);
            assert!((b.inertia[0] - 1.0 * 2.0 * 0.005 * 0.005 / 3.0).abs() < 1e-18);
            // three slide joints x, y, z in order
            let axes: Vec<[f64; 3]> = b.joints.iter().map(|&j| s.joints[j].axis).collect();
            assert_eq!(axes, [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]);
        }
    }

    /// Bodies follow document order: flexcomp bodies sit between earlier and later siblings.
    #[test]
    fn generated_bodies_keep_document_order() {
        let s = spec(
            r#"<mujoco><worldbody><body name="a"/><flexcomp name="c" type="grid" dim="2" count="2 2 1" spacing=".1 .1 .1"><pin id="0 1"/></flexcomp><body name="z"/></worldbody></mujoco>"#,
        );
        let m = crate::compile::compile(&s).unwrap();
        assert_eq!(m.names_body, ["world", "a", "c_2", "c_3", "z"]);
        assert_eq!(m.nv, 6);
        assert_eq!(m.flex_vertbodyid, [0, 0, 2, 3]);
    }

    #[test]
    fn rigid_and_fully_pinned_flexcomps_make_no_bodies() {
        let s = spec(
            r#"<mujoco><worldbody><flexcomp name="r" type="grid" dim="1" count="3 1 1" spacing=".1 .1 .1" rigid="true"/><flexcomp name="p" type="grid" dim="1" count="2 1 1" spacing=".1 .1 .1"><pin range="0 1"/></flexcomp></worldbody></mujoco>"#,
        );
        assert_eq!(s.bodies.len(), 1);
        assert_eq!(s.flexes[0].vertbody, ["world"]);
        assert_eq!(s.flexes[1].vertbody, ["world"]);
    }

    #[test]
    fn a_hostile_count_is_refused_at_once() {
        // 1e10 points would exhaust memory (and freeze a browser tab) before any other check
        let xml = r#"<mujoco><worldbody>
<flexcomp name="c" type="grid" dim="2" count="100000 100000 1" spacing=".1 .1 .1"/>
</worldbody></mujoco>"#;
        let e = parse(xml, Some("t.xml"), &MemSource::default()).expect_err("bounded");
        assert!(e.message.contains("exceeds flexlab's limit"), "got {e}");
        assert_eq!(e.location.line, Some(2));
    }

    #[test]
    fn flexcomp_errors_use_mujoco_messages() {
        let cases = [
            (
                r#"<flexcomp name="c" dim="4"/>"#,
                "Invalid dim, must be between 1 and 3",
            ),
            (
                r#"<flexcomp name="c" dim="1" count="0 1 1"/>"#,
                "Count too small",
            ),
            (
                r#"<flexcomp name="c" dim="1" count="3 1 1" spacing=".001 .1 .1"/>"#,
                "Spacing must be larger than geometry size",
            ),
            (
                r#"<flexcomp name="c" dim="1" count="3 1 1" mass="0"/>"#,
                "Mass and inertiabox must be larger than mjMINVAL",
            ),
            (
                r#"<flexcomp name="c" dim="1" count="3 1 1"><pin id="7"/></flexcomp>"#,
                "pinid out of range",
            ),
            (
                r#"<flexcomp name="c" dim="1" count="3 1 1"><pin range="0"/></flexcomp>"#,
                "Pin range number must be multiple of 2",
            ),
            (
                r#"<flexcomp name="c" dim="3" count="4 4 1"/>"#,
                "No elements were created in grid",
            ),
            (
                r#"<flexcomp name="c" dim="2" count="3 3 1"><edge equality="true"/><elasticity young="10" elastic2d="stretch" thickness=".01"/></flexcomp>"#,
                "flex constraints and elasticity (young) cannot both be present",
            ),
        ];
        for (fc, msg) in cases {
            let xml = format!("<mujoco><worldbody>\n{fc}\n</worldbody></mujoco>");
            let e = parse(&xml, Some("t.xml"), &MemSource::default()).expect_err(msg);
            assert!(e.message.contains(msg), "{fc}: got {e}");
            assert_eq!(e.location.line, Some(2), "{fc}: line of {e}");
            assert_eq!(e.location.element.as_deref(), Some("flexcomp"));
        }
    }
}
