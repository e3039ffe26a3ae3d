//! Bundles the repository's `exercises/*.toml` into the crate: generates
//! `bundled.rs`, a list of `(file name, text)` pairs read with
//! `include_str!`, so the command line and the playground carry the course
//! without reading files at run time. Parsing and validation happen in the
//! crate (and its tests), where errors name the file and field.

use std::fs;
use std::path::Path;

fn main() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../exercises");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut files: Vec<_> = fs::read_dir(&dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "toml"))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    let mut out = String::from("/// The repository's exercise files: (file name, text).\npub const BUNDLED: &[(&str, &str)] = &[\n");
    for path in &files {
        println!("cargo:rerun-if-changed={}", path.display());
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        let full = path.canonicalize().unwrap_or_else(|_| path.clone());
        out.push_str(&format!(
            "    ({name:?}, include_str!({:?})),\n",
            full.display().to_string()
        ));
    }
    out.push_str("];\n");
    let target =
        Path::new(&std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("bundled.rs");
    fs::write(target, out).expect("OUT_DIR is writable");
}
