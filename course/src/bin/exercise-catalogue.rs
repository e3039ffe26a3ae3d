//! Writes the bundled exercises for the web build (Trunk.toml's post-build
//! hook), into the folder given as its argument:
//!
//! - `exercises.json`: the whole catalogue, for course tools;
//! - `exercises/index.json`: id, title and target of each, which the page
//!   lists;
//! - `exercises/ID.json`: one exercise with its statement as HTML, which
//!   the page fetches when the exercise is opened and hands to the worker
//!   that checks answers (so no exercise is compiled into the page's
//!   wasm, and an embedded exercise loads only its own).
//!
//! A malformed exercise prints its file, field and problem on stderr and
//! exits 1, which fails the build.

use std::fs;
use std::path::Path;
use std::process::ExitCode;

fn main() -> ExitCode {
    let Some(dir) = std::env::args_os().nth(1) else {
        eprintln!("usage: exercise-catalogue DIR");
        return ExitCode::FAILURE;
    };
    let exercises = match tessel_course::bundled() {
        Ok(exercises) => exercises,
        Err(errors) => {
            for e in errors {
                eprintln!("error: {e}");
            }
            return ExitCode::FAILURE;
        }
    };
    match write_all(Path::new(&dir), &exercises) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!(
                "error: writing the exercises into {}: {e}",
                Path::new(&dir).display()
            );
            ExitCode::FAILURE
        }
    }
}

fn write_all(dir: &Path, exercises: &[tessel_session::exercise::Exercise]) -> std::io::Result<()> {
    fs::write(
        dir.join("exercises.json"),
        tessel_course::catalogue_json(exercises),
    )?;
    let each = dir.join("exercises");
    fs::create_dir_all(&each)?;
    fs::write(
        each.join("index.json"),
        tessel_course::index_json(exercises),
    )?;
    for e in exercises {
        fs::write(
            each.join(format!("{}.json", e.id)),
            tessel_course::page_exercise_json(e),
        )?;
    }
    Ok(())
}
