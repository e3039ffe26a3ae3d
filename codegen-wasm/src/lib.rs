//! Tessel's CPU backend: lowered TensorIR → one WebAssembly module (with
//! SIMD128), emitted through `wasm-encoder` and validated by `wasmparser`
//! before [`build`] returns it.
//!
//! # The module
//!
//! One module per build, holding every PrimFunc of the IRModule:
//!
//! - **Memory is imported** as `env.memory` (minimum 1 page, no maximum).
//!   The host owns it: it places tensors in it and reads results back, several
//!   builds can share one memory (tensors pass between them without copies),
//!   and — the reason that decides it — Web Workers running one function in
//!   parallel must all instantiate the module over the *same*
//!   `WebAssembly.Memory` (shared), which only an imported memory allows.
//! - **One exported function per PrimFunc**, named as in the module, in
//!   destination-passing style: one parameter per PrimFunc parameter, in
//!   order — the `i32` byte address of each buffer argument, scalars as
//!   `i32`/`i64`/`f32`/`f64` — followed by the size variables of symbolic
//!   shapes ([`tessel_lower::size_params`], e.g. `n` in
//!   `T.match_buffer(a, (n, 4))`), which the host fills from the arguments'
//!   shapes. [`KernelInfo`] describes each parameter. No results.
//! - **A stack for intermediate buffers**: the exported mutable globals
//!   `__stack_pointer` and `__stack_limit` delimit a region of the memory the
//!   host reserves ([`WasmModule::workspace_bytes`] is an upper bound when it
//!   is static). An `Allocate` bumps the pointer (16-byte aligned) and restores
//!   it at the end of its scope; going past the limit traps. The storage is
//!   not zeroed (TVM's semantics; the interpreter zeroes allocations, so a
//!   program that reads an intermediate before writing it can differ). Globals are per
//!   instance, so each worker's instance gets its own stack. Small `local`
//!   buffers accessed only at constant indices (register-promoted
//!   accumulators) become wasm locals instead.
//! - **Parallel loops** are outlined: each task body is a function
//!   `__task_<kernel>_<id>(begin, end, closure)` (also exported, listed in
//!   [`WasmModule::tasks`]), reading its captured variables from a closure
//!   record the caller writes on its stack. With [`ParallelLaunch::Inline`]
//!   (the default) the kernel calls it once over the whole range; with
//!   [`ParallelLaunch::Host`] it calls the imported
//!   `tessel.parallel_for(task, begin, end, closure)` and the host splits the
//!   range among workers that call the exported task over the same (then
//!   `shared`, [`BuildOptions::shared_memory`]) memory. The native runtimes
//!   implement that import by running sub-ranges on the calling thread, so
//!   the protocol is tested today.
//! - **Math** without a wasm instruction (exp, log, tanh, pow, fmod, …) is
//!   imported from `tessel_math` (see [`math`]); `sqrt`, `abs`, `floor`,
//!   `ceil`, `trunc`, `round`, `min`, `max` are instructions.
//!
//! `T.vectorized` loops lowered to 4×f32 / 4×i32 / 2×f64 / 2×i64 vectors use
//! `v128.load`/`v128.store` for contiguous accesses and `splat` for
//! broadcasts; `min`/`max` follow the interpreter (`a < b ? a : b`; `pmin`/
//! `pmax` for vectors), integer `//` and `%` by powers of two are shifts and
//! masks, float→int casts saturate like Rust's `as`.

// A panic in WebAssembly kills the page: library code returns typed errors (tests may unwrap).
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

pub mod backend;
mod func;
pub mod math;
pub mod runtime;
mod types;

use std::collections::{BTreeSet, HashMap};
use std::fmt;

use tessel_lower::{
    LowerError, LowerOptions, LoweredFunc, LoweredModule, SizeSource, PARALLEL_TASK_ATTR,
};
use tessel_tir::diag::{Diagnostic, Span};
use tessel_tir::ir::{AttrValue, BinOp, DataType, ExprKind, ForKind, IRModule, Stmt, StmtKind};
use wasm_encoder::{
    CodeSection, ConstExpr, EntityType, ExportKind, ExportSection, FunctionSection, GlobalSection,
    GlobalType, ImportSection, IndirectNameMap, MemoryType, Module, NameMap, NameSection,
    TypeSection, ValType,
};

pub use math::MathFn;
pub use runtime::{Runtime, RuntimeError};

use func::{FuncGen, ModuleCtx, CLOSURE_SLOT, STACK_ALIGN};

/// Code generation failed. `span` points at the IR node when known.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CodegenError {
    pub message: String,
    pub span: Span,
}

impl CodegenError {
    pub fn new(message: impl Into<String>) -> CodegenError {
        CodegenError {
            message: message.into(),
            span: Span::default(),
        }
    }
    pub fn unsupported(what: impl Into<String>) -> CodegenError {
        CodegenError::new(format!("the wasm backend does not support {}", what.into()))
    }
    /// Attaches `span` if the error has none yet.
    pub(crate) fn at(mut self, span: Span) -> CodegenError {
        if self.span == Span::default() {
            self.span = span;
        }
        self
    }
    pub fn to_diagnostic(&self) -> Diagnostic {
        Diagnostic::error(self.message.clone(), self.span)
    }
}

impl fmt::Display for CodegenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for CodegenError {}

impl From<LowerError> for CodegenError {
    fn from(e: LowerError) -> Self {
        CodegenError {
            message: e.message,
            span: e.span,
        }
    }
}

/// One parameter of an exported kernel.
#[derive(Clone, Debug, PartialEq)]
pub enum ParamInfo {
    /// A buffer: pass the byte address of a `dtype` array of `shape`
    /// (`None` for symbolic extents).
    Buffer {
        name: String,
        dtype: DataType,
        shape: Vec<Option<i64>>,
    },
    /// A scalar argument.
    Scalar { name: String, dtype: DataType },
    /// A size variable: the extent (or compact stride, or offset 0) of
    /// parameter `param`'s argument, as `source` says.
    Size {
        name: String,
        dtype: DataType,
        param: usize,
        source: SizeSource,
    },
}

/// An exported kernel.
#[derive(Clone, Debug)]
pub struct KernelInfo {
    pub name: String,
    pub params: Vec<ParamInfo>,
    /// Bytes of stack the kernel may use (allocations and closure records),
    /// when that is static.
    pub workspace_bytes: Option<u64>,
}

/// How a kernel runs its parallel tasks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ParallelLaunch {
    /// The kernel calls the task body itself, once, over the whole range
    /// (one thread; needs nothing from the host).
    #[default]
    Inline,
    /// The kernel calls the imported `tessel.parallel_for(task, begin, end,
    /// closure)` (`i32, i64, i64, i32`); the host runs the exported task
    /// [`WasmModule::tasks`]`[task]` over sub-ranges of `[begin, end)` —
    /// on Web Workers sharing the memory, or (the native runtimes) in
    /// chunks on the calling thread — and returns when all are done.
    Host,
}

/// Build options.
#[derive(Clone, Debug, Default)]
pub struct BuildOptions {
    pub lower: LowerOptions,
    pub parallel: ParallelLaunch,
    /// Import the memory as `shared` (maximum 65536 pages), as Web Workers
    /// need; the host must then create a shared `WebAssembly.Memory`.
    pub shared_memory: bool,
    /// Emit `f32x4.relaxed_madd` / `f64x2.relaxed_madd` for vector
    /// multiply-adds (`c + a * b`): one fused instruction where the CPU has
    /// FMA, so results can differ from the reference interpreter's in the
    /// last bits (one rounding instead of two). Needs an engine with relaxed
    /// SIMD (Chromium 114+, wasmtime).
    pub relaxed_fma: bool,
}

/// An exported parallel task body (see [`ParallelLaunch`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TaskInfo {
    /// The export name, `__task_<kernel>_<id>`.
    pub export: String,
    pub kernel: String,
    /// The type of `begin`/`end` in the task's signature (int32 or int64).
    pub index_dtype: DataType,
}

/// A built module.
#[derive(Clone, Debug)]
pub struct WasmModule {
    bytes: Vec<u8>,
    pub kernels: Vec<KernelInfo>,
    /// The math imports the module needs, in import order.
    pub math_imports: Vec<MathFn>,
    /// Every parallel task body, numbered as `tessel.parallel_for` gets them.
    pub tasks: Vec<TaskInfo>,
    /// The memory import is `shared` ([`BuildOptions::shared_memory`]): the
    /// host must create a shared memory.
    pub shared_memory: bool,
    /// What lowering produced (the UI's "lowered" view and report).
    pub lowered: LoweredModule,
}

impl WasmModule {
    /// The binary module.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }
    /// The text format (wasmprinter).
    pub fn wat(&self) -> Result<String, CodegenError> {
        wasmprinter::print_bytes(&self.bytes)
            .map_err(|e| CodegenError::new(format!("printing the module: {e}")))
    }
    pub fn kernel(&self, name: &str) -> Option<&KernelInfo> {
        self.kernels.iter().find(|k| k.name == name)
    }
    /// The largest static stack need over all kernels (`None` if some
    /// kernel's is dynamic).
    pub fn workspace_bytes(&self) -> Option<u64> {
        self.kernels
            .iter()
            .try_fold(0u64, |m, k| k.workspace_bytes.map(|w| m.max(w)))
    }
}

/// Names of the imports and exports the runtimes rely on.
pub const MEMORY_MODULE: &str = "env";
pub const MEMORY_NAME: &str = "memory";
pub const STACK_POINTER: &str = "__stack_pointer";
pub const STACK_LIMIT: &str = "__stack_limit";
pub const LAUNCH_MODULE: &str = "tessel";
pub const LAUNCH_NAME: &str = "parallel_for";

/// The export name of a parallel task body.
pub fn task_export_name(kernel: &str, id: usize) -> String {
    format!("__task_{kernel}_{id}")
}

/// Lowers and compiles every PrimFunc of `module` into one wasm module.
pub fn build(module: &IRModule) -> Result<WasmModule, CodegenError> {
    build_with(module, &BuildOptions::default())
}

/// [`build`] with options.
pub fn build_with(module: &IRModule, opts: &BuildOptions) -> Result<WasmModule, CodegenError> {
    let lowered = tessel_lower::lower_module(module, &opts.lower)?;
    build_lowered(lowered, opts)
}

/// Says in the lowering report how the module will execute: who runs the
/// parallel tasks, and whether multiply-adds are fused.
fn note_execution(lowered: &mut LoweredModule, opts: &BuildOptions) {
    for f in &mut lowered.funcs {
        if !f.tasks.is_empty() {
            let n = f.tasks.len();
            let tasks = if n == 1 {
                "its parallel task"
            } else {
                "its parallel tasks"
            };
            f.report.notes.push(match opts.parallel {
                ParallelLaunch::Host => {
                    format!(
                    "{}: {tasks} launched through tessel.parallel_for: the host splits each range \
                     into one static chunk per thread over a {} memory",
                    f.name,
                    if opts.shared_memory { "shared" } else { "non-shared (so one thread)" }
                )
                }
                ParallelLaunch::Inline => format!(
                    "{}: {tasks} run on the calling thread, whole (a build for one thread)",
                    f.name
                ),
            });
        }
        if opts.relaxed_fma {
            f.report.notes.push(format!(
                "{}: vector multiply-adds are fused (relaxed_madd, FMA where the CPU has it): \
                 one rounding instead of two",
                f.name
            ));
        }
    }
}

/// Compiles already-lowered functions (`opts.lower` is not used).
pub fn build_lowered(
    mut lowered: LoweredModule,
    opts: &BuildOptions,
) -> Result<WasmModule, CodegenError> {
    note_execution(&mut lowered, opts);
    let math_imports = math_functions_used(&lowered);
    let mut sections = Sections::new();
    let mut ctx = ModuleCtx {
        math: HashMap::new(),
        tasks: HashMap::new(),
        task_numbers: HashMap::new(),
        launch: None,
        sp_global: 0,
        limit_global: 1,
        relaxed_fma: opts.relaxed_fma,
    };
    let first_kernel = sections.declare_imports(&mut ctx, &lowered, &math_imports, opts);
    let tasks = number_tasks(&mut ctx, &lowered, first_kernel);
    let kernels = sections.define_functions(&ctx, &lowered, first_kernel)?;
    let bytes = sections.finish();

    validate(&bytes)?;
    Ok(WasmModule {
        bytes,
        kernels,
        math_imports,
        tasks,
        shared_memory: opts.shared_memory,
        lowered,
    })
}

/// The math functions any function calls, to import (in a fixed order).
fn math_functions_used(lowered: &LoweredModule) -> Vec<MathFn> {
    let mut used: BTreeSet<MathFn> = BTreeSet::new();
    for f in &lowered.funcs {
        f.func.body.walk(&mut |s| {
            s.for_each_expr(|e| {
                e.walk(&mut |x| match x.kind() {
                    ExprKind::Call { op, .. } => {
                        if let Some(m) = MathFn::of(op) {
                            used.insert(m);
                        }
                    }
                    ExprKind::Binary(BinOp::Mod, a, _) if a.dtype().is_float() => {
                        used.insert(MathFn::Fmod);
                    }
                    _ => {}
                })
            })
        });
    }
    used.into_iter().collect()
}

/// Numbers the task bodies: their function indices follow the kernels'
/// (`ctx.tasks`), and each gets a module-wide number (`ctx.task_numbers`).
fn number_tasks(ctx: &mut ModuleCtx, lowered: &LoweredModule, first_kernel: u32) -> Vec<TaskInfo> {
    let mut next = first_kernel + lowered.funcs.len() as u32;
    let mut tasks = Vec::new();
    for (k, f) in lowered.funcs.iter().enumerate() {
        for t in &f.tasks {
            ctx.tasks.insert((k, t.id), next);
            ctx.task_numbers.insert((k, t.id), tasks.len() as u32);
            tasks.push(TaskInfo {
                export: task_export_name(&f.name, t.id),
                kernel: f.name.clone(),
                index_dtype: t.loop_var.dtype(),
            });
            next += 1;
        }
    }
    tasks
}

/// A task body generated after its kernel, added once every kernel is
/// (task indices follow the kernels').
struct TaskBody {
    export: String,
    index: u32,
    body: wasm_encoder::Function,
    names: Vec<(u32, String)>,
    ty: u32,
}

/// The module's sections as they are filled, and its function types.
struct Sections {
    types: TypeSection,
    imports: ImportSection,
    functions: FunctionSection,
    globals: GlobalSection,
    exports: ExportSection,
    code: CodeSection,
    fn_names: NameMap,
    local_names: IndirectNameMap,
    /// Function type indices, by parameters and number of results.
    type_of: HashMap<(Vec<ValType>, usize), u32>,
}

impl Sections {
    fn new() -> Self {
        Sections {
            types: TypeSection::new(),
            imports: ImportSection::new(),
            functions: FunctionSection::new(),
            globals: GlobalSection::new(),
            exports: ExportSection::new(),
            code: CodeSection::new(),
            fn_names: NameMap::new(),
            local_names: IndirectNameMap::new(),
            type_of: HashMap::new(),
        }
    }

    /// The index of the function type `params -> results`, added on first use.
    fn intern(&mut self, params: Vec<ValType>, results: Vec<ValType>) -> u32 {
        let key = (params.clone(), results.len());
        if let Some(&t) = self.type_of.get(&key) {
            return t;
        }
        self.types.ty().function(params, results);
        let t = self.type_of.len() as u32;
        self.type_of.insert(key, t);
        t
    }

    /// Imports the memory, `tessel.parallel_for` (when the host launches
    /// tasks) and the math functions, and declares the stack globals.
    /// Returns the number of functions imported: the first kernel's index.
    fn declare_imports(
        &mut self,
        ctx: &mut ModuleCtx,
        lowered: &LoweredModule,
        math_imports: &[MathFn],
        opts: &BuildOptions,
    ) -> u32 {
        self.imports.import(
            MEMORY_MODULE,
            MEMORY_NAME,
            EntityType::Memory(MemoryType {
                minimum: 1,
                maximum: opts.shared_memory.then_some(65536),
                memory64: false,
                shared: opts.shared_memory,
                page_size_log2: None,
            }),
        );
        let mut nfuncs = 0u32;
        let any_task = lowered.funcs.iter().any(|f| !f.tasks.is_empty());
        if opts.parallel == ParallelLaunch::Host && any_task {
            let t = self.intern(
                vec![ValType::I32, ValType::I64, ValType::I64, ValType::I32],
                vec![],
            );
            self.imports
                .import(LAUNCH_MODULE, LAUNCH_NAME, EntityType::Function(t));
            ctx.launch = Some(nfuncs);
            self.fn_names
                .append(nfuncs, &format!("{LAUNCH_MODULE}.{LAUNCH_NAME}"));
            nfuncs += 1;
        }
        for m in math_imports {
            let t = self.intern(vec![ValType::F64; m.arity()], vec![ValType::F64]);
            self.imports
                .import(math::MATH_MODULE, m.name(), EntityType::Function(t));
            ctx.math.insert(*m, nfuncs);
            self.fn_names
                .append(nfuncs, &format!("{}.{}", math::MATH_MODULE, m.name()));
            nfuncs += 1;
        }
        for name in [STACK_POINTER, STACK_LIMIT] {
            self.globals.global(
                GlobalType {
                    val_type: ValType::I32,
                    mutable: true,
                    shared: false,
                },
                &ConstExpr::i32_const(0),
            );
            let idx = if name == STACK_POINTER { 0 } else { 1 };
            self.exports.export(name, ExportKind::Global, idx);
        }
        nfuncs
    }

    /// Generates and exports every kernel, then every task body; describes
    /// the kernels.
    fn define_functions(
        &mut self,
        ctx: &ModuleCtx,
        lowered: &LoweredModule,
        first_kernel: u32,
    ) -> Result<Vec<KernelInfo>, CodegenError> {
        let mut kernels = Vec::new();
        let mut task_bodies: Vec<TaskBody> = Vec::new();
        for (k, f) in lowered.funcs.iter().enumerate() {
            let mut g = FuncGen::new(ctx, k, f);
            let params = g.kernel_params().map_err(|e| in_func(e, f))?;
            g.kernel_body().map_err(|e| in_func(e, f))?;
            let (body, names) = g.finish();
            let t = self.intern(params, vec![]);
            self.functions.function(t);
            self.code.function(&body);
            let idx = first_kernel + k as u32;
            self.exports.export(&f.name, ExportKind::Func, idx);
            self.fn_names.append(idx, &f.name);
            self.local_names.append(idx, &name_map(&names));
            kernels.push(KernelInfo {
                name: f.name.clone(),
                params: kernel_params(f),
                workspace_bytes: stack_need(&f.func.body),
            });
            // Task bodies of this kernel.
            for t in &f.tasks {
                let Some(l) = find_task_loop(&f.func.body, t.id) else {
                    return Err(in_func(
                        CodegenError::new(format!("internal: loop of task {} not found", t.id)),
                        f,
                    ));
                };
                let mut g = FuncGen::new(ctx, k, f);
                let params = g.task(t, &l).map_err(|e| in_func(e, f))?;
                let (body, names) = g.finish();
                let ty = self.intern(params, vec![]);
                let idx = ctx.tasks[&(k, t.id)];
                task_bodies.push(TaskBody {
                    export: task_export_name(&f.name, t.id),
                    index: idx,
                    body,
                    names,
                    ty,
                });
            }
        }
        for t in &task_bodies {
            self.functions.function(t.ty);
            self.code.function(&t.body);
            self.exports.export(&t.export, ExportKind::Func, t.index);
            self.fn_names.append(t.index, &t.export);
            self.local_names.append(t.index, &name_map(&t.names));
        }
        Ok(kernels)
    }

    /// The encoded module, with the names of functions, locals and globals.
    fn finish(self) -> Vec<u8> {
        let mut module = Module::new();
        module.section(&self.types);
        module.section(&self.imports);
        module.section(&self.functions);
        module.section(&self.globals);
        module.section(&self.exports);
        module.section(&self.code);
        let mut names = NameSection::new();
        names.functions(&self.fn_names);
        names.locals(&self.local_names);
        let mut global_names = NameMap::new();
        global_names.append(0, STACK_POINTER);
        global_names.append(1, STACK_LIMIT);
        names.globals(&global_names);
        module.section(&names);
        module.finish()
    }
}

/// Validates a module with the features this backend uses (SIMD128,
/// saturating conversions, sign extension, mutable globals).
pub fn validate(bytes: &[u8]) -> Result<(), CodegenError> {
    let mut v = wasmparser::Validator::new_with_features(wasmparser::WasmFeatures::default());
    v.validate_all(bytes)
        .map(|_| ())
        .map_err(|e| CodegenError::new(format!("internal: the emitted module is invalid: {e}")))
}

fn in_func(e: CodegenError, f: &LoweredFunc) -> CodegenError {
    CodegenError {
        message: format!("{}: {}", f.name, e.message),
        span: e.span,
    }
}

fn name_map(names: &[(u32, String)]) -> NameMap {
    // Unique names, so the text format can use them.
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut m = NameMap::new();
    for (idx, n) in names {
        let n = if n.is_empty() {
            "v".to_string()
        } else {
            n.clone()
        };
        let c = seen.entry(n.clone()).or_insert(0);
        let unique = if *c == 0 {
            n.clone()
        } else {
            format!("{n}_{c}")
        };
        *c += 1;
        m.append(*idx, &unique);
    }
    m
}

fn kernel_params(f: &LoweredFunc) -> Vec<ParamInfo> {
    let func = &f.func;
    let mut out = Vec::new();
    for p in &func.params {
        match func.param_buffer(p) {
            Some(b) => out.push(ParamInfo::Buffer {
                name: b.name.clone(),
                dtype: b.dtype,
                shape: b.shape.iter().map(|e| e.as_int()).collect(),
            }),
            None => out.push(ParamInfo::Scalar {
                name: p.name().to_string(),
                dtype: p.dtype(),
            }),
        }
    }
    for sp in tessel_lower::size_params(func) {
        let param = func
            .buffer_map
            .get(sp.buffer)
            .and_then(|(v, _)| func.params.iter().position(|p| p == v))
            .unwrap_or(0);
        out.push(ParamInfo::Size {
            name: sp.var.name().to_string(),
            dtype: sp.var.dtype(),
            param,
            source: sp.source,
        });
    }
    out
}

fn find_task_loop(body: &Stmt, id: usize) -> Option<tessel_tir::ir::For> {
    let mut found = None;
    body.walk(&mut |s| {
        if let StmtKind::For(l) = s.kind() {
            if l.kind == ForKind::Parallel
                && matches!(l.annotations.get(PARALLEL_TASK_ATTR), Some(AttrValue::Int(i)) if *i as usize == id)
            {
                found = Some(l.clone());
            }
        }
    });
    found
}

/// The most stack a statement needs at once, when static.
fn stack_need(s: &Stmt) -> Option<u64> {
    let round = |n: u64| n.div_ceil(STACK_ALIGN).saturating_mul(STACK_ALIGN);
    match s.kind() {
        StmtKind::Allocate { buffer, body } => {
            let inner = stack_need(body)?;
            let n = buffer.shape.first()?.as_int()?;
            let own = round((n.max(1) as u64).saturating_mul(buffer.dtype.bytes() as u64));
            // Small constant-indexed buffers may live in registers; counting
            // them anyway keeps this an upper bound.
            Some(own.saturating_add(inner))
        }
        StmtKind::For(l) => {
            let inner = stack_need(&l.body)?;
            if l.annotations.contains_key(PARALLEL_TASK_ATTR) {
                // closure record (captures are at most the free variables).
                let n = tessel_lower::free_vars(&l.body).len() as u64 + 1;
                return Some(
                    inner.saturating_add(round(n.saturating_mul(CLOSURE_SLOT).max(STACK_ALIGN))),
                );
            }
            Some(inner)
        }
        _ => {
            let mut m = Some(0u64);
            s.for_each_child(|c| {
                m = match (m, stack_need(c)) {
                    (Some(a), Some(b)) => Some(a.max(b)),
                    _ => None,
                }
            });
            m
        }
    }
}
