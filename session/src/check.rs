//! Checking a scheduled program against its original, whatever runs it:
//! [`plan_run`] picks the function a script scheduled, makes seeded random
//! inputs and runs the *original* function on them in the reference
//! interpreter (the expected outputs); a backend then runs
//! [`RunPlan::module`] (the scheduled function alone) on the same inputs,
//! and [`compare_outputs`] gives the verdict. The playground's Run pane
//! uses it, and so can anything else that must not trust a transformation
//! it has not checked.

use std::collections::HashMap;
use std::fmt;
use std::rc::Rc;

use compiler_core::eval::{
    self, allclose, ndarray::NDArrayError, CompiledFunc, EvalOptions, NDArray,
};
use compiler_core::ir::{BaseFunc, DataType, IRModule, PrimFunc};

use crate::ScriptOutcome;

/// The seed of a check's random inputs (fixed, so runs are comparable).
pub const INPUT_SEED: u64 = 42;

/// Tolerances of the comparison (`allclose`): relative, then absolute.
pub const RTOL: f64 = 1e-4;
pub const ATOL: f64 = 1e-5;

/// What a backend needs to run a check, and what it must reproduce.
pub struct RunPlan {
    /// The function checked.
    pub name: String,
    /// The scheduled function alone in a module (what backends compile).
    pub module: IRModule,
    pub before: Rc<PrimFunc>,
    pub after: Rc<PrimFunc>,
    /// Arguments, one array per parameter (outputs zeroed).
    pub inputs: Vec<NDArray>,
    /// The arguments after the original function ran on `inputs`.
    pub expected: Vec<NDArray>,
    /// Whether any schedule step changed the module.
    pub scheduled: bool,
    /// How long the reference run took, in the clock's unit.
    pub reference_time: f64,
}

/// Why a check cannot start. Displays as the playground shows it.
#[derive(Clone, Debug, PartialEq)]
pub enum PlanError {
    /// The script has errors, or produced no module.
    ScriptErrors,
    NoFunction,
    NoFunctionNamed(String),
    Inputs(String),
    OriginalDoesNotCompile(String),
    OriginalFailed(String),
}

impl fmt::Display for PlanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlanError::ScriptErrors => f.write_str("fix the errors first"),
            PlanError::NoFunction => f.write_str("no function to run"),
            PlanError::NoFunctionNamed(n) => write!(f, "no function `{n}`"),
            PlanError::Inputs(m) => write!(f, "could not make inputs: {m}"),
            PlanError::OriginalDoesNotCompile(m) => {
                write!(f, "the original function does not compile: {m}")
            }
            PlanError::OriginalFailed(m) => write!(f, "the original function failed: {m}"),
        }
    }
}

/// The function a check of `script` runs: the one its schedule worked on,
/// else the original module's first PrimFunc.
pub fn checked_function(script: &ScriptOutcome) -> Option<String> {
    script.func.clone().or_else(|| {
        let original = &script.module_snapshots.first()?.module;
        original.prim_funcs().next().map(|(n, _)| n.to_string())
    })
}

/// Plans a check of what `script` scheduled: its function (the one the
/// schedule worked on, else the first), inputs, and the original's outputs
/// computed within `step_budget` interpreter steps; `now` times that run.
pub fn plan_run(
    script: &ScriptOutcome,
    step_budget: u64,
    now: &dyn Fn() -> f64,
) -> Result<RunPlan, PlanError> {
    if script.errors.iter().any(|d| d.is_error()) || script.module_snapshots.is_empty() {
        return Err(PlanError::ScriptErrors);
    }
    let original = &script.module_snapshots[0].module;
    let last = &script.module_snapshots[script.module_snapshots.len() - 1].module;
    let name = checked_function(script).ok_or(PlanError::NoFunction)?;
    let (Some(before), Some(after)) = (original.get_prim(&name), last.get_prim(&name)) else {
        return Err(PlanError::NoFunctionNamed(name));
    };
    let opts = EvalOptions {
        step_budget: Some(step_budget),
        ..EvalOptions::default()
    };
    let inputs = eval::random_inputs(before, INPUT_SEED, &HashMap::new())
        .map_err(|e| PlanError::Inputs(e.message))?;
    let reference =
        CompiledFunc::new(before).map_err(|e| PlanError::OriginalDoesNotCompile(e.message))?;
    let mut expected = inputs.clone();
    let t0 = now();
    reference
        .run(&mut expected, &opts)
        .map_err(|e| PlanError::OriginalFailed(e.message))?;
    let reference_time = now() - t0;
    let mut module = IRModule::new();
    module.insert(name.clone(), BaseFunc::Prim(after.clone()));
    Ok(RunPlan {
        name,
        module,
        before: before.clone(),
        after: after.clone(),
        inputs,
        expected,
        scheduled: script.module_snapshots.len() > 1,
        reference_time,
    })
}

/// A backend's outputs against the expected ones.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Comparison {
    /// The first parameter that differs beyond the tolerances, with where.
    pub mismatch: Option<String>,
    pub max_abs_err: f64,
    pub max_rel_err: f64,
    /// A preview of every argument the run changed (the outputs).
    pub changed: Vec<String>,
}

impl Comparison {
    pub fn matches(&self) -> bool {
        self.mismatch.is_none()
    }

    /// The verdict in a sentence.
    pub fn verdict(&self, scheduled: bool) -> String {
        match &self.mismatch {
            None if scheduled => "outputs match the original program".into(),
            None => "outputs match the original program (no schedule)".into(),
            Some(m) => format!("outputs differ from the original program: {m}"),
        }
    }
}

/// Compares `got` (the arguments after a backend ran the plan's module)
/// with the plan's expected arguments.
pub fn compare_outputs(plan: &RunPlan, got: &[NDArray]) -> Comparison {
    compare_outputs_within(plan, got, RTOL, ATOL)
}

/// [`compare_outputs`] for a backend that fused multiply-adds (one
/// rounding instead of two): each of the `n` accumulation steps of the
/// longest reduction may then differ by one unit of rounding of the running
/// sum, so the tolerances grow to `n · ε` of the dtype (relative) and of
/// the largest expected magnitude (absolute), never below the defaults.
pub fn compare_outputs_fused(plan: &RunPlan, got: &[NDArray]) -> Comparison {
    let (rtol, atol) = fused_tolerances(plan);
    compare_outputs_within(plan, got, rtol, atol)
}

/// The tolerances of [`compare_outputs_fused`].
pub fn fused_tolerances(plan: &RunPlan) -> (f64, f64) {
    let n = reduction_length(&plan.after) as f64;
    let eps = plan
        .expected
        .iter()
        .map(|a| match a.dtype().bits {
            16 => 9.77e-4,
            32 => f64::from(f32::EPSILON),
            _ => f64::EPSILON,
        })
        .fold(0.0, f64::max);
    let scale = plan
        .expected
        .iter()
        .flat_map(|a| a.to_f64_vec())
        .filter(|x| x.is_finite())
        .fold(0.0f64, |m, x| m.max(x.abs()));
    let rtol = RTOL.max(n * eps);
    (rtol, ATOL.max(n * eps * scale))
}

/// The most iterations any block of `f` reduces over (the product of its
/// reduction iterators' extents; 1 without reductions or when an extent is
/// not a constant).
pub fn reduction_length(f: &PrimFunc) -> u64 {
    use compiler_core::ir::visit::{walk_block, Visitor};
    use compiler_core::ir::{Block, IterKind};
    struct Longest(u64);
    impl Visitor for Longest {
        fn visit_block(&mut self, b: &Block) {
            let n = b
                .iter_vars
                .iter()
                .filter(|iv| iv.kind == IterKind::Reduce)
                .map(|iv| iv.dom.extent.as_int().unwrap_or(1).max(1) as u64)
                .product::<u64>();
            self.0 = self.0.max(n);
            walk_block(self, b)
        }
    }
    let mut l = Longest(1);
    l.visit_stmt(&f.body);
    l.0
}

fn compare_outputs_within(plan: &RunPlan, got: &[NDArray], rtol: f64, atol: f64) -> Comparison {
    let names = param_names(&plan.after);
    let mut out = Comparison::default();
    for ((e, g), param) in plan.expected.iter().zip(got).zip(&names) {
        if let Err(msg) = allclose(e, g, rtol, atol) {
            out.mismatch.get_or_insert(format!("{param}: {msg}"));
        }
        for (x, y) in e.to_f64_vec().iter().zip(g.to_f64_vec()) {
            let d = (x - y).abs();
            if d.is_nan() {
                out.max_abs_err = f64::NAN;
                out.max_rel_err = f64::NAN;
                continue;
            }
            out.max_abs_err = out.max_abs_err.max(d);
            if d > 0.0 {
                out.max_rel_err = out.max_rel_err.max(d / x.abs().max(f64::MIN_POSITIVE));
            }
        }
    }
    for ((inp, g), param) in plan.inputs.iter().zip(got).zip(&names) {
        if inp.to_f64_vec() != g.to_f64_vec() {
            out.changed.push(preview(param, g));
        }
    }
    out
}

/// Each parameter's buffer name (the parameter's own for a scalar).
fn param_names(f: &PrimFunc) -> Vec<String> {
    f.params
        .iter()
        .map(|p| {
            f.buffer_map
                .iter()
                .find(|(v, _)| v == p)
                .map(|(_, b)| b.name.clone())
                .unwrap_or_else(|| p.name().to_string())
        })
        .collect()
}

fn preview(name: &str, a: &NDArray) -> String {
    let v = a.to_f64_vec();
    let shown: Vec<String> = v.iter().take(6).map(|x| format!("{x:.4}")).collect();
    format!(
        "{name} {:?} = [{}{}]",
        a.shape(),
        shown.join(", "),
        if v.len() > 6 { ", …" } else { "" }
    )
}

/// Tolerances of a dtype: relative, absolute (exact for integers).
pub fn tolerance_of(dtype: DataType) -> (f64, f64) {
    if !dtype.is_float() {
        return (0.0, 0.0);
    }
    match dtype.bits {
        16 => (1e-2, 1e-3),
        64 => (1e-9, 1e-12),
        _ => (RTOL, ATOL),
    }
}

/// The first element of `got` outside the tolerances of `expected`:
/// `at index [1, 2] it is 3, expected 5 (4 of 16 elements differ)`.
pub(crate) fn first_difference(
    expected: &NDArray,
    got: &NDArray,
    rtol: f64,
    atol: f64,
) -> Option<String> {
    match eval::allclose(got, expected, rtol, atol) {
        Ok(()) => None,
        Err(NDArrayError::NotClose {
            index,
            a,
            b,
            count,
            elements,
            ..
        }) => Some(format!(
            "at index [{}] it is {a}, expected {b} ({count} of {elements} elements differ)",
            index
                .iter()
                .map(|i| i.to_string())
                .collect::<Vec<_>>()
                .join(", "),
        )),
        Err(_) => Some(format!(
            "shape {:?}, expected {:?}",
            got.shape(),
            expected.shape()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use compiler_core::tvmscript::builder::parse_script;

    #[test]
    fn fused_tolerances_grow_with_the_reduction_length() {
        let m = parse_script(
            r#"
@T.prim_func
def main(A: T.Buffer((8, 512), "float32"), B: T.Buffer((512, 8), "float32"), C: T.Buffer((8, 8), "float32")):
    for i, j, k in T.grid(8, 8, 512):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
"#,
        )
        .unwrap()
        .to_module();
        let f = m.get_prim("main").unwrap();
        assert_eq!(reduction_length(f), 512);
        let c = NDArray::from_f32(&[8, 8], vec![100.0; 64]).unwrap();
        let plan_for = |f: Rc<PrimFunc>| RunPlan {
            name: "main".into(),
            module: m.clone(),
            before: f.clone(),
            after: f,
            inputs: Vec::new(),
            expected: vec![c.clone()],
            scheduled: true,
            reference_time: 0.0,
        };
        let plan = plan_for(f.clone());
        let (rtol, atol) = fused_tolerances(&plan);
        let n_eps = 512.0 * f64::from(f32::EPSILON);
        assert!((rtol - n_eps.max(RTOL)).abs() < 1e-12, "{rtol}");
        assert!((atol - n_eps * 100.0).abs() < 1e-9, "{atol}");
        // Without a reduction the defaults stay.
        let plain = plan_for(
            parse_script(
                r#"
@T.prim_func
def main(A: T.Buffer((8,), "float32"), C: T.Buffer((8,), "float32")):
    for i in range(8):
        with T.block("C"):
            vi = T.axis.spatial(8, i)
            C[vi] = A[vi]
"#,
            )
            .unwrap()
            .to_module()
            .get_prim("main")
            .unwrap()
            .clone(),
        );
        assert_eq!(reduction_length(&plain.after), 1);
        let (rtol, _) = fused_tolerances(&plain);
        assert_eq!(rtol, RTOL);
    }
}
