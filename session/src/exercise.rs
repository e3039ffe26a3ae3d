//! Course exercises: what an exercise asks ([`Exercise`], plain data a
//! loader fills from the exercise's file) and the checker that grades a
//! student's answer ([`check_answer`]) by running it through the session
//! driver, like any playground script, then applying each [`Check`]:
//!
//! - **numbers**: the student's function against the reference program's
//!   on seeded random inputs, with per-dtype tolerances; a failure names
//!   the first differing element and its index;
//! - **structure**: structurally equal to a target module
//!   (`tvm.ir.assert_structural_equal`), showing the first mismatch, and
//!   both functions printed with its lines highlighted ([`StructureDiff`]);
//! - **schedule**: primitives the schedule must / must not use, loops bound
//!   to GPU threads, buffers in given memory scopes;
//! - **speed**: faster than a baseline by a ratio, both timed one after the
//!   other (median of runs), the numbers shown. [`begin_check`] stops
//!   before the timing and hands it out as [`PendingSpeed`]s, so a host
//!   whose GPU is asynchronous (WebGPU in the page) times the kernels
//!   itself and finishes the verdict with [`complete_speed`];
//!   [`check_answer`] times them at once on the host's backend;
//! - **output**: what the answer printed.
//!
//! The verdict ([`Verdict::render`]) is the one text every host shows, so
//! the command line and the page agree word for word. An answer that does
//! not parse, raises or exceeds its budgets fails with the error's message
//! and place; nothing here panics on student input.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::rc::Rc;

use compiler_core::analysis::structural_equal::{assert_structural_equal, EqualOptions};
use compiler_core::diag::{LineIndex, Span};
use compiler_core::eval::{self, NDArray};
use compiler_core::ir::{BaseFunc, DataType, ForKind, IRModule, PrimFunc, Stmt, StmtKind};
use compiler_core::target::{Backend, BuildOptions, Executable, ReferenceBackend, Target};

pub use crate::check::tolerance_of;
use crate::check::{first_difference, INPUT_SEED};
use crate::graph_numbers::{compare_graph_function, GraphMismatch};
use crate::structure_diff::StructureDiff;
use crate::{run_script, ScriptEnv, ScriptOutcome};

/// One exercise, as its file describes it.
#[derive(Clone, Debug, PartialEq)]
pub struct Exercise {
    /// Stable, URL-safe name (`?exercise=ID`).
    pub id: String,
    pub title: String,
    /// What to do, in Markdown.
    pub statement: String,
    /// What the editor starts with.
    pub starting_code: String,
    /// Revealed one at a time.
    pub hints: Vec<String>,
    /// A correct answer: kept from the student, used by tests and as the
    /// default reference program of numbers checks.
    pub solution: String,
    /// Other correct answers, each reaching the result by another route
    /// (never shown; tests check that every one passes, so no check
    /// refuses a right answer for the way it was found).
    pub alternatives: Vec<String>,
    /// The function the checks look at.
    pub function: String,
    /// What the answer is built for (`llvm`, `webgpu`…).
    pub target: String,
    /// Values of symbolic sizes for random inputs.
    pub sizes: Vec<(String, i64)>,
    pub checks: Vec<Check>,
}

/// One requirement on an answer.
#[derive(Clone, Debug, PartialEq)]
pub struct Check {
    pub kind: CheckKind,
    /// Shown when the check fails, after the checker's own message
    /// (what to look at next).
    pub advice: Option<String>,
}

/// What a check compares.
#[derive(Clone, Debug, PartialEq)]
pub enum CheckKind {
    /// Outputs on random inputs equal the reference program's.
    Numbers {
        /// The reference program's code; `None`: the exercise's solution.
        reference: Option<String>,
        /// Overrides the dtype's tolerances (relative, absolute).
        tolerance: Option<(f64, f64)>,
    },
    /// Structurally equal to the module `target` defines.
    Structure { target: String },
    /// Requirements on the schedule and the scheduled function.
    Schedule(ScheduleRules),
    /// Faster than the baseline program by `min_speedup`.
    Speed {
        baseline: String,
        min_speedup: f64,
        /// Timed runs of each (the median counts).
        runs: u32,
    },
    /// What the answer printed.
    Output {
        expected: String,
        matching: OutputMatch,
    },
}

/// How printed output is compared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutputMatch {
    /// Every line equal (trailing spaces and blank lines at the end ignored).
    Exact,
    /// The expected text appears somewhere.
    Contains,
}

/// What a schedule check asks for.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ScheduleRules {
    /// Primitives the trace must contain (`split`, `compute_at`…).
    pub must_use: Vec<String>,
    /// Primitives it must not contain.
    pub must_not_use: Vec<String>,
    /// Thread tags some loop must be bound to (`blockIdx.x`, `threadIdx.x`).
    pub thread_bindings: Vec<String>,
    /// Memory scopes some allocated buffer must be in (`shared`, `local`).
    pub scopes: Vec<String>,
    /// Kinds some loop of the scheduled function must have (`parallel`,
    /// `vectorized`, `unrolled`): a property of the result, whichever
    /// primitives made it.
    pub loop_kinds: Vec<String>,
}

impl CheckKind {
    /// The check's short name, as the verdict prints it.
    pub fn name(&self) -> &'static str {
        match self {
            CheckKind::Numbers { .. } => "numbers",
            CheckKind::Structure { .. } => "structure",
            CheckKind::Schedule(_) => "schedule",
            CheckKind::Speed { .. } => "speed",
            CheckKind::Output { .. } => "output",
        }
    }
}

/// An exercise's target (the course admits `llvm`, `c` and the GPU
/// kinds); text that does not parse counts as the CPU, whose backends
/// build any module.
fn exercise_target(text: &str) -> Target {
    Target::parse(text).unwrap_or_else(|_| Target::llvm())
}

impl Exercise {
    /// Whether the exercise's code runs on a GPU.
    pub fn is_gpu(&self) -> bool {
        exercise_target(&self.target).is_gpu()
    }
}

/// What a check run has from its host.
#[derive(Clone)]
pub struct CheckEnv {
    /// Clock, backend and budgets (the same as any script's).
    pub script: ScriptEnv,
    /// `None` when the backend runs GPU targets on a GPU; otherwise why
    /// not (shown to the student): numbers then run on the reference
    /// interpreter, and [`check_answer`] skips speed checks (a host that
    /// times GPU code itself completes them from [`begin_check`]).
    pub no_gpu: Option<String>,
}

/// A check's outcome.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    Passed,
    Failed,
    /// Could not run here (the reason is the message).
    Skipped,
}

impl Status {
    pub fn label(self) -> &'static str {
        match self {
            Status::Passed => "PASS",
            Status::Failed => "FAIL",
            Status::Skipped => "SKIP",
        }
    }
}

/// One check's result.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckResult {
    /// `runs` (the answer ran without errors), or a [`CheckKind::name`].
    pub name: String,
    pub status: Status,
    /// One sentence.
    pub message: String,
    /// More lines: the mismatch, the measured numbers, the advice.
    pub details: Vec<String>,
    /// Where in the answer to look, when known.
    pub span: Option<Span>,
    /// `(line, column)` of `span`, 1-based.
    pub line_col: Option<(usize, usize)>,
    /// A failed structure check: both functions, the mismatch highlighted.
    /// (Boxed: it is large, and most results have none.)
    pub structure: Option<Box<StructureDiff>>,
}

/// Every check's result, in the exercise's order after `runs`.
#[derive(Clone, Debug, PartialEq)]
pub struct Verdict {
    pub results: Vec<CheckResult>,
}

impl Verdict {
    /// Whether every check passed (a skipped check does not count against).
    pub fn passed(&self) -> bool {
        self.results.iter().all(|r| r.status != Status::Failed)
    }

    /// The verdict as text: one line per check, details indented, and a
    /// summary line.
    pub fn render(&self) -> String {
        let mut out = String::new();
        for r in &self.results {
            let _ = write!(out, "{} {}: {}", r.status.label(), r.name, r.message);
            if let Some((line, col)) = r.line_col {
                let _ = write!(out, " (line {line}, column {col})");
            }
            out.push('\n');
            for d in &r.details {
                for line in d.lines() {
                    let _ = writeln!(out, "    {line}");
                }
            }
        }
        let count = |s| self.results.iter().filter(|r| r.status == s).count();
        let (passed, failed, skipped) = (
            count(Status::Passed),
            count(Status::Failed),
            count(Status::Skipped),
        );
        let _ = write!(
            out,
            "{}: {passed} passed, {failed} failed",
            if self.passed() {
                "All checks passed"
            } else {
                "Not yet"
            }
        );
        if skipped > 0 {
            let _ = write!(out, ", {skipped} skipped");
        }
        out.push('\n');
        out
    }
}

/// Grades `answer` (exactly what the student's editor holds) against
/// `exercise`.
pub fn check_answer(exercise: &Exercise, answer: &str, env: &CheckEnv) -> Verdict {
    let (mut verdict, pending) = begin_check(exercise, answer, env);
    for p in &pending {
        let measured = match (&env.no_gpu, p.is_gpu()) {
            (Some(why), true) => Err(SpeedError::Unavailable(why.clone())),
            _ => measure_speed(
                p,
                &*env.script.backend,
                &*env.script.host,
                env.script.limits.steps,
            ),
        };
        verdict.complete_speed(p, measured);
    }
    verdict
}

fn passed(name: &str, message: String) -> CheckResult {
    result(name, Status::Passed, message)
}
fn failed(name: &str, message: String) -> CheckResult {
    result(name, Status::Failed, message)
}
fn skipped(name: &str, message: String) -> CheckResult {
    result(name, Status::Skipped, message)
}
fn result(name: &str, status: Status, message: String) -> CheckResult {
    CheckResult {
        name: name.to_string(),
        status,
        message,
        details: Vec::new(),
        span: None,
        line_col: None,
        structure: None,
    }
}

impl CheckResult {
    fn detail(mut self, line: String) -> CheckResult {
        self.details.push(line);
        self
    }
    /// Points the result at `span` of the answer (an empty span at 0 is
    /// "nowhere in particular").
    fn at(mut self, index: &LineIndex, span: Option<Span>) -> CheckResult {
        if let Some(span) = span.filter(|s| s.end > 0) {
            self.span = Some(span);
            self.line_col = Some(index.line_col(span.start));
        }
        self
    }
}

/// The final module of a run: the one the playground shows last.
fn final_module(outcome: &ScriptOutcome) -> Option<&IRModule> {
    outcome.module_snapshots.last().map(|s| &s.module)
}

/// The final module of a run and the exercise's function in it.
fn final_function(outcome: &ScriptOutcome, name: &str) -> Result<Rc<PrimFunc>, String> {
    let module = &outcome
        .module_snapshots
        .last()
        .ok_or("no TensorIR module found: define one with @tvm.script.ir_module or @T.prim_func")?
        .module;
    module.get_prim(name).cloned().ok_or_else(|| {
        let names: Vec<&str> = module.prim_funcs().map(|(n, _)| n).collect();
        if names.is_empty() {
            format!("no function `{name}` found: the module has no PrimFunc")
        } else {
            format!(
                "no function `{name}` found (the module has {})",
                names
                    .iter()
                    .map(|n| format!("`{n}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        }
    })
}

/// Runs an exercise author's program (reference, target, baseline) and
/// takes `name` from its final module.
fn author_function(
    code: &str,
    what: &str,
    name: &str,
    env: &ScriptEnv,
) -> Result<(ScriptOutcome, Rc<PrimFunc>), String> {
    let outcome = run_script(code, env);
    if let Some(e) = outcome.errors.iter().find(|d| d.is_error()) {
        return Err(format!("the exercise's {what} does not run: {}", e.message));
    }
    let func = final_function(&outcome, name).map_err(|m| format!("the exercise's {what}: {m}"))?;
    Ok((outcome, func))
}

fn single(name: &str, func: &Rc<PrimFunc>) -> IRModule {
    let mut module = IRModule::new();
    module.insert(name.to_string(), BaseFunc::Prim(func.clone()));
    module
}

/// The backend the answer's code runs on, and why when it is not the host's.
fn backend_for(exercise: &Exercise, env: &CheckEnv) -> (Rc<dyn Backend>, Option<String>) {
    match (&env.no_gpu, exercise.is_gpu()) {
        (Some(why), true) => (
            Rc::new(ReferenceBackend::default()),
            Some(format!("{why}: ran on the reference interpreter")),
        ),
        _ => (env.script.backend.clone(), None),
    }
}

fn check_numbers(
    exercise: &Exercise,
    outcome: &ScriptOutcome,
    reference: Option<&str>,
    tolerance: Option<(f64, f64)>,
    env: &CheckEnv,
) -> CheckResult {
    let name = &exercise.function;
    if let Some(module) = final_module(outcome).filter(|m| m.get_graph(name).is_some()) {
        return check_graph_numbers(exercise, module, reference, tolerance, env);
    }
    let student = match final_function(outcome, name) {
        Ok(f) => f,
        Err(m) => return failed("numbers", m),
    };
    let reference_code = reference.unwrap_or(&exercise.solution);
    let expected_func = match author_function(reference_code, "reference", name, &env.script) {
        Ok((_, f)) => f,
        Err(m) => return failed("numbers", m),
    };
    let sizes: HashMap<String, i64> = exercise.sizes.iter().cloned().collect();
    let inputs = match eval::random_inputs(&expected_func, INPUT_SEED, &sizes) {
        Ok(i) => i,
        Err(e) => return failed("numbers", format!("could not make inputs: {}", e.message)),
    };
    let params = param_buffers(&expected_func);
    let student_params = param_buffers(&student);
    if student_params.len() != params.len() {
        return failed(
            "numbers",
            format!(
                "`{name}` takes {} parameters; it should take {} ({})",
                student_params.len(),
                params.len(),
                describe_params(&params)
            ),
        )
        .located(student.span);
    }
    for ((n, dt, shape), (sn, sdt, sshape)) in params.iter().zip(&student_params) {
        if dt != sdt || shape != sshape {
            return failed(
                "numbers",
                format!(
                    "parameter `{sn}` is {sdt}{sshape:?}; it should be {dt}{shape:?} (like `{n}`)"
                ),
            )
            .located(student.span);
        }
    }
    let budget = env.script.limits.steps;
    let mut expected = inputs.clone();
    let reference_run = ReferenceBackend::default()
        .build(
            &single(name, &expected_func),
            &Target::llvm(),
            &BuildOptions::default(),
        )
        .map_err(|e| e.to_string())
        .and_then(|exe| exe.run(name, &mut expected, budget));
    if let Err(m) = reference_run {
        return failed("numbers", format!("the reference program failed: {m}"));
    }
    let (backend, note) = backend_for(exercise, env);
    let mut got = inputs.clone();
    let student_run = backend
        .build(
            &single(name, &student),
            &exercise_target(&exercise.target),
            &BuildOptions::default(),
        )
        .map_err(|e| e.to_string())
        .and_then(|exe| exe.run(name, &mut got, budget));
    if let Err(m) = student_run {
        return failed("numbers", format!("your function failed to run: {m}"))
            .located(student.span);
    }
    let mut result = None;
    for (((e, g), inp), (param, dtype, _)) in expected.iter().zip(&got).zip(&inputs).zip(&params) {
        let (rtol, atol) = tolerance.unwrap_or_else(|| tolerance_of(*dtype));
        if let Some(m) = first_difference(e, g, rtol, atol) {
            let written = e.to_f64_vec() != inp.to_f64_vec() || g.to_f64_vec() != inp.to_f64_vec();
            let what = if written { "output" } else { "input" };
            result = Some(
                failed(
                    "numbers",
                    format!("{what} `{param}` differs from the reference: {m}"),
                )
                .detail(format!(
                    "inputs: seeded random values (seed {INPUT_SEED}); {}",
                    if rtol == 0.0 && atol == 0.0 {
                        "compared exactly".to_string()
                    } else {
                        format!("tolerance: rtol {rtol:e}, atol {atol:e}")
                    }
                ))
                .located(student.span),
            );
            break;
        }
    }
    let mut result = result.unwrap_or_else(|| {
        passed(
            "numbers",
            "your function's outputs match the reference on random inputs".into(),
        )
    });
    if let Some(note) = note {
        result.details.push(note);
    }
    result
}

/// A numbers check of a graph-level function: both modules' function run
/// in the graph VM on the same random tensors.
fn check_graph_numbers(
    exercise: &Exercise,
    student: &IRModule,
    reference: Option<&str>,
    tolerance: Option<(f64, f64)>,
    env: &CheckEnv,
) -> CheckResult {
    let name = &exercise.function;
    let reference_code = reference.unwrap_or(&exercise.solution);
    let outcome = run_script(reference_code, &env.script);
    if let Some(e) = outcome.errors.iter().find(|d| d.is_error()) {
        return failed(
            "numbers",
            format!("the exercise's reference does not run: {}", e.message),
        );
    }
    let Some(reference_module) = final_module(&outcome) else {
        return failed(
            "numbers",
            "the exercise's reference defines no module".into(),
        );
    };
    let sizes: HashMap<String, i64> = exercise.sizes.iter().cloned().collect();
    match compare_graph_function(
        name,
        student,
        reference_module,
        &sizes,
        INPUT_SEED,
        tolerance,
    ) {
        Ok(()) => passed(
            "numbers",
            format!("`{name}` computes what the reference computes on random inputs"),
        ),
        Err(GraphMismatch::Reference(m)) => failed("numbers", m),
        Err(GraphMismatch::Run(m)) => {
            failed("numbers", format!("your `{name}` failed to run: {m}"))
        }
        Err(GraphMismatch::Output { which, message }) => failed(
            "numbers",
            format!("{which} of your `{name}` differs from the reference: {message}"),
        )
        .detail(format!("inputs: seeded random values (seed {INPUT_SEED})")),
    }
}

impl CheckResult {
    fn located(mut self, span: Span) -> CheckResult {
        self.span = Some(span);
        self
    }
}

/// `(name, dtype, shape)` of each buffer parameter (a scalar's shape is empty).
fn param_buffers(f: &PrimFunc) -> Vec<(String, DataType, Vec<String>)> {
    f.params
        .iter()
        .map(|p| match f.buffer_map.iter().find(|(v, _)| v == p) {
            Some((_, b)) => (
                b.name.clone(),
                b.dtype,
                b.shape
                    .iter()
                    .map(compiler_core::analysis::structural_equal::render::expr)
                    .collect(),
            ),
            None => (p.name().to_string(), p.dtype(), Vec::new()),
        })
        .collect()
}

fn describe_params(params: &[(String, DataType, Vec<String>)]) -> String {
    params
        .iter()
        .map(|(n, dt, shape)| format!("{n}: {dt}[{}]", shape.join(", ")))
        .collect::<Vec<_>>()
        .join(", ")
}

fn check_structure(
    exercise: &Exercise,
    outcome: &ScriptOutcome,
    target: &str,
    env: &CheckEnv,
) -> CheckResult {
    let name = &exercise.function;
    if let Some(module) = final_module(outcome).filter(|m| m.get_graph(name).is_some()) {
        return check_graph_structure(name, module, target, env);
    }
    let student = match final_function(outcome, name) {
        Ok(f) => f,
        Err(m) => return failed("structure", m),
    };
    let target = match author_function(target, "target module", name, &env.script) {
        Ok((_, f)) => f,
        Err(m) => return failed("structure", m),
    };
    let options = EqualOptions {
        ignore_global_symbol: true,
        ..EqualOptions::default()
    };
    match assert_structural_equal(&*student, &*target, options) {
        Ok(()) => passed(
            "structure",
            format!("`{name}` is structurally equal to the target"),
        ),
        Err(m) => CheckResult {
            structure: Some(Box::new(StructureDiff::new(
                name,
                &student,
                &target,
                &m,
                outcome.dialect,
            ))),
            ..failed(
                "structure",
                format!(
                    "`{name}` is not yet structurally equal to the target: {}",
                    m.message
                ),
            )
            .detail(format!("where: {}", m.path.replacen("func", name, 1)))
            .detail(format!("yours:  {}", m.lhs))
            .detail(format!("target: {}", m.rhs))
        },
    }
}

/// A structure check of a graph-level function: the whole module against
/// the target's, as `tvm.ir.assert_structural_equal(mod, Target)` compares
/// them (the graph function and every function it calls).
fn check_graph_structure(
    name: &str,
    student: &IRModule,
    target: &str,
    env: &CheckEnv,
) -> CheckResult {
    let outcome = run_script(target, &env.script);
    if let Some(e) = outcome.errors.iter().find(|d| d.is_error()) {
        return failed(
            "structure",
            format!("the exercise's target module does not run: {}", e.message),
        );
    }
    let Some(target) = final_module(&outcome) else {
        return failed(
            "structure",
            "the exercise's target defines no module".into(),
        );
    };
    let options = EqualOptions {
        ignore_global_symbol: true,
        ..EqualOptions::default()
    };
    match assert_structural_equal(student, target, options) {
        Ok(()) => passed(
            "structure",
            format!("the module with `{name}` is structurally equal to the target"),
        ),
        Err(m) => failed(
            "structure",
            format!(
                "the module with `{name}` is not yet structurally equal to the target: {}",
                m.message
            ),
        )
        .detail(format!("where: {}", m.path))
        .detail(format!("yours:  {}", m.lhs))
        .detail(format!("target: {}", m.rhs)),
    }
}

fn check_schedule(
    exercise: &Exercise,
    outcome: &ScriptOutcome,
    rules: &ScheduleRules,
) -> CheckResult {
    let normal = |n: &str| n.replace("sblock", "block");
    let used: Vec<String> = outcome
        .trace
        .iter()
        .flat_map(|t| t.instructions.iter().map(|i| normal(&i.name)))
        .collect();
    let mut problems = Vec::new();
    let missing: Vec<&String> = rules
        .must_use
        .iter()
        .filter(|p| !used.contains(&normal(p)))
        .collect();
    if !missing.is_empty() {
        problems.push(format!(
            "your schedule must use {}",
            missing
                .iter()
                .map(|p| format!("`sch.{p}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    let forbidden: Vec<&String> = rules
        .must_not_use
        .iter()
        .filter(|p| used.contains(&normal(p)))
        .collect();
    if !forbidden.is_empty() {
        problems.push(format!(
            "your schedule must not use {}",
            forbidden
                .iter()
                .map(|p| format!("`sch.{p}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    if !rules.thread_bindings.is_empty() || !rules.scopes.is_empty() || !rules.loop_kinds.is_empty()
    {
        match final_function(outcome, &exercise.function) {
            Err(m) => problems.push(m),
            Ok(func) => {
                let mut found = Found::default();
                found.walk(&func.body);
                for tag in &rules.thread_bindings {
                    if !found.thread_tags.contains(tag) {
                        problems.push(format!(
                            "no loop is bound to `{tag}` (use `sch.bind(loop, \"{tag}\")`)"
                        ));
                    }
                }
                for kind in &rules.loop_kinds {
                    if !found.loop_kinds.iter().any(|k| loop_kind_matches(kind, *k)) {
                        problems.push(format!(
                            "no loop is {kind} (e.g. `sch.{}(loop)`)",
                            loop_kind_primitive(kind)
                        ));
                    }
                }
                for scope in &rules.scopes {
                    if !found.scopes.iter().any(|s| s == scope) {
                        problems.push(format!(
                            "no buffer is allocated in `{scope}` memory (e.g. `sch.cache_read(block, 0, \"{scope}\")`)"
                        ));
                    }
                }
            }
        }
    }
    if problems.is_empty() {
        passed(
            "schedule",
            "the schedule does what the exercise asks".into(),
        )
    } else {
        let mut r = failed("schedule", problems.remove(0));
        r.details = problems;
        r
    }
}

/// The loop kinds a schedule check may ask for, as exercise files name
/// them.
pub const LOOP_KINDS: &[&str] = &["parallel", "vectorized", "unrolled"];

/// Whether a loop of kind `kind` is what the name `wanted` asks for.
fn loop_kind_matches(wanted: &str, kind: ForKind) -> bool {
    matches!(
        (wanted, kind),
        ("parallel", ForKind::Parallel)
            | ("vectorized", ForKind::Vectorized)
            | ("unrolled", ForKind::Unrolled)
    )
}

/// The primitive that gives a loop the kind `wanted` (for the advice).
fn loop_kind_primitive(wanted: &str) -> &'static str {
    match wanted {
        "parallel" => "parallel",
        "vectorized" => "vectorize",
        _ => "unroll",
    }
}

/// Thread tags, loop kinds and allocation scopes of a function body.
#[derive(Default)]
struct Found {
    thread_tags: Vec<String>,
    loop_kinds: Vec<ForKind>,
    scopes: Vec<String>,
}

impl Found {
    fn walk(&mut self, s: &Stmt) {
        match s.kind() {
            StmtKind::For(f) => {
                self.loop_kinds.push(f.kind);
                if let Some(tag) = &f.thread_tag {
                    self.thread_tags.push(tag.clone());
                }
                self.walk(&f.body);
            }
            StmtKind::BlockRealize(r) => {
                for b in &r.block.alloc_buffers {
                    self.scopes.push(b.scope.clone());
                }
                if let Some(init) = &r.block.init {
                    self.walk(init);
                }
                self.walk(&r.block.body);
            }
            StmtKind::Let { body, .. } => self.walk(body),
            StmtKind::If {
                then, otherwise, ..
            } => {
                self.walk(then);
                if let Some(o) = otherwise {
                    self.walk(o);
                }
            }
            StmtKind::Seq(stmts) => stmts.iter().for_each(|s| self.walk(s)),
            StmtKind::Allocate { buffer, body } => {
                self.scopes.push(buffer.scope.clone());
                self.walk(body);
            }
            StmtKind::Store { .. } | StmtKind::Evaluate(_) => {}
        }
    }
}

/// A speed check waiting for its timing: the two functions, their inputs
/// and what the answer must reach. [`check_answer`] times it at once on the
/// host's backend ([`measure_speed`]); a host whose GPU is asynchronous
/// (the page's WebGPU) times it itself and hands the times to
/// [`complete_speed`], so both show the same verdict for the same times.
#[derive(Clone, Debug)]
pub struct PendingSpeed {
    /// Where its result goes in [`Verdict::results`].
    pub index: usize,
    /// The function's name in both programs.
    pub function: String,
    /// What both are built for (the exercise's target).
    pub target: String,
    /// The answer's function, as its schedule left it.
    pub student: Rc<PrimFunc>,
    pub baseline: Rc<PrimFunc>,
    /// Seeded random inputs, the same for both.
    pub inputs: Vec<NDArray>,
    /// Timed runs of each, alternating (the medians count).
    pub runs: u32,
    pub min_speedup: f64,
    /// The exercise's advice, shown when the check fails.
    pub advice: Option<String>,
}

impl PendingSpeed {
    /// Whether the functions run on a GPU.
    pub fn is_gpu(&self) -> bool {
        exercise_target(&self.target).is_gpu()
    }

    /// `func` alone in a module, as a backend builds it.
    pub fn module(&self, func: &Rc<PrimFunc>) -> IRModule {
        single(&self.function, func)
    }
}

/// Seconds of each timed run, in the order they ran.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SpeedTimes {
    pub student: Vec<f64>,
    pub baseline: Vec<f64>,
}

/// Why a speed measurement did not finish.
#[derive(Clone, Debug, PartialEq)]
pub enum SpeedError {
    BaselineBuild(String),
    StudentBuild(String),
    BaselineRun(String),
    StudentRun(String),
    /// The device failed: lost, timed out, an error of its API (fails).
    Device(String),
    /// Nothing here can time the code; the reason (skips).
    Unavailable(String),
}

/// The first half of [`check_answer`]: every check but the speed checks'
/// timing. Each speed check that got as far as timing is a
/// [`PendingSpeed`], its result in the verdict a placeholder until
/// [`Verdict::complete_speed`].
pub fn begin_check(
    exercise: &Exercise,
    answer: &str,
    env: &CheckEnv,
) -> (Verdict, Vec<PendingSpeed>) {
    let outcome = run_script(answer, &env.script);
    let index = LineIndex::new(answer);
    let mut results = Vec::new();
    let mut pending = Vec::new();
    let error = outcome.errors.iter().find(|d| d.is_error());
    let runs = match error {
        Some(d) => failed("runs", format!("your code does not run: {}", d.message))
            .at(&index, Some(d.span)),
        None => passed("runs", "your code runs without errors".into()),
    };
    let ran = runs.status == Status::Passed;
    results.push(runs);
    for check in &exercise.checks {
        let name = check.kind.name();
        let mut result = if !ran {
            skipped(name, "not checked until your code runs".into())
        } else {
            match &check.kind {
                CheckKind::Numbers {
                    reference,
                    tolerance,
                } => check_numbers(exercise, &outcome, reference.as_deref(), *tolerance, env),
                CheckKind::Structure { target } => check_structure(exercise, &outcome, target, env),
                CheckKind::Schedule(rules) => check_schedule(exercise, &outcome, rules),
                CheckKind::Speed {
                    baseline,
                    min_speedup,
                    runs,
                } => match begin_speed(exercise, &outcome, baseline, *min_speedup, *runs, env) {
                    Ok(mut p) => {
                        p.index = results.len();
                        p.advice = check.advice.clone();
                        pending.push(p);
                        skipped("speed", "not timed yet".into())
                    }
                    Err(r) => r,
                },
                CheckKind::Output { expected, matching } => {
                    check_output(&outcome, expected, *matching)
                }
            }
        };
        if result.status == Status::Failed {
            if let Some(advice) = &check.advice {
                result.details.push(format!("hint: {advice}"));
            }
        }
        // Spans of IR inside Python cells are not offsets into the answer.
        let span = result.span.filter(|_| outcome.mode == crate::Mode::Script);
        results.push(result.at(&index, span));
    }
    (Verdict { results }, pending)
}

impl Verdict {
    /// Puts the finished speed check in the place `pending` kept.
    pub fn complete_speed(
        &mut self,
        pending: &PendingSpeed,
        measured: Result<SpeedTimes, SpeedError>,
    ) {
        if let Some(slot) = self.results.get_mut(pending.index) {
            *slot = complete_speed(pending, measured);
        }
    }
}

/// Everything a speed check needs before its timing, or its result when
/// it fails sooner.
fn begin_speed(
    exercise: &Exercise,
    outcome: &ScriptOutcome,
    baseline: &str,
    min_speedup: f64,
    runs: u32,
    env: &CheckEnv,
) -> Result<PendingSpeed, CheckResult> {
    let name = &exercise.function;
    let student = final_function(outcome, name).map_err(|m| failed("speed", m))?;
    let (_, base) =
        author_function(baseline, "baseline", name, &env.script).map_err(|m| failed("speed", m))?;
    let sizes: HashMap<String, i64> = exercise.sizes.iter().cloned().collect();
    let inputs = eval::random_inputs(&base, INPUT_SEED, &sizes)
        .map_err(|e| failed("speed", format!("could not make inputs: {}", e.message)))?;
    Ok(PendingSpeed {
        index: 0,
        function: name.clone(),
        target: exercise.target.clone(),
        student,
        baseline: base,
        inputs,
        runs: runs.max(1),
        min_speedup,
        advice: None,
    })
}

/// Times `pending` on `backend`: both built, then baseline and answer one
/// after the other, `runs` times, so both see the same machine state.
pub fn measure_speed(
    pending: &PendingSpeed,
    backend: &dyn Backend,
    host: &dyn compiler_core::target::Host,
    steps: u64,
) -> Result<SpeedTimes, SpeedError> {
    let target = exercise_target(&pending.target);
    let options = BuildOptions::default();
    let base_exe = backend
        .build(&pending.module(&pending.baseline), &target, &options)
        .map_err(|e| SpeedError::BaselineBuild(e.to_string()))?;
    let student_exe = backend
        .build(&pending.module(&pending.student), &target, &options)
        .map_err(|e| SpeedError::StudentBuild(e.to_string()))?;
    let name = &pending.function;
    let mut times = SpeedTimes::default();
    for _ in 0..pending.runs.max(1) {
        times.baseline.push(
            time_once(&*base_exe, name, &pending.inputs, host, steps)
                .map_err(SpeedError::BaselineRun)?,
        );
        times.student.push(
            time_once(&*student_exe, name, &pending.inputs, host, steps)
                .map_err(SpeedError::StudentRun)?,
        );
    }
    Ok(times)
}

/// The speed check's result from its measured times (medians compared),
/// or from why they could not be measured.
pub fn complete_speed(
    pending: &PendingSpeed,
    measured: Result<SpeedTimes, SpeedError>,
) -> CheckResult {
    let min_speedup = pending.min_speedup;
    let mut result = match measured {
        Err(SpeedError::BaselineBuild(m)) => {
            failed("speed", format!("the baseline does not build: {m}"))
        }
        Err(SpeedError::StudentBuild(m)) => {
            failed("speed", format!("your function does not build: {m}"))
        }
        Err(SpeedError::BaselineRun(m)) => failed("speed", format!("the baseline failed: {m}")),
        Err(SpeedError::StudentRun(m)) => {
            failed("speed", format!("your function failed to run: {m}"))
        }
        Err(SpeedError::Device(m)) => failed(
            "speed",
            format!("the GPU failed while timing your function: {m}"),
        ),
        Err(SpeedError::Unavailable(why)) => {
            let what = if pending.is_gpu() { "GPU code" } else { "code" };
            skipped(
                "speed",
                format!("{why}, so the speed of {what} cannot be measured"),
            )
        }
        Ok(mut times) => {
            let runs = times.baseline.len().min(times.student.len());
            let (base_t, student_t) = (median(&mut times.baseline), median(&mut times.student));
            if base_t <= 0.0 || student_t <= 0.0 {
                return skipped("speed", "this host has no clock to time code with".into());
            }
            let speedup = base_t / student_t;
            let numbers = format!(
                "yours: {}, baseline: {} (median of {runs} runs each): {speedup:.2}x",
                seconds(student_t),
                seconds(base_t),
            );
            if speedup >= min_speedup {
                passed(
                    "speed",
                    format!(
                        "your function is {speedup:.2}x as fast as the baseline (needed {min_speedup}x)"
                    ),
                )
                .detail(numbers)
            } else {
                failed(
                    "speed",
                    format!(
                        "your function is {speedup:.2}x as fast as the baseline; it must reach {min_speedup}x"
                    ),
                )
                .detail(numbers)
            }
        }
    };
    if result.status == Status::Failed {
        if let Some(advice) = &pending.advice {
            result.details.push(format!("hint: {advice}"));
        }
    }
    result
}

/// Seconds of one call: the executable's own timer, else the host clock.
fn time_once(
    exe: &dyn Executable,
    name: &str,
    inputs: &[NDArray],
    host: &dyn compiler_core::target::Host,
    steps: u64,
) -> Result<f64, String> {
    let mut args = inputs.to_vec();
    if let Some(times) = exe.time(name, &mut args, 1, 1, host) {
        return Ok(times?.first().copied().unwrap_or(0.0));
    }
    let t0 = host.now_seconds();
    exe.run(name, &mut args, steps)?;
    Ok(host.now_seconds() - t0)
}

fn median(v: &mut [f64]) -> f64 {
    compiler_core::ir::sort::by(v, |a, b| a.total_cmp(b));
    v.get(v.len() / 2).copied().unwrap_or(0.0)
}

fn seconds(t: f64) -> String {
    if t >= 1.0 {
        format!("{t:.3} s")
    } else if t >= 1e-3 {
        format!("{:.3} ms", t * 1e3)
    } else {
        format!("{:.1} µs", t * 1e6)
    }
}

fn check_output(outcome: &ScriptOutcome, expected: &str, matching: OutputMatch) -> CheckResult {
    let got = &outcome.console;
    match matching {
        OutputMatch::Contains => {
            if got.contains(expected.trim()) {
                passed("output", "your code prints what is expected".into())
            } else {
                failed(
                    "output",
                    format!("your code should print `{}`", expected.trim()),
                )
                .detail(format!("it printed: {}", preview(got)))
            }
        }
        OutputMatch::Exact => {
            let lines = |s: &str| -> Vec<String> {
                let mut v: Vec<String> = s.lines().map(|l| l.trim_end().to_string()).collect();
                while v.last().is_some_and(|l| l.is_empty()) {
                    v.pop();
                }
                v
            };
            let (want, have) = (lines(expected), lines(got));
            match (0..want.len().max(have.len())).find(|&i| want.get(i) != have.get(i)) {
                None => passed("output", "your code prints exactly what is expected".into()),
                Some(i) => failed(
                    "output",
                    format!("printed line {} differs from what is expected", i + 1),
                )
                .detail(format!(
                    "expected: {}",
                    want.get(i).map_or("(nothing)".into(), |l| format!("`{l}`"))
                ))
                .detail(format!(
                    "printed:  {}",
                    have.get(i).map_or("(nothing)".into(), |l| format!("`{l}`"))
                )),
            }
        }
    }
}

fn preview(text: &str) -> String {
    let t = text.trim();
    if t.is_empty() {
        return "(nothing)".into();
    }
    let short: String = t.chars().take(200).collect();
    if short.len() < t.len() {
        format!("`{short}…`")
    } else {
        format!("`{short}`")
    }
}
