//! The native runtime: wasmi (an interpreter; builds for any target).

use std::collections::HashMap;
use std::time::Instant;

use tessel_tir::eval::NDArray;
use tessel_tir::ir::DataType;
use wasmi::{Engine, Func, Instance, Linker, Memory, MemoryType, Module, Store, Val};

use super::native::ChunkPool;

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

fn new_engine() -> Engine {
    Engine::default()
}

/// wasmi runs one thread: parallel tasks run inline.
fn default_threads() -> u32 {
    1
}

fn threads_supported() -> bool {
    false
}

type HostMemory = Memory;

fn imports_shared_memory(_module: &Module) -> bool {
    false
}

fn new_memory(
    _engine: &Engine,
    store: &mut Store<()>,
    pages: u64,
    _shared: bool,
) -> Result<Memory> {
    Memory::new(store, MemoryType::new(pages as u32, None))
        .map_err(|e| err(format!("memory: {e:#}")))
}

fn start_pool(
    _engine: &Engine,
    _module: &Module,
    _memory: &Memory,
    _plan: &MemoryPlan,
    _threads: u32,
    _tasks: &[TaskInfo],
) -> Result<Option<std::sync::Arc<dyn ChunkPool>>> {
    Ok(None)
}

fn memory_pages(memory: &Memory, store: &Store<()>) -> u64 {
    memory.size(store)
}

fn grow_memory(memory: &Memory, store: &mut Store<()>, delta: u64) -> Result<()> {
    memory
        .grow(store, delta)
        .map(|_| ())
        .map_err(|e| err(format!("growing the memory: {e:#}")))
}

fn write_memory(memory: &Memory, store: &mut Store<()>, addr: usize, bytes: &[u8]) -> Result<()> {
    memory
        .write(store, addr, bytes)
        .map_err(|e| err(format!("copy_in: {e}")))
}

fn read_memory(memory: &Memory, store: &Store<()>, addr: usize, bytes: &mut [u8]) -> Result<()> {
    memory
        .read(store, addr, bytes)
        .map_err(|e| err(format!("copy_out: {e}")))
}

fn define_memory(linker: &mut Linker<()>, _store: &mut Store<()>, memory: &Memory) -> Result<()> {
    linker
        .define(MEMORY_MODULE, MEMORY_NAME, *memory)
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
