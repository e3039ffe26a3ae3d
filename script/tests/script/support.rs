//! Running scripts like `tessel run` does, for the script tests.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::rc::Rc;

use compiler_core::eval::NDArray;
use compiler_core::ir::IRModule;
use std::cell::RefCell;
use std::collections::HashMap;
use tessel_script::{
    notebook_cells, Backend, BuildError, BuildOptions, Executable, Interpreter, Limits,
    ReferenceBackend, ScriptError, Target, TickClock,
};

/// The reference backend, remembering results: `time_evaluator` runs the
/// same function on the same inputs many times, which the debug-build
/// interpreter would make slow. Every distinct run still executes.
#[derive(Default)]
pub struct MemoBackend;

/// Results by (function, argument bytes): outputs and step count.
type Memo = HashMap<(String, Vec<u8>), (Vec<NDArray>, u64)>;

struct MemoExecutable {
    inner: Rc<dyn Executable>,
    memo: RefCell<Memo>,
}

impl Backend for MemoBackend {
    fn build(
        &self,
        module: &IRModule,
        target: &Target,
        options: &BuildOptions,
    ) -> Result<Rc<dyn Executable>, BuildError> {
        let inner = ReferenceBackend::default().build(module, target, options)?;
        Ok(Rc::new(MemoExecutable {
            inner,
            memo: RefCell::new(HashMap::new()),
        }))
    }
}

impl Executable for MemoExecutable {
    fn function_names(&self) -> Vec<String> {
        self.inner.function_names()
    }
    fn run(&self, name: &str, args: &mut [NDArray], step_budget: u64) -> Result<u64, String> {
        let mut key = Vec::new();
        for a in args.iter() {
            key.extend(a.to_le_bytes());
            key.extend(a.shape().iter().flat_map(|d| d.to_le_bytes()));
        }
        let key = (name.to_string(), key);
        if let Some((out, steps)) = self.memo.borrow().get(&key) {
            for (a, o) in args.iter_mut().zip(out) {
                *a = o.clone();
            }
            return Ok(*steps);
        }
        let steps = self.inner.run(name, args, step_budget)?;
        self.memo.borrow_mut().insert(key, (args.to_vec(), steps));
        Ok(steps)
    }
}

/// Stack of the threads scripts run on (debug builds need a lot; see `Limits::stack_bytes`).
pub const STACK: usize = 256 << 20;

pub fn data_dir(sub: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../compiler-core/tests/data")
        .join(sub)
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
                Rc::new(MemoBackend),
            );
            let notebook = src
                .lines()
                .any(|l| l.trim_start().starts_with("# %%") || l.trim_start().starts_with("# In["));
            let cells = if notebook {
                notebook_cells(&src)
            } else {
                vec![src.clone()]
            };
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

// ---------------------------------------------------------------------------
// Comparing course-script output with TVM's

use compiler_core::analysis::structural_equal::structural_equal;
use compiler_core::tvmscript::builder::parse_script;

/// A piece of output: TVMScript text, a schedule trace, or a plain line.
#[derive(Debug)]
pub enum Segment {
    Ir(String),
    Trace(String),
    Line(String),
}

fn continues_block(line: &str) -> bool {
    line.is_empty()
        || line.starts_with(' ')
        || line.starts_with('@')
        || line.starts_with("class ")
        || line.starts_with("def ")
        || (line.starts_with('#')
            && !line.starts_with("# from tvm import")
            && !line.starts_with("# from tvm.script import ir"))
}

/// Splits output into IR printouts, traces and other lines.
pub fn segments(text: &str) -> Vec<Segment> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let l = lines[i];
        let ir = l.starts_with("# from tvm.script import");
        let trace = l.starts_with("# from tvm import");
        if ir || trace {
            let mut j = i + 1;
            while j < lines.len()
                && continues_block(lines[j])
                && !(ir && lines[j].starts_with("# from tvm.script import ir"))
            {
                j += 1;
            }
            // Trailing blank lines belong to what follows.
            let mut end = j;
            while end > i + 1 && lines[end - 1].is_empty() {
                end -= 1;
            }
            let block = lines[i..end].join("\n");
            out.push(if ir {
                Segment::Ir(block)
            } else {
                Segment::Trace(block)
            });
            i = end;
        } else {
            out.push(Segment::Line(l.to_string()));
            i += 1;
        }
    }
    out
}

/// Output masks declared in a script's header:
/// `# tessel-test: mask-after TEXT` (numbers after TEXT on its lines) and
/// `# tessel-test: mask-between START END`.
pub fn masks(src: &str) -> Vec<(String, Option<String>)> {
    let mut out = Vec::new();
    for l in src.lines() {
        if let Some(rest) = l.strip_prefix("# tessel-test: mask-after ") {
            out.push((rest.to_string(), None));
        } else if let Some(rest) = l.strip_prefix("# tessel-test: mask-between ") {
            if let Some((a, b)) = rest.split_once(' ') {
                out.push((a.to_string(), Some(b.to_string())));
            }
        }
    }
    out
}

fn is_num_char(c: char) -> bool {
    c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '-' | '+')
}

pub fn apply_masks(text: &str, masks: &[(String, Option<String>)]) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    for line in lines.iter_mut() {
        for (start, end) in masks {
            let Some(pos) = line.find(start.as_str()) else {
                continue;
            };
            let head = pos + start.len();
            match end {
                Some(end) => {
                    if let Some(e) = line[head..].find(end.as_str()) {
                        line.replace_range(head..head + e, "#");
                    }
                }
                None => {
                    // Every number after the marker becomes `#`.
                    let tail: String = line[head..].to_string();
                    let mut out = String::new();
                    let mut chars = tail.chars().peekable();
                    while let Some(c) = chars.next() {
                        if c.is_ascii_digit() {
                            while chars.peek().is_some_and(|&d| is_num_char(d)) {
                                chars.next();
                            }
                            out.push('#');
                        } else {
                            out.push(c);
                        }
                    }
                    line.replace_range(head.., &out);
                }
            }
        }
    }
    lines.join("\n")
}

fn tokens(line: &str) -> Vec<&str> {
    line.split(|c: char| c.is_whitespace() || matches!(c, '[' | ']' | '(' | ')' | ','))
        .filter(|t| !t.is_empty())
        .collect()
}

/// Lines equal up to numbers within a relative tolerance.
pub fn lines_match(a: &str, b: &str) -> bool {
    if a == b {
        return true;
    }
    let (ta, tb) = (tokens(a), tokens(b));
    ta.len() == tb.len()
        && ta.iter().zip(&tb).all(|(x, y)| {
            x == y
                || match (x.parse::<f64>(), y.parse::<f64>()) {
                    (Ok(p), Ok(q)) => (p - q).abs() <= 1e-5 * p.abs().max(q.abs()) + 1e-7,
                    _ => false,
                }
        })
}

fn ir_equal(a: &str, b: &str) -> Result<(), String> {
    // TVM 0.27 renamed the `tir.noalias` attribute; the IR is otherwise the same.
    let (a, b) = (
        a.replace("\"tirx.noalias\"", "\"tir.noalias\""),
        b.replace("\"tirx.noalias\"", "\"tir.noalias\""),
    );
    let (a, b) = (a.as_str(), b.as_str());
    let pa = parse_script(a).map_err(|d| format!("cannot parse expected IR: {}", d.message))?;
    let pb = parse_script(b).map_err(|d| format!("cannot parse Tessel's IR: {}", d.message))?;
    structural_equal(&pa.to_module(), &pb.to_module()).map_err(|m| m.to_string())
}

/// Compares Tessel's output with TVM's: IR structurally, traces and lines
/// as text (numbers within tolerance).
pub fn compare_output(expected: &str, got: &str) -> Result<(), String> {
    let (e, g) = (segments(expected), segments(got));
    for (k, pair) in e.iter().zip(&g).enumerate() {
        let bad = |why: String| {
            Err(format!(
                "segment {k}: {why}\n--- expected\n{:?}\n--- got\n{:?}",
                pair.0, pair.1
            ))
        };
        match pair {
            (Segment::Ir(x), Segment::Ir(y)) => {
                if let Err(why) = ir_equal(x, y) {
                    return bad(why);
                }
            }
            (Segment::Trace(x), Segment::Trace(y)) => {
                let (xl, yl): (Vec<&str>, Vec<&str>) = (x.lines().collect(), y.lines().collect());
                if xl.len() != yl.len() || !xl.iter().zip(&yl).all(|(a, b)| lines_match(a, b)) {
                    return bad("traces differ".into());
                }
            }
            (Segment::Line(x), Segment::Line(y)) => {
                if !lines_match(x, y) {
                    return bad("lines differ".into());
                }
            }
            _ => return bad("different kinds of output".into()),
        }
    }
    if e.len() != g.len() {
        return Err(format!(
            "expected {} segments, got {}; first extra: {:?}",
            e.len(),
            g.len(),
            e.get(g.len()).or(g.get(e.len()))
        ));
    }
    Ok(())
}
