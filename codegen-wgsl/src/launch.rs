//! What running a compiled function on a WebGPU device needs, and nothing
//! more: the kernels (WGSL, bindings, dispatch), the temporaries between
//! them, the layout of the `Params` uniform and which parameters are
//! buffers. With feature `serde` it is plain data, so the worker that built
//! the WGSL hands it to the worker that owns the device as it is (the
//! function is neither printed, re-parsed nor compiled again there).

use tessel_lower::SizeSource;
use tessel_tir::eval::NDArray;
use tessel_tir::ir::ScalarKind;

use crate::{WgslFunc, WgslKernel};

/// A compiled function as a device runs it.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct WgslLaunch {
    pub name: String,
    /// Per parameter, in order: whether it is a buffer (bound as storage) or
    /// a scalar (passed in the uniform).
    pub buffer_params: Vec<bool>,
    pub kernels: Vec<WgslKernel>,
    /// The `global` temporaries between kernels, in bytes.
    pub temp_bytes: Vec<u64>,
    /// The `Params` uniform's 4-byte fields, in order.
    pub uniform: Vec<UniformSlot>,
}

/// One 4-byte field of the `Params` uniform and where its value comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum UniformSlot {
    /// A scalar parameter, as `f32`.
    Float { param: usize },
    /// A scalar parameter, as `u32`.
    UInt { param: usize },
    /// A scalar parameter, as `i32`.
    Int { param: usize },
    /// A dimension of the `buffer`-th buffer parameter's argument.
    Shape { buffer: usize, dim: usize },
    /// The row-major stride, in elements, of dimension `dim` of the
    /// `buffer`-th buffer parameter's argument.
    Stride { buffer: usize, dim: usize },
    /// An element offset (arguments are always compact: 0).
    ElemOffset,
}

impl WgslFunc {
    /// What a device needs to run this function.
    pub fn launch(&self) -> WgslLaunch {
        WgslLaunch {
            name: self.name.clone(),
            buffer_params: self.buffer_params(),
            kernels: self.kernels.clone(),
            temp_bytes: self
                .temps
                .iter()
                .map(|(dtype, n)| (*n).max(0) as u64 * dtype.bytes() as u64)
                .collect(),
            uniform: self.uniform.iter().map(UniformSlot::of).collect(),
        }
    }
}

impl UniformSlot {
    fn of(field: &crate::UniformField) -> UniformSlot {
        match *field {
            crate::UniformField::Scalar { param, dtype } => match dtype.kind {
                ScalarKind::Float => UniformSlot::Float { param },
                ScalarKind::UInt => UniformSlot::UInt { param },
                _ => UniformSlot::Int { param },
            },
            crate::UniformField::Size { buffer, source } => match source {
                SizeSource::Shape(dim) => UniformSlot::Shape { buffer, dim },
                SizeSource::Stride(dim) => UniformSlot::Stride { buffer, dim },
                SizeSource::ElemOffset => UniformSlot::ElemOffset,
            },
        }
    }
}

impl WgslLaunch {
    /// The uniform block for `args` (see [`uniform_bytes`]).
    pub fn uniform_bytes(&self, args: &[NDArray]) -> Vec<u8> {
        uniform_bytes(&self.uniform, &self.buffer_params, args)
    }
}

impl WgslFunc {
    /// Which parameters are buffers, in parameter order.
    fn buffer_params(&self) -> Vec<bool> {
        self.func
            .params
            .iter()
            .map(|p| self.func.param_buffer(p).is_some())
            .collect()
    }

    /// The uniform block for `args`, laid out as a [`WgslLaunch`] lays it
    /// out (the native runtime and the browser's share it).
    pub fn uniform_bytes(&self, args: &[NDArray]) -> Vec<u8> {
        let slots: Vec<UniformSlot> = self.uniform.iter().map(UniformSlot::of).collect();
        uniform_bytes(&slots, &self.buffer_params(), args)
    }
}

/// The `Params` uniform for `args`: each slot's 4 bytes in order, padded to
/// a multiple of 16 bytes (and never empty: WebGPU binds no zero-sized
/// buffer).
fn uniform_bytes(slots: &[UniformSlot], buffer_params: &[bool], args: &[NDArray]) -> Vec<u8> {
    let shapes: Vec<&[usize]> = args
        .iter()
        .zip(buffer_params)
        .filter(|(_, is_buffer)| **is_buffer)
        .map(|(a, _)| a.shape())
        .collect();
    let shape = |buffer: usize| shapes.get(buffer).copied().unwrap_or(&[]);
    let mut bytes: Vec<u8> = Vec::new();
    for slot in slots {
        let word = match *slot {
            UniformSlot::Float { param } => args
                .get(param)
                .and_then(|a| a.get_flat_f64(0))
                .map_or(0.0f32, |v| v as f32)
                .to_le_bytes(),
            UniformSlot::UInt { param } => {
                (args.get(param).and_then(|a| a.get_flat_i64(0)).unwrap_or(0) as u32).to_le_bytes()
            }
            UniformSlot::Int { param } => {
                (args.get(param).and_then(|a| a.get_flat_i64(0)).unwrap_or(0) as i32).to_le_bytes()
            }
            UniformSlot::Shape { buffer, dim } => {
                (shape(buffer).get(dim).copied().unwrap_or(0) as i32).to_le_bytes()
            }
            UniformSlot::Stride { buffer, dim } => {
                (shape(buffer).iter().skip(dim + 1).product::<usize>() as i32).to_le_bytes()
            }
            UniformSlot::ElemOffset => 0i32.to_le_bytes(),
        };
        bytes.extend(word);
    }
    while !bytes.len().is_multiple_of(16) || bytes.is_empty() {
        bytes.push(0);
    }
    bytes
}
