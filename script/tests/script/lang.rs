//! Python language, NumPy and traceback behaviour: every script in
//! `tests/data/script_lang/` must print exactly what CPython 3.11 + NumPy 2.4
//! print (`<name>.out`, written by `tools/tvm_oracle/script_outputs.py`).

use crate::support::*;

#[test]
fn scripts_print_what_cpython_prints() {
    let mut failures = Vec::new();
    let files = scripts_in("script_lang");
    assert!(files.len() >= 10, "script_lang data is missing");
    for path in files {
        let expected = std::fs::read_to_string(path.with_extension("out")).unwrap_or_else(|_| {
            panic!(
                "{}: no .out file; run tools/tvm_oracle/script_outputs.py",
                path.display()
            )
        });
        let run = run_file(&path);
        if run.output != expected {
            failures.push(format!(
                "{}: {}",
                path.file_name().unwrap().to_string_lossy(),
                first_difference(&expected, &run.output)
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} script(s) differ from CPython:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}
