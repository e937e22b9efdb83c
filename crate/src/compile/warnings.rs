//! Compile-time warnings: a model that compiles, but that MuJoCo 3.15.0 warns about when it
//! compiles it, that would crash MuJoCo 3.15.0 when it steps, or where MuJoCo 3.15.0 silently
//! ignores what the file asks for. flexlab prints them where
//! MuJoCo prints its own (the CLI's stderr), the page shows them beside the scene, and
//! `flexlab lessons check` lists them without failing.

use crate::error::Error;
use crate::model::Model;
use crate::spec::Spec;

/// Every warning of a compiled model: MuJoCo's own ([`mujoco_warnings`]), then flexlab's
/// notes on what crashes MuJoCo 3.15.0 ([`crash_warnings`]) and on what it ignores
/// ([`ignored_warnings`]).
pub fn warnings(spec: &Spec, m: &Model) -> Vec<Error> {
    let mut out = mujoco_warnings(spec, m);
    out.extend(crash_warnings(spec, m));
    out.extend(ignored_warnings(spec, m));
    out
}

/// The warnings MuJoCo 3.15.0 gives when it compiles this model, in its order and words (the
/// location in flexlab's form).
pub fn mujoco_warnings(spec: &Spec, m: &Model) -> Vec<Error> {
    let mut out = Vec::new();
    // mjCFlex::Compile, before the objects are copied: the flag stays set and does nothing
    for f in 0..m.nflex {
        if m.flex_passive[f] != 0
            && (m.flex_rigid[f] != 0 || m.flex_interp[f] != 0 || m.flex_dim[f] == 1)
        {
            out.push(at_flex(
                spec,
                m,
                f,
                format!(
                    "flex '{}' has passive contact, which is not supported for rigid, \
                     interpolated or 1D flexes: attribute ignored",
                    m.names_flex[f]
                ),
            ));
        }
    }
    for f in 0..m.nflex {
        // mjCModel::CopyObjects: MuJoCo's test reads the flex's own fields and the bending
        // coefficients, not its elasticity, so a stretch-only shell or a volume with `young`
        // and no damping is warned about too
        if m.flex_rigid[f] == 0
            && m.flex_edgeequality[f] == 0
            && m.flex_edgestiffness[f] == 0.0
            && m.flex_edgedamping[f] == 0.0
            && m.flex_damping[f] == 0.0
            && m.flex_bendingadr[f] < 0
        {
            out.push(at_flex(
                spec,
                m,
                f,
                format!(
                    "flex '{}' is not rigid and has no equality constraints or passive forces",
                    m.names_flex[f]
                ),
            ));
        }
    }
    out
}

/// What flexlab runs but MuJoCo 3.15.0 crashes on (found by the differential sweeps).
pub fn crash_warnings(spec: &Spec, m: &Model) -> Vec<Error> {
    let mut out = Vec::new();
    for f in 0..m.nflex {
        if m.flex_passive[f] == 0 || m.flex_rigid[f] != 0 {
            continue;
        }
        if let Some(why) = passive_condim_above_3(m, f) {
            out.push(at_flex(
                spec,
                m,
                f,
                format!(
                    "flex '{}' has passive contacts with condim above 3 ({why}): MuJoCo 3.15.0 \
                     crashes (segmentation fault) when one of its elements touches a static geom \
                     or another flex with them; flexlab applies the passive normal penalty",
                    m.names_flex[f]
                ),
            ));
        }
    }
    out
}

/// What the file asks for and MuJoCo 3.15.0 (and so flexlab) silently does not do.
pub fn ignored_warnings(spec: &Spec, m: &Model) -> Vec<Error> {
    let mut out = Vec::new();
    for (f, flex) in spec.flexes.iter().enumerate().take(m.nflex) {
        // a frame whose pose cannot be resolved failed the compile already
        let Ok(Some((pos, quat))) =
            super::frame_pose(&spec.frames, &spec.compiler, flex.ignored_frame)
        else {
            continue;
        };
        if pos != [0.0; 3] || quat != [1.0, 0.0, 0.0, 0.0] {
            out.push(at_flex(
                spec,
                m,
                f,
                format!(
                    "flexcomp '{}' is inside a <frame> that moves it: MuJoCo 3.15.0 builds a \
                     flexcomp in its body and ignores the frame's pose, and so does flexlab; \
                     give the flexcomp its own pos and orientation instead",
                    m.names_flex[f]
                ),
            ));
        }
    }
    out
}

/// A warning located at flex `f`'s element.
fn at_flex(spec: &Spec, m: &Model, f: usize, msg: String) -> Error {
    let e = Error::warning(msg)
        .at_element("flex")
        .at_object(&m.names_flex[f]);
    match spec.flexes.get(f).map_or(0, |s| s.line) {
        0 => e,
        line => e.at_line(line),
    }
}

/// Why contacts of passive flex `f` may have condim above 3: its own condim, or that of a
/// static geom or another flex it can collide with (a contact takes the larger condim, or the
/// one of higher priority).
fn passive_condim_above_3(m: &Model, f: usize) -> Option<String> {
    if m.flex_condim[f] > 3 {
        return Some(format!("its condim {}", m.flex_condim[f]));
    }
    let pairs =
        |ty: i32, af: i32| (m.flex_contype[f] & af) != 0 || (ty & m.flex_conaffinity[f]) != 0;
    for g in 0..m.ngeom {
        let body = m.geom_bodyid[g] as usize;
        if m.geom_condim[g] > 3
            && m.body_weldid[body] == 0
            && m.geom_priority[g] >= m.flex_priority[f]
            && pairs(m.geom_contype[g], m.geom_conaffinity[g])
        {
            return Some(geom_label(m, g));
        }
    }
    for o in 0..m.nflex {
        if o != f
            && m.flex_condim[o] > 3
            && m.flex_priority[o] >= m.flex_priority[f]
            && pairs(m.flex_contype[o], m.flex_conaffinity[o])
        {
            return Some(format!("flex '{}'", m.names_flex[o]));
        }
    }
    None
}

fn geom_label(m: &Model, g: usize) -> String {
    match m.names_geom[g].as_str() {
        "" => format!("geom {g}"),
        n => format!("geom '{n}'"),
    }
}

#[cfg(test)]
mod tests {
    use crate::mjcf::MemSource;

    fn warnings(xml: &str) -> Vec<String> {
        let spec = crate::mjcf::parse(xml, None, &MemSource::default()).unwrap();
        let m = crate::compile::compile(&spec).unwrap();
        super::warnings(&spec, &m)
            .iter()
            .map(|e| e.to_string())
            .collect()
    }

    fn cloth(inner: &str, option: &str) -> String {
        format!(
            r#"<mujoco><option {option}/><worldbody><geom name="floor" type="plane" size="1 1 .1"/>
            <flexcomp name="c" type="grid" dim="2" count="3 3 1" spacing=".05 .05 .05"
             pos="0 0 .3" radius=".005" mass=".1">{inner}</flexcomp></worldbody></mujoco>"#
        )
    }

    // the cases and texts are MuJoCo 3.15.0's (mujoco.MjModel.from_xml_path, its stderr)
    #[test]
    fn a_flex_without_passive_forces_is_warned_about_as_mujoco_does() {
        let w = warnings(&cloth("", ""));
        assert_eq!(
            w,
            ["WARNING: flex 'c' is not rigid and has no equality constraints or passive forces\n\
              Element 'flex', name 'c', line 2"]
        );
        // MuJoCo's test ignores young: stretch-only elasticity is warned about, bending is not
        let stretch = r#"<elasticity young="1e4" thickness="1e-3" elastic2d="stretch"/>"#;
        assert_eq!(warnings(&cloth(stretch, "")).len(), 1);
        for quiet in [
            r#"<elasticity young="1e4" thickness="1e-3" elastic2d="bend"/>"#,
            r#"<elasticity young="1e4" damping="0.01"/>"#,
            r#"<edge equality="true"/>"#,
            r#"<edge damping="0.1"/>"#,
        ] {
            assert!(warnings(&cloth(quiet, "")).is_empty(), "{quiet}");
        }
    }

    #[test]
    fn passive_contacts_above_condim_3_are_flagged() {
        let damped = r#"<edge damping="0.1"/>"#;
        let passive = |c: &str| format!(r#"{damped}<contact passive="true"{c}/>"#);
        let disc = r#"integrator="discrete""#;
        assert!(warnings(&cloth(&passive(""), disc)).is_empty());
        let w = warnings(&cloth(&passive(r#" condim="4""#), disc));
        assert_eq!(w.len(), 1);
        assert!(w[0].contains("its condim 4"), "{}", w[0]);
        // the floor's condim wins over the cloth's 3
        let xml = cloth(&passive(""), disc).replace(
            r#"name="floor""#,
            r#"name="floor" condim="6" friction="1 .01 .001""#,
        );
        assert!(warnings(&xml)[0].contains("geom 'floor'"));
        // unless the cloth has the higher priority
        let xml = xml.replace(r#"passive="true""#, r#"passive="true" priority="1""#);
        assert!(warnings(&xml).is_empty());
    }

    // MuJoCo 3.15.0 places a flexcomp in a turned frame exactly as without the frame
    // (`crate/tests/models/frame_flexcomp.xml` holds its compiled model)
    #[test]
    fn a_flexcomp_in_a_frame_that_would_move_it_is_flagged() {
        let edge = r#"<edge equality="true"/>"#;
        let framed = |frame: &str| {
            cloth(edge, "")
                .replace("<flexcomp", &format!("<frame {frame}><flexcomp"))
                .replace("</flexcomp>", "</flexcomp></frame>")
        };
        for quiet in ["", r#"pos="0 0 0" euler="0 0 0""#] {
            assert!(warnings(&framed(quiet)).is_empty(), "{quiet}");
        }
        for moving in [r#"pos="0 0 .1""#, r#"euler="0 0 30""#] {
            let w = warnings(&framed(moving));
            assert_eq!(w.len(), 1, "{moving}");
            assert!(w[0].contains("flexcomp 'c' is inside a <frame> that moves it"));
        }
        // an enclosing frame counts too
        let nested = framed("").replace("<frame >", r#"<frame pos="1 0 0"><frame>"#);
        let nested = nested.replace("</frame>", "</frame></frame>");
        assert_eq!(warnings(&nested).len(), 1);
    }
}
