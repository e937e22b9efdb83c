//! What the debugging examples share.

/// Loads MODEL.xml, with `ELASTIC3D=FLEX=V` from the environment set on that flex first
/// (Stable Neo-Hookean, which MJCF cannot express; as `trace.py --elastic3d`).
pub fn load(path: &str) -> flexlab::Result<flexlab::Model> {
    let set = std::env::var("ELASTIC3D").unwrap_or_default();
    let elastic3d: Vec<(&str, i32)> = set
        .split_once('=')
        .map(|(f, v)| (f, v.parse().expect("ELASTIC3D=FLEX=VALUE")))
        .into_iter()
        .collect();
    flexlab::load_file_elastic3d(std::path::Path::new(path), &elastic3d)
}
