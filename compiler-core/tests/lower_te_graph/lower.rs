//! Lowering: every lowered function prints, reparses-free checks of its form
//! (no blocks, flat accesses), and runs in the reference interpreter with
//! exactly the source function's results.

use std::collections::HashMap;

use compiler_core::eval::{random_inputs, run_prim_func, EvalOptions, NDArray};
use compiler_core::ir::{ExprKind, ForKind, IRModule, PrimFunc, StmtKind};
use compiler_core::lower::{lower_func, lower_module, LowerOptions, LoweredFunc};
use compiler_core::schedule::{replay::run_python, Schedule};
use compiler_core::tvmscript::builder::parse_script;
use compiler_core::tvmscript::printer::{print_module, print_prim_func, Dialect, PrintOptions};

fn parse(src: &str) -> IRModule {
    parse_script(src)
        .unwrap_or_else(|e| panic!("parse: {}", e.message))
        .to_module()
}

fn schedule(m: &IRModule, text: &str) -> IRModule {
    let mut sch = Schedule::new(m.clone()).expect("schedule");
    run_python(&mut sch, text).unwrap_or_else(|e| panic!("schedule: {}", e.message));
    sch.module().clone()
}

fn seed(name: &str) -> IRModule {
    let path = format!("{}/tests/data/seeds/{name}", env!("CARGO_MANIFEST_DIR"));
    parse(&std::fs::read_to_string(path).unwrap())
}

fn data(name: &str) -> IRModule {
    let path = format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
    parse(&std::fs::read_to_string(path).unwrap())
}

fn outputs(f: &PrimFunc, inputs: &[NDArray]) -> Vec<NDArray> {
    let mut args = inputs.to_vec();
    run_prim_func(f, &mut args, &EvalOptions::default()).unwrap_or_else(|e| panic!("run: {e}"));
    args
}

/// The structural promises of the low-level form.
fn check_form(l: &LoweredFunc) {
    l.func.body.walk(&mut |s| {
        assert!(
            !matches!(s.kind(), StmtKind::BlockRealize(_)),
            "{}: a block survived lowering",
            l.name
        );
        if let StmtKind::For(f) = s.kind() {
            assert!(
                matches!(f.kind, ForKind::Serial | ForKind::Parallel),
                "{}: loop {} is still {:?}",
                l.name,
                f.loop_var.name(),
                f.kind
            );
        }
        if let StmtKind::Store { indices, .. } = s.kind() {
            assert_eq!(indices.len(), 1, "{}: store not flat", l.name);
        }
        s.for_each_expr(|e| {
            e.walk(&mut |x| {
                if let ExprKind::Load { indices, .. } = x.kind() {
                    assert_eq!(indices.len(), 1, "{}: load not flat", l.name);
                }
            })
        });
    });
}

/// Lowers every function of `m`, checks form, printing and numerics.
fn check_module(m: &IRModule, opts: &LowerOptions) -> Vec<LoweredFunc> {
    let lowered = lower_module(m, opts).unwrap_or_else(|e| panic!("lower: {e}"));
    let text = print_module(&lowered.to_ir_module(), &PrintOptions::new(Dialect::Block));
    assert!(!text.is_empty());
    if std::env::var_os("LOWER_PRINT").is_some() {
        eprintln!("{text}\n{}", lowered.report().notes.join("\n"));
    }
    for l in &lowered.funcs {
        check_form(l);
        let f = m.get_prim(&l.name).unwrap();
        let inputs = random_inputs(f, 7, &HashMap::new()).unwrap();
        let want = outputs(f, &inputs);
        let got = outputs(&l.func, &inputs);
        for (i, (w, g)) in want.iter().zip(&got).enumerate() {
            assert_eq!(
                w.to_le_bytes(),
                g.to_le_bytes(),
                "{}: argument {i} differs after lowering\n{}",
                l.name,
                print_prim_func(&l.func, &l.name, &PrintOptions::new(Dialect::Block))
            );
        }
    }
    lowered.funcs
}

const MM_RELU: &str = "seed001_02_mm_relu.py";

#[test]
fn seeds_lower_and_match_the_interpreter() {
    for name in [
        "seed000_01_vecadd.py",
        "seed000_03_vecadd_split_printed.py",
        "seed000_04_vecadd_reorder_printed.py",
        "seed000_05_vecadd_parallel_printed.py",
        MM_RELU,
        "seed001_05_two_functions.py",
        "seed001_06_myadd_int64.py",
        "seed001_10_bmm_relu_target.py",
        "seed001_11_mlp_tir_part_dynamic.py",
        "seed001_12_matmul_c_init_literal.py",
        "seed001_13_mixture_linear0_static_tir_part.py",
        "seed001_14_gpu_vecadd.py",
        "seed001_15_gpu_window_sum.py",
        "seed002_03_te_printed.py",
        "seed002_04_split_printed.py",
        "seed002_05_reorder_printed.py",
        "seed004_01_mm_relu.py",
    ] {
        eprintln!("{name}");
        check_module(&seed(name), &LowerOptions::default());
        check_module(
            &seed(name),
            &LowerOptions {
                promote: false,
                hoist: false,
                parallel_tasks: false,
                ..LowerOptions::default()
            },
        );
    }
}

#[test]
fn mm_relu_schedules_lower() {
    let m = seed(MM_RELU);
    let scheds = [
        // split + reorder (book §2.4)
        r#"
block_Y = sch.get_block("Y", func_name="mm_relu")
i, j, k = sch.get_loops(block_Y)
j0, j1 = sch.split(j, factors=[None, 4])
sch.reorder(j0, k, j1)
"#,
        // + decompose_reduction
        r#"
block_Y = sch.get_block("Y", func_name="mm_relu")
i, j, k = sch.get_loops(block_Y)
j0, j1 = sch.split(j, factors=[None, 4])
sch.reorder(j0, k, j1)
sch.decompose_reduction(block_Y, k)
"#,
        // vectorize + unroll + parallel on the consumer
        r#"
block_Y = sch.get_block("Y", func_name="mm_relu")
i, j, k = sch.get_loops(block_Y)
j0, j1 = sch.split(j, factors=[None, 8])
k0, k1 = sch.split(k, factors=[None, 4])
sch.reorder(i, j0, k0, k1, j1)
sch.unroll(k1)
sch.parallel(i)
block_C = sch.get_block("C", func_name="mm_relu")
ci, cj = sch.get_loops(block_C)
cj0, cj1 = sch.split(cj, factors=[None, 8])
sch.vectorize(cj1)
"#,
    ];
    for s in scheds {
        check_module(&schedule(&m, s), &LowerOptions::default());
    }
    // reverse_compute_at + decompose_reduction, as TVM prints the result.
    check_module(
        &data("printer/sched_split_decompose.tvm.txt"),
        &LowerOptions::default(),
    );
}

#[test]
fn blocked_matmul_vectorizes_unrolls_and_promotes() {
    let src = r#"
@T.prim_func
def main(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128, 128), "float32"), C: T.Buffer((128, 128), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": True})
    for i, j, k in T.grid(128, 128, 128):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
"#;
    let m = parse(src);
    let sched = r#"
b = sch.get_block("C")
i, j, k = sch.get_loops(b)
i0, i1 = sch.split(i, factors=[None, 4])
j0, j1 = sch.split(j, factors=[None, 16])
k0, k1 = sch.split(k, factors=[None, 4])
sch.reorder(i0, j0, k0, i1, k1, j1)
sch.parallel(i0)
sch.unroll(i1)
sch.vectorize(j1)
sch.decompose_reduction(b, k0)
"#;
    let m = schedule(&m, sched);
    let l = check_module(&m, &LowerOptions::default());
    let notes = l[0].report.notes.join("\n");
    assert!(
        notes.contains("vectorized as 4 unrolled steps of 4 × float32"),
        "{notes}"
    );
    assert!(notes.contains("parallel task 0"), "{notes}");
    let mut ramps = 0;
    l[0].func.body.walk(&mut |s| {
        s.for_each_expr(|e| {
            e.walk(&mut |x| {
                if let ExprKind::Ramp { .. } = x.kind() {
                    ramps += 1
                }
            })
        })
    });
    assert!(ramps > 0);
}

#[test]
fn strided_vectorize_stays_scalar_with_a_note() {
    let src = r#"
@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32")):
    for i in range(16):
        for j in T.vectorized(16):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vj, vi]
"#;
    let l = check_module(&parse(src), &LowerOptions::default());
    let notes = l[0].report.notes.join("\n");
    assert!(
        notes.contains("stays a scalar loop: an access has stride 16"),
        "{notes}"
    );
}

#[test]
fn lowered_text_shows_flat_views_and_allocations() {
    let m = seed(MM_RELU);
    let l = lower_func(
        "mm_relu",
        m.get_prim("mm_relu").unwrap(),
        &LowerOptions::default(),
    )
    .unwrap();
    let text = print_prim_func(&l.func, "mm_relu", &PrintOptions::new(Dialect::Block));
    assert!(text.contains("data=A.data"), "{text}");
    assert!(text.contains("alloc_buffer((16384,)"), "{text}");
    assert!(!text.contains("T.block"), "{text}");
}

#[test]
fn match_buffer_views_become_source_accesses() {
    // A 4x4-tiled add whose inner block sees its tile through match_buffer
    // (the form blockize/tensorize produce), with the view's strides used.
    let src = r#"
@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32")):
    for io, jo in T.grid(4, 4):
        with T.block("tile"):
            vio, vjo = T.axis.remap("SS", [io, jo])
            T.reads(A[vio * 4:vio * 4 + 4, vjo * 4:vjo * 4 + 4])
            T.writes(B[vio * 4:vio * 4 + 4, vjo * 4:vjo * 4 + 4])
            At = T.match_buffer(A[vio * 4:vio * 4 + 4, vjo * 4:vjo * 4 + 4], (4, 4))
            Bt = T.match_buffer(B[vio * 4:vio * 4 + 4, vjo * 4:vjo * 4 + 4], (4, 4))
            for i, j in T.grid(4, 4):
                with T.block("add"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    Bt[vi, vj] = At[vi, vj] * T.float32(2) + T.float32(1)
"#;
    check_module(&parse(src), &LowerOptions::default());
}

#[test]
fn reverse_compute_at_and_decompose_reduction_lower() {
    let m = seed(MM_RELU);
    let sched = r#"
block_Y = sch.get_block("Y", func_name="mm_relu")
i, j, k = sch.get_loops(block_Y)
j0, j1 = sch.split(j, factors=[None, 8])
sch.reorder(i, j0, k, j1)
block_C = sch.get_block("C", func_name="mm_relu")
sch.reverse_compute_at(block_C, j0)
sch.decompose_reduction(block_Y, k)
"#;
    check_module(&schedule(&m, sched), &LowerOptions::default());
}

#[test]
fn blocking_schedule_unswitches_the_init_and_auto_vectorizes() {
    let src = r#"
@T.prim_func
def main(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32"), C: T.Buffer((64, 64), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": True})
    for i, j, k in T.grid(64, 64, 64):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
"#;
    let sched = r#"
block_c = sch.get_block("C")
(y, x, k) = sch.get_loops(block_c)
yo, yi = sch.split(y, [None, 32])
xo, xi = sch.split(x, [None, 32])
sch.reorder(yo, xo, k, yi, xi)
sch.parallel(yo)
"#;
    let l = check_module(&schedule(&parse(src), sched), &LowerOptions::default());
    let notes = l[0].report.notes.join("\n");
    assert!(
        notes.contains("loop i_1: unswitched on `k == 0`"),
        "{notes}"
    );
    assert!(
        notes.contains("auto-vectorized as 8 unrolled steps of 4 × float32"),
        "{notes}"
    );
    // Without the CPU extras the init stays guarded and the loops scalar.
    let plain = LowerOptions {
        unswitch: false,
        auto_vectorize: false,
        ..LowerOptions::default()
    };
    let l = check_module(&schedule(&parse(src), sched), &plain);
    assert!(!l[0].report.notes.join("\n").contains("vectorized"));
}

#[test]
fn split_and_fuse_indices_cost_no_division() {
    let src = r#"
@T.prim_func
def main(A: T.Buffer((64, 128), "float32"), B: T.Buffer((64, 128), "float32")):
    for i, j in T.grid(64, 128):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] + T.float32(1)
"#;
    let sched = r#"
b = sch.get_block("B")
i, j = sch.get_loops(b)
f = sch.fuse(i, j)
f0, f1 = sch.split(f, [None, 48])
"#;
    let opts = LowerOptions {
        auto_vectorize: false,
        ..LowerOptions::default()
    };
    let l = check_module(&schedule(&parse(src), sched), &opts);
    let text = print_prim_func(&l[0].func, "main", &PrintOptions::new(Dialect::Block));
    assert!(!text.contains("//") && !text.contains('%'), "{text}");
}

#[test]
fn thread_bindings_serialize_for_the_cpu_and_stay_for_a_gpu() {
    let m = seed("seed002_06_gpu_bind_printed.py");
    let l = check_module(&m, &LowerOptions::default());
    assert!(l[0]
        .report
        .notes
        .join("\n")
        .contains("runs as a serial loop on the CPU"));
    let gpu = LowerOptions {
        serialize_thread_bindings: false,
        parallel_tasks: false,
        auto_vectorize: false,
        ..LowerOptions::default()
    };
    let l = lower_module(&m, &gpu).unwrap();
    let mut bound = 0;
    l.funcs[0].func.body.walk(&mut |s| {
        if let StmtKind::For(f) = s.kind() {
            bound += (f.kind == ForKind::ThreadBinding) as usize;
        }
    });
    assert!(bound >= 1);
}

const ROW_SUM: &str = r#"
@tvm.script.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((4, 100), "float32"), B: T.Buffer((4,), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for i, k in T.grid(4, 100):
            with T.block("B"):
                vi, vk = T.axis.remap("SR", [i, k])
                with T.init():
                    B[vi] = T.float32(0)
                B[vi] = B[vi] UPDATE A[vi, vk]
"#;

const BIND_ROWS: &str = r#"
i, k = sch.get_loops(sch.get_block("B"))
sch.bind(i, "blockIdx.x")
sch.bind(k, "threadIdx.x")
"#;

fn gpu_lower(m: &IRModule) -> Result<compiler_core::lower::gpu::GpuFunc, String> {
    let (name, f) = m.prim_funcs().next().expect("a function");
    let opts = LowerOptions {
        serialize_thread_bindings: false,
        parallel_tasks: false,
        auto_vectorize: false,
        promote: false,
        hoist: false,
        unswitch: false,
        ..LowerOptions::default()
    };
    compiler_core::lower::gpu::lower_func_gpu(name, f, &opts).map_err(|e| e.message)
}

#[test]
fn cross_thread_reduction_becomes_a_shared_tree() {
    let m = schedule(&parse(&ROW_SUM.replace("UPDATE", "+")), BIND_ROWS);
    let g = gpu_lower(&m).unwrap_or_else(|e| panic!("{e}"));
    let body = &g.kernels[0].body;
    let (mut shared, mut syncs, mut guarded_writes) = (0, 0, 0);
    body.walk(&mut |s| match s.kind() {
        StmtKind::Allocate { buffer, .. } if buffer.scope == "shared" => shared += 1,
        StmtKind::Evaluate(_) if compiler_core::lower::gpu::is_sync(s) => syncs += 1,
        StmtKind::If { then, .. } => {
            if let StmtKind::Store { buffer, .. } = then.kind() {
                guarded_writes += usize::from(buffer.name == "B");
            }
        }
        _ => {}
    });
    assert_eq!(shared, 1);
    // 100 = 64 + 36: one folding step and six halvings, a barrier before
    // each and before the write-back.
    assert_eq!(syncs, 8);
    assert_eq!(guarded_writes, 1, "B is written once, by invocation 0");
    // The CPU lowering of the same schedule is untouched and exact.
    check_module(&m, &LowerOptions::default());
}

#[test]
fn cross_thread_reduction_without_a_reducer_is_refused() {
    let m = schedule(&parse(&ROW_SUM.replace("UPDATE", "-")), BIND_ROWS);
    let e = gpu_lower(&m).expect_err("a lowering error");
    assert!(
        e.contains("block B is a reduction bound to threadIdx"),
        "{e}"
    );
    assert!(e.contains("no commutative reducer"), "{e}");
    assert!(e.contains("x + y (init 0)"), "{e}");
}
