//! The memory picture: which elements of each buffer one iteration of a
//! loop, one lane of a vectorized loop, one GPU thread or one workgroup
//! touches, drawn as one grid per buffer (reads blue, writes red), with a
//! slider and Play/Pause over the units and the element loads and stores
//! by memory scope.
//!
//! The worker computes the picture and draws its grids as HTML
//! (`Request::MemoryAccess`, answered by the full worker, and
//! `web_ui::memory_picture`): a page loads none of that code until the
//! picture is opened, and this file holds only the controls' state and
//! events. Every
//! touched cell is an SVG `rect` with `data-buffer`, `data-index` (`i,j`)
//! and `data-touched` (`read`, `write` or `read write`), so tests and
//! tools can read the picture back.

use std::time::Duration;

use leptos::prelude::*;

use wasm_bindgen::JsCast;
use web_ui::memory_picture::DRAWING_HTML;
use web_ui::protocol::MemoryOutcome;

/// Play advances one unit this often.
const PLAY_EVERY: Duration = Duration::from_millis(700);

/// What the picture shows and where it stands; owned by the page.
#[derive(Clone, Copy)]
pub struct MemoryState {
    /// The function and loop (pre-order index) it was opened for; `None`
    /// while closed.
    pub target: RwSignal<Option<(String, Option<usize>)>>,
    /// `iteration`, `lane`, `thread` or `workgroup`.
    pub unit: RwSignal<String>,
    pub at: RwSignal<i64>,
    pub playing: RwSignal<bool>,
    pub outcome: RwSignal<Option<MemoryOutcome>>,
}

impl MemoryState {
    pub fn new() -> MemoryState {
        MemoryState {
            target: RwSignal::new(None),
            unit: RwSignal::new("iteration".into()),
            at: RwSignal::new(0),
            playing: RwSignal::new(false),
            outcome: RwSignal::new(None),
        }
    }

    /// Opens the picture of one iteration of a loop (or, with no loop, of
    /// the first unit the function offers), at its first unit.
    pub fn open(&self, func: &str, loop_index: Option<usize>, unit: &str) {
        self.playing.set(false);
        self.outcome.set(None);
        self.unit.set(unit.to_string());
        self.at.set(0);
        self.target.set(Some((func.to_string(), loop_index)));
    }

    pub fn close(&self) {
        self.playing.set(false);
        self.target.set(None);
        self.outcome.set(None);
    }

    /// Takes the worker's answer; a picture asked for a unit the target
    /// does not offer moves to the first one it does.
    pub fn answer(&self, outcome: MemoryOutcome) {
        let wanted = self.target.with_untracked(|t| {
            t.as_ref()
                .is_some_and(|(f, l)| *f == outcome.func && *l == outcome.loop_index)
        });
        if !wanted {
            return;
        }
        if !outcome.units.contains(&outcome.unit) {
            if let Some(first) = outcome.units.first() {
                self.unit.set(first.clone());
            }
        }
        self.outcome.set(Some(outcome));
    }
}

impl Default for MemoryState {
    fn default() -> Self {
        MemoryState::new()
    }
}

/// Shows the picture in `#memory-host` (the worker's HTML, in an
/// `aside`), or nothing while it is closed, and runs Play: effects writing
/// HTML rather than a component, as for the Device and Progress panels,
/// for less code in the page's wasm. The controls' events reach
/// [`on_event`] by delegation.
pub fn show(state: MemoryState) {
    Effect::new(move |_| {
        let open = state.target.with(|t| t.is_some());
        let html = if open {
            state.outcome.with(|o| {
                format!(
                    "<aside class=\"memory-view\" id=\"memory-view\" aria-label=\"Memory-access picture\">{}</aside>",
                    o.as_ref().map_or(DRAWING_HTML, |o| o.html.as_str())
                )
            })
        } else {
            String::new()
        };
        if let Some(host) = document().get_element_by_id("memory-host") {
            host.set_inner_html(&html);
        }
    });
    // Play: one unit per tick, round and round.
    let timer = StoredValue::new_local(None::<IntervalHandle>);
    Effect::new(move |_| {
        let playing = state.playing.get();
        if let Some(h) = timer.get_value() {
            h.clear();
            timer.set_value(None);
        }
        if playing {
            let handle = set_interval_with_handle(
                move || {
                    let steps = state
                        .outcome
                        .with_untracked(|o| o.as_ref().map_or(1, |o| o.steps.max(1)));
                    state.at.update(|a| *a = (*a + 1) % steps);
                },
                PLAY_EVERY,
            );
            timer.set_value(handle.ok());
        }
    });
}

/// The picture's controls, by the id of the element the event came from
/// (`click`, `change` or `input`).
pub fn on_event(state: MemoryState, ev: web_sys::Event) {
    let id = ev
        .target()
        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
        .map(|e| e.id())
        .unwrap_or_default();
    match (ev.type_().as_str(), id.as_str()) {
        ("click", "memory-close") => state.close(),
        ("click", "memory-play") => state.playing.update(|p| *p = !*p),
        ("change", "memory-loop") => {
            let choice = event_target_value(&ev).parse::<usize>().ok();
            if let Some(func) = state
                .target
                .with_untracked(|t| t.as_ref().map(|(f, _)| f.clone()))
            {
                // A lane belongs to its loop: another loop starts at an iteration.
                let unit = state.unit.get_untracked();
                let unit = if unit == "lane" {
                    "iteration".to_string()
                } else {
                    unit
                };
                state.open(&func, choice, &unit);
            }
        }
        ("change", "memory-unit") => {
            state.playing.set(false);
            state.at.set(0);
            state.unit.set(event_target_value(&ev));
        }
        ("input", "memory-slider") => {
            state.playing.set(false);
            state.at.set(event_target_value(&ev).parse().unwrap_or(0));
        }
        _ => {}
    }
}
