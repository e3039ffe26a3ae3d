//! What the playground's two compiler workers share: answering the requests
//! that need no code generator, and (in the browser) the message loop.
//!
//! The page first starts the *core* worker (`src/bin/core_worker.rs`):
//! compiler, interpreter, session driver and exercise checker, without the
//! wasm and WGSL code generators and their validators, which are over a
//! third of the full worker's size. A request that needs a backend (a Run
//! on the CPU or GPU, generated code, a script whose `tvm.build` targets
//! the CPU) gets [`Response::NeedsBackends`]; the UI then starts the full
//! worker (`src/bin/worker.rs`) and sends it there.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use tessel_session::LiveSession;

use crate::engine;
use crate::protocol::{Request, Response};

thread_local! {
    /// This worker's live session: the last script compiled or opened.
    static LIVE: RefCell<Option<Rc<LiveSession>>> = const { RefCell::new(None) };
}

/// The live session `revision`, when it is this worker's.
fn live_session(revision: u64) -> Option<Rc<LiveSession>> {
    LIVE.with(|l| l.borrow().clone())
        .filter(|s| s.revision() == revision)
}

/// Runs `source` once as session `revision` and keeps it, unless the
/// script needs the code generators (then this worker hands it over and
/// keeps nothing).
fn open_session(revision: u64, source: String, needs_codegen: &Cell<bool>) -> Rc<LiveSession> {
    let live = Rc::new(LiveSession::open(revision, source, &engine::script_env()));
    let keep = (!needs_codegen.get()).then(|| live.clone());
    LIVE.with(|l| *l.borrow_mut() = keep);
    live
}

/// A request only the full worker can answer.
#[derive(Debug)]
pub enum BackendRequest {
    /// A run on the CPU or GPU backend.
    Run {
        id: u64,
        live: Rc<LiveSession>,
        backend: String,
        repeats: u32,
    },
    /// Generated code.
    Code {
        id: u64,
        live: Rc<LiveSession>,
        step: usize,
        backend: String,
    },
    /// A tuning of the session's function (`job`: a `tuning::TuneSpec` as
    /// JSON), measured on the CPU or GPU backend.
    Tune {
        id: u64,
        live: Rc<LiveSession>,
        job: String,
    },
    /// A memory picture: not needed by a first load, so left out of the
    /// core worker.
    MemoryAccess {
        id: u64,
        live: Rc<LiveSession>,
        step: usize,
        func: String,
        unit: String,
        loop_index: Option<usize>,
        at: i64,
        playing: bool,
    },
    /// The Device or Progress panel, or the progress file: not needed by
    /// a first load either (`ask`: a `PanelAsk` as JSON).
    Panel { id: u64, ask: String },
}

impl BackendRequest {
    pub fn id(&self) -> u64 {
        match self {
            BackendRequest::Run { id, .. }
            | BackendRequest::Code { id, .. }
            | BackendRequest::Tune { id, .. }
            | BackendRequest::MemoryAccess { id, .. }
            | BackendRequest::Panel { id, .. } => *id,
        }
    }
}

/// Answers `req` with no code generator: compiles, loop regions, exercise
/// checks, runs on the reference interpreter.
/// Requests that need a backend come back as `Err`. Scripts run with the
/// platform's `tvm.build` backend; where that is
/// [`engine::deferred_scripts`] over `needs_codegen`, a script that builds
/// for the CPU sets the flag, and the answer is `NeedsBackends`.
pub fn answer_without_codegen(
    req: Request,
    now: &dyn Fn() -> f64,
    needs_codegen: &Cell<bool>,
) -> Result<Response, BackendRequest> {
    needs_codegen.set(false);
    let started = now();
    let id = req.id();
    let response = match req {
        Request::Compile {
            id,
            revision,
            source,
        } => {
            let live = open_session(revision, source, needs_codegen);
            let mut outcome = engine::compile(&live);
            outcome.millis = now() - started;
            Response::Compiled { id, outcome }
        }
        Request::Open {
            id,
            revision,
            source,
        } => {
            open_session(revision, source, needs_codegen);
            Response::Opened { id }
        }
        Request::Check {
            id,
            exercise,
            definition,
            source,
        } => match crate::exercise::begin(&exercise, &definition, &source, now) {
            // Timing GPU code takes the WGSL generator and WebGPU: the full
            // worker checks it again and times it.
            Ok(begun) if !begun.pending.is_empty() => return Ok(Response::NeedsBackends { id }),
            Ok(begun) => Response::Checked {
                id,
                outcome: crate::exercise::finish(begun, Vec::new(), None, now),
            },
            Err(outcome) => Response::Checked { id, outcome },
        },
        Request::Panel { id, ask } | Request::ProgressFile { id, ask } => {
            return Err(BackendRequest::Panel { id, ask })
        }
        // The rest ask about a live session.
        req => {
            let Some(live) = req.revision().and_then(live_session) else {
                return Ok(Response::NeedsSource { id });
            };
            match req {
                Request::Run {
                    id,
                    backend,
                    repeats,
                    ..
                } if backend == "interpreter" => Response::Ran {
                    id,
                    outcome: engine::run_reference(&live, repeats.clamp(1, 50), now),
                },
                Request::Regions {
                    id,
                    step,
                    func,
                    loop_index,
                    at,
                    ..
                } => Response::Regions {
                    id,
                    outcome: engine::regions(&live, step, &func, loop_index, at),
                },
                Request::Run {
                    id,
                    backend,
                    repeats,
                    ..
                } => {
                    return Err(BackendRequest::Run {
                        id,
                        live,
                        backend,
                        repeats,
                    })
                }
                Request::Code {
                    id, step, backend, ..
                } => {
                    return Err(BackendRequest::Code {
                        id,
                        live,
                        step,
                        backend,
                    })
                }
                Request::Tune { id, job, .. } => {
                    return Err(BackendRequest::Tune { id, live, job })
                }
                Request::MemoryAccess {
                    id,
                    step,
                    func,
                    unit,
                    loop_index,
                    at,
                    playing,
                    ..
                } => {
                    return Err(BackendRequest::MemoryAccess {
                        id,
                        live,
                        step,
                        func,
                        unit,
                        loop_index,
                        at,
                        playing,
                    })
                }
                // Answered above.
                Request::Compile { .. }
                | Request::Open { .. }
                | Request::Check { .. }
                | Request::Panel { .. }
                | Request::ProgressFile { .. } => return Ok(Response::NeedsSource { id }),
            }
        }
    };
    Ok(if needs_codegen.replace(false) {
        Response::NeedsBackends { id }
    } else {
        response
    })
}

/// The worker's message loop: posts `Ready`, then hands each request (JSON)
/// to `handle` with a way to reply (now or, for asynchronous work, later)
/// and the worker's clock in milliseconds.
#[cfg(target_arch = "wasm32")]
pub fn serve(handle: impl Fn(Request, std::rc::Rc<dyn Fn(&Response)>, &dyn Fn() -> f64) + 'static) {
    use std::rc::Rc;
    use wasm_bindgen::prelude::*;
    use wasm_bindgen::JsCast;
    use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

    let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let now = crate::cpu_rt::perf_now;
    let reply_to = scope.clone();
    let post: Rc<dyn Fn(&Response)> = Rc::new(move |resp: &Response| {
        if let Ok(text) = serde_json::to_string(resp) {
            let _ = reply_to.post_message(&JsValue::from_str(&text));
        }
    });
    post(&Response::Ready);
    let onmessage = Closure::<dyn FnMut(MessageEvent)>::new(move |ev: MessageEvent| {
        let Some(text) = ev.data().as_string() else {
            return;
        };
        match serde_json::from_str::<Request>(&text) {
            Ok(req) => handle(req, post.clone(), &now),
            Err(e) => web_sys::console::warn_1(&format!("worker: bad request: {e}").into()),
        }
    });
    scope.set_onmessage(Some(onmessage.as_ref().unchecked_ref()));
    onmessage.forget();
}

/// The clock of Python scripts (`time.time()`, `time_evaluator`) in a worker.
#[cfg(target_arch = "wasm32")]
pub struct PerfClock;

#[cfg(target_arch = "wasm32")]
impl compiler_core::target::Host for PerfClock {
    fn now_seconds(&self) -> f64 {
        crate::cpu_rt::perf_now() / 1000.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MM: &str = include_str!("../../compiler-core/tests/data/seeds/seed004_01_mm_relu.py");

    fn deferred() -> Rc<Cell<bool>> {
        let flag = Rc::new(Cell::new(false));
        engine::set_platform(engine::Platform {
            scripts: Some(engine::deferred_scripts(
                flag.clone(),
                Err("no WebGPU in tests".into()),
            )),
            ..engine::Platform::default()
        });
        flag
    }

    #[test]
    fn compiles_without_codegen_and_hands_over_backend_requests() {
        let flag = deferred();
        let ok = answer_without_codegen(
            Request::Compile {
                id: 7,
                revision: 1,
                source: MM.to_string(),
            },
            &|| 0.0,
            &flag,
        );
        assert!(
            matches!(&ok, Ok(Response::Compiled { id: 7, outcome }) if !outcome.steps.is_empty()),
            "{ok:?}"
        );
        let run = Request::Run {
            id: 8,
            revision: 1,
            backend: "wasm".into(),
            repeats: 1,
        };
        assert!(matches!(
            answer_without_codegen(run, &|| 0.0, &flag),
            Err(BackendRequest::Run { id: 8, .. })
        ));
        let reference = Request::Run {
            id: 9,
            revision: 1,
            backend: "interpreter".into(),
            repeats: 1,
        };
        match answer_without_codegen(reference, &|| 0.0, &flag) {
            Ok(Response::Ran { id: 9, outcome }) => assert_eq!(outcome.matches, Some(true)),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_gpu_exercise_with_a_speed_check_is_checked_by_the_full_worker() {
        let flag = deferred();
        let exercises = tessel_course::bundled().unwrap();
        let check = |id: &str, n: u64| {
            let ex = exercises.iter().find(|e| e.id == id).unwrap();
            let req = Request::Check {
                id: n,
                exercise: id.into(),
                definition: tessel_course::page_exercise_json(ex),
                source: ex.starting_code.clone(),
            };
            answer_without_codegen(req, &|| 0.0, &flag)
        };
        let resp = check("gpu-shared-memory", 5);
        assert!(
            matches!(resp, Ok(Response::NeedsBackends { id: 5 })),
            "{resp:?}"
        );
        // A GPU exercise without a speed check is checked here.
        let resp = check("gpu-bind", 6);
        assert!(
            matches!(&resp, Ok(Response::Checked { id: 6, outcome }) if !outcome.passed),
            "{resp:?}"
        );
    }

    #[test]
    fn a_script_building_for_the_cpu_needs_the_backends() {
        let flag = deferred();
        let source = format!(
            "{MM}\nimport numpy as np\nlib = tvm.build(MyModule, target=\"llvm\")\nprint('built')\n"
        );
        let resp = answer_without_codegen(
            Request::Compile {
                id: 3,
                revision: 1,
                source,
            },
            &|| 0.0,
            &flag,
        );
        assert!(
            matches!(resp, Ok(Response::NeedsBackends { id: 3 })),
            "{resp:?}"
        );
        assert!(!flag.get(), "the flag is reset for the next request");
        // Where scripts cannot reach WebGPU, a GPU target runs on the
        // interpreter here: no handover.
        let gpu = format!("{MM}\nlib = tvm.build(MyModule, target=\"cuda\")\n");
        let resp = answer_without_codegen(
            Request::Compile {
                id: 4,
                revision: 2,
                source: gpu.clone(),
            },
            &|| 0.0,
            &flag,
        );
        assert!(
            matches!(resp, Ok(Response::Compiled { id: 4, .. })),
            "{resp:?}"
        );
        // Where they can, it moves to the full worker, whose GPU bridge
        // runs the kernels.
        engine::set_platform(engine::Platform {
            scripts: Some(engine::deferred_scripts(flag.clone(), Ok(()))),
            ..engine::Platform::default()
        });
        let resp = answer_without_codegen(
            Request::Compile {
                id: 5,
                revision: 3,
                source: gpu,
            },
            &|| 0.0,
            &flag,
        );
        assert!(
            matches!(resp, Ok(Response::NeedsBackends { id: 5 })),
            "{resp:?}"
        );
    }

    /// The book's ch.2 schedule as notebook cells (Python mode).
    fn notebook() -> String {
        format!(
            "import tvm\n{MM}\n# %%\nsch = tvm.tir.Schedule(MyModule)\n\
             block_Y = sch.get_block(\"Y\", func_name=\"mm_relu\")\n\
             i, j, k = sch.get_loops(block_Y)\n\
             j0, j1 = sch.split(j, factors=[None, 4])\n\
             sch.reorder(j0, k, j1)\n\
             # %%\nblock_C = sch.get_block(\"C\", \"mm_relu\")\n\
             sch.reverse_compute_at(block_C, j0)\n"
        )
    }

    #[test]
    fn an_edit_parses_once_and_a_click_code_or_run_parses_nothing() {
        use tessel_session::SessionCounts;
        engine::set_platform(engine::Platform::default());
        let flag = Cell::new(false);
        let before = SessionCounts::now();
        let compiled = answer_without_codegen(
            Request::Compile {
                id: 1,
                revision: 7,
                source: notebook(),
            },
            &|| 0.0,
            &flag,
        );
        let steps = match &compiled {
            Ok(Response::Compiled { outcome, .. }) => outcome.steps.len(),
            other => panic!("{other:?}"),
        };
        assert_eq!(steps, 4, "original, split, reorder, reverse_compute_at");
        let edit = SessionCounts::since(before);
        let live = live_session(7).expect("the worker keeps the session");
        let traced = live
            .outcome()
            .trace
            .as_ref()
            .map_or(0, |t| t.instructions.len());
        assert_eq!(edit.script_runs, 1, "an edit parses the script once");
        assert_eq!(
            edit.primitives_applied, traced as u64,
            "and applies each primitive once (no replay for the step-through)"
        );

        // A loop click (the regions of j0 at the last step), Code and Run.
        let click = SessionCounts::now();
        let regions = answer_without_codegen(
            Request::Regions {
                id: 2,
                revision: 7,
                step: 3,
                func: "mm_relu".into(),
                loop_index: 1,
                at: 0,
            },
            &|| 0.0,
            &flag,
        );
        assert!(
            matches!(&regions, Ok(Response::Regions { outcome, .. }) if !outcome.regions.is_empty()),
            "{regions:?}"
        );
        assert_eq!(SessionCounts::since(click), SessionCounts::default());

        let code = SessionCounts::now();
        let Err(BackendRequest::Code { live, step, .. }) = answer_without_codegen(
            Request::Code {
                id: 3,
                revision: 7,
                step: 3,
                backend: "wasm".into(),
            },
            &|| 0.0,
            &flag,
        ) else {
            panic!("Code goes to the code generators")
        };
        let shown = engine::code(&live, step, "wasm");
        assert!(shown.code.contains("(module"), "{:?}", shown.error);
        assert_eq!(SessionCounts::since(code), SessionCounts::default());

        let run = SessionCounts::now();
        match answer_without_codegen(
            Request::Run {
                id: 4,
                revision: 7,
                backend: "interpreter".into(),
                repeats: 1,
            },
            &|| 0.0,
            &flag,
        ) {
            Ok(Response::Ran { outcome, .. }) => assert_eq!(outcome.matches, Some(true)),
            other => panic!("{other:?}"),
        }
        assert_eq!(SessionCounts::since(run), SessionCounts::default());

        // Tune names the revision too: the tuning is built from the session.
        let tune = SessionCounts::now();
        let job = r#"{"target": "wasm", "trials": 1, "stored": ""}"#;
        let Err(BackendRequest::Tune { live, job, .. }) = answer_without_codegen(
            Request::Tune {
                id: 6,
                revision: 7,
                job: job.into(),
            },
            &|| 0.0,
            &flag,
        ) else {
            panic!("Tune goes to the code generators")
        };
        let spec: crate::tuning::TuneSpec = serde_json::from_str(&job).unwrap();
        let tuning = crate::tuning::TuneJob::new(&live, &spec.target, spec.trials, &[]);
        assert!(tuning.is_ok(), "{:?}", tuning.err());
        assert_eq!(SessionCounts::since(tune).script_runs, 0);

        // Another revision is not this worker's: it asks for the source.
        let stale = answer_without_codegen(
            Request::Regions {
                id: 5,
                revision: 8,
                step: 0,
                func: "mm_relu".into(),
                loop_index: 0,
                at: 0,
            },
            &|| 0.0,
            &flag,
        );
        assert!(
            matches!(stale, Ok(Response::NeedsSource { id: 5 })),
            "{stale:?}"
        );
    }

    #[test]
    fn the_first_workers_backend_reports_its_code_generators_as_not_loaded() {
        use compiler_core::ir::IRModule;
        use compiler_core::target::{BuildError, BuildOptions, GpuKind, Target, TargetKind};
        let flag = Rc::new(Cell::new(false));
        let make = engine::deferred_scripts(flag.clone(), Err("no WebGPU in tests".into()));
        let (backend, _notes) = make();
        let built = backend.build(&IRModule::new(), &Target::llvm(), &BuildOptions::default());
        let Some(e) = built.err() else {
            panic!("a CPU build succeeded without the code generators");
        };
        assert!(
            matches!(
                e,
                BuildError::BackendNotLoaded {
                    kind: TargetKind::Cpu(_)
                }
            ),
            "{e:?}"
        );
        assert_eq!(
            e.to_string(),
            "the CPU code generator is not loaded in this worker"
        );
        assert!(flag.get(), "the worker learns that the request moves");
        // Scripts here cannot reach WebGPU: GPU builds stay on the
        // interpreter, with nothing to hand over.
        flag.set(false);
        assert!(backend
            .ensure_loaded(TargetKind::Gpu(GpuKind::Cuda))
            .is_ok());
        assert!(!flag.get());
    }
}
