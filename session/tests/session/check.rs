//! Checking a scheduled program against its original: the plan's expected
//! outputs come from the original function, the reference backend's run of
//! the scheduled one matches them, and a wrong result is caught.

use compiler_core::target::{Backend, BuildOptions, ReferenceBackend, Target};
use tessel_session::check::{compare_outputs, plan_run, PlanError};
use tessel_session::{run_script, ScriptEnv};

use super::script_mode::book;

#[test]
fn the_scheduled_mm_relu_matches_and_a_wrong_output_is_caught() {
    let script = run_script(&book(), &ScriptEnv::default());
    let plan = plan_run(&script, 400_000_000, &|| 0.0).expect("a plan");
    assert_eq!(plan.name, "mm_relu");
    assert!(plan.scheduled);
    let exec = ReferenceBackend::default()
        .build(&plan.module, &Target::llvm(), &BuildOptions::default())
        .expect("builds");
    let mut got = plan.inputs.clone();
    exec.run(&plan.name, &mut got, 400_000_000).expect("runs");
    let cmp = compare_outputs(&plan, &got);
    assert!(cmp.matches(), "{:?}", cmp.mismatch);
    assert_eq!(cmp.verdict(true), "outputs match the original program");
    assert!(!cmp.changed.is_empty(), "the outputs are previewed");

    // One wrong element of the output `C` (the last parameter).
    let last = got.len() - 1;
    let wrong = got[last].get_f64(&[3, 5]).unwrap() + 1.0;
    got[last].set_f64(&[3, 5], wrong).unwrap();
    let cmp = compare_outputs(&plan, &got);
    let mismatch = cmp.mismatch.expect("the wrong element is found");
    assert!(mismatch.starts_with("C: "), "{mismatch}");
    assert!(mismatch.contains("[3, 5]"), "{mismatch}");
    assert!(cmp.max_abs_err >= 1.0);
}

#[test]
fn a_script_with_errors_cannot_be_checked() {
    let script = run_script("@T.prim_func\ndef broken(:\n", &ScriptEnv::default());
    assert_eq!(
        plan_run(&script, 1000, &|| 0.0).err(),
        Some(PlanError::ScriptErrors)
    );
    assert_eq!(PlanError::ScriptErrors.to_string(), "fix the errors first");
}
