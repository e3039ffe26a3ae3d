//! Tessel's browser playground: a Leptos client-side-rendered app.
//!
//! For now it is only the shell — an editor and an output pane wired
//! reactively. The output shows trivial facts about the source until
//! `compiler-core` exposes its parser and printer; then the pane shows the
//! compiler's output instead (see `describe`).

use leptos::prelude::*;

/// The program the editor starts with.
const SAMPLE: &str = r#"# A TVMScript PrimFunc: C = A + B on 128 floats.
from tvm.script import tir as T

@T.prim_func
def add(A: T.Buffer((128,), "float32"),
        B: T.Buffer((128,), "float32"),
        C: T.Buffer((128,), "float32")):
    T.func_attr({"global_symbol": "add", "tir.noalias": True})
    for i in range(128):
        with T.block("C"):
            vi = T.axis.spatial(128, i)
            C[vi] = A[vi] + B[vi]
"#;

/// What the output pane shows for a given source text.
///
/// Placeholder until `compiler-core` has a parser and printer.
fn describe(source: &str) -> String {
    let count = |n: usize, what: &str| format!("{n} {what}{}", if n == 1 { "" } else { "s" });
    format!(
        "{}, {}",
        count(source.lines().count(), "line"),
        count(source.chars().count(), "character")
    )
}

#[component]
fn App() -> impl IntoView {
    let (source, set_source) = signal(SAMPLE.to_string());
    let output = move || source.with(|s| describe(s));

    view! {
        <header class="topbar">
            <h1>"Tessel"</h1>
            <span class="tagline">"TensorIR in the browser"</span>
        </header>
        <main class="panes">
            <section class="pane">
                <label for="editor">"Program"</label>
                <textarea
                    id="editor"
                    spellcheck="false"
                    autocomplete="off"
                    prop:value=move || source.get()
                    on:input=move |ev| set_source.set(event_target_value(&ev))
                ></textarea>
            </section>
            <section class="pane">
                <label for="output">"Output"</label>
                <pre id="output" aria-live="polite">{output}</pre>
            </section>
        </main>
    }
}

fn main() {
    console_error_panic_hook::set_once();
    mount_to_body(App);
}
