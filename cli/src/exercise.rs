//! `tessel exercise`: course exercises from the command line, for course
//! authors and their CI.
//!
//! - `tessel exercise list` prints one exercise per line, id first.
//! - `tessel exercise check ID ANSWER.py` grades ANSWER.py (exactly what a
//!   student would have in the editor) and prints the same verdict text as
//!   the playground, then, for a failed structure check, a few lines of
//!   both functions around the first mismatch (`>` marks its lines); exit 0
//!   only when every check passes.
//! - `tessel exercise catalogue` prints the catalogue as JSON.
//!
//! `--dir DIR` reads a course's own exercise files instead of the bundled
//! ones.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::rc::Rc;

use clap::Subcommand;
use tessel_session::exercise::{check_answer, CheckEnv, Exercise};
use tessel_session::ScriptEnv;

use crate::{script_backend, BackendArg, WallClock, SCRIPT_STACK};

#[derive(Subcommand)]
pub enum ExerciseCommand {
    /// List the exercises: id, target, title.
    List {
        /// Read exercise files (`*.toml`) from this folder.
        #[arg(long)]
        dir: Option<PathBuf>,
    },
    /// Grade an answer; exit 0 only when every check passes.
    Check {
        id: String,
        answer: PathBuf,
        #[arg(long)]
        dir: Option<PathBuf>,
        /// What answers run on (speed checks need `native`).
        #[arg(long, value_enum, default_value = "native")]
        backend: BackendArg,
    },
    /// Print the catalogue the playground ships, as JSON.
    Catalogue {
        #[arg(long)]
        dir: Option<PathBuf>,
    },
}

/// Runs an `exercise` subcommand.
pub fn run(command: ExerciseCommand) -> ExitCode {
    match command {
        ExerciseCommand::List { dir } => match load(dir.as_deref()) {
            Ok(exercises) => {
                for e in exercises {
                    println!("{}\t{}\t{}", e.id, e.target, e.title);
                }
                ExitCode::SUCCESS
            }
            Err(code) => code,
        },
        ExerciseCommand::Catalogue { dir } => match load(dir.as_deref()) {
            Ok(exercises) => {
                println!("{}", tessel_course::catalogue_json(&exercises));
                ExitCode::SUCCESS
            }
            Err(code) => code,
        },
        ExerciseCommand::Check {
            id,
            answer,
            dir,
            backend,
        } => {
            let exercises = match load(dir.as_deref()) {
                Ok(e) => e,
                Err(code) => return code,
            };
            let Some(exercise) = exercises.into_iter().find(|e| e.id == id) else {
                eprintln!("tessel: no exercise `{id}` (see `tessel exercise list`)");
                return ExitCode::from(2);
            };
            let text = match std::fs::read_to_string(&answer) {
                Ok(t) => t,
                Err(e) => {
                    eprintln!("tessel: cannot read {}: {e}", answer.display());
                    return ExitCode::from(2);
                }
            };
            // Deep Python recursion is deep Rust recursion: give it room.
            let worker = std::thread::Builder::new()
                .stack_size(SCRIPT_STACK)
                .spawn(move || grade(&exercise, &text, backend));
            match worker.map(|h| h.join()) {
                Ok(Ok(code)) => code,
                _ => {
                    eprintln!("tessel: the checker failed");
                    ExitCode::from(2)
                }
            }
        }
    }
}

fn grade(exercise: &Exercise, answer: &str, backend: BackendArg) -> ExitCode {
    let limits = tessel_script::Limits {
        stack_bytes: SCRIPT_STACK as u64 * 3 / 4,
        ..tessel_script::Limits::default()
    };
    // Probe for a GPU only when the exercise needs one.
    let no_gpu = if !exercise.is_gpu() {
        None
    } else if backend == BackendArg::Reference {
        Some("--backend reference".to_string())
    } else {
        match codegen_wgsl::backend::GpuBackend::new() {
            Ok(Some(_)) => None,
            Ok(None) => Some("no WebGPU adapter on this machine".to_string()),
            Err(e) => Some(format!("the GPU adapter failed ({e})")),
        }
    };
    let env = CheckEnv {
        script: ScriptEnv {
            host: Rc::new(WallClock(std::time::Instant::now())),
            backend: script_backend(backend),
            limits,
            take_notes: None,
        },
        no_gpu,
    };
    let verdict = check_answer(exercise, answer, &env);
    print!("{}", verdict.render());
    // Below the page's text: where a structure check found its mismatch.
    for diff in verdict.results.iter().filter_map(|r| r.structure.as_ref()) {
        print!("\nfirst structural mismatch\n{}", diff.excerpt());
    }
    if verdict.passed() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// The exercises of `dir`, else the bundled ones; errors are printed.
fn load(dir: Option<&Path>) -> Result<Vec<Exercise>, ExitCode> {
    let result = match dir {
        None => tessel_course::bundled(),
        Some(dir) => {
            let mut files = Vec::new();
            let entries = std::fs::read_dir(dir).map_err(|e| {
                eprintln!("tessel: cannot read {}: {e}", dir.display());
                ExitCode::from(2)
            })?;
            for entry in entries.flatten() {
                let path = entry.path();
                if path.extension().is_some_and(|x| x == "toml") {
                    match std::fs::read_to_string(&path) {
                        Ok(text) => files.push((path.display().to_string(), text)),
                        Err(e) => {
                            eprintln!("tessel: cannot read {}: {e}", path.display());
                            return Err(ExitCode::from(2));
                        }
                    }
                }
            }
            let refs: Vec<(&str, &str)> = files
                .iter()
                .map(|(n, t)| (n.as_str(), t.as_str()))
                .collect();
            tessel_course::parse_all(&refs)
        }
    };
    result.map_err(|errors| {
        for e in errors {
            eprintln!("tessel: {e}");
        }
        ExitCode::from(2)
    })
}
