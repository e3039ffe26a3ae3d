//! Tessel's schedules against Apache TVM 0.27, case by case.
//!
//! Every `tests/data/schedule/<name>.py` (format: `tests/data/schedule/README.md`)
//! holds a course-dialect module and a schedule script that TVM 0.27 ran to
//! produce the goldens next to it (`tools/tvm_oracle/schedule_case_goldens.py`).
//! Here Tessel parses the module and runs the same script with
//! `schedule::replay::run_python`, then:
//!
//! * negative cases (`expect-error`): Tessel must refuse too, at the statement
//!   where TVM refused, with a schedule error of that primitive (and the text of
//!   `# tessel-error:` if given), and leave the IR exactly as it was before that
//!   statement (same printing, structurally equal);
//! * other cases: the result must be structurally equal to TVM's (`.expected.py`,
//!   block names compared too), print exactly as TVM printed it (TVM 0.27
//!   dialect), have TVM's trace and `# values:`, equal the `# target:` module,
//!   pass the verifier, and compute what the original computes: random inputs
//!   (fixed seed) give allclose outputs in the interpreter, with region checks
//!   on for the transformed function.
//!
//! Cases Tessel cannot pass yet are listed in `tests/data/schedule/PENDING.txt`
//! with the reason; they are reported as skips. A pending case that passes, or
//! a pending entry naming no case, fails the test: the list only shrinks.
//! `cargo test -p compiler-core --test schedule schedule_cases -- --nocapture` shows the
//! report; `SCHEDULE_CASES=name,name` runs only those cases, and
//! `SCHEDULE_CASES_DUMP=1` also prints Tessel's result and trace.

use crate::support;

use std::collections::HashMap;

use compiler_core::analysis::structural_equal::{assert_structural_equal, EqualOptions};
use compiler_core::analysis::verify::{has_errors, verify_module};
use compiler_core::diag::{Diagnostic, LineIndex};
use compiler_core::eval::{allclose, random_inputs, CompiledFunc, EvalOptions, NDArray};
use compiler_core::ir::{IRModule, PrimFunc};
use compiler_core::schedule::replay::{run_python, SchedValue};
use compiler_core::schedule::tensorize::TensorIntrinTable;
use compiler_core::schedule::{ExprRV, Rv, Schedule, TraceDialect};
use compiler_core::tvmscript::builder::{parse_script, Item};
use compiler_core::tvmscript::printer::{print_module, Dialect, PrintOptions};
use support::schedule_case::{case_paths, load_case, load_pending, strip_hand_note, Case};

/// Seed of the random inputs.
const INPUT_SEED: u64 = 0x7E55E1;
/// Interpreter step budget per run; larger cases must say `# numerics: skip`.
const STEP_BUDGET: u64 = 20_000_000;
const RTOL: f64 = 1e-5;
const ATOL: f64 = 1e-5;

/// The outcome of one case: the problems found (empty when it passes) and
/// notes about checks that did not apply.
#[derive(Default)]
struct Outcome {
    problems: Vec<String>,
    notes: Vec<String>,
}

impl Outcome {
    fn fail(&mut self, what: impl Into<String>) {
        self.problems.push(what.into());
    }
}

fn tirx() -> PrintOptions {
    PrintOptions::new(Dialect::Tirx)
}

fn line_of(src: &str, d: &Diagnostic) -> usize {
    LineIndex::new(src).line_col(d.span.start).0
}

fn first_lines(s: &str, n: usize) -> String {
    let lines: Vec<&str> = s.lines().collect();
    let mut out = lines[..lines.len().min(n)].join("\n");
    if lines.len() > n {
        out.push_str("\n…");
    }
    out
}

/// The first differing line of two texts.
fn text_diff(ours: &str, theirs: &str) -> String {
    let (a, b): (Vec<&str>, Vec<&str>) = (ours.lines().collect(), theirs.lines().collect());
    for i in 0..a.len().max(b.len()) {
        let (x, y) = (a.get(i).copied(), b.get(i).copied());
        if x != y {
            return format!(
                "line {}:\n      Tessel: {}\n      TVM:    {}",
                i + 1,
                x.unwrap_or("<end>"),
                y.unwrap_or("<end>")
            );
        }
    }
    "texts equal".into()
}

/// TVM 0.27 spells the course's `"tir.noalias"` function attribute
/// `"tirx.noalias"` (`to_tvm027` renames it on the way in). Tessel's builder
/// keeps the key as written, and its TVM 0.27 printer spells it `tirx`; so a
/// golden is compared as IR after renaming the key back, and as text as is.
fn parse_golden(text: &str) -> Result<IRModule, String> {
    parse_module(
        &text.replace("\"tirx.noalias\"", "\"tir.noalias\""),
        ".expected.py",
    )
}

fn parse_module(src: &str, what: &str) -> Result<IRModule, String> {
    parse_script(src)
        .map(|p| p.to_module())
        .map_err(|d| format!("Tessel cannot parse {what}: {}", d.message))
}

fn new_schedule(module: &IRModule, intrins: &TensorIntrinTable) -> Schedule {
    let mut sch = Schedule::new(module.clone()).expect("a schedule over any module");
    sch.dialect = TraceDialect::STir;
    sch.set_tensor_intrins(intrins.clone());
    sch
}

/// The case's `# --- tensor-intrin: NAME ---` sections: two functions each,
/// the description then the implementation (`TensorIntrin.register`).
fn intrinsics(case: &Case) -> Result<TensorIntrinTable, String> {
    let mut table = TensorIntrinTable::new();
    for (name, src) in &case.intrinsics {
        let text = format!("from tvm.script import tir as T\n{src}");
        let parsed = parse_script(&text).map_err(|d| {
            format!(
                "Tessel cannot parse tensor intrinsic `{name}`: {}",
                d.message
            )
        })?;
        let funcs: Vec<_> = parsed
            .items
            .iter()
            .filter_map(|i| match i {
                Item::PrimFunc { func, .. } => Some(func.clone()),
                _ => None,
            })
            .collect();
        let [desc, implementation] = funcs.as_slice() else {
            return Err(format!(
                "tensor intrinsic `{name}` must define two functions, not {}",
                funcs.len()
            ));
        };
        table
            .register(name, desc.clone(), implementation.clone(), true)
            .map_err(|e| format!("Tessel refuses tensor intrinsic `{name}`: {e}"))?;
    }
    Ok(table)
}

/// Structural equality as the course means it: TVM's semantics plus block names.
fn compare(ours: &IRModule, theirs: &IRModule) -> Result<(), String> {
    let opts = EqualOptions {
        compare_block_names: true,
        ..EqualOptions::default()
    };
    assert_structural_equal(ours, theirs, opts).map_err(|m| m.to_string())
}

fn render_value(sch: &Schedule, v: &SchedValue) -> Result<String, String> {
    Ok(match v {
        SchedValue::Rv(Rv::Block(b)) => format!(
            "\"{}\"",
            sch.block_name(compiler_core::schedule::BlockRV(*b))
                .map_err(|e| e.message)?
        ),
        SchedValue::Rv(Rv::Expr(e)) => sch
            .get_value(ExprRV(*e))
            .map_err(|e| e.message)?
            .to_string(),
        SchedValue::Rv(Rv::Loop(_)) => return Err("a loop handle cannot be shown".into()),
        SchedValue::List(items) => format!(
            "[{}]",
            items
                .iter()
                .map(|x| render_value(sch, x))
                .collect::<Result<Vec<_>, _>>()?
                .join(", ")
        ),
        SchedValue::Int(i) => i.to_string(),
        SchedValue::Bool(b) => {
            if *b {
                "True".into()
            } else {
                "False".into()
            }
        }
        SchedValue::Str(s) => format!("'{s}'"),
        SchedValue::None => "None".into(),
        other => format!("{other:?}"),
    })
}

fn run_func(f: &PrimFunc, args: &mut [NDArray], check_regions: bool) -> Result<u64, String> {
    let opts = EvalOptions {
        step_budget: Some(STEP_BUDGET),
        check_regions,
        ..EvalOptions::default()
    };
    let compiled = CompiledFunc::new(f).map_err(|e| e.message)?;
    compiled
        .run(args, &opts)
        .map(|s| s.steps)
        .map_err(|e| e.message)
}

/// Random inputs → original and scheduled function give allclose outputs.
fn check_numerics(original: &IRModule, scheduled: &IRModule, out: &mut Outcome) {
    for (name, f) in original.prim_funcs() {
        let Some(g) = scheduled.get_prim(name) else {
            out.fail(format!(
                "numerics: the scheduled module has no function `{name}`"
            ));
            continue;
        };
        let mut want = match random_inputs(f, INPUT_SEED, &HashMap::new()) {
            Ok(a) => a,
            Err(e) => {
                out.fail(format!(
                    "numerics: no random inputs for `{name}`: {}",
                    e.message
                ));
                continue;
            }
        };
        let mut got = want.clone();
        if let Err(e) = run_func(f, &mut want, false) {
            out.fail(format!(
                "numerics: the original `{name}` fails in the interpreter: {e}"
            ));
            continue;
        }
        if let Err(e) = run_func(g, &mut got, true) {
            out.fail(format!(
                "numerics: the scheduled `{name}` fails in the interpreter: {e}"
            ));
            continue;
        }
        for (i, (a, b)) in got.iter().zip(&want).enumerate() {
            if let Err(e) = allclose(a, b, RTOL, ATOL) {
                out.fail(format!(
                    "numerics: `{name}` argument {i} differs from the original's: {e}"
                ));
            }
        }
    }
}

/// The primitive Tessel does not know, if that is why it stopped.
fn unimplemented(d: &Diagnostic) -> Option<String> {
    let rest = d.message.split("unknown schedule primitive `").nth(1)?;
    Some(rest.split('`').next().unwrap_or("").to_string())
}

fn check_error_case(
    case: &Case,
    module: &IRModule,
    intrins: &TensorIntrinTable,
    out: &mut Outcome,
) {
    let expected = case.golden(".expected-error.txt").unwrap_or_default();
    let header = expected.lines().next().unwrap_or("");
    let tvm_line: Option<usize> = header
        .strip_prefix("line ")
        .and_then(|r| r.split(':').next())
        .and_then(|n| n.trim().parse().ok());
    let Some(tvm_line) = tvm_line else {
        out.fail("no `line N:` header in .expected-error.txt (regenerate the goldens)");
        return;
    };
    let tvm_message = expected.lines().skip(1).collect::<Vec<_>>().join("\n");
    let mut sch = new_schedule(module, intrins);
    let err = match run_python(&mut sch, &case.schedule_src) {
        Ok(_) => {
            out.fail(format!(
                "Tessel accepts a schedule TVM refuses at line {tvm_line} with:\n      {}",
                tvm_message.lines().last().unwrap_or("")
            ));
            return;
        }
        Err(d) => d,
    };
    let line = line_of(&case.schedule_src, &err);
    if let Some(missing) = unimplemented(&err) {
        out.fail(format!(
            "Tessel does not implement `{missing}` (line {line})"
        ));
        return;
    }
    if line != tvm_line {
        out.fail(format!(
            "Tessel refuses at line {line}, TVM at line {tvm_line}: {}",
            err.message
        ));
        return;
    }
    // The failing statement's primitive: `sch.<method>(` on that line.
    let stmt = LineIndex::new(&case.schedule_src)
        .line_text(line)
        .to_string();
    let method = stmt
        .split("sch.")
        .nth(1)
        .and_then(|r| r.split('(').next())
        .unwrap_or("")
        .to_string();
    let refused = err.labels.iter().any(|(_, l)| l.contains("refused"));
    // Tessel names a primitive as it is called (`compute_at`) or, like TVM's
    // messages, hyphenated (`compute-at`).
    let names_primitive = err.message.starts_with(&format!("{method}:"))
        || err
            .message
            .starts_with(&format!("{}:", method.replace('_', "-")))
        || (method == "get_block" && err.message.starts_with("get_sblock:"));
    if !refused || !names_primitive {
        out.fail(format!(
            "Tessel's error at line {line} is not a refusal by `{method}` naming a rule: {}",
            err.message
        ));
    }
    if let Some(want) = &case.tessel_error {
        if !err.message.contains(want.as_str()) {
            out.fail(format!(
                "Tessel's message does not contain `{want}`: {}",
                err.message
            ));
        }
    }
    // The IR is what it was before the failing statement.
    let prefix: String = case
        .schedule_src
        .lines()
        .take(line - 1)
        .collect::<Vec<_>>()
        .join("\n");
    let mut before = new_schedule(module, intrins);
    if let Err(d) = run_python(&mut before, &prefix) {
        out.fail(format!(
            "the statements before line {line} fail alone: {}",
            d.message
        ));
        return;
    }
    let (a, b) = (
        print_module(sch.module(), &tirx()),
        print_module(before.module(), &tirx()),
    );
    if a != b {
        out.fail(format!(
            "the refused `{method}` changed the IR: {}",
            text_diff(&a, &b)
        ));
    } else if let Err(m) = compare(sch.module(), before.module()) {
        out.fail(format!("the refused `{method}` changed the IR: {m}"));
    }
    out.notes
        .push(format!("refused: {}", first_lines(&err.message, 1)));
}

fn check_case(case: &Case) -> Outcome {
    let mut out = Outcome::default();
    let module = match parse_module(&case.module_src, "the module") {
        Ok(m) => m,
        Err(e) => {
            out.fail(e);
            return out;
        }
    };
    let intrins = match intrinsics(case) {
        Ok(t) => t,
        Err(e) => {
            out.fail(e);
            return out;
        }
    };
    if case.expect_error.is_some() {
        check_error_case(case, &module, &intrins, &mut out);
        return out;
    }

    let mut sch = new_schedule(&module, &intrins);
    let env = match run_python(&mut sch, &case.schedule_src) {
        Ok(env) => env,
        Err(d) => {
            let line = line_of(&case.schedule_src, &d);
            if let Some(missing) = unimplemented(&d) {
                out.fail(format!(
                    "Tessel does not implement `{missing}` (line {line})"
                ));
                return out;
            }
            out.fail(format!(
                "Tessel refuses line {line} (`{}`), TVM does not: {}",
                LineIndex::new(&case.schedule_src).line_text(line).trim(),
                d.message
            ));
            return out;
        }
    };
    let result = sch.module().clone();
    if std::env::var_os("SCHEDULE_CASES_DUMP").is_some() {
        println!(
            "---- {}: Tessel's result\n{}\n---- trace\n{}",
            case.name,
            print_module(&result, &tirx()),
            sch.trace().python(TraceDialect::STir)
        );
    }

    // TVM's result, structurally and as text.
    match case.golden(".expected.py") {
        None => out.fail("no .expected.py (run tools/tvm_oracle/schedule_case_goldens.py)"),
        Some(golden) => {
            let golden = strip_hand_note(&golden);
            match parse_golden(&golden) {
                Err(e) => out.fail(e),
                Ok(expected) => {
                    if let Err(m) = compare(&result, &expected) {
                        out.fail(format!("not structurally equal to TVM's result: {m}"));
                    }
                }
            }
            let printed = print_module(&result, &tirx());
            if printed.trim_end() != golden.trim_end() {
                out.fail(format!(
                    "prints differently from TVM: {}",
                    text_diff(printed.trim_end(), golden.trim_end())
                ));
            }
        }
    }
    // TVM's trace (hand-written cases have none).
    if let Some(trace) = case.golden(".expected-trace.py") {
        let ours = sch.trace().python(TraceDialect::STir);
        if ours.trim_end() != trace.trim_end() {
            out.fail(format!(
                "trace differs from TVM's: {}",
                text_diff(&ours, &trace)
            ));
        }
    }
    // Query results and samples.
    if !case.values.is_empty() {
        let want = case.golden(".expected-values.txt").unwrap_or_default();
        let mut ours = String::new();
        for name in &case.values {
            let v = env
                .get(name)
                .ok_or_else(|| format!("the script defines no `{name}`"))
                .and_then(|v| render_value(&sch, v));
            match v {
                Ok(v) => ours.push_str(&format!("{name} = {v}\n")),
                Err(e) => out.fail(format!("values: {name}: {e}")),
            }
        }
        if ours.trim_end() != want.trim_end() {
            out.fail(format!(
                "values differ from TVM's: {}",
                text_diff(&ours, &want)
            ));
        }
    }
    // The module the course says this schedule reaches.
    if let Some(target) = &case.target {
        let path = case.path.parent().expect("case dir").join(target);
        match std::fs::read_to_string(&path) {
            Err(e) => out.fail(format!("target {target}: {e}")),
            Ok(src) => match parse_module(&src, target) {
                Err(e) => out.fail(e),
                Ok(t) => {
                    if let Err(m) = compare(&result, &t) {
                        out.fail(format!(
                            "not structurally equal to the target {target}: {m}"
                        ));
                    }
                }
            },
        }
    }
    // Well-formed.
    let diags = verify_module(&result);
    if has_errors(&diags) {
        let first = diags.iter().find(|d| d.is_error()).expect("an error");
        out.fail(format!(
            "the verifier rejects the result: {}",
            first.message
        ));
    }
    // Same numbers.
    match &case.numerics {
        Some(why) => out.notes.push(format!("numerics: {why}")),
        None => check_numerics(&module, &result, &mut out),
    }
    out
}

#[test]
fn schedule_cases_match_tvm() {
    let only: Option<Vec<String>> = std::env::var("SCHEDULE_CASES")
        .ok()
        .map(|s| s.split(',').map(|x| x.trim().to_string()).collect());
    let pending = load_pending();
    let mut names = Vec::new();
    let mut passed = Vec::new();
    let mut skipped = Vec::new();
    let mut failures = Vec::new();
    for path in case_paths() {
        let case = match load_case(&path) {
            Ok(c) => c,
            Err(e) => {
                failures.push(format!("malformed case: {e}"));
                continue;
            }
        };
        names.push(case.name.clone());
        if only.as_ref().is_some_and(|o| !o.contains(&case.name)) {
            continue;
        }
        let outcome = check_case(&case);
        let problems = outcome.problems.join("\n    ");
        match (pending.get(&case.name), outcome.problems.is_empty()) {
            (None, true) => passed.push((case.name.clone(), outcome.notes)),
            (None, false) => failures.push(format!("{}:\n    {problems}", case.name)),
            (Some(reason), false) => {
                skipped.push(format!("{}  ({reason})\n    {problems}", case.name))
            }
            (Some(reason), true) => failures.push(format!(
                "{}: passes now, but PENDING.txt says `{reason}`: remove it from the list",
                case.name
            )),
        }
    }
    if only.is_none() {
        for name in pending.keys() {
            if !names.contains(name) {
                failures.push(format!("PENDING.txt names `{name}`, which is no case"));
            }
        }
    }
    assert!(
        names.len() >= 90,
        "expected the schedule cases, found {}",
        names.len()
    );

    println!(
        "schedule cases: {} passed, {} pending, {} failed",
        passed.len(),
        skipped.len(),
        failures.len()
    );
    for (name, notes) in &passed {
        println!(
            "  ok      {name}{}",
            if notes.is_empty() {
                String::new()
            } else {
                format!("  [{}]", notes.join("; "))
            }
        );
    }
    for s in &skipped {
        println!("  PENDING {s}");
    }
    for f in &failures {
        println!("  FAILED  {f}");
    }
    assert!(
        failures.is_empty(),
        "{} schedule case(s) failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// TVM's results themselves, independent of Tessel's primitives: every golden
/// parses in Tessel and prints back exactly as TVM printed it. (For a case that
/// is not pending this is implied by `schedule_cases_match_tvm`; for pending
/// ones it tells the builder and printer what the pending primitives will need.
/// Problems of pending cases are reported, not failed.)
#[test]
fn goldens_parse_and_print_back() {
    let pending = load_pending();
    let mut failures = Vec::new();
    let mut reported = Vec::new();
    let mut n = 0;
    for path in case_paths() {
        let case = load_case(&path).expect("case");
        let Some(golden) = case.golden(".expected.py") else {
            continue;
        };
        n += 1;
        let golden = strip_hand_note(&golden);
        let problem = match parse_golden(&golden) {
            Err(e) => Some(e),
            Ok(m) => {
                let printed = print_module(&m, &tirx());
                (printed.trim_end() != golden.trim_end()).then(|| {
                    format!(
                        "prints back differently: {}",
                        text_diff(printed.trim_end(), golden.trim_end())
                    )
                })
            }
        };
        if let Some(p) = problem {
            let line = format!("{}: {p}", case.name);
            if pending.contains_key(&case.name) {
                reported.push(line);
            } else {
                failures.push(line);
            }
        }
    }
    println!(
        "goldens: {n}, {} problem(s) in pending cases, {} in others",
        reported.len(),
        failures.len()
    );
    for f in reported.iter().chain(&failures) {
        println!("  {f}");
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
