//! The playground's Tune action: what the tuning worker does with a script
//! (the search of `tessel-tune`, measured on the CPU backend through the
//! target layer) and the pure parts the page uses around it.
//!
//! - [`TuneJob`] takes the script's original function as the workload,
//!   resumes from the records the page kept for it ([`store_key`]), and
//!   measures candidate by candidate with the tuner's [`Runner`] (every new
//!   best is checked numerically first), sending a [`TuneUpdate`] after each
//!   one: the new record's line for the page to keep, the progress panel
//!   rendered as HTML, the best schedule as calls.
//! - [`schedule_calls`]: a trace as the script's schedule is written
//!   (`sch.split(...)`), sampled values replaced by their decisions;
//!   [`apply_schedule`] puts such calls in place of a script's schedule.
//! - [`eta_seconds`] and [`render_panel`]: the progress bar, the time left
//!   and the plots (inline SVG).
//!
//! Records are kept by the page in IndexedDB (`record_store`), one entry
//! per workload and target: TVM's workload line, then one tuning-record
//! line per measured candidate (`database_workload.json` and
//! `database_tuning_record.json` in one text). A record is about 1–2 KB;
//! the page stores each line as it arrives, so stopping (which ends the
//! worker) loses nothing measured.

use std::collections::HashMap;
use std::fmt::Write as _;

use compiler_core::ir::{BaseFunc, IRModule};
use compiler_core::schedule::trace::{Instruction, Rv, TraceArg, TraceDialect};
use compiler_core::schedule::Trace;
use compiler_core::target::{Backend, Host};
use tessel_tune::search::compile_tir;
use tessel_tune::{
    Candidate, Database, MeasureResult, Runner, SearchConfig, SpaceGenerator, TuneSession,
    TuneTarget, TuningRecord, Workload,
};

use tessel_session::LiveSession;

use crate::engine::SCHEDULE_MARKER;
pub use crate::protocol::TuneUpdate;

/// The prefix of the page's stored records (under the page's `tessel.`).
pub const STORE_PREFIX: &str = "tune.";

/// What the page asks the tuning worker for.
#[derive(Clone, Debug, Default, PartialEq, serde::Deserialize)]
pub struct TuneSpec {
    /// `wasm` (see [`target_text`]).
    pub target: String,
    pub trials: u32,
    /// The page's stored records ([`join_stored`]).
    pub stored: String,
}

/// The page's stored entries (key, text) as one string: no key or record
/// line holds a control character (JSON escapes them).
pub fn join_stored(entries: &[(String, String)]) -> String {
    entries
        .iter()
        .map(|(k, v)| format!("{k}\u{1}{v}\u{0}"))
        .collect()
}

/// [`join_stored`]'s entries back.
pub fn split_stored(text: &str) -> Vec<(String, String)> {
    text.split('\u{0}')
        .filter_map(|e| e.split_once('\u{1}'))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// Candidates per search batch: small, so the model learns early.
pub const TRIALS_PER_BATCH: usize = 16;

/// The most trials one tuning may ask for.
pub const MAX_TRIALS: u32 = 2000;

/// The key of a workload's records on a target.
pub fn store_key(workload_hash: u64, target: &str) -> String {
    format!("{STORE_PREFIX}{workload_hash:016x}.{target}")
}

/// The tuner's target for the page's choice (`wasm` or `webgpu`: the CPU
/// backend on this browser's WebAssembly, or the GPU backend on its
/// WebGPU adapter).
pub fn target_text(choice: &str) -> Result<&'static str, String> {
    match choice {
        "wasm" => Ok("llvm --num-cores=1"),
        "webgpu" => Ok("webgpu"),
        other => Err(format!("unknown tuning target `{other}`")),
    }
}

/// Seconds left, from the trials done in `elapsed` seconds: the mean time
/// per trial so far times the trials left; `None` before the first trial.
pub fn eta_seconds(done: usize, total: usize, elapsed: f64) -> Option<f64> {
    if done == 0 || !elapsed.is_finite() || elapsed < 0.0 {
        return None;
    }
    Some(elapsed / done as f64 * total.saturating_sub(done) as f64)
}

/// `about 12 s left`, `about 2 min 5 s left`.
pub fn fmt_eta(seconds: Option<f64>) -> String {
    match seconds {
        None => "estimating the time left…".into(),
        Some(s) if s < 1.0 => "under a second left".into(),
        Some(s) if s < 60.0 => format!("about {} s left", s.round() as u64),
        Some(s) => {
            let s = s.round() as u64;
            format!("about {} min {} s left", s / 60, s % 60)
        }
    }
}

/// The trace as schedule calls, one per line, as a script's schedule is
/// written: sampled tile sizes and categorical choices become their
/// decided values (`sch.split(loop=l1, factors=[8, 16])`); other
/// samplings keep their `decision=`. Replaying the calls gives the
/// trace's program.
pub fn schedule_calls(trace: &Trace, dialect: TraceDialect) -> String {
    let mut values: HashMap<Rv, TraceArg> = HashMap::new();
    let mut out = String::new();
    for inst in &trace.instructions {
        if let Some(decided) = decided_values(inst) {
            for (rv, v) in inst.outputs.iter().zip(decided) {
                values.insert(*rv, v);
            }
            continue;
        }
        let mut inst = inst.clone();
        for (_, arg) in &mut inst.args {
            substitute(arg, &values);
        }
        let mut line = inst.python();
        if inst.name == "get_block" && dialect == TraceDialect::STir {
            line = line.replacen("sch.get_block(", "sch.get_sblock(", 1);
        }
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// The values a sampling instruction decided, one per output, when they
/// are plain numbers.
fn decided_values(inst: &Instruction) -> Option<Vec<TraceArg>> {
    let decision = inst.decision.as_ref()?;
    match inst.name.as_str() {
        "sample_perfect_tile" if decision.len() == inst.outputs.len() => {
            Some(decision.iter().map(|v| TraceArg::Int(*v)).collect())
        }
        "sample_categorical" if inst.outputs.len() == 1 && decision.len() == 1 => {
            let TraceArg::List(candidates) = inst.get("candidates")? else {
                return None;
            };
            let chosen = usize::try_from(decision[0]).ok()?;
            Some(vec![candidates.get(chosen)?.clone()])
        }
        _ => None,
    }
}

fn substitute(arg: &mut TraceArg, values: &HashMap<Rv, TraceArg>) {
    match arg {
        TraceArg::Rv(rv) => {
            if let Some(v) = values.get(rv) {
                *arg = v.clone();
            }
        }
        TraceArg::List(items) => items.iter_mut().for_each(|a| substitute(a, values)),
        _ => {}
    }
}

/// `source` with its schedule replaced by `calls`: everything after the
/// schedule's `sch = tvm.tir.Schedule(…)` line goes (the marker and that
/// line stay); a script without one gets the marker and a schedule of
/// `module` first.
pub fn apply_schedule(source: &str, calls: &str, module: &str) -> String {
    // The page carries this in its first load: a byte-window search, not
    // `str::contains`, whose substring searcher the page has no other use for.
    let has = |hay: &str, needle: &str| {
        hay.as_bytes()
            .windows(needle.len())
            .any(|w| w == needle.as_bytes())
    };
    let mut at = 0;
    for line in source.split_inclusive('\n') {
        at += line.len();
        if line.trim_start().starts_with("sch = ") && has(line, "Schedule(") {
            let mut out = source[..at].to_string();
            if !out.ends_with('\n') {
                out.push('\n');
            }
            out.push_str(calls);
            return out;
        }
    }
    let mut out = source.trim_end().to_string();
    out.push_str("\n\n");
    if !has(source, SCHEDULE_MARKER) {
        out.push_str(SCHEDULE_MARKER);
        out.push_str(" ---\n");
    }
    out.push_str("sch = tvm.tir.Schedule(");
    out.push_str(module);
    out.push_str(")\n");
    out.push_str(calls);
    out
}

/// The Tune action (static HTML: the page handles its clicks in one place,
/// sets its state through the DOM and shows the worker's panel in
/// `#tune-view`).
pub const CONTROLS_HTML: &str = "<details id=\"tune\" class=\"tune\"><summary>Tune: search for a fast schedule</summary><div class=\"tune-controls\"><label for=\"tune-target\">Target</label>\
<select id=\"tune-target\" class=\"tb\"><option value=\"wasm\">CPU (WebAssembly)</option>\
<option value=\"webgpu\" title=\"the GPU backend on this browser's WebGPU adapter\">GPU (WebGPU)</option></select>\
<label for=\"tune-trials\">Trials</label>\
<input id=\"tune-trials\" class=\"tb\" type=\"number\" min=\"1\" max=\"2000\" value=\"64\">\
<button id=\"tune-start\" class=\"tb primary\">Start</button>\
<button id=\"tune-apply\" class=\"tb\" disabled title=\"Replace the script's schedule with the best one found\">Apply</button></div><div id=\"tune-view\"></div></details>";

/// An error line for the panel (the page puts it above the worker's).
pub fn error_html(message: &str) -> String {
    format!(
        "<p id=\"tune-error\" class=\"verdict bad\">{}</p>",
        escape_html(message)
    )
}

/// One candidate on the plot.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Point {
    /// The cost model's score when it was proposed.
    pub predicted: f64,
    /// Measured GFLOPS (0 for a failure).
    pub gflops: f64,
}

/// What the progress panel shows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PanelData {
    pub done: usize,
    pub total: usize,
    pub elapsed: f64,
    /// The best GFLOPS after each trial of this tuning (0 before any).
    pub best_curve: Vec<f64>,
    /// Candidates proposed once the cost model was trained.
    pub predicted: Vec<Point>,
    /// Records this tuning started from.
    pub resumed: usize,
    pub failed: usize,
    /// What is happening (or how it ended).
    pub status: String,
    /// The best schedule so far, as calls.
    pub best_calls: Option<String>,
}

pub use crate::html::escape_html;

/// The panel's styles, with it (the page's stylesheet is in every first load).
const PANEL_STYLE: &str = "<style>.tune-bar{height:8px;border:1px solid var(--border);border-radius:4px;overflow:hidden;}.tune-bar > div{height:100%;background:var(--ok);}.tune-plot{width:320px;max-width:48%;height:auto;margin-right:0.5rem;}.tune-plot .ax{stroke:var(--muted);}.tune-plot .best{fill:none;stroke:var(--ok);stroke-width:2;}.tune-plot .cand{fill:var(--accent, #4a7bd0);opacity:0.7;}.tune-plot text{font-size:10px;fill:var(--muted);}#tune-best{max-height:12rem;overflow:auto;}</style>";

const PLOT_W: f64 = 320.0;
const PLOT_H: f64 = 140.0;
const PAD: f64 = 30.0;

/// The panel as HTML: a progress bar with trials done / total and the
/// time left, the best GFLOPS against trials, and measured against
/// predicted per candidate once the cost model is trained.
pub fn render_panel(p: &PanelData) -> String {
    let pct = if p.total > 0 {
        (p.done as f64 / p.total as f64 * 100.0).min(100.0)
    } else {
        0.0
    };
    let eta = if p.done >= p.total {
        format!("{:.1} s", p.elapsed)
    } else {
        fmt_eta(eta_seconds(p.done, p.total, p.elapsed))
    };
    let best = p.best_curve.last().copied().unwrap_or(0.0);
    let mut h = String::from(PANEL_STYLE);
    let _ = write!(
        h,
        "<div id=\"tune-progress\" class=\"tune-bar\" role=\"progressbar\" aria-valuemin=\"0\" aria-valuemax=\"{total}\" aria-valuenow=\"{done}\" data-done=\"{done}\" data-total=\"{total}\"><div style=\"width:{pct:.1}%\"></div></div>\
         <p class=\"small\" id=\"tune-count\">{done} / {total} trials · {eta} · best {best:.3} GFLOPS{resumed}{failed}</p>\
         <p class=\"small muted\" id=\"tune-status\">{status}</p>",
        total = p.total,
        done = p.done,
        eta = escape_html(&eta),
        resumed = if p.resumed > 0 {
            format!(" · resumed from {} records", p.resumed)
        } else {
            String::new()
        },
        failed = if p.failed > 0 {
            format!(" · {} failed", p.failed)
        } else {
            String::new()
        },
        status = escape_html(&p.status),
    );
    h.push_str(&best_plot(&p.best_curve, p.total));
    if !p.predicted.is_empty() {
        h.push_str(&model_plot(&p.predicted));
    }
    if let Some(calls) = &p.best_calls {
        let _ = write!(
            h,
            "<pre id=\"tune-best\" class=\"small\">{}</pre>",
            escape_html(calls)
        );
    }
    h
}

fn axes(h: &mut String, title: &str, x_label: &str, y_max: f64) {
    let _ = write!(
        h,
        "<text x=\"{PAD}\" y=\"12\" class=\"t\">{title}</text>\
         <line x1=\"{PAD}\" y1=\"{b}\" x2=\"{r}\" y2=\"{b}\" class=\"ax\"/>\
         <line x1=\"{PAD}\" y1=\"18\" x2=\"{PAD}\" y2=\"{b}\" class=\"ax\"/>\
         <text x=\"{r}\" y=\"{lb}\" class=\"l\" text-anchor=\"end\">{x_label}</text>\
         <text x=\"2\" y=\"26\" class=\"l\">{y_max:.1}</text>",
        b = PLOT_H - PAD + 10.0,
        r = PLOT_W - 4.0,
        lb = PLOT_H - 4.0,
    );
}

/// Plot coordinates of `(x, y)` in `[0, x_max] × [0, y_max]`.
fn at(x: f64, y: f64, x_max: f64, y_max: f64) -> (f64, f64) {
    let w = PLOT_W - PAD - 8.0;
    let hgt = PLOT_H - PAD - 8.0;
    let fx = if x_max > 0.0 { x / x_max } else { 0.0 };
    let fy = if y_max > 0.0 { y / y_max } else { 0.0 };
    (
        PAD + fx.clamp(0.0, 1.0) * w,
        18.0 + (1.0 - fy.clamp(0.0, 1.0)) * hgt,
    )
}

fn best_plot(curve: &[f64], total: usize) -> String {
    let y_max = curve.iter().copied().fold(0.0, f64::max).max(1e-9) * 1.1;
    let x_max = total.max(curve.len()).max(1) as f64;
    let mut h = format!(
        "<svg id=\"tune-plot\" class=\"tune-plot\" viewBox=\"0 0 {PLOT_W} {PLOT_H}\" role=\"img\" aria-label=\"best GFLOPS against trials\">"
    );
    axes(&mut h, "best GFLOPS", "trials", y_max);
    let points: Vec<String> = curve
        .iter()
        .enumerate()
        .filter(|(_, g)| **g > 0.0)
        .map(|(i, g)| {
            let (x, y) = at((i + 1) as f64, *g, x_max, y_max);
            format!("{x:.1},{y:.1}")
        })
        .collect();
    let _ = write!(
        h,
        "<polyline class=\"best\" points=\"{}\"/></svg>",
        points.join(" ")
    );
    h
}

fn model_plot(points: &[Point]) -> String {
    let y_max = points
        .iter()
        .map(|p| p.gflops)
        .fold(0.0, f64::max)
        .max(1e-9)
        * 1.1;
    let lo = points
        .iter()
        .map(|p| p.predicted)
        .fold(f64::INFINITY, f64::min);
    let hi = points
        .iter()
        .map(|p| p.predicted)
        .fold(f64::NEG_INFINITY, f64::max);
    let span = (hi - lo).max(1e-12);
    let mut h = format!(
        "<svg id=\"tune-model\" class=\"tune-plot\" viewBox=\"0 0 {PLOT_W} {PLOT_H}\" role=\"img\" aria-label=\"measured GFLOPS against the cost model's prediction\">"
    );
    axes(
        &mut h,
        "measured GFLOPS vs predicted score",
        "predicted",
        y_max,
    );
    for p in points {
        let (x, y) = at(p.predicted - lo, p.gflops, span, y_max);
        let _ = write!(
            h,
            "<circle class=\"cand\" cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"2.5\"/>"
        );
    }
    h.push_str("</svg>");
    h
}

/// A tuning in progress in the worker.
pub struct TuneJob {
    session: TuneSession,
    workload: Workload,
    target: TuneTarget,
    dialect: TraceDialect,
    key: String,
    module_name: String,
    /// The workload alone: each record's line is made from it plus the record.
    line_db: Database,
    /// Nothing was stored for this workload: the first update carries the
    /// workload line.
    fresh_store: bool,
    total: usize,
    panel: PanelData,
    best_seconds: f64,
    best_calls: Option<String>,
    /// The batch being measured, its results so far, and whether the cost
    /// model had been trained when it was proposed.
    batch: Vec<Candidate>,
    batch_results: Vec<MeasureResult>,
    trained: bool,
}

/// The stored text of a workload's records, as a database.
fn parse_store(text: &str) -> Result<Database, String> {
    let (workload, records) = text.split_once('\n').unwrap_or((text, ""));
    Database::from_json(workload, records).map_err(|e| e.to_string())
}

impl TuneJob {
    /// Prepares a tuning of the live session's function (its original,
    /// before any schedule: the script is not run again) for `target`
    /// (`wasm`), with `trials` measurements, from the records in `stored`
    /// (the page's entries under [`STORE_PREFIX`]).
    pub fn new(
        live: &LiveSession,
        target: &str,
        trials: u32,
        stored: &[(String, String)],
    ) -> Result<TuneJob, String> {
        if trials == 0 || trials > MAX_TRIALS {
            return Err(format!(
                "the number of trials must be between 1 and {MAX_TRIALS}, not {trials}"
            ));
        }
        let target = TuneTarget::parse(target_text(target)?).map_err(|e| e.to_string())?;
        let script = live.outcome();
        if let Some(d) = script.errors.iter().find(|d| d.is_error()) {
            return Err(format!(
                "the script has errors; fix them before tuning: {}",
                d.message
            ));
        }
        let original = &script
            .module_snapshots
            .first()
            .ok_or("the script defines no module to tune")?
            .module;
        let name = tessel_session::check::checked_function(script)
            .ok_or("the module has no function to tune")?;
        let func = original
            .get_prim(&name)
            .ok_or_else(|| format!("the module has no function `{name}`"))?;
        let mut single = IRModule::new();
        single.insert(name.clone(), BaseFunc::Prim(func.clone()));
        let workload = Workload::new(single).map_err(|e| e.to_string())?;
        let key = store_key(workload.hash, &target.spec.text);
        let stored_text = stored
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| v.as_str())
            .filter(|t| !t.trim().is_empty());
        // A store that does not parse (an older format) is started afresh.
        let database = stored_text
            .and_then(|t| parse_store(t).ok())
            .filter(|db| db.records_for(workload.hash, &target.spec.text).count() > 0);
        let fresh_store = database.is_none();
        let database = database.unwrap_or_default();
        let resumed = database
            .records_for(workload.hash, &target.spec.text)
            .count();
        let mut config = SearchConfig::new(trials as usize, TRIALS_PER_BATCH.min(trials as usize));
        // A resumed tuning draws other samples than the one before it.
        config.seed = 42 + resumed as u64;
        let mut space = SpaceGenerator::post_order_apply(&target);
        let session = TuneSession::new(
            workload.clone(),
            target.clone(),
            &mut space,
            database,
            config,
        )
        .map_err(|e| e.to_string())?;
        let mut line_db = Database::new();
        line_db.commit_workload(&workload);
        let mut job = TuneJob {
            dialect: script.trace_dialect,
            module_name: module_name(live.source()),
            key,
            line_db,
            fresh_store,
            total: trials as usize,
            panel: PanelData {
                total: trials as usize,
                resumed,
                status: "searching…".into(),
                ..PanelData::default()
            },
            best_seconds: f64::INFINITY,
            best_calls: None,
            batch: Vec::new(),
            batch_results: Vec::new(),
            trained: false,
            session,
            workload,
            target,
        };
        if let Some(best) = job.session.best().map(|r| r.mean_seconds()) {
            job.best_seconds = best;
            job.best_calls = compile_tir(job.session.database(), &job.workload, &job.target)
                .map(|s| schedule_calls(s.trace(), job.dialect));
        }
        Ok(job)
    }

    /// The workload's key in the page's store.
    pub fn key(&self) -> &str {
        &self.key
    }

    fn gflops(&self, seconds: f64) -> f64 {
        if seconds.is_finite() && seconds > 0.0 {
            self.workload.flops / seconds / 1e9
        } else {
            0.0
        }
    }

    fn record_line(&self, trace: &Trace, run_secs: Option<Vec<f64>>) -> String {
        let mut db = self.line_db.clone();
        db.commit_record(TuningRecord {
            workload_hash: self.workload.hash,
            target: self.target.spec.text.clone(),
            trace: trace.clone(),
            run_secs,
        });
        db.records_json()
    }

    fn update(&mut self, append: String, if_silent: Option<String>, elapsed: f64) -> TuneUpdate {
        self.panel.elapsed = elapsed;
        self.panel.best_calls = self.best_calls.clone();
        let mut append = append;
        if self.fresh_store && !append.is_empty() {
            append = self.line_db.workloads_json() + &append;
            self.fresh_store = false;
        }
        TuneUpdate {
            key: self.key.clone(),
            append,
            if_silent,
            done: self.panel.done,
            total: self.total,
            panel: render_panel(&self.panel),
            best_calls: self.best_calls.clone(),
            best_gflops: self
                .best_seconds
                .is_finite()
                .then(|| self.gflops(self.best_seconds)),
            module: self.module_name.clone(),
            finished: false,
            error: None,
        }
    }

    /// The first update (nothing measured yet).
    pub fn begin(&mut self, elapsed: f64) -> TuneUpdate {
        self.update(String::new(), None, elapsed)
    }

    /// The next candidates to measure, in order (empty when the budget is
    /// spent); every one goes to [`TuneJob::observe`], in the same order.
    pub fn next_batch(&mut self) -> Vec<Candidate> {
        self.panel.status = "searching the next candidates…".into();
        self.trained = self.session.model_trained();
        self.batch = self.session.next_batch();
        self.batch_results.clear();
        self.batch.clone()
    }

    /// Whether `r` is faster than the best so far: such a candidate is
    /// checked against the original before [`TuneJob::observe`] takes it
    /// (a wrong one is observed as failed).
    pub fn improves(&self, r: &MeasureResult) -> bool {
        r.mean_seconds().is_some_and(|t| t < self.best_seconds)
    }

    /// Takes the next candidate of the batch's measurement; the update to
    /// send. The last of a batch reports the batch to the search.
    pub fn observe(&mut self, r: MeasureResult, elapsed: f64) -> TuneUpdate {
        let i = self.batch_results.len();
        let c = self.batch[i].clone();
        if let Some(t) = r.mean_seconds() {
            if t < self.best_seconds {
                self.best_seconds = t;
                self.best_calls = Some(schedule_calls(c.schedule.trace(), self.dialect));
            }
        }
        let secs = match &r {
            MeasureResult::Ok(v) => Some(v.clone()),
            MeasureResult::Failed(_) => {
                self.panel.failed += 1;
                None
            }
        };
        let gflops = r.mean_seconds().map_or(0.0, |s| self.gflops(s));
        if self.trained {
            self.panel.predicted.push(Point {
                predicted: c.predicted,
                gflops,
            });
        }
        self.panel.done += 1;
        self.panel.best_curve.push(self.gflops(self.best_seconds));
        self.panel.status = match &r {
            MeasureResult::Ok(_) => format!("candidate {}: {gflops:.3} GFLOPS", self.panel.done),
            MeasureResult::Failed(m) => format!("candidate {} failed: {m}", self.panel.done),
        };
        let line = self.record_line(&c.design_trace, secs);
        // Kept by the page as failed if the worker falls silent measuring it.
        let next = self
            .batch
            .get(i + 1)
            .map(|n| self.record_line(&n.design_trace, None));
        self.batch_results.push(r);
        if self.batch_results.len() == self.batch.len() {
            self.session.report(&self.batch_results);
        }
        self.update(line, next, elapsed)
    }

    /// The last update: finished, with an error when nothing was measured.
    pub fn finish(mut self, elapsed: f64) -> TuneUpdate {
        let mut last = self.update(String::new(), None, elapsed);
        last.finished = true;
        if self.best_calls.is_none() {
            last.error = Some(format!(
                "no candidate could be measured: {}",
                self.session
                    .first_failure()
                    .unwrap_or("no candidate could be sampled")
            ));
        } else {
            self.panel.status = format!("done: {} trials in {elapsed:.1} s", self.panel.done);
            last.panel = render_panel(&self.panel);
        }
        last
    }

    /// The page's target choice (`wasm` or `webgpu`).
    pub fn target_choice(&self) -> &'static str {
        if self.target.is_gpu() {
            "webgpu"
        } else {
            "wasm"
        }
    }

    /// The workload's function, as the original program to check against.
    pub fn workload(&self) -> &Workload {
        &self.workload
    }

    /// Runs the tuning to its budget, measuring on `backend` with `host`'s
    /// clock (a synchronous backend: the CPU's); `now_ms` is the worker's
    /// clock, `send` gets every update (the last one `finished`).
    pub fn run(
        mut self,
        backend: &dyn Backend,
        host: &dyn Host,
        now_ms: &dyn Fn() -> f64,
        send: &mut dyn FnMut(TuneUpdate),
    ) {
        let started = now_ms();
        let elapsed = || (now_ms() - started) / 1000.0;
        let mut runner = match Runner::new(backend, host, &self.workload, &self.target) {
            Ok(r) => r,
            Err(e) => {
                let mut u = self.begin(elapsed());
                u.finished = true;
                u.error = Some(e.to_string());
                send(u);
                return;
            }
        };
        send(self.begin(elapsed()));
        loop {
            let batch = self.next_batch();
            if batch.is_empty() {
                break;
            }
            for c in &batch {
                let mut r = runner.measure(c.module());
                if self.improves(&r) {
                    if let Err(e) = runner.check(c.module()) {
                        r = MeasureResult::Failed(format!("wrong result: {e}"));
                    }
                }
                send(self.observe(r, elapsed()));
            }
        }
        send(self.finish(elapsed()));
    }
}

/// What a GPU tuning checks candidates with: the runner's inputs and, for
/// a workload small enough for the reference interpreter, the original
/// program's outputs on them (otherwise the driver runs the original on
/// the GPU, its spatial loops bound to threads: [`GpuCheck::gpu_reference`]).
/// WebGPU is asynchronous, so the GPU driver measures itself instead of
/// through the tuner's [`Runner`]; the rules are the runner's.
pub struct GpuCheck {
    pub inputs: Vec<compiler_core::eval::NDArray>,
    pub expected: Option<Vec<compiler_core::eval::NDArray>>,
}

impl GpuCheck {
    pub fn new(workload: &Workload) -> Result<GpuCheck, String> {
        use compiler_core::target::{BuildOptions, ReferenceBackend, Target};
        let func = workload
            .module
            .get_prim(&workload.func_name)
            .ok_or("the module has no PrimFunc")?;
        let inputs = compiler_core::eval::random_inputs(
            func,
            tessel_tune::runner::INPUT_SEED,
            &HashMap::new(),
        )
        .map_err(|e| format!("cannot make inputs: {}", e.message))?;
        let expected = if workload.flops <= tessel_tune::runner::REFERENCE_MAX_FLOPS {
            let exe = ReferenceBackend::default()
                .build(&workload.module, &Target::llvm(), &BuildOptions::default())
                .map_err(|e| format!("the original program: {e}"))?;
            let mut args = inputs.clone();
            exe.run(&workload.func_name, &mut args, 1 << 36)
                .map_err(|e| format!("the original program: {e}"))?;
            Some(args)
        } else {
            None
        };
        Ok(GpuCheck { inputs, expected })
    }

    /// The original program with its spatial loops bound to threads (what
    /// the GPU backend builds), for a workload too large to interpret.
    pub fn gpu_reference(workload: &Workload) -> Result<IRModule, String> {
        tessel_tune::rules::bind_for_gpu(&workload.module, 64)
    }

    /// Whether a candidate's arguments after a run match the expected ones.
    pub fn compare(&self, got: &[compiler_core::eval::NDArray]) -> Result<(), String> {
        use tessel_tune::runner::{compare_outputs, TOLERANCE};
        let expected = self.expected.as_deref().unwrap_or_default();
        compare_outputs(got, expected, TOLERANCE, TOLERANCE)
    }
}

/// The module a script's schedule is made from (`MyModule`), from its
/// `@tvm.script.ir_module` class.
fn module_name(source: &str) -> String {
    let mut after_decorator = false;
    for line in source.lines() {
        let t = line.trim();
        if t.starts_with("@tvm.script.ir_module") || t.starts_with("@I.ir_module") {
            after_decorator = true;
        } else if after_decorator {
            if let Some(rest) = t.strip_prefix("class ") {
                return rest
                    .split([':', '('])
                    .next()
                    .unwrap_or("MyModule")
                    .trim()
                    .to_string();
            }
        }
    }
    "MyModule".into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::live;
    use std::rc::Rc;

    const BOOK_MM: &str = include_str!("../examples/mm_tune.py");

    /// The book's matmul at `n`³ (small ones keep the native runs quick).
    fn matmul(n: usize) -> String {
        BOOK_MM.replace("128", &n.to_string())
    }

    struct Clock(std::time::Instant);
    impl Host for Clock {
        fn now_seconds(&self) -> f64 {
            self.0.elapsed().as_secs_f64()
        }
    }

    fn wasmi() -> codegen_wasm::backend::WasmBackend {
        codegen_wasm::backend::WasmBackend::with_runtime(Rc::new(|| {
            Box::new(codegen_wasm::runtime::WasmiRuntime::new())
        }))
    }

    #[test]
    fn records_are_keyed_by_workload_and_target() {
        assert_eq!(
            store_key(0xabc, "llvm --num-cores=1"),
            "tune.0000000000000abc.llvm --num-cores=1"
        );
        assert_ne!(store_key(1, "llvm"), store_key(2, "llvm"));
        assert_ne!(store_key(1, "llvm"), store_key(1, "webgpu"));
        // The key comes from the original function, not the script's
        // schedule: a script with a schedule applied keeps its records.
        let plain = TuneJob::new(&live(&matmul(16)), "wasm", 1, &[]).unwrap();
        let scheduled = format!("{}l = sch.get_loops(sch.get_block(\"C\"))\n", matmul(16));
        let with_schedule = TuneJob::new(&live(&scheduled), "wasm", 1, &[]).unwrap();
        assert_eq!(plain.key(), with_schedule.key());
        assert!(plain.key().starts_with(STORE_PREFIX));
        let entries = vec![
            (
                plain.key().to_string(),
                "[\"0x1\", \"m\"]\n[0, []]\n".to_string(),
            ),
            ("tune.other".to_string(), String::new()),
        ];
        assert_eq!(split_stored(&join_stored(&entries)), entries);
        assert_eq!(split_stored(""), Vec::<(String, String)>::new());
        let other = TuneJob::new(&live(&matmul(32)), "wasm", 1, &[]).unwrap();
        assert_ne!(plain.key(), other.key());
    }

    #[test]
    fn a_tuning_starts_from_the_live_session_without_running_the_script() {
        let session = live(&matmul(16));
        let before = tessel_session::SessionCounts::now();
        let job = TuneJob::new(&session, "wasm", 1, &[]).unwrap();
        assert_eq!(tessel_session::SessionCounts::since(before).script_runs, 0);
        assert_eq!(
            job.workload()
                .module
                .get_prim("main")
                .map(|f| f.params.len()),
            Some(3)
        );
    }

    #[test]
    fn progress_and_time_left() {
        assert_eq!(eta_seconds(0, 64, 3.0), None);
        assert_eq!(eta_seconds(16, 64, 4.0), Some(12.0));
        assert_eq!(eta_seconds(64, 64, 9.0), Some(0.0));
        assert_eq!(fmt_eta(None), "estimating the time left…");
        assert_eq!(fmt_eta(Some(12.4)), "about 12 s left");
        assert_eq!(fmt_eta(Some(125.0)), "about 2 min 5 s left");
        let html = render_panel(&PanelData {
            done: 16,
            total: 64,
            elapsed: 4.0,
            best_curve: vec![1.0, 2.0, 2.0],
            predicted: vec![
                Point {
                    predicted: 0.1,
                    gflops: 1.0,
                },
                Point {
                    predicted: 0.5,
                    gflops: 2.0,
                },
            ],
            status: "a <b> & c".into(),
            ..PanelData::default()
        });
        assert!(
            html.contains("data-done=\"16\" data-total=\"64\""),
            "{html}"
        );
        assert!(html.contains("width:25.0%"), "{html}");
        assert!(html.contains("16 / 64 trials · about 12 s left · best 2.000 GFLOPS"));
        assert!(html.contains("a &lt;b&gt; &amp; c"));
        assert_eq!(html.matches("<circle").count(), 2);
        assert!(html.contains("<polyline class=\"best\" points=\""));
        assert_eq!(
            error_html("a < b"),
            "<p id=\"tune-error\" class=\"verdict bad\">a &lt; b</p>"
        );
        assert!(
            CONTROLS_HTML.contains("id=\"tune-start\"")
                && CONTROLS_HTML.contains("id=\"tune-apply\" class=\"tb\" disabled")
        );
    }

    #[test]
    fn schedule_calls_replay_to_the_candidates_program() {
        let workload = TuneJob::new(&live(&matmul(64)), "wasm", 8, &[]).unwrap();
        let mut session = workload.session;
        let batch = session.next_batch();
        assert!(!batch.is_empty());
        for c in batch.iter().take(4) {
            let calls = schedule_calls(c.schedule.trace(), TraceDialect::Tir);
            assert!(!calls.contains("sample_perfect_tile"), "{calls}");
            assert!(calls.contains("sch.split("), "{calls}");
            let source = apply_schedule(&matmul(64), &calls, "MyModule");
            let script = crate::engine::run_script(&source);
            assert!(script.errors.is_empty(), "{:?}\n{calls}", script.errors);
            let got = &script.module_snapshots.last().unwrap().module;
            let print =
                |m: &IRModule| compiler_core::ir::printer::print_module(m, &Default::default());
            assert_eq!(print(got), print(c.module()), "{calls}");
        }
    }

    #[test]
    fn a_schedule_replaces_the_scripts_schedule() {
        let source = format!(
            "{}b = sch.get_block(\"C\")\nsch.parallel(sch.get_loops(b)[0])\n",
            matmul(16)
        );
        let out = apply_schedule(
            &source,
            "l0 = sch.get_loops(sch.get_block(\"C\"))\n",
            "MyModule",
        );
        assert!(
            out.ends_with(
                "sch = tvm.tir.Schedule(MyModule)\nl0 = sch.get_loops(sch.get_block(\"C\"))\n"
            ),
            "{out}"
        );
        assert!(!out.contains("sch.parallel"));
        assert_eq!(out.matches(SCHEDULE_MARKER).count(), 1);
        // No schedule yet: the marker and a schedule of the module come first.
        let bare = matmul(16).replace("# --- schedule ---\nsch = tvm.tir.Schedule(MyModule)\n", "");
        let out = apply_schedule(&bare, "x = 1\n", &module_name(&bare));
        assert!(
            out.ends_with("# --- schedule ---\nsch = tvm.tir.Schedule(MyModule)\nx = 1\n"),
            "{out}"
        );
    }

    #[test]
    fn bad_requests_are_refused_before_any_search() {
        let err = |r: Result<TuneJob, String>| r.err().unwrap();
        assert!(err(TuneJob::new(&live(&matmul(16)), "wasm", 0, &[])).contains("between 1 and"));
        assert!(err(TuneJob::new(&live(&matmul(16)), "tpu", 8, &[])).contains("unknown"));
        let broken = matmul(16).replace("T.grid(16, 16, 16)", "T.grid(16, 16");
        assert!(err(TuneJob::new(&live(&broken), "wasm", 8, &[])).contains("errors"));
    }

    #[test]
    fn a_webgpu_tuning_checks_candidates_against_the_original() {
        let job = TuneJob::new(&live(&matmul(16)), "webgpu", 8, &[]).unwrap();
        assert_eq!(job.target_choice(), "webgpu");
        assert!(job.key().ends_with(".webgpu"), "{}", job.key());
        // A small workload: the expected outputs come from the interpreter.
        let check = GpuCheck::new(job.workload()).unwrap();
        let expected = check.expected.clone().unwrap();
        check.compare(&expected).unwrap();
        // A wrong output is caught.
        let mut wrong = expected.clone();
        let c = wrong.last_mut().unwrap();
        let first = c.get_f64(&[0, 0]).unwrap();
        c.set_flat_f64(0, first + 1.0).unwrap();
        assert!(check.compare(&wrong).unwrap_err().contains("wrong result"));
        // The inputs are the tuner's runner's (same seed, same values).
        let func = job.workload().module.get_prim("main").unwrap();
        let again = compiler_core::eval::random_inputs(
            func,
            tessel_tune::runner::INPUT_SEED,
            &HashMap::new(),
        )
        .unwrap();
        assert_eq!(check.inputs, again);
    }

    #[test]
    fn tunes_keeps_every_record_and_resumes_from_them() {
        let source = matmul(32);
        let backend = wasmi();
        let clock = Clock(std::time::Instant::now());
        let t0 = std::time::Instant::now();
        let now = move || t0.elapsed().as_secs_f64() * 1000.0;
        let run = |stored: &[(String, String)]| {
            let mut updates = Vec::new();
            TuneJob::new(&live(&source), "wasm", 6, stored)
                .unwrap()
                .run(&backend, &clock, &now, &mut |u| updates.push(u));
            updates
        };
        let first = run(&[]);
        let last = first.last().unwrap();
        assert!(last.finished && last.error.is_none(), "{last:?}");
        assert_eq!((last.done, last.total), (6, 6));
        let dones: Vec<usize> = first.iter().map(|u| u.done).collect();
        assert_eq!(dones, [0, 1, 2, 3, 4, 5, 6, 6]);
        // What the page stores: the workload line once, a record per trial.
        let stored: String = first.iter().map(|u| u.append.as_str()).collect();
        let db = parse_store(&stored).unwrap();
        assert_eq!(db.len(), 6);
        assert!(first[1].append.starts_with("[\"0x"), "{}", first[1].append);
        assert!(first[1].if_silent.is_some() && first[6].if_silent.is_none());
        let calls = last.best_calls.clone().unwrap();
        assert!(last.best_gflops.unwrap() > 0.0);
        assert!(last.panel.contains("6 / 6 trials"), "{}", last.panel);
        assert!(
            last.panel.contains("<pre id=\"tune-best\""),
            "{}",
            last.panel
        );
        // The best schedule applied to the script computes what the original does.
        let applied = apply_schedule(&source, &calls, &last.module);
        let outcome = crate::engine::run_reference(&crate::engine::live(&applied), 1, &|| 0.0);
        assert_eq!(outcome.matches, Some(true), "{}", outcome.message);
        // A second tuning starts from the records: it says so, and its best
        // is never worse than the first's.
        let key = last.key.clone();
        let second = run(&[(key.clone(), stored)]);
        assert!(
            second[0].panel.contains("resumed from 6 records"),
            "{}",
            second[0].panel
        );
        assert!(second[0].best_calls.is_some());
        assert!(second[0].append.is_empty());
        assert!(
            !second[1].append.starts_with("[\"0x"),
            "the workload line is stored once"
        );
        assert!(second.last().unwrap().best_gflops >= last.best_gflops);
        assert_eq!(second.last().unwrap().key, key);
    }
}
