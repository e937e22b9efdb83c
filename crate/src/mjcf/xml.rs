//! An owned XML element tree with source locations, built with `roxmltree`, with
//! `<include file=…/>` spliced in place as MuJoCo does. Owning the tree lets includes from
//! other files sit among the nodes of the main file.

use crate::error::{Error, Result};

/// Where model files come from: the file system natively, a map of named texts in the browser.
pub trait FileSource {
    /// Reads a file by the path written in the model (relative to the model's directory).
    fn read(&self, path: &str) -> Option<Vec<u8>>;
}

/// Reads files relative to a directory on disk.
pub struct DirSource {
    pub dir: std::path::PathBuf,
}

impl FileSource for DirSource {
    fn read(&self, path: &str) -> Option<Vec<u8>> {
        let p = std::path::Path::new(path);
        let full = if p.is_absolute() {
            p.to_path_buf()
        } else {
            self.dir.join(p)
        };
        std::fs::read(full).ok()
    }
}

/// Files held in memory (pasted models, lesson assets); nothing else is reachable.
#[derive(Default)]
pub struct MemSource {
    pub files: Vec<(String, Vec<u8>)>,
}

impl FileSource for MemSource {
    fn read(&self, path: &str) -> Option<Vec<u8>> {
        // `meshdir="asset/"` with `file="./a.obj"` asks for "asset/./a.obj"
        let norm = path.replace("/./", "/");
        let norm = norm.trim_start_matches("./");
        self.files
            .iter()
            .find(|(n, _)| n == norm || n.ends_with(&format!("/{norm}")))
            .map(|(_, b)| b.clone())
    }
}

/// Hard limits for untrusted input: a hostile file must not exhaust memory or time.
pub const MAX_MODEL_BYTES: usize = 16 << 20;
pub const MAX_INCLUDE_DEPTH: usize = 8;
pub const MAX_ELEMENTS: usize = 200_000;

/// One XML element with its attributes, children and location.
#[derive(Debug, Clone)]
pub struct Element {
    pub name: String,
    pub attrs: Vec<(String, String)>,
    pub children: Vec<Element>,
    pub line: u32,
    pub file: Option<String>,
}

impl Element {
    /// Raw attribute text.
    pub fn attr(&self, name: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// An error located at this element.
    pub fn error(&self, msg: impl Into<String>) -> Error {
        let mut e = Error::xml(msg).at_element(&self.name).at_line(self.line);
        if let Some(f) = &self.file {
            e = e.in_file(f);
        }
        e
    }

    /// An error located at one attribute of this element.
    pub fn attr_error(&self, attr: &str, msg: impl Into<String>) -> Error {
        self.error(msg).at_attribute(attr)
    }

    /// Children with this tag.
    pub fn children_named<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Element> + 'a {
        self.children.iter().filter(move |c| c.name == name)
    }

    pub fn first_child(&self, name: &str) -> Option<&Element> {
        self.children.iter().find(|c| c.name == name)
    }
}

fn line_of(doc: &roxmltree::Document, node: roxmltree::Node) -> u32 {
    doc.text_pos_at(node.range().start).row
}

fn convert(
    doc: &roxmltree::Document,
    node: roxmltree::Node,
    file: &Option<String>,
    src: &dyn FileSource,
    depth: usize,
    count: &mut usize,
) -> Result<Vec<Element>> {
    *count += 1;
    if *count > MAX_ELEMENTS {
        return Err(Error::xml(format!(
            "model has more than {MAX_ELEMENTS} elements"
        )));
    }
    let name = node.tag_name().name().to_string();
    let line = line_of(doc, node);
    let attrs: Vec<(String, String)> = node
        .attributes()
        .map(|a| (a.name().to_string(), a.value().to_string()))
        .collect();

    if name == "include" {
        let here = Element {
            name: name.clone(),
            attrs: attrs.clone(),
            children: vec![],
            line,
            file: file.clone(),
        };
        let path = here
            .attr("file")
            .ok_or_else(|| here.error("missing attribute 'file' in include"))?
            .to_string();
        if depth >= MAX_INCLUDE_DEPTH {
            return Err(here.error(format!("include nesting deeper than {MAX_INCLUDE_DEPTH}")));
        }
        let bytes = src
            .read(&path)
            .ok_or_else(|| here.attr_error("file", format!("Error opening file '{path}'")))?;
        let text = String::from_utf8(bytes)
            .map_err(|_| here.attr_error("file", format!("included file '{path}' is not UTF-8")))?;
        let sub = parse_text(&text, Some(path.clone()), src, depth + 1, count)?;
        // MuJoCo splices the children of the included file's root element
        return Ok(sub.children);
    }

    let mut children = Vec::new();
    for c in node.children().filter(|c| c.is_element()) {
        children.extend(convert(doc, c, file, src, depth, count)?);
    }
    Ok(vec![Element {
        name,
        attrs,
        children,
        line,
        file: file.clone(),
    }])
}

/// The text with every comment made acceptable to a strict XML parser the way MuJoCo's
/// tinyxml2 reads it: a comment runs from `<!--` to the first `-->`, and may hold `--` or end
/// in `-`, which XML forbids and tinyxml2 accepts. Each offending `-` becomes a space, so
/// lengths, offsets and line numbers stay those of the original text; CDATA sections are left
/// alone. Borrowed when no comment needs it.
pub fn tinyxml_comments(text: &str) -> std::borrow::Cow<'_, str> {
    let b = text.as_bytes();
    // byte scans: `str::find` with a pattern would pull a substring searcher into the wasm
    let find = |from: usize, pat: &[u8]| {
        b[from.min(b.len())..]
            .windows(pat.len())
            .position(|w| w == pat)
            .map(|k| from + k)
    };
    let mut fixed: Option<Vec<u8>> = None;
    let mut i = 0;
    while let Some(at) = find(i, b"<") {
        if b[at..].starts_with(b"<![CDATA[") {
            i = find(at, b"]]>").map_or(b.len(), |e| e + 3);
        } else if b[at..].starts_with(b"<!--") {
            let body = at + 4;
            let Some(end) = find(body, b"-->") else {
                break; // unclosed: the parser reports it
            };
            for j in body..end {
                // the second of two hyphens, and a hyphen just before the closing `-->`
                let bad = b[j] == b'-' && (j > body && b[j - 1] == b'-' || j + 1 == end);
                if bad {
                    fixed.get_or_insert_with(|| b.to_vec())[j] = b' ';
                }
            }
            i = end + 3;
        } else {
            i = at + 1;
        }
    }
    match fixed {
        // only ASCII hyphens became spaces
        Some(v) => std::borrow::Cow::Owned(String::from_utf8(v).unwrap_or_default()),
        None => std::borrow::Cow::Borrowed(text),
    }
}

fn parse_text(
    text: &str,
    file: Option<String>,
    src: &dyn FileSource,
    depth: usize,
    count: &mut usize,
) -> Result<Element> {
    if text.len() > MAX_MODEL_BYTES {
        return Err(Error::xml(format!(
            "model file is larger than {} MB",
            MAX_MODEL_BYTES >> 20
        )));
    }
    let opt = roxmltree::ParsingOptions {
        allow_dtd: false,
        nodes_limit: (MAX_ELEMENTS * 4) as u32,
    };
    let text = tinyxml_comments(text);
    let doc = roxmltree::Document::parse_with_options(&text, opt).map_err(|e| {
        let pos = e.pos();
        let mut err = Error::xml(format!("XML parse error: {e}")).at_line(pos.row);
        if let Some(f) = &file {
            err = err.in_file(f);
        }
        err
    })?;
    let root = doc.root_element();
    let mut v = convert(&doc, root, &file, src, depth, count)?;
    if v.len() != 1 {
        return Err(Error::xml("root element must be a single element"));
    }
    Ok(v.remove(0))
}

/// Parses MJCF text into an element tree with includes resolved.
pub fn parse(text: &str, file: Option<String>, src: &dyn FileSource) -> Result<Element> {
    let mut count = 0;
    parse_text(text, file, src, 0, &mut count)
}

#[cfg(test)]
mod tests {
    use super::{parse, tinyxml_comments, MemSource};

    /// Comments MuJoCo's tinyxml2 reads (a `--` inside, a `-` before the end) load, with the
    /// lines of the original text; other text, CDATA and well-formed comments are untouched.
    #[test]
    fn comments_load_as_tinyxml2_reads_them() {
        let xml = "<mujoco>\n<!-- ---- bodies ---- -->\n<!-- ends with a hyphen --->\n\
                   <worldbody><geom size=\"1\" name=\"a--b\"/></worldbody>\n<a></b></mujoco>";
        let clean = tinyxml_comments(xml);
        assert_eq!(clean.len(), xml.len());
        assert!(clean.contains("name=\"a--b\""));
        let e = parse(xml, None, &MemSource::default()).expect_err("</b> closes nothing");
        assert!(e.to_string().contains("line 5"), "{e}");
        let ok = "<mujoco><!-- fine --><![CDATA[ <!-- a -- b --> ]]></mujoco>";
        assert!(matches!(
            tinyxml_comments(ok),
            std::borrow::Cow::Borrowed(_)
        ));
        let unclosed = "<mujoco><!-- a -- b </mujoco>";
        assert_eq!(tinyxml_comments(unclosed), unclosed);
        parse(unclosed, None, &MemSource::default()).expect_err("unclosed comment");
    }
}
