//! Errors as values: every failure of parsing, compiling or stepping says what went wrong in
//! MuJoCo's words and where (file, line, element, attribute), so a student or an instructor can
//! find it without reading engine code.

use std::fmt;

/// Where in the input an error was found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Location {
    /// File name as the user gave it (the top-level model or an included file).
    pub file: Option<String>,
    /// 1-based line number.
    pub line: Option<u32>,
    /// XML element name, e.g. `flexcomp`.
    pub element: Option<String>,
    /// XML attribute name, e.g. `young`.
    pub attribute: Option<String>,
    /// Name of the model object (e.g. the flex name), as MuJoCo's "Element name '…'".
    pub object: Option<String>,
}

/// What kind of failure this is; the message keeps MuJoCo's wording.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// Malformed XML or schema violations (MuJoCo: "XML Error").
    Xml,
    /// Valid MJCF that flexlab does not implement yet.
    Unsupported,
    /// Rejected by the model compiler (MuJoCo: "Error").
    Compile,
    /// Rejected by the engine's checks during the compile-time test step
    /// (MuJoCo: "Error: engine error").
    Engine,
    /// Bad use of the API (unknown field, out-of-range index).
    Usage,
    /// Not a failure: the model compiles, but MuJoCo warns about it, or it would crash MuJoCo
    /// 3.15.0 (MuJoCo: "WARNING").
    Warning,
}

/// An error with MuJoCo's message and a location.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    pub kind: ErrorKind,
    pub message: String,
    pub location: Box<Location>,
}

pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Error {
            kind,
            message: message.into(),
            location: Box::default(),
        }
    }
    pub fn xml(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Xml, message)
    }
    pub fn compile(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Compile, message)
    }
    pub fn engine(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Engine, message)
    }
    pub fn unsupported(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Unsupported, message)
    }
    pub fn usage(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Usage, message)
    }
    pub fn warning(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Warning, message)
    }
    pub fn at_line(mut self, line: u32) -> Self {
        self.location.line.get_or_insert(line);
        self
    }
    pub fn at_element(mut self, element: &str) -> Self {
        if self.location.element.is_none() {
            self.location.element = Some(element.to_string());
        }
        self
    }
    pub fn at_attribute(mut self, attribute: &str) -> Self {
        if self.location.attribute.is_none() {
            self.location.attribute = Some(attribute.to_string());
        }
        self
    }
    pub fn at_object(mut self, name: &str) -> Self {
        if self.location.object.is_none() {
            self.location.object = Some(name.to_string());
        }
        self
    }
    pub fn in_file(mut self, file: &str) -> Self {
        if self.location.file.is_none() {
            self.location.file = Some(file.to_string());
        }
        self
    }
    /// The bare message, without prefix or location (what MuJoCo's tests compare).
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let prefix = match self.kind {
            ErrorKind::Xml => "XML Error: ",
            ErrorKind::Unsupported => "Not supported: ",
            ErrorKind::Compile => "Error: ",
            ErrorKind::Engine => "Error: engine error: ",
            ErrorKind::Usage => "",
            ErrorKind::Warning => "WARNING: ",
        };
        write!(f, "{prefix}{}", self.message)?;
        let loc = &self.location;
        let mut parts = Vec::new();
        if let Some(e) = &loc.element {
            parts.push(format!("Element '{e}'"));
        }
        if let Some(o) = &loc.object {
            parts.push(format!("name '{o}'"));
        }
        if let Some(a) = &loc.attribute {
            parts.push(format!("attribute '{a}'"));
        }
        if let Some(l) = loc.line {
            parts.push(format!("line {l}"));
        }
        if let Some(file) = &loc.file {
            parts.push(format!("file '{file}'"));
        }
        if !parts.is_empty() {
            write!(f, "\n{}", parts.join(", "))?;
        }
        Ok(())
    }
}

impl std::error::Error for Error {}
