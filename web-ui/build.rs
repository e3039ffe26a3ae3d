//! Builds the examples gallery's list (see `gallery.rs`) into
//! `$OUT_DIR/examples.rs` (see `src/examples.rs`): titles, categories and
//! backends for the UI, the default example's source (a fresh visit
//! starts without a fetch), and every source and description for native
//! tests. In the browser the other sources and the descriptions come from
//! `examples.json`.

use std::fmt::Write as _;
use std::fs;
use std::path::PathBuf;

#[path = "gallery.rs"]
mod gallery;

/// The example a fresh visit starts with (also `examples::DEFAULT`).
const DEFAULT: &str = "mm_relu";

fn main() {
    let here = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let mut watched = Vec::new();
    let all = gallery::collect(&here, &mut watched);
    for path in &watched {
        println!("cargo:rerun-if-changed={}", path.display());
    }
    let mut code = String::from("pub static EXAMPLES: &[Example] = &[\n");
    for ex in &all {
        let _ = writeln!(
            code,
            "    Example {{ id: {:?}, category: {:?}, title: {:?}, backend: {:?} }},",
            ex.id,
            ex.category,
            ex.title,
            ex.backend()
        );
    }
    code.push_str("];\n");
    let default = all
        .iter()
        .find(|e| e.id == DEFAULT)
        .expect("the default example exists");
    let _ = writeln!(code, "pub const DEFAULT: &str = {DEFAULT:?};");
    let _ = writeln!(
        code,
        "pub const DEFAULT_SOURCE: &str = {:?};",
        default.source
    );
    code.push_str(
        "#[cfg(not(target_arch = \"wasm32\"))]\npub static SOURCES: &[(&str, &str)] = &[\n",
    );
    for ex in &all {
        let _ = writeln!(code, "    ({:?}, {:?}),", ex.id, ex.source);
    }
    code.push_str("];\n");
    code.push_str(
        "#[cfg(not(target_arch = \"wasm32\"))]\npub static DESCRIPTIONS: &[(&str, &str)] = &[\n",
    );
    for ex in &all {
        let _ = writeln!(code, "    ({:?}, {:?}),", ex.id, ex.description);
    }
    code.push_str("];\n");
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    fs::write(out_dir.join("examples.rs"), code).unwrap();
    fs::write(out_dir.join("statements.rs"), statements(&here)).unwrap();
}

/// `STATEMENTS: &[(id, html)]`: every exercise's statement (Markdown, in
/// `exercises/*.toml`) as HTML, raw HTML in it shown as text. The files are
/// validated where they are bundled (tessel-course); one this cannot read
/// just has no entry, and the page renders its Markdown itself.
fn statements(here: &std::path::Path) -> String {
    use pulldown_cmark::{html, Event, Parser};
    let dir = here.join("../exercises");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut files: Vec<PathBuf> = fs::read_dir(&dir)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    files.retain(|p| p.extension().is_some_and(|x| x == "toml"));
    files.sort();
    let mut code = String::from("pub static STATEMENTS: &[(&str, &str)] = &[\n");
    for path in files {
        println!("cargo:rerun-if-changed={}", path.display());
        let Ok(table) = fs::read_to_string(&path)
            .map_err(|e| e.to_string())
            .and_then(|t| t.parse::<toml::Table>().map_err(|e| e.to_string()))
        else {
            continue;
        };
        let (Some(id), Some(markdown)) = (
            table.get("id").and_then(|v| v.as_str()),
            table.get("statement").and_then(|v| v.as_str()),
        ) else {
            continue;
        };
        let events = Parser::new(markdown).map(|e| match e {
            Event::Html(raw) | Event::InlineHtml(raw) => Event::Text(raw),
            other => other,
        });
        let mut rendered = String::new();
        html::push_html(&mut rendered, events);
        let _ = writeln!(code, "    ({id:?}, {rendered:?}),");
    }
    code.push_str("];\n");
    code
}
