//! `NDArray`: a dense, row-major, typed host array — the interpreter's
//! arguments and results, and what the CLI and the script interpreter print.

use std::fmt;

use super::rng::Rng;
use super::scalar::{cast, round_to_f16, NumTy, V};
use crate::DataType;

/// Why an NDArray could not be made, read or written. Displays as the
/// message the interpreters and the CLI print.
#[derive(Clone, Debug, PartialEq)]
pub enum NDArrayError {
    /// The allocator refused `elements` elements.
    AllocationFailed { elements: usize },
    /// The product of the dimensions overflows `usize`.
    TooManyElements { shape: Vec<usize> },
    /// Arrays hold scalars only.
    VectorDtype(DataType),
    /// No element storage for this dtype.
    UnsupportedDtype(DataType),
    /// A shape and a number of given elements disagree.
    LengthMismatch {
        shape: Vec<usize>,
        needed: usize,
        given: usize,
    },
    /// `index` (its `{:?}` text: a flat offset or a multi-index) is outside `shape`.
    IndexOutOfBounds { index: String, shape: Vec<usize> },
    /// A byte buffer's length is not the array's size in bytes.
    ByteLengthMismatch {
        bytes: usize,
        elements: usize,
        dtype: DataType,
    },
    /// [`allclose`]: the shapes differ.
    ShapeMismatch { a: Vec<usize>, b: Vec<usize> },
    /// [`allclose`]: some elements differ by more than the tolerance.
    NotClose {
        index: Vec<usize>,
        a: f64,
        b: f64,
        rtol: f64,
        atol: f64,
        count: usize,
        elements: usize,
        max_diff: f64,
    },
}

impl fmt::Display for NDArrayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NDArrayError::AllocationFailed { elements } => {
                write!(f, "cannot allocate {elements} elements")
            }
            NDArrayError::TooManyElements { shape } => {
                write!(f, "shape {shape:?} has too many elements")
            }
            NDArrayError::VectorDtype(dtype) => write!(
                f,
                "arrays of vector dtype {dtype} are not supported; use a scalar dtype"
            ),
            NDArrayError::UnsupportedDtype(dtype) => {
                write!(f, "arrays of dtype {dtype} are not supported")
            }
            NDArrayError::LengthMismatch {
                shape,
                needed,
                given,
            } => write!(
                f,
                "shape {shape:?} needs {needed} elements but {given} were given"
            ),
            NDArrayError::IndexOutOfBounds { index, shape } => {
                write!(f, "index {index} out of bounds for shape {shape:?}")
            }
            NDArrayError::ByteLengthMismatch {
                bytes,
                elements,
                dtype,
            } => write!(f, "{bytes} bytes given for {elements} elements of {dtype}"),
            NDArrayError::ShapeMismatch { a, b } => write!(f, "shape mismatch: {a:?} vs {b:?}"),
            NDArrayError::NotClose {
                index,
                a,
                b,
                rtol,
                atol,
                count,
                elements,
                max_diff,
            } => write!(
                f,
                "arrays differ at index {index:?}: {a:?} vs {b:?} (|diff| {:e} > atol {atol:e} + rtol {rtol:e} * |b|); \
                 {count} of {elements} elements differ, max |diff| {max_diff:e}",
                (a - b).abs(),
            ),
        }
    }
}

impl std::error::Error for NDArrayError {}

/// Callers that report plain text keep using `?`.
impl From<NDArrayError> for String {
    fn from(e: NDArrayError) -> String {
        e.to_string()
    }
}

/// Typed element storage. `float16` is kept as `f32` values that are always
/// exactly representable in half precision (every store rounds).
#[derive(Clone, Debug, PartialEq)]
pub enum Data {
    Bool(Vec<bool>),
    I8(Vec<i8>),
    I16(Vec<i16>),
    I32(Vec<i32>),
    I64(Vec<i64>),
    U8(Vec<u8>),
    U16(Vec<u16>),
    U32(Vec<u32>),
    U64(Vec<u64>),
    F32(Vec<f32>),
    F64(Vec<f64>),
}

fn try_filled<T: Clone>(n: usize, value: T) -> Result<Vec<T>, NDArrayError> {
    let mut v = Vec::new();
    v.try_reserve_exact(n)
        .map_err(|_| NDArrayError::AllocationFailed { elements: n })?;
    v.resize(n, value);
    Ok(v)
}

fn refill<T: Clone>(v: &mut Vec<T>, n: usize, value: T) -> Result<(), NDArrayError> {
    v.clear();
    v.try_reserve_exact(n)
        .map_err(|_| NDArrayError::AllocationFailed { elements: n })?;
    v.resize(n, value);
    Ok(())
}

impl Data {
    /// An empty placeholder (no allocation).
    pub fn empty() -> Data {
        Data::F32(Vec::new())
    }

    pub fn zeros(ty: NumTy, n: usize) -> Result<Data, NDArrayError> {
        Ok(match ty {
            NumTy::Bool => Data::Bool(try_filled(n, false)?),
            NumTy::I8 => Data::I8(try_filled(n, 0)?),
            NumTy::I16 => Data::I16(try_filled(n, 0)?),
            NumTy::I32 => Data::I32(try_filled(n, 0)?),
            NumTy::I64 => Data::I64(try_filled(n, 0)?),
            NumTy::U8 => Data::U8(try_filled(n, 0)?),
            NumTy::U16 => Data::U16(try_filled(n, 0)?),
            NumTy::U32 => Data::U32(try_filled(n, 0)?),
            NumTy::U64 => Data::U64(try_filled(n, 0)?),
            NumTy::F16 | NumTy::F32 => Data::F32(try_filled(n, 0.0)?),
            NumTy::F64 => Data::F64(try_filled(n, 0.0)?),
        })
    }

    /// Makes this storage `n` zeros of type `ty`, reusing its allocation when
    /// the element type already matches.
    pub fn reset_zeros(&mut self, ty: NumTy, n: usize) -> Result<(), NDArrayError> {
        match (ty, &mut *self) {
            (NumTy::Bool, Data::Bool(v)) => refill(v, n, false),
            (NumTy::I8, Data::I8(v)) => refill(v, n, 0),
            (NumTy::I16, Data::I16(v)) => refill(v, n, 0),
            (NumTy::I32, Data::I32(v)) => refill(v, n, 0),
            (NumTy::I64, Data::I64(v)) => refill(v, n, 0),
            (NumTy::U8, Data::U8(v)) => refill(v, n, 0),
            (NumTy::U16, Data::U16(v)) => refill(v, n, 0),
            (NumTy::U32, Data::U32(v)) => refill(v, n, 0),
            (NumTy::U64, Data::U64(v)) => refill(v, n, 0),
            (NumTy::F16 | NumTy::F32, Data::F32(v)) => refill(v, n, 0.0),
            (NumTy::F64, Data::F64(v)) => refill(v, n, 0.0),
            _ => {
                *self = Data::zeros(ty, n)?;
                Ok(())
            }
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn len(&self) -> usize {
        match self {
            Data::Bool(v) => v.len(),
            Data::I8(v) => v.len(),
            Data::I16(v) => v.len(),
            Data::I32(v) => v.len(),
            Data::I64(v) => v.len(),
            Data::U8(v) => v.len(),
            Data::U16(v) => v.len(),
            Data::U32(v) => v.len(),
            Data::U64(v) => v.len(),
            Data::F32(v) => v.len(),
            Data::F64(v) => v.len(),
        }
    }

    /// Element `i` as an interpreter value.
    #[inline]
    pub fn load(&self, i: usize) -> Option<V> {
        Some(match self {
            Data::F32(v) => V::from_f(*v.get(i)? as f64),
            Data::F64(v) => V::from_f(*v.get(i)?),
            Data::I32(v) => V::from_i(*v.get(i)? as i64),
            Data::I64(v) => V::from_i(*v.get(i)?),
            Data::Bool(v) => V::from_bool(*v.get(i)?),
            Data::I8(v) => V::from_i(*v.get(i)? as i64),
            Data::I16(v) => V::from_i(*v.get(i)? as i64),
            Data::U8(v) => V::from_i(*v.get(i)? as i64),
            Data::U16(v) => V::from_i(*v.get(i)? as i64),
            Data::U32(v) => V::from_i(*v.get(i)? as i64),
            Data::U64(v) => V::from_i(*v.get(i)? as i64),
        })
    }

    /// Stores an interpreter value already of this storage's element type
    /// (for `float16`, already rounded). Returns false when out of range.
    #[inline]
    pub fn store(&mut self, i: usize, x: V) -> bool {
        macro_rules! put {
            ($v:expr, $val:expr) => {
                match $v.get_mut(i) {
                    Some(slot) => {
                        *slot = $val;
                        true
                    }
                    None => false,
                }
            };
        }
        match self {
            Data::F32(v) => put!(v, x.as_f() as f32),
            Data::F64(v) => put!(v, x.as_f()),
            Data::I32(v) => put!(v, x.as_i() as i32),
            Data::I64(v) => put!(v, x.as_i()),
            Data::Bool(v) => put!(v, x.is_true()),
            Data::I8(v) => put!(v, x.as_i() as i8),
            Data::I16(v) => put!(v, x.as_i() as i16),
            Data::U8(v) => put!(v, x.as_i() as u8),
            Data::U16(v) => put!(v, x.as_i() as u16),
            Data::U32(v) => put!(v, x.as_i() as u32),
            Data::U64(v) => put!(v, x.as_i() as u64),
        }
    }
}

/// Sum and sum of squares of all elements, accumulated in `f64` in order.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Checksum {
    pub sum: f64,
    pub sum_sq: f64,
}

impl fmt::Display for Checksum {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "sum={:e} sum_sq={:e}", self.sum, self.sum_sq)
    }
}

/// A dense row-major array of one scalar dtype.
///
/// Fields are private so the invariants hold: the storage variant matches
/// `dtype`, its length is the product of `shape`, and `float16` elements are
/// always rounded to half precision. Read them through [`NDArray::dtype`] and
/// [`NDArray::shape`].
#[derive(Clone, Debug, PartialEq)]
pub struct NDArray {
    dtype: DataType,
    shape: Vec<usize>,
    pub data: Data,
}

fn numel(shape: &[usize]) -> Result<usize, NDArrayError> {
    shape
        .iter()
        .try_fold(1usize, |acc, &d| acc.checked_mul(d))
        .ok_or_else(|| NDArrayError::TooManyElements {
            shape: shape.to_vec(),
        })
}

pub fn num_ty(dtype: DataType) -> Result<NumTy, NDArrayError> {
    if !dtype.is_scalar() {
        return Err(NDArrayError::VectorDtype(dtype));
    }
    NumTy::of(dtype).ok_or(NDArrayError::UnsupportedDtype(dtype))
}

impl NDArray {
    /// An array of zeros (`False` for bool).
    pub fn zeros(dtype: DataType, shape: &[usize]) -> Result<NDArray, NDArrayError> {
        let ty = num_ty(dtype)?;
        let n = numel(shape)?;
        Ok(NDArray {
            dtype,
            shape: shape.to_vec(),
            data: Data::zeros(ty, n)?,
        })
    }

    /// A 0-d array holding `value` converted to `dtype` (as by a cast from float64).
    pub fn scalar_f64(dtype: DataType, value: f64) -> Result<NDArray, NDArrayError> {
        let mut a = NDArray::zeros(dtype, &[])?;
        a.set_flat_f64(0, value)?;
        Ok(a)
    }

    /// A 0-d array holding `value` converted to `dtype` (as by a cast from int64).
    pub fn scalar_i64(dtype: DataType, value: i64) -> Result<NDArray, NDArrayError> {
        let mut a = NDArray::zeros(dtype, &[])?;
        a.set_flat_i64(0, value)?;
        Ok(a)
    }

    fn check_len(shape: &[usize], len: usize) -> Result<(), NDArrayError> {
        let n = numel(shape)?;
        if n != len {
            return Err(NDArrayError::LengthMismatch {
                shape: shape.to_vec(),
                needed: n,
                given: len,
            });
        }
        Ok(())
    }

    /// A `float32` array taking ownership of `data` (row-major).
    pub fn from_f32(shape: &[usize], data: Vec<f32>) -> Result<NDArray, NDArrayError> {
        NDArray::check_len(shape, data.len())?;
        Ok(NDArray {
            dtype: DataType::f32(),
            shape: shape.to_vec(),
            data: Data::F32(data),
        })
    }

    /// A `float64` array taking ownership of `data` (row-major).
    pub fn from_f64(shape: &[usize], data: Vec<f64>) -> Result<NDArray, NDArrayError> {
        NDArray::check_len(shape, data.len())?;
        Ok(NDArray {
            dtype: DataType::f64(),
            shape: shape.to_vec(),
            data: Data::F64(data),
        })
    }

    /// An array of any dtype from `f64` values, each converted as by a cast.
    pub fn from_f64_as(
        dtype: DataType,
        shape: &[usize],
        data: &[f64],
    ) -> Result<NDArray, NDArrayError> {
        NDArray::check_len(shape, data.len())?;
        let mut a = NDArray::zeros(dtype, shape)?;
        for (i, &x) in data.iter().enumerate() {
            a.set_flat_f64(i, x)?;
        }
        Ok(a)
    }

    /// An array of any dtype from `i64` values, each converted as by a cast
    /// (integers wrap to the dtype's width).
    pub fn from_i64(
        dtype: DataType,
        shape: &[usize],
        data: &[i64],
    ) -> Result<NDArray, NDArrayError> {
        NDArray::check_len(shape, data.len())?;
        let mut a = NDArray::zeros(dtype, shape)?;
        for (i, &x) in data.iter().enumerate() {
            a.set_flat_i64(i, x)?;
        }
        Ok(a)
    }

    /// Random contents from `rng`: floats uniform in `[-1, 1)` (rounded to the
    /// dtype), signed integers uniform in `[-8, 8)`, unsigned in `[0, 16)`,
    /// bools fair coins.
    pub fn random(
        dtype: DataType,
        shape: &[usize],
        rng: &mut Rng,
    ) -> Result<NDArray, NDArrayError> {
        let mut a = NDArray::zeros(dtype, shape)?;
        let ty = num_ty(dtype)?;
        match &mut a.data {
            Data::F32(v) => {
                for x in v.iter_mut() {
                    let r = rng.next_f32() * 2.0 - 1.0;
                    *x = if ty == NumTy::F16 {
                        round_to_f16(r as f64) as f32
                    } else {
                        r
                    };
                }
            }
            Data::F64(v) => {
                for x in v.iter_mut() {
                    *x = rng.next_f64() * 2.0 - 1.0;
                }
            }
            Data::Bool(v) => {
                for x in v.iter_mut() {
                    *x = rng.next_u64() & 1 == 1;
                }
            }
            _ => {
                let (lo, hi) = match ty {
                    NumTy::U8 | NumTy::U16 | NumTy::U32 | NumTy::U64 => (0, 16),
                    _ => (-8, 8),
                };
                for i in 0..a.len() {
                    let r = rng.range_i64(lo, hi);
                    a.data.store(i, V::from_i(r));
                }
            }
        }
        Ok(a)
    }

    pub fn dtype(&self) -> DataType {
        self.dtype
    }
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }
    pub fn ndim(&self) -> usize {
        self.shape.len()
    }
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.data.len()
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn ty(&self) -> NumTy {
        // The constructors only accept dtypes with a NumTy.
        NumTy::of(self.dtype).unwrap_or(NumTy::F32)
    }

    /// The same elements under another shape with the same element count.
    pub fn reshape(&self, shape: &[usize]) -> Result<NDArray, NDArrayError> {
        NDArray::check_len(shape, self.len())?;
        Ok(NDArray {
            dtype: self.dtype,
            shape: shape.to_vec(),
            data: self.data.clone(),
        })
    }

    /// The row-major offset of a multi-dimensional index, if it is in bounds.
    pub fn flat_index(&self, index: &[usize]) -> Option<usize> {
        if index.len() != self.shape.len() {
            return None;
        }
        let mut flat = 0usize;
        for (&i, &d) in index.iter().zip(&self.shape) {
            if i >= d {
                return None;
            }
            flat = flat * d + i;
        }
        Some(flat)
    }

    pub fn get_v(&self, flat: usize) -> Option<V> {
        self.data.load(flat)
    }

    /// Element `flat` (row-major) as an `f64` (`uint64` and `int64` may round).
    pub fn get_flat_f64(&self, flat: usize) -> Option<f64> {
        Some(self.get_v(flat)?.to_f64(self.ty()))
    }
    /// Element `flat` (row-major) as an `i64` (floats truncate, saturating;
    /// `uint64` keeps its bit pattern).
    pub fn get_flat_i64(&self, flat: usize) -> Option<i64> {
        Some(self.get_v(flat)?.to_i64(self.ty()))
    }
    pub fn get_f64(&self, index: &[usize]) -> Option<f64> {
        self.get_flat_f64(self.flat_index(index)?)
    }
    pub fn get_i64(&self, index: &[usize]) -> Option<i64> {
        self.get_flat_i64(self.flat_index(index)?)
    }

    fn out_of_range(&self, what: impl fmt::Debug) -> NDArrayError {
        NDArrayError::IndexOutOfBounds {
            index: format!("{what:?}"),
            shape: self.shape.clone(),
        }
    }

    /// Sets element `flat` from an `f64`, converted as by a cast.
    pub fn set_flat_f64(&mut self, flat: usize, value: f64) -> Result<(), NDArrayError> {
        let v = cast(NumTy::F64, self.ty(), V::from_f(value));
        if self.data.store(flat, v) {
            Ok(())
        } else {
            Err(self.out_of_range(flat))
        }
    }
    /// Sets element `flat` from an `i64`, converted as by a cast.
    pub fn set_flat_i64(&mut self, flat: usize, value: i64) -> Result<(), NDArrayError> {
        let v = cast(NumTy::I64, self.ty(), V::from_i(value));
        if self.data.store(flat, v) {
            Ok(())
        } else {
            Err(self.out_of_range(flat))
        }
    }
    pub fn set_f64(&mut self, index: &[usize], value: f64) -> Result<(), NDArrayError> {
        let flat = self
            .flat_index(index)
            .ok_or_else(|| self.out_of_range(index))?;
        self.set_flat_f64(flat, value)
    }
    pub fn set_i64(&mut self, index: &[usize], value: i64) -> Result<(), NDArrayError> {
        let flat = self
            .flat_index(index)
            .ok_or_else(|| self.out_of_range(index))?;
        self.set_flat_i64(flat, value)
    }

    /// All elements as `f64`, row-major.
    pub fn to_f64_vec(&self) -> Vec<f64> {
        (0..self.len())
            .filter_map(|i| self.get_flat_f64(i))
            .collect()
    }
    /// All elements as `i64`, row-major.
    pub fn to_i64_vec(&self) -> Vec<i64> {
        (0..self.len())
            .filter_map(|i| self.get_flat_i64(i))
            .collect()
    }
    /// The elements of a `float32` (or `float16`) array.
    pub fn as_f32_slice(&self) -> Option<&[f32]> {
        match &self.data {
            Data::F32(v) => Some(v),
            _ => None,
        }
    }
    /// The elements of a `float64` array.
    pub fn as_f64_slice(&self) -> Option<&[f64]> {
        match &self.data {
            Data::F64(v) => Some(v),
            _ => None,
        }
    }

    /// The elements in their in-memory little-endian encoding (`float16` as
    /// IEEE half bit patterns, `bool` as one byte each) — what a wasm or
    /// WebGPU buffer holds.
    pub fn to_le_bytes(&self) -> Vec<u8> {
        use super::scalar::f64_to_f16_bits;
        let mut out = Vec::with_capacity(self.len() * self.dtype.bytes());
        match &self.data {
            Data::Bool(v) => out.extend(v.iter().map(|&b| b as u8)),
            Data::I8(v) => v.iter().for_each(|x| out.extend(x.to_le_bytes())),
            Data::I16(v) => v.iter().for_each(|x| out.extend(x.to_le_bytes())),
            Data::I32(v) => v.iter().for_each(|x| out.extend(x.to_le_bytes())),
            Data::I64(v) => v.iter().for_each(|x| out.extend(x.to_le_bytes())),
            Data::U8(v) => out.extend_from_slice(v),
            Data::U16(v) => v.iter().for_each(|x| out.extend(x.to_le_bytes())),
            Data::U32(v) => v.iter().for_each(|x| out.extend(x.to_le_bytes())),
            Data::U64(v) => v.iter().for_each(|x| out.extend(x.to_le_bytes())),
            Data::F32(v) if self.ty() == NumTy::F16 => v
                .iter()
                .for_each(|&x| out.extend(f64_to_f16_bits(x as f64).to_le_bytes())),
            Data::F32(v) => v.iter().for_each(|x| out.extend(x.to_le_bytes())),
            Data::F64(v) => v.iter().for_each(|x| out.extend(x.to_le_bytes())),
        }
        out
    }

    /// The inverse of [`NDArray::to_le_bytes`].
    pub fn from_le_bytes(
        dtype: DataType,
        shape: &[usize],
        bytes: &[u8],
    ) -> Result<NDArray, NDArrayError> {
        use super::scalar::f16_bits_to_f64;
        let mut a = NDArray::zeros(dtype, shape)?;
        let width = dtype.bytes();
        if bytes.len() != a.len() * width {
            return Err(NDArrayError::ByteLengthMismatch {
                bytes: bytes.len(),
                elements: a.len(),
                dtype,
            });
        }
        let ty = a.ty();
        for (i, chunk) in bytes.chunks_exact(width).enumerate() {
            let mut b8 = [0u8; 8];
            b8[..width].copy_from_slice(chunk);
            let raw = u64::from_le_bytes(b8);
            let v = match ty {
                NumTy::F16 => V::from_f(f16_bits_to_f64(raw as u16)),
                NumTy::F32 => V::from_f(f32::from_bits(raw as u32) as f64),
                NumTy::F64 => V::from_f(f64::from_bits(raw)),
                NumTy::Bool => V::from_bool(raw != 0),
                NumTy::I8 => V::from_i(raw as u8 as i8 as i64),
                NumTy::I16 => V::from_i(raw as u16 as i16 as i64),
                NumTy::I32 => V::from_i(raw as u32 as i32 as i64),
                _ => V::from_i(raw as i64),
            };
            a.data.store(i, v);
        }
        Ok(a)
    }

    /// Sum and sum of squares of the elements.
    pub fn checksum(&self) -> Checksum {
        let mut c = Checksum {
            sum: 0.0,
            sum_sq: 0.0,
        };
        for i in 0..self.len() {
            let x = self.get_flat_f64(i).unwrap_or(0.0);
            c.sum += x;
            c.sum_sq += x * x;
        }
        c
    }

    /// The multi-dimensional index of a row-major offset.
    pub fn unravel(&self, mut flat: usize) -> Vec<usize> {
        let mut idx = vec![0; self.shape.len()];
        for (k, &d) in self.shape.iter().enumerate().rev() {
            if d > 0 {
                idx[k] = flat % d;
                flat /= d;
            }
        }
        idx
    }
}

/// Whether `a` and `b` have the same shape and every pair of elements
/// satisfies `|a - b| <= atol + rtol * |b|` (NumPy's `allclose`; NaNs in the
/// same place count as equal, infinities must match exactly). Element types
/// may differ; values are compared as `f64`.
///
/// The error names the first mismatching index, both values, and how many
/// elements differ in all.
pub fn allclose(a: &NDArray, b: &NDArray, rtol: f64, atol: f64) -> Result<(), NDArrayError> {
    if a.shape != b.shape {
        return Err(NDArrayError::ShapeMismatch {
            a: a.shape.clone(),
            b: b.shape.clone(),
        });
    }
    let exact_ints = !a.ty().is_float() && !b.ty().is_float();
    let mut first: Option<(usize, f64, f64)> = None;
    let mut count = 0usize;
    let mut max_diff = 0.0f64;
    for i in 0..a.len() {
        let (x, y) = match (a.get_flat_f64(i), b.get_flat_f64(i)) {
            (Some(x), Some(y)) => (x, y),
            _ => continue,
        };
        let ok = if exact_ints {
            let (p, q) = (a.get_flat_i64(i), b.get_flat_i64(i));
            p == q || (x - y).abs() <= atol + rtol * y.abs()
        } else if x.is_nan() || y.is_nan() {
            x.is_nan() && y.is_nan()
        } else if x.is_infinite() || y.is_infinite() {
            x == y
        } else {
            (x - y).abs() <= atol + rtol * y.abs()
        };
        if !ok {
            count += 1;
            let d = (x - y).abs();
            if d > max_diff || d.is_nan() {
                max_diff = d;
            }
            if first.is_none() {
                first = Some((i, x, y));
            }
        }
    }
    match first {
        None => Ok(()),
        Some((i, x, y)) => Err(NDArrayError::NotClose {
            index: a.unravel(i),
            a: x,
            b: y,
            rtol,
            atol,
            count,
            elements: a.len(),
            max_diff,
        }),
    }
}

impl fmt::Display for NDArray {
    /// Prints like NumPy's `str(array)` (and `print(array)`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&super::format::format_array(self))
    }
}
