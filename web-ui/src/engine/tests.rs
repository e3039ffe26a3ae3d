//! The engine's tests: compiling, stepping, regions, code and runs on the
//! course's programs, the gallery, rich output and the backends.

use super::run::threads_line;
use super::*;
use codegen_wgsl::source_only::KernelRunner;
use codegen_wgsl::WgslFunc;
use compiler_core::eval::NDArray;

mod basics {
    use super::*;

    const MM: &str = include_str!("../../../compiler-core/tests/data/seeds/seed004_01_mm_relu.py");

    fn book() -> String {
        format!(
            "{MM}\n# --- schedule ---\nsch = tvm.tir.Schedule(MyModule)\n\
             block_Y = sch.get_block(\"Y\", func_name=\"mm_relu\")\n\
             i, j, k = sch.get_loops(block_Y)\n\
             j0, j1 = sch.split(j, factors=[None, 4])\n\
             sch.reorder(j0, k, j1)\n\
             block_C = sch.get_block(\"C\", \"mm_relu\")\n\
             sch.reverse_compute_at(block_C, j0)\n\
             block_Y = sch.get_block(\"Y\", \"mm_relu\")\n\
             sch.decompose_reduction(block_Y, k)\n"
        )
    }

    #[test]
    fn runs_and_matches() {
        let out = run(&live(&book()), "interpreter", 1, &|| 0.0);
        assert!(out.ok, "{}", out.message);
        assert_eq!(out.matches, Some(true));
        assert!(out.flops.unwrap() > 4.0e6);
    }

    #[test]
    fn error_span_in_schedule() {
        let src = format!("{MM}\n# --- schedule ---\nsch.get_block(\"nope\")\n");
        let out = compile(&live(&src));
        assert_eq!(out.errors.len(), 1);
        let e = &out.errors[0];
        assert_eq!(
            &src[e.from as usize..e.to as usize],
            "sch.get_block(\"nope\")"
        );
    }

    #[test]
    fn regions_of_j0() {
        let src = book();
        let out = compile(&live(&src));
        let nest = &out.steps[3].nests[0];
        let j0 = nest.loops.iter().position(|l| l.name == "j_0").unwrap();
        let r = regions(&live(&src), 3, "mm_relu", j0, 1);
        let texts: Vec<&str> = r.regions.iter().map(|r| r.text.as_str()).collect();
        assert!(texts.contains(&"A[i, 0:128]"), "{texts:?}");
        let b = r.regions.iter().find(|r| r.buffer == "B").unwrap();
        assert_eq!(b.concrete, Some(vec![(0, 128), (4, 4)]));
    }

    /// The memory picture of j_0 reads the cells the regions name, and
    /// offers the units that apply.
    #[test]
    fn memory_picture_of_j0() {
        let src = book();
        let out = compile(&live(&src));
        let nest = &out.steps[3].nests[0];
        let j0 = nest.loops.iter().position(|l| l.name == "j_0").unwrap();
        let m = memory_access(&live(&src), 3, "mm_relu", "iteration", Some(j0), 1, false);
        assert_eq!(m.error, None);
        assert_eq!(
            (m.steps, m.label.as_str(), m.units.clone()),
            (32, "j_0 = 1", vec!["iteration".to_string()])
        );
        // The grid of B: the cells the regions name, read.
        let region = regions(&live(&src), 3, "mm_relu", j0, 1);
        let conc = region
            .regions
            .iter()
            .find(|r| r.buffer == "B")
            .unwrap()
            .concrete
            .clone();
        let (rows, cols) = (conc.as_ref().unwrap()[0], conc.as_ref().unwrap()[1]);
        let expected: Vec<String> = (rows.0..rows.0 + rows.1)
            .flat_map(|r| (cols.0..cols.0 + cols.1).map(move |c| format!("{r},{c}")))
            .collect();
        let drawn: Vec<String> = m
            .html
            .split("data-buffer=\"B\" data-index=\"")
            .skip(1)
            .map(|rest| {
                let (index, rest) = rest.split_once('"').unwrap();
                assert!(rest.starts_with(" data-touched=\"read\""), "{rest}");
                index.to_string()
            })
            .collect();
        assert_eq!(drawn, expected);
        assert!(m.html.contains("<tr data-scope=\"global\"><td>global</td><td class=\"loads\">1540</td><td class=\"stores\">520</td></tr>"));
        // The controls: the slider over j_0's 32 iterations, j_0 chosen.
        assert!(m
            .html
            .contains("id=\"memory-slider\" min=\"0\" max=\"31\" value=\"1\""));
        assert!(m.html.contains(&format!(
            "<option value=\"{j0}\" selected>j_0 × 32</option>"
        )));
        assert!(m.html.contains(
            "<span class=\"small\" id=\"memory-label\">iteration 1 of 32: j_0 = 1</span>"
        ));
        // A thread of a CPU function is refused with a reason.
        let t = memory_access(&live(&src), 3, "mm_relu", "thread", Some(j0), 0, false);
        assert!(t.error.unwrap().contains("no thread here"));
        assert!(
            t.html.contains("id=\"memory-error\">no thread here"),
            "{}",
            t.html
        );
    }
}

mod gallery_tests {
    use super::*;
    use crate::examples::all as examples;

    /// Every gallery example compiles without a panic; the book's and the
    /// course's programs and schedules compile without errors.
    #[test]
    fn every_example_compiles() {
        let mut failures = Vec::new();
        for ex in examples() {
            let source = crate::examples::source(ex.id).unwrap();
            let out = compile(&live(source));
            let clean = matches!(
                ex.category,
                "Book schedules" | "Course programs" | "Course schedules"
            );
            let pending = source.contains("# --- expect-error");
            if clean && !pending && !out.errors.is_empty() {
                failures.push(format!("{}: {}", ex.id, out.console));
            }
        }
        assert!(
            failures.is_empty(),
            "{} examples fail:\n{}",
            failures.len(),
            failures.join("\n")
        );
        assert!(examples().len() > 250, "{} examples", examples().len());
        // The tensorize cases carry their intrinsic as a section.
        let out = compile(&live(
            crate::examples::source("tensorize_book").expect("tensorize_book"),
        ));
        assert!(out.errors.is_empty(), "{}", out.console);
        assert!(
            out.steps.last().unwrap().ir.contains("tmm16"),
            "{}",
            out.steps.last().unwrap().ir
        );
    }
}

mod rich_tests {
    use super::*;

    #[test]
    fn rich_display_reaches_the_console_as_typed_pieces() {
        let src = "from IPython.display import HTML, Markdown, Code, display\n\
                   print('é before')\n\
                   display(HTML('<b>bold</b>'))\n\
                   # %%\n\
                   Markdown('# Title')\n\
                   # %%\n\
                   Code('x = 1', language='python')\n\
                   # %%\n\
                   raise ValueError('boom')\n";
        let out = compile(&live(src));
        let pieces: Vec<(String, &str)> = out
            .console_pieces()
            .into_iter()
            .map(|p| match p {
                ConsolePiece::Text(t) => ("text".to_string(), t),
                ConsolePiece::Rich(part, t) => (
                    format!("{}:{}", part.kind, part.language.as_deref().unwrap_or("-")),
                    t,
                ),
            })
            .collect();
        assert_eq!(pieces[0], ("text".into(), "é before\n"));
        assert_eq!(pieces[1], ("html:-".into(), "<b>bold</b>\n"));
        assert_eq!(pieces[2], ("markdown:-".into(), "# Title\n"));
        assert_eq!(pieces[3], ("code:python".into(), "x = 1\n"));
        assert_eq!(pieces[4].0, "text");
        assert!(pieces[4].1.contains("ValueError: boom"), "{:?}", pieces[4]);
        assert_eq!(pieces.len(), 5, "{pieces:?}");
        let json = serde_json::to_string(&out).unwrap();
        let back: CompileOutcome = serde_json::from_str(&json).unwrap();
        assert_eq!(back.rich, out.rich);
    }

    #[test]
    fn parts_out_of_the_text_or_order_stay_plain() {
        let part = |start, end| RichPart {
            start,
            end,
            kind: "html".into(),
            language: None,
        };
        let out = CompileOutcome {
            console: "aé<b>".into(),
            rich: vec![part(2, 3), part(3, 6), part(1, 6), part(4, 99)],
            ..CompileOutcome::default()
        };
        // 2..3 splits `é`; 1..6 overlaps the part before it; 4..99 runs out.
        assert_eq!(
            out.console_pieces(),
            vec![
                ConsolePiece::Text("aé"),
                ConsolePiece::Rich(&out.rich[1], "<b>"),
            ]
        );
    }
}

mod backend_tests {
    use super::*;

    const MM: &str = include_str!("../../../compiler-core/tests/data/seeds/seed004_01_mm_relu.py");

    fn scheduled() -> String {
        format!(
            "{MM}\n# --- schedule ---\n\
             block_Y = sch.get_block(\"Y\", func_name=\"mm_relu\")\n\
             i, j, k = sch.get_loops(block_Y)\n\
             j0, j1 = sch.split(j, factors=[None, 4])\n\
             sch.reorder(j0, k, j1)\n\
             sch.reverse_compute_at(sch.get_block(\"C\", \"mm_relu\"), j0)\n\
             sch.vectorize(j1)\n"
        )
    }

    fn wasmi_platform() {
        wasmi_platform_with(true);
    }

    /// wasmi standing in for an engine with relaxed SIMD or without (the
    /// code generator must then never emit it).
    fn wasmi_platform_with(relaxed_simd: bool) {
        set_platform(Platform::with_codegen(
            Some(Rc::new(|| {
                Box::new(codegen_wasm::runtime::WasmiRuntime::new())
                    as Box<dyn codegen_wasm::Runtime>
            })),
            None,
            None,
            relaxed_simd,
        ));
    }

    #[test]
    fn without_relaxed_simd_the_fma_backend_runs_plain_simd_with_a_note() {
        wasmi_platform_with(false);
        let out = run(&live(&scheduled()), WASM_FMA, 1, &|| 0.0);
        assert!(out.ok, "{}", out.message);
        assert_eq!(out.matches, Some(true), "{}", out.message);
        assert!(!out.timing.contains("relaxed-SIMD FMA"), "{}", out.timing);
        assert!(
            out.notes.iter().any(|n| n == NO_RELAXED_SIMD_NOTE),
            "{:?}",
            out.notes
        );
        // Exact comparison: nothing was fused.
        assert!(!out.message.contains("FMA"), "{}", out.message);
        let shown = code(&live(&scheduled()), usize::MAX, WASM_FMA);
        assert!(!shown.code.is_empty(), "{:?}", shown.error);
        assert!(!shown.code.contains("relaxed"), "{}", shown.code);
        assert!(
            shown.code.contains("f32x4"),
            "no SIMD at all:\n{}",
            shown.code
        );
        assert!(shown.notes.iter().any(|n| n == NO_RELAXED_SIMD_NOTE));
    }

    #[test]
    fn a_script_asking_for_relaxed_simd_gets_it_only_where_the_engine_has_it() {
        let src = "import tvm\nfrom tvm.script import tir as T\n\n\
@T.prim_func\ndef fma(A: T.Buffer((64,), \"float32\"), B: T.Buffer((64,), \"float32\"), C: T.Buffer((64,), \"float32\"), D: T.Buffer((64,), \"float32\")):\n    for i in range(64):\n        with T.block(\"D\"):\n            vi = T.axis.spatial(64, i)\n            D[vi] = C[vi] + A[vi] * B[vi]\n\n\
sch = tvm.tir.Schedule(fma)\n\
i = sch.get_loops(sch.get_block(\"D\"))[0]\n\
i0, i1 = sch.split(i, factors=[None, 4])\n\
sch.vectorize(i1)\n\
f = tvm.build(sch.mod, target=\"llvm -mattr=+relaxed-simd\")\n\
print(\"relaxed_madd\" in f.get_source(), \"f32x4.mul\" in f.get_source())\n";
        wasmi_platform_with(false);
        let out = compile(&live(src));
        assert!(out.console.contains("False True"), "{}", out.console);
        assert!(
            out.console
                .contains("which this WebAssembly engine does not have: built with plain SIMD128"),
            "{}",
            out.console
        );
        wasmi_platform_with(true);
        let out = compile(&live(src));
        assert!(out.console.contains("True False"), "{}", out.console);
        assert!(out.console.contains("relaxed-SIMD FMA"), "{}", out.console);
        assert!(!out.console.contains("plain SIMD128"), "{}", out.console);
    }

    #[test]
    fn threads_line_says_how_loops_ran_and_why_one_thread() {
        use codegen_wasm::runtime::{LaunchStats, Threading};
        let two = LaunchStats {
            launches: 1,
            chunks: 2,
            threads: 2,
        };
        assert_eq!(
            threads_line(&Threading::pool(2), &two, true),
            "2 threads: 1 parallel launch, 2 chunks on 2 threads"
        );
        let none = LaunchStats::default();
        assert_eq!(
            threads_line(&Threading::single("not isolated"), &none, true),
            "1 thread: parallel loops ran inline (not isolated)"
        );
        // No loop to split: no reason to give.
        assert_eq!(
            threads_line(&Threading::single("not isolated"), &none, false),
            "1 thread: no parallel loop"
        );
    }

    #[test]
    fn relaxed_fma_backend_fuses_and_still_matches() {
        wasmi_platform();
        let out = run(&live(&scheduled()), WASM_FMA, 1, &|| 0.0);
        assert!(out.ok, "{}", out.message);
        assert_eq!(out.matches, Some(true), "{}", out.message);
        assert!(out.timing.contains("relaxed-SIMD FMA"), "{}", out.timing);
        assert!(
            out.message.contains("FMA: tolerances widened"),
            "{}",
            out.message
        );
        let src = scheduled();
        let fused = code(&live(&src), usize::MAX, WASM_FMA);
        assert!(fused.code.contains("relaxed_madd"), "{}", fused.code);
        assert!(!code(&live(&src), usize::MAX, "wasm")
            .code
            .contains("relaxed_madd"));
    }

    #[test]
    fn cpu_backend_runs_and_matches() {
        wasmi_platform();
        // A clock that advances 1 ms per reading (one call per sample).
        let t = std::cell::Cell::new(0.0);
        let clock = || {
            t.set(t.get() + 1.0);
            t.get()
        };
        let out = run(&live(&scheduled()), "wasm", 2, &clock);
        assert!(out.ok, "{}", out.message);
        assert_eq!(out.matches, Some(true), "{}", out.message);
        // Two samples of 1 ms (seconds through the target layer's clock).
        assert_eq!(out.times_ms.len(), 2);
        assert!(
            out.times_ms.iter().all(|t| (t - 1.0).abs() < 1e-9),
            "{:?}",
            out.times_ms
        );
        assert!(out.timing.contains("1 call per sample"), "{}", out.timing);
        assert!(out.max_abs_err.unwrap() < 1e-3, "{:?}", out.max_abs_err);
        assert!(out.timing.contains("WebAssembly"));
        assert!(
            out.notes.iter().any(|n| n.contains("vectoriz")),
            "{:?}",
            out.notes
        );
    }

    #[test]
    fn cpu_backend_without_a_runtime_says_so() {
        set_platform(Platform::default());
        let out = run(&live(&scheduled()), "wasm", 1, &|| 0.0);
        assert!(!out.ok);
        assert!(out.message.contains("runtime"), "{}", out.message);
    }

    #[test]
    fn a_wrong_output_is_reported_with_its_error() {
        let mut setup = prepare_run(&live(&scheduled()), "wasm", &|| 0.0)
            .unwrap_or_else(|o| panic!("{}", o.message));
        let mut got = setup.plan.expected.clone();
        // Corrupt one element of the output C (the last parameter).
        let c = got.last_mut().unwrap();
        let v = c.get_flat_f64(5).unwrap();
        c.set_flat_f64(5, v + 0.5).unwrap();
        setup.out.times_ms = vec![1.0];
        let out = finish_run(setup, &got);
        assert_eq!(out.matches, Some(false));
        assert!(
            (out.max_abs_err.unwrap() - 0.5).abs() < 1e-6,
            "{:?}",
            out.max_abs_err
        );
        assert!(out.message.contains("differ"), "{}", out.message);
    }

    #[test]
    fn code_follows_the_step() {
        let src = scheduled();
        let last = code(&live(&src), usize::MAX, "wasm");
        assert!(last.error.is_none(), "{:?}", last.error);
        assert!(last.code.contains("(module"));
        assert!(
            last.code.contains("v128"),
            "the vectorized j_1 loop uses SIMD"
        );
        assert!(last.lowered.contains("j_0"));
        assert!(last.bytes.unwrap() > 0);
        let first = code(&live(&src), 0, "wasm");
        assert_eq!(first.step, 0);
        assert!(!first.lowered.contains("j_0"));
    }

    #[test]
    fn gpu_code_of_an_unbound_loop_is_an_error_naming_it() {
        let out = code(&live(&scheduled()), usize::MAX, "webgpu");
        let e = out.error.expect("an error");
        assert!(e.contains("loop") && e.contains("bind"), "{e}");
        assert!(out.code.is_empty());
    }

    #[test]
    fn gpu_code_of_a_bound_program() {
        let ex = crate::examples::find("book_gpu_vecadd_bind").expect("the example");
        assert_eq!(ex.backend, "webgpu");
        let out = code(
            &live(crate::examples::source(ex.id).unwrap()),
            usize::MAX,
            "webgpu",
        );
        assert!(out.error.is_none(), "{:?}", out.error);
        assert!(out.code.contains("@compute"), "{}", out.code);
        assert!(
            out.notes.iter().any(|n| n.contains("kernel")),
            "{:?}",
            out.notes
        );
        assert_eq!(crate::examples::find("mm_relu").unwrap().backend, "wasm");
    }

    #[test]
    fn script_tvm_build_llvm_uses_the_cpu_backend() {
        wasmi_platform();
        let src =
            include_str!("../../../compiler-core/tests/data/scripts/tutorial_tensorir_blitz.py");
        let out = compile(&live(src));
        assert!(
            out.console.contains("compiled to WebAssembly")
                && out.console.contains("running on this browser's CPU"),
            "{}",
            out.console
        );
        assert!(
            out.console.contains("[1. 2. 3. 4. 5. 6. 7. 8.]"),
            "{}",
            out.console
        );
    }

    /// Runs kernels on the reference interpreter, counting the calls (the
    /// browser's runner is `gpu_bridge`, tested end to end in e2e).
    #[derive(Default)]
    struct CountingRunner {
        calls: std::cell::Cell<usize>,
    }

    impl KernelRunner for CountingRunner {
        fn run(&self, f: &WgslFunc, args: &mut [NDArray], timed: u32) -> Result<Vec<f64>, String> {
            self.calls.set(self.calls.get() + 1);
            compiler_core::eval::run_prim_func(&f.func, args, &Default::default())
                .map_err(|e| e.to_string())?;
            Ok(vec![1e-3; timed as usize])
        }
    }

    #[test]
    fn script_gpu_build_runs_its_kernels_on_the_runner_and_shows_the_wgsl() {
        let runner = Rc::new(CountingRunner::default());
        let shared = runner.clone();
        set_platform(Platform::with_codegen(
            None,
            None,
            Some(Rc::new(move || Ok(shared.clone() as Rc<dyn KernelRunner>))),
            true,
        ));
        let src = "import tvm\nfrom tvm.script import tir as T\nimport numpy as np\n\n\
@T.prim_func\ndef main(A: T.Buffer((64,), \"float32\"), B: T.Buffer((64,), \"float32\")):\n    for i0 in T.thread_binding(2, thread=\"blockIdx.x\"):\n        for i1 in T.thread_binding(32, thread=\"threadIdx.x\"):\n            with T.block(\"B\"):\n                vi = T.axis.spatial(64, i0 * 32 + i1)\n                B[vi] = A[vi] * 2.0\n\n\
f = tvm.build(main, target=\"webgpu\")\n\
a = tvm.nd.array(np.arange(64).astype(\"float32\"))\nb = tvm.nd.array(np.zeros((64,)).astype(\"float32\"))\nf(a, b)\nprint(b.numpy()[:4])\n\
print(\"@compute\" in f.imported_modules[0].get_source())\n";
        let out = compile(&live(src));
        assert!(
            out.console
                .contains("compiled to WGSL, kernels running on this browser's WebGPU"),
            "{}",
            out.console
        );
        assert!(out.console.contains("[0. 2. 4. 6.]"), "{}", out.console);
        assert!(out.console.contains("True"), "{}", out.console);
        assert_eq!(runner.calls.get(), 1);
        // Without a runner (say, a page that is not cross-origin isolated),
        // the build runs on the interpreter and the note says why.
        set_platform(Platform::with_codegen(
            None,
            None,
            Some(Rc::new(|| Err("no WebGPU in this test".into()))),
            true,
        ));
        let out = compile(&live(src));
        assert!(
            out.console.contains(
                "compiled to WGSL, run on the reference interpreter here: no WebGPU in this test"
            ),
            "{}",
            out.console
        );
        assert!(out.console.contains("[0. 2. 4. 6.]"), "{}", out.console);
        assert!(out.console.contains("True"), "{}", out.console);
        assert_eq!(runner.calls.get(), 1);
    }

    #[test]
    fn script_gpu_target_falls_back_with_a_note() {
        wasmi_platform();
        let src = "import tvm\nfrom tvm.script import tir as T\nimport numpy as np\n\n\
@T.prim_func\ndef main(A: T.Buffer((4,), \"float32\"), B: T.Buffer((4,), \"float32\")):\n    for i in range(4):\n        with T.block(\"B\"):\n            vi = T.axis.spatial(4, i)\n            B[vi] = A[vi] * 2.0\n\n\
f = tvm.build(main, target=\"webgpu\")\n\
a = tvm.nd.array(np.arange(4).astype(\"float32\"))\nb = tvm.nd.array(np.zeros((4,)).astype(\"float32\"))\nf(a, b)\nprint(b)\n";
        let out = compile(&live(src));
        assert!(
            out.console.contains("reference interpreter here"),
            "{}",
            out.console
        );
        assert!(out.console.contains("[0. 2. 4. 6.]"), "{}", out.console);
    }
}
