//! `tvm.meta_schedule` in scripts: the database `tune_tir` returns answers
//! `query_schedule(mod, target, workload_name)` with the best record's
//! schedule (the one `compile_tir` gives), `None` for a module it has no
//! record of, and refuses a call without a workload name.

use crate::support::*;

const TUNE: &str = r#"import numpy as np
import tvm
from tvm import meta_schedule as ms
from tvm.script import tir as T

@tvm.script.ir_module
class MyModule:
    @T.prim_func
    def main(A: T.Buffer((16, 16), "float32"),
             B: T.Buffer((16, 16), "float32"),
             C: T.Buffer((16, 16), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for i, j, k in T.grid(16, 16, 16):
            with T.block("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    C[vi, vj] = 0.0
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]

def stochastic_schedule_mm(sch: tvm.tir.Schedule):
    block_C = sch.get_block("C", "main")
    i, j, k = sch.get_loops(block=block_C)
    j_factors = sch.sample_perfect_tile(loop=j, n=2)
    j_0, j_1 = sch.split(loop=j, factors=j_factors)
    sch.reorder(i, j_0, k, j_1)
    sch.decompose_reduction(block_C, k)
    return sch

database = ms.tune_tir(
    mod=MyModule,
    target="llvm --num-cores=1",
    max_trials_global=3,
    num_trials_per_iter=3,
    space=ms.space_generator.ScheduleFn(stochastic_schedule_mm),
    work_dir="./tune_tmp",
)
"#;

#[test]
fn query_schedule_gives_the_best_record_as_compile_tir_does() {
    let src = format!(
        "{TUNE}{}",
        r#"
sch = database.query_schedule(MyModule, target="llvm --num-cores=1", workload_name="main")
best = ms.tir_integration.compile_tir(database, MyModule, "llvm --num-cores=1")
print(type(sch).__name__, tvm.ir.structural_equal(sch.mod, best.mod))
print("sample_perfect_tile" in str(sch.trace), "decompose_reduction" in str(sch.trace))
a = tvm.nd.array(np.random.rand(16, 16).astype("float32"))
b = tvm.nd.array(np.random.rand(16, 16).astype("float32"))
c = tvm.nd.empty((16, 16), "float32")
tvm.build(sch.mod, target="llvm")["main"](a, b, c)
print(np.allclose(c.numpy(), a.numpy() @ b.numpy(), rtol=1e-4))
query = database.query_schedule
@tvm.script.ir_module
class Other:
    @T.prim_func
    def main(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
        for i in range(4):
            with T.block("B"):
                vi = T.axis.remap("S", [i])
                B[vi] = A[vi] + T.float32(1)
print(query(Other, "llvm --num-cores=1", "main"))
database.query_schedule(MyModule, target="llvm --num-cores=1")
"#
    );
    let r = run_source(&src, "query_schedule.py", limits());
    let lines: Vec<&str> = r
        .output
        .lines()
        .filter(|l| !l.starts_with("[INFO]"))
        .take_while(|l| !l.starts_with("Traceback"))
        .collect();
    assert_eq!(
        lines,
        ["Schedule True", "True True", "True", "None"],
        "{}",
        r.output
    );
    let e = r.error.expect("a query without a workload name is refused");
    assert!(
        e.traceback
            .contains("TypeError: query_schedule() missing required argument: 'workload_name'"),
        "{}",
        e.traceback
    );
}
