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

use compiler_core::eval::{self, allclose, CompiledFunc, EvalOptions, NDArray};
use compiler_core::ir::{BaseFunc, IRModule, PrimFunc};

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
    let names = param_names(&plan.after);
    let mut out = Comparison::default();
    for ((e, g), param) in plan.expected.iter().zip(got).zip(&names) {
        if let Err(msg) = allclose(e, g, RTOL, ATOL) {
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
