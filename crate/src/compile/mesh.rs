//! Mesh data: an OBJ reader that keeps MuJoCo's conventions (vertices read as 32-bit floats,
//! polygons split into triangles by tinyobjloader's ear clipping, line elements stored as
//! degenerate triangles); flexcomps also merge repeated vertices, mesh assets do not.

/// Parses OBJ text into (vertices as f64 of the f32 values, triangle indices, texcoords).
/// Vertices (f64 of the f32 values), triangle indices and texture coordinates.
pub type MeshData = (Vec<f64>, Vec<i32>, Vec<f32>);

/// Reads an OBJ file and merges repeated vertices in first-occurrence order (as flexcomp
/// meshes are read).
pub fn load_obj(bytes: &[u8]) -> Result<MeshData, String> {
    let (verts, faces, tex) = parse_obj(bytes)?;
    Ok(merge_repeated(&verts, faces, tex))
}

/// Reads a binary STL file and merges repeated vertices as flexcomp meshes are read.
pub fn load_stl(bytes: &[u8], name: &str) -> Result<MeshData, String> {
    let (verts, faces, tex) = parse_stl(bytes, name)?;
    Ok(merge_repeated(&verts, faces, tex))
}

/// Reads an OBJ file as written (as mesh assets are read: repeated vertices stay).
pub fn parse_obj(bytes: &[u8]) -> Result<MeshData, String> {
    let text = std::str::from_utf8(bytes).map_err(|_| "OBJ file is not UTF-8 text".to_string())?;
    let mut verts: Vec<f32> = Vec::new();
    let mut faces: Vec<i32> = Vec::new();
    let mut tex: Vec<f32> = Vec::new();
    let resolve = |tok: &str, n: usize, line: usize| -> Result<i32, String> {
        let idx_text = tok.split('/').next().unwrap_or("");
        let i: i64 = idx_text
            .parse()
            .map_err(|_| format!("OBJ line {line}: bad index '{tok}'"))?;
        let r = if i > 0 { i - 1 } else { n as i64 + i };
        if r < 0 || r >= n as i64 {
            return Err(format!("OBJ line {line}: index {i} out of range"));
        }
        Ok(r as i32)
    };
    for (ln, raw) in text.lines().enumerate() {
        let line = ln + 1;
        let mut it = raw.split_ascii_whitespace();
        match it.next() {
            Some("v") => {
                for _ in 0..3 {
                    let t = it
                        .next()
                        .ok_or(format!("OBJ line {line}: vertex needs 3 coordinates"))?;
                    // tinyobjloader, MuJoCo's OBJ reader, reads a double and casts it
                    let v = crate::decimal::parse_f64(t)
                        .ok_or_else(|| format!("OBJ line {line}: bad number '{t}'"))?
                        as f32;
                    if !v.is_finite() {
                        return Err(format!(
                            "vertex coordinate {} is not finite",
                            verts.len() / 3
                        ));
                    }
                    verts.push(v);
                }
            }
            Some("vt") => {
                for _ in 0..2 {
                    let t = it.next().unwrap_or("0");
                    tex.push(crate::decimal::parse_f64(t).unwrap_or(0.0) as f32);
                }
            }
            Some("f") => {
                let n = verts.len() / 3;
                let ids: Vec<i32> = it.map(|t| resolve(t, n, line)).collect::<Result<_, _>>()?;
                if ids.len() < 3 {
                    return Err(format!("OBJ line {line}: face needs at least 3 vertices"));
                }
                triangulate(&ids, &verts, &mut faces);
            }
            Some("l") => {
                let n = verts.len() / 3;
                let ids: Vec<i32> = it.map(|t| resolve(t, n, line)).collect::<Result<_, _>>()?;
                for w in ids.windows(2) {
                    faces.extend_from_slice(&[w[0], w[1], w[1]]);
                }
            }
            _ => {}
        }
        if verts.len() > 30_000_000 || faces.len() > 60_000_000 {
            return Err("OBJ file is too large".into());
        }
    }
    let v = verts.iter().map(|&x| x as f64).collect();
    Ok((v, faces, tex))
}

/// Merges vertices with identical coordinates, keeping first-occurrence order.
/// Reads a binary STL file as MuJoCo's STL decoder does: every triangle's three corners, a
/// corner repeated with the same 32-bit pattern merged into its first occurrence (so -0 and
/// +0 stay apart), no texture coordinates. The error texts are the decoder's; `name` is the
/// file as the messages name it.
pub fn parse_stl(bytes: &[u8], name: &str) -> Result<MeshData, String> {
    if bytes.is_empty() {
        return Err(format!("stl_decoder: STL file '{name}' is empty"));
    }
    if bytes.len() < 84 {
        return Err(format!("stl_decoder: invalid header in STL file '{name}'"));
    }
    let nfaces = i32::from_le_bytes([bytes[80], bytes[81], bytes[82], bytes[83]]);
    if !(1..=200_000).contains(&nfaces) {
        return Err(format!(
            "stl_decoder: number of faces should be between 1 and 200000 in STL file '{name}'; \
             perhaps this is an ASCII file?"
        ));
    }
    let nfaces = nfaces as usize;
    if nfaces * 50 != bytes.len() - 84 {
        return Err(format!(
            "stl_decoder: STL file '{name}' has wrong size; perhaps this is an ASCII file?"
        ));
    }
    let mut verts: Vec<f64> = Vec::new();
    let mut faces = vec![0i32; 3 * nfaces];
    // keyed as merge_repeated keys (one map type in the wasm), by the f32 bit patterns
    let mut seen: std::collections::HashMap<[u64; 3], i32> = std::collections::HashMap::new();
    for i in 0..nfaces {
        for j in 0..3 {
            let at = 84 + 50 * i + 12 * (j + 1);
            let v: [f32; 3] = std::array::from_fn(|k| {
                let b = &bytes[at + 4 * k..at + 4 * k + 4];
                f32::from_le_bytes([b[0], b[1], b[2], b[3]])
            });
            // NaN fails the comparison as in the decoder (which lets it through)
            if v.iter().any(|x| x.abs() > (1u32 << 30) as f32) {
                return Err(format!(
                    "stl_decoder: vertex in STL file '{name}' exceeds maximum bounds"
                ));
            }
            let next = (verts.len() / 3) as i32;
            let id = *seen.entry(v.map(|x| x.to_bits() as u64)).or_insert(next);
            if id == next {
                verts.extend(v.iter().map(|&x| x as f64));
            }
            faces[3 * i + j] = id;
        }
    }
    Ok((verts, faces, Vec::new()))
}

fn merge_repeated(verts: &[f64], mut faces: Vec<i32>, tex: Vec<f32>) -> MeshData {
    let nv = verts.len() / 3;
    let mut map: std::collections::HashMap<[u64; 3], i32> = std::collections::HashMap::new();
    let mut remap = vec![0i32; nv];
    let mut out: Vec<f64> = Vec::with_capacity(verts.len());
    for i in 0..nv {
        let key = [
            // +0.0 folds −0 into 0, which compare equal as MuJoCo's float keys do
            (verts[3 * i] + 0.0).to_bits(),
            (verts[3 * i + 1] + 0.0).to_bits(),
            (verts[3 * i + 2] + 0.0).to_bits(),
        ];
        let next = map.len() as i32;
        let id = *map.entry(key).or_insert(next);
        if id == next {
            out.extend_from_slice(&verts[3 * i..3 * i + 3]);
        }
        remap[i] = id;
    }
    for f in faces.iter_mut() {
        *f = remap[*f as usize];
    }
    (out, faces, tex)
}

/// tinyobjloader's triangulation of one polygon (its `exportGroupsToShape`, in f32 as it
/// runs; MuJoCo 3.15.0's OBJ faces agree with it): a quad along its shorter diagonal; a
/// larger polygon projected onto the two axes of the first corner's largest normal components, then clip
/// ears from a guessed vertex on, skipping reflex corners and ears holding another vertex. A
/// polygon it cannot finish keeps only the ears clipped so far, as tinyobjloader does.
fn triangulate(poly: &[i32], v: &[f32], out: &mut Vec<i32>) {
    let n = poly.len();
    let c = |i: i32, a: usize| v[3 * i as usize + a];
    if n == 3 {
        out.extend_from_slice(poly);
        return;
    }
    if n == 4 {
        // a quad is split along its shorter diagonal (the 0–2 one only when strictly shorter)
        let sq = |a: i32, b: i32| {
            let e = [c(b, 0) - c(a, 0), c(b, 1) - c(a, 1), c(b, 2) - c(a, 2)];
            e[0] * e[0] + e[1] * e[1] + e[2] * e[2]
        };
        let [a, b, cc, d] = [poly[0], poly[1], poly[2], poly[3]];
        if sq(a, cc) < sq(b, d) {
            out.extend_from_slice(&[a, b, cc, a, cc, d]);
        } else {
            out.extend_from_slice(&[a, b, d, b, cc, d]);
        }
        return;
    }
    let mut axes = [1usize, 2];
    for k in 0..n {
        let (i0, i1, i2) = (poly[k], poly[(k + 1) % n], poly[(k + 2) % n]);
        let e0 = [
            c(i1, 0) - c(i0, 0),
            c(i1, 1) - c(i0, 1),
            c(i1, 2) - c(i0, 2),
        ];
        let e1 = [
            c(i2, 0) - c(i1, 0),
            c(i2, 1) - c(i1, 1),
            c(i2, 2) - c(i1, 2),
        ];
        let cx = (e0[1] * e1[2] - e0[2] * e1[1]).abs();
        let cy = (e0[2] * e1[0] - e0[0] * e1[2]).abs();
        let cz = (e0[0] * e1[1] - e0[1] * e1[0]).abs();
        if cx > f32::EPSILON || cy > f32::EPSILON || cz > f32::EPSILON {
            if !(cx > cy && cx > cz) {
                axes[0] = 0;
                if cz > cx && cz > cy {
                    axes[1] = 1;
                }
            }
            break;
        }
    }
    let mut area = 0f32;
    for k in 0..n {
        let (i0, i1) = (poly[k], poly[(k + 1) % n]);
        area += (c(i0, axes[0]) * c(i1, axes[1]) - c(i0, axes[1]) * c(i1, axes[0])) * 0.5;
    }
    let mut rem: Vec<i32> = poly.to_vec();
    let mut guess = 0usize;
    let mut iterations = n;
    let mut previous = n;
    while rem.len() > 3 && iterations > 0 {
        let np = rem.len();
        if guess >= np {
            guess -= np;
        }
        if previous != np {
            previous = np;
            iterations = np;
        } else {
            iterations -= 1;
        }
        let ind = [
            rem[guess % np],
            rem[(guess + 1) % np],
            rem[(guess + 2) % np],
        ];
        let vx = ind.map(|i| c(i, axes[0]));
        let vy = ind.map(|i| c(i, axes[1]));
        let cross = (vx[1] - vx[0]) * (vy[2] - vy[1]) - (vy[1] - vy[0]) * (vx[2] - vx[1]);
        if cross * area < 0.0 {
            guess += 1;
            continue;
        }
        let overlap = (3..np).any(|o| {
            let i = rem[(guess + o) % np];
            point_in_triangle(&vx, &vy, c(i, axes[0]), c(i, axes[1]))
        });
        if overlap {
            guess += 1;
            continue;
        }
        out.extend_from_slice(&ind);
        rem.remove((guess + 1) % np);
    }
    if rem.len() == 3 {
        out.extend_from_slice(&rem);
    }
}

/// The crossing-number test tinyobjloader uses (`pnpoly`) for a triangle.
fn point_in_triangle(vx: &[f32; 3], vy: &[f32; 3], tx: f32, ty: f32) -> bool {
    let mut inside = false;
    let mut j = 2;
    for i in 0..3 {
        if (vy[i] > ty) != (vy[j] > ty)
            && tx < (vx[j] - vx[i]) * (ty - vy[i]) / (vy[j] - vy[i]) + vx[i]
        {
            inside = !inside;
        }
        j = i;
    }
    inside
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A binary STL of `tris` (three corners each), with `extra` bytes after it.
    fn stl(tris: &[[[f32; 3]; 3]], extra: &[u8]) -> Vec<u8> {
        let mut b = vec![b' '; 80];
        b.extend_from_slice(&(tris.len() as u32).to_le_bytes());
        for t in tris {
            b.extend_from_slice(&[0u8; 12]);
            for c in t {
                for x in c {
                    b.extend_from_slice(&x.to_le_bytes());
                }
            }
            b.extend_from_slice(&[0, 0]);
        }
        b.extend_from_slice(extra);
        b
    }

    #[test]
    fn stl_corners_merge_by_bit_pattern_in_first_occurrence_order() {
        let (o, x, y, z) = ([0.0; 3], [0.1, 0.0, 0.0], [0.0, 0.1, 0.0], [0.0, 0.0, 0.1]);
        let nz = [-0.0, 0.0, 0.0];
        let (v, f, t) = parse_stl(&stl(&[[o, y, x], [o, x, z], [nz, z, y]], &[]), "a.stl").unwrap();
        // MuJoCo's decoder keys corners by their float bits: -0 is a vertex of its own
        assert_eq!(f, [0, 1, 2, 0, 2, 3, 4, 3, 1]);
        assert_eq!(v.len(), 15);
        assert_eq!(v[12].to_bits(), (-0.0f64).to_bits());
        assert!(t.is_empty());
    }

    #[test]
    fn stl_errors_are_the_decoders() {
        let tri = [[[0.0f32; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]];
        let e = |b: &[u8]| parse_stl(b, "m.stl").unwrap_err();
        assert_eq!(e(&[]), "stl_decoder: STL file 'm.stl' is empty");
        assert_eq!(
            e(&[0; 40]),
            "stl_decoder: invalid header in STL file 'm.stl'"
        );
        assert!(e(b"solid m\nfacet normal 0 0 0\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nvertex 0 1 0\nendloop\nendfacet\nendsolid m\n")
            .contains("number of faces should be between 1 and 200000"));
        assert_eq!(
            e(&stl(&tri, b"x")),
            "stl_decoder: STL file 'm.stl' has wrong size; perhaps this is an ASCII file?"
        );
        let far = [[[2e9f32, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]];
        assert_eq!(
            e(&stl(&far, &[])),
            "stl_decoder: vertex in STL file 'm.stl' exceeds maximum bounds"
        );
    }

    #[test]
    fn polygons_split_as_tinyobjloader_does() {
        // a unit square whose 1–3 diagonal is the shorter one after a nudge of vertex 2
        let v = [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.1, 1.1, 0.0, 0.0, 1.0, 0.0];
        let mut out = Vec::new();
        triangulate(&[0, 1, 2, 3], &v, &mut out);
        assert_eq!(out, [0, 1, 3, 1, 2, 3]);
        // equal diagonals: the 0–2 split needs a strictly shorter diagonal
        let v = [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 0.0];
        out.clear();
        triangulate(&[0, 1, 2, 3], &v, &mut out);
        assert_eq!(out, [0, 1, 3, 1, 2, 3]);
        // a convex pentagon is clipped from its first vertex on
        let v = [
            0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 1.0, 0.5, 0.0, 1.6, 0.0, 0.0, 1.0,
        ];
        out.clear();
        triangulate(&[0, 1, 2, 3, 4], &v, &mut out);
        assert_eq!(out, [0, 1, 2, 0, 2, 3, 0, 3, 4]);
    }

    #[test]
    fn repeated_vertices_are_kept_or_merged() {
        let obj = b"v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 0\nf 4 2 3\n";
        let (v, f, _) = parse_obj(obj).unwrap();
        assert_eq!((v.len(), f), (12, vec![3, 1, 2]));
        let (v, f, _) = load_obj(obj).unwrap();
        assert_eq!((v.len(), f), (9, vec![0, 1, 2]));
    }
}
