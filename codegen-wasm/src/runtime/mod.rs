//! Running built modules: the [`Runtime`] trait and what every
//! implementation shares (memory layout, argument marshalling).
//!
//! Implementations:
//! - `WasmtimeRuntime` (feature `native`): Cranelift JIT — tests, the CLI,
//!   benchmarks.
//! - `WasmiRuntime` (feature `interp`): an interpreter that builds anywhere,
//!   kept to compare against (see `Cargo.toml` for the measurement).
//! - The browser (later, in the web crate): `WebAssembly.instantiate` with a
//!   JS-created `WebAssembly.Memory` and `performance.now()`; everything a
//!   host must do is in this trait and [`MemoryPlan`]/[`kernel_args`], which
//!   are plain Rust and build for wasm32.
//!
//! # Memory layout (what every host does)
//!
//! ```text
//! 0          64            64 + stack                     heap top
//! | reserved | stack (grows up) | tensors, 64-byte aligned, bump-allocated |
//! ```
//!
//! The host sets the exported globals `__stack_pointer = 64` and
//! `__stack_limit = 64 + stack` after instantiating; the stack size is the
//! module's static need ([`crate::WasmModule::workspace_bytes`]) or
//! [`DEFAULT_STACK`] when that is dynamic. The memory grows as tensors are
//! allocated; [`Runtime::free_all`] resets the heap.

#[cfg(any(feature = "interp", feature = "native"))]
mod native;
#[cfg(feature = "interp")]
mod wasmi_rt;
#[cfg(feature = "native")]
mod wasmtime_rt;

#[cfg(feature = "interp")]
pub use wasmi_rt::WasmiRuntime;
#[cfg(feature = "native")]
pub use wasmtime_rt::WasmtimeRuntime;

use std::fmt;

use tessel_lower::SizeSource;
use tessel_tir::eval::NDArray;
use tessel_tir::ir::{DataType, ScalarKind};

use crate::{KernelInfo, ParamInfo, WasmModule};

/// Stack reserved when a module's need is not static.
pub const DEFAULT_STACK: u64 = 16 << 20;
/// Start of the stack (the first bytes stay unused: address 0 is "null").
pub const STACK_BASE: u64 = 64;
/// Alignment of every tensor.
pub const TENSOR_ALIGN: u64 = 64;
pub const PAGE: u64 = 65536;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuntimeError(pub String);

impl fmt::Display for RuntimeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for RuntimeError {}

pub type Result<T> = std::result::Result<T, RuntimeError>;

pub(crate) fn err(m: impl fmt::Display) -> RuntimeError {
    RuntimeError(m.to_string())
}

/// A tensor in the module's memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tensor {
    pub addr: u32,
    pub dtype: DataType,
    pub shape: Vec<usize>,
}

impl Tensor {
    pub fn bytes(&self) -> usize {
        self.shape.iter().product::<usize>() * self.dtype.bytes()
    }
}

/// A wasm argument value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value {
    I32(i32),
    I64(i64),
    F32(f32),
    F64(f64),
}

/// One argument of a kernel call, in PrimFunc parameter order.
#[derive(Clone, Debug)]
pub enum Arg {
    Tensor(Tensor),
    /// A scalar parameter (converted to the parameter's type).
    Scalar(f64),
}

/// Timing of repeated calls.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Timing {
    /// Seconds per call: mean and best.
    pub mean: f64,
    pub min: f64,
    pub runs: u32,
}

/// A host that runs built modules.
pub trait Runtime {
    /// Instantiates `module` over a fresh memory (dropping the previous one),
    /// with the stack set up; returns the seconds compilation took.
    fn load(&mut self, module: &WasmModule) -> Result<f64>;
    /// Reserves room for a `dtype` tensor of `shape` (64-byte aligned,
    /// contents unspecified).
    fn alloc(&mut self, dtype: DataType, shape: &[usize]) -> Result<Tensor>;
    /// Releases every tensor.
    fn free_all(&mut self);
    /// Copies an array into a tensor of the same dtype and size.
    fn copy_in(&mut self, t: &Tensor, data: &NDArray) -> Result<()>;
    /// Copies a tensor out.
    fn copy_out(&mut self, t: &Tensor) -> Result<NDArray>;
    /// Calls a kernel.
    fn call(&mut self, kernel: &str, args: &[Arg]) -> Result<()>;
    /// Calls a kernel once to warm up, then `repeat` times, timing each call
    /// with the host's clock.
    fn time(&mut self, kernel: &str, args: &[Arg], repeat: u32) -> Result<Timing>;
    /// How this host runs parallel tasks. Modules it loads must be built
    /// accordingly ([`Threading::apply`]): with several threads the kernel
    /// launches its tasks through the host over a shared memory.
    fn threading(&self) -> Threading {
        Threading::single("this runtime runs parallel loops on one thread")
    }
    /// How the parallel loops of the most recent kernel call ran.
    fn last_launches(&self) -> LaunchStats {
        LaunchStats::default()
    }
}

/// How a host runs the parallel loops of a kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Threading {
    /// Threads a parallel loop is split among (the calling one included).
    pub threads: u32,
    /// Why there is only one thread, when there is (shown with the run).
    pub single_reason: Option<String>,
}

impl Threading {
    /// One thread, for `reason`.
    pub fn single(reason: impl Into<String>) -> Threading {
        Threading {
            threads: 1,
            single_reason: Some(reason.into()),
        }
    }

    /// `threads` threads sharing the memory.
    pub fn pool(threads: u32) -> Threading {
        Threading {
            threads: threads.max(1),
            single_reason: None,
        }
    }

    /// Sets the build options a module for this host needs: with more than
    /// one thread, host-launched tasks over a shared memory.
    pub fn apply(&self, options: &mut crate::BuildOptions) {
        if self.threads > 1 {
            options.parallel = crate::ParallelLaunch::Host;
            options.shared_memory = true;
        }
    }
}

/// What the parallel loops of one kernel call did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LaunchStats {
    /// `tessel.parallel_for` calls (0: the kernel ran its loops inline).
    pub launches: u32,
    /// Sub-ranges run, over all launches.
    pub chunks: u32,
    /// The most threads that ran chunks of one launch.
    pub threads: u32,
}

impl LaunchStats {
    /// "3 parallel launches, 6 chunks on 2 threads" (or that none ran).
    pub fn describe(&self) -> String {
        if self.launches == 0 {
            return "no parallel launch".into();
        }
        format!(
            "{} parallel launch{}, {} chunk{} on {} thread{}",
            self.launches,
            if self.launches == 1 { "" } else { "es" },
            self.chunks,
            if self.chunks == 1 { "" } else { "s" },
            self.threads,
            if self.threads == 1 { "" } else { "s" }
        )
    }
}

/// Allocates tensors for `arrays`, copies them in, calls `kernel`, copies
/// every buffer argument back (outputs are written in place, as with
/// [`tessel_tir::eval::run_prim_func`]), and frees them. 0-d arrays for
/// scalar parameters.
pub fn run_ndarrays(
    rt: &mut dyn Runtime,
    module: &WasmModule,
    kernel: &str,
    arrays: &mut [NDArray],
) -> Result<()> {
    let info = module
        .kernel(kernel)
        .ok_or_else(|| err(format!("no kernel {kernel}")))?;
    let args = upload(rt, info, arrays)?;
    let r = rt.call(kernel, &args);
    let r = r.and_then(|_| {
        for (a, arr) in args.iter().zip(arrays.iter_mut()) {
            if let Arg::Tensor(t) = a {
                *arr = rt.copy_out(t)?;
            }
        }
        Ok(())
    });
    rt.free_all();
    r
}

/// Allocates and fills the arguments of `kernel` from arrays.
pub fn upload(rt: &mut dyn Runtime, info: &KernelInfo, arrays: &[NDArray]) -> Result<Vec<Arg>> {
    let declared: Vec<&ParamInfo> = info
        .params
        .iter()
        .filter(|p| !matches!(p, ParamInfo::Size { .. }))
        .collect();
    if declared.len() != arrays.len() {
        return Err(err(format!(
            "{} takes {} arguments, got {}",
            info.name,
            declared.len(),
            arrays.len()
        )));
    }
    let mut args = Vec::with_capacity(arrays.len());
    for (p, a) in declared.iter().zip(arrays) {
        match p {
            ParamInfo::Buffer { .. } => {
                let t = rt.alloc(a.dtype(), a.shape())?;
                rt.copy_in(&t, a)?;
                args.push(Arg::Tensor(t));
            }
            _ => {
                let v = a
                    .get_flat_f64(0)
                    .ok_or_else(|| err("a scalar argument must be a 0-d array"))?;
                args.push(Arg::Scalar(v));
            }
        }
    }
    Ok(args)
}

/// The wasm argument list of a call: buffer addresses and scalars in order,
/// then the size variables taken from the tensors' shapes. Checks dtypes,
/// ranks and constant extents.
pub fn kernel_args(info: &KernelInfo, args: &[Arg]) -> Result<Vec<Value>> {
    let mut out = Vec::new();
    let mut k = 0usize;
    for p in &info.params {
        match p {
            ParamInfo::Buffer { name, dtype, shape } => {
                let Some(Arg::Tensor(t)) = args.get(k) else {
                    return Err(err(format!("argument {k} ({name}) must be a tensor")));
                };
                if t.dtype != *dtype || t.shape.len() != shape.len() {
                    return Err(err(format!(
                        "argument {name}: expected a {dtype} tensor of rank {}, got {} of shape {:?}",
                        shape.len(),
                        t.dtype,
                        t.shape
                    )));
                }
                for (d, (&want, &got)) in shape.iter().zip(&t.shape).enumerate() {
                    if let Some(w) = want {
                        if w as usize != got {
                            return Err(err(format!(
                                "argument {name}: dimension {d} is {got}, expected {w}"
                            )));
                        }
                    }
                }
                out.push(Value::I32(t.addr as i32));
                k += 1;
            }
            ParamInfo::Scalar { name, dtype } => {
                let Some(Arg::Scalar(v)) = args.get(k) else {
                    return Err(err(format!("argument {k} ({name}) must be a scalar")));
                };
                out.push(scalar_value(*v, *dtype)?);
                k += 1;
            }
            ParamInfo::Size {
                name,
                dtype,
                param,
                source,
            } => {
                let Some(Arg::Tensor(t)) = args.get(*param) else {
                    return Err(err(format!(
                        "size {name}: parameter {param} is not a tensor"
                    )));
                };
                let v = match source {
                    SizeSource::Shape(d) => t.shape.get(*d).copied().unwrap_or(0) as i64,
                    SizeSource::Stride(d) => t.shape.iter().skip(d + 1).product::<usize>() as i64,
                    SizeSource::ElemOffset => 0,
                };
                out.push(scalar_value(v as f64, *dtype)?);
            }
        }
    }
    if k != args.len() {
        return Err(err(format!(
            "{} takes {k} arguments, got {}",
            info.name,
            args.len()
        )));
    }
    Ok(out)
}

fn scalar_value(v: f64, dtype: DataType) -> Result<Value> {
    Ok(match (dtype.kind, dtype.bits) {
        (ScalarKind::Float, 32) => Value::F32(v as f32),
        (ScalarKind::Float, 64) => Value::F64(v),
        (ScalarKind::Int | ScalarKind::UInt, 64) => Value::I64(v as i64),
        (ScalarKind::Int | ScalarKind::UInt | ScalarKind::Bool, _) => Value::I32(v as i64 as i32),
        _ => return Err(err(format!("scalar arguments of type {dtype}"))),
    })
}

/// The bump allocator over a module memory (shared by the runtimes).
#[derive(Clone, Debug, Default)]
pub struct MemoryPlan {
    pub stack_base: u64,
    pub stack_limit: u64,
    pub heap_start: u64,
    pub heap_top: u64,
}

impl MemoryPlan {
    pub fn for_module(module: &WasmModule) -> MemoryPlan {
        MemoryPlan::for_threads(module, 1)
    }

    /// The plan for `threads` instances sharing one memory: one stack each,
    /// one after another ([`MemoryPlan::thread_stack`]), then the heap.
    /// `stack_base`/`stack_limit` are the calling thread's (thread 0).
    pub fn for_threads(module: &WasmModule, threads: u32) -> MemoryPlan {
        let stack = module.workspace_bytes().unwrap_or(DEFAULT_STACK).max(PAGE);
        let stack = stack.div_ceil(TENSOR_ALIGN) * TENSOR_ALIGN;
        let limit = STACK_BASE + stack;
        let all_stacks = STACK_BASE + stack * u64::from(threads.max(1));
        let heap = all_stacks.div_ceil(TENSOR_ALIGN) * TENSOR_ALIGN;
        MemoryPlan {
            stack_base: STACK_BASE,
            stack_limit: limit,
            heap_start: heap,
            heap_top: heap,
        }
    }

    /// The stack (`__stack_pointer`, `__stack_limit`) of thread `k` (0 is
    /// the calling thread) under [`MemoryPlan::for_threads`].
    pub fn thread_stack(&self, k: u32) -> (u64, u64) {
        let size = self.stack_limit - self.stack_base;
        let base = self.stack_base + size * u64::from(k);
        (base, base + size)
    }
    /// Pages the memory needs at instantiation.
    pub fn initial_pages(&self) -> u64 {
        self.heap_start.div_ceil(PAGE).max(1)
    }
    /// Reserves `bytes`; returns the address and the pages the memory must
    /// have afterwards.
    pub fn alloc(&mut self, bytes: u64) -> Result<(u32, u64)> {
        let addr = self.heap_top.div_ceil(TENSOR_ALIGN) * TENSOR_ALIGN;
        let end = addr + bytes.max(1);
        if end > u32::MAX as u64 {
            return Err(err(format!(
                "out of memory: {bytes} more bytes would pass the 4 GiB of a wasm32 memory"
            )));
        }
        self.heap_top = end;
        Ok((addr as u32, end.div_ceil(PAGE)))
    }
    pub fn free_all(&mut self) {
        self.heap_top = self.heap_start;
    }
}

/// `[begin, end)` cut into at most `n` contiguous, non-empty sub-ranges
/// (what a host gives its workers for one parallel task).
pub fn split_range(begin: i64, end: i64, n: i64) -> Vec<(i64, i64)> {
    let len = end.saturating_sub(begin);
    if len <= 0 {
        return Vec::new();
    }
    let n = n.clamp(1, len);
    let (q, r) = (len / n, len % n);
    let mut out = Vec::with_capacity(n as usize);
    let mut at = begin;
    for k in 0..n {
        let size = q + i64::from(k < r);
        out.push((at, at + size));
        at += size;
    }
    out
}

/// An array's bytes for a tensor (little-endian, as wasm memory is),
/// after checking that dtype and shape agree.
pub fn tensor_bytes(t: &Tensor, data: &NDArray) -> Result<Vec<u8>> {
    if data.dtype() != t.dtype || data.shape() != t.shape.as_slice() {
        return Err(err(format!(
            "copy_in: a {} array of shape {:?} into a {} tensor of shape {:?}",
            data.dtype(),
            data.shape(),
            t.dtype,
            t.shape
        )));
    }
    Ok(data.to_le_bytes())
}

/// A tensor's array from the bytes read back.
pub fn array_from(t: &Tensor, bytes: &[u8]) -> Result<NDArray> {
    NDArray::from_le_bytes(t.dtype, &t.shape, bytes).map_err(err)
}
