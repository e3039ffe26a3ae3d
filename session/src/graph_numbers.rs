//! Numbers checks of graph-level functions (`@R.function`, a BlockBuilder's
//! `main`): the student's and the reference module's function both run in
//! the graph VM on the same seeded random tensors, and every output is
//! compared element by element. The result is judged, not how the graph
//! was built: `call_tir`, `emit_te`, a rewritten or fused graph all pass
//! when they compute the same tensors.

use std::collections::HashMap;

use compiler_core::eval::{NDArray, DEFAULT_SYMBOLIC_SIZE};
use compiler_core::graph::vm::{self, eval_dim, PackedRegistry, Value};
use compiler_core::ir::graph::{Function, StructInfo};
use compiler_core::ir::values::rng::Rng;
use compiler_core::ir::visit::expr_vars;
use compiler_core::ir::{IRModule, VarId};

/// Why a graph function's outputs do not match, or could not be compared.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum GraphMismatch {
    /// The reference program could not give inputs or outputs (the
    /// exercise's fault).
    Reference(String),
    /// The student's function could not run with those inputs.
    Run(String),
    /// Output `which` differs: the message names the first element.
    Output { which: String, message: String },
}

/// Runs graph function `name` of both modules on the same random inputs
/// (symbolic sizes from `sizes`, else [`DEFAULT_SYMBOLIC_SIZE`]) and
/// compares the results; `tolerance` overrides each dtype's.
pub(crate) fn compare_graph_function(
    name: &str,
    student: &IRModule,
    reference: &IRModule,
    sizes: &HashMap<String, i64>,
    seed: u64,
    tolerance: Option<(f64, f64)>,
) -> Result<(), GraphMismatch> {
    let Some(reference_func) = reference.get_graph(name) else {
        return Err(GraphMismatch::Reference(format!(
            "the reference module has no graph function `{name}`"
        )));
    };
    let inputs =
        random_graph_inputs(reference_func, sizes, seed).map_err(GraphMismatch::Reference)?;
    let packed = PackedRegistry::with_course_env();
    let expected = vm::run(reference, name, inputs.clone(), &packed).map_err(|e| {
        GraphMismatch::Reference(format!("the reference program failed: {}", e.message))
    })?;
    let got = vm::run(student, name, inputs, &packed).map_err(|e| GraphMismatch::Run(e.message))?;
    compare_values("the result", &expected, &got, tolerance)
}

/// Seeded random tensors for each parameter of `func`, in order.
fn random_graph_inputs(
    func: &Function,
    sizes: &HashMap<String, i64>,
    seed: u64,
) -> Result<Vec<NDArray>, String> {
    let mut rng = Rng::new(seed);
    let mut inputs = Vec::with_capacity(func.params.len());
    for param in &func.params {
        let StructInfo::Tensor(info) = param.sinfo() else {
            return Err(format!(
                "parameter `{}` is not a tensor: numbers checks give tensors only",
                param.name()
            ));
        };
        let (Some(shape), Some(dtype)) = (&info.shape, info.dtype) else {
            return Err(format!(
                "parameter `{}` has no known shape and dtype to make random inputs from",
                param.name()
            ));
        };
        let mut syms = HashMap::new();
        for dim in shape {
            bind_size_vars(dim, sizes, &mut syms);
        }
        let dims = shape
            .iter()
            .map(|d| {
                let v = eval_dim(&syms, d)?;
                usize::try_from(v).map_err(|_| format!("a negative size {v}"))
            })
            .collect::<Result<Vec<usize>, String>>()
            .map_err(|m| format!("parameter `{}`: {m}", param.name()))?;
        let array = NDArray::random(dtype, &dims, &mut rng)
            .map_err(|e| format!("parameter `{}`: {e}", param.name()))?;
        inputs.push(array);
    }
    Ok(inputs)
}

/// Gives each size variable of `dim` its value from `sizes` (by name).
fn bind_size_vars(
    dim: &compiler_core::ir::Expr,
    sizes: &HashMap<String, i64>,
    syms: &mut HashMap<VarId, i64>,
) {
    for v in expr_vars(dim) {
        let value = sizes
            .get(v.name())
            .copied()
            .unwrap_or(DEFAULT_SYMBOLIC_SIZE);
        syms.insert(v.id(), value);
    }
}

/// Compares two results of the same structure; `what` names the part.
fn compare_values(
    what: &str,
    expected: &Value,
    got: &Value,
    tolerance: Option<(f64, f64)>,
) -> Result<(), GraphMismatch> {
    match (expected, got) {
        (Value::Tensor(e), Value::Tensor(g)) => {
            let (rtol, atol) = tolerance.unwrap_or_else(|| crate::check::tolerance_of(e.dtype()));
            match crate::check::first_difference(e, g, rtol, atol) {
                None => Ok(()),
                Some(message) => Err(GraphMismatch::Output {
                    which: what.to_string(),
                    message,
                }),
            }
        }
        (Value::Tuple(es), Value::Tuple(gs)) if es.len() == gs.len() => {
            for (i, (e, g)) in es.iter().zip(gs).enumerate() {
                compare_values(&format!("{what}[{i}]"), e, g, tolerance)?;
            }
            Ok(())
        }
        (e, g) if e == g => Ok(()),
        (e, g) => Err(GraphMismatch::Output {
            which: what.to_string(),
            message: format!("it is {}, expected {}", describe(g), describe(e)),
        }),
    }
}

/// A value's kind and size, for a mismatch message.
fn describe(v: &Value) -> String {
    match v {
        Value::Tensor(t) => format!("a tensor of shape {:?}", t.shape()),
        Value::Tuple(items) => format!("a tuple of {}", items.len()),
        Value::Shape(s) => format!("the shape {s:?}"),
        Value::Prim(p) => format!("the scalar {p}"),
        Value::Str(s) => format!("the string {s:?}"),
        Value::Func(f) => format!("the function `{f}`"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unequal_tuples_name_the_part() {
        let a = NDArray::from_f64(&[2], vec![1.0, 2.0]).unwrap();
        let b = NDArray::from_f64(&[2], vec![1.0, 3.0]).unwrap();
        let expected = Value::Tuple(vec![Value::Tensor(a.clone()), Value::Tensor(a.clone())]);
        let got = Value::Tuple(vec![Value::Tensor(a), Value::Tensor(b)]);
        match compare_values("the result", &expected, &got, None) {
            Err(GraphMismatch::Output { which, message }) => {
                assert_eq!(which, "the result[1]");
                assert!(message.contains("at index [1]"), "{message}");
            }
            other => panic!("expected a mismatch, got {other:?}"),
        }
    }
}
