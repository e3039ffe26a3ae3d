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

mod chrome;
mod ctx;
mod editor;
mod memory_view;
mod panes;
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

use chrome::*;
use ctx::*;
use panes::*;

#[component]
fn App() -> impl IntoView {
    let embed = read_embed();
    let ctx = new_ctx(&embed);
    provide_context(ctx);
    record_store::open(move |why| ctx.log("error", why));
    follow_theme(ctx);
    restore_initial_state(ctx, &embed);
    let compiler = compiler_channel(ctx);
    let runner = runner_channel(ctx);
    load_exercises(ctx);
    ctx.compiler.set_value(Some(compiler));
    ctx.runner.set_value(Some(runner));
    ctx.compile_now();
    detect_gpu(ctx);
    watch_progress(ctx);
    show_panels(ctx);
    memory_view::show(ctx.memory);
    fall_back_from_fma(ctx);
    request_code_of_shown_step(ctx);
    request_regions_of_selected_loop(ctx);
    request_memory_picture(ctx);
    global_shortcuts(ctx);

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

/// The page's state at start: panes shown as the embedding asks, the theme
/// the user chose (or the system's), what this device can do.
fn new_ctx(embed: &Embed) -> Ctx {
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
    Ctx {
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
    }
}

/// The document follows the chosen theme.
fn follow_theme(ctx: Ctx) {
    Effect::new(move |_| {
        let theme = if ctx.dark.get() { "dark" } else { "light" };
        if let Some(root) = document().document_element() {
            let _ = root.set_attribute("data-theme", theme);
        }
    });
}

/// The source, step, backend and example the page opens with.
fn restore_initial_state(ctx: Ctx, embed: &Embed) {
    // A share link first, then the embedding's parameters, the autosave and
    // the default example.
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
}

/// The worker that compiles (the latest edit wins) and answers the
/// panes' questions about the compiled steps.
fn compiler_channel(ctx: Ctx) -> Rc<Channel> {
    Channel::new(
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
    )
}

/// The worker that runs programs and checks exercises, so neither typing nor
/// compiling waits for a run.
fn runner_channel(ctx: Ctx) -> Rc<Channel> {
    Channel::new(
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
    )
}

/// Lists the exercises and opens the one the URL asks for (its own file:
/// an embedded exercise fetches nothing of the others').
fn load_exercises(ctx: Ctx) {
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
}

/// A device without relaxed SIMD runs the plain CPU backend, said once.
fn fall_back_from_fma(ctx: Ctx) {
    if let Err(why) = ctx.fma.get_untracked() {
        if ctx.backend.get_untracked() == "wasm-fma" {
            ctx.backend.set("wasm".into());
            ctx.log(
                "info",
                format!("the CPU backend runs without relaxed FMA: {why}"),
            );
        }
    }
}

/// The generated code of the shown step, for the chosen backend (asked
/// after each compile, so it never displaces a pending compile).
fn request_code_of_shown_step(ctx: Ctx) {
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
        ctx.ask_compiler(|id| Request::Code {
            id,
            revision,
            step: step.min(n - 1),
            backend,
        });
    });
}

/// Regions for the selected loop (the loop-nest picture).
fn request_regions_of_selected_loop(ctx: Ctx) {
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
        ctx.ask_compiler(|id| Request::Regions {
            id,
            revision,
            step: step.min(n - 1),
            func,
            loop_index: index,
            at,
        });
    });
}

/// The memory picture of the chosen unit, at the shown step.
fn request_memory_picture(ctx: Ctx) {
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
        ctx.ask_compiler(|id| Request::MemoryAccess {
            id,
            revision,
            step: step.min(n - 1),
            func,
            unit,
            loop_index,
            at,
            playing,
        });
    });
}

/// Global shortcuts (the editor handles its own when focused).
fn global_shortcuts(ctx: Ctx) {
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
