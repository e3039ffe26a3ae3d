//! The page's state (`Ctx`: signals for the source, the compiled steps, the
//! selection, runs, tuning, exercises) and what the page does with it:
//! compiling as the user types, running, sharing, opening exercises, and the
//! services started once (GPU detection, progress, info panels).

use super::*;

/// Debounce between the last keystroke and a compile.
pub(crate) const DEBOUNCE_MS: u64 = 200;
/// Runs per "Run" (the median is reported).
pub(crate) const REPEATS: u32 = 5;
/// How long (20 s) the tuning worker may stay silent (measuring one candidate)
/// before the candidate counts as a runaway: the worker is stopped and the
/// candidate recorded as failed.
pub(crate) const TUNE_SILENCE_MS: f64 = 20_000.0;

/// The panes, in layout order: left column, then right column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Pane {
    Editor,
    Console,
    Run,
    Ir,
    Trace,
    Nest,
    Code,
}

impl Pane {
    pub(crate) const ALL: [Pane; 7] = [
        Pane::Editor,
        Pane::Console,
        Pane::Run,
        Pane::Ir,
        Pane::Trace,
        Pane::Nest,
        Pane::Code,
    ];
    pub(crate) fn idx(self) -> usize {
        self as usize
    }
    pub(crate) fn id(self) -> &'static str {
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
    pub(crate) fn title(self) -> &'static str {
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
    pub(crate) fn left(self) -> bool {
        matches!(self, Pane::Editor | Pane::Console | Pane::Run)
    }
    pub(crate) fn default_weight(self) -> f64 {
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
    pub(crate) fn from_id(id: &str) -> Option<Pane> {
        Pane::ALL.into_iter().find(|p| p.id() == id)
    }
}

/// URL parameters for course pages' iframes: `?embed=1&example=mm_relu&readonly=1&panes=editor,ir`
/// or `?embed=1&exercise=broadcast-add`.
#[derive(Clone, Debug, Default)]
pub(crate) struct Embed {
    pub(crate) on: bool,
    pub(crate) read_only: bool,
    pub(crate) example: Option<String>,
    pub(crate) exercise: Option<String>,
    pub(crate) code: Option<String>,
    pub(crate) panes: Option<Vec<Pane>>,
}

pub(crate) fn read_embed() -> Embed {
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
pub(crate) struct Ctx {
    pub(crate) source: RwSignal<String>,
    pub(crate) compiled: RwSignal<Option<CompileOutcome>>,
    pub(crate) compiled_source: RwSignal<String>,
    /// The live session the shown IR belongs to (the workers' revision).
    pub(crate) compiled_revision: RwSignal<u64>,
    /// The newest revision number given out and its script.
    pub(crate) revision: StoredValue<(u64, String)>,
    pub(crate) compiling: RwSignal<bool>,
    pub(crate) round_trip_ms: RwSignal<Option<f64>>,
    pub(crate) sent_at: RwSignal<f64>,
    pub(crate) step: RwSignal<usize>,
    pub(crate) compare: RwSignal<Option<usize>>,
    pub(crate) selection: RwSignal<Option<Selection>>,
    pub(crate) regions: RwSignal<Option<RegionsOutcome>>,
    pub(crate) region_at: RwSignal<i64>,
    /// The memory picture (open when it has a target).
    pub(crate) memory: MemoryState,
    pub(crate) run: RwSignal<Option<RunOutcome>>,
    pub(crate) running: RwSignal<bool>,
    pub(crate) backend: RwSignal<String>,
    /// `Ok(adapter)` when WebGPU works here, else why not (the GPU option's tooltip).
    pub(crate) gpu: RwSignal<Result<String, String>>,
    /// `Ok` when this engine has relaxed SIMD, else why not (the FMA
    /// option's tooltip).
    pub(crate) fma: RwSignal<Result<(), String>>,
    /// What this device offers (the Device panel).
    pub(crate) caps: RwSignal<Capabilities>,
    /// The Device or Progress panel, when one is open.
    pub(crate) panel: RwSignal<Option<Panel>>,
    /// Bumped when any exercise's saved progress changes (here or in
    /// another page or iframe of the site), so the Progress view re-reads.
    pub(crate) progress_rev: RwSignal<u32>,
    /// The last export or import: `(ok, message)`.
    pub(crate) progress_status: RwSignal<Option<(bool, String)>>,
    /// The id of the newest panel request (older answers are not shown).
    pub(crate) panel_request: StoredValue<u64>,
    pub(crate) code: RwSignal<Option<CodeOutcome>>,
    pub(crate) messages: RwSignal<Vec<(String, String)>>,
    pub(crate) visible: RwSignal<[bool; 7]>,
    pub(crate) weights: RwSignal<[f64; 7]>,
    pub(crate) left_pct: RwSignal<f64>,
    pub(crate) dark: RwSignal<bool>,
    pub(crate) gallery: RwSignal<bool>,
    pub(crate) share_link: RwSignal<Option<String>>,
    pub(crate) example: RwSignal<String>,
    /// Every exercise (from the worker), and the one open, if any.
    pub(crate) exercises: RwSignal<Vec<ExerciseInfo>>,
    pub(crate) exercise: RwSignal<Option<ExerciseInfo>>,
    pub(crate) verdict: RwSignal<Option<CheckOutcome>>,
    pub(crate) checking: RwSignal<bool>,
    pub(crate) hints_shown: RwSignal<usize>,
    pub(crate) embed: StoredValue<Embed>,
    pub(crate) editor: StoredValue<Option<EditorHandle>, LocalStorage>,
    pub(crate) compiler: StoredValue<Option<Rc<Channel>>, LocalStorage>,
    pub(crate) runner: StoredValue<Option<Rc<Channel>>, LocalStorage>,
    pub(crate) debounce: StoredValue<Option<TimeoutHandle>, LocalStorage>,
    /// The Tune action: the panel the tuning worker rendered, the running
    /// tuning and the best schedule. Its controls are plain HTML
    /// (`tuning::CONTROLS_HTML`), updated through the DOM: small code.
    pub(crate) tuner: StoredValue<Option<Tuner>, LocalStorage>,
    /// The best schedule's calls and the module they schedule.
    pub(crate) tuned: StoredValue<Option<(String, String)>, LocalStorage>,
}

/// The two information panels (one dialog, plain HTML: small code).
#[derive(Clone, Copy, PartialEq)]
pub(crate) enum Panel {
    Device,
    Progress,
}

/// A running tuning: its own worker (so typing and Run stay with the
/// others), when it last spoke and the record to keep if it falls silent.
pub(crate) struct Tuner {
    pub(crate) channel: Rc<Channel>,
    pub(crate) last_ms: f64,
    pub(crate) if_silent: Option<(String, String)>,
}

pub(crate) fn now_ms() -> f64 {
    window().performance().map_or(0.0, |p| p.now())
}

impl Ctx {
    pub(crate) fn log(&self, class: &str, text: impl Into<String>) {
        let text = text.into();
        self.messages.update(|m| {
            m.push((class.to_string(), text));
            if m.len() > 50 {
                m.remove(0);
            }
        });
    }

    pub(crate) fn saved(&self) -> SavedState {
        SavedState {
            source: self.source.get_untracked(),
            step: self.step.get_untracked(),
            backend: self.backend.get_untracked(),
            example: self.example.get_untracked(),
        }
    }

    /// The editor's script and its revision: a new number whenever the
    /// text changed since the last one given out.
    pub(crate) fn current_revision(&self) -> (u64, String) {
        let source = self.source.get_untracked();
        let (last, last_source) = self.revision.get_value();
        if last > 0 && last_source == source {
            return (last, source);
        }
        self.revision.set_value((last + 1, source.clone()));
        (last + 1, source)
    }

    /// Sends the compiler worker the request `make` builds with a fresh id;
    /// the id, when the worker is there.
    pub(crate) fn ask_compiler(&self, make: impl FnOnce(u64) -> Request) -> Option<u64> {
        self.compiler.with_value(|c| {
            c.as_ref().map(|c| {
                let id = c.fresh_id();
                c.send(make(id));
                id
            })
        })
    }

    pub(crate) fn compile_now(&self) {
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
    pub(crate) fn progress(&self) -> Option<(String, ExerciseProgress)> {
        let id = self
            .exercise
            .with_untracked(|e| e.as_ref().map(|e| e.id.clone()))?;
        let saved = share::get_pref(&ExerciseProgress::key(&id))
            .and_then(|t| ExerciseProgress::from_json(&t))
            .unwrap_or_default();
        Some((id, saved))
    }

    /// Saves the open exercise's answer and hints (and that it passed).
    pub(crate) fn save_progress(&self, passed: Option<bool>) {
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
    pub(crate) fn saved_progress(&self) -> Vec<(String, String)> {
        share::prefs_with_prefix("exercise.")
    }

    /// Exports the progress file (`import: None`) or imports one: the
    /// full worker writes or reads it (`Request::ProgressFile`).
    pub(crate) fn progress_file(&self, import: Option<String>) {
        let saved = self.saved_progress();
        let ask = match import {
            None => PanelAsk::Export { saved },
            Some(file) => PanelAsk::Import { saved, file },
        };
        let ask = serde_json::to_string(&ask).unwrap_or_default();
        self.ask_compiler(|id| Request::ProgressFile { id, ask });
    }

    /// The worker's answer to a panel request: the panel shown (if it is
    /// the newest asked for and still open), a progress file downloaded
    /// (a data URL: no server involved), imported progress saved.
    pub(crate) fn on_panel_answer(&self, id: u64, outcome: &str) {
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
    pub(crate) fn open_exercise(&self, info: ExerciseInfo) {
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
    pub(crate) fn reset_exercise(&self) {
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
    pub(crate) fn check_now(&self) {
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

    pub(crate) fn schedule_compile(&self) {
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

    pub(crate) fn set_source(&self, text: &str) {
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
    pub(crate) fn load_example(&self, id: &str) {
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

    pub(crate) fn show_example(&self, ex: &'static examples::Example, source: &str) {
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

    pub(crate) fn run_now(&self) {
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

    pub(crate) fn stop_run(&self) {
        self.runner.with_value(|c| {
            if let Some(c) = c {
                Channel::restart(c);
            }
        });
        self.running.set(false);
        self.log("info", "run stopped");
    }

    /// Starts a tuning of the script's function in a full worker of its own
    /// (so a search never delays a compile; Stop ends it); the records kept
    /// in the record store go with it (once the store has been read).
    pub(crate) fn start_tune(&self) {
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

    pub(crate) fn start_tune_now(&self, target: &str) {
        let ctx = *self;
        let channel = Channel::on_full_worker(
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
            ("target", JsValue::from_str(target)),
            ("trials", JsValue::from_f64(trials)),
            (
                "stored",
                JsValue::from_str(&tuning::join_stored(&record_store::entries())),
            ),
        ] {
            let _ = js_sys::Reflect::set(&spec, &JsValue::from_str(k), &v);
        }
        // The tuning worker opens the revision once (it answers
        // `NeedsSource`, the channel sends the text it knows) and tunes the
        // function of that session.
        let (revision, source) = self.current_revision();
        channel.know_source(revision, &source);
        channel.send(Request::Tune {
            id: channel.fresh_id(),
            revision,
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
    pub(crate) fn check_tune_silence(&self) {
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
    pub(crate) fn on_tune_update(&self, update: &JsValue) {
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
    pub(crate) fn stop_tune(&self, error: Option<String>) {
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
    pub(crate) fn apply_tuned(&self) {
        let Some((calls, module)) = self.tuned.get_value() else {
            return;
        };
        let text = tuning::apply_schedule(&self.source.get_untracked(), &calls, &module);
        self.step.set(usize::MAX);
        self.set_source(&text);
        self.log("info", "applied the tuned schedule");
    }

    pub(crate) fn share(&self) {
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

    pub(crate) fn append_code(&self, lines: &[String]) {
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

    pub(crate) fn on_compiled(&self, outcome: CompileOutcome) {
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

/// The exercises' list in the built site (see `tessel-course`'s
/// `exercise-catalogue`).
pub(crate) const EXERCISE_INDEX: &str = "exercises/index.json";

/// The list of exercises: id, title and target of each (the rest comes
/// with an exercise's own file when it is opened).
pub(crate) fn parse_exercise_index(json: &str) -> Result<Vec<ExerciseInfo>, String> {
    #[derive(serde::Deserialize)]
    struct Index {
        exercises: Vec<ExerciseInfo>,
    }
    serde_json::from_str::<Index>(json)
        .map(|i| i.exercises)
        .map_err(|e| format!("{EXERCISE_INDEX}: {e}"))
}

/// A file of the site, relative to the page, as text.
pub(crate) async fn fetch_text(url: &str) -> Result<String, String> {
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
pub(crate) fn detect_gpu(ctx: Ctx) {
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
pub(crate) fn watch_progress(ctx: Ctx) {
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
pub(crate) fn show_panels(ctx: Ctx) {
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
        if let Some(id) = ctx.ask_compiler(|id| Request::Panel { id, ask }) {
            ctx.panel_request.set_value(id);
        }
        panel
    });
}

/// Downloads `text` as file `name` (a data URL: no server involved).
pub(crate) fn download(name: &str, text: &str) {
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
pub(crate) fn on_panel_event(ctx: Ctx, ev: web_sys::Event) {
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

thread_local! {
    /// The gallery's sources and descriptions once fetched (`examples.json`).
    pub(crate) static GALLERY_FILE: RefCell<Option<Rc<examples::GalleryFile>>> =
        const { RefCell::new(None) };
}

/// The gallery's sources and descriptions, fetched once.
pub(crate) async fn gallery_file() -> Result<Rc<examples::GalleryFile>, String> {
    if let Some(all) = GALLERY_FILE.with(|c| c.borrow().clone()) {
        return Ok(all);
    }
    let all = Rc::new(fetch_gallery_file().await?);
    GALLERY_FILE.with(|c| *c.borrow_mut() = Some(all.clone()));
    Ok(all)
}

/// An example's source: the default one is compiled in, the others come
/// from `examples.json`, fetched once.
pub(crate) async fn example_source(id: &str) -> Result<String, String> {
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

/// `examples.json`, parsed.
pub(crate) async fn fetch_gallery_file() -> Result<examples::GalleryFile, String> {
    let text = fetch_text(examples::SOURCES_FILE).await?;
    serde_json::from_str(&text).map_err(|e| e.to_string())
}
