//! A learner's progress over the course's exercises: what the page keeps
//! per exercise in localStorage (`tessel.exercise.ID`, an
//! [`ExerciseProgress`]; every page and iframe of the site's origin shares
//! it, so a course page embedding several exercises sees one progress),
//! the Progress view's table, and the progress file a learner exports and
//! imports to move it between browsers (no server):
//!
//! ```json
//! {"format": "tessel-progress", "version": 1,
//!  "exercises": {"broadcast-add": {"passed": true, "attempts": 2, "hints": 1, "answer": "…"}}}
//! ```
//!
//! Everything here is pure (the page reads and writes the storage), so the
//! file format and its validation are tested natively. It runs in the full
//! worker (`info_panels`), which has serde_json anyway: the page's wasm,
//! in every first load, carries none of it. The file is written by serde
//! derive and read as a `serde_json::Value`, checked field by field so that
//! every problem in it is reported, not only the first.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

use crate::protocol::ExerciseProgress;

/// The `format` field of a progress file.
pub const FORMAT: &str = "tessel-progress";
/// The file version this page writes and reads.
pub const VERSION: u64 = 1;
/// The largest progress file the page reads (answers are scripts: a
/// course's worth fits many times over).
pub const MAX_FILE_BYTES: usize = 4 << 20;
/// The longest exercise id accepted (ids are file names: `conv2d`).
const MAX_ID_CHARS: usize = 80;
/// At most this many problems are listed; the rest are counted.
const MAX_ERRORS_SHOWN: usize = 8;

/// Every exercise's progress, by id.
pub type Progress = BTreeMap<String, ExerciseProgress>;

/// Where an exercise stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    Passed,
    /// Checked, never passed.
    Attempted,
    NotAttempted,
}

impl Status {
    pub fn of(p: Option<&ExerciseProgress>) -> Status {
        match p {
            Some(p) if p.passed => Status::Passed,
            Some(p) if p.attempts > 0 => Status::Attempted,
            _ => Status::NotAttempted,
        }
    }
    /// The CSS class and `data-status` of its row.
    pub fn id(self) -> &'static str {
        match self {
            Status::Passed => "passed",
            Status::Attempted => "attempted",
            Status::NotAttempted => "not-attempted",
        }
    }
    fn label(self) -> &'static str {
        match self {
            Status::Passed => "✓ passed",
            Status::Attempted => "attempted",
            Status::NotAttempted => "not attempted",
        }
    }
}

/// Whether `id` can name an exercise (letters, digits, `-` and `_`).
pub fn valid_id(id: &str) -> bool {
    !id.is_empty()
        && id.chars().count() <= MAX_ID_CHARS
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// The progress kept under localStorage keys (`exercise.ID`, without the
/// page's `tessel.` prefix) and their values; other keys and unreadable
/// values are left out.
pub fn from_storage(entries: &[(String, String)]) -> Progress {
    // (Inserted one by one: collecting would sort first, more code for
    // the page's first load.)
    let mut progress = Progress::new();
    for (key, value) in entries {
        let Some(id) = key.strip_prefix("exercise.").filter(|id| valid_id(id)) else {
            continue;
        };
        if let Some(p) = ExerciseProgress::from_json(value) {
            progress.insert(id.to_string(), p);
        }
    }
    progress
}

/// The progress file as written (JSON, in id order).
#[derive(Serialize)]
struct ProgressFile<'a> {
    format: &'a str,
    version: u64,
    exercises: &'a Progress,
}

/// The progress file (pretty-printed JSON, exercises in id order).
pub fn export(progress: &Progress) -> String {
    let file = ProgressFile {
        format: FORMAT,
        version: VERSION,
        exercises: progress,
    };
    let mut text = serde_json::to_string_pretty(&file).unwrap_or_default();
    text.push('\n');
    text
}

/// Reads a progress file; `Err` lists every problem found (field by
/// field), so a learner can see what is wrong with the file.
pub fn import(text: &str) -> Result<Progress, String> {
    if text.len() > MAX_FILE_BYTES {
        return Err(format!(
            "the file is {} KB; a progress file is at most {} KB",
            text.len() >> 10,
            MAX_FILE_BYTES >> 10
        ));
    }
    let value: Value = serde_json::from_str(text).map_err(|e| {
        format!("the file is not JSON ({e}); a progress file is what Export progress saves")
    })?;
    let Value::Object(_) = value else {
        return Err(format!(
            "the file holds {}, not a progress file (an object with \"format\": \"{FORMAT}\")",
            kind(&value)
        ));
    };
    match value.get("format") {
        Some(Value::String(f)) if f == FORMAT => {}
        Some(other) => {
            return Err(format!(
                "not a Tessel progress file: \"format\" is {}, want \"{FORMAT}\"",
                short(other)
            ))
        }
        None => {
            return Err(format!(
                "not a Tessel progress file: it has no \"format\": \"{FORMAT}\" field"
            ))
        }
    }
    match value.get("version") {
        Some(n) if n.as_u64() == Some(VERSION) => {}
        Some(n) if n.as_u64().is_some_and(|v| v > VERSION) => {
            return Err(format!(
                "the file is progress version {}, newer than this page reads (version {VERSION}): update the page",
                short(n)
            ))
        }
        Some(other) => {
            return Err(format!(
                "\"version\" is {}, want {VERSION}",
                short(other)
            ))
        }
        None => return Err(format!("the file has no \"version\" (want {VERSION})")),
    }
    let exercises = match value.get("exercises") {
        Some(Value::Object(m)) => m,
        Some(other) => {
            return Err(format!(
                "\"exercises\" is {}, want an object of exercise ids",
                kind(other)
            ))
        }
        None => return Err("the file has no \"exercises\" object".into()),
    };
    let mut errors = Vec::new();
    let mut progress = Progress::new();
    for (id, entry) in exercises {
        if !valid_id(id) {
            errors.push(format!(
                "exercises: {} is not an exercise id (letters, digits, - and _)",
                short(&Value::String(id.clone()))
            ));
            continue;
        }
        match read_entry(entry) {
            Ok(p) => {
                progress.insert(id.clone(), p);
            }
            Err(why) => errors.extend(why.into_iter().map(|w| format!("exercises.{id}{w}"))),
        }
    }
    if errors.is_empty() {
        return Ok(progress);
    }
    let n = errors.len();
    let mut text = format!(
        "the file has {n} problem{}, nothing was imported:\n",
        if n == 1 { "" } else { "s" }
    );
    for e in errors.iter().take(MAX_ERRORS_SHOWN) {
        text.push_str("- ");
        text.push_str(e);
        text.push('\n');
    }
    if n > MAX_ERRORS_SHOWN {
        text.push_str(&format!("… and {} more\n", n - MAX_ERRORS_SHOWN));
    }
    Err(text.trim_end().to_string())
}

/// One exercise's entry; the errors say which field (`.passed: …`).
fn read_entry(entry: &Value) -> Result<ExerciseProgress, Vec<String>> {
    let Value::Object(_) = entry else {
        return Err(vec![format!(
            ": {} instead of an object with \"passed\" and \"attempts\"",
            kind(entry)
        )]);
    };
    let mut errors = Vec::new();
    let passed = match entry.get("passed") {
        Some(Value::Bool(b)) => *b,
        Some(other) => {
            errors.push(format!(
                ".passed: {} instead of true or false",
                short(other)
            ));
            false
        }
        None => {
            errors.push(".passed: missing (true or false)".into());
            false
        }
    };
    let mut count = |field: &str, required: bool| match entry.get(field) {
        Some(n) if n.as_u64().is_some_and(|v| v <= u32::MAX as u64) => {
            n.as_u64().unwrap_or(0) as u32
        }
        Some(other) => {
            errors.push(format!(
                ".{field}: {} instead of a whole number ≥ 0",
                short(other)
            ));
            0
        }
        None if required => {
            errors.push(format!(".{field}: missing (a whole number ≥ 0)"));
            0
        }
        None => 0,
    };
    let attempts = count("attempts", true);
    let hints = count("hints", false) as usize;
    let answer = match entry.get("answer") {
        Some(Value::String(s)) => s.clone(),
        None | Some(Value::Null) => String::new(),
        Some(other) => {
            errors.push(format!(".answer: {} instead of text", kind(other)));
            String::new()
        }
    };
    if passed && attempts == 0 && errors.is_empty() {
        errors.push(": passed with 0 attempts (a pass is a check)".into());
    }
    if errors.is_empty() {
        Ok(ExerciseProgress {
            answer,
            hints,
            passed,
            attempts,
        })
    } else {
        Err(errors)
    }
}

/// "a number", "a list", … for messages.
fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "text",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

/// A value as JSON, cut short.
fn short(v: &Value) -> String {
    let text = v.to_string();
    if text.chars().count() > 40 {
        format!("{}…", text.chars().take(40).collect::<String>())
    } else {
        text
    }
}

/// `imported` merged into `local`: an exercise passed in either stays
/// passed, attempts and hints take the larger count, and a local answer
/// is kept (an imported one fills only an empty editor). Returns what
/// changed, per exercise id.
pub fn merge(local: &Progress, imported: &Progress) -> Vec<(String, ExerciseProgress)> {
    imported
        .iter()
        .filter_map(|(id, new)| {
            let old = local.get(id).cloned().unwrap_or_default();
            let merged = ExerciseProgress {
                answer: if old.answer.is_empty() {
                    new.answer.clone()
                } else {
                    old.answer.clone()
                },
                hints: old.hints.max(new.hints),
                passed: old.passed || new.passed,
                attempts: old.attempts.max(new.attempts),
            };
            (merged != old).then(|| (id.clone(), merged))
        })
        .collect()
}

/// The Progress view's table: every listed exercise (`titles`, in the
/// course's order), then any other exercise with saved progress, and a
/// summary line. HTML (the page sets it as the view's content: less code
/// than a component per row).
pub fn table_html(progress: &Progress, titles: &[(String, String)]) -> String {
    let mut rows = String::new();
    let mut seen = std::collections::BTreeSet::new();
    let listed = titles.iter().map(|(id, t)| (id.as_str(), t.as_str()));
    let others = progress
        .keys()
        .filter(|id| !titles.iter().any(|(t, _)| t == *id))
        .map(|id| (id.as_str(), id.as_str()));
    let (mut passed, mut attempted) = (0, 0);
    for (id, title) in listed.chain(others) {
        if !seen.insert(id) {
            continue;
        }
        let p = progress.get(id);
        let status = Status::of(p);
        match status {
            Status::Passed => passed += 1,
            Status::Attempted => attempted += 1,
            Status::NotAttempted => {}
        }
        let checks = match p.map_or(0, |p| p.attempts) {
            0 => String::new(),
            1 => "1 check".into(),
            n => format!("{n} checks"),
        };
        rows.push_str(&format!(
            "<tr class=\"{s}\" data-exercise=\"{id}\" data-status=\"{s}\"><td>{title}</td><td>{label}</td><td>{checks}</td></tr>",
            s = status.id(),
            id = crate::html::escape_html(id),
            title = crate::html::escape_html(title),
            label = status.label(),
        ));
    }
    let total = seen.len();
    format!(
        "<p id=\"progress-summary\">{passed} of {total} exercise{} passed, {attempted} attempted</p>\
         <table class=\"progress-table\"><thead><tr><th>Exercise</th><th>Status</th><th>Checks</th></tr></thead><tbody>{rows}</tbody></table>",
        if total == 1 { "" } else { "s" }
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(passed: bool, attempts: u32, answer: &str) -> ExerciseProgress {
        ExerciseProgress {
            answer: answer.into(),
            hints: 1,
            passed,
            attempts,
        }
    }

    fn sample() -> Progress {
        let mut p = Progress::new();
        p.insert("broadcast-add".into(), entry(true, 2, "C = A + B\n"));
        p.insert("conv2d".into(), entry(false, 3, "# ü → λ 😀\n"));
        p
    }

    #[test]
    fn export_then_import_round_trips() {
        let text = export(&sample());
        assert!(text.contains("\"format\": \"tessel-progress\""), "{text}");
        assert!(text.contains("\"version\": 1"), "{text}");
        assert_eq!(import(&text), Ok(sample()));
        // Answers with quotes, escapes and control characters come back whole.
        let mut odd = sample();
        odd.insert(
            "gemm".into(),
            entry(false, 1, "s = \"quote \\\" back \\\\ slash\"\ttab\u{1}\n"),
        );
        assert_eq!(import(&export(&odd)), Ok(odd));
        assert_eq!(import(&export(&Progress::new())), Ok(Progress::new()));
    }

    #[test]
    fn storage_entries_are_read_and_junk_left_out() {
        let p = entry(false, 1, "x = 1\n");
        let old = r#"{"answer":"y","hints":0,"passed":true}"#;
        let entries = vec![
            ("exercise.conv2d".to_string(), p.to_json()),
            ("exercise.old-one".to_string(), old.to_string()),
            ("exercise.broken".to_string(), "{".to_string()),
            ("theme".to_string(), "dark".to_string()),
        ];
        let read = from_storage(&entries);
        assert_eq!(read.len(), 2);
        assert_eq!(read["conv2d"], p);
        // Saved before checks were counted: passed, attempts 0.
        assert!(read["old-one"].passed);
        assert_eq!(Status::of(read.get("old-one")), Status::Passed);
    }

    #[test]
    fn a_file_that_is_not_progress_says_so() {
        let err = import("not json").unwrap_err();
        assert!(err.starts_with("the file is not JSON"), "{err}");
        // The JSON error says where.
        let err = import("{\n  \"format\" 1}").unwrap_err();
        assert!(err.contains("at line 2 column"), "{err}");
        let err = import("[1, 2]").unwrap_err();
        assert!(err.contains("holds a list"), "{err}");
        let err =
            import(r#"{"format": "something-else", "version": 1, "exercises": {}}"#).unwrap_err();
        assert_eq!(
            err,
            "not a Tessel progress file: \"format\" is \"something-else\", want \"tessel-progress\""
        );
        let err = import(r#"{"version": 1, "exercises": {}}"#).unwrap_err();
        assert!(err.contains("no \"format\""), "{err}");
        let err =
            import(r#"{"format": "tessel-progress", "version": 2, "exercises": {}}"#).unwrap_err();
        assert!(err.contains("newer than this page reads"), "{err}");
        let err = import(r#"{"format": "tessel-progress", "version": "1", "exercises": {}}"#)
            .unwrap_err();
        assert_eq!(err, "\"version\" is \"1\", want 1");
        let err = import(r#"{"format": "tessel-progress", "version": 1}"#).unwrap_err();
        assert!(err.contains("no \"exercises\""), "{err}");
        let big = " ".repeat(MAX_FILE_BYTES + 1);
        assert!(import(&big).unwrap_err().contains("at most"));
    }

    #[test]
    fn every_bad_field_is_listed_and_nothing_imported() {
        let text = r#"{"format": "tessel-progress", "version": 1, "exercises": {
            "conv2d": {"passed": "yes", "attempts": -1},
            "ok-one": {"passed": false, "attempts": 1},
            "../etc": {"passed": true, "attempts": 1},
            "gemm": {"attempts": 2, "answer": 5},
            "flag": {"passed": true, "attempts": 0},
            "list": [1]
        }}"#;
        let err = import(text).unwrap_err();
        assert!(
            err.starts_with("the file has 7 problems, nothing was imported:"),
            "{err}"
        );
        for want in [
            "exercises.conv2d.passed: \"yes\" instead of true or false",
            "exercises.conv2d.attempts: -1 instead of a whole number ≥ 0",
            "exercises: \"../etc\" is not an exercise id",
            "exercises.gemm.passed: missing",
            "exercises.gemm.answer: a number instead of text",
            "exercises.flag: passed with 0 attempts",
            "exercises.list: a list instead of an object",
        ] {
            assert!(err.contains(want), "missing {want:?} in:\n{err}");
        }
        assert!(!err.contains("ok-one"), "{err}");
    }

    #[test]
    fn merging_keeps_passes_and_local_answers() {
        let mut local = Progress::new();
        local.insert("conv2d".into(), entry(false, 1, "mine\n"));
        local.insert("same".into(), entry(true, 1, "a\n"));
        let mut imported = Progress::new();
        imported.insert("conv2d".into(), entry(true, 4, "theirs\n"));
        imported.insert("new-one".into(), entry(false, 2, "theirs\n"));
        imported.insert("same".into(), entry(false, 1, "b\n"));
        let changed = merge(&local, &imported);
        assert_eq!(changed.len(), 2, "{changed:?}");
        let conv = &changed.iter().find(|(id, _)| id == "conv2d").unwrap().1;
        assert!(conv.passed);
        assert_eq!(conv.attempts, 4);
        assert_eq!(conv.answer, "mine\n");
        let new = &changed.iter().find(|(id, _)| id == "new-one").unwrap().1;
        assert_eq!(new.answer, "theirs\n");
    }

    #[test]
    fn the_table_lists_the_course_in_order_then_the_rest() {
        let titles = vec![
            ("conv2d".to_string(), "Conv <2d>".to_string()),
            ("gemm".to_string(), "GEMM".to_string()),
        ];
        let html = table_html(&sample(), &titles);
        let conv = html.find("data-exercise=\"conv2d\"").unwrap();
        let gemm = html.find("data-exercise=\"gemm\"").unwrap();
        let bcast = html.find("data-exercise=\"broadcast-add\"").unwrap();
        assert!(conv < gemm && gemm < bcast, "{html}");
        assert!(html.contains("Conv &lt;2d&gt;"), "{html}");
        assert!(html.contains(
            "<tr class=\"attempted\" data-exercise=\"conv2d\" data-status=\"attempted\"><td>Conv &lt;2d&gt;</td><td>attempted</td><td>3 checks</td></tr>"
        ));
        assert!(html.contains("data-exercise=\"gemm\" data-status=\"not-attempted\""));
        assert!(
            html.contains("1 of 3 exercises passed, 1 attempted"),
            "{html}"
        );
    }
}
