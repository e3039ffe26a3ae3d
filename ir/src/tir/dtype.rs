//! Scalar and vector data types, spelled the way TVMScript spells them
//! (`"float32"`, `"int64"`, `"bool"`, `"float32x4"`).

use std::fmt;

/// The kind of a scalar: the first half of a TVM dtype string.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ScalarKind {
    Bool,
    Int,
    UInt,
    Float,
    /// An opaque pointer (`T.handle`).
    Handle,
}

/// A data type: scalar kind, bit width and vector lanes (1 for scalars).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DataType {
    pub kind: ScalarKind,
    pub bits: u8,
    pub lanes: u16,
}

impl DataType {
    pub const fn new(kind: ScalarKind, bits: u8) -> Self {
        DataType {
            kind,
            bits,
            lanes: 1,
        }
    }
    pub const fn bool() -> Self {
        Self::new(ScalarKind::Bool, 1)
    }
    pub const fn int(bits: u8) -> Self {
        Self::new(ScalarKind::Int, bits)
    }
    pub const fn uint(bits: u8) -> Self {
        Self::new(ScalarKind::UInt, bits)
    }
    pub const fn float(bits: u8) -> Self {
        Self::new(ScalarKind::Float, bits)
    }
    pub const fn handle() -> Self {
        Self::new(ScalarKind::Handle, 64)
    }
    /// No value (`"void"`, TVM's zero-bit handle): the result type of an
    /// external call made for its effect (`T.call_extern(..., dtype="")`).
    pub const fn void() -> Self {
        Self::new(ScalarKind::Handle, 0)
    }
    pub const fn i32() -> Self {
        Self::int(32)
    }
    pub const fn i64() -> Self {
        Self::int(64)
    }
    pub const fn f32() -> Self {
        Self::float(32)
    }
    pub const fn f64() -> Self {
        Self::float(64)
    }

    pub const fn with_lanes(self, lanes: u16) -> Self {
        DataType { lanes, ..self }
    }
    /// The scalar type of one lane.
    pub const fn element(self) -> Self {
        self.with_lanes(1)
    }
    pub fn is_scalar(self) -> bool {
        self.lanes == 1
    }
    pub fn is_bool(self) -> bool {
        self.kind == ScalarKind::Bool
    }
    pub fn is_int(self) -> bool {
        self.kind == ScalarKind::Int
    }
    pub fn is_uint(self) -> bool {
        self.kind == ScalarKind::UInt
    }
    /// Signed or unsigned integer (not bool).
    pub fn is_integer(self) -> bool {
        matches!(self.kind, ScalarKind::Int | ScalarKind::UInt)
    }
    pub fn is_float(self) -> bool {
        self.kind == ScalarKind::Float
    }
    pub fn is_handle(self) -> bool {
        self.kind == ScalarKind::Handle
    }
    /// Size of one element in bytes (bool occupies one byte in memory).
    pub fn bytes(self) -> usize {
        let bits = if self.is_bool() {
            8
        } else {
            self.bits as usize
        };
        bits.div_ceil(8) * self.lanes as usize
    }

    /// Parses a TVM dtype string: `bool`, `int8`…`int64`, `uint8`…`uint64`,
    /// `float16`/`float32`/`float64`, `handle`, with an optional `xN` lane suffix.
    pub fn parse(text: &str) -> Option<DataType> {
        let (base, lanes) = match text.rfind('x') {
            Some(pos)
                if pos > 0
                    && text[pos + 1..].chars().all(|c| c.is_ascii_digit())
                    && pos + 1 < text.len() =>
            {
                let lanes: u16 = text[pos + 1..].parse().ok()?;
                if lanes == 0 {
                    return None;
                }
                (&text[..pos], lanes)
            }
            _ => (text, 1),
        };
        let scalar = match base {
            "bool" => DataType::bool(),
            "handle" => DataType::handle(),
            "void" => DataType::void(),
            _ => {
                let (kind, digits) = if let Some(d) = base.strip_prefix("uint") {
                    (ScalarKind::UInt, d)
                } else if let Some(d) = base.strip_prefix("int") {
                    (ScalarKind::Int, d)
                } else if let Some(d) = base.strip_prefix("float") {
                    (ScalarKind::Float, d)
                } else {
                    return None;
                };
                let bits: u8 = digits.parse().ok()?;
                let ok = match kind {
                    ScalarKind::Float => matches!(bits, 16 | 32 | 64),
                    _ => matches!(bits, 8 | 16 | 32 | 64),
                };
                if !ok {
                    return None;
                }
                DataType::new(kind, bits)
            }
        };
        Some(scalar.with_lanes(lanes))
    }
}

impl fmt::Display for DataType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            ScalarKind::Bool => write!(f, "bool")?,
            ScalarKind::Handle if self.bits == 0 => write!(f, "void")?,
            ScalarKind::Handle => write!(f, "handle")?,
            ScalarKind::Int => write!(f, "int{}", self.bits)?,
            ScalarKind::UInt => write!(f, "uint{}", self.bits)?,
            ScalarKind::Float => write!(f, "float{}", self.bits)?,
        }
        if self.lanes != 1 {
            write!(f, "x{}", self.lanes)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_print_round_trip() {
        for s in [
            "bool",
            "int8",
            "int64",
            "uint16",
            "float16",
            "float32",
            "float64",
            "handle",
            "void",
            "float32x4",
            "int32x8",
        ] {
            let dt = DataType::parse(s).unwrap_or_else(|| panic!("{s} should parse"));
            assert_eq!(dt.to_string(), s);
        }
        for s in ["float8", "int7", "", "x4", "float32x0", "complex64", "int"] {
            assert!(DataType::parse(s).is_none(), "{s} should not parse");
        }
        assert_eq!(DataType::parse("float32x4").unwrap().bytes(), 16);
        assert_eq!(DataType::bool().bytes(), 1);
    }
}
