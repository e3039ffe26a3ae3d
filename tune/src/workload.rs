//! The thing being tuned: one PrimFunc (as an [`IRModule`] with that
//! function alone), its structural key for the database, and its FLOP count
//! for the GFLOPS figures.

use compiler_core::ir::printer::{print_module, PrintOptions};
use compiler_core::ir::{ExprKind, IRModule, PrimFunc, Stmt, StmtKind};

use crate::error::TuneError;

/// A workload: a single-function module and its key.
#[derive(Clone, Debug)]
pub struct Workload {
    /// The module as given (one PrimFunc).
    pub module: IRModule,
    /// The name of its function.
    pub func_name: String,
    /// [`structural_hash`] of the module.
    pub hash: u64,
    /// Floating-point (and integer) operations per call, counted from the
    /// block bodies ([`flop_count`]).
    pub flops: f64,
}

impl Workload {
    /// A workload from a module of exactly one PrimFunc with static shapes.
    pub fn new(module: IRModule) -> Result<Workload, TuneError> {
        let funcs: Vec<(String, PrimFunc)> = module
            .prim_funcs()
            .map(|(n, f)| (n.to_string(), (**f).clone()))
            .collect();
        let (func_name, func) = match funcs.as_slice() {
            [(n, f)] => (n.clone(), f.clone()),
            [] => return Err(TuneError::Workload("the module has no PrimFunc".into())),
            _ => {
                return Err(TuneError::Workload(format!(
                    "the module has {} PrimFuncs ({}); tune_tir takes a module with one",
                    funcs.len(),
                    funcs
                        .iter()
                        .map(|(n, _)| n.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                )))
            }
        };
        for (_, b) in &func.buffer_map {
            if b.shape.iter().any(|d| d.as_int().is_none()) {
                return Err(TuneError::Workload(format!(
                    "buffer `{}` has a symbolic shape; the tuner measures static shapes only",
                    b.name
                )));
            }
        }
        let flops = flop_count(&func.body);
        Ok(Workload {
            hash: structural_hash(&module),
            module,
            func_name,
            flops,
        })
    }
}

/// A 64-bit key of the module's structure: FNV-1a over its canonical
/// TVMScript text. Equal modules print alike, so they share records; unlike
/// TVM's structural hash, renaming a variable changes the key.
pub fn structural_hash(module: &IRModule) -> u64 {
    fnv1a(print_module(module, &PrintOptions::default()).as_bytes())
}

/// FNV-1a, 64-bit: small, stable across platforms and releases.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// Arithmetic operations per call: for every store in a block body, the
/// operations of its value times the iterations of the loops around it, as
/// TVM's `estimate_tir_flops` counts them: index arithmetic inside a load is
/// not counted, a `Select` counts its condition and the costlier of its two
/// values, a call counts its arguments only. At least 1.
pub fn flop_count(body: &Stmt) -> f64 {
    fn ops(e: &compiler_core::ir::Expr) -> f64 {
        match e.kind() {
            ExprKind::Binary(_, a, b) => 1.0 + ops(a) + ops(b),
            ExprKind::Load { .. } => 0.0,
            ExprKind::Select {
                cond,
                then,
                otherwise,
            } => ops(cond) + ops(then).max(ops(otherwise)),
            _ => {
                let mut n = 0.0;
                e.for_each_child(|c| n += ops(c));
                n
            }
        }
    }
    fn visit(s: &Stmt, iters: f64, total: &mut f64) {
        match s.kind() {
            StmtKind::For(l) => {
                let ext = l.extent.as_int().unwrap_or(1).max(1) as f64;
                visit(&l.body, iters * ext, total);
            }
            StmtKind::Store { value, .. } => *total += iters * ops(value),
            _ => s.for_each_child(|c| visit(c, iters, total)),
        }
    }
    let mut total = 0.0;
    visit(body, 1.0, &mut total);
    total.max(1.0)
}

#[cfg(test)]
mod tests {
    use compiler_core::tvmscript::builder::parse_script;

    use super::*;

    #[test]
    fn flops_leave_out_index_arithmetic_and_count_the_costlier_select_arm() {
        let module = parse_script(
            r#"
from tvm.script import tir as T
@T.prim_func
def main(A: T.Buffer((18,), "float32"), B: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
    for i in range(16):
        with T.block("C"):
            vi = T.axis.spatial(16, i)
            C[vi] = T.Select(vi < 8, A[vi + 2] * B[vi] + T.float32(1), A[vi + 1])
"#,
        )
        .unwrap()
        .to_module();
        let workload = Workload::new(module).unwrap();
        // Per element: `*` and `+` in the costlier arm; `vi + 2`, `vi + 1`
        // and the comparison are not arithmetic on values.
        assert_eq!(workload.flops, 32.0);
    }
}
