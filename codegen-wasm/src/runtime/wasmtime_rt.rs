//! The native runtime: wasmtime (Cranelift JIT), with a thread pool for the
//! parallel tasks of modules that import a shared memory.
//!
//! A module built for host launches ([`crate::ParallelLaunch::Host`] with a
//! shared memory, what [`crate::runtime::Threading::apply`] asks for when
//! the runtime has several threads) gets one pool thread per extra core:
//! each instantiates the module over the same [`SharedMemory`] in its own
//! store, with its own stack ([`MemoryPlan::thread_stack`]), and runs the
//! chunks the calling thread sends it. The threads live as long as the
//! loaded module; a trap in a chunk is sent back as the run's error.

use std::collections::HashMap;
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::Arc;
use std::time::Instant;

use tessel_tir::eval::NDArray;
use tessel_tir::ir::DataType;
use wasmtime::{
    Config, Engine, ExternType, Func, Instance, Linker, Memory, MemoryType, Module, SharedMemory,
    Store, Val,
};

use super::native::{Chunk, ChunkPool};
use super::{
    array_from, err, kernel_args, tensor_bytes, Arg, MemoryPlan, Result, Runtime, Tensor, Timing,
    Value,
};
use crate::{
    KernelInfo, MathFn, TaskInfo, WasmModule, LAUNCH_MODULE, LAUNCH_NAME, MEMORY_MODULE,
    MEMORY_NAME, STACK_LIMIT, STACK_POINTER,
};

super::native::native_runtime!(
    /// wasmtime (Cranelift at `speed`, SIMD and relaxed SIMD on) with wasm
    /// threads: parallel tasks of shared-memory modules run on all cores
    /// (at most [`MAX_THREADS`]) unless [`WasmtimeRuntime::with_threads`]
    /// says otherwise.
    WasmtimeRuntime,
    wasmtime
);

/// The most threads a runtime uses by default.
pub const MAX_THREADS: u32 = 8;

type HostResult = wasmtime::Result<()>;

fn host_error(msg: String) -> wasmtime::Error {
    wasmtime::Error::msg(msg)
}

fn new_engine() -> Engine {
    let mut config = Config::new();
    config.wasm_threads(true).shared_memory(true);
    Engine::new(&config).unwrap_or_default()
}

fn default_threads() -> u32 {
    std::thread::available_parallelism()
        .map_or(1, |n| n.get() as u32)
        .min(MAX_THREADS)
}

fn threads_supported() -> bool {
    true
}

/// The module's memory: a plain one, or one shared with the pool threads.
#[derive(Clone)]
enum HostMemory {
    Plain(Memory),
    Shared(SharedMemory),
}

fn imports_shared_memory(module: &Module) -> bool {
    module.imports().any(|i| {
        i.module() == MEMORY_MODULE
            && i.name() == MEMORY_NAME
            && matches!(i.ty(), ExternType::Memory(m) if m.is_shared())
    })
}

fn new_memory(
    engine: &Engine,
    store: &mut Store<()>,
    pages: u64,
    shared: bool,
) -> Result<HostMemory> {
    if shared {
        SharedMemory::new(engine, MemoryType::shared(pages as u32, 65536))
            .map(HostMemory::Shared)
            .map_err(|e| err(format!("shared memory: {e:#}")))
    } else {
        Memory::new(store, MemoryType::new(pages as u32, None))
            .map(HostMemory::Plain)
            .map_err(|e| err(format!("memory: {e:#}")))
    }
}

fn define_memory(
    linker: &mut Linker<()>,
    store: &mut Store<()>,
    memory: &HostMemory,
) -> Result<()> {
    let r = match memory {
        HostMemory::Plain(m) => linker.define(&*store, MEMORY_MODULE, MEMORY_NAME, *m),
        HostMemory::Shared(m) => linker.define(&*store, MEMORY_MODULE, MEMORY_NAME, m.clone()),
    };
    r.map(|_| ()).map_err(|e| err(format!("{e:#}")))
}

fn memory_pages(memory: &HostMemory, store: &Store<()>) -> u64 {
    match memory {
        HostMemory::Plain(m) => m.size(store),
        HostMemory::Shared(m) => m.size(),
    }
}

fn grow_memory(memory: &HostMemory, store: &mut Store<()>, delta: u64) -> Result<()> {
    let r = match memory {
        HostMemory::Plain(m) => m.grow(store, delta),
        HostMemory::Shared(m) => m.grow(delta),
    };
    r.map(|_| ())
        .map_err(|e| err(format!("growing the memory: {e:#}")))
}

/// The shared memory's bytes `[addr, addr + len)`, checked.
fn shared_range(m: &SharedMemory, addr: usize, len: usize) -> Result<*mut u8> {
    let data = m.data();
    if addr.checked_add(len).is_none_or(|end| end > data.len()) {
        return Err(err(format!(
            "{len} bytes at {addr} are outside the memory ({} bytes)",
            data.len()
        )));
    }
    Ok(data[addr..].as_ptr() as *mut u8)
}

fn write_memory(
    memory: &HostMemory,
    store: &mut Store<()>,
    addr: usize,
    bytes: &[u8],
) -> Result<()> {
    match memory {
        HostMemory::Plain(m) => m
            .write(store, addr, bytes)
            .map_err(|e| err(format!("copy_in: {e}"))),
        HostMemory::Shared(m) => {
            let dst = shared_range(m, addr, bytes.len())?;
            // SAFETY: the range is inside the memory (checked), and no
            // kernel runs while the host copies (calls are synchronous and
            // every chunk is waited for).
            unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), dst, bytes.len()) };
            Ok(())
        }
    }
}

fn read_memory(
    memory: &HostMemory,
    store: &Store<()>,
    addr: usize,
    bytes: &mut [u8],
) -> Result<()> {
    match memory {
        HostMemory::Plain(m) => m
            .read(store, addr, bytes)
            .map_err(|e| err(format!("copy_out: {e}"))),
        HostMemory::Shared(m) => {
            let src = shared_range(m, addr, bytes.len())?;
            // SAFETY: as in `write_memory`.
            unsafe { std::ptr::copy_nonoverlapping(src, bytes.as_mut_ptr(), bytes.len()) };
            Ok(())
        }
    }
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

/// A chunk and where its result goes.
type Job = (Chunk, Sender<std::result::Result<(), String>>);

/// Pool threads, each with its instance of the module.
struct ThreadPool {
    workers: Vec<Sender<Job>>,
}

impl ChunkPool for ThreadPool {
    fn workers(&self) -> usize {
        self.workers.len()
    }

    fn submit(
        &self,
        worker: usize,
        chunk: Chunk,
        done: Sender<std::result::Result<(), String>>,
    ) -> std::result::Result<(), String> {
        self.workers
            .get(worker)
            .ok_or_else(|| format!("no worker thread {worker}"))?
            .send((chunk, done))
            .map_err(|_| format!("worker thread {} has ended", worker + 1))
    }
}

/// Starts `threads - 1` pool threads over `memory` (shared); returns when
/// each has instantiated the module, or the first one's error.
fn start_pool(
    engine: &Engine,
    module: &Module,
    memory: &HostMemory,
    plan: &MemoryPlan,
    threads: u32,
    tasks: &[TaskInfo],
) -> Result<Option<Arc<dyn ChunkPool>>> {
    let HostMemory::Shared(shared) = memory else {
        return Ok(None);
    };
    let mut workers = Vec::new();
    let (ready_tx, ready_rx) = channel();
    for k in 1..threads {
        let (tx, rx) = channel::<Job>();
        let (engine, module, shared) = (engine.clone(), module.clone(), shared.clone());
        let tasks = tasks.to_vec();
        let stack = plan.thread_stack(k);
        let ready = ready_tx.clone();
        std::thread::Builder::new()
            .name(format!("tessel-wasm-{k}"))
            .spawn(move || pool_thread(&engine, &module, shared, tasks, stack, rx, ready))
            .map_err(|e| err(format!("starting a worker thread: {e}")))?;
        workers.push(tx);
    }
    drop(ready_tx);
    for _ in 1..threads {
        match ready_rx.recv() {
            Ok(Ok(())) => {}
            Ok(Err(m)) => return Err(err(format!("a worker thread could not start: {m}"))),
            Err(_) => return Err(err("a worker thread ended while starting")),
        }
    }
    Ok(Some(Arc::new(ThreadPool { workers })))
}

/// One pool thread: instantiates the module, then runs chunks until the
/// pool is dropped.
fn pool_thread(
    engine: &Engine,
    module: &Module,
    shared: SharedMemory,
    tasks: Vec<TaskInfo>,
    (stack_base, stack_limit): (u64, u64),
    jobs: Receiver<Job>,
    ready: Sender<std::result::Result<(), String>>,
) {
    let setup = (|| -> Result<(Store<()>, Instance)> {
        let mut store = Store::new(engine, ());
        let mut linker: Linker<()> = Linker::new(engine);
        define_memory(&mut linker, &mut store, &HostMemory::Shared(shared))?;
        WasmtimeRuntime::link_math(&mut linker)?;
        // A parallel loop inside a task runs on this thread, whole.
        linker
            .func_wrap(
                LAUNCH_MODULE,
                LAUNCH_NAME,
                move |mut caller: wasmtime::Caller<'_, ()>,
                      task: i32,
                      begin: i64,
                      end: i64,
                      closure: i32|
                      -> HostResult {
                    let t = tasks
                        .get(task as usize)
                        .ok_or_else(|| host_error(format!("no parallel task {task}")))?;
                    let f = caller
                        .get_export(&t.export)
                        .and_then(|e| e.into_func())
                        .ok_or_else(|| host_error(format!("no export {}", t.export)))?;
                    let args = task_args(t.index_dtype.bits > 32, begin, end, closure);
                    f.call(&mut caller, &args, &mut [])
                },
            )
            .map_err(|e| err(format!("{e:#}")))?;
        let instance = instantiate(&linker, &mut store, module)?;
        for (name, v) in [(STACK_POINTER, stack_base), (STACK_LIMIT, stack_limit)] {
            if let Some(g) = instance.get_global(&mut store, name) {
                g.set(&mut store, Val::I32(v as i32))
                    .map_err(|e| err(format!("{e:#}")))?;
            }
        }
        Ok((store, instance))
    })();
    let (mut store, instance) = match setup {
        Ok(s) => {
            let _ = ready.send(Ok(()));
            s
        }
        Err(e) => {
            let _ = ready.send(Err(e.0));
            return;
        }
    };
    let mut funcs: HashMap<String, Func> = HashMap::new();
    while let Ok((chunk, done)) = jobs.recv() {
        let result = (|| {
            let f = match funcs.get(&chunk.export) {
                Some(f) => *f,
                None => {
                    let f = instance
                        .get_func(&mut store, &chunk.export)
                        .ok_or_else(|| format!("no export {}", chunk.export))?;
                    funcs.insert(chunk.export.clone(), f);
                    f
                }
            };
            let args = task_args(chunk.wide, chunk.begin, chunk.end, chunk.closure);
            f.call(&mut store, &args, &mut [])
                .map_err(|e| format!("{}: {e:#}", chunk.export))
        })();
        let _ = done.send(result);
    }
}
