//! The whole tuning loop (what `ms.tune_tir` runs): batches from a
//! [`TuneSession`], measured by a [`Runner`]; every candidate that would
//! become the new best is first checked numerically, and a wrong one is
//! recorded as failed (a tuner never returns a wrong program). Progress is
//! reported as TVM's log lines and task table.

use compiler_core::schedule::Schedule;

use crate::error::TuneError;
use crate::runner::{MeasureResult, Runner};
use crate::search::{compile_tir, TuneSession};

/// What a tuning produced.
#[derive(Clone, Debug)]
pub struct TuneReport {
    /// The best program, as a schedule whose trace replays to it.
    pub best: Schedule,
    /// Its mean seconds per call.
    pub best_seconds: f64,
    /// Measurements made.
    pub trials: usize,
    /// Candidates that ran but computed wrong values (discarded), with why.
    pub wrong: Vec<String>,
    /// Candidates that failed to build or run.
    pub failed: usize,
}

/// Runs `session` to its trial budget, measuring with `runner`; `log`
/// receives each progress line.
pub fn tune(
    session: &mut TuneSession,
    runner: &mut Runner,
    log: &mut dyn FnMut(&str),
) -> Result<TuneReport, TuneError> {
    let name = session.workload().func_name.clone();
    let flops = session.workload().flops;
    log(&format!(
        "[task_scheduler.cc:159] Initializing Task #0: \"{name}\""
    ));
    log(&format!(
        "Total {} design space(s) generated",
        session.design_spaces().len()
    ));
    let initial = session
        .best()
        .map(|r| r.mean_seconds())
        .unwrap_or(f64::INFINITY);
    for line in task_table(&name, flops, initial, session.trials(), false).lines() {
        log(line);
    }
    let mut best = session
        .best()
        .map(|r| r.mean_seconds())
        .unwrap_or(f64::INFINITY);
    let mut wrong = Vec::new();
    let mut failed = 0;
    loop {
        let batch = session.next_batch();
        if batch.is_empty() {
            break;
        }
        log(&format!(
            "[task_scheduler.cc:180] TaskScheduler picks Task #0: \"{name}\""
        ));
        log(&format!(
            "[task_scheduler.cc:193] Sending {} sample(s) to builder",
            batch.len()
        ));
        log(&format!(
            "[task_scheduler.cc:195] Sending {} sample(s) to runner",
            batch.len()
        ));
        let mut results = Vec::with_capacity(batch.len());
        for c in &batch {
            let mut r = runner.measure(c.module());
            if let Some(t) = r.mean_seconds() {
                if t < best {
                    match runner.check(c.module()) {
                        Ok(()) => best = t,
                        Err(e) => {
                            let message = format!("wrong result: {e}");
                            log(&format!(
                                "[Task #0: \"{name}\"] candidate discarded, {message}"
                            ));
                            wrong.push(message.clone());
                            r = MeasureResult::Failed(message);
                        }
                    }
                }
            }
            if matches!(r, MeasureResult::Failed(_)) {
                failed += 1;
            }
            results.push(r);
        }
        session.report(&results);
        for line in task_table(&name, flops, best, session.trials(), false).lines() {
            log(line);
        }
    }
    log("[task_scheduler.cc:260] Task #0 has finished. Remaining task(s): 0");
    for (p, n) in &session.postproc_failures {
        log(&format!(
            "[Task #0: \"{name}\"] Postproc #{p}: {n} failure(s)"
        ));
    }
    let Some(best_schedule) = compile_tir(session.database(), session.workload(), session.target())
    else {
        return Err(TuneError::NoValidCandidate(
            session
                .first_failure()
                .unwrap_or("no candidate could be sampled")
                .to_string(),
        ));
    };
    let best_seconds = session.best().map(|r| r.mean_seconds()).unwrap_or(best);
    for line in task_table(&name, flops, best_seconds, session.trials(), true).lines() {
        log(line);
    }
    Ok(TuneReport {
        best: best_schedule,
        best_seconds,
        trials: session.trials(),
        wrong,
        failed,
    })
}

fn gflops(flops: f64, seconds: f64) -> f64 {
    if seconds.is_finite() && seconds > 0.0 {
        flops / seconds / 1e9
    } else {
        0.0
    }
}

/// TVM's task table for one task.
pub fn task_table(name: &str, flops: f64, seconds: f64, trials: usize, done: bool) -> String {
    let header = " ID | Name |    FLOP | Weight | Speed (GFLOPS) | Latency (us) | Weighted Latency (us) | Trials | Done ";
    let rule = "-".repeat(header.len());
    let (speed, latency) = if seconds.is_finite() {
        (
            format!("{:.4}", gflops(flops, seconds)),
            format!("{:.4}", seconds * 1e6),
        )
    } else {
        ("N/A".to_string(), "N/A".to_string())
    };
    let row = format!(
        "{:>3} | {} | {:>7} | {:>6} | {:>14} | {:>12} | {:>21} | {:>6} | {:>4} ",
        0,
        name,
        flops as i64,
        1,
        speed,
        latency,
        latency,
        trials,
        if done { "Y" } else { "" }
    );
    format!(
        "{header}\n{rule}\n{row}\n{rule}\nTotal trials: {trials}\nTotal latency (us): {}\n",
        if seconds.is_finite() {
            format!("{:.4}", seconds * 1e6)
        } else {
            "N/A".into()
        }
    )
}
