//! Math functions without a wasm instruction (exp, log, tanh, …), imported
//! from the host as `tessel_math.<name>: (f64[, f64]) -> f64`.
//!
//! Why imports rather than inline polynomials: the reference interpreter
//! computes these in `f64` and rounds to the operand type, and so does this
//! backend (promote, call, demote), so results match the interpreter to the
//! last bit wherever the host's libm agrees with Rust's — which the native
//! runtime guarantees by using the very same functions ([`MathFn::eval`]).
//! In the browser the JS host passes `Math.exp` and friends (correct to
//! within an ulp in `f64`, well inside `float32` rounding). The cost is a
//! call per element; kernels that are dominated by `exp` (softmax) would want
//! an inline `f32x4` polynomial later — a change to `func.rs` only.
//! `sqrt`, `abs`, `floor`, `ceil`, `trunc`, `round`, `min`, `max` are native
//! instructions (scalar and SIMD) and never imported.

use tessel_tir::ir::Intrinsic;

/// An imported math function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MathFn {
    Exp,
    Exp2,
    Exp10,
    Log,
    Log2,
    Log10,
    Log1p,
    Tanh,
    Erf,
    Sin,
    Cos,
    Tan,
    Atan,
    Pow,
    Fmod,
}

/// The import module name of the math functions.
pub const MATH_MODULE: &str = "tessel_math";

impl MathFn {
    pub const ALL: [MathFn; 15] = [
        MathFn::Exp,
        MathFn::Exp2,
        MathFn::Exp10,
        MathFn::Log,
        MathFn::Log2,
        MathFn::Log10,
        MathFn::Log1p,
        MathFn::Tanh,
        MathFn::Erf,
        MathFn::Sin,
        MathFn::Cos,
        MathFn::Tan,
        MathFn::Atan,
        MathFn::Pow,
        MathFn::Fmod,
    ];

    /// The import name.
    pub fn name(self) -> &'static str {
        match self {
            MathFn::Exp => "exp",
            MathFn::Exp2 => "exp2",
            MathFn::Exp10 => "exp10",
            MathFn::Log => "log",
            MathFn::Log2 => "log2",
            MathFn::Log10 => "log10",
            MathFn::Log1p => "log1p",
            MathFn::Tanh => "tanh",
            MathFn::Erf => "erf",
            MathFn::Sin => "sin",
            MathFn::Cos => "cos",
            MathFn::Tan => "tan",
            MathFn::Atan => "atan",
            MathFn::Pow => "pow",
            MathFn::Fmod => "fmod",
        }
    }

    /// Number of `f64` arguments.
    pub fn arity(self) -> usize {
        match self {
            MathFn::Pow | MathFn::Fmod => 2,
            _ => 1,
        }
    }

    /// The import an intrinsic needs (`None`: native or not a math call).
    pub fn of(op: &Intrinsic) -> Option<MathFn> {
        Some(match op {
            Intrinsic::Exp | Intrinsic::Sigmoid => MathFn::Exp,
            Intrinsic::Exp2 => MathFn::Exp2,
            Intrinsic::Exp10 => MathFn::Exp10,
            Intrinsic::Log => MathFn::Log,
            Intrinsic::Log2 => MathFn::Log2,
            Intrinsic::Log10 => MathFn::Log10,
            Intrinsic::Log1p => MathFn::Log1p,
            Intrinsic::Tanh => MathFn::Tanh,
            Intrinsic::Erf => MathFn::Erf,
            Intrinsic::Sin => MathFn::Sin,
            Intrinsic::Cos => MathFn::Cos,
            Intrinsic::Tan => MathFn::Tan,
            Intrinsic::Atan => MathFn::Atan,
            Intrinsic::Pow => MathFn::Pow,
            _ => return None,
        })
    }

    /// The host implementation: exactly the interpreter's functions.
    pub fn eval(self, a: f64, b: f64) -> f64 {
        match self {
            MathFn::Exp => a.exp(),
            MathFn::Exp2 => a.exp2(),
            MathFn::Exp10 => 10f64.powf(a),
            MathFn::Log => a.ln(),
            MathFn::Log2 => a.log2(),
            MathFn::Log10 => a.log10(),
            MathFn::Log1p => a.ln_1p(),
            MathFn::Tanh => a.tanh(),
            MathFn::Erf => tessel_tir::eval::erf(a),
            MathFn::Sin => a.sin(),
            MathFn::Cos => a.cos(),
            MathFn::Tan => a.tan(),
            MathFn::Atan => a.atan(),
            MathFn::Pow => a.powf(b),
            MathFn::Fmod => a % b,
        }
    }
}
