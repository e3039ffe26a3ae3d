//! The native runtime: wasmi (an interpreter; builds for any target).

use std::collections::HashMap;
use std::time::Instant;

use compiler_core::eval::NDArray;
use compiler_core::ir::DataType;
use wasmi::{Engine, Func, Instance, Linker, Memory, MemoryType, Module, Store, Val};

use super::{
    array_from, err, kernel_args, tensor_bytes, Arg, MemoryPlan, Result, Runtime, Tensor, Timing,
    Value,
};
use crate::{
    KernelInfo, MathFn, TaskInfo, WasmModule, LAUNCH_MODULE, LAUNCH_NAME, MEMORY_MODULE,
    MEMORY_NAME, STACK_LIMIT, STACK_POINTER,
};

super::native::native_runtime!(
    /// wasmi with SIMD.
    WasmiRuntime,
    wasmi
);

type HostResult = std::result::Result<(), wasmi::Error>;

fn host_error(msg: String) -> wasmi::Error {
    wasmi::Error::new(msg)
}

fn define_memory(linker: &mut Linker<()>, _store: &mut Store<()>, memory: Memory) -> Result<()> {
    linker
        .define(MEMORY_MODULE, MEMORY_NAME, memory)
        .map(|_| ())
        .map_err(|e| err(format!("{e:#}")))
}

fn instantiate(linker: &Linker<()>, store: &mut Store<()>, module: &Module) -> Result<Instance> {
    linker
        .instantiate_and_start(store, module)
        .map_err(|e| err(format!("instantiate: {e:#}")))
}

fn f32_val(x: f32) -> Val {
    Val::F32(x.into())
}

fn f64_val(x: f64) -> Val {
    Val::F64(x.into())
}
