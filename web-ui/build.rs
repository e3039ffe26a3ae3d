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
    // One line per example, `id<TAB>category<TAB>title<TAB>backend`: the
    // category only where it changes, the title only where it is not the id
    // with spaces, `g` for WebGPU (else the CPU). A table of string
    // pointers would cost the page's first load several kilobytes more;
    // `examples::all` reads this once.
    let mut list = String::new();
    let mut last_category = "";
    for ex in &all {
        let category = if ex.category == last_category {
            ""
        } else {
            ex.category
        };
        last_category = ex.category;
        let title = if ex.title == ex.id.replace('_', " ") {
            ""
        } else {
            ex.title.as_str()
        };
        let backend = if ex.backend() == "webgpu" { "g" } else { "" };
        let _ = writeln!(list, "{}\t{category}\t{title}\t{backend}", ex.id);
    }
    let mut code = format!("pub static LIST: &str = {list:?};\n");
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
}
