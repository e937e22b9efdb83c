//! MuJoCo's convex-hull graph of a mesh (`mesh_graph`, made by `mjCMesh::MakeGraph`) and the
//! 27 extreme hull vertices the hill-climbing support function starts from (`mesh_extrema`).
//!
//! Layout, as MuJoCo's: `numvert, numface, vert_edgeadr[numvert], vert_globalid[numvert],
//! edge_localid[numvert + 3·numface], face_globalid[3·numface]`. Each hull vertex (a "local"
//! id) lists its neighbours on the hull (local ids) followed by -1. MuJoCo takes the vertex,
//! neighbour and face order from qhull's internal lists, which flexlab does not reproduce:
//! here hull vertices are in mesh order and neighbours in the order the hull's triangles
//! meet them. The graph holds the same vertices, edges and triangles; only the order differs,
//! which can change which of several equally far vertices a support query or a plane's
//! contact walk picks (see `engine::collision::meshsupport`).

/// The graph of a hull given as outward triangles over `nvert` mesh vertices.
pub fn hull_graph(nvert: usize, tris: &[i32]) -> Vec<i32> {
    let nface = tris.len() / 3;
    // each vertex's triangles, in triangle order (once per triangle)
    let mut vtris: Vec<Vec<usize>> = vec![Vec::new(); nvert];
    for (ti, t) in tris.chunks_exact(3).enumerate() {
        for &v in t {
            let list = &mut vtris[v as usize];
            if list.last() != Some(&ti) {
                list.push(ti);
            }
        }
    }
    let mut local = vec![-1i32; nvert];
    let mut globalid = Vec::new();
    for (g, l) in local.iter_mut().enumerate() {
        if !vtris[g].is_empty() {
            *l = globalid.len() as i32;
            globalid.push(g as i32);
        }
    }
    let numvert = globalid.len();
    let mut graph = Vec::with_capacity(2 + 3 * numvert + 6 * nface);
    graph.push(numvert as i32);
    graph.push(nface as i32);
    let mut edges: Vec<i32> = Vec::with_capacity(numvert + 3 * nface);
    let mut edgeadr = Vec::with_capacity(numvert);
    for &g in &globalid {
        edgeadr.push(edges.len() as i32);
        let start = edges.len();
        for &ti in &vtris[g as usize] {
            for &v in &tris[3 * ti..3 * ti + 3] {
                let l = local[v as usize];
                if v != g && !edges[start..].contains(&l) {
                    edges.push(l);
                }
            }
        }
        edges.push(-1);
    }
    graph.extend_from_slice(&edgeadr);
    graph.extend_from_slice(&globalid);
    graph.extend_from_slice(&edges);
    graph.extend_from_slice(tris);
    graph
}

/// For each of the 27 directions (cx, cy, cz) ∈ {-1, 0, 1}³ (cx slowest), the local id of the
/// first hull vertex farthest along it, in f32 as MuJoCo computes it (`mesh_extrema`).
pub fn extrema(graph: &[i32], vert: &[f32]) -> [i32; 27] {
    let mut out = [0i32; 27];
    if graph.is_empty() {
        return out;
    }
    let numvert = graph[0] as usize;
    let globalid = &graph[2 + numvert..2 + 2 * numvert];
    let mut best = [f32::MIN; 27];
    for (l, &g) in globalid.iter().enumerate() {
        let p = &vert[3 * g as usize..3 * g as usize + 3];
        let mut k = 0;
        for cx in -1..=1 {
            for cy in -1..=1 {
                for cz in -1..=1 {
                    let dot = p[0] * cx as f32 + p[1] * cy as f32 + p[2] * cz as f32;
                    if dot > best[k] {
                        best[k] = dot;
                        out[k] = l as i32;
                    }
                    k += 1;
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
    fn tetrahedron_graph_lists_every_other_vertex() {
        // vertex 4 is not on the hull
        let tris = [0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3];
        let g = hull_graph(5, &tris);
        assert_eq!(g.len(), 2 + 3 * 4 + 6 * 4);
        assert_eq!(&g[..2], &[4, 4]);
        assert_eq!(&g[6..10], &[0, 1, 2, 3]);
        let edges = &g[10..10 + 16];
        assert_eq!(&edges[..4], &[2, 1, 3, -1]);
        assert_eq!(&g[26..], &tris);
    }
}
