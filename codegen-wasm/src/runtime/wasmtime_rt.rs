//! The native runtime: wasmtime (Cranelift JIT).

use std::collections::HashMap;
use std::time::Instant;

use compiler_core::eval::NDArray;
use compiler_core::ir::DataType;
use wasmtime::{Engine, Func, Instance, Linker, Memory, MemoryType, Module, Store, Val};

use super::{
    array_from, err, kernel_args, tensor_bytes, Arg, MemoryPlan, Result, Runtime, Tensor, Timing,
    Value,
};
use crate::{
    KernelInfo, MathFn, TaskInfo, WasmModule, LAUNCH_MODULE, LAUNCH_NAME, MEMORY_MODULE,
    MEMORY_NAME, STACK_LIMIT, STACK_POINTER,
};

super::native::native_runtime!(
    /// wasmtime with its default configuration (Cranelift at `speed`, SIMD on).
    WasmtimeRuntime,
    wasmtime
);

type HostResult = wasmtime::Result<()>;

fn host_error(msg: String) -> wasmtime::Error {
    wasmtime::Error::msg(msg)
}

fn define_memory(linker: &mut Linker<()>, store: &mut Store<()>, memory: Memory) -> Result<()> {
    linker
        .define(store, MEMORY_MODULE, MEMORY_NAME, memory)
        .map(|_| ())
        .map_err(|e| err(format!("{e:#}")))
}

fn instantiate(linker: &Linker<()>, store: &mut Store<()>, module: &Module) -> Result<Instance> {
    linker
        .instantiate(store, module)
        .map_err(|e| err(format!("instantiate: {e:#}")))
}

fn f32_val(x: f32) -> Val {
    Val::F32(x.to_bits())
}

fn f64_val(x: f64) -> Val {
    Val::F64(x.to_bits())
}
