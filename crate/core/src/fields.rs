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

/// Conversion of a typed slice into a [`FieldRef`].
pub trait IntoField {
    fn field(s: &[Self], cols: usize) -> FieldRef<'_>
    where
        Self: Sized;
}

impl IntoField for f64 {
    fn field(s: &[f64], cols: usize) -> FieldRef<'_> {
        FieldRef::F64(s, cols)
    }
}
impl IntoField for f32 {
    fn field(s: &[f32], cols: usize) -> FieldRef<'_> {
        FieldRef::F32(s, cols)
    }
}
impl IntoField for i32 {
    fn field(s: &[i32], cols: usize) -> FieldRef<'_> {
        FieldRef::I32(s, cols)
    }
}
impl IntoField for u8 {
    fn field(s: &[u8], cols: usize) -> FieldRef<'_> {
        FieldRef::U8(s, cols)
    }
}

impl<'a> FieldRef<'a> {
    pub fn from_slice<T: IntoField>(s: &'a [T], cols: usize) -> Self {
        T::field(s, cols)
    }
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
