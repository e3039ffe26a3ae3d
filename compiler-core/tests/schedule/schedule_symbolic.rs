//! Split, fuse and `sample_perfect_tile` on loops of symbolic extent, run in
//! the interpreter at several sizes: the schedule case files run a symbolic
//! size at one default value, these bind small, odd and large ones (a size
//! the factors do not divide exercises the split's predicate).

use std::collections::HashMap;

use compiler_core::eval::{allclose, random_inputs, CompiledFunc, EvalOptions, NDArray};
use compiler_core::ir::{IRModule, PrimFunc};
use compiler_core::schedule::replay::run_python;
use compiler_core::schedule::Schedule;
use compiler_core::tvmscript::builder::parse_script;

const TWO_SIZES: &str = r#"from tvm.script import tir as T
@T.prim_func
def main(a: T.handle, b: T.handle, m: T.int32, n: T.int32):
    A = T.match_buffer(a, (m, n))
    B = T.match_buffer(b, (m, n))
    for i, j in T.grid(m, n):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2) + T.float32(1)
"#;

fn module(src: &str) -> IRModule {
    parse_script(src)
        .expect("the test module parses")
        .to_module()
}

fn scheduled(src: &str, schedule: &str) -> (IRModule, Schedule) {
    let original = module(src);
    let mut sch = Schedule::new(original.clone()).expect("a schedule");
    run_python(&mut sch, schedule).unwrap_or_else(|d| panic!("{}", d.message));
    (original, sch)
}

fn run(f: &PrimFunc, args: &mut [NDArray], check_regions: bool) {
    let opts = EvalOptions {
        step_budget: Some(5_000_000),
        check_regions,
        ..EvalOptions::default()
    };
    CompiledFunc::new(f)
        .and_then(|c| c.run(args, &opts))
        .unwrap_or_else(|e| panic!("the interpreter fails: {}", e.message));
}

/// The scheduled `main` computes what the original does for every `(m, n)`.
fn assert_same_results(original: &IRModule, sch: &Schedule, sizes: &[(i64, i64)]) {
    let f = original.get_prim("main").expect("main");
    let g = sch.module().get_prim("main").expect("scheduled main");
    for &(m, n) in sizes {
        let bind = HashMap::from([("m".to_string(), m), ("n".to_string(), n)]);
        let mut want = random_inputs(f, 7, &bind).expect("inputs");
        let mut got = want.clone();
        run(f, &mut want, false);
        run(g, &mut got, true);
        for (a, b) in got.iter().zip(&want) {
            allclose(a, b, 1e-6, 1e-6)
                .unwrap_or_else(|e| panic!("m = {m}, n = {n}: results differ: {e}"));
        }
    }
}

const SIZES: &[(i64, i64)] = &[(1, 1), (3, 7), (8, 4), (13, 29), (32, 17)];

#[test]
fn split_of_symbolic_loops_keeps_the_results_at_every_size() {
    let (original, sch) = scheduled(
        TWO_SIZES,
        "i, j = sch.get_loops(sch.get_block(\"B\"))\n\
         sch.split(i, [None, 8])\n\
         sch.split(j, [3, None])\n",
    );
    assert_same_results(&original, &sch, SIZES);
}

#[test]
fn tiled_and_fused_symbolic_loops_keep_the_results_at_every_size() {
    let (original, sch) = scheduled(
        TWO_SIZES,
        "i, j = sch.get_loops(sch.get_block(\"B\"))\n\
         i0, i1 = sch.split(i, [None, 8])\n\
         j0, j1 = sch.split(j, [None, 4])\n\
         sch.reorder(i0, j0, i1, j1)\n\
         sch.fuse(i0, j0)\n",
    );
    assert_same_results(&original, &sch, SIZES);
}

#[test]
fn fusing_symbolic_loops_keeps_the_results_at_every_size() {
    let (original, sch) = scheduled(
        TWO_SIZES,
        "i, j = sch.get_loops(sch.get_block(\"B\"))\n\
         f = sch.fuse(i, j)\n\
         sch.split(f, [None, 5])\n",
    );
    assert_same_results(&original, &sch, SIZES);
}

#[test]
fn a_perfect_tile_of_a_symbolic_loop_leaves_the_outer_factor_to_split() {
    let (original, mut sch) = scheduled(
        TWO_SIZES,
        "i, j = sch.get_loops(sch.get_block(\"B\"))\n\
         factors = sch.sample_perfect_tile(i, n=3)\n\
         sch.split(i, [None, factors[1], factors[2]])\n",
    );
    let text = sch.trace().python(sch.dialect);
    assert!(
        text.contains("_, v4, v5 = sch.sample_perfect_tile(loop=l1, n=3, max_innermost_factor=16, decision=[-1, 1, 1])"),
        "{text}"
    );
    let block = sch.get_block("B", None).expect("block B");
    let loop_rv = sch.get_loops(block).expect("loops")[0];
    let factors = sch
        .sample_perfect_tile(loop_rv, 2, 16, None)
        .expect("sampled");
    assert!(sch.is_absent(factors[0]));
    assert_eq!(sch.get_value(factors[1]).expect("a value"), 1);
    assert!(sch.get_value(factors[0]).is_err());
    assert_same_results(&original, &sch, SIZES);
}

#[test]
fn constant_factors_that_may_not_cover_a_symbolic_loop_are_refused() {
    let original = module(TWO_SIZES);
    let mut sch = Schedule::new(original).expect("a schedule");
    let err = run_python(
        &mut sch,
        "i, j = sch.get_loops(sch.get_block(\"B\"))\nsch.split(j, [4, 8])\n",
    )
    .expect_err("32 may be less than n");
    assert!(
        err.message.contains("not provably at least"),
        "{}",
        err.message
    );
}
