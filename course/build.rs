//! Bundles the repository's `exercises/*.toml` into the crate: generates
//! `bundled.rs`, a list of `(file name, JSON)` pairs, so the command line
//! and the playground carry the course without reading files at run time.
//! Each file is turned from TOML into JSON here, so the playground's worker
//! decodes it with the JSON reader it has anyway instead of carrying a TOML
//! parser. Validation happens in the crate (and its tests), where errors
//! name the file and field; a file that is not TOML fails the build here.

use std::fs;
use std::path::Path;

fn main() {
    // The manifest directory at run time: a build script binary may be
    // reused from a checkout at another path (cargo's hashes of workspace
    // crates do not depend on where the workspace is).
    let manifest = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let dir = Path::new(&manifest).join("../exercises");
    println!("cargo:rerun-if-changed={}", dir.display());
    let entries = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read the exercises in {}: {e}", dir.display()));
    let mut files: Vec<_> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    assert!(
        !files.is_empty(),
        "no exercise files (*.toml) in {}",
        dir.display()
    );
    files.sort();
    let mut out = String::from(
        "/// The repository's exercise files: (file name, the file as JSON).\npub const BUNDLED: &[(&str, &str)] = &[\n",
    );
    for path in &files {
        println!("cargo:rerun-if-changed={}", path.display());
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        let text = fs::read_to_string(path)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        let value: serde_json::Value = toml::from_str(&text)
            .unwrap_or_else(|e| panic!("exercises/{name} is not valid TOML: {e}"));
        out.push_str(&format!("    ({name:?}, {:?}),\n", value.to_string()));
    }
    out.push_str("];\n");
    let target =
        Path::new(&std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("bundled.rs");
    fs::write(target, out).expect("OUT_DIR is writable");
}
