//! IR dtypes → wasm value types and memory instructions.

use tessel_tir::ir::{DataType, ScalarKind};
use wasm_encoder::{Instruction, MemArg, MemArgTarget, ValType};

use crate::CodegenError;

/// The wasm type a value of `dt` lives in: `i32` for bool, handles and
/// integers up to 32 bits, `i64`, `f32`, `f64`, and `v128` for 16-byte
/// vectors (bool vectors are lane masks of 16 / lanes bytes).
pub fn val_type(dt: DataType) -> Result<ValType, CodegenError> {
    if dt.lanes > 1 {
        let bytes = if dt.is_bool() {
            16
        } else {
            dt.element().bytes() * dt.lanes as usize
        };
        if bytes != 16 || (dt.is_float() && dt.bits == 16) {
            return Err(CodegenError::unsupported(format!(
                "{dt} is not a 128-bit vector type"
            )));
        }
        return Ok(ValType::V128);
    }
    Ok(match dt.kind {
        ScalarKind::Bool | ScalarKind::Handle => ValType::I32,
        ScalarKind::Int | ScalarKind::UInt if dt.bits <= 32 => ValType::I32,
        ScalarKind::Int | ScalarKind::UInt => ValType::I64,
        ScalarKind::Float if dt.bits == 32 => ValType::F32,
        ScalarKind::Float if dt.bits == 64 => ValType::F64,
        ScalarKind::Float => {
            return Err(CodegenError::unsupported(format!(
                "{dt} arithmetic is not supported by the wasm backend"
            )))
        }
    })
}

pub fn memarg(offset: u64, bytes: usize) -> MemArg {
    MemArg {
        offset,
        align: (bytes.max(1)).trailing_zeros().min(4),
        target: MemArgTarget::Memory(0),
        ordering: None,
    }
}

/// The load of one value of `dt` (scalar or 16-byte vector).
pub fn load(dt: DataType, offset: u64) -> Result<Instruction<'static>, CodegenError> {
    let e = dt.element();
    if dt.lanes > 1 {
        val_type(dt)?;
        return Ok(Instruction::V128Load(memarg(offset, e.bytes())));
    }
    let m = memarg(offset, e.bytes());
    Ok(match (e.kind, e.bits) {
        (ScalarKind::Bool, _) => Instruction::I32Load8U(m),
        (ScalarKind::Int, 8) => Instruction::I32Load8S(m),
        (ScalarKind::UInt, 8) => Instruction::I32Load8U(m),
        (ScalarKind::Int, 16) => Instruction::I32Load16S(m),
        (ScalarKind::UInt, 16) => Instruction::I32Load16U(m),
        (ScalarKind::Int | ScalarKind::UInt, 32) => Instruction::I32Load(m),
        (ScalarKind::Int | ScalarKind::UInt, 64) => Instruction::I64Load(m),
        (ScalarKind::Float, 32) => Instruction::F32Load(m),
        (ScalarKind::Float, 64) => Instruction::F64Load(m),
        _ => {
            return Err(CodegenError::unsupported(format!(
                "buffers of {dt} are not supported by the wasm backend"
            )))
        }
    })
}

/// The store of one value of `dt`.
pub fn store(dt: DataType, offset: u64) -> Result<Instruction<'static>, CodegenError> {
    let e = dt.element();
    if dt.lanes > 1 {
        if dt.is_bool() {
            return Err(CodegenError::unsupported("storing a bool vector"));
        }
        val_type(dt)?;
        return Ok(Instruction::V128Store(memarg(offset, e.bytes())));
    }
    let m = memarg(offset, e.bytes());
    Ok(match (e.kind, e.bits) {
        (ScalarKind::Bool, _) => Instruction::I32Store8(m),
        (ScalarKind::Int | ScalarKind::UInt, 8) => Instruction::I32Store8(m),
        (ScalarKind::Int | ScalarKind::UInt, 16) => Instruction::I32Store16(m),
        (ScalarKind::Int | ScalarKind::UInt, 32) => Instruction::I32Store(m),
        (ScalarKind::Int | ScalarKind::UInt, 64) => Instruction::I64Store(m),
        (ScalarKind::Float, 32) => Instruction::F32Store(m),
        (ScalarKind::Float, 64) => Instruction::F64Store(m),
        _ => {
            return Err(CodegenError::unsupported(format!(
                "buffers of {dt} are not supported by the wasm backend"
            )))
        }
    })
}

/// Instructions that bring an `i32`-held integer of `dt` back to its width
/// after wrapping arithmetic (int8/int16 sign-extend, uint8/uint16 mask).
pub fn normalize_small_int(dt: DataType) -> Vec<Instruction<'static>> {
    match (dt.kind, dt.bits) {
        (ScalarKind::Int, 8) => vec![Instruction::I32Extend8S],
        (ScalarKind::Int, 16) => vec![Instruction::I32Extend16S],
        (ScalarKind::UInt, 8) => vec![Instruction::I32Const(0xff), Instruction::I32And],
        (ScalarKind::UInt, 16) => vec![Instruction::I32Const(0xffff), Instruction::I32And],
        _ => Vec::new(),
    }
}

/// `v128` lane shape of a vector dtype.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    I32x4,
    I64x2,
    F32x4,
    F64x2,
}

pub fn shape(dt: DataType) -> Result<Shape, CodegenError> {
    let e = dt.element();
    let lane_bytes = if dt.is_bool() {
        16 / dt.lanes.max(1) as usize
    } else {
        e.bytes()
    };
    Ok(match (e.kind, lane_bytes) {
        (ScalarKind::Float, 4) => Shape::F32x4,
        (ScalarKind::Float, 8) => Shape::F64x2,
        (ScalarKind::Int | ScalarKind::UInt | ScalarKind::Bool, 4) => Shape::I32x4,
        (ScalarKind::Int | ScalarKind::UInt | ScalarKind::Bool, 8) => Shape::I64x2,
        _ => {
            return Err(CodegenError::unsupported(format!(
                "{dt} vectors are not supported (32- and 64-bit lanes are)"
            )))
        }
    })
}

impl Shape {
    pub fn lanes(self) -> u8 {
        match self {
            Shape::I32x4 | Shape::F32x4 => 4,
            Shape::I64x2 | Shape::F64x2 => 2,
        }
    }
    pub fn splat(self) -> Instruction<'static> {
        match self {
            Shape::I32x4 => Instruction::I32x4Splat,
            Shape::I64x2 => Instruction::I64x2Splat,
            Shape::F32x4 => Instruction::F32x4Splat,
            Shape::F64x2 => Instruction::F64x2Splat,
        }
    }
    pub fn extract(self, lane: u8) -> Instruction<'static> {
        match self {
            Shape::I32x4 => Instruction::I32x4ExtractLane(lane),
            Shape::I64x2 => Instruction::I64x2ExtractLane(lane),
            Shape::F32x4 => Instruction::F32x4ExtractLane(lane),
            Shape::F64x2 => Instruction::F64x2ExtractLane(lane),
        }
    }
    pub fn replace(self, lane: u8) -> Instruction<'static> {
        match self {
            Shape::I32x4 => Instruction::I32x4ReplaceLane(lane),
            Shape::I64x2 => Instruction::I64x2ReplaceLane(lane),
            Shape::F32x4 => Instruction::F32x4ReplaceLane(lane),
            Shape::F64x2 => Instruction::F64x2ReplaceLane(lane),
        }
    }
}
