//! The elements outside `<worldbody>` that refer into a `<replicate>` (tendons, equalities,
//! actuators, sensors, contact excludes and pairs naming one of its bodies, joints, geoms or
//! sites by the name written inside it), copied once per copy as MuJoCo 3.15.0 copies them.
//!
//! MuJoCo reads a replicate's children once and attaches them `count` times (`mjs_attach` with
//! the copy's suffix), then deletes the original subtree; each attach copies the elements that
//! refer into the subtree, their names and the names they refer to inside it suffixed, and the
//! delete removes the originals. So, per kind of element, those that refer into it move to the
//! end of their list, grouped by copy, in their order within each copy (checked against MuJoCo
//! 3.15.0: `rep`, `rep2`, `rep3` of the `replicate_refs` models). Inner replicates attach
//! first, so an element naming an object of an inner replicate is copied by the inner one and
//! its copies again by the outer one. A copied tendon or actuator counts as inside for the
//! elements that name it (an actuator on a copied tendon, a sensor of a copied actuator).
//! References to objects outside stay as they are, but an equality naming one object inside and
//! one outside is dropped (MuJoCo 3.15.0 drops it).

use super::xml::Element;
use crate::spec::{EqType, Spec, Transmission};
use flexlab_core::model::obj;

/// The kinds of named objects a reference can name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Kind {
    Body,
    Joint,
    Geom,
    Site,
    Camera,
    Tendon,
    Actuator,
}

/// Named objects by kind. A list, not a hash set: a replicate holds a few names, and the
/// browser build carries no hash table of this key for it.
type Names = Vec<(Kind, String)>;

/// One `<replicate>` as MuJoCo reads it: the suffixes of its copies and the names defined in
/// it (carrying the suffixes of the replicates inside it).
struct Scope {
    suffixes: Vec<String>,
    names: Names,
}

/// The suffix of copy `i` of `count`: `sep`, then `i` zero-padded to the digits of `count − 1`.
pub fn copy_suffix(sep: &str, count: usize, i: usize) -> String {
    let width = (count.max(2) - 1).to_string().len();
    format!("{sep}{i:0width$}")
}

/// Copies, in `spec`, the elements that refer into the replicates of `worldbody`, innermost
/// and first replicate first, as MuJoCo's reader attaches them; returns whether there was one.
pub fn expand(worldbody: &Element, spec: &mut Spec) -> bool {
    let mut scopes = Vec::new();
    collect(worldbody, &mut scopes);
    for scope in &scopes {
        apply(scope, spec);
    }
    !scopes.is_empty()
}

/// Appends the scopes of the replicates under `e` in the order MuJoCo finishes reading them
/// (each after those inside it); returns the names defined under `e`, as MuJoCo sees them once
/// the replicates under it are attached.
fn collect(e: &Element, scopes: &mut Vec<Scope>) -> Names {
    let mut names = Names::new();
    for c in &e.children {
        let kind = match c.name.as_str() {
            "body" => Some(Kind::Body),
            "joint" | "freejoint" => Some(Kind::Joint),
            "geom" => Some(Kind::Geom),
            "site" => Some(Kind::Site),
            "camera" => Some(Kind::Camera),
            _ => None,
        };
        if let (Some(kind), Some(name)) = (kind, c.attr("name").filter(|n| !n.is_empty())) {
            names.push((kind, name.to_string()));
        }
        match c.name.as_str() {
            "body" | "frame" => names.extend(collect(c, scopes)),
            "replicate" => {
                let inner = collect(c, scopes);
                let count = c.int("count").ok().flatten().unwrap_or(1).max(1) as usize;
                let sep = c.string("sep").unwrap_or_default();
                let suffixes: Vec<String> =
                    (0..count).map(|i| copy_suffix(&sep, count, i)).collect();
                for s in &suffixes {
                    names.extend(inner.iter().map(|(k, n)| (*k, format!("{n}{s}"))));
                }
                scopes.push(Scope {
                    suffixes,
                    names: inner,
                });
            }
            _ => {}
        }
    }
    names
}

/// Whether `inside` holds the object `name` of `kind`.
fn has(inside: &Names, kind: Kind, name: &str) -> bool {
    inside.iter().any(|(k, n)| *k == kind && n == name)
}

/// One attach of every copy of `scope`, then the delete of the original subtree.
fn apply(scope: &Scope, spec: &mut Spec) {
    let mut inside = scope.names.clone();
    let rename = |inside: &Names, kind: Kind, name: &mut String, s: &str| {
        if has(inside, kind, name) {
            name.push_str(s);
        }
    };
    // tendons first: actuators and sensors may name a copied one
    let refers = |inside: &Names, t: &crate::spec::TendonSpec| {
        t.joints.iter().any(|(j, _)| has(inside, Kind::Joint, j))
    };
    let moved = copy_per_suffix(&mut spec.tendons, scope, &inside, refers, |t, s, inside| {
        for (j, _) in &mut t.joints {
            rename(inside, Kind::Joint, j, s);
        }
    });
    inside.extend(moved.into_iter().map(|n| (Kind::Tendon, n)));

    let eq_kinds = |e: &crate::spec::EqualitySpec| match e.eqtype {
        EqType::Connect | EqType::Weld if e.sites => Some(Kind::Site),
        EqType::Connect | EqType::Weld => Some(Kind::Body),
        EqType::Joint => Some(Kind::Joint),
        EqType::Tendon => Some(Kind::Tendon),
        _ => None,
    };
    let named = |inside: &Names, k: Kind, n: &str| !n.is_empty() && has(inside, k, n);
    // an equality naming one object inside and one outside is dropped, not copied
    spec.equalities.retain(|e| {
        let Some(k) = eq_kinds(e) else { return true };
        let (a, b) = (named(&inside, k, &e.name1), named(&inside, k, &e.name2));
        let outside = |n: &str, inn: bool| !n.is_empty() && !inn;
        !((a || b) && (outside(&e.name1, a) || outside(&e.name2, b)))
    });
    copy_per_suffix(
        &mut spec.equalities,
        scope,
        &inside,
        |inside, e| {
            eq_kinds(e).is_some_and(|k| named(inside, k, &e.name1) || named(inside, k, &e.name2))
        },
        |e, s, inside| {
            if let Some(k) = eq_kinds(e) {
                rename(inside, k, &mut e.name1, s);
                rename(inside, k, &mut e.name2, s);
            }
        },
    );

    let target = |a: &crate::spec::ActuatorSpec| match &a.target {
        Transmission::Joint(n) => Some((Kind::Joint, n.clone())),
        Transmission::Tendon(n) => Some((Kind::Tendon, n.clone())),
        Transmission::Site(n) => Some((Kind::Site, n.clone())),
        Transmission::None => None,
    };
    let moved = copy_per_suffix(
        &mut spec.actuators,
        scope,
        &inside,
        |inside, a| target(a).is_some_and(|(k, n)| has(inside, k, &n)),
        |a, s, inside| match &mut a.target {
            Transmission::Joint(n) => rename(inside, Kind::Joint, n, s),
            Transmission::Tendon(n) => rename(inside, Kind::Tendon, n, s),
            Transmission::Site(n) => rename(inside, Kind::Site, n, s),
            Transmission::None => {}
        },
    );
    inside.extend(moved.into_iter().map(|n| (Kind::Actuator, n)));

    let obj_kind = |t: i32| match t {
        obj::BODY | obj::XBODY => Some(Kind::Body),
        obj::JOINT => Some(Kind::Joint),
        obj::GEOM => Some(Kind::Geom),
        obj::SITE => Some(Kind::Site),
        obj::CAMERA => Some(Kind::Camera),
        obj::TENDON => Some(Kind::Tendon),
        obj::ACTUATOR => Some(Kind::Actuator),
        _ => None,
    };
    copy_per_suffix(
        &mut spec.sensors,
        scope,
        &inside,
        |inside, x| {
            obj_kind(x.objtype).is_some_and(|k| named(inside, k, &x.objname))
                || obj_kind(x.reftype).is_some_and(|k| named(inside, k, &x.refname))
        },
        |x, s, inside| {
            if let Some(k) = obj_kind(x.objtype) {
                rename(inside, k, &mut x.objname, s);
            }
            if let Some(k) = obj_kind(x.reftype) {
                rename(inside, k, &mut x.refname, s);
            }
        },
    );

    copy_per_suffix(
        &mut spec.excludes,
        scope,
        &inside,
        |inside, x| named(inside, Kind::Body, &x.body1) || named(inside, Kind::Body, &x.body2),
        |x, s, inside| {
            rename(inside, Kind::Body, &mut x.body1, s);
            rename(inside, Kind::Body, &mut x.body2, s);
        },
    );
    copy_per_suffix(
        &mut spec.pairs,
        scope,
        &inside,
        |inside, x| named(inside, Kind::Geom, &x.geom1) || named(inside, Kind::Geom, &x.geom2),
        |x, s, inside| {
            rename(inside, Kind::Geom, &mut x.geom1, s);
            rename(inside, Kind::Geom, &mut x.geom2, s);
        },
    );
}

/// Elements with a `name` that a copy suffixes.
trait Named {
    fn name_mut(&mut self) -> Option<&mut String>;
}

macro_rules! named {
    ($($t:ty),*) => {$(
        impl Named for $t {
            fn name_mut(&mut self) -> Option<&mut String> {
                Some(&mut self.name)
            }
        }
    )*};
}
named!(
    crate::spec::TendonSpec,
    crate::spec::EqualitySpec,
    crate::spec::ActuatorSpec,
    crate::spec::SensorSpec,
    crate::spec::PairSpec
);
impl Named for crate::spec::ExcludeSpec {
    fn name_mut(&mut self) -> Option<&mut String> {
        None
    }
}

/// Moves the elements of `list` that `refers` into the scope to its end, one group per copy,
/// each copy's names and inside references suffixed by `retarget`; returns the names the moved
/// elements had (elements read after them may name them: those names are inside too).
fn copy_per_suffix<T: Clone + Named>(
    list: &mut Vec<T>,
    scope: &Scope,
    inside: &Names,
    refers: impl Fn(&Names, &T) -> bool,
    retarget: impl Fn(&mut T, &str, &Names),
) -> Vec<String> {
    let (moved, kept): (Vec<T>, Vec<T>) = list.drain(..).partition(|x| refers(inside, x));
    *list = kept;
    for s in &scope.suffixes {
        for x in &moved {
            let mut c = x.clone();
            retarget(&mut c, s, inside);
            if let Some(n) = c.name_mut().filter(|n| !n.is_empty()) {
                n.push_str(s);
            }
            list.push(c);
        }
    }
    let mut names = Vec::new();
    for mut x in moved {
        if let Some(n) = x.name_mut().filter(|n| !n.is_empty()) {
            names.push(std::mem::take(n));
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use crate::mjcf::{parse, MemSource};

    /// Names and order as MuJoCo 3.15.0 compiles `crate/tests/models/replicate_refs.xml`
    /// (`mujoco.MjModel.from_xml_path(...)`, `m.actuator(i).name` etc.); the compile dump and
    /// the reference trace of the same model check the ids the references resolve to.
    #[test]
    fn copies_are_named_and_ordered_as_mujoco() {
        let xml = include_str!("../../tests/models/replicate_refs.xml");
        let spec = parse(xml, None, &MemSource::default()).unwrap();
        let names = |v: Vec<&String>| v.into_iter().cloned().collect::<Vec<_>>();
        assert_eq!(
            names(spec.actuators.iter().map(|a| &a.name).collect()),
            ["out", "mj_0", "pt_0", "mk0_0", "mk1_0", "mj_1", "pt_1", "mk0_1", "mk1_1"]
        );
        assert_eq!(
            names(spec.sensors.iter().map(|s| &s.name).collect()),
            [
                "sout", "fmix_0", "af_0", "tp_0", "sc_0", "sk0_0", "sk1_0", "fmix_1", "af_1",
                "tp_1", "sc_1", "sk0_1", "sk1_1"
            ]
        );
        assert_eq!(
            names(spec.equalities.iter().map(|e| &e.name).collect()),
            ["ek0_0", "ek1_0", "ek0_1", "ek1_1"]
        );
        assert_eq!(
            names(spec.tendons.iter().map(|t| &t.name).collect()),
            ["t_0", "t_1"]
        );
        // a tendon keeps its joint outside; the pair and exclude their objects outside
        assert_eq!(spec.tendons[1].joints[0].0, "j_1");
        assert_eq!(spec.tendons[1].joints[1].0, "jb");
        assert_eq!(
            (spec.pairs[1].geom1.as_str(), spec.pairs[1].geom2.as_str()),
            ("g_1", "gb")
        );
        assert_eq!(spec.excludes[0].body1, "b_0");
        assert_eq!(spec.excludes[0].body2, "base");
    }
}
