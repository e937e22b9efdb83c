//! Named array views shared by [`crate::Model`] and [`crate::Data`]: the inspector, the
//! wasm API and the lesson checker read fields by MuJoCo's names through these.

/// A borrowed array with its row width (`cols`), as MuJoCo lays it out.
#[derive(Debug, Clone, Copy)]
pub enum FieldRef<'a> {
    F64(&'a [f64], usize),
    F32(&'a [f32], usize),
    I32(&'a [i32], usize),
    U8(&'a [u8], usize),
}

/// The reader of one array field of `S` ([`crate::Model`] or the data arrays) in a field table:
/// a function returning the array, tagged with its element type. The tables hold these as data;
/// the [`FieldRef`] is built in one place ([`Reader::read`]), where a table of closures that
/// each built it was 8 kB of the browser build.
pub enum Reader<S> {
    F64(for<'a> fn(&'a S) -> &'a Vec<f64>),
    F32(for<'a> fn(&'a S) -> &'a Vec<f32>),
    I32(for<'a> fn(&'a S) -> &'a Vec<i32>),
    U8(for<'a> fn(&'a S) -> &'a Vec<u8>),
}

impl<S> Reader<S> {
    /// The field of `s`, with `cols` values per row.
    pub fn read<'a>(&self, s: &'a S, cols: usize) -> FieldRef<'a> {
        match *self {
            Reader::F64(f) => FieldRef::F64(f(s), cols),
            Reader::F32(f) => FieldRef::F32(f(s), cols),
            Reader::I32(f) => FieldRef::I32(f(s), cols),
            Reader::U8(f) => FieldRef::U8(f(s), cols),
        }
    }
}

/// `Reader` variant for an element type named by its identifier (in the field macros).
macro_rules! reader {
    (f64, $f:expr) => {
        $crate::fields::Reader::F64($f)
    };
    (f32, $f:expr) => {
        $crate::fields::Reader::F32($f)
    };
    (i32, $f:expr) => {
        $crate::fields::Reader::I32($f)
    };
    (u8, $f:expr) => {
        $crate::fields::Reader::U8($f)
    };
}
pub(crate) use reader;

impl<'a> FieldRef<'a> {
    /// Number of scalars.
    pub fn len(&self) -> usize {
        match self {
            FieldRef::F64(s, _) => s.len(),
            FieldRef::F32(s, _) => s.len(),
            FieldRef::I32(s, _) => s.len(),
            FieldRef::U8(s, _) => s.len(),
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Values per row.
    pub fn cols(&self) -> usize {
        match self {
            FieldRef::F64(_, c)
            | FieldRef::F32(_, c)
            | FieldRef::I32(_, c)
            | FieldRef::U8(_, c) => (*c).max(1),
        }
    }
    /// MuJoCo's element type name.
    pub fn type_name(&self) -> &'static str {
        match self {
            FieldRef::F64(..) => "mjtNum",
            FieldRef::F32(..) => "float",
            FieldRef::I32(..) => "int",
            FieldRef::U8(..) => "mjtByte",
        }
    }
    /// Value `i` widened to f64.
    pub fn get(&self, i: usize) -> f64 {
        match self {
            FieldRef::F64(s, _) => s[i],
            FieldRef::F32(s, _) => s[i] as f64,
            FieldRef::I32(s, _) => s[i] as f64,
            FieldRef::U8(s, _) => s[i] as f64,
        }
    }
    /// All values widened to f64.
    pub fn to_f64(&self) -> Vec<f64> {
        (0..self.len()).map(|i| self.get(i)).collect()
    }
}
