//! The runner: builds a candidate with the target's backend, runs it on
//! fixed random inputs and times it (`time_evaluator` semantics, the
//! backend's own timer or the host's clock), through
//! `compiler_core::target`. It also checks candidates numerically against
//! the original program: on the reference interpreter when the workload is
//! small enough, otherwise against the unscheduled program built by the same
//! backend (for a GPU, with its spatial loops bound to threads and nothing
//! else changed). A candidate whose first run exceeds the time limit fails
//! without being timed. A build error, a trap or an exhausted step budget is a failed
//! measurement, never a result.

use std::collections::HashMap;

use compiler_core::eval::{random_inputs, NDArray};
use compiler_core::ir::values::allclose;
use compiler_core::ir::IRModule;
use compiler_core::target::{Backend, BuildOptions, Host, ReferenceBackend};

use crate::error::TuneError;
use crate::target::TuneTarget;
use crate::workload::Workload;

/// Operations up to which the expected output comes from the reference
/// interpreter (a few seconds of interpretation at most).
pub const REFERENCE_MAX_FLOPS: f64 = 1.0e8;

/// The seed of the fixed random inputs every candidate runs on.
pub const INPUT_SEED: u64 = 0x7e55e1;

/// The numerical check's default relative and absolute tolerance.
pub const TOLERANCE: f64 = 1e-3;

/// Whether the arguments after a candidate's run match the original's.
pub fn compare_outputs(
    got: &[NDArray],
    expected: &[NDArray],
    rtol: f64,
    atol: f64,
) -> Result<(), String> {
    for (i, (g, e)) in got.iter().zip(expected).enumerate() {
        allclose(g, e, rtol, atol).map_err(|m| format!("wrong result in argument {i}: {m}"))?;
    }
    Ok(())
}

/// What measuring one candidate gave.
#[derive(Clone, Debug, PartialEq)]
pub enum MeasureResult {
    /// Seconds per call of each repeat.
    Ok(Vec<f64>),
    /// Why it could not be measured (build error, trap, wrong result).
    Failed(String),
}

impl MeasureResult {
    pub fn mean_seconds(&self) -> Option<f64> {
        match self {
            MeasureResult::Ok(v) if !v.is_empty() => Some(v.iter().sum::<f64>() / v.len() as f64),
            _ => None,
        }
    }
}

/// Builds, runs, times and checks candidates of one workload.
pub struct Runner<'a> {
    backend: &'a dyn Backend,
    host: &'a dyn Host,
    target: TuneTarget,
    workload: Workload,
    inputs: Vec<NDArray>,
    expected: Option<Vec<NDArray>>,
    /// Calls per repeat (`number`) and repeats (`repeat`).
    pub number: u64,
    pub repeat: u64,
    /// The step budget of one run (a runaway candidate fails).
    pub step_budget: u64,
    /// A candidate whose first run takes longer fails without being timed
    /// (TVM's runner `timeout_sec`; measured with the host's clock, so a
    /// host without one never stops a candidate this way).
    pub time_limit_seconds: f64,
    /// Relative and absolute tolerance of the numerical check.
    pub rtol: f64,
    pub atol: f64,
    /// What every build asks of the backend besides the target.
    pub build_options: BuildOptions,
}

impl<'a> Runner<'a> {
    pub fn new(
        backend: &'a dyn Backend,
        host: &'a dyn Host,
        workload: &Workload,
        target: &TuneTarget,
    ) -> Result<Runner<'a>, TuneError> {
        let func = workload
            .module
            .get_prim(&workload.func_name)
            .ok_or_else(|| TuneError::Workload("the module has no PrimFunc".into()))?;
        let inputs = random_inputs(func, INPUT_SEED, &HashMap::new())
            .map_err(|e| TuneError::Workload(format!("cannot make inputs: {}", e.message)))?;
        Ok(Runner {
            backend,
            host,
            target: target.clone(),
            workload: workload.clone(),
            inputs,
            expected: None,
            number: 3,
            repeat: 1,
            step_budget: 1 << 36,
            time_limit_seconds: 10.0,
            rtol: TOLERANCE,
            atol: TOLERANCE,
            build_options: BuildOptions::default(),
        })
    }

    /// Runs `module` once on the fixed inputs: every argument afterwards.
    fn run_once(&self, backend: &dyn Backend, module: &IRModule) -> Result<Vec<NDArray>, String> {
        let exe = backend
            .build(module, &self.target.spec, &self.build_options)
            .map_err(|e| format!("build failed: {e}"))?;
        let mut args = self.inputs.clone();
        exe.run(&self.workload.func_name, &mut args, self.step_budget)
            .map_err(|e| format!("run failed: {e}"))?;
        Ok(args)
    }

    /// Builds and times `module`.
    pub fn measure(&self, module: &IRModule) -> MeasureResult {
        let exe = match self
            .backend
            .build(module, &self.target.spec, &self.build_options)
        {
            Ok(e) => e,
            Err(e) => return MeasureResult::Failed(format!("build failed: {e}")),
        };
        let name = &self.workload.func_name;
        let mut args = self.inputs.clone();
        // One untimed call: traps show here, caches are warm, and a
        // candidate slower than the limit stops here (a run cannot be
        // interrupted, so the limit bounds each candidate to one run).
        let started = self.host.now_seconds();
        if let Err(e) = exe.run(name, &mut args, self.step_budget) {
            return MeasureResult::Failed(format!("run failed: {e}"));
        }
        let first = self.host.now_seconds() - started;
        if first > self.time_limit_seconds {
            return MeasureResult::Failed(format!(
                "exceeded the time limit: one run took {first:.2} s (the limit is {} s)",
                self.time_limit_seconds
            ));
        }
        // Slow candidates are timed with fewer calls.
        let number = if first * self.number as f64 > self.time_limit_seconds {
            1
        } else {
            self.number
        };
        match exe.time(name, &mut args, number, self.repeat, self.host) {
            Some(Ok(secs)) => MeasureResult::Ok(secs),
            Some(Err(e)) => MeasureResult::Failed(format!("run failed: {e}")),
            None => {
                let mut secs = Vec::new();
                for _ in 0..self.repeat.max(1) {
                    let start = self.host.now_seconds();
                    for _ in 0..number.max(1) {
                        if let Err(e) = exe.run(name, &mut args, self.step_budget) {
                            return MeasureResult::Failed(format!("run failed: {e}"));
                        }
                    }
                    secs.push((self.host.now_seconds() - start) / number.max(1) as f64);
                }
                MeasureResult::Ok(secs)
            }
        }
    }

    /// Whether `module` computes what the original program computes on the
    /// runner's inputs (the expected values are computed on first use).
    pub fn check(&mut self, module: &IRModule) -> Result<(), String> {
        if self.expected.is_none() {
            let expected = if self.workload.flops <= REFERENCE_MAX_FLOPS {
                self.run_once(&ReferenceBackend::default(), &self.workload.module)
            } else if self.target.is_gpu() {
                // A GPU backend builds thread-bound programs only: the
                // original, each block's spatial loops bound to threads.
                crate::rules::bind_for_gpu(&self.workload.module, 64)
                    .and_then(|m| self.run_once(self.backend, &m))
            } else {
                self.run_once(self.backend, &self.workload.module)
            }
            .map_err(|e| format!("the original program: {e}"))?;
            self.expected = Some(expected);
        }
        let got = self.run_once(self.backend, module)?;
        let expected = self.expected.as_deref().unwrap_or_default();
        compare_outputs(&got, expected, self.rtol, self.atol)
    }
}
