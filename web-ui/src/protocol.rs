//! Messages between the UI and the compiler worker, sent as JSON strings
//! through `postMessage`. Every request carries an id; the reply echoes it,
//! so the UI can drop replies to requests that a newer one superseded.
//!
//! [`Request`] and [`Response`] are externally tagged (`{"compile": {…}}`),
//! not internally (`{"kind": "compile", …}`): serde reads an internally
//! tagged enum through a buffered copy of the whole message, whose code the
//! page and the core worker, both in every first load, would carry for
//! every message type. Only these Rust types read and write the messages.

use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Request {
    /// Parse the script, run its schedule, print every step. The worker
    /// keeps what it found as its live session, `revision` (a number the
    /// page changes with every edit), which later requests name instead of
    /// resending the source.
    Compile {
        id: u64,
        revision: u64,
        source: String,
    },
    /// Make `source` the worker's live session `revision` without printing
    /// anything: sent when a worker answers [`Response::NeedsSource`] (a
    /// worker started after the edit, or one that answers runs only).
    Open {
        id: u64,
        revision: u64,
        source: String,
    },
    /// Run the scheduled function of session `revision` (and the original,
    /// for reference).
    Run {
        id: u64,
        revision: u64,
        backend: String,
        repeats: u32,
    },
    /// The generated code of one step for a backend (`wasm` or `webgpu`).
    Code {
        id: u64,
        revision: u64,
        step: usize,
        backend: String,
    },
    /// Grade `source` as an answer to `exercise`: the exercise's file as
    /// the page fetched it (`exercises/ID.json`), so no exercise is
    /// compiled into the worker.
    Check {
        id: u64,
        /// The exercise's id.
        exercise: String,
        /// Its file, `exercises/ID.json`.
        definition: String,
        source: String,
    },
    /// Buffer regions one iteration of a loop touches, at one step.
    Regions {
        id: u64,
        revision: u64,
        step: usize,
        func: String,
        /// Pre-order index of the loop among the function's loops.
        loop_index: usize,
        /// The chosen loop's iteration to draw (outer loops at their minimum).
        at: i64,
    },
    /// Which elements of each buffer one unit of work touches (the memory
    /// picture), at one step. Answered by the full worker only, so the
    /// first-load worker carries none of it.
    MemoryAccess {
        id: u64,
        revision: u64,
        step: usize,
        func: String,
        /// `iteration`, `lane`, `thread` or `workgroup`.
        unit: String,
        /// The chosen loop (pre-order index), for an iteration or a lane.
        loop_index: Option<usize>,
        /// Which iteration, lane, thread or workgroup (0-based).
        at: i64,
        /// Whether the page is playing through the units (the Play
        /// button's label).
        playing: bool,
    },
    /// Auto-tune the function of session `revision` (the tuning worker's
    /// only request; the function as the script defines it, before its
    /// schedule): `job` is a `tuning::TuneSpec` as JSON (target, trials,
    /// stored records), read by the full worker alone (the core worker, in
    /// every first load, carries no reader for it).
    Tune { id: u64, revision: u64, job: String },
    /// The Device or Progress panel's HTML, from the full worker: the
    /// page's wasm, in every first load, carries none of the panels' code.
    /// `ask` is a [`PanelAsk`] as JSON, so that only the page and the full
    /// worker carry its (de)serialiser, not the core worker.
    Panel { id: u64, ask: String },
    /// The progress file exported or imported (a [`PanelAsk`] as JSON, as
    /// for `Panel`; its own kind, so that showing a panel never displaces
    /// a waiting export or import).
    ProgressFile { id: u64, ask: String },
}

impl Request {
    /// The live session a request asks about (`None` for those that carry
    /// their own text: exercise checks, panels).
    pub fn revision(&self) -> Option<u64> {
        match self {
            Request::Compile { revision, .. }
            | Request::Open { revision, .. }
            | Request::Run { revision, .. }
            | Request::Code { revision, .. }
            | Request::Regions { revision, .. }
            | Request::MemoryAccess { revision, .. }
            | Request::Tune { revision, .. } => Some(*revision),
            Request::Check { .. } | Request::Panel { .. } | Request::ProgressFile { .. } => None,
        }
    }

    pub fn id(&self) -> u64 {
        match self {
            Request::Compile { id, .. }
            | Request::Open { id, .. }
            | Request::Run { id, .. }
            | Request::Code { id, .. }
            | Request::Check { id, .. }
            | Request::Regions { id, .. }
            | Request::MemoryAccess { id, .. }
            | Request::Panel { id, .. }
            | Request::ProgressFile { id, .. }
            | Request::Tune { id, .. } => *id,
        }
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Response {
    Compiled {
        id: u64,
        outcome: CompileOutcome,
    },
    Ran {
        id: u64,
        outcome: RunOutcome,
    },
    Regions {
        id: u64,
        outcome: RegionsOutcome,
    },
    Code {
        id: u64,
        outcome: CodeOutcome,
    },
    /// A [`MemoryOutcome`] as JSON: only the full worker writes it, so
    /// the core worker carries no serialiser for it (as for `Tuning`).
    MemoryAccess {
        id: u64,
        outcome: String,
    },
    Checked {
        id: u64,
        outcome: CheckOutcome,
    },
    /// The answer to `Panel` or `ProgressFile`: a [`PanelOutcome`] as
    /// JSON (for the reason given at `Request::Panel`).
    Panel {
        id: u64,
        outcome: String,
    },
    /// The worker's wasm started and is ready for requests.
    Ready,
    /// The live session of `Open` request `id` is in place.
    Opened {
        id: u64,
    },
    /// Request `id` names a revision that is not this worker's live
    /// session: the UI sends `Open` with that revision's source, then the
    /// request again.
    NeedsSource {
        id: u64,
    },
    /// The first worker (without the code generators) cannot answer
    /// request `id`: it needs a backend. The UI starts the worker that has
    /// them and sends the request there.
    NeedsBackends {
        id: u64,
    },
    /// A tuning's progress, after each measured candidate (many per Tune):
    /// a [`TuneUpdate`] as JSON, so that only the tuning worker and the page
    /// carry its (de)serialiser, not the core worker.
    Tuning {
        id: u64,
        update: String,
    },
}

/// Which information panel to draw, with what the page knows for it, or
/// what to do with the progress file.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "panel", rename_all = "snake_case")]
pub enum PanelAsk {
    /// What this device offers (detected on the page).
    Device {
        caps: crate::capabilities::Capabilities,
    },
    /// Every exercise's progress.
    Progress {
        /// The saved progress: localStorage keys (`exercise.ID`, without
        /// the page's `tessel.` prefix) and their JSON.
        saved: Vec<(String, String)>,
        /// `(id, title)` of every exercise, in the course's order.
        titles: Vec<(String, String)>,
        /// The last export or import: `(ok, message)`.
        status: Option<(bool, String)>,
    },
    /// The progress file of `saved` (as for `Progress`).
    Export { saved: Vec<(String, String)> },
    /// A progress file (its text) read and merged into `saved`.
    Import {
        saved: Vec<(String, String)>,
        file: String,
    },
}

/// What the page does with the worker's answer to a panel request.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PanelOutcome {
    /// The open panel's HTML (empty for `ProgressFile`).
    pub html: String,
    /// A progress file to download (Export).
    pub file: Option<String>,
    /// Progress to save, `(key, JSON)` as in [`PanelAsk::Progress`] (Import).
    pub saves: Vec<(String, String)>,
    /// What an export or import did: `(ok, message)`.
    pub status: Option<(bool, String)>,
}

/// What the worker sends after each step of a tuning.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TuneUpdate {
    /// The localStorage key of this workload's records (under `tessel.`).
    pub key: String,
    /// Lines to append to the stored records (the workload line first, when
    /// nothing was stored yet).
    pub append: String,
    /// The record to store if the worker falls silent measuring the next
    /// candidate (it timed out, and is a failure).
    pub if_silent: Option<String>,
    /// Trials done and asked for, and the best GFLOPS (for the worker's
    /// tests: the page reads them in `panel`).
    #[serde(skip)]
    pub done: usize,
    #[serde(skip)]
    pub total: usize,
    /// The panel, rendered (`tuning::render_panel`).
    pub panel: String,
    /// The best program's schedule calls (`tuning::schedule_calls`).
    pub best_calls: Option<String>,
    #[serde(skip)]
    pub best_gflops: Option<f64>,
    /// The module the schedule is made from (for a script without one).
    pub module: String,
    /// The tuning has ended (its budget spent, or it failed).
    pub finished: bool,
    /// Why it could not tune, when it could not.
    pub error: Option<String>,
}

/// A diagnostic placed in the editor.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct EditorDiag {
    /// UTF-16 offsets into the script (CodeMirror's positions).
    pub from: u32,
    pub to: u32,
    /// 1-based line and column (for the console).
    pub line: u32,
    pub col: u32,
    /// `error`, `warning` or `info`.
    pub severity: String,
    pub message: String,
}

/// One state of the module: the original, then after each primitive that
/// changed it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Step {
    /// The primitive call as Python (`sch.split(loop=l1, factors=[None, 4])`),
    /// or `original`.
    pub label: String,
    /// 1-based trace instructions that this step covers (lookups like
    /// `get_block` fold into the next step that changes the IR).
    pub instructions: Vec<usize>,
    /// The printed module.
    pub ir: String,
    /// The loop nest of each function.
    pub nests: Vec<FuncNest>,
    /// Where the printer put each loop and block in `ir`.
    #[serde(default)]
    pub targets: Vec<IrTarget>,
}

pub use tessel_session::loop_nests::{BlockInfo, FuncNest, IrTarget, LoopInfo, NestNode};

/// What compiling a script produced: every step printed, the trace, the
/// console and editor diagnostics.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CompileOutcome {
    /// The live session this describes (the request's revision).
    #[serde(default)]
    pub revision: u64,
    /// Text for the console (what the script printed, rendered errors).
    pub console: String,
    /// The parts of `console` that are rich display output, in order.
    #[serde(default)]
    pub rich: Vec<RichPart>,
    /// The module after each step; empty when the program did not parse.
    pub steps: Vec<Step>,
    /// The trace as Python (what `print(sch.trace)` shows).
    pub trace: String,
    pub errors: Vec<EditorDiag>,
    /// The error's IR with the offending statement marked, if a primitive refused.
    pub marked_ir: Option<String>,
    /// Milliseconds the worker spent.
    pub millis: f64,
}

/// Bytes `start..end` of the console are rich display output: `kind` is
/// `html` (`IPython.display.HTML`, shown sanitised), `markdown` (rendered,
/// then sanitised) or `code` (highlighted, with its `language` if given).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RichPart {
    pub start: usize,
    pub end: usize,
    pub kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
}

/// A piece of the console to show: plain text, or rich output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConsolePiece<'a> {
    Text(&'a str),
    Rich(&'a RichPart, &'a str),
}

impl CompileOutcome {
    /// The console cut into plain text and rich parts, in order. A part
    /// whose bounds do not fall inside the text, in order, on character
    /// boundaries stays plain text.
    pub fn console_pieces(&self) -> Vec<ConsolePiece<'_>> {
        let text = self.console.as_str();
        let mut pieces = Vec::new();
        let mut at = 0;
        for part in &self.rich {
            let fits = at <= part.start
                && part.start < part.end
                && part.end <= text.len()
                && text.is_char_boundary(part.start)
                && text.is_char_boundary(part.end);
            if !fits {
                continue;
            }
            if at < part.start {
                pieces.push(ConsolePiece::Text(&text[at..part.start]));
            }
            pieces.push(ConsolePiece::Rich(part, &text[part.start..part.end]));
            at = part.end;
        }
        if at < text.len() {
            pieces.push(ConsolePiece::Text(&text[at..]));
        }
        pieces
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RunOutcome {
    pub ok: bool,
    pub func: String,
    pub backend: String,
    /// Did the scheduled function's outputs match the original's?
    pub matches: Option<bool>,
    /// Per-run milliseconds of the scheduled function.
    pub times_ms: Vec<f64>,
    pub median_ms: Option<f64>,
    pub reference_ms: Option<f64>,
    pub flops: Option<f64>,
    pub gflops: Option<f64>,
    /// Short previews of the outputs (`C[0:4] = …`).
    pub outputs: Vec<String>,
    pub message: String,
    pub errors: Vec<EditorDiag>,
    /// Largest absolute and relative difference from the original program
    /// over every output element.
    #[serde(default)]
    pub max_abs_err: Option<f64>,
    #[serde(default)]
    pub max_rel_err: Option<f64>,
    /// Milliseconds spent generating and compiling code (wasm, WGSL +
    /// pipelines), when the backend compiles.
    #[serde(default)]
    pub compile_ms: Option<f64>,
    /// How the times were taken (`performance.now()`, GPU timestamp queries…)
    /// and on what device.
    #[serde(default)]
    pub timing: String,
    /// Notes from lowering (which loops were vectorized, …).
    #[serde(default)]
    pub notes: Vec<String>,
}

/// The generated code of one step.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CodeOutcome {
    /// `wasm` or `webgpu`.
    pub backend: String,
    pub step: usize,
    /// The lowered TensorIR, printed.
    pub lowered: String,
    /// WAT (wasm) or WGSL (webgpu).
    pub code: String,
    /// Lowering notes (vectorized loops, scalar fallbacks, kernels).
    pub notes: Vec<String>,
    /// Why there is no code (an unbound loop on the GPU, …).
    pub error: Option<String>,
    pub errors: Vec<EditorDiag>,
    /// Size of the binary module in bytes (wasm).
    pub bytes: Option<usize>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RegionsOutcome {
    pub func: String,
    pub loop_name: String,
    pub extent: Option<i64>,
    pub at: i64,
    pub regions: Vec<RegionInfo>,
    pub message: String,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RegionInfo {
    pub block: String,
    pub buffer: String,
    /// `read` or `write`.
    pub access: String,
    pub shape: Vec<i64>,
    /// Symbolic region (`A[i, 0:128]`).
    pub text: String,
    /// The region at the drawn iteration, `(min, extent)` per dimension, when constant.
    pub concrete: Option<Vec<(i64, i64)>>,
}

/// A memory picture: what one unit of work touches. The fields marked
/// "drawn only" go into `html` in the worker and are not sent: the page
/// reads only what its controls need, with less code in its wasm.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MemoryOutcome {
    pub func: String,
    /// The unit shown (`iteration`, `lane`, `thread`, `workgroup`).
    pub unit: String,
    /// The units this function and loop offer.
    pub units: Vec<String>,
    pub loop_index: Option<usize>,
    /// The chosen loop's name (iteration and lane); drawn only.
    #[serde(skip)]
    pub loop_name: String,
    /// The unit shown (drawn only: the page keeps its own).
    #[serde(skip)]
    pub at: i64,
    /// How many units there are (`at` runs over `0..steps`).
    pub steps: i64,
    /// What was fixed: `j_0 = 1`, `threadIdx.x = 5, blockIdx = 0`; drawn only.
    #[serde(skip)]
    pub label: String,
    /// The whole panel as HTML (`memory_picture::panel`): its controls, the
    /// counts by scope and one grid per buffer, or why there is no
    /// picture; the page shows it as it comes and carries no code to draw it.
    pub html: String,
    /// Why there is no picture; drawn only.
    #[serde(skip)]
    pub error: Option<String>,
}

/// An exercise as the page shows it. Listed from `exercises/index.json`
/// (id, title and target only) and filled in from `exercises/ID.json` when
/// it is opened; `definition` is that file, handed to the worker with each
/// check (the page never shows the solution in it).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ExerciseInfo {
    pub id: String,
    pub title: String,
    /// Markdown.
    pub statement: String,
    /// The statement as HTML, rendered when the page was built (empty: the
    /// page renders `statement` itself).
    pub statement_html: String,
    pub starting_code: String,
    pub hints: Vec<String>,
    /// `llvm` or a GPU target.
    pub target: String,
    /// The exercise's file (`exercises/ID.json`); empty until opened.
    pub definition: String,
}

impl ExerciseInfo {
    /// Reads an exercise's file as the site serves it (`exercises/ID.json`,
    /// written by `tessel-course`): the fields the page shows, and the
    /// file itself for the worker. Other fields (checks, the solution) are
    /// left to the worker.
    pub fn from_page_file(json: &str) -> Result<ExerciseInfo, String> {
        #[derive(Deserialize)]
        struct PageFile {
            exercise: PageExercise,
            statement_html: String,
        }
        #[derive(Deserialize)]
        struct PageExercise {
            id: String,
            title: String,
            statement: String,
            starting_code: String,
            #[serde(default)]
            hints: Vec<String>,
            target: String,
        }
        let file: PageFile = serde_json::from_str(json).map_err(|e| e.to_string())?;
        let e = file.exercise;
        Ok(ExerciseInfo {
            id: e.id,
            title: e.title,
            statement: e.statement,
            statement_html: file.statement_html,
            starting_code: e.starting_code,
            hints: e.hints,
            target: e.target,
            definition: json.to_string(),
        })
    }
}

/// The verdict on an answer.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CheckOutcome {
    pub exercise: String,
    /// Every check passed (skipped ones do not count against).
    pub passed: bool,
    pub results: Vec<CheckView>,
    /// The verdict as text: exactly what `tessel exercise check` prints.
    pub text: String,
    /// How GPU code was timed for the speed checks (WebGPU's timestamps or
    /// the worker's clock, and the adapter), when it was.
    #[serde(default)]
    pub timing: Option<String>,
    /// Milliseconds the worker spent.
    pub millis: f64,
}

/// One check's result.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CheckView {
    pub name: String,
    /// `pass`, `fail` or `skip`.
    pub status: String,
    pub message: String,
    pub details: Vec<String>,
    /// 1-based line and column in the answer, when the check points there.
    pub line: Option<usize>,
    pub col: Option<usize>,
    /// A failed structure check: both functions, the mismatch highlighted.
    pub structure: Option<StructureView>,
}

/// The student's function and the target, side by side.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct StructureView {
    pub yours: IrPane,
    pub target: IrPane,
}

/// A printed function and the lines to highlight in it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct IrPane {
    pub text: String,
    /// 1-based, `first..=last`.
    pub lines: Option<(usize, usize)>,
    /// Characters of the first line (0-based, end exclusive), when
    /// narrower than the line.
    pub columns: Option<(usize, usize)>,
}

/// What the page keeps per exercise in the browser: the answer as last
/// edited, how many hints are shown, whether it ever passed and how many
/// times it was checked (progress saved before checks were counted reads
/// as 0).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ExerciseProgress {
    pub answer: String,
    pub hints: usize,
    pub passed: bool,
    #[serde(default)]
    pub attempts: u32,
}

impl ExerciseProgress {
    /// The localStorage key (under `tessel.`) of exercise `id`.
    pub fn key(id: &str) -> String {
        format!("exercise.{id}")
    }
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
    /// `None` for anything but a saved progress.
    pub fn from_json(text: &str) -> Option<ExerciseProgress> {
        serde_json::from_str(text).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exercise_progress_round_trips_and_rejects_junk() {
        let p = ExerciseProgress {
            answer: "print(1)\n".into(),
            hints: 2,
            passed: true,
            attempts: 3,
        };
        assert_eq!(ExerciseProgress::from_json(&p.to_json()), Some(p));
        assert_eq!(ExerciseProgress::from_json(""), None);
        assert_eq!(ExerciseProgress::key("conv2d"), "exercise.conv2d");
    }
}
