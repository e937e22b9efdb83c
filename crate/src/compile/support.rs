//! Which models the engine can step: a model whose contacts would need a collision function
//! flexlab lacks is refused before stepping, so the step never skips or fakes such a pair.
//! Here rather than in the engine: it runs once per load, at the compiler's size-first
//! optimisation.

use crate::engine::collision::{bitmask_reject, filter_body_pair, geom, geom_torus};
use crate::model::{disable, Model};

/// Why flexlab refuses the contacts of mesh geom `g` with geom `g2`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum MeshRefusal {
    /// A plane against a hull with polygons of more than four vertices.
    PlaneBigPolygon,
    /// A shape flexlab has no mesh collision for (hfield, sdf).
    Shape,
}

/// Whether flexlab collides mesh geom `g` with geom `g2` as MuJoCo 3.15.0 does (`None`), or
/// why not. It does against spheres and ellipsoids (one native-CCD contact), capsules,
/// cylinders, boxes and meshes (native CCD, then without a margin the touching features'
/// clipped polygons, see `multicontact`, and with one MuJoCo's perturbed queries, see
/// `perturb`), and planes when every polygon of the mesh's hull has at most four vertices.
fn mesh_pair_refusal(m: &Model, g: usize, g2: usize) -> Option<MeshRefusal> {
    match m.geom_type[g2] {
        geom::SPHERE
        | geom::ELLIPSOID
        | geom::CAPSULE
        | geom::CYLINDER
        | geom::BOX
        | geom::MESH => None,
        geom::PLANE => (max_polygon(m, g) > 4).then_some(MeshRefusal::PlaneBigPolygon),
        _ => Some(MeshRefusal::Shape),
    }
}

/// Most vertices of one polygon of mesh geom `g`'s hull.
fn max_polygon(m: &Model, g: usize) -> usize {
    let Ok(id) = usize::try_from(m.geom_dataid[g]) else {
        return 0;
    };
    let (pa, pn) = (m.mesh_polyadr[id] as usize, m.mesh_polynum[id] as usize);
    m.mesh_polyvertnum[pa..pa + pn]
        .iter()
        .map(|&n| n as usize)
        .max()
        .unwrap_or(0)
}

/// Refuses a model whose contacts would need a collision function flexlab lacks: a mesh geom
/// against an hfield or sdf geom, or against a plane when its hull has a polygon of more than
/// four vertices (whose contact choice flexlab does not reproduce), and sdf geoms against a
/// mesh (`mjc_MeshSDF`) or without a field.
/// Checked once before stepping, so the step never skips or fakes such a pair.
pub fn check_supported(m: &Model) -> crate::Result<()> {
    if m.opt.disabled(disable::CONSTRAINT) || m.opt.disabled(disable::CONTACT) {
        return Ok(());
    }
    for g in 0..m.ngeom {
        let is_sdf = m.geom_type[g] == geom::SDF;
        let what = match m.geom_type[g] {
            geom::SDF if geom_torus(m, g).is_none() => "sdf",
            geom::SDF => "mesh and sdf",
            geom::MESH => "mesh",
            _ => continue,
        };
        let (t, a) = (m.geom_contype[g], m.geom_conaffinity[g]);
        let b = m.geom_bodyid[g] as usize;
        // a field collides with flexes (mjc_FlexSDF) and with primitives and fields
        // (mjc_SDF); a mesh with flexes through the native CCD
        let with_flex = is_sdf
            && geom_torus(m, g).is_none()
            && (0..m.nflex)
                .any(|f| !bitmask_reject(t, a, m.flex_contype[f], m.flex_conaffinity[f]));
        let with_geom = (0..m.ngeom).find(|&g2| {
            let t2 = m.geom_type[g2];
            if is_sdf && geom_torus(m, g).is_some() && t2 != geom::MESH {
                return false;
            }
            if !is_sdf && mesh_pair_refusal(m, g, g2).is_none() {
                return false;
            }
            let b2 = m.geom_bodyid[g2] as usize;
            let sig = ((b.min(b2) as i32) << 16) + b.max(b2) as i32;
            b2 != b
                && !bitmask_reject(t, a, m.geom_contype[g2], m.geom_conaffinity[g2])
                && !filter_body_pair(m, b.min(b2), b.max(b2))
                && !m.exclude_signature.contains(&sig)
        });
        if with_flex || with_geom.is_some() {
            let label = |g: usize| geom_label(m, g);
            let id = label(g);
            let refusal = with_geom
                .filter(|_| !is_sdf)
                .and_then(|g2| Some((g2, mesh_pair_refusal(m, g, g2)?)));
            let msg = match refusal {
                Some((g2, MeshRefusal::PlaneBigPolygon)) => format!(
                    "collision of a plane with a mesh whose hull has polygons of more than 4 \
                     vertices is not supported by flexlab yet ({id} has {}-vertex polygons and \
                     can touch {}; set contype and conaffinity to 0 on one of them to step it)",
                    max_polygon(m, g),
                    label(g2)
                ),
                Some((g2, MeshRefusal::Shape)) => format!(
                    "collision of mesh geoms with {} geoms is not supported by flexlab yet \
                     ({id} can touch {}; set contype and conaffinity to 0 on one of them to \
                     step it)",
                    type_name(m.geom_type[g2]),
                    label(g2)
                ),
                _ => format!(
                    "collision with {what} geoms is not supported by flexlab yet ({id} can \
                     touch other geoms or flexes; set its contype and conaffinity to 0 to step \
                     it)"
                ),
            };
            return Err(crate::Error::unsupported(msg));
        }
    }
    for p in 0..m.npair {
        let (g1, g2) = (m.pair_geom1[p] as usize, m.pair_geom2[p] as usize);
        if let Some(what) = explicit_pair_refusal(m, g1, g2) {
            let label = |g: usize| geom_label(m, g);
            return Err(crate::Error::unsupported(format!(
                "{what} is not supported by flexlab yet (the contact pair of {} and {}; remove \
                 the pair to step it)",
                label(g1),
                label(g2)
            )));
        }
    }
    Ok(())
}

/// Why flexlab cannot collide the geoms of an explicit pair as MuJoCo 3.15.0 does, if it
/// cannot: the refusals above, for a pair that names its geoms whatever their bitmasks.
fn explicit_pair_refusal(m: &Model, g1: usize, g2: usize) -> Option<String> {
    for (g, other) in [(g1, g2), (g2, g1)] {
        match m.geom_type[g] {
            geom::SDF if geom_torus(m, g).is_none() => {
                return Some("collision with sdf geoms without a field".into())
            }
            geom::SDF if m.geom_type[other] == geom::MESH => {
                return Some("collision of mesh geoms with sdf geoms".into())
            }
            geom::MESH => match mesh_pair_refusal(m, g, other) {
                Some(MeshRefusal::PlaneBigPolygon) => {
                    return Some(format!(
                        "collision of a plane with a mesh whose hull has polygons of more than 4 \
                         vertices ({}-vertex polygons)",
                        max_polygon(m, g)
                    ))
                }
                Some(MeshRefusal::Shape) => {
                    return Some(format!(
                        "collision of mesh geoms with {} geoms",
                        type_name(m.geom_type[other])
                    ))
                }
                _ => {}
            },
            _ => {}
        }
    }
    None
}

/// How a refusal names geom `g`: by its name, else by its id.
fn geom_label(m: &Model, g: usize) -> String {
    let name = m.names_geom.get(g).filter(|n| !n.is_empty());
    name.map_or(format!("geom {g}"), |n| format!("geom '{n}'"))
}

/// MJCF name of a geom type.
fn type_name(t: i32) -> &'static str {
    [
        "plane",
        "hfield",
        "sphere",
        "capsule",
        "ellipsoid",
        "cylinder",
        "box",
        "mesh",
        "sdf",
    ]
    .get(t as usize)
    .copied()
    .unwrap_or("unknown")
}
