//! Scene parameters applied to MJCF text through the `target` path grammar of
//! `lessons/README.md`: `tag[@attr='v']/child/…@attribute`, or `spec:elastic3d:<flex>`.
//!
//! Parameters are applied by splicing the attribute's text in place rather than by
//! re-serializing the document: the prepared file keeps the author's comments, layout and
//! line numbers, so a compile error in a prepared scene points at the line the author wrote.

use super::bundle::{ParamValue, Scene};
use std::collections::BTreeMap;

/// One step of a target path: a tag and optional `[@attr='value']` filters.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    pub tag: String,
    pub filters: Vec<(String, String)>,
}

/// Where a parameter writes.
#[derive(Debug, Clone, PartialEq)]
pub enum Target {
    /// An attribute of the elements the steps select.
    Xml { steps: Vec<Step>, attr: String },
    /// The spec-only Stable Neo-Hookean switch of one flex (not expressible in MJCF).
    Elastic3d { flex: String },
}

fn is_name(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == ':')
}

/// Parses a target path; the message says what is wrong with it.
pub fn parse_target(s: &str) -> Result<Target, String> {
    if let Some(flex) = s.strip_prefix("spec:elastic3d:") {
        if flex.is_empty() {
            return Err("spec:elastic3d: needs a flex name".into());
        }
        return Ok(Target::Elastic3d {
            flex: flex.to_string(),
        });
    }
    let (path, attr) = s
        .rsplit_once('@')
        .ok_or_else(|| format!("target '{s}' must end with @attribute"))?;
    // an '@' inside the last filter is not the attribute separator
    if attr.contains(']') || attr.contains('\'') {
        return Err(format!("target '{s}' must end with @attribute"));
    }
    if !is_name(attr) {
        return Err(format!("target '{s}': bad attribute name '{attr}'"));
    }
    let mut steps = Vec::new();
    for raw in split_steps(path) {
        let (tag, mut rest) = match raw.find('[') {
            Some(i) => (&raw[..i], &raw[i..]),
            None => (raw, ""),
        };
        if !is_name(tag) {
            return Err(format!("target '{s}': bad step '{raw}'"));
        }
        let mut filters = Vec::new();
        while !rest.is_empty() {
            let inner = rest
                .strip_prefix("[@")
                .ok_or_else(|| format!("target '{s}': filters are written [@attr='value']"))?;
            let close = inner
                .find("']")
                .ok_or_else(|| format!("target '{s}': unclosed filter in '{raw}'"))?;
            let (k, v) = inner[..close]
                .split_once("='")
                .ok_or_else(|| format!("target '{s}': filters are written [@attr='value']"))?;
            if !is_name(k) {
                return Err(format!("target '{s}': bad filter attribute '{k}'"));
            }
            filters.push((k.to_string(), v.to_string()));
            rest = &inner[close + 2..];
        }
        steps.push(Step {
            tag: tag.to_string(),
            filters,
        });
    }
    if steps.is_empty() {
        return Err(format!("target '{s}' names no element"));
    }
    Ok(Target::Xml {
        steps,
        attr: attr.to_string(),
    })
}

/// Splits at '/' outside quotes.
fn split_steps(path: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut quoted = false;
    for (i, c) in path.char_indices() {
        match c {
            '\'' => quoted = !quoted,
            '/' if !quoted => {
                out.push(&path[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&path[start..]);
    out
}

fn parse_doc(xml: &str) -> Result<roxmltree::Document<'_>, String> {
    let opt = roxmltree::ParsingOptions {
        allow_dtd: false,
        nodes_limit: 1 << 22,
    };
    roxmltree::Document::parse_with_options(xml, opt).map_err(|e| format!("XML parse error: {e}"))
}

fn step_matches(n: roxmltree::Node, s: &Step) -> bool {
    n.is_element()
        && n.tag_name().name() == s.tag
        && s.filters
            .iter()
            .all(|(k, v)| n.attribute(k.as_str()) == Some(v.as_str()))
}

/// The elements a target selects: the first step anywhere below the root, each later step
/// among the children of the previous matches.
fn select<'a, 'i>(
    doc: &'a roxmltree::Document<'i>,
    steps: &[Step],
) -> Vec<roxmltree::Node<'a, 'i>> {
    let root = doc.root_element();
    let mut cur: Vec<roxmltree::Node> = root
        .descendants()
        .filter(|n| *n != root && step_matches(*n, &steps[0]))
        .collect();
    for s in &steps[1..] {
        cur = cur
            .iter()
            .flat_map(|n| n.children().filter(|c| step_matches(*c, s)))
            .collect();
    }
    cur
}

fn describe(steps: &[Step], attr: &str) -> String {
    let mut s = String::new();
    for (i, st) in steps.iter().enumerate() {
        if i > 0 {
            s.push('/');
        }
        s.push_str(&st.tag);
        for (k, v) in &st.filters {
            s.push_str(&format!("[@{k}='{v}']"));
        }
    }
    format!("{s}@{attr}")
}

/// The attribute's text on the first selected element (`None` if the attribute is absent).
/// It is an error when no element matches.
pub fn read_attr(xml: &str, target: &Target) -> Result<Option<String>, String> {
    let Target::Xml { steps, attr } = target else {
        return Ok(None);
    };
    let clean = crate::mjcf::xml::tinyxml_comments(xml);
    let doc = parse_doc(&clean)?;
    let nodes = select(&doc, steps);
    let first = nodes
        .first()
        .ok_or_else(|| format!("no element matches '{}'", describe(steps, attr)))?;
    Ok(first.attribute(attr.as_str()).map(|s| s.to_string()))
}

fn escape(v: &str) -> String {
    v.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('"', "&quot;")
}

/// Writes `value` into the target attribute of every selected element (adding it when
/// absent; an empty `value` removes it). Returns the new text.
pub fn set_attr(xml: &str, target: &Target, value: &str) -> Result<String, String> {
    let Target::Xml { steps, attr } = target else {
        return Ok(xml.to_string());
    };
    // same length as `xml`: the parsed offsets edit the original text
    let clean = crate::mjcf::xml::tinyxml_comments(xml);
    let doc = parse_doc(&clean)?;
    let nodes = select(&doc, steps);
    if nodes.is_empty() {
        return Err(format!("no element matches '{}'", describe(steps, attr)));
    }
    // (start, end, replacement), applied back to front so earlier offsets stay valid
    let mut edits: Vec<(usize, usize, String)> = Vec::new();
    for n in nodes {
        match n.attributes().find(|a| a.name() == attr) {
            Some(a) if value.is_empty() => {
                // remove ` name="value"` including the whitespace before it
                let r = a.range();
                let mut start = r.start;
                while start > 0 && xml.as_bytes()[start - 1].is_ascii_whitespace() {
                    start -= 1;
                }
                edits.push((start, r.end, String::new()));
            }
            Some(a) => {
                let r = a.range_value();
                edits.push((r.start, r.end, escape(value)));
            }
            None if value.is_empty() => {}
            None => {
                let open = n.range().start + 1;
                let name_len = xml[open..]
                    .find(|c: char| c.is_ascii_whitespace() || c == '/' || c == '>')
                    .unwrap_or(0);
                let at = open + name_len;
                edits.push((at, at, format!(" {attr}=\"{}\"", escape(value))));
            }
        }
    }
    crate::sort::sort_by(&mut edits, |a, b| b.0.cmp(&a.0)); // from the end: offsets stay valid
    let mut out = xml.to_string();
    for (s, e, rep) in edits {
        out.replace_range(s..e, &rep);
    }
    Ok(out)
}

/// A scene ready for the engine: its MJCF with parameters applied and the spec-only settings.
#[derive(Debug, Clone, PartialEq)]
pub struct Prepared {
    pub xml: String,
    /// `elastic3d` per flex name (1 = Stable Neo-Hookean).
    pub elastic3d: Vec<(String, i32)>,
    /// Other files next to the scene (includes), named relative to the scene's folder.
    pub files: Vec<(String, String)>,
}

/// Applies parameter values (missing ones take their defaults) to a scene of a lesson.
/// Unknown names and values outside a parameter's range are errors.
pub fn prepare(
    scene: &Scene,
    files: &BTreeMap<String, String>,
    values: &[(String, ParamValue)],
) -> Result<Prepared, String> {
    let mut xml = files
        .get(&scene.file)
        .cloned()
        .ok_or_else(|| format!("no file '{}' in the lesson", scene.file))?;
    for (name, _) in values {
        if scene.param(name).is_none() {
            return Err(format!("scene '{}' has no parameter '{name}'", scene.id));
        }
    }
    let mut elastic3d = Vec::new();
    for p in &scene.params {
        let v = values
            .iter()
            .rev()
            .find(|(n, _)| n == &p.name)
            .map(|(_, v)| v)
            .unwrap_or(&p.default);
        p.admits(v)?;
        match &p.target {
            Target::Elastic3d { flex } => {
                elastic3d.push((flex.clone(), i32::from(*v == ParamValue::Bool(true))));
            }
            t => {
                xml = set_attr(&xml, t, &p.attr_text(v))
                    .map_err(|m| format!("parameter '{}': {m}", p.name))?;
            }
        }
    }
    let dir = match scene.file.rfind('/') {
        Some(i) => &scene.file[..i + 1],
        None => "",
    };
    let mut others = Vec::new();
    for (name, text) in files {
        if name == &scene.file || name.ends_with(".md") || name.ends_with(".toml") {
            continue;
        }
        if let Some(rel) = name.strip_prefix(dir) {
            others.push((rel.to_string(), text.clone()));
        }
    }
    Ok(Prepared {
        xml,
        elastic3d,
        files: others,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const XML: &str = r#"<mujoco>
  <!-- a comment stays -->
  <option timestep="0.002"/>
  <worldbody>
    <flexcomp name="plate" type="grid">
      <elasticity young="1e6" thickness="0.002"/>
    </flexcomp>
    <flexcomp name="other"><elasticity young="5"/></flexcomp>
  </worldbody>
</mujoco>"#;

    #[test]
    fn targets_parse() {
        let t = parse_target("flexcomp[@name='plate']/elasticity@thickness").unwrap();
        let Target::Xml { steps, attr } = &t else {
            panic!()
        };
        assert_eq!(attr, "thickness");
        assert_eq!(steps[0].filters, vec![("name".into(), "plate".into())]);
        assert_eq!(
            parse_target("spec:elastic3d:box").unwrap(),
            Target::Elastic3d { flex: "box".into() }
        );
        for bad in [
            "option",
            "@x",
            "a[@b]@c",
            "a[@b='c'@d",
            "a b@c",
            "spec:elastic3d:",
        ] {
            assert!(parse_target(bad).is_err(), "{bad}");
        }
    }

    /// A scene whose comment holds `--` (MuJoCo's tinyxml2 reads it) keeps it as written.
    #[test]
    fn comments_with_double_hyphens_are_kept() {
        let xml = XML.replace("a comment stays", "a comment -- stays --");
        let t = parse_target("flexcomp[@name='plate']/elasticity@thickness").unwrap();
        assert_eq!(read_attr(&xml, &t).unwrap().as_deref(), Some("0.002"));
        let out = set_attr(&xml, &t, "0.004").unwrap();
        assert!(out.contains("a comment -- stays --"));
        assert!(out.contains(r#"thickness="0.004""#));
    }

    #[test]
    fn set_rewrites_adds_and_removes_in_place() {
        let t = parse_target("flexcomp[@name='plate']/elasticity@thickness").unwrap();
        assert_eq!(read_attr(XML, &t).unwrap().as_deref(), Some("0.002"));
        let out = set_attr(XML, &t, "0.004").unwrap();
        assert!(out.contains(r#"young="1e6" thickness="0.004""#));
        assert!(out.contains(r#"<elasticity young="5"/>"#));
        assert!(out.contains("a comment stays"));
        assert_eq!(out.lines().count(), XML.lines().count());
        let t = parse_target("elasticity@damping").unwrap();
        let out = set_attr(XML, &t, "0.01").unwrap();
        assert_eq!(out.matches(r#"damping="0.01""#).count(), 2);
        let t = parse_target("flexcomp[@name='plate']/elasticity@young").unwrap();
        let out = set_attr(XML, &t, "").unwrap();
        assert!(out.contains(r#"<elasticity thickness="0.002"/>"#), "{out}");
        let t = parse_target("option@integrator").unwrap();
        let out = set_attr(XML, &t, "a\"<b").unwrap();
        assert!(
            out.contains(r#"<option integrator="a&quot;&lt;b" timestep"#),
            "{out}"
        );
        let t = parse_target("compiler@angle").unwrap();
        assert!(set_attr(XML, &t, "radian")
            .unwrap_err()
            .contains("no element"));
    }
}
