//! Tessel's browser playground (Leptos, client-side only).
//!
//! The main thread holds the UI and the CodeMirror editor; the compiler runs
//! in two Web Workers (`src/bin/worker.rs`): one compiles as you type, one
//! runs programs, so neither typing nor compiling waits for a run. The script
//! in the editor is the single source of truth: clicking a primitive appends
//! code to it. The whole state lives in the URL fragment (`share.rs`) and in
//! localStorage; tuning records live in IndexedDB (`record_store.rs`).
//!
//! `?exercise=ID` opens a course exercise: its statement, hints and a Check
//! button above the editor; the worker grades the answer, and the answer and
//! progress are kept in localStorage per exercise.

mod editor;
mod memory_view;
mod worker_client;

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use leptos::ev;
use leptos::html;
use leptos::prelude::*;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use compiler_core::schedule::menu::{MenuArg, MenuSite, MenuTarget};
use compiler_core::schedule::primitives;
use editor::EditorHandle;
use memory_view::MemoryState;
use web_ui::capabilities::{self, Capabilities};
use web_ui::examples;
use web_ui::info_panels::LOADING_HTML;
use web_ui::ir_view::{IrText, Selection};
use web_ui::protocol::*;
use web_ui::share::SavedState;
use web_ui::{diff, highlight, ir_view, record_store, share, tuning};
use worker_client::Channel;

/// Debounce between the last keystroke and a compile.
const DEBOUNCE_MS: u64 = 200;
/// Runs per "Run" (the median is reported).
const REPEATS: u32 = 5;
/// How long (20 s) the tuning worker may stay silent (measuring one candidate)
/// before the candidate counts as a runaway: the worker is stopped and the
/// candidate recorded as failed.
const TUNE_SILENCE_MS: f64 = 20_000.0;

/// The panes, in layout order: left column, then right column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Pane {
    Editor,
    Console,
    Run,
    Ir,
    Trace,
    Nest,
    Code,
}

impl Pane {
    const ALL: [Pane; 7] = [
        Pane::Editor,
        Pane::Console,
        Pane::Run,
        Pane::Ir,
        Pane::Trace,
        Pane::Nest,
        Pane::Code,
    ];
    fn idx(self) -> usize {
        self as usize
    }
    fn id(self) -> &'static str {
        match self {
            Pane::Editor => "editor",
            Pane::Console => "console",
            Pane::Run => "run",
            Pane::Ir => "ir",
            Pane::Trace => "trace",
            Pane::Nest => "nest",
            Pane::Code => "code",
        }
    }
    fn title(self) -> &'static str {
        match self {
            Pane::Editor => "Script",
            Pane::Console => "Console",
            Pane::Run => "Run",
            Pane::Ir => "Transformed IR",
            Pane::Trace => "Trace",
            Pane::Nest => "Loop nest",
            Pane::Code => "Generated code",
        }
    }
    fn left(self) -> bool {
        matches!(self, Pane::Editor | Pane::Console | Pane::Run)
    }
    fn default_weight(self) -> f64 {
        match self {
            Pane::Editor => 5.0,
            Pane::Console => 1.3,
            Pane::Run => 1.7,
            Pane::Ir => 4.2,
            Pane::Trace => 1.5,
            Pane::Nest => 2.4,
            Pane::Code => 3.2,
        }
    }
    fn from_id(id: &str) -> Option<Pane> {
        Pane::ALL.into_iter().find(|p| p.id() == id)
    }
}

/// URL parameters for course pages' iframes: `?embed=1&example=mm_relu&readonly=1&panes=editor,ir`
/// or `?embed=1&exercise=broadcast-add`.
#[derive(Clone, Debug, Default)]
struct Embed {
    on: bool,
    read_only: bool,
    example: Option<String>,
    exercise: Option<String>,
    code: Option<String>,
    panes: Option<Vec<Pane>>,
}

fn read_embed() -> Embed {
    let search = window().location().search().unwrap_or_default();
    let Ok(params) = web_sys::UrlSearchParams::new_with_str(&search) else {
        return Embed::default();
    };
    let flag = |k: &str| {
        params
            .get(k)
            .map(|v| v != "0" && v != "false")
            .unwrap_or(false)
    };
    Embed {
        on: flag("embed"),
        read_only: flag("readonly"),
        example: params.get("example"),
        exercise: params.get("exercise"),
        code: params.get("code"),
        panes: params
            .get("panes")
            .map(|p| p.split(',').filter_map(Pane::from_id).collect()),
    }
}

#[derive(Clone, Copy)]
struct Ctx {
    source: RwSignal<String>,
    compiled: RwSignal<Option<CompileOutcome>>,
    compiled_source: RwSignal<String>,
    /// The live session the shown IR belongs to (the workers' revision).
    compiled_revision: RwSignal<u64>,
    /// The newest revision number given out and its script.
    revision: StoredValue<(u64, String)>,
    compiling: RwSignal<bool>,
    round_trip_ms: RwSignal<Option<f64>>,
    sent_at: RwSignal<f64>,
    step: RwSignal<usize>,
    compare: RwSignal<Option<usize>>,
    selection: RwSignal<Option<Selection>>,
    regions: RwSignal<Option<RegionsOutcome>>,
    region_at: RwSignal<i64>,
    /// The memory picture (open when it has a target).
    memory: MemoryState,
    run: RwSignal<Option<RunOutcome>>,
    running: RwSignal<bool>,
    backend: RwSignal<String>,
    /// `Ok(adapter)` when WebGPU works here, else why not (the GPU option's tooltip).
    gpu: RwSignal<Result<String, String>>,
    /// `Ok` when this engine has relaxed SIMD, else why not (the FMA
    /// option's tooltip).
    fma: RwSignal<Result<(), String>>,
    /// What this device offers (the Device panel).
    caps: RwSignal<Capabilities>,
    /// The Device or Progress panel, when one is open.
    panel: RwSignal<Option<Panel>>,
    /// Bumped when any exercise's saved progress changes (here or in
    /// another page or iframe of the site), so the Progress view re-reads.
    progress_rev: RwSignal<u32>,
    /// The last export or import: `(ok, message)`.
    progress_status: RwSignal<Option<(bool, String)>>,
    /// The id of the newest panel request (older answers are not shown).
    panel_request: StoredValue<u64>,
    code: RwSignal<Option<CodeOutcome>>,
    messages: RwSignal<Vec<(String, String)>>,
    visible: RwSignal<[bool; 7]>,
    weights: RwSignal<[f64; 7]>,
    left_pct: RwSignal<f64>,
    dark: RwSignal<bool>,
    gallery: RwSignal<bool>,
    share_link: RwSignal<Option<String>>,
    example: RwSignal<String>,
    /// Every exercise (from the worker), and the one open, if any.
    exercises: RwSignal<Vec<ExerciseInfo>>,
    exercise: RwSignal<Option<ExerciseInfo>>,
    verdict: RwSignal<Option<CheckOutcome>>,
    checking: RwSignal<bool>,
    hints_shown: RwSignal<usize>,
    embed: StoredValue<Embed>,
    editor: StoredValue<Option<EditorHandle>, LocalStorage>,
    compiler: StoredValue<Option<Rc<Channel>>, LocalStorage>,
    runner: StoredValue<Option<Rc<Channel>>, LocalStorage>,
    debounce: StoredValue<Option<TimeoutHandle>, LocalStorage>,
    /// The Tune action: the panel the tuning worker rendered, the running
    /// tuning and the best schedule. Its controls are plain HTML
    /// (`tuning::CONTROLS_HTML`), updated through the DOM: small code.
    tuner: StoredValue<Option<Tuner>, LocalStorage>,
    /// The best schedule's calls and the module they schedule.
    tuned: StoredValue<Option<(String, String)>, LocalStorage>,
}

/// The two information panels (one dialog, plain HTML: small code).
#[derive(Clone, Copy, PartialEq)]
enum Panel {
    Device,
    Progress,
}

/// A running tuning: its own worker (so typing and Run stay with the
/// others), when it last spoke and the record to keep if it falls silent.
struct Tuner {
    channel: Rc<Channel>,
    last_ms: f64,
    if_silent: Option<(String, String)>,
}

fn now_ms() -> f64 {
    window().performance().map_or(0.0, |p| p.now())
}

impl Ctx {
    fn log(&self, class: &str, text: impl Into<String>) {
        let text = text.into();
        self.messages.update(|m| {
            m.push((class.to_string(), text));
            if m.len() > 50 {
                m.remove(0);
            }
        });
    }

    fn saved(&self) -> SavedState {
        SavedState {
            source: self.source.get_untracked(),
            step: self.step.get_untracked(),
            backend: self.backend.get_untracked(),
            example: self.example.get_untracked(),
        }
    }

    /// The editor's script and its revision: a new number whenever the
    /// text changed since the last one given out.
    fn current_revision(&self) -> (u64, String) {
        let source = self.source.get_untracked();
        let (last, last_source) = self.revision.get_value();
        if last > 0 && last_source == source {
            return (last, source);
        }
        self.revision.set_value((last + 1, source.clone()));
        (last + 1, source)
    }

    fn compile_now(&self) {
        let (revision, source) = self.current_revision();
        self.compiler.with_value(|c| {
            if let Some(c) = c {
                let id = c.fresh_id();
                self.compiling.set(true);
                self.sent_at.set(now_ms());
                c.send(Request::Compile {
                    id,
                    revision,
                    source,
                });
            }
        });
        if self.exercise.with_untracked(|e| e.is_some()) {
            self.save_progress(None);
        } else if !self.embed.with_value(|e| e.on) {
            share::save_local(&self.saved());
        }
    }

    /// The open exercise's saved progress.
    fn progress(&self) -> Option<(String, ExerciseProgress)> {
        let id = self
            .exercise
            .with_untracked(|e| e.as_ref().map(|e| e.id.clone()))?;
        let saved = share::get_pref(&ExerciseProgress::key(&id))
            .and_then(|t| ExerciseProgress::from_json(&t))
            .unwrap_or_default();
        Some((id, saved))
    }

    /// Saves the open exercise's answer and hints (and that it passed).
    fn save_progress(&self, passed: Option<bool>) {
        let Some((id, old)) = self.progress() else {
            return;
        };
        let progress = ExerciseProgress {
            answer: self.source.get_untracked(),
            hints: self.hints_shown.get_untracked(),
            passed: old.passed || passed.unwrap_or(false),
            // A verdict is an attempt; an edit is not.
            attempts: old.attempts + u32::from(passed.is_some()),
        };
        let changed_status = progress.passed != old.passed || progress.attempts != old.attempts;
        share::set_pref(&ExerciseProgress::key(&id), &progress.to_json());
        if changed_status {
            self.progress_rev.update(|n| *n += 1);
        }
    }

    /// Every exercise's saved progress, as stored (shared by all pages
    /// and iframes of this origin); the worker reads it.
    fn saved_progress(&self) -> Vec<(String, String)> {
        share::prefs_with_prefix("exercise.")
    }

    /// Exports the progress file (`import: None`) or imports one: the
    /// full worker writes or reads it (`Request::ProgressFile`).
    fn progress_file(&self, import: Option<String>) {
        let saved = self.saved_progress();
        let ask = match import {
            None => PanelAsk::Export { saved },
            Some(file) => PanelAsk::Import { saved, file },
        };
        let ask = serde_json::to_string(&ask).unwrap_or_default();
        self.compiler.with_value(|c| {
            if let Some(c) = c {
                let id = c.fresh_id();
                c.send(Request::ProgressFile { id, ask });
            }
        });
    }

    /// The worker's answer to a panel request: the panel shown (if it is
    /// the newest asked for and still open), a progress file downloaded
    /// (a data URL: no server involved), imported progress saved.
    fn on_panel_answer(&self, id: u64, outcome: &str) {
        let Ok(outcome) = serde_json::from_str::<PanelOutcome>(outcome) else {
            return;
        };
        if let Some(text) = outcome.file {
            download("tessel-progress.json", &text);
        }
        for (key, json) in &outcome.saves {
            share::set_pref(key, json);
        }
        if outcome.status.is_some() {
            self.progress_rev.update(|n| *n += 1);
            self.progress_status.set(outcome.status);
        }
        let shown = self.panel_request.get_value() == id
            && self.panel.with_untracked(|p| p.is_some())
            && !outcome.html.is_empty();
        if shown {
            if let Some(host) = document().get_element_by_id("info-panel-host") {
                host.set_inner_html(&outcome.html);
            }
        }
    }

    /// Opens exercise `info`: the saved answer (else the starting code) in
    /// the editor, the hints shown before.
    fn open_exercise(&self, info: ExerciseInfo) {
        self.exercise.set(Some(info.clone()));
        self.verdict.set(None);
        let saved = self.progress().map(|(_, p)| p).unwrap_or_default();
        self.hints_shown.set(saved.hints.min(info.hints.len()));
        let answer = if saved.answer.is_empty() {
            info.starting_code.clone()
        } else {
            saved.answer
        };
        self.step.set(usize::MAX);
        self.set_source(&answer);
        self.log("info", format!("exercise “{}”", info.title));
    }

    /// Back to the starting code; the saved answer and hints go, the
    /// progress (passed, checks) stays.
    fn reset_exercise(&self) {
        let Some(info) = self.exercise.get_untracked() else {
            return;
        };
        let kept = self.progress().map(|(_, p)| p).unwrap_or_default();
        let progress = ExerciseProgress {
            passed: kept.passed,
            attempts: kept.attempts,
            ..ExerciseProgress::default()
        };
        share::set_pref(&ExerciseProgress::key(&info.id), &progress.to_json());
        self.hints_shown.set(0);
        self.verdict.set(None);
        self.set_source(&info.starting_code);
    }

    /// Sends the answer to the run worker for grading.
    fn check_now(&self) {
        let Some((exercise, definition)) = self
            .exercise
            .with_untracked(|e| e.as_ref().map(|e| (e.id.clone(), e.definition.clone())))
        else {
            return;
        };
        let source = self.source.get_untracked();
        self.runner.with_value(|c| {
            if let Some(c) = c {
                let id = c.fresh_id();
                self.checking.set(true);
                c.send(Request::Check {
                    id,
                    exercise,
                    definition,
                    source,
                });
            }
        });
    }

    fn schedule_compile(&self) {
        let ctx = *self;
        self.debounce.update_value(|h| {
            if let Some(h) = h.take() {
                h.clear();
            }
            *h = set_timeout_with_handle(
                move || ctx.compile_now(),
                Duration::from_millis(DEBOUNCE_MS),
            )
            .ok();
        });
    }

    fn set_source(&self, text: &str) {
        self.editor.with_value(|e| {
            if let Some(e) = e {
                e.set_doc(text, false);
            }
        });
        self.source.set(text.to_string());
        self.compile_now();
    }

    /// Opens a gallery example (its source fetched with the gallery's
    /// sources the first time).
    fn load_example(&self, id: &str) {
        let Some(ex) = examples::find(id) else {
            return;
        };
        let ctx = *self;
        wasm_bindgen_futures::spawn_local(async move {
            match example_source(ex.id).await {
                Ok(source) => ctx.show_example(ex, &source),
                Err(m) => ctx.log(
                    "error",
                    format!("the example “{}” could not be loaded: {m}", ex.title),
                ),
            }
        });
    }

    fn show_example(&self, ex: &'static examples::Example, source: &str) {
        self.example.set(ex.id.to_string());
        self.step.set(usize::MAX);
        self.compare.set(None);
        self.selection.set(None);
        self.run.set(None);
        let backend = if ex.backend == "webgpu" && self.gpu.get_untracked().is_err() {
            "wasm"
        } else {
            ex.backend
        };
        self.backend.set(backend.to_string());
        self.set_source(source);
        self.log("info", format!("loaded example “{}”", ex.title));
    }

    fn run_now(&self) {
        let (revision, source) = self.current_revision();
        let backend = self.backend.get_untracked();
        self.runner.with_value(|c| {
            if let Some(c) = c {
                let id = c.fresh_id();
                self.running.set(true);
                c.know_source(revision, &source);
                c.send(Request::Run {
                    id,
                    revision,
                    backend,
                    repeats: REPEATS,
                });
            }
        });
        if !self.visible.get_untracked()[Pane::Run.idx()] {
            self.visible.update(|v| v[Pane::Run.idx()] = true);
        }
    }

    fn stop_run(&self) {
        self.runner.with_value(|c| {
            if let Some(c) = c {
                Channel::restart(c);
            }
        });
        self.running.set(false);
        self.log("info", "run stopped");
    }

    /// Starts a tuning of the script in a worker of its own (a channel
    /// that moves to the full worker, as a Run does); the records kept in
    /// the record store go with it (once the store has been read).
    fn start_tune(&self) {
        self.stop_tune(None);
        let target = document()
            .get_element_by_id("tune-target")
            .and_then(|e| js_sys::Reflect::get(&e, &JsValue::from_str("value")).ok())
            .and_then(|v| v.as_string())
            .unwrap_or_else(|| "wasm".into());
        if target == "webgpu" {
            if let Err(why) = self.gpu.get_untracked() {
                set_tune_view(
                    &tuning::error_html(&format!("cannot tune on WebGPU: {why}")),
                    true,
                );
                return;
            }
        }
        let ctx = *self;
        record_store::when_ready(move || ctx.start_tune_now(&target));
    }

    fn start_tune_now(&self, target: &str) {
        let ctx = *self;
        let channel = Channel::new(
            move |resp| {
                if let Response::Tuning { update, .. } = resp {
                    if let Ok(update) = js_sys::JSON::parse(&update) {
                        ctx.on_tune_update(&update)
                    }
                }
            },
            move |msg| ctx.stop_tune(Some(msg)),
        );
        // A `tuning::TuneSpec`, written with the browser's JSON.
        let trials = document()
            .get_element_by_id("tune-trials")
            .and_then(|e| e.dyn_into::<web_sys::HtmlInputElement>().ok())
            .map_or(64.0, |i| i.value_as_number());
        let spec = js_sys::Object::new();
        for (k, v) in [
            ("source", JsValue::from_str(&self.source.get_untracked())),
            ("target", JsValue::from_str(target)),
            ("trials", JsValue::from_f64(trials)),
            (
                "stored",
                JsValue::from_str(&tuning::join_stored(&record_store::entries())),
            ),
        ] {
            let _ = js_sys::Reflect::set(&spec, &JsValue::from_str(k), &v);
        }
        channel.send(Request::Tune {
            id: channel.fresh_id(),
            job: js_sys::JSON::stringify(&spec)
                .ok()
                .and_then(|s| s.as_string())
                .unwrap_or_default(),
        });
        self.tuner.set_value(Some(Tuner {
            channel,
            last_ms: now_ms(),
            if_silent: None,
        }));
        tune_buttons(true, self.tuned.with_value(|t| t.is_some()));
    }

    /// The watchdog, armed after each update: a worker silent for
    /// [`TUNE_SILENCE_MS`] is measuring a runaway candidate.
    fn check_tune_silence(&self) {
        let silent = self.tuner.with_value(|t| {
            t.as_ref()
                .is_some_and(|t| now_ms() - t.last_ms >= TUNE_SILENCE_MS)
        });
        if silent {
            self.stop_tune(Some(
                "a candidate ran over 20 s: the tuning stopped and the candidate is recorded as failed (Start resumes)".into(),
            ));
        }
    }

    /// A `TuneUpdate` (read from its JSON with the browser's parser: the
    /// page does without a serde deserialiser for it).
    fn on_tune_update(&self, update: &JsValue) {
        let field = |k: &str| {
            js_sys::Reflect::get(update, &JsValue::from_str(k))
                .ok()
                .and_then(|v| v.as_string())
        };
        let key = field("key").unwrap_or_default();
        let append = field("append").unwrap_or_default();
        let finished = js_sys::Reflect::get(update, &JsValue::from_str("finished"))
            .is_ok_and(|v| v.is_truthy());
        if !append.is_empty() && !record_store::append(&key, &append) {
            self.log(
                "error",
                "the tuning records could not be kept: localStorage is full",
            );
        }
        self.tuner.update_value(|t| {
            if let Some(t) = t {
                t.last_ms = now_ms();
                t.if_silent = field("if_silent").map(|l| (key.clone(), l));
            }
        });
        let ctx = *self;
        set_timeout(
            move || ctx.check_tune_silence(),
            Duration::from_millis(TUNE_SILENCE_MS as u64 + 50),
        );
        if let Some(calls) = field("best_calls") {
            self.tuned
                .set_value(Some((calls, field("module").unwrap_or_default())));
        }
        set_tune_view(&field("panel").unwrap_or_default(), false);
        if finished {
            self.stop_tune(field("error"));
        }
    }

    /// Ends the tuning worker (every record measured is already kept);
    /// `error` says why, when it was not the user. A silent worker's
    /// candidate is kept as failed.
    fn stop_tune(&self, error: Option<String>) {
        if let Some(t) = self.tuner.try_update_value(|t| t.take()).flatten() {
            t.channel.close();
            if let (Some((key, line)), Some(_)) = (t.if_silent, &error) {
                record_store::append(&key, &line);
            }
        }
        tune_buttons(false, self.tuned.with_value(|t| t.is_some()));
        if let Some(e) = error {
            set_tune_view(&tuning::error_html(&e), true);
            self.log("error", e);
        }
    }

    /// Replaces the script's schedule with the best one found.
    fn apply_tuned(&self) {
        let Some((calls, module)) = self.tuned.get_value() else {
            return;
        };
        let text = tuning::apply_schedule(&self.source.get_untracked(), &calls, &module);
        self.step.set(usize::MAX);
        self.set_source(&text);
        self.log("info", "applied the tuned schedule");
    }

    fn share(&self) {
        let state = self.saved();
        let url = share::share_url(&state);
        let hash = format!("#{}", share::encode(&state));
        if let Ok(history) = window().history() {
            let _ = history.replace_state_with_url(&JsValue::NULL, "", Some(&hash));
        }
        let clipboard = window().navigator().clipboard();
        let _ = clipboard.write_text(&url);
        self.share_link.set(Some(url.clone()));
        self.log(
            "info",
            format!("share link copied ({} characters)", url.len()),
        );
    }

    fn append_code(&self, lines: &[String]) {
        self.editor.with_value(|e| {
            let Some(e) = e else { return };
            let doc = e.get_doc();
            let mut text = String::new();
            if !doc.ends_with('\n') {
                text.push('\n');
            }
            if !doc
                .lines()
                .any(|l| l.trim_start().starts_with(web_ui::engine::SCHEDULE_MARKER))
            {
                text.push_str("\n# --- schedule ---\n");
            }
            for l in lines {
                text.push_str(l);
                text.push('\n');
            }
            e.append(&text);
        });
        self.step.set(usize::MAX);
        self.selection.set(None);
    }

    fn on_compiled(&self, outcome: CompileOutcome) {
        self.round_trip_ms
            .set(Some(now_ms() - self.sent_at.get_untracked()));
        let n = outcome.steps.len();
        let old_n = self
            .compiled
            .with_untracked(|c| c.as_ref().map_or(0, |c| c.steps.len()));
        let step = self.step.get_untracked();
        if n > 0 && (step >= n || (step + 1 == old_n && n != old_n)) {
            self.step.set(n - 1);
        }
        if let Some(c) = self.compare.get_untracked() {
            if c >= n && c != usize::MAX {
                self.compare.set(None);
            }
        }
        let source = self.source.get_untracked();
        self.editor.with_value(|e| {
            if let Some(e) = e {
                if e.get_doc() == source {
                    e.set_diagnostics(&outcome.errors);
                }
            }
        });
        self.compiled_source.set(source);
        self.compiled_revision.set(outcome.revision);
        // Keep the selection only if it still exists.
        if let Some(sel) = self.selection.get_untracked() {
            let keep = outcome
                .steps
                .get(self.step.get_untracked().min(n.saturating_sub(1)))
                .map(|s| ir_view::analyze(s).line_of.iter().any(|(x, _)| *x == sel))
                .unwrap_or(false);
            if !keep {
                self.selection.set(None);
            }
        }
        self.compiled.set(Some(outcome));
        self.compiling.set(false);
    }
}

#[component]
fn App() -> impl IntoView {
    let embed = read_embed();
    let prefers_dark = window()
        .match_media("(prefers-color-scheme: dark)")
        .ok()
        .flatten()
        .map(|m| m.matches())
        .unwrap_or(false);
    let dark = share::get_pref("theme")
        .map(|t| t == "dark")
        .unwrap_or(prefers_dark);
    let mut visible = [true, true, true, true, true, true, true];
    if let Some(panes) = &embed.panes {
        visible = [false; 7];
        for p in panes {
            visible[p.idx()] = true;
        }
    } else if embed.on && embed.exercise.is_some() {
        // An embedded exercise: the statement, the editor, Check.
        visible = [true, false, false, false, false, false, false];
    } else if embed.on {
        visible = [true, false, true, true, false, false, false];
    }
    let caps = capabilities::detect();
    let ctx = Ctx {
        source: RwSignal::new(String::new()),
        compiled: RwSignal::new(None),
        compiled_source: RwSignal::new(String::new()),
        compiled_revision: RwSignal::new(0),
        revision: StoredValue::new((0, String::new())),
        compiling: RwSignal::new(false),
        round_trip_ms: RwSignal::new(None),
        sent_at: RwSignal::new(0.0),
        step: RwSignal::new(usize::MAX),
        compare: RwSignal::new(None),
        selection: RwSignal::new(None),
        regions: RwSignal::new(None),
        region_at: RwSignal::new(0),
        memory: MemoryState::new(),
        run: RwSignal::new(None),
        running: RwSignal::new(false),
        backend: RwSignal::new("wasm".into()),
        gpu: RwSignal::new(Err("checking for WebGPU…".into())),
        fma: RwSignal::new(caps.fma()),
        caps: RwSignal::new(caps),
        panel: RwSignal::new(None),
        progress_rev: RwSignal::new(0),
        progress_status: RwSignal::new(None),
        panel_request: StoredValue::new(0),
        code: RwSignal::new(None),
        messages: RwSignal::new(vec![]),
        visible: RwSignal::new(visible),
        weights: RwSignal::new(Pane::ALL.map(|p| p.default_weight())),
        left_pct: RwSignal::new(46.0),
        dark: RwSignal::new(dark),
        gallery: RwSignal::new(false),
        share_link: RwSignal::new(None),
        example: RwSignal::new(String::new()),
        exercises: RwSignal::new(Vec::new()),
        exercise: RwSignal::new(None),
        verdict: RwSignal::new(None),
        checking: RwSignal::new(false),
        hints_shown: RwSignal::new(0),
        embed: StoredValue::new(embed.clone()),
        editor: StoredValue::new_local(None),
        compiler: StoredValue::new_local(None),
        runner: StoredValue::new_local(None),
        debounce: StoredValue::new_local(None),
        tuner: StoredValue::new_local(None),
        tuned: StoredValue::new_local(None),
    };
    provide_context(ctx);
    record_store::open(move |why| ctx.log("error", why));

    Effect::new(move |_| {
        let theme = if ctx.dark.get() { "dark" } else { "light" };
        if let Some(root) = document().document_element() {
            let _ = root.set_attribute("data-theme", theme);
        }
    });

    // The initial state: share link > embed parameters > autosave > default example.
    let hash = window().location().hash().unwrap_or_default();
    // An exercise starts empty: its answer arrives with its file.
    let exercise_start = embed.exercise.as_ref().map(|_| SavedState {
        source: String::new(),
        step: usize::MAX,
        backend: String::new(),
        example: String::new(),
    });
    let initial = exercise_start
        .or_else(|| share::decode(&hash))
        .or_else(|| embed.code.as_deref().and_then(share::decode))
        .or_else(|| {
            // The source is fetched below (`load_example`).
            embed
                .example
                .as_deref()
                .and_then(examples::find)
                .map(|ex| SavedState {
                    source: String::new(),
                    step: usize::MAX,
                    backend: String::new(),
                    example: ex.id.to_string(),
                })
        })
        .or_else(|| if embed.on { None } else { share::load_local() })
        .unwrap_or_else(|| SavedState {
            source: examples::DEFAULT_SOURCE.to_string(),
            step: usize::MAX,
            backend: String::new(),
            example: examples::DEFAULT.to_string(),
        });
    ctx.source.set(initial.source.clone());
    ctx.step.set(initial.step);
    ctx.example.set(initial.example.clone());
    if !initial.backend.is_empty() {
        ctx.backend.set(initial.backend.clone());
    }
    if initial.source.is_empty() && !initial.example.is_empty() {
        ctx.load_example(&initial.example);
    }

    // Workers: one compiles (latest edit wins), one runs.
    let compiler = Channel::new(
        move |resp| match resp {
            Response::Compiled { outcome, .. } => ctx.on_compiled(outcome),
            Response::Regions { outcome, .. } => ctx.regions.set(Some(outcome)),
            Response::MemoryAccess { outcome, .. } => {
                if let Ok(outcome) = serde_json::from_str(&outcome) {
                    ctx.memory.answer(outcome);
                }
            }
            Response::Panel { id, outcome } => ctx.on_panel_answer(id, &outcome),
            Response::Code { outcome, .. } => ctx.code.set(Some(outcome)),
            _ => {}
        },
        move |msg| ctx.log("error", msg),
    );
    let runner = Channel::new(
        move |resp| {
            if let Response::Checked { outcome, .. } = resp {
                ctx.checking.set(false);
                let open = ctx
                    .exercise
                    .with_untracked(|e| e.as_ref().map(|e| e.id.clone()));
                if open.as_deref() == Some(outcome.exercise.as_str()) {
                    // (An attempt, counted in the saved progress.)
                    ctx.save_progress(Some(outcome.passed));
                    ctx.log(
                        if outcome.passed { "ok" } else { "error" },
                        outcome.text.lines().last().unwrap_or_default().to_string(),
                    );
                    ctx.verdict.set(Some(outcome));
                }
            } else if let Response::Ran { outcome, .. } = resp {
                let class = match outcome.matches {
                    Some(true) => "ok",
                    Some(false) => "error",
                    None if outcome.ok => "info",
                    None => "error",
                };
                ctx.log(class, format!("run: {}", outcome.message));
                ctx.run.set(Some(outcome));
                ctx.running.set(false);
            }
        },
        move |msg| {
            ctx.running.set(false);
            ctx.checking.set(false);
            ctx.log("error", msg)
        },
    );
    // The exercises' list, and the exercise the URL asks for (its own
    // file: an embedded exercise fetches nothing of the others').
    wasm_bindgen_futures::spawn_local(async move {
        match fetch_text(EXERCISE_INDEX)
            .await
            .and_then(|t| parse_exercise_index(&t))
        {
            Ok(list) => ctx.exercises.set(list),
            Err(m) => ctx.log("error", format!("the exercises could not be listed: {m}")),
        }
    });
    if let Some(id) = ctx.embed.with_value(|e| e.exercise.clone()) {
        wasm_bindgen_futures::spawn_local(async move {
            let file = fetch_text(&format!("exercises/{id}.json")).await;
            match file.and_then(|t| ExerciseInfo::from_page_file(&t)) {
                Ok(info) => ctx.open_exercise(info),
                Err(m) => ctx.log("error", format!("no exercise `{id}`: {m}")),
            }
        });
    }
    ctx.compiler.set_value(Some(compiler));
    ctx.runner.set_value(Some(runner));
    ctx.compile_now();
    detect_gpu(ctx);
    watch_progress(ctx);
    show_panels(ctx);
    memory_view::show(ctx.memory);
    if let Err(why) = ctx.fma.get_untracked() {
        if ctx.backend.get_untracked() == "wasm-fma" {
            ctx.backend.set("wasm".into());
            ctx.log(
                "info",
                format!("the CPU backend runs without relaxed FMA: {why}"),
            );
        }
    }

    // The generated code of the shown step, for the chosen backend (asked
    // after each compile, so it never displaces a pending compile).
    Effect::new(move |_| {
        let n = ctx
            .compiled
            .with(|c| c.as_ref().map_or(0, |c| c.steps.len()));
        let step = ctx.step.get();
        let backend = ctx.backend.get();
        let shown = ctx.visible.get()[Pane::Code.idx()];
        if n == 0 || !shown || ctx.compiling.get() {
            return;
        }
        let revision = ctx.compiled_revision.get_untracked();
        ctx.compiler.with_value(|c| {
            if let Some(c) = c {
                let id = c.fresh_id();
                c.send(Request::Code {
                    id,
                    revision,
                    step: step.min(n - 1),
                    backend,
                });
            }
        });
    });

    // Regions for the selected loop (the loop-nest picture).
    Effect::new(move |_| {
        let sel = ctx.selection.get();
        let at = ctx.region_at.get();
        let step = ctx.step.get();
        let n = ctx
            .compiled
            .with(|c| c.as_ref().map_or(0, |c| c.steps.len()));
        let Some(Selection::Loop { func, index, .. }) = sel else {
            ctx.regions.set(None);
            return;
        };
        if n == 0 {
            return;
        }
        let revision = ctx.compiled_revision.get_untracked();
        ctx.compiler.with_value(|c| {
            if let Some(c) = c {
                let id = c.fresh_id();
                c.send(Request::Regions {
                    id,
                    revision,
                    step: step.min(n - 1),
                    func,
                    loop_index: index,
                    at,
                });
            }
        });
    });

    // The memory picture of the chosen unit, at the shown step.
    Effect::new(move |_| {
        let Some((func, loop_index)) = ctx.memory.target.get() else {
            return;
        };
        let unit = ctx.memory.unit.get();
        let at = ctx.memory.at.get();
        let playing = ctx.memory.playing.get();
        let step = ctx.step.get();
        let n = ctx
            .compiled
            .with(|c| c.as_ref().map_or(0, |c| c.steps.len()));
        if n == 0 {
            return;
        }
        let revision = ctx.compiled_revision.get_untracked();
        ctx.compiler.with_value(|c| {
            if let Some(c) = c {
                let id = c.fresh_id();
                c.send(Request::MemoryAccess {
                    id,
                    revision,
                    step: step.min(n - 1),
                    func,
                    unit,
                    loop_index,
                    at,
                    playing,
                });
            }
        });
    });

    // Global shortcuts (the editor handles its own when focused).
    let handle = window_event_listener(ev::keydown, move |e: web_sys::KeyboardEvent| {
        let mod_key = e.ctrl_key() || e.meta_key();
        if mod_key && e.key() == "Enter" {
            e.prevent_default();
            ctx.run_now();
        } else if mod_key && (e.key() == "s" || e.key() == "S") {
            e.prevent_default();
            ctx.share();
        } else if e.key() == "Escape" && ctx.gallery.get_untracked() {
            ctx.gallery.set(false);
        }
    });
    on_cleanup(move || handle.remove());

    let is_embed = embed.on;
    // What this device lacks and what runs instead, said once.
    let notes = ctx
        .caps
        .with_untracked(|c| c.fallback_notes())
        .into_iter()
        .map(|n| view! { <p id="capability-note" class="capnote" role="note">{n}</p> })
        .collect_view();
    view! {
        <div class="app" class:embed=is_embed>
            <TopBar/>
            {notes}
            <Show when=move || ctx.exercise.with(|e| e.is_some())>
                <ExercisePanel/>
            </Show>
            <Layout/>
            <div id="memory-host" on:click=move |e: ev::MouseEvent| memory_view::on_event(ctx.memory, e.into())
                on:change=move |e: ev::Event| memory_view::on_event(ctx.memory, e)
                on:input=move |e: ev::Event| memory_view::on_event(ctx.memory, e)></div>
            <Show when=move || ctx.gallery.get()>
                <Gallery/>
            </Show>
            <div id="info-panel-host" on:click=move |e: ev::MouseEvent| on_panel_event(ctx, e.into())
                on:change=move |e: ev::Event| on_panel_event(ctx, e)></div>
        </div>
    }
}

#[component]
fn TopBar() -> impl IntoView {
    let ctx = expect_context::<Ctx>();
    let is_embed = ctx.embed.with_value(|e| e.on);
    let exercise_embed = is_embed && ctx.embed.with_value(|e| e.exercise.is_some());
    let open_full = move || {
        let state = ctx.saved();
        let loc = window().location();
        if let Some(id) = ctx.embed.with_value(|e| e.exercise.clone()) {
            // The answer is saved per exercise, so the full page picks it up.
            return format!(
                "{}{}?exercise={id}",
                loc.origin().unwrap_or_default(),
                loc.pathname().unwrap_or_default()
            );
        }
        format!(
            "{}{}#{}",
            loc.origin().unwrap_or_default(),
            loc.pathname().unwrap_or_default(),
            share::encode(&state)
        )
    };
    view! {
        <header class="topbar">
            <h1>"Tessel"</h1>
            <span class="tagline">"TensorIR in the browser"</span>
            <Show when=move || !is_embed>
                <button id="examples-button" class="tb" on:click=move |_| ctx.gallery.set(true)
                    aria-haspopup="dialog" title="Open the examples gallery">"Examples"</button>
            </Show>
            <span class="spacer"></span>
            <Show when=move || !exercise_embed>
            <label class="tb-label" for="backend">"Backend"</label>
            <select id="backend" class="tb"
                on:change=move |ev| ctx.backend.set(event_target_value(&ev))
                prop:value=move || ctx.backend.get()>
                <option value="interpreter" title="Runs the IR directly: exact, slow">"Reference interpreter"</option>
                <option value="wasm" title="Compiles to WebAssembly with SIMD128 and runs it in a worker">"CPU (WebAssembly SIMD128)"</option>
                <option value="wasm-fma" disabled=move || ctx.fma.get().is_err()
                    title=move || match ctx.fma.get() {
                        Ok(()) => "As the CPU backend, with relaxed-SIMD fused multiply-adds (relaxed_madd): faster where the CPU has FMA; results may differ from the reference in the last bits".to_string(),
                        Err(why) => why,
                    }>
                    {move || match ctx.fma.get() { Ok(()) => "CPU + relaxed FMA".to_string(), Err(_) => "CPU + relaxed FMA — unavailable here".to_string() }}
                </option>
                <option value="webgpu" disabled=move || ctx.gpu.get().is_err()
                    title=move || match ctx.gpu.get() { Ok(a) => format!("Compiles to WGSL and runs on {a}"), Err(why) => why }>
                    {move || match ctx.gpu.get() { Ok(_) => "GPU (WebGPU)".to_string(), Err(why) => format!("GPU (WebGPU) — unavailable: {why}") }}
                </option>
            </select>
            <button id="run-button" class="tb primary"
                on:click=move |_| if ctx.running.get_untracked() { ctx.stop_run() } else { ctx.run_now() }
                title=move || if ctx.running.get() { "Stop the run" } else { "Run (Ctrl+Enter)" }>
                {move || if ctx.running.get() { "■ Stop" } else { "▶ Run" }}
            </button>
            </Show>
            <Show when=move || !is_embed
                fallback=move || view! {
                    <a class="tb" href=open_full target="_blank" rel="noopener">"Open in Tessel ↗"</a>
                }>
                <button id="share-button" class="tb" on:click=move |_| ctx.share() title="Copy a link to this state (Ctrl+S)">"Share"</button>
                <button id="progress-button" class="tb" on:click=move |_| ctx.panel.set(Some(Panel::Progress))
                    title="Your exercises: passed, attempted; export or import">"Progress"</button>
                <button id="device-button" class="tb" on:click=move |_| ctx.panel.set(Some(Panel::Device))
                    title="What this device offers: relaxed SIMD, threads, WebGPU">"Device"</button>
                <PaneMenu/>
                <button id="theme-button" class="tb" title="Light or dark mode"
                    aria-label=move || if ctx.dark.get() { "Switch to light mode" } else { "Switch to dark mode" }
                    on:click=move |_| {
                        let d = !ctx.dark.get_untracked();
                        ctx.dark.set(d);
                        share::set_pref("theme", if d { "dark" } else { "light" });
                    }>
                    {move || if ctx.dark.get() { "☀" } else { "☾" }}
                </button>
            </Show>
        </header>
        <Show when=move || ctx.share_link.get().is_some()>
            <div class="sharebar" role="status">
                <label for="share-link">"Link to this state:"</label>
                <input id="share-link" readonly=true prop:value=move || ctx.share_link.get().unwrap_or_default()
                    on:focus=move |ev| {
                        if let Some(t) = ev.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok()) {
                            t.select();
                        }
                    }/>
                <button class="tb" on:click=move |_| ctx.share_link.set(None) aria-label="Close">"✕"</button>
            </div>
        </Show>
    }
}

#[component]
fn PaneMenu() -> impl IntoView {
    let ctx = expect_context::<Ctx>();
    view! {
        <details class="panemenu">
            <summary class="tb">"Panes"</summary>
            <div class="menu" role="group" aria-label="Show or hide panes">
                {Pane::ALL.into_iter().map(|p| view! {
                    <label>
                        <input type="checkbox" id=format!("show-{}", p.id())
                            prop:checked=move || ctx.visible.get()[p.idx()]
                            on:change=move |ev| {
                                let on = event_target_checked(&ev);
                                ctx.visible.update(|v| v[p.idx()] = on);
                            }/>
                        {p.title()}
                    </label>
                }).collect_view()}
            </div>
        </details>
    }
}

#[component]
fn Layout() -> impl IntoView {
    let ctx = expect_context::<Ctx>();
    let main_ref = NodeRef::<html::Main>::new();
    let dragging = StoredValue::new(false);
    let on_move = move |ev: web_sys::PointerEvent| {
        if !dragging.get_value() {
            return;
        }
        if let Some(el) = main_ref.get_untracked() {
            let r = el.get_bounding_client_rect();
            let pct = (f64::from(ev.client_x()) - r.left()) / r.width() * 100.0;
            ctx.left_pct.set(pct.clamp(15.0, 85.0));
        }
    };
    let column = move |left: bool| {
        view! {
            <div class="column" class:left=left>
                {move || {
                    let vis = ctx.visible.get();
                    let panes: Vec<Pane> = Pane::ALL
                        .into_iter()
                        .filter(|p| p.left() == left && vis[p.idx()])
                        .collect();
                    let n = panes.len();
                    panes
                        .into_iter()
                        .enumerate()
                        .map(|(k, p)| {
                            let next = Pane::ALL
                                .into_iter()
                                .filter(|q| q.left() == left && vis[q.idx()])
                                .nth(k + 1);
                            view! {
                                <PaneBox pane=p/>
                                {(k + 1 < n).then(|| view! { <RowSplitter above=p below=next.unwrap()/> })}
                            }
                        })
                        .collect_view()
                }}
            </div>
        }
    };
    let any_left = move || {
        ctx.visible
            .get()
            .iter()
            .zip(Pane::ALL)
            .any(|(v, p)| *v && p.left())
    };
    let any_right = move || {
        ctx.visible
            .get()
            .iter()
            .zip(Pane::ALL)
            .any(|(v, p)| *v && !p.left())
    };
    view! {
        <main class="layout" node_ref=main_ref
            on:pointermove=on_move
            on:pointerup=move |_| dragging.set_value(false)
            on:pointerleave=move |_| dragging.set_value(false)
            style:grid-template-columns=move || {
                match (any_left(), any_right()) {
                    (true, true) => format!("{:.1}% 6px 1fr", ctx.left_pct.get()),
                    _ => "1fr".to_string(),
                }
            }>
            <Show when=any_left>{column(true)}</Show>
            <Show when=move || any_left() && any_right()>
                <div class="col-splitter" role="separator" aria-orientation="vertical"
                    aria-label="Resize the columns (arrow keys)" tabindex="0"
                    aria-valuenow=move || format!("{:.0}", ctx.left_pct.get())
                    on:pointerdown=move |ev| { ev.prevent_default(); dragging.set_value(true) }
                    on:keydown=move |ev: web_sys::KeyboardEvent| {
                        let d = match ev.key().as_str() { "ArrowLeft" => -2.0, "ArrowRight" => 2.0, _ => return };
                        ev.prevent_default();
                        ctx.left_pct.update(|p| *p = (*p + d).clamp(15.0, 85.0));
                    }></div>
            </Show>
            <Show when=any_right>{column(false)}</Show>
        </main>
    }
}

#[component]
fn RowSplitter(above: Pane, below: Pane) -> impl IntoView {
    let ctx = expect_context::<Ctx>();
    let drag = StoredValue::new(None::<(f64, f64, f64)>);
    let resize = move |delta_px: f64| {
        let (a, b) = (above.idx(), below.idx());
        ctx.weights.update(|w| {
            // Weights are proportional to heights; move weight between the two.
            let total = w[a] + w[b];
            let el = document().get_element_by_id(&format!("pane-{}", above.id()));
            let el2 = document().get_element_by_id(&format!("pane-{}", below.id()));
            if let (Some(x), Some(y)) = (el, el2) {
                let (ha, hb) = (
                    x.get_bounding_client_rect().height(),
                    y.get_bounding_client_rect().height(),
                );
                let px = ha + hb;
                if px > 0.0 {
                    let na = ((ha + delta_px) / px).clamp(0.08, 0.92);
                    w[a] = total * na;
                    w[b] = total * (1.0 - na);
                }
            }
        });
    };
    view! {
        <div class="row-splitter" role="separator" aria-orientation="horizontal" tabindex="0"
            aria-label=format!("Resize {} and {} (arrow keys)", above.title(), below.title())
            on:pointerdown=move |ev: web_sys::PointerEvent| {
                ev.prevent_default();
                if let Some(t) = ev.target().and_then(|t| t.dyn_into::<web_sys::Element>().ok()) {
                    let _ = t.set_pointer_capture(ev.pointer_id());
                }
                drag.set_value(Some((f64::from(ev.client_y()), 0.0, 0.0)));
            }
            on:pointermove=move |ev: web_sys::PointerEvent| {
                if let Some((y0, _, _)) = drag.get_value() {
                    let y = f64::from(ev.client_y());
                    resize(y - y0);
                    drag.set_value(Some((y, 0.0, 0.0)));
                }
            }
            on:pointerup=move |_| drag.set_value(None)
            on:keydown=move |ev: web_sys::KeyboardEvent| {
                let d = match ev.key().as_str() { "ArrowUp" => -24.0, "ArrowDown" => 24.0, _ => return };
                ev.prevent_default();
                resize(d);
            }></div>
    }
}

#[component]
fn PaneBox(pane: Pane) -> impl IntoView {
    let ctx = expect_context::<Ctx>();
    let body = match pane {
        Pane::Editor => view! { <EditorPane/> }.into_any(),
        Pane::Console => view! { <ConsolePane/> }.into_any(),
        Pane::Run => view! { <RunPane/> }.into_any(),
        Pane::Ir => view! { <IrPane/> }.into_any(),
        Pane::Trace => view! { <TracePane/> }.into_any(),
        Pane::Nest => view! { <NestPane/> }.into_any(),
        Pane::Code => view! { <CodePane/> }.into_any(),
    };
    let heading = format!("pane-{}-title", pane.id());
    let labelledby = heading.clone();
    view! {
        <section class="pane" id=format!("pane-{}", pane.id()) aria-labelledby=labelledby
            style:flex-grow=move || format!("{:.3}", ctx.weights.get()[pane.idx()])>
            <div class="pane-head">
                <h2 id=heading>{pane.title()}</h2>
                <PaneStatus pane=pane/>
                <button class="hide" title=format!("Hide the {} pane (Panes menu shows it again)", pane.title())
                    aria-label=format!("Hide the {} pane", pane.title())
                    on:click=move |_| ctx.visible.update(|v| v[pane.idx()] = false)>"✕"</button>
            </div>
            <div class="pane-body">{body}</div>
        </section>
    }
}

#[component]
fn PaneStatus(pane: Pane) -> impl IntoView {
    let ctx = expect_context::<Ctx>();
    match pane {
        Pane::Ir => view! {
            <span class="status" id="compile-status"
                data-fresh=move || (!ctx.compiling.get() && ctx.compiled_source.get() == ctx.source.get()).to_string()
                data-compile-ms=move || ctx.compiled.with(|c| c.as_ref().map(|c| format!("{:.2}", c.millis)).unwrap_or_default())>
                {move || {
                    if ctx.compiling.get() && ctx.compiled.with(|c| c.is_none()) {
                        "compiling…".to_string()
                    } else {
                        ctx.compiled.with(|c| match c {
                            Some(c) => {
                                let errs = c.errors.iter().filter(|e| e.severity == "error").count();
                                let rt = ctx.round_trip_ms.get().map(|r| format!(", {r:.0} ms round trip")).unwrap_or_default();
                                if errs > 0 {
                                    format!("{errs} error{} · {:.1} ms{rt}", if errs == 1 { "" } else { "s" }, c.millis)
                                } else {
                                    format!("compiled in {:.1} ms{rt}", c.millis)
                                }
                            }
                            None => String::new(),
                        })
                    }
                }}
            </span>
        }
        .into_any(),
        Pane::Editor => view! {
            <span class="status">{move || {
                let ex = ctx.example.get();
                examples::find(&ex).map(|e| e.title.to_string()).unwrap_or_default()
            }}</span>
        }
        .into_any(),
        _ => ().into_any(),
    }
}

/// The console's text with rich display output rendered by the editor
/// bundle: HTML and Markdown sanitised, code highlighted like the editor.
fn console_view(c: &CompileOutcome) -> impl IntoView {
    c.console_pieces()
        .into_iter()
        .map(|piece| match piece {
            ConsolePiece::Rich(part, text) => rich_view(
                &part.kind,
                text.to_string(),
                part.language.clone().unwrap_or_default(),
                "",
            )
            .into_any(),
            ConsolePiece::Text(text) => text.to_string().into_any(),
        })
        .collect_view()
}

/// A block showing `text` rendered as `kind` by `TesselEditor.renderRich`:
/// `html` sanitised, `markdown` rendered then sanitised, `statement` (an
/// exercise's, the site's own) rendered as Markdown with raw HTML escaped,
/// `code` highlighted in `language`. The renderers load on first use; the
/// raw text shows until then.
fn rich_view(kind: &str, text: String, language: String, id: &'static str) -> impl IntoView {
    let host = NodeRef::<html::Div>::new();
    let class = format!("rich rich-{kind}");
    let kind = kind.to_string();
    Effect::new(move |_| {
        if let Some(el) = host.get() {
            editor::render_rich(&el, &kind, &text, &language);
        }
    });
    view! { <div class=class id=(!id.is_empty()).then_some(id) node_ref=host></div> }
}

#[component]
fn EditorPane() -> impl IntoView {
    let ctx = expect_context::<Ctx>();
    let host = NodeRef::<html::Div>::new();
    let read_only = ctx.embed.with_value(|e| e.read_only);
    Effect::new(move |_| {
        let Some(el) = host.get() else { return };
        if ctx.editor.with_value(|e| e.is_some()) {
            return;
        }
        let on_change = Closure::<dyn FnMut(String)>::new(move |text: String| {
            ctx.source.set(text);
            ctx.schedule_compile();
        });
        let on_command = Closure::<dyn FnMut(String)>::new(move |cmd: String| match cmd.as_str() {
            "run" => ctx.run_now(),
            "share" => ctx.share(),
            _ => {}
        });
        let handle = editor::create_editor(
            &el,
            &ctx.source.get_untracked(),
            read_only,
            on_change.as_ref().unchecked_ref(),
            on_command.as_ref().unchecked_ref(),
        );
        on_change.forget();
        on_command.forget();
        ctx.editor.set_value(Some(handle));
        // Diagnostics that arrived before the editor existed.
        ctx.compiled.with_untracked(|c| {
            if let Some(c) = c {
                ctx.editor.with_value(|e| {
                    if let Some(e) = e {
                        e.set_diagnostics(&c.errors)
                    }
                });
            }
        });
    });
    on_cleanup(move || ctx.editor.set_value(None));
    view! {
        <div class="editor-host" id="editor" node_ref=host></div>
        <div class="hint">"Ctrl+Enter runs · Ctrl+S copies a share link · Ctrl+F finds · the schedule goes below "<code>"# --- schedule ---"</code></div>
    }
}

#[component]
fn ConsolePane() -> impl IntoView {
    let ctx = expect_context::<Ctx>();
    view! {
        <div id="console" class="console" role="log" aria-live="polite">
            <p class="muted small" id="console-summary">{move || ctx.compiled.with(|c| c.as_ref().map(|c| {
                let funcs = c.steps.first().map_or(0, |s| s.nests.len());
                let insts = c.trace.lines().filter(|l| l.contains("sch.")).count();
                format!(
                    "{funcs} function{} · {insts} schedule instruction{} · {} step{} · {:.1} ms",
                    if funcs == 1 { "" } else { "s" },
                    if insts == 1 { "" } else { "s" },
                    c.steps.len(),
                    if c.steps.len() == 1 { "" } else { "s" },
                    c.millis
                )
            }))}</p>
            {move || ctx.compiled.with(|c| c.as_ref().map(|c| {
                let errors = c.errors.clone();
                view! {
                    <pre class="console-text">{console_view(c)}</pre>
                    <ul class="diag-list">
                        {errors.into_iter().map(|d| {
                            let from = d.from;
                            view! {
                                <li class=format!("diag {}", d.severity)>
                                    <button class="linklike" title="Show in the editor"
                                        on:click=move |_| ctx.editor.with_value(|e| if let Some(e) = e { e.reveal(from) })>
                                        {format!("line {}:{}", d.line, d.col)}
                                    </button>
                                    " "{d.message.lines().next().unwrap_or_default().to_string()}
                                </li>
                            }
                        }).collect_view()}
                    </ul>
                }
            }))}
            <ul class="messages">
                {move || ctx.messages.get().into_iter().rev().take(12).map(|(class, text)| view! {
                    <li class=class>{text}</li>
                }).collect_view()}
            </ul>
        </div>
    }
}

fn fmt_ms(ms: f64) -> String {
    if ms >= 100.0 {
        format!("{ms:.0} ms")
    } else if ms >= 1.0 {
        format!("{ms:.2} ms")
    } else {
        format!("{:.0} µs", ms * 1000.0)
    }
}

fn backend_title(b: &str) -> &'static str {
    match b {
        "wasm" => "CPU (WebAssembly SIMD128)",
        "wasm-fma" => "CPU (WebAssembly SIMD128, relaxed FMA)",
        "webgpu" => "GPU (WebGPU)",
        _ => "reference interpreter",
    }
}

fn fmt_err(x: Option<f64>) -> String {
    match x {
        Some(0.0) => "0 (exact)".into(),
        Some(v) => format!("{v:.2e}"),
        None => "—".into(),
    }
}

thread_local! {
    /// The gallery's sources and descriptions once fetched (`examples.json`).
    static GALLERY_FILE: RefCell<Option<Rc<examples::GalleryFile>>> =
        const { RefCell::new(None) };
}

/// The gallery's sources and descriptions, fetched once.
async fn gallery_file() -> Result<Rc<examples::GalleryFile>, String> {
    if let Some(all) = GALLERY_FILE.with(|c| c.borrow().clone()) {
        return Ok(all);
    }
    let all = Rc::new(fetch_gallery_file().await?);
    GALLERY_FILE.with(|c| *c.borrow_mut() = Some(all.clone()));
    Ok(all)
}

/// An example's source: the default one is compiled in, the others come
/// from `examples.json`, fetched once.
async fn example_source(id: &str) -> Result<String, String> {
    if id == examples::DEFAULT {
        return Ok(examples::DEFAULT_SOURCE.to_string());
    }
    gallery_file()
        .await?
        .sources
        .get(id)
        .cloned()
        .ok_or_else(|| format!("{} has no example `{id}`", examples::SOURCES_FILE))
}

async fn fetch_gallery_file() -> Result<examples::GalleryFile, String> {
    let text = fetch_text(examples::SOURCES_FILE).await?;
    serde_json::from_str(&text).map_err(|e| e.to_string())
}

/// The exercises' list in the built site (see `tessel-course`'s
/// `exercise-catalogue`).
const EXERCISE_INDEX: &str = "exercises/index.json";

/// The list of exercises: id, title and target of each (the rest comes
/// with an exercise's own file when it is opened).
fn parse_exercise_index(json: &str) -> Result<Vec<ExerciseInfo>, String> {
    #[derive(serde::Deserialize)]
    struct Index {
        exercises: Vec<ExerciseInfo>,
    }
    serde_json::from_str::<Index>(json)
        .map(|i| i.exercises)
        .map_err(|e| format!("{EXERCISE_INDEX}: {e}"))
}

/// A file of the site, relative to the page, as text.
async fn fetch_text(url: &str) -> Result<String, String> {
    use wasm_bindgen_futures::JsFuture;
    let err = |e: JsValue| format!("{e:?}");
    let resp: web_sys::Response = JsFuture::from(window().fetch_with_str(url))
        .await
        .map_err(err)?
        .unchecked_into();
    if !resp.ok() {
        return Err(format!("fetching {url}: HTTP {}", resp.status()));
    }
    let text = JsFuture::from(resp.text().map_err(err)?)
        .await
        .map_err(err)?;
    Ok(text.as_string().unwrap_or_default())
}

/// Asks for a WebGPU adapter on the main thread, so the GPU option can
/// say why it is off and the Device panel what the adapter offers.
fn detect_gpu(ctx: Ctx) {
    wasm_bindgen_futures::spawn_local(async move {
        let gpu = capabilities::detect_gpu().await;
        ctx.gpu.set(match &gpu {
            capabilities::Gpu::Adapter(a) => Ok(a.label()),
            capabilities::Gpu::Missing(why) => Err(why.clone()),
            capabilities::Gpu::Checking => Err("checking for WebGPU…".into()),
        });
        ctx.caps.update(|c| c.gpu = gpu);
    });
}

/// Keeps the Progress view current when another page or iframe of this
/// origin saves an exercise's progress (the `storage` event).
fn watch_progress(ctx: Ctx) {
    let on_storage = Closure::<dyn FnMut(web_sys::Event)>::new(move |e: web_sys::Event| {
        let key = js_sys::Reflect::get(&e, &JsValue::from_str("key"))
            .ok()
            .and_then(|k| k.as_string());
        // `key` is null when the whole storage was cleared.
        if key.is_none_or(|k| k.starts_with("tessel.exercise.")) {
            ctx.progress_rev.update(|n| *n += 1);
        }
    });
    let _ =
        window().add_event_listener_with_callback("storage", on_storage.as_ref().unchecked_ref());
    on_storage.forget();
}

/// Shows the open panel (or none) in `#info-panel-host`, again whenever
/// what it shows changes. The full worker draws it (`Request::Panel`):
/// the Device panel (what this device offers) or the Progress view
/// (every exercise passed or attempted in this browser, with export and
/// import), plain HTML whose controls [`on_panel_event`] handles by
/// delegation. None of it is in the page's wasm, in every first load.
fn show_panels(ctx: Ctx) {
    Effect::new(move |shown: Option<Option<Panel>>| {
        let panel = ctx.panel.get();
        let host = document().get_element_by_id("info-panel-host");
        if panel != shown.flatten() {
            if let Some(host) = &host {
                host.set_inner_html(if panel.is_some() { LOADING_HTML } else { "" });
            }
        }
        let ask = match panel {
            None => return panel,
            Some(Panel::Device) => PanelAsk::Device {
                caps: ctx.caps.get(),
            },
            Some(Panel::Progress) => {
                ctx.progress_rev.track();
                PanelAsk::Progress {
                    saved: ctx.saved_progress(),
                    titles: ctx.exercises.with(|list| {
                        list.iter()
                            .map(|e| (e.id.clone(), e.title.clone()))
                            .collect()
                    }),
                    status: ctx.progress_status.get(),
                }
            }
        };
        let ask = serde_json::to_string(&ask).unwrap_or_default();
        ctx.compiler.with_value(|c| {
            if let Some(c) = c {
                let id = c.fresh_id();
                ctx.panel_request.set_value(id);
                c.send(Request::Panel { id, ask });
            }
        });
        panel
    });
}

/// Downloads `text` as file `name` (a data URL: no server involved).
fn download(name: &str, text: &str) {
    let href = format!(
        "data:application/json;charset=utf-8,{}",
        String::from(js_sys::encode_uri_component(text))
    );
    let link = document()
        .create_element("a")
        .ok()
        .and_then(|a| a.dyn_into::<web_sys::HtmlElement>().ok());
    if let Some(link) = link {
        let _ = link.set_attribute("href", &href);
        let _ = link.set_attribute("download", name);
        link.click();
    }
}

/// The panels' controls, by the id of the element the event came from.
fn on_panel_event(ctx: Ctx, ev: web_sys::Event) {
    let Some(target) = ev
        .target()
        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
    else {
        return;
    };
    match (ev.type_().as_str(), target.id().as_str()) {
        ("click", "panel-close" | "panel-backdrop") => ctx.panel.set(None),
        ("click", "progress-export") => ctx.progress_file(None),
        ("change", "progress-import") => {
            // `input.files[0].text()`, through reflection (no File bindings).
            let file = js_sys::Reflect::get(&target, &JsValue::from_str("files"))
                .ok()
                .and_then(|files| js_sys::Reflect::get(&files, &JsValue::from_f64(0.0)).ok())
                .filter(|f| !f.is_undefined());
            let text = file
                .and_then(|f| {
                    let read = js_sys::Reflect::get(&f, &JsValue::from_str("text")).ok()?;
                    read.dyn_into::<js_sys::Function>().ok()?.call0(&f).ok()
                })
                .and_then(|p| p.dyn_into::<js_sys::Promise>().ok());
            let Some(text) = text else { return };
            wasm_bindgen_futures::spawn_local(async move {
                match wasm_bindgen_futures::JsFuture::from(text).await {
                    Ok(t) => ctx.progress_file(Some(t.as_string().unwrap_or_default())),
                    Err(e) => ctx
                        .progress_status
                        .set(Some((false, format!("the file could not be read: {e:?}")))),
                }
            });
        }
        _ => {}
    }
}

#[component]
fn RunPane() -> impl IntoView {
    let ctx = expect_context::<Ctx>();
    view! {
        <div id="run-results" class="run" aria-live="polite">
            {move || match ctx.run.get() {
                None => view! {
                    <p class="muted">{move || if ctx.running.get() { "Running…" } else { "Press ▶ Run (Ctrl+Enter) to run the scheduled function on random inputs with the chosen backend and compare it with the original program on the reference interpreter." }}</p>
                }.into_any(),
                Some(r) => {
                    let verdict_class = match r.matches { Some(true) => "verdict ok", Some(false) => "verdict bad", None => "verdict" };
                    let verdict = match r.matches {
                        Some(true) => "✔ outputs match".to_string(),
                        Some(false) => "✘ outputs differ".to_string(),
                        None => "not run".to_string(),
                    };
                    let notes = r.notes.clone();
                    view! {
                        <p class=verdict_class id="run-verdict" data-backend=r.backend.clone()>{verdict}</p>
                        <p class="muted" id="run-message">{r.message.clone()}</p>
                        <table class="facts">
                            <tr><th scope="row">"function"</th><td>{r.func.clone()}</td></tr>
                            <tr><th scope="row">"backend"</th><td id="run-backend">{backend_title(&r.backend)}</td></tr>
                            <tr><th scope="row">"max error (abs / rel)"</th>
                                <td id="run-error">{format!("{} / {}", fmt_err(r.max_abs_err), fmt_err(r.max_rel_err))}</td></tr>
                            <tr><th scope="row">"time (median of "{r.times_ms.len()}")"</th>
                                <td id="run-time">{r.median_ms.map(fmt_ms).unwrap_or_else(|| "—".into())}</td></tr>
                            <tr><th scope="row">"GFLOPS"</th><td id="run-gflops">{r.gflops.map(|g| format!("{g:.3}")).unwrap_or_else(|| "—".into())}</td></tr>
                            <tr><th scope="row">"compile"</th><td>{r.compile_ms.map(fmt_ms).unwrap_or_else(|| "—".into())}</td></tr>
                            <tr><th scope="row">"original (interpreter)"</th><td>{r.reference_ms.map(fmt_ms).unwrap_or_else(|| "—".into())}</td></tr>
                            <tr><th scope="row">"FLOPs"</th><td>{r.flops.map(|f| format!("{:.3} M", f / 1e6)).unwrap_or_else(|| "unknown".into())}</td></tr>
                        </table>
                        <p class="muted small" id="run-timing">{r.timing.clone()}</p>
                        <ul class="outputs">
                            {r.outputs.iter().map(|o| view! { <li><code>{o.clone()}</code></li> }).collect_view()}
                        </ul>
                        {(!notes.is_empty()).then(|| view! {
                            <details class="notes"><summary>"Lowering notes ("{notes.len()}")"</summary>
                                <ul>{notes.into_iter().map(|n| view! { <li>{n}</li> }).collect_view()}</ul>
                            </details>
                        })}
                    }.into_any()
                }
            }}
            <TunePanel/>
            <p class="muted small">
                "Inputs are random (seed 42); the original program runs once on the reference interpreter and every output is compared. "
                {move || match ctx.gpu.get() { Ok(a) => format!("WebGPU: {a}."), Err(why) => format!("GPU backend off: {why}") }}
            </p>
        </div>
    }
}

/// Shows `html` in the Tune panel (the tuning worker renders it), or puts
/// it above what is there.
fn set_tune_view(html: &str, above: bool) {
    if let Some(v) = document().get_element_by_id("tune-view") {
        let html = if above {
            format!("{html}{}", v.inner_html())
        } else {
            html.to_string()
        };
        v.set_inner_html(&html);
    }
}

/// The Tune action's Start/Stop label and whether Apply is enabled.
fn tune_buttons(running: bool, can_apply: bool) {
    let d = document();
    if let Some(b) = d.get_element_by_id("tune-start") {
        b.set_text_content(Some(if running { "■ Stop" } else { "Start" }));
    }
    if let Some(b) = d.get_element_by_id("tune-apply") {
        let _ = if can_apply {
            b.remove_attribute("disabled")
        } else {
            b.set_attribute("disabled", "")
        };
    }
}

/// The Tune action: its controls (plain HTML, one click handler) and the
/// panel the tuning worker renders (progress, plots, best schedule).
#[component]
fn TunePanel() -> impl IntoView {
    let ctx = expect_context::<Ctx>();
    let click = move |ev: ev::MouseEvent| {
        let id = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
            .map(|e| e.id())
            .unwrap_or_default();
        match id.as_str() {
            "tune-start" if ctx.tuner.with_value(|t| t.is_some()) => ctx.stop_tune(None),
            "tune-start" => ctx.start_tune(),
            "tune-apply" => ctx.apply_tuned(),
            _ => {}
        }
    };
    view! { <div on:click=click inner_html=tuning::CONTROLS_HTML></div> }
}

/// The step being shown (clamped).
fn current_step(ctx: &Ctx) -> Option<(usize, Step)> {
    ctx.compiled.with(|c| {
        let c = c.as_ref()?;
        if c.steps.is_empty() {
            return None;
        }
        let i = ctx.step.get().min(c.steps.len() - 1);
        Some((i, c.steps[i].clone()))
    })
}

#[component]
fn IrPane() -> impl IntoView {
    let ctx = expect_context::<Ctx>();
    let n_steps = move || {
        ctx.compiled
            .with(|c| c.as_ref().map_or(0, |c| c.steps.len()))
    };
    let cur = move || ctx.step.get().min(n_steps().saturating_sub(1));
    let analyzed = Memo::new(move |_| current_step(&ctx).map(|(_, s)| ir_view::analyze(&s)));
    view! {
        <div class="stepper" role="group" aria-label="Step through the trace">
            <button class="tb" aria-label="Previous step" disabled=move || cur() == 0
                on:click=move |_| ctx.step.set(cur().saturating_sub(1))>"◀"</button>
            <input type="range" id="step-slider" min="0" aria-label="Trace step"
                prop:max=move || n_steps().saturating_sub(1).to_string()
                prop:value=move || cur().to_string()
                on:input=move |ev| ctx.step.set(event_target_value(&ev).parse().unwrap_or(0))/>
            <button class="tb" aria-label="Next step" disabled=move || { cur() + 1 >= n_steps() }
                on:click=move |_| ctx.step.set((cur() + 1).min(n_steps().saturating_sub(1)))>"▶"</button>
            <span class="step-label" id="step-label">{move || {
                let n = n_steps();
                if n == 0 { return String::new(); }
                let label = current_step(&ctx).map(|(_, s)| s.label).unwrap_or_default();
                format!("step {} / {}: {}", cur(), n - 1, label)
            }}</span>
            <label class="compare">
                "diff with "
                <select id="compare-select" on:change=move |ev| {
                        let v = event_target_value(&ev);
                        ctx.compare.set(if v == "prev" { Some(usize::MAX) } else { v.parse().ok() });
                    }
                    prop:value=move || match ctx.compare.get() {
                        Some(usize::MAX) => "prev".to_string(),
                        Some(c) => c.to_string(),
                        None => String::new(),
                    }>
                    <option value="">"(none)"</option>
                    <option value="prev">"previous step"</option>
                    {move || (0..n_steps()).map(|i| view! {
                        <option value=i.to_string()>{format!("step {i}")}</option>
                    }).collect_view()}
                </select>
            </label>
        </div>
        <div class="ir-wrap">
            <div class="ir" id="ir-view" tabindex="0" aria-label="Transformed IR (loops and blocks are buttons)">
                {move || {
                    let Some((i, step)) = current_step(&ctx) else {
                        return ctx.compiled.with(|c| match c {
                            Some(c) if !c.errors.is_empty() => view! {
                                <pre class="ir-error">{c.console.clone()}</pre>
                            }.into_any(),
                            _ => view! { <p class="muted">"compiling…"</p> }.into_any(),
                        });
                    };
                    if let Some(base) = ctx.compare.get() {
                        let base = if base == usize::MAX { i.saturating_sub(1) } else { base };
                        let base_ir = ctx.compiled.with(|c| c.as_ref().and_then(|c| c.steps.get(base)).map(|s| s.ir.clone())).unwrap_or_default();
                        let rows = diff::diff_lines(&base_ir, &step.ir).into_iter().map(|(ch, line)| {
                            let (class, sign) = match ch {
                                diff::Change::Same => ("irl", " "),
                                diff::Change::Added => ("irl add", "+"),
                                diff::Change::Removed => ("irl del", "-"),
                            };
                            view! {
                                <div class=class><span class="sign" aria-hidden="true">{sign}</span>
                                    {highlight::tokens(line).into_iter().map(|(c, t)| view! { <span class=c>{t}</span> }).collect_view()}
                                </div>
                            }
                        }).collect_view();
                        return view! {
                            <p class="diff-caption" id="diff-caption">{format!("changes from step {base} to step {i}")}</p>
                            <div class="diff" id="ir-diff">{rows}</div>
                        }.into_any();
                    }
                    let text = analyzed.get().unwrap_or_default();
                    render_ir(ctx, &text).into_any()
                }}
            </div>
            <PrimitivePanel analyzed=analyzed/>
        </div>
        <Show when=move || ctx.compiled.with(|c| c.as_ref().and_then(|c| c.marked_ir.clone()).is_some())>
            <details class="marked" open=true>
                <summary>"Where the primitive refused"</summary>
                <pre>{move || ctx.compiled.with(|c| c.as_ref().and_then(|c| c.marked_ir.clone()).unwrap_or_default())}</pre>
            </details>
        </Show>
    }
}

fn render_ir(ctx: Ctx, text: &IrText) -> impl IntoView {
    let lines = text.lines.clone();
    view! {
        <div class="ir-lines">
            {lines.into_iter().enumerate().map(|(n, toks)| view! {
                <div class="irl"><span class="ln" aria-hidden="true">{n + 1}</span>
                    {toks.into_iter().map(|t| match t.target {
                        None => view! { <span class=t.class>{t.text}</span> }.into_any(),
                        Some(sel) => {
                            let (kind, name) = match &sel {
                                Selection::Loop { name, .. } => ("loop", name.clone()),
                                Selection::Block { name, .. } => ("block", name.clone()),
                            };
                            let s2 = sel.clone();
                            view! {
                                <button class=format!("irtarget {} {}", kind, t.class)
                                    class:selected=move || ctx.selection.get().as_ref() == Some(&s2)
                                    data-kind=kind data-name=name.clone()
                                    title=format!("{kind} {name}: show the primitives for it")
                                    on:click=move |_| ctx.selection.set(Some(sel.clone()))>
                                    {t.text}
                                </button>
                            }.into_any()
                        }
                    }).collect_view()}
                </div>
            }).collect_view()}
        </div>
    }
}

#[component]
fn PrimitivePanel(analyzed: Memo<Option<IrText>>) -> impl IntoView {
    let ctx = expect_context::<Ctx>();
    let read_only = ctx.embed.with_value(|e| e.read_only);
    view! {
        <Show when=move || ctx.selection.get().is_some() && ctx.compare.get().is_none()>
            <aside class="prims" id="primitives" aria-label="Primitives for the selection">
                {move || {
                    let sel = ctx.selection.get()?;
                    let (i, step) = current_step(&ctx)?;
                    let text = analyzed.get()?;
                    let memory = match &sel {
                        Selection::Loop { func, index, name } => {
                            let (func, index) = (func.clone(), *index);
                            Some(view! {
                                <button class="tb memory-open" id="memory-button"
                                    title=format!("Which elements of each buffer one iteration of {name} touches")
                                    on:click=move |_| ctx.memory.open(&func, Some(index), "iteration")>"Memory picture"</button>
                            })
                        }
                        Selection::Block { .. } => None,
                    };
                    let close = view! {
                        <button class="hide" aria-label="Close" on:click=move |_| ctx.selection.set(None)>"✕"</button>
                        {memory}
                    };
                    if i + 1 < c_len(&ctx) {
                        return Some(view! {
                            {close}
                            <p class="small">"Primitives are appended after the last step of the schedule."</p>
                            <button class="tb" on:click=move |_| ctx.step.set(usize::MAX)>"Go to the last step"</button>
                        }.into_any());
                    }
                    Some(match sel {
                        Selection::Loop { func, index, .. } => {
                            let Some(lc) = ir_view::loop_ctx(&step, &text, &func, index) else {
                                return Some(view! { <p class="muted">"This loop is not under a block."</p> {close} }.into_any());
                            };
                            view! { {close} <LoopPrims lc=lc read_only=read_only/> }.into_any()
                        }
                        Selection::Block { func, name } => {
                            let multi = step.nests.len() > 1;
                            view! { {close} <BlockPrims func=func name=name multi=multi read_only=read_only/> }.into_any()
                        }
                    })
                }}
            </aside>
        </Show>
    }
}

#[component]
fn PrimRow(
    label: &'static str,
    help: &'static str,
    input: Option<(String, &'static str)>,
    choices: Option<Vec<String>>,
    apply: Rc<dyn Fn(String)>,
    read_only: bool,
) -> impl IntoView {
    let value = RwSignal::new(
        input
            .as_ref()
            .map(|(v, _)| v.clone())
            .or_else(|| choices.as_ref().and_then(|c| c.first().cloned()))
            .unwrap_or_default(),
    );
    let id = format!("prim-{label}");
    let apply2 = apply.clone();
    view! {
        <div class="prim">
            <button class="tb prim-apply" id=id.clone() title=help disabled=read_only
                on:click=move |_| apply(value.get_untracked())>{label}</button>
            {input.map(|(_, aria)| view! {
                <input class="prim-arg" id=format!("{id}-arg") aria-label=aria
                    prop:value=move || value.get()
                    on:input=move |ev| value.set(event_target_value(&ev))
                    on:keydown=move |ev: web_sys::KeyboardEvent| if ev.key() == "Enter" { apply2(value.get_untracked()) }/>
            })}
            {choices.map(|cs| view! {
                <select class="prim-arg" id=format!("{id}-arg") aria-label=format!("{label} argument")
                    on:change=move |ev| value.set(event_target_value(&ev))>
                    {cs.into_iter().map(|c| view! { <option value=c.clone()>{c.clone()}</option> }).collect_view()}
                </select>
            })}
            <span class="prim-help">{help}</span>
        </div>
    }
}

/// The rows of the primitives' menu entries offered on `target` at `site`,
/// in the order of `compiler_core::schedule::primitives::PRIMITIVES`.
fn prim_rows(
    target: MenuTarget,
    site: &MenuSite,
    mk: impl Fn(&'static str) -> Rc<dyn Fn(String)>,
    read_only: bool,
) -> impl IntoView {
    primitives::menu_entries(target)
        .filter(|(_, entry)| entry.offered(site))
        .map(|(method, entry)| {
            let (input, choices) = match entry.arg {
                MenuArg::None => (None, None),
                MenuArg::Text { label, default } => (Some((default(site), label)), None),
                MenuArg::OtherBlock => (None, Some(site.other_blocks())),
                MenuArg::Choice(values) => {
                    (None, Some(values.iter().map(|v| v.to_string()).collect()))
                }
            };
            view! { <PrimRow label=method help=entry.help input=input choices=choices apply=mk(method) read_only=read_only/> }
        })
        .collect_view()
}

#[component]
fn LoopPrims(lc: ir_view::LoopCtx, read_only: bool) -> impl IntoView {
    let ctx = expect_context::<Ctx>();
    let lc = Rc::new(lc);
    let lc2 = lc.clone();
    let lc_for_mk = lc.clone();
    let mk = move |prim: &'static str| -> Rc<dyn Fn(String)> {
        let lc = lc_for_mk.clone();
        Rc::new(move |arg: String| {
            if let Some(edit) = ir_view::loop_primitive(&lc, prim, &arg) {
                ctx.append_code(&edit.lines);
            }
        })
    };
    let rows = prim_rows(MenuTarget::Loop, &lc.menu_site(), mk, read_only);
    view! {
        <h3>{format!("loop {}", lc2.name)}</h3>
        <p class="muted small">{format!("extent {} · block \"{}\" · get_loops index {}",
            lc2.extent.map(|e| e.to_string()).unwrap_or_else(|| "symbolic".into()), lc2.block, lc2.pos)}</p>
        {rows}
        {(!read_only).then(|| view! { <p class="muted small">"Each button appends the call to the script; edit or undo (Ctrl+Z) it there."</p> })}
    }
}

#[component]
fn BlockPrims(func: String, name: String, multi: bool, read_only: bool) -> impl IntoView {
    let ctx = expect_context::<Ctx>();
    let mk = {
        let func = func.clone();
        let name = name.clone();
        move |prim: &'static str| -> Rc<dyn Fn(String)> {
            let func = func.clone();
            let name = name.clone();
            Rc::new(move |arg: String| {
                if let Some(edit) = ir_view::block_primitive(&func, &name, multi, prim, &arg) {
                    ctx.append_code(&edit.lines);
                }
            })
        }
    };
    let site = ir_view::block_site(&func, &name, multi);
    let rows = prim_rows(MenuTarget::Block, &site, mk, read_only);
    view! {
        <h3>{format!("block \"{name}\"")}</h3>
        <p class="muted small">"Click a loop for loop primitives (split, reorder, compute_at…)."</p>
        {rows}
    }
}

#[component]
fn TracePane() -> impl IntoView {
    let ctx = expect_context::<Ctx>();
    view! {
        <ol class="steps" id="trace-steps" aria-label="Steps">
            {move || ctx.compiled.with(|c| c.as_ref().map(|c| c.steps.iter().enumerate().map(|(i, s)| {
                let label = s.label.clone();
                let insts = if s.instructions.is_empty() { String::new() } else {
                    format!("#{}", s.instructions.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(",#"))
                };
                view! {
                    <li>
                        <button class="step" class:current=move || ctx.step.get().min(c_len(&ctx).saturating_sub(1)) == i
                            aria-current=move || if ctx.step.get().min(c_len(&ctx).saturating_sub(1)) == i { "step" } else { "false" }
                            on:click=move |_| ctx.step.set(i)>
                            <span class="stepno">{i}</span>
                            <code>{label}</code>
                            <span class="muted small">{insts}</span>
                        </button>
                    </li>
                }
            }).collect_view()))}
        </ol>
        <details class="trace-text">
            <summary>"print(sch.trace)"</summary>
            <pre id="trace-text">{move || ctx.compiled.with(|c| c.as_ref().map(|c| c.trace.clone()).unwrap_or_default())}</pre>
        </details>
    }
}

fn c_len(ctx: &Ctx) -> usize {
    ctx.compiled
        .with(|c| c.as_ref().map_or(0, |c| c.steps.len()))
}

#[component]
fn NestPane() -> impl IntoView {
    let ctx = expect_context::<Ctx>();
    view! {
        <div class="nest-wrap">
            <div class="nest" id="nest">
                {move || {
                    let (_, step) = current_step(&ctx)?;
                    let text = ir_view::analyze(&step);
                    Some(step.nests.iter().map(|f| {
                        let names = text.loop_names.get(&f.func).cloned().unwrap_or_default();
                        let func = f.func.clone();
                        view! {
                            <div class="nest-func">
                                <div class="nest-fname"><code>{format!("def {}", f.func)}</code>
                                    {f.flops.map(|fl| view! { <span class="muted small">{format!(" · {:.2} MFLOP", fl / 1e6)}</span> })}
                                </div>
                                {f.roots.iter().map(|n| nest_node(ctx, n, &func, &names)).collect_view()}
                            </div>
                        }
                    }).collect_view())
                }}
            </div>
            <Regions/>
        </div>
    }
}

fn nest_node(ctx: Ctx, n: &NestNode, func: &str, names: &[String]) -> AnyView {
    let children: Vec<AnyView> = n
        .children
        .iter()
        .map(|c| nest_node(ctx, c, func, names))
        .collect();
    if n.kind == "loop" {
        let name = names
            .get(n.index)
            .cloned()
            .unwrap_or_else(|| n.name.clone());
        let sel = Selection::Loop {
            func: func.to_string(),
            index: n.index,
            name: name.clone(),
        };
        let s2 = sel.clone();
        let kind_class = format!("nest-loop kind-{}", n.detail.replace('.', "-"));
        let extent = n
            .extent
            .map(|e| e.to_string())
            .unwrap_or_else(|| "?".into());
        let detail = if n.detail == "serial" {
            String::new()
        } else {
            format!(" {}", n.detail)
        };
        view! {
            <div class=kind_class class:selected=move || ctx.selection.get().as_ref() == Some(&s2)>
                <button class="nest-head" data-name=name.clone() on:click=move |_| {
                    ctx.selection.set(Some(sel.clone()));
                    ctx.region_at.set(0);
                }>
                    <code>{format!("for {name}")}</code>
                    <span class="extent">{format!(" × {extent}{detail}")}</span>
                </button>
                <div class="nest-body">{children}</div>
            </div>
        }
        .into_any()
    } else {
        let sel = Selection::Block {
            func: func.to_string(),
            name: n.name.clone(),
        };
        let class = if n.detail == "reduction" {
            "nest-block reduction"
        } else {
            "nest-block"
        };
        view! {
            <div class=class>
                <button class="nest-head" on:click=move |_| ctx.selection.set(Some(sel.clone()))>
                    <code>{format!("block {}", n.name)}</code>
                    <span class="muted small">{format!(" {}", n.detail)}</span>
                </button>
                {(!children.is_empty()).then(|| view! { <div class="nest-body">{children}</div> })}
            </div>
        }
        .into_any()
    }
}

#[component]
fn Regions() -> impl IntoView {
    let ctx = expect_context::<Ctx>();
    view! {
        <div class="regions" id="regions" aria-live="polite">
            {move || match ctx.regions.get() {
                None => view! { <p class="muted small">"Choose a loop (here or in the IR) to see the part of each buffer one iteration of it touches."</p> }.into_any(),
                Some(r) if r.loop_name.is_empty() => view! { <p class="muted small">{r.message}</p> }.into_any(),
                Some(r) => {
                    let max = r.extent.unwrap_or(1).max(1) - 1;
                    view! {
                        <h3>{format!("one iteration of {}", r.loop_name)}</h3>
                        <label class="small">{format!("{} = ", r.loop_name)}
                            <input type="range" min="0" prop:max=max.to_string() prop:value=r.at.to_string()
                                aria-label="Iteration to draw"
                                on:input=move |ev| ctx.region_at.set(event_target_value(&ev).parse().unwrap_or(0))/>
                            {format!(" {} (outer loops at 0)", r.at)}
                        </label>
                        <div class="region-list">
                            {r.regions.iter().map(|g| view! {
                                <figure class=format!("region {}", g.access) data-buffer=g.buffer.clone()
                                    data-access=g.access.clone() data-block=g.block.clone()
                                    data-concrete=g.concrete.as_ref().map(|c| c.iter().map(|(m, e)| format!("{m}:{e}")).collect::<Vec<_>>().join(","))>
                                    {region_svg(g)}
                                    <figcaption><code>{g.text.clone()}</code>
                                        <span class="muted small">{format!(" {} by {}", g.access, g.block)}</span></figcaption>
                                </figure>
                            }).collect_view()}
                        </div>
                    }.into_any()
                }
            }}
        </div>
    }
}

/// A buffer as a grid with the touched region filled (last two dimensions).
fn region_svg(g: &RegionInfo) -> AnyView {
    let Some(conc) = g.concrete.clone() else {
        return ().into_any();
    };
    if g.shape.is_empty() || g.shape.len() != conc.len() {
        return ().into_any();
    }
    let (rows, cols, (r0, rn), (c0, cn)) = if g.shape.len() == 1 {
        (1, g.shape[0], (0, 1), conc[0])
    } else {
        let k = g.shape.len();
        (g.shape[k - 2], g.shape[k - 1], conc[k - 2], conc[k - 1])
    };
    let w = 120.0;
    let h = if rows == 1 {
        12.0
    } else {
        (w * rows as f64 / cols.max(1) as f64).clamp(12.0, 120.0)
    };
    let sx = w / cols.max(1) as f64;
    let sy = h / rows.max(1) as f64;
    let (x, y) = (c0 as f64 * sx, r0 as f64 * sy);
    // At least 3 px, so one row of a 128-row buffer still shows.
    let (rw, rh) = ((cn as f64 * sx).max(3.0), (rn as f64 * sy).max(3.0));
    let (x, y) = (x.min(w - rw), y.min(h - rh));
    view! {
        <svg class="region-svg" width=w + 2.0 height=h + 2.0 viewBox=format!("-1 -1 {} {}", w + 2.0, h + 2.0)
            role="img" aria-label=format!("{} of shape {:?}", g.text, g.shape)>
            <rect class="buf" x="0" y="0" width=w height=h/>
            <rect class="touched" x=x y=y width=rw height=rh/>
        </svg>
    }
    .into_any()
}

#[component]
fn CodePane() -> impl IntoView {
    let ctx = expect_context::<Ctx>();
    let view_kind = RwSignal::new("code");
    view! {
        <div class="codegen" id="codegen">
            {move || match ctx.code.get() {
                None => view! { <p class="muted">"Generating code…"</p> }.into_any(),
                Some(c) => {
                    let lang = if c.backend == "webgpu" { "WGSL" } else { "WAT" };
                    let what = if c.backend == "webgpu" { "GPU (WebGPU): WGSL compute shaders" } else { "CPU: WebAssembly with SIMD128" };
                    let notes = c.notes.clone();
                    let size = c.bytes.map(|b| format!(" · {b} bytes")).unwrap_or_default();
                    view! {
                        <div class="code-head">
                            <span class="muted small" id="code-target" data-backend=c.backend.clone()>{format!("{what} · step {}{size}", c.step)}</span>
                            <span class="spacer"></span>
                            <button class="tb" id="code-show-code" class:active=move || view_kind.get() == "code"
                                on:click=move |_| view_kind.set("code")>{lang}</button>
                            <button class="tb" id="code-show-lowered" class:active=move || view_kind.get() == "lowered"
                                on:click=move |_| view_kind.set("lowered")>"Lowered TIR"</button>
                        </div>
                        {match &c.error {
                            Some(e) => view! { <p class="code-error" id="code-error" role="alert">{e.clone()}</p> }.into_any(),
                            None => ().into_any(),
                        }}
                        {(!notes.is_empty()).then(|| view! {
                            <ul class="code-notes" id="code-notes">{notes.into_iter().map(|n| view! { <li>{n}</li> }).collect_view()}</ul>
                        })}
                        {
                            let (code, lowered) = (c.code.clone(), c.lowered.clone());
                            move || {
                                let text = if view_kind.get() == "code" { code.clone() } else { lowered.clone() };
                                (!text.is_empty()).then(|| view! { <pre class="code" id="code-text">{text}</pre> })
                            }
                        }
                    }.into_any()
                }
            }}
            <p class="muted small">{move || if ctx.backend.get() == "webgpu" { "Shown for the GPU backend (pick the backend at the top)." } else { "Shown for the CPU backend; pick GPU (WebGPU) at the top for WGSL." }}</p>
        </div>
    }
}

#[component]
fn Gallery() -> impl IntoView {
    let ctx = expect_context::<Ctx>();
    let filter = RwSignal::new(String::new());
    let input = NodeRef::<html::Input>::new();
    Effect::new(move |_| {
        if let Some(i) = input.get() {
            let _ = i.focus();
        }
    });
    // The descriptions come with `examples.json`: fetched when the gallery
    // first opens (an embedded exercise never opens it).
    let descriptions = RwSignal::new_local(GALLERY_FILE.with(|c| c.borrow().clone()));
    if descriptions.get_untracked().is_none() {
        wasm_bindgen_futures::spawn_local(async move {
            match gallery_file().await {
                Ok(file) => descriptions.set(Some(file)),
                Err(e) => web_sys::console::warn_1(&format!("examples: {e}").into()),
            }
        });
    }
    let categories = {
        let mut cats: Vec<&'static str> = Vec::new();
        for e in examples::all() {
            if !cats.contains(&e.category) {
                cats.push(e.category);
            }
        }
        cats
    };
    view! {
        <div class="modal-backdrop" on:click=move |_| ctx.gallery.set(false)></div>
        <div class="gallery" id="gallery" role="dialog" aria-modal="true" aria-labelledby="gallery-title">
            <div class="gallery-head">
                <h2 id="gallery-title">"Examples"</h2>
                <input type="search" id="gallery-filter" node_ref=input placeholder="Filter (e.g. mm_relu, compute_at)"
                    aria-label="Filter examples" prop:value=move || filter.get()
                    on:input=move |ev| filter.set(event_target_value(&ev))/>
                <button class="hide" aria-label="Close" on:click=move |_| ctx.gallery.set(false)>"✕"</button>
            </div>
            <div class="gallery-body">
                <section class="gallery-cat" id="exercise-list">
                    <h3>"Exercises"</h3>
                    <ul>
                        {move || {
                            let f = filter.get().to_lowercase();
                            ctx.exercises.get().into_iter().filter(|e| {
                                f.is_empty() || e.id.contains(&f) || e.title.to_lowercase().contains(&f)
                            }).map(|e| {
                                let href = format!("?exercise={}", e.id);
                                view! {
                                    <li>
                                        <a class="example" href=href data-exercise=e.id.clone()>
                                            <span class="ex-title">{e.title.clone()}</span>
                                            <span class="ex-desc">{e.id.clone()}</span>
                                        </a>
                                    </li>
                                }
                            }).collect_view()
                        }}
                    </ul>
                </section>
                {categories.into_iter().map(|cat| view! {
                    <section class="gallery-cat">
                        <h3>{cat}</h3>
                        <ul>
                            {move || {
                                let f = filter.get().to_lowercase();
                                let described = descriptions.get();
                                let description = move |id: &str| -> String {
                                    described.as_ref().and_then(|d| d.descriptions.get(id).cloned()).unwrap_or_default()
                                };
                                examples::all().iter().filter(|e| e.category == cat).filter(|e| {
                                    f.is_empty() || e.id.to_lowercase().contains(&f) || e.title.to_lowercase().contains(&f)
                                        || description(e.id).to_lowercase().contains(&f)
                                }).map(|e| {
                                    let id = e.id;
                                    let about = description(id);
                                    view! {
                                        <li>
                                            <button class="example" data-example=id on:click=move |_| {
                                                ctx.load_example(id);
                                                ctx.gallery.set(false);
                                            }>
                                                <span class="ex-title">{e.title.clone()}</span>
                                                <span class="ex-desc">{about}</span>
                                            </button>
                                        </li>
                                    }
                                }).collect_view()
                            }}
                        </ul>
                    </section>
                }).collect_view()}
            </div>
        </div>
    }
}

fn register_service_worker() {
    let sw = window().navigator().service_worker();
    let promise = sw.register("./sw.js");
    let on_err = Closure::<dyn FnMut(JsValue)>::new(|e: JsValue| {
        web_sys::console::warn_2(
            &"service worker not registered (offline use unavailable):".into(),
            &e,
        );
    });
    let _ = promise.catch(&on_err);
    on_err.forget();
}

fn main() {
    std::panic::set_hook(Box::new(|info| {
        web_sys::console::error_1(&info.to_string().into())
    }));
    if js_sys::Reflect::has(&window().navigator(), &JsValue::from_str("serviceWorker"))
        .unwrap_or(false)
    {
        register_service_worker();
    }
    mount_to_body(App);
}

/// The open exercise: statement, Check, hints revealed one at a time, the
/// verdict per check, and reset.
#[component]
fn ExercisePanel() -> impl IntoView {
    let ctx = expect_context::<Ctx>();
    let info = move || ctx.exercise.get().unwrap_or_default();
    let total_hints = move || {
        ctx.exercise
            .with(|e| e.as_ref().map_or(0, |e| e.hints.len()))
    };
    // (Comparisons stay out of `view!`, where `>` would end the tag.)
    let all_hints_shown = move || ctx.hints_shown.get() >= total_hints();
    let show_hint = move |_| {
        ctx.hints_shown.update(|n| *n += 1);
        ctx.save_progress(None);
    };
    view! {
        <section class="exercise" id="exercise" aria-labelledby="exercise-title">
            <div class="exercise-head">
                <h2 id="exercise-title">{move || info().title}</h2>
                <button id="check-button" class="tb primary" on:click=move |_| ctx.check_now()
                    disabled=move || ctx.checking.get()>
                    {move || if ctx.checking.get() { "Checking…" } else { "✓ Check" }}
                </button>
                <button id="hint-button" class="tb" disabled=all_hints_shown on:click=show_hint>
                    {move || format!("Hint ({} of {})", ctx.hints_shown.get(), total_hints())}
                </button>
                <button id="reset-button" class="tb" title="Back to the starting code"
                    on:click=move |_| ctx.reset_exercise()>"Reset"</button>
                <button id="exercise-memory-button" class="tb"
                    title="Which elements of each buffer your function's loops, threads or workgroups touch"
                    disabled=move || current_step(&ctx).is_none()
                    on:click=move |_| {
                        // The answer's function: its outermost loop, or a thread of a loop-less kernel.
                        let Some((_, step)) = current_step(&ctx) else { return };
                        let Some(nest) = step.nests.iter().max_by_key(|n| n.loops.len()) else { return };
                        let first = (!nest.loops.is_empty()).then_some(0);
                        ctx.memory.open(&nest.func, first, if first.is_some() { "iteration" } else { "thread" });
                    }>"Memory picture"</button>
                // (The full page has these in its top bar.)
                <Show when=move || ctx.embed.with_value(|e| e.on)>
                    <button id="progress-button" class="tb" on:click=move |_| ctx.panel.set(Some(Panel::Progress))
                        title="Your exercises on this site: passed, attempted; export or import">"Progress"</button>
                </Show>
            </div>
            {move || view! {
                <div class="statement">
                    {
                        let info = info();
                        if info.statement_html.is_empty() {
                            rich_view("statement", info.statement, String::new(), "exercise-statement").into_any()
                        } else {
                            // Rendered when the site was built, from its own files.
                            view! {
                                <div class="rich rich-statement" id="exercise-statement"
                                    data-rendered="markdown" inner_html=info.statement_html></div>
                            }.into_any()
                        }
                    }
                </div>
            }}
            <ol class="hints" id="hints">
                {move || {
                    let shown = ctx.hints_shown.get();
                    info().hints.into_iter().take(shown).map(|h| view! { <li class="hint-item">{h}</li> }).collect_view()
                }}
            </ol>
            {move || ctx.verdict.get().map(|v| {
                let summary = v.text.lines().last().unwrap_or_default().to_string();
                let timing = v.timing.clone().map(|t| view! {
                    <p id="verdict-timing" class="verdict-timing">{format!("GPU code timed on WebGPU: {t}")}</p>
                });
                view! {
                    <div id="verdict" class="verdict" class:passed=v.passed role="status">
                        <p class="verdict-summary">{summary}</p>
                        <ul>
                            {v.results.into_iter().map(|r| {
                                let place = r.line.map(|l| format!(" (line {l}, column {})", r.col.unwrap_or(1))).unwrap_or_default();
                                view! {
                                    <li class=format!("check {}", r.status) data-check=r.name.clone()>
                                        <span class="badge">{r.status.to_uppercase()}</span>
                                        " " <b>{r.name.clone()}</b> ": " {r.message.clone()} {place}
                                        {(!r.details.is_empty()).then(|| view! {
                                            <pre class="check-details">{r.details.join("\n")}</pre>
                                        })}
                                        {r.structure.map(|d| view! {
                                            <div class="structure-diff" id="structure-diff">
                                                <StructurePane title="Your function" id="structure-yours" pane=d.yours/>
                                                <StructurePane title="Target" id="structure-target" pane=d.target/>
                                            </div>
                                        })}
                                    </li>
                                }
                            }).collect_view()}
                        </ul>
                        {timing}
                    </div>
                }
            })}
        </section>
    }
}

/// One side of a failed structure check: the function as TVMScript with
/// the mismatching lines highlighted and scrolled into view.
#[component]
fn StructurePane(title: &'static str, id: &'static str, pane: IrPane) -> impl IntoView {
    let scroller = NodeRef::<html::Div>::new();
    Effect::new(move |_| {
        let Some(el) = scroller.get() else { return };
        // After layout, when the pane has its height.
        request_animation_frame(move || {
            let Ok(Some(first)) = el.query_selector(".irl.hl") else {
                return;
            };
            if let Ok(first) = first.dyn_into::<web_sys::HtmlElement>() {
                // A third of the pane above the mismatch, as context.
                el.set_scroll_top(first.offset_top() - el.client_height() / 3);
            }
        });
    });
    let (first, last) = pane.lines.unwrap_or((0, 0));
    let tokens = |text: &str| {
        highlight::tokens(text)
            .into_iter()
            .map(|(c, t)| view! { <span class=c>{t}</span> })
            .collect_view()
    };
    let rows = pane
        .text
        .lines()
        .enumerate()
        .map(|(i, line)| {
            let n = i + 1;
            let hl = n >= first && n <= last;
            // A parameter's columns: its text marked within the line.
            let body = match pane.columns.filter(|_| n == first) {
                Some((a, b)) => {
                    let chars: Vec<char> = line.chars().collect();
                    let part = |x: usize, y: usize| {
                        chars[x.min(chars.len())..y.min(chars.len())]
                            .iter()
                            .collect::<String>()
                    };
                    let (pre, mid, post) = (part(0, a), part(a, b), part(b, chars.len()));
                    view! { {tokens(&pre)}<mark class="hl-cols">{tokens(&mid)}</mark>{tokens(&post)} }
                        .into_any()
                }
                None => tokens(line).into_any(),
            };
            view! {
                <div class="irl" class:hl=hl><span class="ln" aria-hidden="true">{n}</span>{body}</div>
            }
        })
        .collect_view();
    let place = match pane.lines {
        Some((f, l)) if f == l => format!(" (line {f})"),
        Some((f, l)) => format!(" (lines {f}–{l})"),
        None => String::new(),
    };
    view! {
        <div class="structure-pane" id=id>
            <p class="structure-title">{title}{place}</p>
            <div class="ir structure-ir" node_ref=scroller tabindex="0">{rows}</div>
        </div>
    }
}
