//! The memory picture: which elements of each buffer one iteration of a
//! loop, one lane of a vectorized loop, one GPU thread or one workgroup
//! touches, drawn as one grid per buffer (reads blue, writes red), with a
//! slider and Play/Pause over the units and the element loads and stores
//! by memory scope.
//!
//! The worker computes the picture (`Request::MemoryAccess`, answered by
//! the full worker: a page loads none of it until the picture is opened);
//! this file only draws it. Every touched cell is an SVG `rect` with
//! `data-buffer`, `data-index` (`i,j`) and `data-touched` (`read`, `write`
//! or `read write`), so tests and tools can read the picture back.

use std::time::Duration;

use leptos::prelude::*;

use web_ui::protocol::{FuncNest, MemoryBuffer, MemoryOutcome};

/// Play advances one unit this often.
const PLAY_EVERY: Duration = Duration::from_millis(700);
/// The largest side a grid is drawn at, in pixels.
const GRID_PX: f64 = 260.0;

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

/// The picture's panel. `nest` is the function's loop nest at the shown
/// step (the loop chooser).
#[component]
pub fn MemoryPanel(state: MemoryState, nest: Signal<Option<FuncNest>>) -> impl IntoView {
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
    on_cleanup(move || {
        if let Some(h) = timer.get_value() {
            h.clear();
        }
    });
    let steps = move || {
        state
            .outcome
            .with(|o| o.as_ref().map_or(1, |o| o.steps.max(1)))
    };
    let loop_choice = move || {
        state
            .target
            .with(|t| t.as_ref().and_then(|(_, l)| *l))
            .map(|l| l.to_string())
            .unwrap_or_default()
    };
    view! {
        <aside class="memory-view" id="memory-view" aria-label="Memory-access picture">
            <div class="memory-head">
                <h3>"Memory accesses"</h3>
                <button class="hide" aria-label="Close the memory picture" on:click=move |_| state.close()>"✕"</button>
            </div>
            <div class="memory-controls">
                <label class="small">"loop "
                    <select id="memory-loop" prop:value=loop_choice
                        on:change=move |ev| {
                            let choice = event_target_value(&ev).parse::<usize>().ok();
                            if let Some(func) = state.target.with_untracked(|t| t.as_ref().map(|(f, _)| f.clone())) {
                                let unit = state.unit.get_untracked();
                                let unit = if unit == "lane" { "iteration".to_string() } else { unit };
                                state.open(&func, choice, &unit);
                            }
                        }>
                        <option value="">"(none)"</option>
                        {move || nest.get().map(|n| n.loops.iter().enumerate().map(|(i, l)| view! {
                            <option value=i.to_string() selected=move || loop_choice() == i.to_string()>
                                {format!("{} × {}{}", l.name, l.extent.map(|e| e.to_string()).unwrap_or_else(|| "?".into()),
                                    if l.detail == "serial" { String::new() } else { format!(" {}", l.detail) })}
                            </option>
                        }).collect_view())}
                    </select>
                </label>
                <label class="small">" show one "
                    <select id="memory-unit" prop:value=move || state.unit.get()
                        on:change=move |ev| {
                            state.playing.set(false);
                            state.at.set(0);
                            state.unit.set(event_target_value(&ev));
                        }>
                        {move || {
                            let offered = state.outcome.with(|o| o.as_ref().map(|o| o.units.clone())).unwrap_or_default();
                            let offered = if offered.is_empty() { vec![state.unit.get()] } else { offered };
                            offered.into_iter().map(|u| view! {
                                <option value=u.clone() selected=move || state.unit.get() == u>{u.clone()}</option>
                            }).collect_view()
                        }}
                    </select>
                </label>
                <button id="memory-play" class="tb" aria-pressed=move || state.playing.get().to_string()
                    on:click=move |_| state.playing.update(|p| *p = !*p)>
                    {move || if state.playing.get() { "❚❚ Pause" } else { "▶ Play" }}
                </button>
                <input type="range" id="memory-slider" min="0" aria-label="Which unit to draw"
                    prop:max=move || (steps() - 1).to_string()
                    prop:value=move || state.at.get().to_string()
                    on:input=move |ev| {
                        state.playing.set(false);
                        state.at.set(event_target_value(&ev).parse().unwrap_or(0));
                    }/>
                <span class="small" id="memory-label">{move || state.outcome.with(|o| match o {
                    Some(o) if o.error.is_none() => format!("{} {} of {}: {}", o.unit, o.at, o.steps, o.label),
                    _ => String::new(),
                })}</span>
            </div>
            {move || match state.outcome.get() {
                None => view! { <p class="muted small" id="memory-status">"Drawing…"</p> }.into_any(),
                Some(o) => match o.error.clone() {
                    Some(why) => view! { <p class="error small" id="memory-error">{why}</p> }.into_any(),
                    None => picture(&o).into_any(),
                },
            }}
        </aside>
    }
}

/// The counts and one grid per buffer.
fn picture(o: &MemoryOutcome) -> impl IntoView {
    let at = o.at.to_string();
    view! {
        <table class="memory-counts" id="memory-counts" data-at=at.clone()>
            <thead><tr><th>"scope"</th><th>"loads"</th><th>"stores"</th></tr></thead>
            <tbody>
                {o.counts.iter().map(|c| view! {
                    <tr data-scope=c.scope.clone()>
                        <td>{c.scope.clone()}</td>
                        <td class="loads">{c.loads}</td>
                        <td class="stores">{c.stores}</td>
                    </tr>
                }).collect_view()}
            </tbody>
        </table>
        <p class="muted small">"Element loads and stores; cells: "
            <span class="key read">"read"</span>" "<span class="key write">"written"</span>" "<span class="key both">"both"</span></p>
        <div class="memory-grids" data-at=at>
            {o.buffers.iter().map(grid).collect_view()}
        </div>
    }
}

/// One buffer as a grid: the touched cells drawn, each with its index.
fn grid(b: &MemoryBuffer) -> impl IntoView {
    let (rows, cols) = (b.rows.max(1), b.cols.max(1));
    let cell = (GRID_PX / rows.max(cols) as f64).clamp(1.0, 14.0);
    let (w, h) = (cols as f64 * cell, rows as f64 * cell);
    // Both lists are ascending: one merge pass classifies every cell.
    let mut cells: Vec<(i64, &'static str)> = Vec::with_capacity(b.reads.len() + b.writes.len());
    let (mut r, mut wr) = (b.reads.iter().peekable(), b.writes.iter().peekable());
    loop {
        let next = match (r.peek(), wr.peek()) {
            (Some(&&x), Some(&&y)) if x == y => {
                r.next();
                wr.next();
                (x, "read write")
            }
            (Some(&&x), Some(&&y)) if x < y => {
                r.next();
                (x, "read")
            }
            (Some(&&x), None) => {
                r.next();
                (x, "read")
            }
            (_, Some(&&y)) => {
                wr.next();
                (y, "write")
            }
            (None, None) => break,
        };
        cells.push(next);
    }
    let shape = b.shape.clone();
    let name = b.name.clone();
    let rects = cells
        .into_iter()
        .map(|(offset, touched)| {
            let index = unflatten(&shape, offset)
                .iter()
                .map(|i| i.to_string())
                .collect::<Vec<_>>()
                .join(",");
            let (row, col) = (offset / cols, offset % cols);
            view! {
                <rect class=format!("cell {}", touched.replace(' ', "-"))
                    x=col as f64 * cell y=row as f64 * cell width=cell height=cell
                    data-buffer=name.clone() data-index=index data-touched=touched/>
            }
        })
        .collect_view();
    let shape_text = format!("{:?}", b.shape);
    view! {
        <figure class="memory-buffer" data-buffer=b.name.clone() data-scope=b.scope.clone()>
            <figcaption>
                <code>{b.name.clone()}</code>
                <span class="muted small">{format!(" {shape_text} {} · {} loads, {} stores", b.scope, b.loads, b.stores)}</span>
            </figcaption>
            <svg class="memory-grid" width=w + 2.0 height=h + 2.0
                viewBox=format!("-1 -1 {} {}", w + 2.0, h + 2.0)
                role="img" aria-label=format!("{} {shape_text}: {} cells read, {} written", b.name, b.reads.len(), b.writes.len())>
                <rect class="buf" x="0" y="0" width=w height=h/>
                {rects}
            </svg>
        </figure>
    }
}

/// The index of a row-major offset in `shape`.
fn unflatten(shape: &[i64], mut offset: i64) -> Vec<i64> {
    let mut index = vec![0; shape.len()];
    for (slot, &n) in index.iter_mut().zip(shape).rev() {
        if n > 0 {
            *slot = offset % n;
            offset /= n;
        }
    }
    index
}
