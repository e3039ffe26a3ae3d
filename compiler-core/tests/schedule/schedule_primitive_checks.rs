//! Schedule primitives' own checks that build their input from TVMScript:
//! refusals that must leave the schedule as it was, trace JSON in TVM 0.27's
//! shape, and sampling. They were unit tests in `src/schedule/*.rs`; here
//! they use the public API, so the schedule module does not depend on the
//! TVMScript builder (`cargo xtask layers` counts unit tests).

mod annotate {
    use compiler_core::schedule::*;
    use compiler_core::tvmscript::builder::parse_script;

    /// Hiding accesses changes the declaration only: the body and init are
    /// the very statements they were, so the block computes the same values.
    #[test]
    fn hide_buffer_access_keeps_the_body() {
        let src = r#"
from tvm.script import tir as T
@T.prim_func
def main(A: T.Buffer((16, 32), "float32"), B: T.Buffer((32, 8), "float32"), C: T.Buffer((16, 8), "float32")):
    for i, j, k in T.grid(16, 8, 32):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
"#;
        let module = parse_script(src).expect("parses").to_module();
        let mut sch = Schedule::new(module).expect("schedule");
        let b = sch.get_block("C", None).unwrap();
        let (_, before) = sch.resolve_block("test", b).unwrap();
        sch.unsafe_hide_buffer_access(b, "read", &[0]).unwrap();
        let (_, after) = sch.resolve_block("test", b).unwrap();
        assert!(after.block.body.same_node(&before.block.body));
        assert!(after
            .block
            .init
            .unwrap()
            .same_node(&before.block.init.unwrap()));
        let names: Vec<&str> = after
            .block
            .reads
            .iter()
            .map(|r| r.buffer.name.as_str())
            .collect();
        assert_eq!(names, ["B"]);
        assert_eq!(after.block.writes.len(), 1);
    }
}

mod cache {
    use compiler_core::schedule::*;
    use compiler_core::tvmscript::builder::parse_script;

    /// A block whose region of the buffer depends on its iterators: TVM 0.27
    /// puts copies naming `vi` outside the block (ill-formed IR); Tessel
    /// refuses and leaves the schedule as it was.
    #[test]
    fn cache_inplace_refuses_a_region_that_names_the_block_iterators() {
        let src = r#"
from tvm.script import tir as T
@T.prim_func
def main(A: T.Buffer((16,), "float32"), D: T.Buffer((16,), "float32")):
    for i in range(16):
        with T.block("acc"):
            vi = T.axis.spatial(16, i)
            D[vi] = D[vi] + A[vi]
"#;
        let module = parse_script(src).expect("parses").to_module();
        let mut sch = Schedule::new(module.clone()).expect("schedule");
        let b = sch.get_block("acc", None).unwrap();
        let before = sch.trace().instructions.len();
        let err = sch
            .cache_inplace(b, 0, "local")
            .expect_err("the copies would use vi outside the block");
        assert!(
            err.to_string().contains("depends on its iterators"),
            "{err}"
        );
        assert_eq!(sch.trace().instructions.len(), before);
        assert!(
            compiler_core::analysis::structural_equal::structural_equal(sch.module(), &module)
                .is_ok()
        );
    }
    /// An opaque call naming the cached buffer's data pointer (a
    /// tensor-core load through `T.tvm_access_ptr`) reads and writes the
    /// cache after `cache_read` and `cache_write`, as in TVM 0.27.
    #[test]
    fn cache_read_and_write_retarget_data_pointers_in_opaque_calls() {
        let src = r#"
from tvm.script import tir as T
@T.prim_func
def main(a: T.handle, b: T.handle):
    A = T.match_buffer(a, (32, 16), "float16")
    F = T.match_buffer(b, (32, 16), "float16", scope="wmma.matrix_a", offset_factor=1)
    for i in range(2):
        with T.block("load"):
            vi = T.axis.spatial(2, i)
            T.reads(A[vi * 16 : vi * 16 + 16, 0:16])
            T.writes(F[vi * 16 : vi * 16 + 16, 0:16])
            T.evaluate(T.tvm_load_matrix_sync(F.data, 16, 16, 16, vi, T.tvm_access_ptr(T.type_annotation(dtype="float16"), A.data, vi * 256, 256, 1, dtype="handle"), 16, "row_major", dtype="handle"))
"#;
        // TVM 0.27's result of the same two calls, in the course dialect.
        let expected = r#"
from tvm.script import tir as T
@T.prim_func
def main(A: T.Buffer((32, 16), "float16"), F: T.Buffer((32, 16), "float16", scope="wmma.matrix_a", offset_factor=1)):
    A_shared = T.alloc_buffer((32, 16), "float16", scope="shared")
    F_shared = T.alloc_buffer((32, 16), "float16", elem_offset=F.elem_offset, scope="shared")
    for ax0, ax1 in T.grid(32, 16):
        with T.block("A_shared"):
            v0, v1 = T.axis.remap("SS", [ax0, ax1])
            T.reads(A[v0, v1])
            T.writes(A_shared[v0, v1])
            A_shared[v0, v1] = A[v0, v1]
    for i in range(2):
        with T.block("load"):
            vi = T.axis.spatial(2, i)
            T.reads(A_shared[vi * 16:vi * 16 + 16, 0:16])
            T.writes(F_shared[vi * 16:vi * 16 + 16, 0:16])
            T.tvm_load_matrix_sync(F_shared.data, 16, 16, 16, vi, T.tvm_access_ptr(T.type_annotation("float16"), A_shared.data, vi * 256, 256, 1), 16, "row_major")
    for ax0, ax1 in T.grid(32, 16):
        with T.block("F_shared"):
            v0, v1 = T.axis.remap("SS", [ax0, ax1])
            T.reads(F_shared[v0, v1])
            T.writes(F[v0, v1])
            F[v0, v1] = F_shared[v0, v1]
"#;
        let module = parse_script(src).expect("parses").to_module();
        let mut sch = Schedule::new(module).expect("schedule");
        let b = sch.get_block("load", None).unwrap();
        sch.cache_read(b, 0, "shared", &[]).expect("cache_read");
        sch.cache_write(b, 0, "shared", &[]).expect("cache_write");
        let want = parse_script(expected).expect("parses").to_module();
        let got = sch.module();
        assert_eq!(
            compiler_core::analysis::structural_equal::structural_equal(got, &want),
            Ok(())
        );
    }
}

mod cache_index {
    use compiler_core::eval;
    use compiler_core::schedule::*;
    use compiler_core::tvmscript::builder::parse_script;

    fn schedule(src: &str) -> Schedule {
        Schedule::new(parse_script(src).expect("parses").to_module()).expect("schedule")
    }

    /// One index expression: TVM 0.27 fails building a one-statement
    /// sequence; Tessel caches it and the gather computes the same values.
    #[test]
    fn cache_index_caches_a_single_expression() {
        let src = r#"
from tvm.script import tir as T
@T.prim_func
def main(A: T.Buffer((40,), "float32"), B: T.Buffer((4, 4), "float32")):
    for i, j in T.grid(4, 4):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi * 9 + vj * 2]
"#;
        let mut sch = schedule(src);
        let before = sch.module().clone();
        let b = sch.get_block("B", None).unwrap();
        let stages = sch.cache_index(b, "global", 0).expect("one expression");
        assert_eq!(stages.len(), 1);
        assert_eq!(sch.block_name(stages[0]).unwrap(), "index_0");
        let original = before.get_prim("main").unwrap();
        let mut args = eval::random_inputs(original, 7, &Default::default()).unwrap();
        let mut again = args.clone();
        let opts = eval::EvalOptions {
            check_regions: true,
            ..Default::default()
        };
        eval::run_prim_func(original, &mut args, &opts).unwrap();
        eval::run_prim_func(sch.module().get_prim("main").unwrap(), &mut again, &opts).unwrap();
        for (a, b) in again.iter().zip(&args) {
            eval::allclose(a, b, 0.0, 0.0).unwrap();
        }
    }

    /// TVM pairs the expression's iterators with loops one to one; a
    /// computed binding (`vi = i_0 * 2 + i_1`) would get a wrong stage.
    #[test]
    fn cache_index_refuses_computed_bindings_and_negative_thresholds() {
        let src = r#"
from tvm.script import tir as T
@T.prim_func
def main(A: T.Buffer((40,), "float32"), B: T.Buffer((4,), "float32")):
    for i0, i1 in T.grid(2, 2):
        with T.block("B"):
            vi = T.axis.spatial(4, i0 * 2 + i1)
            B[vi] = A[vi * 9 + 1] + A[vi * 3 + 2]
"#;
        let mut sch = schedule(src);
        let b = sch.get_block("B", None).unwrap();
        let err = sch
            .cache_index(b, "global", 0)
            .expect_err("computed binding");
        assert!(err.to_string().contains("not bound to a loop"), "{err}");
        let err = sch.cache_index(b, "global", -1).expect_err("negative");
        assert!(err.to_string().contains("negative"), "{err}");
        assert_eq!(sch.trace().instructions.len(), 1);
    }
}

mod loop_partition {
    use compiler_core::schedule::*;
    use compiler_core::tvmscript::builder::parse_script;

    /// Partitioning `k` would give each piece's `vk` its own first value, so
    /// the init would reset `C` in every piece. TVM 0.27 does that; Tessel
    /// refuses and records nothing.
    #[test]
    fn loop_partition_refuses_a_reduction_loop_with_init() {
        let src = r#"
from tvm.script import tir as T
@T.prim_func
def main(A: T.Buffer((4, 16), "float32"), C: T.Buffer((4,), "float32")):
    for i, k in T.grid(4, 16):
        with T.block("C"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                C[vi] = T.float32(0)
            C[vi] = C[vi] + A[vi, vk]
"#;
        let module = parse_script(src).expect("parses").to_module();
        let mut sch = Schedule::new(module).expect("schedule");
        let c = sch.get_block("C", None).unwrap();
        let k = sch.get_loops(c).unwrap()[1];
        let before = sch.trace().instructions.len();
        let err = sch
            .loop_partition(k, &[Factor::Const(5), Factor::Infer])
            .expect_err("k feeds a reduction with an init");
        assert!(err.to_string().contains("re-run the init"), "{err}");
        assert_eq!(sch.trace().instructions.len(), before);
        // A loop a binding uses in an expression is refused too.
        let i = sch.get_loops(c).unwrap()[0];
        let split = sch
            .split(i, &[Factor::Infer, Factor::Const(2)], true)
            .unwrap();
        let err = sch
            .loop_partition(split[0], &[Factor::Const(1)])
            .expect_err("vi = i_0 * 2 + i_1");
        assert!(err.to_string().contains("as it is"), "{err}");
        // A loop a spatial iterator takes as it is partitions.
        let module = parse_script(src).expect("parses").to_module();
        let mut sch = Schedule::new(module).expect("schedule");
        let c = sch.get_block("C", None).unwrap();
        let i = sch.get_loops(c).unwrap()[0];
        let parts = sch
            .loop_partition(i, &[Factor::Const(1)])
            .expect("i is spatial");
        assert_eq!(parts.len(), 2);
    }
}

mod merge {
    use compiler_core::schedule::*;
    use compiler_core::tvmscript::builder::parse_script;

    /// C reads B in reverse: merged, `C[i]` would read `B[15 - i]` before
    /// it is written. TVM 0.27 merges it; Tessel refuses and records nothing.
    #[test]
    fn merge_refuses_dependent_nests() {
        let src = r#"
from tvm.script import tir as T
@T.prim_func
def main(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
    B = T.alloc_buffer((16,), "float32")
    for i in range(16):
        with T.block("B"):
            vi = T.axis.spatial(16, i)
            B[vi] = A[vi] * T.float32(2)
    for i in range(16):
        with T.block("C"):
            vi = T.axis.spatial(16, i)
            C[vi] = B[15 - vi] + T.float32(1)
"#;
        let module = parse_script(src).expect("parses").to_module();
        let mut sch = Schedule::new(module).expect("schedule");
        let b = sch.get_block("B", None).unwrap();
        let c = sch.get_block("C", None).unwrap();
        let lb = sch.get_loops(b).unwrap()[0];
        let lc = sch.get_loops(c).unwrap()[0];
        let before = sch.trace().instructions.len();
        let err = sch.merge(&[lb, lc]).expect_err("C depends on B");
        assert!(err.to_string().contains("depend on each other"), "{err}");
        assert_eq!(sch.trace().instructions.len(), before);
    }
}

mod primitives {
    use compiler_core::schedule::*;
    use compiler_core::tvmscript::builder::parse_script;

    const MATMUL: &str = r#"
from tvm.script import tir as T
@T.prim_func
def main(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32"), C: T.Buffer((64, 64), "float32")):
    for i, j, k in T.grid(64, 64, 64):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
"#;

    fn schedule() -> Schedule {
        let parsed = parse_script(MATMUL).expect("parses");
        Schedule::new(parsed.to_module()).expect("schedule")
    }

    /// Binding a reduction loop to `blockIdx` is refused (blocks cannot
    /// combine partial sums: a race on a GPU); `threadIdx` is a cross-thread
    /// reduction and allowed, as in TVM. A refusal changes nothing.
    #[test]
    fn reduction_loops_bind_to_threads_not_blocks() {
        for axis in ["blockIdx.x", "blockIdx.y"] {
            let mut sch = schedule();
            let b = sch.get_block("C", None).unwrap();
            let k = sch.get_loops(b).unwrap()[2];
            let before = sch.trace().instructions.len();
            let err = sch.bind(k, axis).expect_err("a reduction loop on blocks");
            assert!(
                err.to_string().contains("feeds the reduce iterator `vk`")
                    && err.to_string().contains(&format!("bound to `{axis}`")),
                "{err}"
            );
            assert_eq!(sch.trace().instructions.len(), before);
        }
        let mut sch = schedule();
        let b = sch.get_block("C", None).unwrap();
        let loops = sch.get_loops(b).unwrap();
        sch.bind(loops[0], "blockIdx.x")
            .expect("a spatial loop on blocks");
        sch.bind(loops[2], "threadIdx.x")
            .expect("a cross-thread reduction");
    }

    #[test]
    fn typed_and_by_name_calls_record_the_same_trace() {
        let mut typed = schedule();
        let b = typed.get_block("C", None).unwrap();
        let l = typed.get_loops(b).unwrap();
        let tiles = typed
            .sample_perfect_tile(l[1], 2, 16, Some(&[8, 8]))
            .unwrap();
        let f: Vec<Factor> = tiles.iter().map(|t| Factor::Sampled(*t)).collect();
        let j = typed.split(l[1], &f, true).unwrap();
        typed.reorder(&[j[0], l[0]]).unwrap();
        typed.fuse(&[j[0], l[0]], true).unwrap();
        typed.decompose_reduction(b, l[2]).unwrap();

        let mut named = schedule();
        let src = "b = sch.get_block(\"C\")\n\
                   i, j, k = sch.get_loops(b)\n\
                   t = sch.sample_perfect_tile(j, n=2, decision=[8, 8])\n\
                   j0, j1 = sch.split(j, factors=t)\n\
                   sch.reorder(j0, i)\n\
                   sch.fuse(j0, i)\n\
                   sch.decompose_reduction(b, k)\n";
        compiler_core::schedule::replay::run_python(&mut named, src).expect("runs");
        assert_eq!(
            typed.trace().python(TraceDialect::Tir),
            named.trace().python(TraceDialect::Tir)
        );
        assert_eq!(typed.trace().to_json(), named.trace().to_json());
    }

    #[test]
    fn a_refused_primitive_records_nothing() {
        let mut sch = schedule();
        let b = sch.get_block("C", None).unwrap();
        let l = sch.get_loops(b).unwrap();
        let before = sch.trace().instructions.len();
        assert!(sch.split(l[0], &[Factor::Infer], true).is_err());
        assert!(sch
            .call(
                "split",
                vec![l[0].into()],
                vec![("bogus".into(), true.into())]
            )
            .is_err());
        assert_eq!(sch.trace().instructions.len(), before);
    }

    #[test]
    fn get_output_blocks_json_names_its_block() {
        let mut sch = schedule();
        let root = sch.get_block("root", None);
        // The root block is implicit when not written; use the block itself.
        let b = root.unwrap_or_else(|_| sch.get_block("C", None).unwrap());
        let _ = sch.get_output_blocks(b);
        let json = sch.trace().to_json_string();
        assert!(!json.contains(r#"["GetOutputBlocks", ["None"]"#), "{json}");
        let back = Trace::from_json_str(&json).expect("reads back");
        assert_eq!(
            back.python(TraceDialect::Tir),
            sch.trace().python(TraceDialect::Tir)
        );
    }
}

#[cfg(feature = "lean")]
mod primitives_lean {
    use compiler_core::schedule::replay::SchedValue;
    use compiler_core::schedule::*;
    use compiler_core::tvmscript::builder::parse_script;

    #[test]
    fn a_lean_build_refuses_the_left_out_primitives_and_keeps_the_rest() {
        let src = r#"
@T.prim_func
def main(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
    for i in range(8):
        with T.block("B"):
            vi = T.axis.spatial(8, i)
            B[vi] = A[vi] + T.float32(1)
"#;
        let module = parse_script(src).unwrap().to_module();
        let mut sch = Schedule::new(module).unwrap();
        let b = sch.get_block("B", None).unwrap();
        let loops = sch.get_loops(b).unwrap();
        let err = sch
            .call(
                "loop_partition",
                vec![
                    SchedValue::Rv(loops[0].into()),
                    SchedValue::List(vec![SchedValue::Int(4), SchedValue::None]),
                ],
                vec![],
            )
            .unwrap_err();
        assert!(err.is_left_out(), "{err}");
        assert_eq!(err.primitive, "loop_partition");
        // The trace records nothing of the refused call; the others work.
        assert!(sch
            .trace()
            .instructions
            .iter()
            .all(|i| i.name != "loop_partition"));
        sch.split(loops[0], &[Factor::Infer, Factor::Const(4)], true)
            .unwrap();
    }

    #[test]
    fn a_lean_build_leaves_out_annotations_and_the_buffer_rewrites_tuned_traces_use() {
        let src = r#"
@T.prim_func
def main(A: T.Buffer((8, 8), "float32"), C: T.Buffer((8, 8), "float32")):
    B = T.alloc_buffer((8, 8), "float32")
    for i, j in T.grid(8, 8):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] + T.float32(1)
    for i, j in T.grid(8, 8):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] * T.float32(2)
"#;
        let module = parse_script(src).unwrap().to_module();
        let calls: [(&str, Vec<SchedValue>); 5] = [
            (
                "annotate",
                vec![SchedValue::Str("k".into()), SchedValue::Int(1)],
            ),
            ("unannotate", vec![SchedValue::Str("k".into())]),
            (
                "set_scope",
                vec![SchedValue::Int(0), SchedValue::Str("shared".into())],
            ),
            (
                "storage_align",
                vec![
                    SchedValue::Int(0),
                    SchedValue::Int(0),
                    SchedValue::Int(16),
                    SchedValue::Int(1),
                ],
            ),
            (
                "unsafe_set_dtype",
                vec![SchedValue::Int(0), SchedValue::Str("float16".into())],
            ),
        ];
        for (method, rest) in calls {
            let mut sch = Schedule::new(module.clone()).unwrap();
            let b = sch.get_block("B", None).unwrap();
            let mut args = vec![SchedValue::Rv(b.into())];
            args.extend(rest);
            let err = sch.call(method, args, vec![]).unwrap_err();
            assert!(err.is_left_out(), "{method}: {err}");
            assert_eq!(err.primitive, method);
        }
    }

    #[test]
    fn a_lean_build_leaves_out_transform_layout_padding_only() {
        let src = r#"
@T.prim_func
def main(A: T.Buffer((6,), "float32"), B: T.Buffer((6,), "float32")):
    for i in range(6):
        with T.block("B"):
            vi = T.axis.spatial(6, i)
            B[vi] = A[vi] + T.float32(1)
"#;
        let module = parse_script(src).unwrap().to_module();
        let call = |map: &str, pad: Option<f64>| {
            let mut sch = Schedule::new(module.clone()).unwrap();
            let b = sch.get_block("B", None).unwrap();
            let mut kw = vec![];
            if let Some(p) = pad {
                kw.push(("pad_value".to_string(), SchedValue::Float(p)));
            }
            sch.call(
                "transform_layout",
                vec![
                    SchedValue::Rv(b.into()),
                    SchedValue::Str("B".into()),
                    SchedValue::Source(map.to_string()),
                ],
                kw,
            )
        };
        // A reshape without padding is the course's; padding is left out.
        call("lambda i: [i // 3, i % 3]", None).unwrap();
        let err = call("lambda i: [i // 4, i % 4]", Some(0.0)).unwrap_err();
        assert!(err.is_left_out(), "{err}");
        assert_eq!(err.primitive, "transform_layout");
    }
}

mod read_write_at {
    use compiler_core::schedule::*;
    use compiler_core::tvmscript::builder::parse_script;

    /// A write of `A` after its first read under the loop: a copy made
    /// before the read would miss it. TVM 0.27 stops on an internal check;
    /// Tessel refuses and records nothing. `write_at` of `B` in the same
    /// loop refuses a read of `B` after its last write likewise.
    #[test]
    fn read_at_and_write_at_refuse_accesses_out_of_order() {
        let src = r#"
from tvm.script import tir as T
@T.prim_func
def main(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32"), C: T.Buffer((8,), "float32")):
    for i in range(8):
        with T.block("B"):
            vi = T.axis.spatial(8, i)
            B[vi] = A[vi] + T.float32(1)
        with T.block("A"):
            vi = T.axis.spatial(8, i)
            A[vi] = T.float32(0)
        with T.block("C"):
            vi = T.axis.spatial(8, i)
            C[vi] = B[vi] * T.float32(2)
"#;
        let module = parse_script(src).expect("parses").to_module();
        let mut sch = Schedule::new(module).expect("schedule");
        let b = sch.get_block("B", None).unwrap();
        let i = sch.get_loops(b).unwrap()[0];
        let before = sch.trace().instructions.len();
        let err = sch
            .read_at(i, b, 0, "shared")
            .expect_err("A written after read");
        assert!(
            err.to_string().contains("at or after its first read"),
            "{err}"
        );
        let err = sch
            .write_at(i, b, 0, "local")
            .expect_err("B read after write");
        assert!(err.to_string().contains("after its last write"), "{err}");
        let err = sch.read_at(i, b, 0, "warp").expect_err("scope");
        assert!(err.to_string().contains("Storage scope"), "{err}");
        assert_eq!(sch.trace().instructions.len(), before);
    }
}

mod reduction_epilogue {
    use compiler_core::schedule::*;
    use compiler_core::tvmscript::builder::parse_script;

    /// `max(temp + C, 0)`: TVM 0.27 fuses it into `D = max(D + A * B, 0)`
    /// at every step of the sum, which clamps partial sums. Tessel refuses
    /// and records nothing.
    #[test]
    fn fuse_reduction_epilogue_refuses_a_relu_epilogue() {
        let src = r#"
from tvm.script import tir as T
@T.prim_func
def main(A: T.Buffer((4, 6), "float32"), B: T.Buffer((6, 5), "float32"), C: T.Buffer((4, 5), "float32"), D: T.Buffer((4, 5), "float32")):
    temp = T.alloc_buffer((4, 5), "float32")
    for i, j, k in T.grid(4, 5, 6):
        with T.block("matmul"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                temp[vi, vj] = T.float32(0)
            temp[vi, vj] = temp[vi, vj] + A[vi, vk] * B[vk, vj]
    for i, j in T.grid(4, 5):
        with T.block("relu"):
            vi, vj = T.axis.remap("SS", [i, j])
            D[vi, vj] = T.max(temp[vi, vj] + C[vi, vj], T.float32(0))
"#;
        let module = parse_script(src).expect("parses").to_module();
        let mut sch = Schedule::new(module).expect("schedule");
        let mm = sch.get_block("matmul", None).unwrap();
        let relu = sch.get_block("relu", None).unwrap();
        let steps = sch.trace().instructions.len();
        let err = sch
            .fuse_reduction_epilogue(mm, relu)
            .expect_err("a clamp is not a bias");
        assert!(err.to_string().contains("only a bias"), "{err}");
        assert_eq!(sch.trace().instructions.len(), steps);
    }
}

mod reindex {
    use compiler_core::schedule::cache::BufferIndexType;
    use compiler_core::schedule::layout::BufferSel;
    use compiler_core::schedule::*;
    use compiler_core::tvmscript::builder::parse_script;

    const MATMUL: &str = r#"
from tvm.script import tir as T
@T.prim_func
def main(A: T.Buffer((16, 32), "float32"), B: T.Buffer((32, 8), "float32"), C: T.Buffer((16, 8), "float32")):
    for i, j, k in T.grid(16, 8, 32):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
"#;

    /// TVM 0.27 writes `reindex` as `['ReIndex', ['b0'], [index, kind], ['b1']]`
    /// (kind 0 read, 1 write); the JSON reads back to the same trace.
    #[test]
    fn reindex_json_keeps_index_and_kind_as_attributes() {
        let module = parse_script(MATMUL).expect("parses").to_module();
        let mut sch = Schedule::new(module).expect("schedule");
        let b = sch.get_block("C", None).unwrap();
        sch.reindex(b, BufferSel::Index(BufferIndexType::Read, 0))
            .expect("reindex A");
        sch.reindex(b, BufferSel::Name("C".into()))
            .expect("reindex C");
        let json = sch.trace().to_json_string();
        assert_eq!(
            json,
            r#"[[["GetSBlock", [], ["C", "main"], ["b0"]], ["ReIndex", ["b0"], [0, 0], ["b1"]], ["ReIndex", ["b0"], [0, 1], ["b2"]]], []]"#
        );
        let back = Trace::from_json_str(&json).expect("reads back");
        assert_eq!(
            back.python(TraceDialect::STir),
            sch.trace().python(TraceDialect::STir)
        );
        assert!(back
            .python(TraceDialect::STir)
            .contains(r#"b2 = sch.reindex(block=b0, buffer=("write", 0))"#));
    }
}

mod rolling_buffer {
    use compiler_core::ir::IRModule;
    use compiler_core::schedule::*;
    use compiler_core::tvmscript::builder::parse_script;

    /// The consumer reads `B` and `D`: TVM 0.27 replaces `B`'s region by
    /// the only inferred read region and stops on an internal check; Tessel
    /// refuses and leaves the function and the trace as they were.
    #[test]
    fn rolling_buffer_refuses_a_consumer_with_other_reads() {
        let src = r#"
from tvm.script import tir as T
@T.prim_func
def main(A: T.Buffer((12,), "float32"), D: T.Buffer((9,), "float32"), C: T.Buffer((9,), "float32")):
    B = T.alloc_buffer((10,), "float32")
    for i in range(10):
        with T.block("B"):
            vi = T.axis.spatial(10, i)
            B[vi] = A[vi] + A[vi + 1] + A[vi + 2]
    for i in range(9):
        with T.block("C"):
            vi = T.axis.spatial(9, i)
            C[vi] = B[vi] + B[vi + 1] + D[vi]
"#;
        let module = parse_script(src).expect("parses").to_module();
        let mut sch = Schedule::new(module).expect("schedule");
        let b = sch.get_block("B", None).unwrap();
        let c = sch.get_block("C", None).unwrap();
        let i = sch.get_loops(c).unwrap()[0];
        let split = sch
            .split(i, &[Factor::Const(3), Factor::Const(3)], true)
            .unwrap();
        sch.compute_at(b, split[0], false, -1).unwrap();
        let before = sch.module().clone();
        let steps = sch.trace().instructions.len();
        let err = sch.rolling_buffer(b, 0).expect_err("C reads D too");
        assert!(err.to_string().contains("read nothing else"), "{err}");
        assert_eq!(sch.trace().instructions.len(), steps);
        let print = |m: &IRModule| compiler_core::ir::printer::print_module(m, &Default::default());
        assert_eq!(print(sch.module()), print(&before));
    }
}

mod sampling {
    use compiler_core::schedule::*;
    use compiler_core::tvmscript::builder::parse_script;

    /// TVM 0.27's JSON of the same calls: the three attributes, the decision
    /// apart; unseeded samples keep the tail's factor.
    #[test]
    fn sample_partitioned_tile_json_and_samples() {
        let src = r#"
from tvm.script import tir as T
@T.prim_func
def main(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
    for i in range(64):
        with T.block("B"):
            vi = T.axis.spatial(64, i)
            B[vi] = A[vi] * T.float32(2)
"#;
        let module = parse_script(src).expect("parses").to_module();
        let mut sch = Schedule::new(module.clone()).expect("schedule");
        let b = sch.get_block("B", None).unwrap();
        let l = sch.get_loops(b).unwrap()[0];
        sch.sample_partitioned_tile(l, 3, 1, 2, Some(&[2, 4, 8]))
            .unwrap();
        assert_eq!(
            sch.trace().to_json_string(),
            r#"[[["GetSBlock", [], ["B", "main"], ["b0"]], ["GetLoops", ["b0"], [], ["l1"]], ["SamplePartitionedTile", ["l1"], [3, 1, 2], ["v2", "v3", "v4"]]], [[2, [2, 4, 8]]]]"#
        );
        for seed in 0..20 {
            let mut sch = Schedule::with_seed(module.clone(), seed).expect("schedule");
            let b = sch.get_block("B", None).unwrap();
            let l = sch.get_loops(b).unwrap()[0];
            let t = sch.sample_partitioned_tile(l, 3, 1, 4, None).unwrap();
            let f: Vec<i64> = t.iter().map(|v| sch.get_value(*v).unwrap()).collect();
            assert_eq!(f.iter().product::<i64>(), 64, "{f:?}");
            assert_eq!((f[1] * f[2]) % 4, 0, "{f:?}");
        }
    }
}
