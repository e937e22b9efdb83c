//! GMSH mesh files for `<flexcomp type="gmsh">` (MuJoCo's `mjCFlexcomp::LoadGMSH`,
//! `LoadGMSH41`, `LoadGMSH22`): format 4.1 or 2.2, ASCII or binary, one node block and one
//! element block of lines (1D), triangles (2D) or tetrahedra (3D).
//!
//! MuJoCo reads these files with fixed offsets and few checks, and what it accepts is what
//! flexlab accepts: the same sections, the same header layouts, the same checks in the same
//! order with the same messages. Where MuJoCo would read past the end of the file (a count that
//! overflows its size check, a header longer than it assumed), flexlab stops with the message
//! of the size check instead.

/// What a GMSH file gives the flexcomp: its dimension, 3 coordinates per node, and `dim + 1`
/// zero-based node ids per element (not yet checked against the node count: the flexcomp's
/// own element check does that, as in MuJoCo).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Gmsh {
    pub dim: i32,
    pub point: Vec<f64>,
    pub element: Vec<i32>,
}

/// The message of an exception MuJoCo's reader does not catch itself (`std::stoi` without
/// digits): MuJoCo reports it without the "Error: " of its reader's own messages.
const UNEXPECTED: &str = "exception while reading GMSH file";

/// MuJoCo's `INT_MAX`, which bounds its node and element counts.
const INT_MAX: u64 = i32::MAX as u64;

/// Reads a GMSH file. The error is MuJoCo's message as it prints it.
pub fn load(buf: &[u8]) -> Result<Gmsh, String> {
    if buf.is_empty() {
        return err("Empty GMSH file");
    }
    if buf.len() < 11 || !buf.starts_with(b"$MeshFormat") {
        return err("GMSH file must begin with $MeshFormat");
    }
    // the version line, read as a stream of at most 64 bytes
    let mut head = Text::new(&buf[11..buf.len().min(11 + 64)]);
    let version = head.double();
    let binary = head.int();
    if head.fail {
        return err("Could not read GMSH file header");
    }
    let v = mju_round(100.0 * version);
    if v != 220 && v != 410 {
        return err("Only GMSH file format versions 4.1 and 2.2 are supported");
    }
    let node_begin = find(buf, b"$Nodes");
    let node_end = find(buf, b"$EndNodes");
    let elem_begin = find(buf, b"$Elements");
    let elem_end = find(buf, b"$EndElements");
    if node_begin < 0 {
        return err("GMSH file missing $Nodes");
    }
    if elem_begin < 0 {
        return err("GMSH file missing $Elements");
    }
    // each section starts one byte (the line feed) after its keyword
    let (node_begin, elem_begin) = (node_begin + 7, elem_begin + 10);
    if node_end < node_begin {
        return err("GMSH file missing $EndNodes after $Nodes");
    }
    if elem_end < elem_begin {
        return err("GMSH file missing $EndElements after $Elements");
    }
    let nodes = &buf[node_begin as usize..node_end as usize];
    let elems = &buf[elem_begin as usize..elem_end as usize];
    let binary = binary != 0;
    if v == 410 {
        load41(nodes, elems, binary)
    } else {
        load22(nodes, elems, binary)
    }
}

/// `mju_round`: the nearest integer, halves away from zero.
fn mju_round(x: f64) -> i64 {
    let r = x.round();
    if r.is_nan() {
        0
    } else {
        r as i64
    }
}

/// MuJoCo's `findstring`: the first position of `s` in `buf`, or -1.
fn find(buf: &[u8], s: &[u8]) -> i64 {
    buf.windows(s.len())
        .position(|w| w == s)
        .map_or(-1, |i| i as i64)
}

/// One of the reader's errors, as MuJoCo prints it.
fn err<T>(msg: &str) -> Result<T, String> {
    Err(format!("Error: {msg}"))
}

/// The header of a 4.1 node or element block: 52 bytes in a binary file, 8 numbers in text.
struct Head41 {
    blocks: u64,
    n: u64,
    min_tag: u64,
    max_tag: u64,
    dim: i32,
    /// `parametric` of a node block, the element type of an element block.
    kind: i32,
    in_block: u64,
}

/// The binary header's length.
const HEADER: usize = 52;

impl Head41 {
    /// From text (the caller checks the stream).
    fn read(ss: &mut Text) -> Self {
        let (blocks, n, min_tag, max_tag) = (ss.size(), ss.size(), ss.size(), ss.size());
        let (dim, _entity_tag, kind, in_block) = (ss.int(), ss.int(), ss.int(), ss.size());
        Head41 {
            blocks,
            n,
            min_tag,
            max_tag,
            dim,
            kind,
            in_block,
        }
    }

    /// From the first [`HEADER`] bytes (the caller checks the length).
    fn at(b: &Bytes) -> Self {
        Head41 {
            blocks: b.u64(0),
            n: b.u64(8),
            min_tag: b.u64(16),
            max_tag: b.u64(24),
            dim: b.i32(32),
            kind: b.i32(40),
            in_block: b.u64(44),
        }
    }
}

fn load41(nodes: &[u8], elems: &[u8], binary: bool) -> Result<Gmsh, String> {
    let mut out = Gmsh::default();
    let min_node_tag = if !binary {
        let mut ss = Text::new(nodes);
        let h = Head41::read(&mut ss);
        if !ss.good() {
            return err("Error reading Nodes header");
        }
        let (n, min_tag, dim) = (h.n, h.min_tag, h.dim);
        if h.blocks != 1 || n != h.in_block {
            return err("All nodes must be in single block");
        }
        if h.max_tag != h.in_block {
            return err("Maximum number of nodes must be equal to number of nodes in a block");
        }
        if !(1..=3).contains(&dim) {
            return err("Entity must be 1D, 2D or 3D");
        }
        out.dim = dim;
        for i in 0..n {
            let tag = ss.size();
            if !ss.good() {
                return err("Error reading node tags");
            }
            if tag != i.wrapping_add(min_tag) {
                return err("Node tags must be sequential");
            }
        }
        if n >= INT_MAX / 3 {
            return err("Invalid number of nodes.");
        }
        for _ in 0..3 * n {
            let x = ss.double();
            if !ss.good() {
                return err("Error reading node coordinates");
            }
            out.point.push(x);
        }
        min_tag
    } else {
        if nodes.len() < HEADER {
            return err("Invalid nodes header");
        }
        let b = Bytes(nodes);
        let h = Head41::at(&b);
        let (n, min_tag, dim) = (h.n, h.min_tag, h.dim);
        if h.blocks != 1 || n != h.in_block {
            return err("All nodes must be in single block");
        }
        if !(1..=3).contains(&dim) {
            return err("Entity must be 1D, 2D or 3D");
        }
        out.dim = dim;
        // tag and 3 coordinates, 8 bytes each
        if !fits(nodes.len(), HEADER, n, 32) {
            return err("Insufficient byte size of Nodes");
        }
        for i in 0..n {
            if b.u64(HEADER + 8 * i as usize) != i.wrapping_add(min_tag) {
                return err("Node tags must be sequential");
            }
        }
        if n >= INT_MAX / 3 {
            return err("Invalid number of nodes.");
        }
        let coords = HEADER + 8 * n as usize;
        out.point = (0..3 * n as usize).map(|i| b.f64(coords + 8 * i)).collect();
        min_tag
    };

    let check_type = |dim: i32, etype: i32| -> Result<(), String> {
        if (dim == 1 && etype != 1) || (dim == 2 && etype != 2) || (dim == 3 && etype != 4) {
            return err("Element type inconsistent with dimensionality");
        }
        Ok(())
    };
    let node_id = |id: u64| id.wrapping_sub(min_node_tag) as i32;
    if !binary {
        let mut ss = Text::new(elems);
        let h = Head41::read(&mut ss);
        if !ss.good() {
            return err("Error reading Elements header");
        }
        let (n, dim, etype) = (h.n, h.dim, h.kind);
        if h.blocks != 1 || n != h.in_block {
            return err("All elements must be in single block");
        }
        if dim != out.dim {
            return err("Inconsistent dimensionality in Elements");
        }
        if n >= INT_MAX / 4 {
            return err("Invalid numElements.");
        }
        check_type(dim, etype)?;
        for _ in 0..n {
            // the element's own tag, unchecked (MuJoCo tests the stream after the node ids)
            ss.size();
            for _ in 0..=dim {
                let id = ss.size();
                if !ss.good() {
                    return err("Error reading Elements");
                }
                out.element.push(node_id(id));
            }
        }
    } else {
        if elems.len() < HEADER {
            return err("Invalid elements header");
        }
        let b = Bytes(elems);
        let h = Head41::at(&b);
        let (n, dim, etype) = (h.n, h.dim, h.kind);
        if h.blocks != 1 || n != h.in_block {
            return err("All elements must be in single block");
        }
        if dim != out.dim {
            return err("Inconsistent dimensionality in Elements");
        }
        check_type(dim, etype)?;
        if n >= INT_MAX / 4 {
            return err("Invalid numElements.");
        }
        // the element's tag and its dim+1 node tags, 8 bytes each
        let per = 8 * (dim as u64 + 2);
        if !fits(elems.len(), HEADER, n, per) {
            return err("Insufficient byte size of Elements");
        }
        for i in 0..n as usize {
            let at = HEADER + i * per as usize + 8;
            for k in 0..=dim as usize {
                out.element.push(node_id(b.u64(at + 8 * k)));
            }
        }
    }
    Ok(out)
}

fn load22(nodes: &[u8], elems: &[u8], binary: bool) -> Result<Gmsh, String> {
    let mut out = Gmsh::default();
    let num_nodes = if !binary {
        let (mut ss, n) = ascii22_count(
            nodes,
            [
                "Invalid node header",
                "Error reading Nodes header",
                "Invalid number of nodes.",
            ],
            INT_MAX / 3,
        )?;
        for _ in 0..n {
            ss.size();
            if !ss.good() {
                return err("Error reading node tags");
            }
            for _ in 0..3 {
                let x = ss.double();
                if !ss.good() {
                    return err("Error reading node coordinates");
                }
                out.point.push(x);
            }
        }
        n
    } else {
        if nodes.len() < 4 {
            return err("Invalid nodes header");
        }
        let (count, header) = binary_count(nodes, "Invalid number of nodes")?;
        // a negative count becomes a huge size_t in MuJoCo
        let n = count as u64;
        // tag (4 bytes) and 3 coordinates (8 bytes each); MuJoCo checks with a 4-byte header
        // and reads after the measured one, flexlab requires both to fit
        if !fits(nodes.len(), 4, n, 28) || !fits(nodes.len(), header, n, 28) {
            return err("Insufficient byte size of Nodes");
        }
        if n >= INT_MAX / 3 {
            return err("Invalid number of nodes.");
        }
        let b = Bytes(nodes);
        for i in 0..n as usize {
            let at = header + 28 * i + 4;
            for k in 0..3 {
                out.point.push(b.f64(at + 8 * k));
            }
        }
        n
    };
    let node_tag = |t: i64, bound: u64| -> Result<i32, String> {
        if t < 1 || t as u64 > bound {
            return err("Invalid node tag");
        }
        Ok((t - 1) as i32)
    };
    let kind = |etype: i32| -> Result<(i32, usize), String> {
        match etype {
            2 => Ok((2, 3)),
            4 => Ok((3, 4)),
            _ => err("Invalid number of node tags"),
        }
    };
    if !binary {
        let (mut ss, n) = ascii22_count(
            elems,
            [
                "Invalid elements header",
                "Error reading Elements header",
                "Invalid number of elements.",
            ],
            INT_MAX / 4,
        )?;
        // the first element's type decides the dimension of all
        let (_tag, etype, mut ntags) = (ss.int(), ss.int(), ss.int());
        if !ss.good() {
            return err("Error reading Elements");
        }
        let (dim, nnode) = kind(etype)?;
        out.dim = dim;
        for i in 0..n {
            if i != 0 {
                ss.int(); // the element's number
                ss.int(); // its type (the first one's stands for all)
                ntags = ss.int();
                if !ss.good() {
                    return err("Error reading Elements");
                }
            }
            if ntags > 0 {
                // MuJoCo reads two tags (physical and elementary), however many there are
                ss.int();
                ss.int();
                if !ss.good() {
                    return err("Error reading Elements");
                }
            }
            for _ in 0..nnode {
                let t = ss.int();
                if !ss.good() {
                    return err("Error reading Elements");
                }
                out.element.push(node_tag(t as i64, num_nodes)?);
            }
        }
    } else {
        if elems.len() < 4 {
            return err("Invalid elements header");
        }
        let (count, header) = binary_count(elems, "Invalid number of elements")?;
        if count < 0 {
            return err("Invalid number of elements");
        }
        let n = count as u64;
        let b = Bytes(elems);
        // the first element's block header: type, count, number of tags
        if header + 16 > elems.len() {
            return err("Insufficient byte size of Elements");
        }
        let etype = b.i32(header);
        let ntags = b.i32(header + 8);
        let (dim, nnode) = kind(etype)?;
        out.dim = dim;
        // Ftetwild writes 5 ints per element, gmsh itself 6 + the node tags
        let ftetwild = 20;
        let gmsh_app = 4 * (6 + nnode as u64);
        if !fits(elems.len(), 17, n, ftetwild) {
            return err("Insufficient byte size of Elements");
        }
        let tag_at = |at: usize| -> Result<i64, String> {
            if at + 4 > elems.len() {
                return err("Insufficient byte size of Elements");
            }
            Ok(b.i32(at) as i64)
        };
        if ntags > 0 {
            if !fits(elems.len(), 4, n, gmsh_app) {
                return err("Insufficient byte size of Elements");
            }
            for k in 0..nnode {
                out.element
                    .push(node_tag(tag_at(header + 4 * (6 + k))?, num_nodes)?);
            }
            // MuJoCo bounds the later elements' node tags by the number of elements
            for i in 1..n as usize {
                let at = header + i * gmsh_app as usize;
                for k in 0..nnode {
                    out.element.push(node_tag(tag_at(at + 4 * (6 + k))?, n)?);
                }
            }
        } else {
            for k in 0..nnode {
                out.element
                    .push(node_tag(tag_at(header + 4 * (4 + k))?, num_nodes)?);
            }
            for i in 0..(n as usize).saturating_sub(1) {
                let at = header + 4 * 6 + i * ftetwild as usize;
                for k in 0..nnode {
                    out.element.push(node_tag(tag_at(at + 4 * (3 + k))?, n)?);
                }
            }
        }
    }
    Ok(out)
}

/// The head of a 2.2 ASCII section: its first line checked (digits only), then its count
/// read and bounded; `msgs` are the messages of the three checks. Gives the stream after the
/// count.
fn ascii22_count<'a>(
    sec: &'a [u8],
    msgs: [&str; 3],
    bound: u64,
) -> Result<(Text<'a>, u64), String> {
    if !header_line_is_digits(sec) {
        return err(msgs[0]);
    }
    let mut ss = Text::after_header_line(sec);
    let n = ss.size();
    if !ss.good() {
        return err(msgs[1]);
    }
    if n >= bound {
        return err(msgs[2]);
    }
    Ok((ss, n))
}

/// Whether `header + n·per` bytes fit in `len` (no wrap-around, unlike MuJoCo's `size_t`).
fn fits(len: usize, header: usize, n: u64, per: u64) -> bool {
    n.checked_mul(per)
        .and_then(|b| b.checked_add(header as u64))
        .is_some_and(|need| need <= len as u64)
}

/// The 2.2 ASCII check `IsValidElementOrNodeHeader22`: the section's first line (after the
/// keyword's line feed) is digits only; an empty line passes.
fn header_line_is_digits(sec: &[u8]) -> bool {
    sec.iter()
        .take_while(|&&c| c != b'\n')
        .all(u8::is_ascii_digit)
}

/// The count at the head of a binary 2.2 section and the length of its header, as MuJoCo
/// measures them: up to 10 bytes before a NUL, read by `std::stoi`, the header being that
/// length less one (the count's digits and its line feed, when the data after starts with a
/// byte other than NUL followed by a NUL).
fn binary_count(sec: &[u8], range_msg: &str) -> Result<(i64, usize), String> {
    let text: Vec<u8> = sec
        .iter()
        .take(10)
        .take_while(|&&c| c != 0)
        .copied()
        .collect();
    let Some(header) = text.len().checked_sub(1) else {
        return Err(UNEXPECTED.into());
    };
    // std::stoi: white space, a sign and digits (strtol); no digits throws an exception MuJoCo
    // does not name, a value out of int's range is its own message
    let mut t = Text::new(&text);
    match t.integer() {
        None => Err(UNEXPECTED.into()),
        Some((neg, Some(m))) if m <= i32::MAX as u64 + neg as u64 => {
            Ok((if neg { -(m as i64) } else { m as i64 }, header))
        }
        Some(_) => err(range_msg),
    }
}

/// Little-endian fields of a binary section at byte offsets the caller has checked.
struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn u64(&self, at: usize) -> u64 {
        u64::from_le_bytes(self.0[at..at + 8].try_into().expect("8 bytes"))
    }
    fn i32(&self, at: usize) -> i32 {
        i32::from_le_bytes(self.0[at..at + 4].try_into().expect("4 bytes"))
    }
    fn f64(&self, at: usize) -> f64 {
        f64::from_le_bytes(self.0[at..at + 8].try_into().expect("8 bytes"))
    }
}

/// Numbers read from text as MuJoCo's `std::stringstream` reads them (`ss >> x`, libc++):
/// white space skipped, then the characters the number's syntax may use, which must convert
/// whole. A read after a failure or after the end was reached fails (`good()` is false after
/// either, `fail` only after a failure); a failed read yields 0.
struct Text<'a> {
    s: &'a [u8],
    at: usize,
    fail: bool,
    eof: bool,
}

/// C's `isspace`.
fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

impl<'a> Text<'a> {
    fn new(s: &'a [u8]) -> Self {
        Text {
            s,
            at: 0,
            fail: false,
            eof: false,
        }
    }

    /// The stream as MuJoCo's 2.2 reader leaves it after its header line check (`getline`, then
    /// a seek back by the line and its line feed): at the start, or failed when the section has
    /// no line feed (the seek goes before the start).
    fn after_header_line(s: &'a [u8]) -> Self {
        let mut t = Text::new(s);
        t.fail = !s.contains(&b'\n');
        t
    }

    fn good(&self) -> bool {
        !self.fail && !self.eof
    }

    fn peek(&self) -> Option<u8> {
        self.s.get(self.at).copied()
    }

    /// The sentry of `>>`: fails on a stream that is not good, skips white space.
    fn sentry(&mut self) -> bool {
        if !self.good() {
            self.fail = true;
            return false;
        }
        while self.peek().is_some_and(is_space) {
            self.at += 1;
        }
        if self.at >= self.s.len() {
            self.eof = true;
            self.fail = true;
            return false;
        }
        true
    }

    /// Takes characters while `accept` (given the text taken so far) takes them.
    fn take(&mut self, mut accept: impl FnMut(&[u8], u8) -> bool) -> &'a [u8] {
        let start = self.at;
        while let Some(c) = self.peek() {
            if !accept(&self.s[start..self.at], c) {
                break;
            }
            self.at += 1;
        }
        if self.at >= self.s.len() {
            self.eof = true;
        }
        &self.s[start..self.at]
    }

    /// A sign and decimal digits (libc++'s integer stage): whether it is negative, and its
    /// magnitude, or None beyond 64 bits. None without digits.
    fn integer(&mut self) -> Option<(bool, Option<u64>)> {
        if !self.sentry() {
            return None;
        }
        let t = self.take(|so_far, c| {
            c.is_ascii_digit() || (so_far.is_empty() && (c == b'+' || c == b'-'))
        });
        let (neg, digits) = match t.first() {
            Some(b'-') => (true, &t[1..]),
            Some(b'+') => (false, &t[1..]),
            _ => (false, t),
        };
        if digits.is_empty() {
            self.fail = true;
            return None;
        }
        let mag = digits.iter().try_fold(0u64, |v, &c| {
            v.checked_mul(10)?.checked_add((c - b'0') as u64)
        });
        Some((neg, mag))
    }

    /// `size_t`: a negative value wraps, as `strtoull` does; beyond 64 bits fails.
    fn size(&mut self) -> u64 {
        match self.integer() {
            Some((neg, Some(m))) => {
                if neg {
                    m.wrapping_neg()
                } else {
                    m
                }
            }
            _ => {
                self.fail = true;
                0
            }
        }
    }

    /// `int`: beyond its range fails.
    fn int(&mut self) -> i32 {
        match self.integer() {
            Some((neg, Some(m))) if m <= i32::MAX as u64 + neg as u64 => {
                if neg {
                    (m as i64).wrapping_neg() as i32
                } else {
                    m as i32
                }
            }
            _ => {
                self.fail = true;
                0
            }
        }
    }

    /// `double`: libc++ takes the characters of `0-9a-fA-FxX+-pP` (a sign only first or after
    /// the exponent letter) and one point before the exponent, then `strtod` must convert all of
    /// them without a range error (no `inf` or `nan`, no overflow, no subnormal result).
    fn double(&mut self) -> f64 {
        if !self.sentry() {
            return 0.0;
        }
        let (mut point, mut exp) = (true, b'E');
        let t = self.take(|so_far, c| {
            if c == b'.' {
                let ok = point;
                point = false;
                return ok;
            }
            if c == b'+' || c == b'-' {
                return so_far.is_empty()
                    || so_far.last().map(|l| l.to_ascii_uppercase())
                        == Some(exp.to_ascii_uppercase());
            }
            if !(c.is_ascii_hexdigit() || matches!(c, b'x' | b'X' | b'p' | b'P')) {
                return false;
            }
            if c == b'x' || c == b'X' {
                exp = b'P';
            } else if c.to_ascii_uppercase() == exp {
                exp = exp.to_ascii_lowercase();
                point = false;
            }
            true
        });
        match strtod_whole(t) {
            Some(v) => v,
            None => {
                self.fail = true;
                0.0
            }
        }
    }
}

/// `strtod` on the whole of `t`: None unless it converts every character, and on a range error
/// (an infinite result, or a subnormal or zero one from non-zero digits).
fn strtod_whole(t: &[u8]) -> Option<f64> {
    let (neg, body) = match t.first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let hex = body.len() > 2 && (body.starts_with(b"0x") || body.starts_with(b"0X"));
    let (v, mantissa) = if hex {
        let m = &body[2..];
        let end = m
            .iter()
            .position(|c| matches!(c, b'p' | b'P'))
            .unwrap_or(m.len());
        (hex_float(m)?, &m[..end])
    } else {
        // the decimal syntax; Rust's parser agrees with strtod on it (and the characters taken
        // above cannot spell `inf` or `nan`)
        let s = std::str::from_utf8(body).ok()?;
        if s.is_empty() || s.starts_with(['+', '-']) {
            return None;
        }
        let end = body
            .iter()
            .position(|c| matches!(c, b'e' | b'E'))
            .unwrap_or(body.len());
        (crate::decimal::parse_f64(s)?, &body[..end])
    };
    let nonzero = mantissa.iter().any(|c| c.is_ascii_hexdigit() && *c != b'0');
    if v.is_infinite() || (v != 0.0 && v.abs() < f64::MIN_POSITIVE) || (v == 0.0 && nonzero) {
        return None;
    }
    Some(if neg { -v } else { v })
}

/// A hexadecimal float after its `0x`: hex digits with an optional point, then an optional
/// binary exponent `p±d`.
fn hex_float(t: &[u8]) -> Option<f64> {
    let (mant, exp) = match t.iter().position(|c| matches!(c, b'p' | b'P')) {
        Some(i) => (&t[..i], Some(&t[i + 1..])),
        None => (t, None),
    };
    let (mut m, mut scale, mut after_point, mut digits) = (0u64, 0i64, false, 0);
    for &c in mant {
        if c == b'.' {
            if after_point {
                return None;
            }
            after_point = true;
            continue;
        }
        let d = (c as char).to_digit(16)? as u64;
        digits += 1;
        // beyond 60 bits a digit no longer changes the rounded value (but for a tie), only
        // the scale
        if m < (1u64 << 56) {
            m = m * 16 + d;
            if after_point {
                scale -= 4;
            }
        } else if !after_point {
            scale += 4;
        }
    }
    if digits == 0 {
        return None;
    }
    let e: i64 = match exp {
        None => 0,
        Some(e) => {
            let s = std::str::from_utf8(e).ok()?;
            if s.is_empty() || s == "+" || s == "-" {
                return None;
            }
            s.parse::<i64>().ok()?.clamp(-100_000, 100_000)
        }
    };
    let p = (e + scale).clamp(-3000, 3000) as i32;
    // m as f64 rounds once; the powers of two are exact
    let q = p.clamp(-1022, 1023);
    Some(m as f64 * pow2(q) * pow2((p - q).clamp(-1022, 1023)))
}

/// `2^p` for `p` in the normal range, from its bits.
fn pow2(p: i32) -> f64 {
    f64::from_bits(((p + 1023) as u64) << 52)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TET41: &str =
        "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Nodes\n1 4 1 4\n3 1 0 4\n1\n2\n3\n4\n\
        0 0 0\n1 0 0\n0 1 0\n0 0 1\n$EndNodes\n$Elements\n1 1 1 1\n3 1 4 1\n1 1 2 3 4\n\
        $EndElements\n";

    #[test]
    fn ascii_41_tetrahedron() {
        let g = load(TET41.as_bytes()).unwrap();
        assert_eq!(g.dim, 3);
        assert_eq!(g.point.len(), 12);
        assert_eq!(g.point[3], 1.0);
        assert_eq!(g.element, vec![0, 1, 2, 3]);
    }

    #[test]
    fn ascii_22_triangles() {
        let f = "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n3\n1 0 0 0\n2 1 0 0\n3 0 1 0\n\
            $EndNodes\n$Elements\n1\n1 2 2 0 1 1 2 3\n$EndElements\n";
        let g = load(f.as_bytes()).unwrap();
        assert_eq!((g.dim, g.element), (2, vec![0, 1, 2]));
    }

    #[test]
    fn binary_41_round_trip() {
        let mut f = b"$MeshFormat\n4.1 1 8\n$EndMeshFormat\n$Nodes\n".to_vec();
        let u = |f: &mut Vec<u8>, v: u64| f.extend_from_slice(&v.to_le_bytes());
        let i = |f: &mut Vec<u8>, v: i32| f.extend_from_slice(&v.to_le_bytes());
        for v in [1, 3, 1, 3] {
            u(&mut f, v);
        }
        for v in [2, 1, 0] {
            i(&mut f, v);
        }
        u(&mut f, 3);
        for t in 1..=3 {
            u(&mut f, t);
        }
        for x in [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0f64] {
            f.extend_from_slice(&x.to_le_bytes());
        }
        f.extend_from_slice(b"\n$EndNodes\n$Elements\n");
        for v in [1, 1, 1, 1] {
            u(&mut f, v);
        }
        for v in [2, 1, 2] {
            i(&mut f, v);
        }
        u(&mut f, 1);
        for v in [1, 3, 1, 2] {
            u(&mut f, v);
        }
        f.extend_from_slice(b"\n$EndElements\n");
        let g = load(&f).unwrap();
        assert_eq!((g.dim, g.element), (2, vec![2, 0, 1]));
        assert_eq!(g.point[7], 1.0);
    }

    #[test]
    fn malformed_files_name_what_is_wrong() {
        let cases = [
            ("", "Empty GMSH file"),
            ("$Mesh", "GMSH file must begin with $MeshFormat"),
            ("$MeshFormat\nx", "Could not read GMSH file header"),
            (
                "$MeshFormat\n3.0 0 8\n",
                "Only GMSH file format versions 4.1 and 2.2 are supported",
            ),
            (
                "$MeshFormat\n4.1 0 8\n$Nodes\n1 2 3\n",
                "GMSH file missing $Elements",
            ),
            (
                "$MeshFormat\n4.1 0 8\n$Nodes\n1 2 3\n$Elements\n$EndElements",
                "GMSH file missing $EndNodes after $Nodes",
            ),
        ];
        for (file, msg) in cases {
            assert_eq!(
                load(file.as_bytes()).unwrap_err(),
                format!("Error: {msg}"),
                "{file:?}"
            );
        }
        let two_blocks = TET41.replace("1 4 1 4\n", "2 4 1 4\n");
        assert_eq!(
            load(two_blocks.as_bytes()).unwrap_err(),
            "Error: All nodes must be in single block"
        );
        let short = TET41.replace("0 0 1\n$EndNodes", "0 0\n$EndNodes");
        assert_eq!(
            load(short.as_bytes()).unwrap_err(),
            "Error: Error reading node coordinates"
        );
        // a binary count far beyond the file is refused, never read past the end
        let mut huge = b"$MeshFormat\n4.1 1 8\n$Nodes\n".to_vec();
        for v in [1u64, 1 << 60, 1, 1 << 60] {
            huge.extend_from_slice(&v.to_le_bytes());
        }
        huge.extend_from_slice(&[3, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0]);
        huge.extend_from_slice(&(1u64 << 60).to_le_bytes());
        huge.extend_from_slice(b"\n$EndNodes\n$Elements\n\n$EndElements\n");
        assert_eq!(
            load(&huge).unwrap_err(),
            "Error: Insufficient byte size of Nodes"
        );
    }

    /// Coordinates read as MuJoCo 3.15.0 read them when probed with each of these in place of
    /// a node's x (the README's examples; scripts/oracle/gmsh-differential.py inserts them
    /// too): libc++'s stream, not Rust's or C's parser.
    #[test]
    fn coordinates_read_as_mujoco_reads_them() {
        let x = |text: &str| {
            let f = TET41.replace("\n1 0 0\n", &format!("\n{text} 0 0\n"));
            load(f.as_bytes()).map(|g| g.point[3])
        };
        assert_eq!(x("0x1p3"), Ok(8.0));
        assert_eq!(x("1.5e2"), Ok(150.0));
        assert_eq!(x("\x0b2"), Ok(2.0)); // a vertical tab is white space
        for bad in ["1e-310", "inf", "nan", "0.x", "1e3080"] {
            assert_eq!(
                x(bad),
                Err("Error: Error reading node coordinates".into()),
                "{bad}"
            );
        }
        // 3.15.0 finds a keyword that ends the file (the 3.12 source stops one byte short)
        let end = TET41.trim_end_matches('\n');
        assert!(load(end.as_bytes()).is_ok());
    }
}
