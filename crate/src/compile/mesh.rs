//! Mesh data: an OBJ reader that keeps MuJoCo's conventions (vertices read as 32-bit floats,
//! repeated vertices merged in first-occurrence order, polygons fanned into triangles, line
//! elements stored as degenerate triangles).

/// Parses OBJ text into (vertices as f64 of the f32 values, triangle indices, texcoords).
/// Vertices (f64 of the f32 values), triangle indices and texture coordinates.
pub type MeshData = (Vec<f64>, Vec<i32>, Vec<f32>);

pub fn load_obj(bytes: &[u8]) -> Result<MeshData, String> {
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
                    let v: f32 = t
                        .parse()
                        .map_err(|_| format!("OBJ line {line}: bad number '{t}'"))?;
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
                    tex.push(t.parse().unwrap_or(0.0));
                }
            }
            Some("f") => {
                let n = verts.len() / 3;
                let ids: Vec<i32> = it.map(|t| resolve(t, n, line)).collect::<Result<_, _>>()?;
                if ids.len() < 3 {
                    return Err(format!("OBJ line {line}: face needs at least 3 vertices"));
                }
                for k in 1..ids.len() - 1 {
                    faces.extend_from_slice(&[ids[0], ids[k], ids[k + 1]]);
                }
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
    // merge repeated vertices, keeping first-occurrence order
    let nv = verts.len() / 3;
    let mut map: std::collections::HashMap<[u32; 3], i32> = std::collections::HashMap::new();
    let mut remap = vec![0i32; nv];
    let mut out: Vec<f64> = Vec::with_capacity(verts.len());
    for i in 0..nv {
        let key = [
            verts[3 * i].to_bits(),
            verts[3 * i + 1].to_bits(),
            verts[3 * i + 2].to_bits(),
        ];
        let next = map.len() as i32;
        let id = *map.entry(key).or_insert(next);
        if id == next {
            out.extend_from_slice(&[
                verts[3 * i] as f64,
                verts[3 * i + 1] as f64,
                verts[3 * i + 2] as f64,
            ]);
        }
        remap[i] = id;
    }
    for f in faces.iter_mut() {
        *f = remap[*f as usize];
    }
    Ok((out, faces, tex))
}
