//! Lowering: scheduled TensorIR → the low-level form both backends emit.
//!
//! The passes, in order (each a file here), mirror TVM's `tir.transform`
//! pipeline for CPU targets:
//!
//! 1. [`blocks`] — blocks become plain statements: iterators are replaced by
//!    their bound values, `T.where` becomes an `if`, `T.init()` runs under an
//!    `if` that tests that every reduction iterator is at its minimum (TVM's
//!    `LowerInitBlock`; `decompose_reduction` removes the test by splitting
//!    the init out), `T.match_buffer` views are rewritten into accesses of
//!    their source, and `alloc_buffer`s become [`StmtKind::Allocate`]s placed
//!    around the statements that use them (their lifetime). Thread-bound and
//!    virtual-thread loops run as serial loops on the CPU (noted).
//! 2. [`flatten`] — every buffer is accessed through a 1-D view: parameters
//!    through `X_flat = T.Buffer((n,), data=X.data)` (the parameters keep their
//!    N-d shape, so the lowered function takes the same arguments), allocations
//!    are allocated flat. Indices are row-major (or use declared strides).
//! 3. [`simplify`] — every index, condition and extent is simplified by the
//!    [`Analyzer`](tessel_tir::arith::Analyzer) knowing each enclosing loop's range,
//!    so the `i_0 * 32 + i_1` of a split and the `//`/`%` of a fuse cost no
//!    divisions where they cancel; provably true conditions and unit loops go.
//! 4. [`unswitch`] — an `if` whose condition does not change in a loop is
//!    decided before it (the loop runs in two versions): the `T.init()` guard
//!    of a reduction whose reduction loop is outside leaves the inner loops.
//! 5. [`vectorize`] — a `T.vectorized` loop whose accesses are contiguous
//!    (stride 1 in the loop variable, or invariant) becomes `Ramp`/`Broadcast`
//!    vector code of the target's native width (`LowerOptions::vector_bytes`,
//!    16 for SIMD128 and WGSL `vec4`): a loop of 8 `float32` lanes becomes an
//!    unrolled pair of 4-lane statements. Anything else stays a scalar loop,
//!    and the [`LoweringReport`] says why. Innermost serial loops that meet
//!    the same conditions are vectorized too (`auto_vectorize`, LLVM's loop
//!    vectorizer in TVM's flow), with a note.
//! 6. [`unroll`] — `T.unroll` loops of constant extent are unrolled (inner
//!    definitions get fresh variables per copy).
//! 7. [`promote`] — register promotion: an element updated in a loop at a
//!    loop-invariant address (the `C[i, j] += ...` of a matmul whose reduction
//!    loop is inside) is kept in a one-element `local` buffer for the loop's
//!    duration and written back once, which backends map to a register.
//! 8. [`hoist`] — loop-invariant parts of addresses are computed once per
//!    iteration of the loop they depend on (`let` before the inner loops).
//! 9. [`parallel`] — each outermost `T.parallel` loop is marked as a task
//!    (`tessel.parallel_task` annotation, [`ParallelTask`] with its captured
//!    variables): backends outline its body into a function of the iteration
//!    range, so running it on several workers later only changes the launch.
//!
//! The lowered function is ordinary TIR: it prints (the UI's "lowered" view)
//! and the reference interpreter runs it with the same arguments as the
//! source function (tests check identical results).
//!
//! Invariant: no pass panics; unsupported input is a [`LowerError`].

// A panic in WebAssembly kills the page: library code returns typed errors (tests may unwrap).
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

mod allreduce;
mod blocks;
mod flatten;
pub mod gpu;
mod hoist;
mod parallel;
mod promote;
mod simplify;
mod unroll;
mod unswitch;
mod util;
mod vectorize;

/// The six GPU launch axes, outermost first (kernel extraction and the
/// cross-thread reductions both recognise thread-bound loops by them).
pub const LAUNCH_TAGS: [&str; 6] = [
    "blockIdx.z",
    "blockIdx.y",
    "blockIdx.x",
    "threadIdx.z",
    "threadIdx.y",
    "threadIdx.x",
];

use std::fmt;
use std::rc::Rc;

use tessel_tir::diag::{Diagnostic, Span};
use tessel_tir::ir::{BaseFunc, IRModule, PrimFunc, Var};

pub use parallel::{free_vars, ParallelTask, PARALLEL_TASK_ATTR};

/// What lowering may do, per target.
#[derive(Clone, Debug)]
pub struct LowerOptions {
    /// Width of one native vector register in bytes (16: SIMD128, WGSL vec4).
    pub vector_bytes: u32,
    /// Largest number of statement copies one `T.unroll` loop may produce
    /// (larger loops stay loops, with a note).
    pub max_unroll: u64,
    /// Vectorize innermost serial loops too when they qualify (what LLVM's
    /// loop vectorizer does for TVM's CPU code).
    pub auto_vectorize: bool,
    /// Run [`unswitch`] (loop-invariant conditions decided before loops).
    pub unswitch: bool,
    /// Run [`promote`] (register promotion).
    pub promote: bool,
    /// Run [`hoist`] (loop-invariant address computation).
    pub hoist: bool,
    /// Outline `T.parallel` loops into tasks ([`parallel`]). When false they
    /// stay plain loops (what a GPU backend wants before binding threads).
    pub parallel_tasks: bool,
    /// Run loops bound to thread axes (`blockIdx.x`, `threadIdx.y`, …) as
    /// serial loops, as a CPU must; a GPU backend keeps them.
    pub serialize_thread_bindings: bool,
}

impl Default for LowerOptions {
    fn default() -> Self {
        LowerOptions {
            vector_bytes: 16,
            max_unroll: 1024,
            auto_vectorize: true,
            unswitch: true,
            promote: true,
            hoist: true,
            parallel_tasks: true,
            serialize_thread_bindings: true,
        }
    }
}

/// What lowering decided, for the UI: one line per decision the user may
/// care about (a loop left scalar and why, an init guard, a task).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LoweringReport {
    pub notes: Vec<String>,
}

impl LoweringReport {
    pub(crate) fn note(&mut self, text: impl Into<String>) {
        let text = text.into();
        if !self.notes.contains(&text) {
            self.notes.push(text);
        }
    }
}

/// Lowering failed: the construct is outside what the low-level form
/// supports. Carries the span of the offending IR node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LowerError {
    pub message: String,
    pub span: Span,
}

impl LowerError {
    pub(crate) fn new(message: impl Into<String>, span: Span) -> LowerError {
        LowerError {
            message: message.into(),
            span,
        }
    }
    pub fn to_diagnostic(&self) -> Diagnostic {
        Diagnostic::error(self.message.clone(), self.span)
    }
}

impl fmt::Display for LowerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for LowerError {}

pub type Result<T> = std::result::Result<T, LowerError>;

/// One lowered function.
#[derive(Clone, Debug)]
pub struct LoweredFunc {
    /// The name in the module (the exported symbol).
    pub name: String,
    /// Same parameters and buffer map as the source; body in low-level form.
    pub func: PrimFunc,
    /// The `T.parallel` loops outlined as tasks, by task id.
    pub tasks: Vec<ParallelTask>,
    pub report: LoweringReport,
}

/// A lowered module: its functions in the source module's order.
#[derive(Clone, Debug, Default)]
pub struct LoweredModule {
    pub funcs: Vec<LoweredFunc>,
}

impl LoweredModule {
    /// The lowered functions as an [`IRModule`] (to print or interpret).
    pub fn to_ir_module(&self) -> IRModule {
        let mut m = IRModule::new();
        for f in &self.funcs {
            m.insert(f.name.clone(), BaseFunc::Prim(Rc::new(f.func.clone())));
        }
        m
    }
    /// All notes, each prefixed with its function's name.
    pub fn report(&self) -> LoweringReport {
        let mut r = LoweringReport::default();
        for f in &self.funcs {
            for n in &f.report.notes {
                r.notes.push(format!("{}: {n}", f.name));
            }
        }
        r
    }
}

/// Lowers every PrimFunc of `module`.
pub fn lower_module(module: &IRModule, opts: &LowerOptions) -> Result<LoweredModule> {
    let mut out = LoweredModule::default();
    for (name, f) in module.prim_funcs() {
        out.funcs.push(lower_func(name, f, opts)?);
    }
    Ok(out)
}

/// Lowers one function (see the module docs for the passes).
pub fn lower_func(name: &str, func: &PrimFunc, opts: &LowerOptions) -> Result<LoweredFunc> {
    let mut report = LoweringReport::default();
    let body = blocks::lower_blocks(func, opts.serialize_thread_bindings, &mut report)?;
    let body = flatten::flatten(func, &body)?;
    let body = simplify::simplify(func, &body);
    let body = if opts.unswitch {
        unswitch::unswitch(&body, &mut report)
    } else {
        body
    };
    let body = vectorize::vectorize(&body, opts.vector_bytes, opts.auto_vectorize, &mut report)?;
    let body = unroll::unroll(&body, opts.max_unroll, &mut report)?;
    let body = simplify::simplify(func, &body);
    let body = if opts.promote {
        promote::promote(&body, &mut report)
    } else {
        body
    };
    let body = if opts.hoist {
        hoist::hoist(func, &body)
    } else {
        body
    };
    let (body, tasks) = if opts.parallel_tasks {
        parallel::outline(func, &body, &mut report)?
    } else {
        (body, Vec::new())
    };
    Ok(LoweredFunc {
        name: name.to_string(),
        func: func.with_body(body),
        tasks,
        report,
    })
}

/// The variables a lowered function needs from its caller besides its
/// declared parameters: size, stride and offset variables of parameter
/// buffers (`n = T.int64()` in a shape), in order of first appearance.
pub fn size_params(func: &PrimFunc) -> Vec<SizeParam> {
    let mut out: Vec<SizeParam> = Vec::new();
    let declared: Vec<&Var> = func.params.iter().collect();
    for (bi, (_, b)) in func.buffer_map.iter().enumerate() {
        let fields = b
            .shape
            .iter()
            .enumerate()
            .map(|(d, e)| (SizeSource::Shape(d), e))
            .chain(
                b.strides
                    .iter()
                    .enumerate()
                    .map(|(d, e)| (SizeSource::Stride(d), e)),
            )
            .chain(std::iter::once((SizeSource::ElemOffset, &b.elem_offset)));
        for (source, e) in fields {
            if let Some(v) = e.as_var() {
                if declared.contains(&v) || out.iter().any(|p| &p.var == v) {
                    continue;
                }
                out.push(SizeParam {
                    var: v.clone(),
                    buffer: bi,
                    source,
                });
            }
        }
    }
    out
}

/// A variable bound from an argument's layout (see [`size_params`]).
#[derive(Clone, Debug)]
pub struct SizeParam {
    pub var: Var,
    /// Index into the function's `buffer_map`.
    pub buffer: usize,
    pub source: SizeSource,
}

/// Which part of the argument's layout a [`SizeParam`] takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SizeSource {
    Shape(usize),
    /// In elements (a compact array's row-major stride).
    Stride(usize),
    ElemOffset,
}
