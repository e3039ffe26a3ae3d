//! Prints the bundled exercises' catalogue as JSON on stdout; the web
//! build (Trunk.toml's post-build hook) writes it to `dist/exercises.json`.
//! A malformed exercise prints its file, field and problem on stderr and
//! exits 1, which fails the build.

use std::process::ExitCode;

fn main() -> ExitCode {
    match tessel_course::bundled() {
        Ok(exercises) => {
            println!("{}", tessel_course::catalogue_json(&exercises));
            ExitCode::SUCCESS
        }
        Err(errors) => {
            for e in errors {
                eprintln!("error: {e}");
            }
            ExitCode::FAILURE
        }
    }
}
