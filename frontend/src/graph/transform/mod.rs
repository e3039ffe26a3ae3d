//! Graph-level passes over an [`IRModule`], as TVM 0.27's `relax.transform`
//! runs them in the MLC course (chapter 7): each takes a module and returns a
//! new one (untouched functions are shared), or a [`Diagnostic`] with the
//! span of the offending binding.
//!
//! - [`bind_params`]: named parameters of a function become constants.
//! - [`legalize_ops`]: high-level operator calls become `R.call_tir` of
//!   PrimFuncs built with [`crate::te`] / topi, named as TVM names them.
//! - [`annotate_tir_op_pattern`]: each PrimFunc gets its `op_pattern`
//!   (element-wise, broadcast, injective, reduction, out-element-wise-fusable,
//!   opaque), what fusion reads.
//! - [`fuse_ops`]: TVM's dominator-based operator fusion into private
//!   `Primitive` graph functions (`fused_matmul_add_relu`).
//! - [`fuse_tir`]: each primitive graph function becomes one PrimFunc.
//! - [`dead_code_elimination`] and [`remove_all_unused`].
//!
//! Every pass keeps the module's meaning: `tests/lower_te_graph/graph_passes.rs` runs the
//! original and the transformed module in the graph VM on random inputs and
//! compares the printed result with TVM 0.27's (`tests/data/graph_passes`).

pub mod bind_params;
pub mod dce;
pub mod fuse_ops;
pub mod fuse_tir;
pub mod legalize_ops;
pub mod op_pattern;

use std::collections::{HashMap, HashSet};

use tessel_tir::diag::{Diagnostic, Span};
use tessel_tir::ir::{IRModule, VarId};

use super::ir::{Call, Callee, Expr, ExprKind, Function, Var};

pub use bind_params::bind_params;
pub use dce::{dead_code_elimination, remove_all_unused};
pub use fuse_ops::fuse_ops;
pub use fuse_tir::fuse_tir;
pub use legalize_ops::legalize_ops;
pub use op_pattern::{annotate_tir_op_pattern, OpPattern};

/// The result of a pass.
pub type PassResult<T> = Result<T, Diagnostic>;

/// A pass error at `span`.
pub(crate) fn error(message: impl Into<String>, span: Span) -> Diagnostic {
    Diagnostic::error(message, span)
}

/// A global name not yet used in the module: `base`, else `base1`, `base2`…
/// (TVM's name supply for new global functions).
pub(crate) fn unique_global_name(taken: &HashSet<String>, base: &str) -> String {
    if !taken.contains(base) {
        return base.to_string();
    }
    (1..)
        .map(|i| format!("{base}{i}"))
        .find(|n| !taken.contains(n))
        .unwrap_or_else(|| base.to_string())
}

pub(crate) fn module_names(module: &IRModule) -> HashSet<String> {
    module.names().map(str::to_string).collect()
}

/// `e` with the graph variables in `map` replaced.
pub(crate) fn substitute(e: &Expr, map: &HashMap<VarId, Expr>) -> Expr {
    if map.is_empty() {
        return e.clone();
    }
    let kind = match e.kind() {
        ExprKind::Var(v) => match map.get(&v.id()) {
            Some(r) => return r.clone(),
            None => return e.clone(),
        },
        ExprKind::Tuple(fields) => {
            ExprKind::Tuple(fields.iter().map(|f| substitute(f, map)).collect())
        }
        ExprKind::TupleGetItem(t, i) => ExprKind::TupleGetItem(substitute(t, map), *i),
        ExprKind::Call(c) => ExprKind::Call(Call {
            callee: c.callee.clone(),
            args: c.args.iter().map(|a| substitute(a, map)).collect(),
            sinfo_args: c.sinfo_args.clone(),
        }),
        _ => return e.clone(),
    };
    Expr::new(kind, e.span())
}

/// The PrimFunc a `R.call_tir` calls, with its arguments and output struct info.
pub(crate) fn as_call_tir(e: &Expr) -> Option<(&str, &[Expr], &super::ir::StructInfo)> {
    let c = e.as_call()?;
    if !matches!(c.callee, Callee::Op(super::op::Op::CallTir)) {
        return None;
    }
    let ExprKind::GlobalVar(g) = c.args.first()?.kind() else {
        return None;
    };
    let args: &[Expr] = match c.args.get(1)?.kind() {
        ExprKind::Tuple(fields) => fields,
        _ => std::slice::from_ref(&c.args[1]),
    };
    Some((g.name(), args, c.sinfo_args.first()?))
}

/// How many times each graph variable is used in `func` (bindings and result).
pub(crate) fn use_counts(func: &Function) -> HashMap<VarId, usize> {
    let mut n = HashMap::new();
    let mut count = |v: &Var| *n.entry(v.id()).or_insert(0) += 1;
    for b in func.body.bindings() {
        b.value.for_each_var(&mut count);
    }
    func.body.body.for_each_var(&mut count);
    n
}
