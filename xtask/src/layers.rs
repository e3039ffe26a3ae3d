//! The layering check: inside every crate of the workspace, the top-level
//! modules must form an acyclic graph of `crate::` imports, so each crate
//! reads bottom-up (a module only uses the modules below it). Cargo already
//! forbids cycles between crates; this catches them between modules.
//!
//! Unit tests count: a `#[cfg(test)] mod tests { … }` block or a
//! `#[cfg(test)] mod x;` file adds its references to the top-level module
//! it sits in, so a test that builds its input with a module above its own
//! is a cycle too (move it to the crate's integration tests instead).
//!
//! `cargo xtask layers` prints each crate's module order; the unit test
//! `workspace_has_no_module_cycles` fails on a new cycle (it runs in
//! `cargo xtask test` with the other tests).

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// One crate's top-level modules and which of them each one imports.
pub struct ModuleGraph {
    pub krate: String,
    pub edges: BTreeMap<String, BTreeSet<String>>,
}

/// The graphs of every crate under `root` (a folder with `Cargo.toml` and
/// `src/lib.rs` or `src/main.rs`), sorted by crate folder.
pub fn workspace_graphs(root: &Path) -> Vec<ModuleGraph> {
    let mut dirs: Vec<PathBuf> = fs::read_dir(root)
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    dirs.sort();
    dirs.into_iter()
        .filter(|d| d.join("Cargo.toml").is_file() && d.join("src").is_dir())
        .map(|d| module_graph(&d))
        .collect()
}

fn module_graph(krate_dir: &Path) -> ModuleGraph {
    let src = krate_dir.join("src");
    let mut modules: BTreeMap<String, Vec<PathBuf>> = BTreeMap::new();
    for entry in fs::read_dir(&src).into_iter().flatten().flatten() {
        let path = entry.path();
        let name = path.file_stem().and_then(|s| s.to_str()).unwrap_or("");
        if path.is_dir() {
            let mut files = Vec::new();
            rust_files(&path, &mut files);
            modules.entry(name.to_string()).or_default().extend(files);
        } else if path.extension().is_some_and(|e| e == "rs") && !matches!(name, "lib" | "main") {
            modules.entry(name.to_string()).or_default().push(path);
        }
    }
    let names: BTreeSet<String> = modules.keys().cloned().collect();
    let mut edges = BTreeMap::new();
    for (module, files) in &modules {
        let mut used = BTreeSet::new();
        for file in files {
            let text = fs::read_to_string(file).unwrap_or_default();
            let depth = module_depth(&src, file);
            let mut targets = crate_paths(&text);
            targets.extend(super_paths(&text, depth));
            for target in targets {
                if &target != module && names.contains(&target) {
                    used.insert(target);
                }
            }
        }
        edges.insert(module.clone(), used);
    }
    ModuleGraph {
        krate: krate_dir
            .file_name()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default(),
        edges,
    }
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// How deep a file's module is below the crate root: `src/a.rs` and
/// `src/a/mod.rs` are 1, `src/a/b.rs` is 2.
fn module_depth(src: &Path, file: &Path) -> usize {
    let rel = file.strip_prefix(src).unwrap_or(file);
    let parts = rel.components().count();
    if rel.file_name().is_some_and(|n| n == "mod.rs") {
        parts - 1
    } else {
        parts
    }
}

/// The top-level modules reached through `super::` chains that climb to the
/// crate root (from a file `depth` modules down): in `src/a.rs`,
/// `super::b::X` is module `b`; in `src/a/c.rs`, `super::super::b` is.
fn super_paths(text: &str, depth: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find("super::") {
        let before = rest[..i].chars().next_back();
        let mut tail = &rest[i..];
        let mut climbs = 0;
        while let Some(t) = tail.strip_prefix("super::") {
            climbs += 1;
            tail = t;
        }
        rest = tail;
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') || climbs != depth {
            continue;
        }
        out.extend(leading_segments(tail));
    }
    out
}

/// The first segment of every `crate::` path, including those inside
/// `use crate::{a::X, b}` groups. Comments count too: an intra-doc link is
/// a dependency of the documentation.
fn crate_paths(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find("crate::") {
        let before = rest[..i].chars().next_back();
        rest = &rest[i + "crate::".len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue; // `tessel_crate::` or similar
        }
        out.extend(leading_segments(rest));
    }
    out
}

/// The module names a path continues with: one, or one per item of a
/// `{a::X, b}` group.
fn leading_segments(tail: &str) -> Vec<String> {
    match tail.strip_prefix('{') {
        Some(group) => {
            let end = matching_brace(group);
            split_top_level(&group[..end])
                .into_iter()
                .filter_map(|item| first_segment(item.trim()))
                .collect()
        }
        None => first_segment(tail).into_iter().collect(),
    }
}

fn first_segment(s: &str) -> Option<String> {
    let name: String = s
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    (!name.is_empty() && name.chars().next().is_some_and(|c| c.is_lowercase())).then_some(name)
}

fn matching_brace(s: &str) -> usize {
    let mut depth = 0usize;
    for (i, c) in s.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => return i,
            '}' => depth -= 1,
            _ => {}
        }
    }
    s.len()
}

fn split_top_level(s: &str) -> Vec<&str> {
    let (mut parts, mut depth, mut start) = (Vec::new(), 0usize, 0);
    for (i, c) in s.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                parts.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&s[start..]);
    parts
}

impl ModuleGraph {
    /// The strongly connected components with more than one module (each
    /// one a cycle), by Tarjan's algorithm.
    pub fn cycles(&self) -> Vec<Vec<String>> {
        struct Tarjan<'a> {
            g: &'a BTreeMap<String, BTreeSet<String>>,
            index: BTreeMap<&'a str, usize>,
            low: BTreeMap<&'a str, usize>,
            stack: Vec<&'a str>,
            on_stack: BTreeSet<&'a str>,
            out: Vec<Vec<String>>,
        }
        impl<'a> Tarjan<'a> {
            fn visit(&mut self, v: &'a str) {
                let i = self.index.len();
                self.index.insert(v, i);
                self.low.insert(v, i);
                self.stack.push(v);
                self.on_stack.insert(v);
                for w in self.g.get(v).into_iter().flatten() {
                    let w = w.as_str();
                    if !self.index.contains_key(w) {
                        self.visit(w);
                        let lw = self.low[w];
                        let lv = self.low.get_mut(v).expect("visited");
                        *lv = (*lv).min(lw);
                    } else if self.on_stack.contains(w) {
                        let iw = self.index[w];
                        let lv = self.low.get_mut(v).expect("visited");
                        *lv = (*lv).min(iw);
                    }
                }
                if self.low[v] == self.index[v] {
                    let mut scc = Vec::new();
                    while let Some(w) = self.stack.pop() {
                        self.on_stack.remove(w);
                        scc.push(w.to_string());
                        if w == v {
                            break;
                        }
                    }
                    if scc.len() > 1 {
                        scc.sort();
                        self.out.push(scc);
                    }
                }
            }
        }
        let mut t = Tarjan {
            g: &self.edges,
            index: BTreeMap::new(),
            low: BTreeMap::new(),
            stack: Vec::new(),
            on_stack: BTreeSet::new(),
            out: Vec::new(),
        };
        for v in self.edges.keys() {
            if !t.index.contains_key(v.as_str()) {
                t.visit(v);
            }
        }
        t.out
    }

    /// The modules bottom-up (each after everything it imports); `None`
    /// when there is a cycle.
    pub fn layers(&self) -> Option<Vec<String>> {
        let mut done: BTreeSet<&str> = BTreeSet::new();
        let mut order = Vec::new();
        while done.len() < self.edges.len() {
            let ready: Vec<&str> = self
                .edges
                .iter()
                .filter(|(m, deps)| {
                    !done.contains(m.as_str()) && deps.iter().all(|d| done.contains(d.as_str()))
                })
                .map(|(m, _)| m.as_str())
                .collect();
            if ready.is_empty() {
                return None;
            }
            for m in ready {
                done.insert(m);
                order.push(m.to_string());
            }
        }
        Some(order)
    }
}

/// `cargo xtask layers`: each crate's modules bottom-up. Fails on any
/// cycle, naming its modules.
pub fn report(root: &Path) -> Result<(), String> {
    let mut failures = Vec::new();
    for g in workspace_graphs(root) {
        match g.layers() {
            Some(order) => println!("{:<14} {}", g.krate, order.join(" < ")),
            None => {
                for cycle in g.cycles() {
                    failures.push(format!("{}: {}", g.krate, cycle.join(" <-> ")));
                }
            }
        }
    }
    if failures.is_empty() {
        Ok(())
    } else {
        Err(format!("module cycles:\n  {}", failures.join("\n  ")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_crate_paths_and_groups() {
        let text = "use crate::ir::{Expr, Var};\nuse crate::{arith::Analyzer, eval};\n\
                    let x = crate::te::op::f();\nuse tessel_crate::no;";
        assert_eq!(crate_paths(text), ["ir", "arith", "eval", "te"]);
    }

    #[test]
    fn reads_super_paths_that_reach_the_root() {
        let text = "use super::value::*;\nuse super::super::ir::X;\nuse super::{a::B, c};";
        assert_eq!(super_paths(text, 1), ["value", "a", "c"]);
        assert_eq!(super_paths(text, 2), ["ir"]);
    }

    #[test]
    fn finds_a_cycle() {
        let mut edges = BTreeMap::new();
        edges.insert("a".to_string(), BTreeSet::from(["b".to_string()]));
        edges.insert("b".to_string(), BTreeSet::from(["a".to_string()]));
        edges.insert("c".to_string(), BTreeSet::from(["a".to_string()]));
        let g = ModuleGraph {
            krate: "k".into(),
            edges,
        };
        assert_eq!(g.cycles(), vec![vec!["a".to_string(), "b".to_string()]]);
        assert!(g.layers().is_none());
    }

    /// A synthetic crate whose only cycle runs through unit tests: `a`
    /// uses `b` in its code, `b` uses `a` only in a `#[cfg(test)]` block,
    /// and `c`'s test file (`#[cfg(test)] mod tests;`) uses `d`, which
    /// uses `c`. Both cycles must be found.
    #[test]
    fn test_modules_count_as_references() {
        let root = std::env::temp_dir().join(format!("xtask-layers-{}", std::process::id()));
        let krate = root.join("k");
        let files = [
            ("Cargo.toml", "[package]\nname = \"k\"\n"),
            ("src/lib.rs", "pub mod a;\npub mod b;\npub mod c;\npub mod d;\n"),
            ("src/a.rs", "use crate::b::helper;\npub fn f() { helper() }\n"),
            (
                "src/b.rs",
                "pub fn helper() {}\n#[cfg(test)]\nmod tests {\n    use crate::a::f;\n    #[test]\n    fn t() { f() }\n}\n",
            ),
            ("src/c/mod.rs", "pub fn g() {}\n#[cfg(test)]\nmod tests;\n"),
            ("src/c/tests.rs", "use crate::d::h;\n#[test]\nfn t() { h() }\n"),
            ("src/d.rs", "pub fn h() { crate::c::g() }\n"),
        ];
        for (path, text) in files {
            let path = krate.join(path);
            fs::create_dir_all(path.parent().expect("a folder")).expect("temp folder");
            fs::write(&path, text).expect("temp file");
        }
        let graphs = workspace_graphs(&root);
        fs::remove_dir_all(&root).ok();
        assert_eq!(graphs.len(), 1);
        let g = &graphs[0];
        assert_eq!(g.edges["b"], BTreeSet::from(["a".to_string()]));
        assert_eq!(g.edges["c"], BTreeSet::from(["d".to_string()]));
        assert_eq!(
            g.cycles(),
            vec![
                vec!["a".to_string(), "b".to_string()],
                vec!["c".to_string(), "d".to_string()]
            ]
        );
        assert!(g.layers().is_none());
    }

    /// The workspace itself: no crate may have a cycle between its
    /// top-level modules.
    #[test]
    fn workspace_has_no_module_cycles() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let graphs = workspace_graphs(&root);
        assert!(
            graphs.iter().any(|g| g.krate == "schedule"),
            "the check must see the workspace's crates"
        );
        report(&root).unwrap_or_else(|e| panic!("{e}"));
    }
}
