//! The graph layer from scripts: `relax.BlockBuilder`, `relax.build`, the
//! VM with `call_tir` and `call_dps_packed`, and the digits MLP end to end.

mod script_support;

use script_support::*;

/// Runs the script in `TESSEL_SCRIPT` (a development aid; skipped when unset).
#[test]
fn scratch() {
    let Ok(path) = std::env::var("TESSEL_SCRIPT") else {
        return;
    };
    let run = run_file(std::path::Path::new(&path));
    println!("{}", run.output);
}
