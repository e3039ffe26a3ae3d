//! The page's frame: the top bar, the pane layout with its splitters and
//! status lines, the example gallery and the exercise panel.

use super::*;

#[component]
pub(crate) fn TopBar() -> impl IntoView {
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
pub(crate) fn PaneMenu() -> impl IntoView {
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
pub(crate) fn Layout() -> impl IntoView {
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
pub(crate) fn RowSplitter(above: Pane, below: Pane) -> impl IntoView {
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
pub(crate) fn PaneBox(pane: Pane) -> impl IntoView {
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
pub(crate) fn PaneStatus(pane: Pane) -> impl IntoView {
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

#[component]
pub(crate) fn Gallery() -> impl IntoView {
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

/// The open exercise: statement, Check, hints revealed one at a time, the
/// verdict per check, and reset.
#[component]
pub(crate) fn ExercisePanel() -> impl IntoView {
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
