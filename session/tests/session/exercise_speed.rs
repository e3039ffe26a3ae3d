//! Speed checks in two halves: `begin_check` leaves the timing pending,
//! `complete_speed` turns measured times (or why there are none) into the
//! verdict. A host that times asynchronously (WebGPU in the page) and
//! `check_answer` (timing at once) show the same text for the same times.

use std::cell::Cell;
use std::rc::Rc;

use compiler_core::analysis::structural_equal::{assert_structural_equal, EqualOptions};
use compiler_core::target::{Host, NoClock, ReferenceBackend};
use tessel_session::exercise::{
    begin_check, check_answer, complete_speed, measure_speed, Check, CheckEnv, CheckKind, Exercise,
    PendingSpeed, SpeedError, SpeedTimes, Status,
};
use tessel_session::ScriptEnv;

fn vector_add(schedule: &str) -> String {
    format!(
        r#"import tvm
from tvm.script import tir as T

@tvm.script.ir_module
class M:
    @T.prim_func
    def main(A: T.Buffer((256,), "float32"),
             B: T.Buffer((256,), "float32"),
             C: T.Buffer((256,), "float32")) -> None:
        T.func_attr({{"global_symbol": "main", "tir.noalias": True}})
        for i in T.grid(256):
            with T.block("C"):
                vi = T.axis.remap("S", [i])
                C[vi] = A[vi] + B[vi]

# --- schedule ---
sch = tvm.tir.Schedule(M)
{schedule}"#
    )
}

fn bound(threads: u32) -> String {
    vector_add(&format!(
        "i, = sch.get_loops(sch.get_block(\"C\"))\n\
         i0, i1 = sch.split(i, [None, {threads}])\n\
         sch.bind(i0, \"blockIdx.x\")\n\
         sch.bind(i1, \"threadIdx.x\")\n"
    ))
}

fn exercise(target: &str) -> Exercise {
    Exercise {
        id: "speedy".into(),
        title: "Speedy".into(),
        statement: String::new(),
        starting_code: bound(1),
        hints: Vec::new(),
        solution: bound(64),
        alternatives: Vec::new(),
        function: "main".into(),
        target: target.into(),
        sizes: Vec::new(),
        checks: vec![Check {
            kind: CheckKind::Speed {
                baseline: bound(1),
                min_speedup: 1.5,
                runs: 3,
            },
            advice: Some("use more threads per block".into()),
        }],
    }
}

fn env(no_gpu: Option<&str>) -> CheckEnv {
    CheckEnv {
        script: ScriptEnv {
            host: Rc::new(NoClock),
            backend: Rc::new(ReferenceBackend::default()),
            limits: tessel_script::Limits::default(),
            take_notes: None,
        },
        no_gpu: no_gpu.map(str::to_string),
    }
}

fn pending_of(ex: &Exercise) -> PendingSpeed {
    let (verdict, pending) = begin_check(ex, &ex.solution, &env(None));
    assert_eq!(pending.len(), 1, "{}", verdict.render());
    pending.into_iter().next().unwrap()
}

fn ms(v: &[f64]) -> Vec<f64> {
    v.iter().map(|t| t / 1000.0).collect()
}

#[test]
fn a_speed_check_is_left_pending_with_what_to_time() {
    let ex = exercise("webgpu");
    let (verdict, pending) = begin_check(&ex, &ex.solution, &env(None));
    let p = &pending[0];
    assert_eq!(verdict.results[p.index].name, "speed");
    assert_eq!(verdict.results[0].status, Status::Passed, "the answer runs");
    assert!(p.is_gpu());
    assert_eq!((p.runs, p.min_speedup), (3, 1.5));
    assert_eq!(p.inputs.len(), 3);
    assert_eq!(p.inputs[0].shape(), [256]);
    // The answer's function is the scheduled one, the baseline its own.
    let differ = assert_structural_equal(&*p.student, &*p.baseline, EqualOptions::default());
    assert!(differ.is_err());
    assert_eq!(p.module(&p.student).names().collect::<Vec<_>>(), ["main"]);
}

#[test]
fn medians_of_the_times_pass_with_the_ratio_shown() {
    let p = pending_of(&exercise("webgpu"));
    let times = SpeedTimes {
        // Medians 3 ms and 1.5 ms, whatever the order and the outliers.
        baseline: ms(&[5.0, 2.0, 3.0]),
        student: ms(&[9.0, 1.0, 1.5]),
    };
    let r = complete_speed(&p, Ok(times));
    assert_eq!(r.status, Status::Passed);
    assert_eq!(
        r.message,
        "your function is 2.00x as fast as the baseline (needed 1.5x)"
    );
    assert_eq!(
        r.details,
        ["yours: 1.500 ms, baseline: 3.000 ms (median of 3 runs each): 2.00x"]
    );
}

#[test]
fn too_slow_fails_with_the_ratio_it_must_reach_and_the_advice() {
    let p = pending_of(&exercise("webgpu"));
    let times = SpeedTimes {
        baseline: ms(&[0.120, 0.110, 0.130]),
        student: ms(&[0.100, 0.100, 0.100]),
    };
    let r = complete_speed(&p, Ok(times));
    assert_eq!(r.status, Status::Failed);
    assert_eq!(
        r.message,
        "your function is 1.20x as fast as the baseline; it must reach 1.5x"
    );
    assert_eq!(
        r.details,
        [
            "yours: 100.0 µs, baseline: 120.0 µs (median of 3 runs each): 1.20x",
            "hint: use more threads per block"
        ]
    );
}

#[test]
fn failures_of_the_measurement_say_what_failed() {
    let p = pending_of(&exercise("webgpu"));
    let cases = [
        (
            SpeedError::Device("WebGPU did not finish within 60 s".into()),
            Status::Failed,
            "the GPU failed while timing your function: WebGPU did not finish within 60 s",
        ),
        (
            SpeedError::StudentRun("WebGPU error: bad binding".into()),
            Status::Failed,
            "your function failed to run: WebGPU error: bad binding",
        ),
        (
            SpeedError::BaselineBuild("too many threads".into()),
            Status::Failed,
            "the baseline does not build: too many threads",
        ),
        (
            SpeedError::Unavailable("this browser has no WebGPU".into()),
            Status::Skipped,
            "this browser has no WebGPU, so the speed of GPU code cannot be measured",
        ),
    ];
    for (error, status, message) in cases {
        let r = complete_speed(&p, Err(error));
        assert_eq!((r.status, r.message.as_str()), (status, message));
        let hinted = r.details.iter().any(|d| d.starts_with("hint: "));
        assert_eq!(hinted, status == Status::Failed, "{:?}", r.details);
    }
    // No clock: the times are all zero.
    let zero = SpeedTimes {
        baseline: vec![0.0; 3],
        student: vec![0.0; 3],
    };
    let r = complete_speed(&p, Ok(zero));
    assert_eq!(r.status, Status::Skipped);
    assert_eq!(r.message, "this host has no clock to time code with");
}

#[test]
fn the_completed_verdict_is_the_one_check_answer_gives() {
    // Without a GPU, check_answer skips; completing the pending check with
    // the same reason gives the same text.
    let ex = exercise("webgpu");
    let why = "no WebGPU on this device";
    let direct = check_answer(&ex, &ex.solution, &env(Some(why)));
    let (mut verdict, pending) = begin_check(&ex, &ex.solution, &env(Some(why)));
    for p in &pending {
        verdict.complete_speed(p, Err(SpeedError::Unavailable(why.into())));
    }
    assert_eq!(verdict, direct);
    assert!(direct.render().contains(
        "SKIP speed: no WebGPU on this device, so the speed of GPU code cannot be measured"
    ));
}

/// A clock that moves 1 ms per reading: each untimed run takes 1 ms.
struct Ticks(Cell<f64>);

impl Host for Ticks {
    fn now_seconds(&self) -> f64 {
        self.0.set(self.0.get() + 1e-3);
        self.0.get()
    }
}

#[test]
fn measuring_at_once_times_both_runs_times_each() {
    let ex = exercise("llvm");
    let p = pending_of(&ex);
    let times = measure_speed(
        &p,
        &ReferenceBackend::default(),
        &Ticks(Cell::new(0.0)),
        1 << 30,
    )
    .expect("the reference backend runs both");
    assert_eq!(times.baseline.len(), 3);
    assert_eq!(times.student.len(), 3);
    assert!(times
        .baseline
        .iter()
        .chain(&times.student)
        .all(|t| (t - 1e-3).abs() < 1e-9));
    let r = complete_speed(&p, Ok(times));
    assert_eq!(
        r.message,
        "your function is 1.00x as fast as the baseline; it must reach 1.5x"
    );
    // check_answer times with the host's clock the same way.
    let mut with_ticks = env(None);
    with_ticks.script.host = Rc::new(Ticks(Cell::new(0.0)));
    let v = check_answer(&ex, &ex.solution, &with_ticks);
    assert_eq!(v.results[p.index], r);
}
