//! MJCF reader: XML text → [`Spec`]. Sections are read in MuJoCo's order (worldbody last), so
//! flexes, equalities and bodies get MuJoCo's ids; flexcomps are expanded while the worldbody
//! is read, exactly where MuJoCo's reader expands them.

mod actuation;
mod attrs;
mod composite;
mod number;
mod reader;
mod replicate_refs;
mod schema;
mod sensor;
pub mod xml;

pub use xml::{DirSource, FileSource, MemSource};

use crate::error::Result;
use crate::spec::Spec;

/// Parses an MJCF document into a spec. `file` names the document in error messages;
/// `src` resolves `<include>` and asset files.
pub fn parse(text: &str, file: Option<&str>, src: &dyn FileSource) -> Result<Spec> {
    let root = xml::parse(text, file.map(|s| s.to_string()), src)?;
    reader::Reader::new(src).read(&root)
}

/// Parses an MJCF file from disk; includes and meshes resolve relative to its directory.
pub fn parse_file(path: &std::path::Path) -> Result<Spec> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| crate::Error::xml(format!("could not read '{}': {e}", path.display())))?;
    let dir = path.parent().map(|p| p.to_path_buf()).unwrap_or_default();
    let src = DirSource { dir };
    let name = path.file_name().map(|s| s.to_string_lossy().to_string());
    parse(&text, name.as_deref(), &src)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(xml: &str) -> crate::Error {
        parse(xml, Some("m.xml"), &MemSource::default()).expect_err("must fail")
    }

    #[test]
    fn unknown_attributes_and_elements_are_located() {
        let e = err("<mujoco>\n<option timestep=\"0.01\" tiemstep=\"1\"/>\n</mujoco>");
        assert!(e.message.contains("unrecognized attribute: 'tiemstep'"));
        assert_eq!(e.location.line, Some(2));
        assert_eq!(e.location.attribute.as_deref(), Some("tiemstep"));
        let e = err("<mujoco><worldbody>\n\n<blob/></worldbody></mujoco>");
        assert!(e.message.contains("unrecognized element 'blob'"));
        assert_eq!(e.location.line, Some(3));
    }

    /// MuJoCo 3.15.0 accepts actuator `damping` and `armature` (on `<general>` and the
    /// shortcuts, in defaults too); flexlab says it does not support them, never that they are
    /// unknown.
    #[test]
    fn actuator_damping_and_armature_are_known_but_not_supported() {
        for (act, attr) in [
            ("motor", "damping=\"0.5\""),
            ("general", "armature=\"0.1\""),
            ("position kp=\"1\"", "damping=\"2\""),
        ] {
            let xml = format!(
                "<mujoco><worldbody><body><joint name=\"j\"/><geom size=\".1\"/></body>\
                 </worldbody><actuator>\n<{act} joint=\"j\" {attr}/></actuator></mujoco>"
            );
            let e = err(&xml);
            assert_eq!(e.kind, crate::error::ErrorKind::Unsupported, "{e}");
            assert!(e.message.contains("is not supported by flexlab yet"), "{e}");
            assert_eq!(e.location.line, Some(2));
        }
        let e = err("<mujoco><default><motor damping=\"1\"/></default></mujoco>");
        assert_eq!(e.kind, crate::error::ErrorKind::Unsupported, "{e}");
    }

    #[test]
    fn statistic_is_read_and_checked() {
        let s = parse(
            r#"<mujoco><statistic meaninertia="5" extent="2" center="0 0 3"/></mujoco>"#,
            None,
            &MemSource::default(),
        )
        .unwrap();
        let st = &s.statistic;
        assert_eq!(
            (st.meaninertia, st.extent, st.meanmass),
            (Some(5.0), Some(2.0), None)
        );
        assert_eq!(st.center, Some([0.0, 0.0, 3.0]));
        let e = err("<mujoco>\n<statistic extent=\"-1\"/></mujoco>");
        assert!(
            e.message.contains("extent must be strictly positive"),
            "{e}"
        );
        assert_eq!(e.location.line, Some(2));
        let e = err(r#"<mujoco><statistic center="1 2"/></mujoco>"#);
        assert_eq!(e.location.attribute.as_deref(), Some("center"), "{e}");
        let e = err(r#"<mujoco><statistic scale="1"/></mujoco>"#);
        assert!(e.message.contains("unrecognized attribute: 'scale'"), "{e}");
    }

    /// `<visual>` is drawing only, but flexlab refuses what MuJoCo 3.15.0 refuses there (each
    /// message checked against MuJoCo's for the same text).
    #[test]
    fn visual_follows_mujocos_schema() {
        let ok = r#"<mujoco><visual><global orthographic="true" offwidth="800" fovy="30"/>
            <headlight ambient=".2 .2 .2" active="0"/><rgba haze="1 1 1 1"/><map znear="0.001"/>
            <quality shadowsize="2048"/><scale com="0.2"/></visual><visual/></mujoco>"#;
        parse(ok, None, &MemSource::default()).unwrap();
        for (xml, want) in [
            (r#"<visual foo="1"/>"#, "unrecognized attribute: 'foo'"),
            (
                "<visual><global/><global/></visual>",
                "unique element 'global' found 2 times",
            ),
            ("<visual><bogus/></visual>", "unrecognized element 'bogus'"),
            (
                "<visual><global><x/></global></visual>",
                "unrecognized element 'x'",
            ),
            (
                r#"<visual><global fovy="abc"/></visual>"#,
                "bad format in attribute 'fovy'",
            ),
            (
                r#"<visual><rgba fog="1 2"/></visual>"#,
                "attribute 'fog' does not have enough data",
            ),
            (
                r#"<visual><global orthographic="1"/></visual>"#,
                "orthographic",
            ),
            (
                r#"<visual><global realtime="-1"/></visual>"#,
                "realtime must be greater than 0",
            ),
            (
                r#"<visual><map znear="0"/></visual>"#,
                "znear must be strictly positive",
            ),
        ] {
            let e = err(&format!("<mujoco>{xml}</mujoco>"));
            assert!(e.message.contains(want), "{xml}: {e}");
        }
    }

    #[test]
    fn bad_numbers_and_keywords_name_the_attribute() {
        let e = err(r#"<mujoco><option gravity="0 0 x"/></mujoco>"#);
        assert!(
            e.message.contains("bad format in attribute 'gravity'"),
            "{e}"
        );
        let e = err(r#"<mujoco><option integrator="leapfrog"/></mujoco>"#);
        assert!(
            e.message
                .contains("takes Euler, RK4, implicit, implicitfast, discrete"),
            "{e}"
        );
        let e = err(
            r#"<mujoco><worldbody><flexcomp name="c"><contact internal="true"/></flexcomp></worldbody></mujoco>"#,
        );
        assert!(
            e.message.contains("unrecognized attribute: 'internal'"),
            "{e}"
        );
    }

    /// MuJoCo 3.15.0 on the same attributes: strtod's ERANGE is "number is too large", for
    /// `rgba` (a float, strtof) past or below the float's normal range too; NaN and infinity
    /// outside a bound are not supported (MuJoCo loads them).
    #[test]
    fn numbers_out_of_range_or_not_finite() {
        use crate::error::ErrorKind;
        let geom =
            |a: &str| format!("<mujoco><worldbody><geom size=\".1\" {a}/></worldbody></mujoco>");
        for (attr, name) in [
            ("mass=\"1e-310\"", "mass"),
            ("mass=\"0x1p1024\"", "mass"),
            ("rgba=\"1e39 0 0 1\"", "rgba"),
            ("rgba=\"1e-39 0 0 1\"", "rgba"),
        ] {
            let e = err(&geom(attr));
            let want = format!("number is too large in attribute '{name}'");
            assert!(e.message.contains(&want), "{attr}: {e}");
        }
        for attr in ["mass=\"nan\"", "friction=\"inf\"", "rgba=\"inf 0 0 1\""] {
            let e = err(&geom(attr));
            assert_eq!(e.kind, ErrorKind::Unsupported, "{attr}: {e}");
        }
        // integer lists are strtol's: MuJoCo 3.15.0 says "bad format" for each of these
        for (attr, tok) in [
            ("id", "1.0"),
            ("id", "0x1"),
            ("id", "inf"),
            ("count", "1e0"),
        ] {
            let el = if attr == "id" {
                format!("<pin id=\"{tok} 2\"/>")
            } else {
                String::new()
            };
            let count = if attr == "count" { tok } else { "3" };
            let e = err(&format!(
                "<mujoco><worldbody><flexcomp name=\"c\" type=\"grid\" dim=\"2\" \
                 count=\"{count} 3 1\">{el}</flexcomp></worldbody></mujoco>"
            ));
            let want = format!("bad format in attribute '{attr}' ('{tok}')");
            assert!(e.message.contains(&want), "{attr}={tok}: {e}");
        }
        let ok = parse(
            &geom("mass=\"0x1p-2\" rgba=\"+1 0x.8 0 1\""),
            None,
            &MemSource::default(),
        );
        assert!(ok.is_ok(), "{:?}", ok.err());
    }

    #[test]
    fn options_flags_and_defaults_are_read() {
        let s = parse(
            r#"<mujoco model="m"><option timestep="0.001" integrator="discrete" solver="CG"><flag contact="disable" energy="enable"/></option>
               <default><joint damping="2"/><default class="x"><geom size=".1" rgba="1 0 0 1"/></default></default>
               <worldbody><body name="b"><joint type="slide"/><geom class="x"/></body></worldbody></mujoco>"#,
            None,
            &MemSource::default(),
        )
        .unwrap();
        assert_eq!(s.modelname, "m");
        assert_eq!(s.option.timestep, 0.001);
        assert_eq!(s.option.integrator, crate::model::Integrator::Discrete);
        assert!(s.option.disabled(crate::model::disable::CONTACT));
        assert!(s.option.enabled(crate::model::enable::ENERGY));
        assert_eq!(s.joints[0].damping, 2.0);
        assert_eq!(s.geoms[0].size[0], 0.1);
    }

    #[test]
    fn includes_are_spliced_and_missing_files_reported() {
        let src = MemSource {
            files: vec![(
                "inc.xml".into(),
                b"<mujoco><option timestep=\"0.005\"/></mujoco>".to_vec(),
            )],
        };
        let s = parse(r#"<mujoco><include file="inc.xml"/></mujoco>"#, None, &src).unwrap();
        assert_eq!(s.option.timestep, 0.005);
        let e = err(r#"<mujoco><include file="nope.xml"/></mujoco>"#);
        assert!(e.message.contains("Error opening file 'nope.xml'"));
    }

    #[test]
    fn files_in_memory_are_found_through_dot_segments() {
        let src = MemSource {
            files: vec![("asset/inc.xml".into(), b"<mujoco/>".to_vec())],
        };
        for path in ["asset/inc.xml", "./asset/inc.xml", "asset/./inc.xml"] {
            assert!(src.read(path).is_some(), "{path}");
        }
        assert!(src.read("other/inc.xml").is_none());
    }

    #[test]
    fn malformed_xml_is_an_error_not_a_panic() {
        for bad in [
            "",
            "<mujoco",
            "<mujoco><worldbody></mujoco>",
            "<notmujoco/>",
            "<mujoco><option timestep=\"-1\"/></mujoco>",
        ] {
            assert!(parse(bad, None, &MemSource::default()).is_err(), "{bad}");
        }
    }
}
