//! The reference interpreter: runs a TensorIR [`PrimFunc`] on host arrays.
//!
//! This is the ground truth that schedule transformations and both backends
//! (wasm, WGSL) are checked against, so it aims for exact, C-like scalar
//! semantics rather than speed — but it compiles the IR once into a
//! slot-resolved tree (no name or hash lookups while running), so a
//! 128×128×128 matmul takes a fraction of a second.
//!
//! # Calling convention
//!
//! Destination-passing style, like TVM: `args` holds **one [`NDArray`] per
//! parameter, in parameter order**; outputs are among them and are mutated
//! in place. A buffer parameter takes an array of exactly the buffer's dtype
//! and rank; symbolic sizes (`n = T.int64()` in a `T.match_buffer` shape) are
//! bound from the actual shapes, and every other size expression (a constant,
//! a variable seen before, `n * 2`) must agree with it. A scalar parameter
//! (`n: T.int32`) takes a **0-d array**, converted to the parameter's type as
//! by a cast.
//!
//! # Semantics
//!
//! - Integers wrap at their width; `Div`/`Mod` truncate (C), `FloorDiv`/
//!   `FloorMod` floor (Python); integer division by zero is an error.
//!   `INT_MIN / -1` wraps (C leaves it undefined).
//! - `float32` arithmetic rounds every operation to `f32`, `float16` to half
//!   precision (by hand; see [`round_to_f16`]), `float64` is `f64`. Float
//!   `FloorDiv` is `floor(a / b)`, `FloorMod` is `a - floor(a / b) * b`, `Mod`
//!   is C `fmod`. `Min`/`Max` are `a < b ? a : b` / `a > b ? a : b`, as TVM's
//!   LLVM code generator emits them (so a NaN in `b` wins).
//! - Math intrinsics are computed in `f64` and rounded to the operand type.
//!   `round` rounds half to even (`nearbyint`), `sigmoid` is `1/(1+exp(-x))`,
//!   `rsqrt` is `1/sqrt(x)`, [`erf`] is accurate to well within 1 ulp.
//! - Casts follow Rust `as`: float→int truncates and saturates (NaN → 0;
//!   undefined in C), to `bool` means `!= 0`.
//! - `Select` evaluates both sides, `if_then_else` only the taken one.
//! - Loops of every kind (parallel, vectorized, unrolled, thread-bound) run
//!   serially from `min` to `min + extent`; buffer scopes are ignored.
//! - A block binds its iterators, is skipped when its predicate is false,
//!   allocates its `alloc_buffers` zeroed on every entry, binds its
//!   `match_buffer`s as views of the source region, then runs `init` when every
//!   reduction iterator is at its domain's minimum, then its body.
//! - Vector values (`Ramp`, `Broadcast`, vector loads and stores) are
//!   evaluated lane by lane; a vector store reads all lanes before writing.
//! - Buffers declared over another buffer's data pointer without their own
//!   definition (`T.Buffer((n,), data=A.data)`, as flattening produces) are
//!   views of that storage.
//!
//! Every runtime fault is an [`EvalError`] carrying the span of the IR node:
//! out-of-bounds accesses (naming buffer, index and shape), division by
//! zero, argument mismatches, exceeded step budget or allocation limit, and —
//! found before running — undefined variables or buffers and ill-typed IR.
//! The interpreter never panics.

mod compile;
mod exec;
pub use crate::ir::values::{format, ndarray, rng, scalar};

use std::collections::HashMap;
use std::fmt;

pub use ndarray::{allclose, Checksum, NDArray};
pub use rng::Rng;
pub use scalar::{erf, f16_bits_to_f64, f64_to_f16_bits, round_to_f16};

use crate::diag::{Diagnostic, Span};
use crate::ir::PrimFunc;
use compile::{Compiler, ParamDef, Program, SizeBind};
use exec::Machine;
use scalar::V;

/// A runtime (or pre-run static) fault, with the span of the IR node at fault.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EvalError {
    pub message: String,
    pub span: Span,
}

impl EvalError {
    pub fn to_diagnostic(&self) -> Diagnostic {
        Diagnostic::error(self.message.clone(), self.span)
    }
}

impl fmt::Display for EvalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for EvalError {}

/// Knobs for a run.
#[derive(Clone, Debug)]
pub struct EvalOptions {
    /// Stop with an error after this many steps (loop iterations plus
    /// stores); `None` for no limit. Set it in the browser.
    pub step_budget: Option<u64>,
    /// Check that every access inside a block stays within the regions the
    /// block declares (`T.reads`/`T.writes`; loads may also touch written
    /// regions) and that block iterators stay in their domains — catches
    /// wrong schedule output. Buffers a block allocates itself are exempt.
    pub check_regions: bool,
    /// Largest single allocation (`alloc_buffer`, `Allocate`), in bytes.
    pub max_alloc_bytes: u64,
}

impl Default for EvalOptions {
    fn default() -> Self {
        EvalOptions {
            step_budget: None,
            check_regions: false,
            max_alloc_bytes: 1 << 30,
        }
    }
}

/// What a successful run did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EvalStats {
    /// Loop iterations plus stores (what the step budget counts).
    pub steps: u64,
}

/// A function prepared for (repeated) interpretation.
#[derive(Debug)]
pub struct CompiledFunc {
    prog: Program,
}

impl CompiledFunc {
    /// Resolves names and checks the IR's static rules. Errors here are the
    /// ones found before running: undefined variables or buffers, ill-typed
    /// expressions, wrong index counts.
    pub fn new(func: &PrimFunc) -> Result<CompiledFunc, EvalError> {
        Ok(CompiledFunc {
            prog: Compiler::new().compile_func(func)?,
        })
    }

    /// Runs the function on `args` (see the module docs for the convention).
    pub fn run(&self, args: &mut [NDArray], opts: &EvalOptions) -> Result<EvalStats, EvalError> {
        Machine::new(&self.prog, opts).run(args)
    }
}

/// Runs `func` on `args`, one array per parameter in order (0-d arrays for
/// scalar parameters); outputs are written in place.
pub fn run_prim_func(
    func: &PrimFunc,
    args: &mut [NDArray],
    opts: &EvalOptions,
) -> Result<(), EvalError> {
    CompiledFunc::new(func)?.run(args, opts).map(|_| ())
}

/// Default extent for a symbolic size not given in `sizes`.
pub const DEFAULT_SYMBOLIC_SIZE: i64 = 16;

/// Random arguments for `func`: one array per parameter, in order, ready
/// for [`run_prim_func`]. Buffers get the buffer's dtype and shape, filled
/// as by [`NDArray::random`] from a generator seeded with `seed`. Symbolic
/// sizes and integer scalar parameters take their value from `sizes` (by
/// variable name), else [`DEFAULT_SYMBOLIC_SIZE`]; float scalar parameters
/// take `sizes[name]` if present, else a random value in `[-1, 1)`.
pub fn random_inputs(
    func: &PrimFunc,
    seed: u64,
    sizes: &HashMap<String, i64>,
) -> Result<Vec<NDArray>, EvalError> {
    let compiled = CompiledFunc::new(func)?;
    let prog = &compiled.prog;
    let mut m = Machine::new(prog, &EvalOptions::default());
    let mut rng = Rng::new(seed);
    let size_of = |name: &str| sizes.get(name).copied().unwrap_or(DEFAULT_SYMBOLIC_SIZE);
    let fail = |message: String, span: Span| EvalError { message, span };
    let mut scalars: Vec<Option<NDArray>> = Vec::new();
    for p in &prog.params {
        scalars.push(match p {
            ParamDef::Scalar { slot, ty, name } => {
                let dtype = ty_dtype(*ty);
                let arr = if ty.is_float() {
                    let v = match sizes.get(name.as_str()) {
                        Some(&v) => v as f64,
                        None => rng.next_f64() * 2.0 - 1.0,
                    };
                    NDArray::scalar_f64(dtype, v)
                } else {
                    NDArray::scalar_i64(dtype, size_of(name))
                }
                .map_err(|e| fail(e.to_string(), prog.span))?;
                let v = arr.get_v(0).unwrap_or_default();
                m.slots[*slot as usize] = scalar::cast(arr.ty(), *ty, v);
                Some(arr)
            }
            ParamDef::Buffer(b) => {
                for bind in &b.shape {
                    if let SizeBind::Define { slot, ty, name } = bind {
                        let v = scalar::wrap(*ty, size_of(name));
                        m.slots[*slot as usize] = V::from_i(v);
                    }
                }
                None
            }
        });
    }
    let mut out = Vec::with_capacity(prog.params.len());
    for (p, scalar) in prog.params.iter().zip(scalars) {
        match p {
            ParamDef::Scalar { .. } => {
                out.push(scalar.ok_or_else(|| fail("internal: scalar".into(), prog.span))?)
            }
            ParamDef::Buffer(b) => {
                let mut shape = Vec::with_capacity(b.shape.len());
                for bind in &b.shape {
                    let v = match bind {
                        SizeBind::Define { slot, .. } => m.slots[*slot as usize].as_i(),
                        SizeBind::Check(e) => m.eval(e, 0).map_err(|e| *e)?.as_i(),
                    };
                    let d = usize::try_from(v).map_err(|_| {
                        fail(
                            format!("buffer {} would get the negative extent {v}", b.name),
                            b.span,
                        )
                    })?;
                    shape.push(d);
                }
                out.push(
                    NDArray::random(b.dtype, &shape, &mut rng)
                        .map_err(|e| fail(e.to_string(), b.span))?,
                );
            }
        }
    }
    Ok(out)
}

fn ty_dtype(ty: scalar::NumTy) -> crate::ir::DataType {
    use crate::ir::DataType;
    use scalar::NumTy::*;
    match ty {
        Bool => DataType::bool(),
        I8 => DataType::int(8),
        I16 => DataType::int(16),
        I32 => DataType::int(32),
        I64 => DataType::int(64),
        U8 => DataType::uint(8),
        U16 => DataType::uint(16),
        U32 => DataType::uint(32),
        U64 => DataType::uint(64),
        F16 => DataType::float(16),
        F32 => DataType::float(32),
        F64 => DataType::float(64),
    }
}
