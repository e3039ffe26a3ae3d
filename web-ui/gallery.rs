//! The examples gallery: every seed program and every schedule case of
//! compiler-core's test data, plus the hand-written examples in
//! `examples/`. Shared by `build.rs` (the list compiled into the UI, and
//! the sources for native tests) and `cargo xtask gallery-json` (the
//! sources, which the page fetches as `examples.json`), through `#[path]`.

use std::fs;
use std::path::{Path, PathBuf};

/// One gallery entry.
pub struct Ex {
    pub id: String,
    pub category: &'static str,
    pub title: String,
    pub description: String,
    pub source: String,
}

impl Ex {
    /// The backend the example opens with: the GPU for programs bound to
    /// GPU threads (the course's GPU examples), the CPU otherwise.
    pub fn backend(&self) -> &'static str {
        if self.id.contains("gpu")
            || self.source.contains("\"threadIdx.")
            || self.source.contains("\"blockIdx.")
        {
            "webgpu"
        } else {
            "wasm"
        }
    }
}

/// The line between a program and its schedule in a gallery source.
const MARKER: &str = "# --- schedule ---\n";

fn files(watched: &mut Vec<PathBuf>, dir: &Path, suffix: &str) -> Vec<PathBuf> {
    watched.push(dir.to_path_buf());
    let mut v: Vec<PathBuf> = fs::read_dir(dir)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    v.retain(|p| p.to_string_lossy().ends_with(suffix));
    v.sort();
    v
}

fn stem(p: &Path, suffix: &str) -> String {
    let name = p.file_name().unwrap().to_string_lossy();
    name.strip_suffix(suffix).unwrap_or(&name).to_string()
}

/// `ca_split_outer` -> `ca split outer`.
fn title_of(id: &str) -> String {
    id.replace('_', " ")
}

/// The first comment line that says something (not a `Source:` header).
fn first_comment(text: &str) -> Option<String> {
    let line = text.lines().next()?.trim();
    let c = line.strip_prefix('#')?.trim();
    if c.is_empty() || c.starts_with("---") || c.starts_with("###") {
        return None;
    }
    let c = c.strip_prefix("Source:").unwrap_or(c).trim();
    Some(c.trim_end_matches(':').to_string())
}

fn category_of(id: &str) -> &'static str {
    let id = id.trim_start_matches("err_");
    if id.starts_with("ca_") || id.starts_with("rca_") {
        "compute_at / reverse_compute_at"
    } else if id.starts_with("ci_") || id.starts_with("rci_") {
        "compute_inline / reverse_compute_inline"
    } else if id.starts_with("blockize") {
        "blockize"
    } else if id.starts_with("rfactor") {
        "rfactor"
    } else if id.starts_with("tensorize") {
        "tensorize"
    } else if id.starts_with("cache")
        || id.starts_with("cr_")
        || id.starts_with("cw_")
        || id.starts_with("set_scope")
        || id.starts_with("storage_align")
    {
        "cache_read / cache_write"
    } else if id.starts_with("transform_layout") || id.starts_with("tl_") {
        "transform_layout"
    } else if id.starts_with("rf_") {
        "rfactor"
    } else if id.starts_with("annotate") {
        "annotate"
    } else if id.starts_with("seed") || id.starts_with("gpu_") || id.starts_with("bmm_relu") {
        "Course schedules"
    } else {
        // split/fuse, reindex, parallel…: the other primitives' cases.
        "Primitives, one by one"
    }
}

/// Every `.py` file of `dir` as an example of `category`, described by its
/// first comment when `described`.
fn python_files(
    watched: &mut Vec<PathBuf>,
    dir: &Path,
    category: &'static str,
    described: bool,
) -> Vec<Ex> {
    files(watched, dir, ".py")
        .into_iter()
        .map(|p| {
            let id = stem(&p, ".py");
            let source = fs::read_to_string(&p).unwrap();
            Ex {
                description: if described {
                    first_comment(&source).unwrap_or_default()
                } else {
                    String::new()
                },
                title: title_of(&id),
                id,
                category,
                source,
            }
        })
        .collect()
}

/// The `### NAME` section of a golden text file (empty when absent).
fn section(text: &str, name: &str) -> String {
    let start = format!("### {name}\n");
    text.split_once(&start)
        .map(|(_, rest)| rest.split("\n### ").next().unwrap_or(rest).to_string())
        .unwrap_or_default()
}

/// Every gallery entry, in the gallery's order, from the web-ui crate's
/// directory `here`; `watched` gets the files and folders read.
pub fn collect(here: &Path, watched: &mut Vec<PathBuf>) -> Vec<Ex> {
    let data = here.join("../compiler-core/tests/data");
    let meta_path = here.join("examples/meta.txt");
    watched.push(meta_path.clone());
    let meta = read_meta(&fs::read_to_string(&meta_path).unwrap_or_default());
    let mut out: Vec<Ex> = Vec::new();

    // Hand-written examples (book schedules), in meta.txt's order.
    out.extend(python_files(
        watched,
        &here.join("examples"),
        "Book schedules",
        true,
    ));
    // Course notebooks as Python scripts (`# %%` cells), run by the script interpreter.
    out.extend(python_files(
        watched,
        &data.join("scripts"),
        "Notebooks (Python)",
        true,
    ));
    out.extend(te_programs(watched, &data));
    // Graph-level (Relax-like) modules of the seeds and the book.
    out.extend(python_files(
        watched,
        &data.join("graph"),
        "Graph-level programs",
        true,
    ));
    // Seed programs.
    out.extend(python_files(
        watched,
        &data.join("seeds"),
        "Course programs",
        false,
    ));
    out.extend(schedule_goldens(watched, &data));
    out.extend(schedule_cases(watched, &data));
    out.extend(schedule_cache_goldens(watched, &data));
    out.extend(tensor_cases(watched, &data));
    describe(&mut out, &meta);
    // Book schedules first, in meta.txt order; then the rest by category.
    let rank = |ex: &Ex| {
        meta.iter()
            .position(|(id, _, _)| *id == ex.id && ex.category == "Book schedules")
            .unwrap_or(usize::MAX)
    };
    out.sort_by_key(|ex| rank(ex));

    out
}

/// `examples/meta.txt`: `id | title | description` lines (`#` comments).
fn read_meta(meta_text: &str) -> Vec<(String, String, String)> {
    meta_text
        .lines()
        .filter(|l| !l.starts_with('#') && l.contains('|'))
        .map(|l| {
            let mut parts = l.splitn(3, '|').map(|s| s.trim().to_string());
            (
                parts.next().unwrap_or_default(),
                parts.next().unwrap_or_default(),
                parts.next().unwrap_or_default(),
            )
        })
        .collect()
}

/// Titles and descriptions from meta.txt where it has them, a default
/// description otherwise, cut to 160 characters.
fn describe(out: &mut [Ex], meta: &[(String, String, String)]) {
    for ex in out.iter_mut() {
        if let Some((_, t, d)) = meta.iter().find(|(id, _, _)| *id == ex.id) {
            ex.title = t.clone();
            ex.description = d.clone();
        }
        if ex.description.is_empty() {
            ex.description = match ex.category {
                "Course programs" => "A TensorIR program from the course material.".into(),
                c => format!("{c}: {}", ex.title),
            };
        }
        if ex.description.len() > 160 {
            let mut cut = 157;
            while !ex.description.is_char_boundary(cut) {
                cut -= 1;
            }
            ex.description.truncate(cut);
            ex.description.push('…');
        }
    }
}

/// The seeds' tensor-expression programs, as TVM prints the PrimFunc that
/// `te.create_prim_func` makes (`### tvm`), with their schedule if any.
fn te_programs(watched: &mut Vec<PathBuf>, data: &Path) -> Vec<Ex> {
    let mut out = Vec::new();
    for p in files(watched, &data.join("te"), ".txt") {
        let id = stem(&p, ".txt");
        if !id.starts_with("seed") {
            continue;
        }
        let text = fs::read_to_string(&p).unwrap();
        let section = |name: &str| section(&text, name);
        let program = section("tvm");
        if program.trim().is_empty() {
            continue;
        }
        let schedule = section("schedule");
        let source = if schedule.trim().is_empty() {
            program
        } else {
            format!("{}\n{MARKER}{}\n", program.trim_end(), schedule.trim_end())
        };
        out.push(Ex {
            description: first_comment(&text)
                .map(|d| format!("From tensor expressions: {d}"))
                .unwrap_or_default(),
            title: format!("{} (TE)", title_of(&id)),
            id: format!("te_{id}"),
            category: "Course programs",
            source,
        });
    }
    out
}

/// TVM-golden schedule cases: module, optional `# --- tensor-intrin: … ---`
/// sections, `# --- schedule ---`, optional `# --- expect-error: … ---`.
fn schedule_goldens(watched: &mut Vec<PathBuf>, data: &Path) -> Vec<Ex> {
    let mut out = Vec::new();
    for p in files(watched, &data.join("schedule"), ".py") {
        let id = stem(&p, ".py");
        if id.contains(".expected") {
            continue;
        }
        let source = fs::read_to_string(&p).unwrap();
        let category = if id.starts_with("book_") || id.starts_with("seed") {
            "Course schedules"
        } else if id.starts_with("err_") {
            "Refusals (TVM's errors)"
        } else {
            "Primitives, one by one"
        };
        out.push(Ex {
            description: first_comment(&source).unwrap_or_default(),
            title: title_of(&id),
            category,
            id,
            source,
        });
    }
    out
}

/// Schedule cases: program, `# --- schedule`, expected output (dropped).
fn schedule_cases(watched: &mut Vec<PathBuf>, data: &Path) -> Vec<Ex> {
    let mut out = Vec::new();
    for p in files(watched, &data.join("schedule_cases"), ".py") {
        let id = stem(&p, ".py");
        let text = fs::read_to_string(&p).unwrap();
        let body = text.split("# --- expected").next().unwrap_or(&text);
        let source = body.replacen("# --- schedule\n", MARKER, 1);
        out.push(Ex {
            description: first_comment(&text).unwrap_or_default(),
            title: title_of(&id),
            category: category_of(&id),
            id,
            source,
        });
    }
    out
}

/// TVM goldens: `### before`, `### schedule`, `### after`.
fn schedule_cache_goldens(watched: &mut Vec<PathBuf>, data: &Path) -> Vec<Ex> {
    let mut out = Vec::new();
    for p in files(watched, &data.join("schedule_cache"), ".txt") {
        let id = stem(&p, ".txt");
        let text = fs::read_to_string(&p).unwrap();
        let section = |name: &str| section(&text, name);
        let source = format!(
            "{}\n{MARKER}{}\n",
            section("before").trim_end(),
            section("schedule").trim_end()
        );
        out.push(Ex {
            description: first_comment(&text).unwrap_or_default(),
            title: title_of(&id),
            category: category_of(&id),
            id,
            source,
        });
    }
    out
}

/// blockize / rfactor / tensorize cases: `x.py` (or the file a
/// `# program: y.py` line names) + `x.sched.py`, and for tensorize the
/// intrinsic's `NAME.intrin.py` as a `# --- tensor-intrin: NAME ---` section.
fn tensor_cases(watched: &mut Vec<PathBuf>, data: &Path) -> Vec<Ex> {
    let mut out = Vec::new();
    let tensor_dir = data.join("schedule_tensor");
    for p in files(watched, &tensor_dir, ".sched.py") {
        let id = stem(&p, ".sched.py");
        let sched = fs::read_to_string(&p).unwrap();
        let program_file = sched
            .lines()
            .find_map(|l| l.strip_prefix("# program:").map(|f| f.trim().to_string()))
            .unwrap_or_else(|| format!("{id}.py"));
        let Ok(mut program) = fs::read_to_string(tensor_dir.join(&program_file)) else {
            continue;
        };
        for intrin in ["tmm16", "mma16"] {
            if sched.contains(&format!("\"{intrin}\"")) {
                if let Ok(text) = fs::read_to_string(tensor_dir.join(format!("{intrin}.intrin.py")))
                {
                    program = format!(
                        "{}\n# --- tensor-intrin: {intrin} ---\n{}",
                        program.trim_end(),
                        text
                    );
                }
            }
        }
        let error = fs::read_to_string(
            data.join("schedule_tensor")
                .join(format!("{id}.tvm_error.txt")),
        )
        .ok()
        .and_then(|e| {
            e.lines()
                .find(|l| !l.trim().is_empty())
                .map(|l| l.trim().to_string())
        });
        let description = first_comment(&sched)
            .or_else(|| first_comment(&program))
            .or_else(|| error.map(|e| format!("TVM refuses: {e}")))
            .unwrap_or_default();
        let source = format!("{}\n{MARKER}{}", program.trim_end(), sched);
        out.push(Ex {
            description,
            title: title_of(&id),
            category: category_of(&id),
            id,
            source,
        });
    }
    out
}
