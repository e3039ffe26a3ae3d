//! The panes: editor, console, run, IR (with the primitive menu), trace, loop
//! nest and regions, generated code, structure, and the formatting they share.

use super::*;

/// The console's text with rich display output rendered by the editor
/// bundle: HTML and Markdown sanitised, code highlighted like the editor.
pub(crate) fn console_view(c: &CompileOutcome) -> impl IntoView {
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
pub(crate) fn rich_view(
    kind: &str,
    text: String,
    language: String,
    id: &'static str,
) -> impl IntoView {
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
pub(crate) fn EditorPane() -> impl IntoView {
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
pub(crate) fn ConsolePane() -> impl IntoView {
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

pub(crate) fn fmt_ms(ms: f64) -> String {
    if ms >= 100.0 {
        format!("{ms:.0} ms")
    } else if ms >= 1.0 {
        format!("{ms:.2} ms")
    } else {
        format!("{:.0} µs", ms * 1000.0)
    }
}

pub(crate) fn backend_title(b: &str) -> &'static str {
    match b {
        "wasm" => "CPU (WebAssembly SIMD128)",
        "wasm-fma" => "CPU (WebAssembly SIMD128, relaxed FMA)",
        "webgpu" => "GPU (WebGPU)",
        _ => "reference interpreter",
    }
}

pub(crate) fn fmt_err(x: Option<f64>) -> String {
    match x {
        Some(0.0) => "0 (exact)".into(),
        Some(v) => format!("{v:.2e}"),
        None => "—".into(),
    }
}

#[component]
pub(crate) fn RunPane() -> impl IntoView {
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
pub(crate) fn set_tune_view(html: &str, above: bool) {
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
pub(crate) fn tune_buttons(running: bool, can_apply: bool) {
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
pub(crate) fn TunePanel() -> impl IntoView {
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
pub(crate) fn current_step(ctx: &Ctx) -> Option<(usize, Step)> {
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
pub(crate) fn IrPane() -> impl IntoView {
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

pub(crate) fn render_ir(ctx: Ctx, text: &IrText) -> impl IntoView {
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
pub(crate) fn PrimitivePanel(analyzed: Memo<Option<IrText>>) -> impl IntoView {
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
pub(crate) fn PrimRow(
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
pub(crate) fn prim_rows(
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
pub(crate) fn LoopPrims(lc: ir_view::LoopCtx, read_only: bool) -> impl IntoView {
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
pub(crate) fn BlockPrims(
    func: String,
    name: String,
    multi: bool,
    read_only: bool,
) -> impl IntoView {
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
pub(crate) fn TracePane() -> impl IntoView {
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

pub(crate) fn c_len(ctx: &Ctx) -> usize {
    ctx.compiled
        .with(|c| c.as_ref().map_or(0, |c| c.steps.len()))
}

#[component]
pub(crate) fn NestPane() -> impl IntoView {
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

pub(crate) fn nest_node(ctx: Ctx, n: &NestNode, func: &str, names: &[String]) -> AnyView {
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
pub(crate) fn Regions() -> impl IntoView {
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
pub(crate) fn region_svg(g: &RegionInfo) -> AnyView {
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
pub(crate) fn CodePane() -> impl IntoView {
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

/// One side of a failed structure check: the function as TVMScript with
/// the mismatching lines highlighted and scrolled into view.
#[component]
pub(crate) fn StructurePane(title: &'static str, id: &'static str, pane: IrPane) -> impl IntoView {
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
