//! Random loop schedules keep what a program computes.
//!
//! Random sequences of `split` / `reorder` / `fuse` / `parallel` / `unroll`
//! (plus `vectorize` and `decompose_reduction`) on small programs — an 8×8×8 matmul with a reduction
//! init and a 16-element vector add. Every step picks its loops among the
//! block's current loops; a step Tessel refuses must leave the IR exactly as
//! it was (the sequence continues without it). Fusions of spatial with
//! reduction loops are not generated: TVM accepts them, but a later reorder of
//! their pieces changes the result (see `apply`). At the end:
//!
//! * the interpreter gives allclose outputs for the original and the scheduled
//!   function on random inputs, with region checks on for the scheduled one;
//! * the verifier accepts the result;
//! * replaying the printed trace on the original gives the same program.

use std::collections::HashMap;

use proptest::prelude::*;
use proptest::test_runner::RngSeed;

use compiler_core::analysis::verify::{has_errors, verify_module};
use compiler_core::eval::{allclose, random_inputs, run_prim_func, EvalOptions};
use compiler_core::ir::IRModule;
use compiler_core::schedule::replay::run_python;
use compiler_core::schedule::{BlockRV, Factor, LoopRV, Schedule, TraceDialect};
use compiler_core::tvmscript::builder::parse_script;
use compiler_core::tvmscript::printer::{print_module, Dialect, PrintOptions};

const MATMUL8: &str = r#"
from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((8, 8), "float32"), B: T.Buffer((8, 8), "float32"), C: T.Buffer((8, 8), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": True})
    for i, j, k in T.grid(8, 8, 8):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
"#;

const VECADD16: &str = r#"
from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": True})
    for i in range(16):
        with T.block("C"):
            vi = T.axis.spatial(16, i)
            C[vi] = A[vi] + B[vi]
"#;

/// One step; its numbers pick loops and factors among what exists when it runs.
#[derive(Clone, Debug)]
enum Step {
    /// Split loop `at` by `[None, factor]` (or three ways with `inner2`).
    Split {
        at: usize,
        factor: i64,
        inner2: Option<i64>,
    },
    /// Reorder the loops chosen by the bits of `pick`, in the order `perm` gives.
    Reorder {
        pick: u32,
        perm: u64,
    },
    /// Fuse loop `at` with the next `len - 1` loops.
    Fuse {
        at: usize,
        len: usize,
    },
    Parallel {
        at: usize,
    },
    Unroll {
        at: usize,
    },
    Vectorize {
        at: usize,
    },
    /// `decompose_reduction` of the block at loop `at` (a no-op refusal on the
    /// vector add; the update block is C_update, and later steps follow it).
    Decompose {
        at: usize,
    },
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        4 => (0usize..8, prop::sample::select(vec![1i64, 2, 3, 4, 5, 8]), prop::option::weighted(0.25, prop::sample::select(vec![2i64, 3, 4])))
            .prop_map(|(at, factor, inner2)| Step::Split { at, factor, inner2 }),
        3 => (any::<u32>(), any::<u64>()).prop_map(|(pick, perm)| Step::Reorder { pick, perm }),
        2 => (0usize..8, 2usize..4).prop_map(|(at, len)| Step::Fuse { at, len }),
        1 => (0usize..8).prop_map(|at| Step::Parallel { at }),
        1 => (0usize..8).prop_map(|at| Step::Unroll { at }),
        1 => (0usize..8).prop_map(|at| Step::Vectorize { at }),
        1 => (0usize..8).prop_map(|at| Step::Decompose { at }),
    ]
}

fn program() -> impl Strategy<Value = &'static str> {
    prop_oneof![2 => Just(MATMUL8), 1 => Just(VECADD16)]
}

fn printed(m: &IRModule) -> String {
    print_module(m, &PrintOptions::new(Dialect::Tirx))
}

/// The block being scheduled: `C`, or `C_update` once decomposed.
fn block(sch: &mut Schedule) -> BlockRV {
    sch.get_block("C", None)
        .or_else(|_| sch.get_block("C_update", None))
        .expect("block C or C_update")
}

fn loops(sch: &mut Schedule) -> Vec<LoopRV> {
    let b = block(sch);
    sch.get_loops(b).expect("loops of C")
}

/// Applies one step; `Ok(true)` if Tessel transformed the program.
fn apply(sch: &mut Schedule, s: &Step) -> Result<bool, String> {
    let ls = loops(sch);
    let n = ls.len();
    let r = match *s {
        Step::Split { at, factor, inner2 } => {
            let mut f = vec![Factor::Infer, Factor::Const(factor)];
            if let Some(g) = inner2 {
                f.push(Factor::Const(g));
            }
            sch.split(ls[at % n], &f, true).map(|_| ())
        }
        Step::Reorder { pick, perm } => {
            let mut chosen: Vec<LoopRV> = (0..n)
                .filter(|i| pick >> i & 1 == 1)
                .map(|i| ls[i])
                .collect();
            if chosen.len() < 2 {
                return Ok(false);
            }
            // A permutation from `perm` (Fisher–Yates on its digits).
            let mut p = perm;
            for i in (1..chosen.len()).rev() {
                let j = (p % (i as u64 + 1)) as usize;
                p /= i as u64 + 1;
                chosen.swap(i, j);
            }
            sch.reorder(&chosen)
        }
        Step::Fuse { at, len } => {
            if n < len {
                return Ok(false);
            }
            let start = at % (n - len + 1);
            let group = &ls[start..start + len];
            // Fusing loops over spatial iterators with loops over reduction
            // iterators is accepted by TVM (and Tessel), but reordering the
            // pieces of such a loop afterwards breaks the reduction: `T.init()`
            // runs when vk == 0, which is then no longer the first visit of
            // C[vi, vj]. TVM 0.27's compiled code is wrong too (checked), so
            // such sequences are not "legal" in the sense of this test.
            let spatial: Vec<bool> = group
                .iter()
                .map(|l| sch.clone().parallel(*l).is_ok())
                .collect();
            if spatial.iter().any(|s| *s) && spatial.iter().any(|s| !*s) {
                return Ok(false);
            }
            sch.fuse(group, true).map(|_| ())
        }
        Step::Parallel { at } => sch.parallel(ls[at % n]),
        Step::Unroll { at } => sch.unroll(ls[at % n]),
        Step::Vectorize { at } => sch.vectorize(ls[at % n]),
        Step::Decompose { at } => {
            let b = block(sch);
            sch.decompose_reduction(b, ls[at % n]).map(|_| ())
        }
    };
    Ok(r.is_ok())
}

fn check(src: &str, steps: &[Step]) -> Result<(), TestCaseError> {
    let original = parse_script(src).expect("parses").to_module();
    let mut sch = Schedule::new(original.clone()).expect("schedule");
    let mut applied = 0;
    for s in steps {
        let before = printed(sch.module());
        let changed = apply(&mut sch, s).map_err(TestCaseError::fail)?;
        if changed {
            applied += 1;
        } else {
            prop_assert_eq!(
                &printed(sch.module()),
                &before,
                "a refused {:?} changed the IR",
                s
            );
        }
    }
    let trace = sch.trace().python(TraceDialect::Tir);
    let result = sch.module().clone();
    let ctx = format!(
        "after {applied} applied step(s):\n{trace}\n{}",
        printed(&result)
    );

    let diags = verify_module(&result);
    prop_assert!(
        !has_errors(&diags),
        "verifier: {:?}\n{}",
        diags.first().map(|d| &d.message),
        ctx
    );

    let f = original.get_prim("main").expect("main");
    let g = result.get_prim("main").expect("main");
    let mut want = random_inputs(f, 7, &HashMap::new()).expect("inputs");
    let mut got = want.clone();
    run_prim_func(f, &mut want, &EvalOptions::default()).expect("original runs");
    let opts = EvalOptions {
        check_regions: true,
        ..EvalOptions::default()
    };
    if let Err(e) = run_prim_func(g, &mut got, &opts) {
        return Err(TestCaseError::fail(format!(
            "scheduled function fails: {}\n{ctx}",
            e.message
        )));
    }
    for (i, (a, b)) in got.iter().zip(&want).enumerate() {
        if let Err(e) = allclose(a, b, 1e-5, 1e-5) {
            return Err(TestCaseError::fail(format!(
                "argument {i} differs: {e}\n{ctx}"
            )));
        }
    }

    let mut again = Schedule::new(original).expect("schedule");
    if let Err(d) = run_python(&mut again, &trace) {
        return Err(TestCaseError::fail(format!(
            "the trace does not replay: {}\n{ctx}",
            d.message
        )));
    }
    prop_assert_eq!(
        printed(again.module()),
        printed(&result),
        "replaying the trace gives another program\n{}",
        ctx
    );
    Ok(())
}

/// 64 cases from a fixed seed, so CI is deterministic; `PROPTEST_CASES` and
/// `PROPTEST_RNG_SEED` (a number) explore further. Exploring found the
/// `decompose_reduction` bug kept as the schedule case
/// `prim_decompose_reduction_predicate_reordered` (pending in PENDING.txt).
fn config() -> ProptestConfig {
    let env = ProptestConfig::default(); // reads PROPTEST_CASES / PROPTEST_RNG_SEED
    ProptestConfig {
        cases: if std::env::var_os("PROPTEST_CASES").is_some() {
            env.cases
        } else {
            64
        },
        rng_seed: if std::env::var_os("PROPTEST_RNG_SEED").is_some() {
            env.rng_seed
        } else {
            RngSeed::Fixed(0x007E_55E1)
        },
        failure_persistence: None,
        ..env
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn random_loop_schedules_keep_outputs(src in program(), steps in prop::collection::vec(step(), 1..8)) {
        check(src, &steps)?;
    }
}
