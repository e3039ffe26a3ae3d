//! Running scripts like `tessel run` does, for the script tests.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::rc::Rc;

use compiler_core::script::{
    notebook_cells, Interpreter, Limits, ReferenceBackend, ScriptError, TickClock,
};

/// Stack of the threads scripts run on (debug builds need a lot; see `Limits::stack_bytes`).
pub const STACK: usize = 256 << 20;

pub fn data_dir(sub: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(sub)
}

/// The `.py` files of a data directory, sorted.
pub fn scripts_in(sub: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(data_dir(sub))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "py"))
        .collect();
    v.sort();
    v
}

pub fn limits() -> Limits {
    Limits {
        stack_bytes: (STACK as u64) * 3 / 4,
        ..Limits::default()
    }
}

/// What a run printed (all streams in order, then the traceback of an
/// uncaught exception) and the error.
pub struct Run {
    pub output: String,
    pub error: Option<ScriptError>,
}

/// Runs `src` as `name` the way the oracle does: as notebook cells when it
/// has `# %%` markers, else as one script; stops at the first error.
pub fn run_source(src: &str, name: &str, limits: Limits) -> Run {
    let src = src.to_string();
    let name = name.to_string();
    std::thread::Builder::new()
        .stack_size(STACK)
        .spawn(move || {
            let mut interp = Interpreter::with_host(
                limits,
                Rc::new(TickClock::new(0.001)),
                Rc::new(ReferenceBackend::default()),
            );
            let notebook = src
                .lines()
                .any(|l| l.trim_start().starts_with("# %%") || l.trim_start().starts_with("# In["));
            let cells = if notebook { notebook_cells(&src) } else { vec![src.clone()] };
            let mut output = String::new();
            let mut error = None;
            for cell in cells {
                let r = if notebook {
                    interp.run_notebook_cell(&cell, &name)
                } else {
                    interp.run_cell(&cell, &name)
                };
                output.push_str(&interp.take_output_text());
                if let Err(e) = r {
                    output.push_str(&e.traceback);
                    error = Some(e);
                    break;
                }
            }
            Run { output, error }
        })
        .unwrap()
        .join()
        .expect("the interpreter panicked")
}

pub fn run_file(path: &Path) -> Run {
    let src = std::fs::read_to_string(path).unwrap();
    let name = path.file_name().unwrap().to_string_lossy().to_string();
    run_source(&src, &name, limits())
}

/// A short report of where two texts first differ.
pub fn first_difference(expected: &str, got: &str) -> String {
    let e: Vec<&str> = expected.lines().collect();
    let g: Vec<&str> = got.lines().collect();
    for i in 0..e.len().max(g.len()) {
        let (x, y) = (e.get(i), g.get(i));
        if x != y {
            let ctx = |v: &[&str]| v[i.saturating_sub(2)..(i + 3).min(v.len())].join("\n");
            return format!(
                "line {}:\n--- expected\n{}\n--- got\n{}",
                i + 1,
                ctx(&e),
                ctx(&g)
            );
        }
    }
    if expected != got {
        return "texts differ in trailing whitespace or line endings".into();
    }
    String::new()
}
