//! Marching cubes as MuJoCo 3.15.0 meshes an SDF plugin (`aparis69/MarchingCubeCpp` at the
//! commit MuJoCo pins, single precision): the zero isosurface of a sampled field as an indexed
//! triangle mesh in grid units. Vertex and triangle order follow that implementation, since
//! they become the compiled mesh (`mesh_vert`, `mesh_face`).

/// Triangle configurations of the 256 inside/outside cases: the low nibble is the number of
/// triangles, then one nibble per triangle corner naming the cube edge it lies on.
#[rustfmt::skip]
const TRIS: [u64; 256] = [
    0, 33793, 36945, 159668546,
    18961, 144771090, 5851666, 595283255635,
    20913, 67640146, 193993474, 655980856339,
    88782242, 736732689667, 797430812739, 194554754,
    26657, 104867330, 136709522, 298069416227,
    109224258, 8877909667, 318136408323, 1567994331701604,
    189884450, 350847647843, 559958167731, 3256298596865604,
    447393122899, 651646838401572, 2538311371089956, 737032694307,
    29329, 43484162, 91358498, 374810899075,
    158485010, 178117478419, 88675058979, 433581536604804,
    158486962, 649105605635, 4866906995, 3220959471609924,
    649165714851, 3184943915608436, 570691368417972, 595804498035,
    124295042, 431498018963, 508238522371, 91518530,
    318240155763, 291789778348404, 1830001131721892, 375363605923,
    777781811075, 1136111028516116, 3097834205243396, 508001629971,
    2663607373704004, 680242583802939237, 333380770766129845, 179746658,
    42545, 138437538, 93365810, 713842853011,
    73602098, 69575510115, 23964357683, 868078761575828,
    28681778, 713778574611, 250912709379, 2323825233181284,
    302080811955, 3184439127991172, 1694042660682596, 796909779811,
    176306722, 150327278147, 619854856867, 1005252473234484,
    211025400963, 36712706, 360743481544788, 150627258963,
    117482600995, 1024968212107700, 2535169275963444, 4734473194086550421,
    628107696687956, 9399128243, 5198438490361643573, 194220594,
    104474994, 566996932387, 427920028243, 2014821863433780,
    492093858627, 147361150235284, 2005882975110676, 9671606099636618005,
    777701008947, 3185463219618820, 482784926917540, 2900953068249785909,
    1754182023747364, 4274848857537943333, 13198752741767688709, 2015093490989156,
    591272318771, 2659758091419812, 1531044293118596, 298306479155,
    408509245114388, 210504348563, 9248164405801223541, 91321106,
    2660352816454484, 680170263324308757, 8333659837799955077, 482966828984116,
    4274926723105633605, 3184439197724820, 192104450, 15217,
    45937, 129205250, 129208402, 529245952323,
    169097138, 770695537027, 382310500883, 2838550742137652,
    122763026, 277045793139, 81608128403, 1991870397907988,
    362778151475, 2059003085103236, 2132572377842852, 655681091891,
    58419234, 239280858627, 529092143139, 1568257451898804,
    447235128115, 679678845236084, 2167161349491220, 1554184567314086709,
    165479003923, 1428768988226596, 977710670185060, 10550024711307499077,
    1305410032576132, 11779770265620358997, 333446212255967269, 978168444447012,
    162736434, 35596216627, 138295313843, 891861543990356,
    692616541075, 3151866750863876, 100103641866564, 6572336607016932133,
    215036012883, 726936420696196, 52433666, 82160664963,
    2588613720361524, 5802089162353039525, 214799000387, 144876322,
    668013605731, 110616894681956, 1601657732871812, 430945547955,
    3156382366321172, 7644494644932993285, 3928124806469601813, 3155990846772900,
    339991010498708, 10743689387941597493, 5103845475, 105070898,
    3928064910068824213, 156265010, 1305138421793636, 27185,
    195459938, 567044449971, 382447549283, 2175279159592324,
    443529919251, 195059004769796, 2165424908404116, 1554158691063110021,
    504228368803, 1436350466655236, 27584723588724, 1900945754488837749,
    122971970, 443829749251, 302601798803, 108558722,
    724700725875, 43570095105972, 2295263717447940, 2860446751369014181,
    2165106202149444, 69275726195, 2860543885641537797, 2165106320445780,
    2280890014640004, 11820349930268368933, 8721082628082003989, 127050770,
    503707084675, 122834978, 2538193642857604, 10129,
    801441490467, 2923200302876740, 1443359556281892, 2901063790822564949,
    2728339631923524, 7103874718248233397, 12775311047932294245, 95520290,
    2623783208098404, 1900908618382410757, 137742672547, 2323440239468964,
    362478212387, 727199575803140, 73425410, 34337,
    163101314, 668566030659, 801204361987, 73030562,
    591509145619, 162574594, 100608342969108, 5553,
    724147968595, 1436604830452292, 176259090, 42001,
    143955266, 2385, 18433, 0,
];

/// An isosurface in grid units: vertices (x, y, z per vertex) and triangles (3 indices each).
pub struct IsoMesh {
    pub vert: Vec<f32>,
    pub face: Vec<u32>,
}

/// Meshes the zero level of `field` (`nx`·`ny`·`nz` samples, point (i, j, k) at
/// `(k·ny + j)·nx + i`; negative is inside). A vertex is made once per crossed grid edge, at
/// the linear interpolation of the two samples, when a cube first touches that edge.
pub fn marching_cubes(field: &[f32], nx: usize, ny: usize, nz: usize) -> IsoMesh {
    let mut out = IsoMesh {
        vert: Vec::new(),
        face: Vec::new(),
    };
    if nx < 2 || ny < 2 || nz < 2 || field.len() < nx * ny * nz {
        return out;
    }
    let at = |i: usize, j: usize, k: usize| field[(k * ny + j) * nx + i];
    // vertex ids of the x/y/z edges leaving each grid point of two z-slabs (entries are
    // overwritten, never cleared: a cube only reads the edges its case crosses)
    let mut slab = vec![[0u32; 3]; nx * ny * 2];
    let sid = |i: usize, j: usize, k: usize| nx * ny * (k % 2) + j * nx + i;
    let edge = |out: &mut IsoMesh,
                slab: &mut Vec<[u32; 3]>,
                va: f32,
                vb: f32,
                axis: usize,
                i: usize,
                j: usize,
                k: usize| {
        if (va < 0.0) == (vb < 0.0) {
            return;
        }
        let mut v = [i as f32, j as f32, k as f32];
        v[axis] += va / (va - vb);
        slab[sid(i, j, k)][axis] = (out.vert.len() / 3) as u32;
        out.vert.extend_from_slice(&v);
    };
    for z in 0..nz - 1 {
        for y in 0..ny - 1 {
            for x in 0..nx - 1 {
                let vs = [
                    at(x, y, z),
                    at(x + 1, y, z),
                    at(x, y + 1, z),
                    at(x + 1, y + 1, z),
                    at(x, y, z + 1),
                    at(x + 1, y, z + 1),
                    at(x, y + 1, z + 1),
                    at(x + 1, y + 1, z + 1),
                ];
                let config = vs
                    .iter()
                    .enumerate()
                    .fold(0usize, |c, (b, &v)| c | (usize::from(v < 0.0) << b));
                if config == 0 || config == 255 {
                    continue;
                }
                let s = &mut slab;
                if y == 0 && z == 0 {
                    edge(&mut out, s, vs[0], vs[1], 0, x, y, z);
                }
                if z == 0 {
                    edge(&mut out, s, vs[2], vs[3], 0, x, y + 1, z);
                }
                if y == 0 {
                    edge(&mut out, s, vs[4], vs[5], 0, x, y, z + 1);
                }
                edge(&mut out, s, vs[6], vs[7], 0, x, y + 1, z + 1);
                if x == 0 && z == 0 {
                    edge(&mut out, s, vs[0], vs[2], 1, x, y, z);
                }
                if z == 0 {
                    edge(&mut out, s, vs[1], vs[3], 1, x + 1, y, z);
                }
                if x == 0 {
                    edge(&mut out, s, vs[4], vs[6], 1, x, y, z + 1);
                }
                edge(&mut out, s, vs[5], vs[7], 1, x + 1, y, z + 1);
                if x == 0 && y == 0 {
                    edge(&mut out, s, vs[0], vs[4], 2, x, y, z);
                }
                if y == 0 {
                    edge(&mut out, s, vs[1], vs[5], 2, x + 1, y, z);
                }
                if x == 0 {
                    edge(&mut out, s, vs[2], vs[6], 2, x, y + 1, z);
                }
                edge(&mut out, s, vs[3], vs[7], 2, x + 1, y + 1, z);
                let ids = [
                    slab[sid(x, y, z)][0],
                    slab[sid(x, y + 1, z)][0],
                    slab[sid(x, y, z + 1)][0],
                    slab[sid(x, y + 1, z + 1)][0],
                    slab[sid(x, y, z)][1],
                    slab[sid(x + 1, y, z)][1],
                    slab[sid(x, y, z + 1)][1],
                    slab[sid(x + 1, y, z + 1)][1],
                    slab[sid(x, y, z)][2],
                    slab[sid(x + 1, y, z)][2],
                    slab[sid(x, y + 1, z)][2],
                    slab[sid(x + 1, y + 1, z)][2],
                ];
                let code = TRIS[config];
                let n = 3 * (code & 0xF) as usize;
                for c in 0..n {
                    let e = ((code >> (4 + 4 * c)) & 0xF) as usize;
                    out.face.push(ids[e]);
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sphere_is_closed_and_consistently_oriented() {
        let n = 12;
        let mut field = vec![0f32; n * n * n];
        for k in 0..n {
            for j in 0..n {
                for i in 0..n {
                    let p = [i as f64 - 5.5, j as f64 - 5.5, k as f64 - 5.5];
                    let r = (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt();
                    field[(k * n + j) * n + i] = (r - 4.0) as f32;
                }
            }
        }
        let m = marching_cubes(&field, n, n, n);
        assert!(m.vert.len() > 30 && m.face.len() % 3 == 0);
        // closed, consistently oriented surface: every directed edge appears once and its
        // reverse once
        let mut edges = std::collections::HashMap::new();
        for t in m.face.chunks(3) {
            for e in 0..3 {
                *edges.entry((t[e], t[(e + 1) % 3])).or_insert(0) += 1;
            }
        }
        for (&(a, b), &c) in &edges {
            assert_eq!(c, 1);
            assert_eq!(edges.get(&(b, a)), Some(&1));
        }
        assert!(marching_cubes(&field, 1, n, n).vert.is_empty());
    }
}
