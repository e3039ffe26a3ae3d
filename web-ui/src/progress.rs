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
//! file format and its validation are tested natively. The file is read
//! and written by the small JSON reader below rather than serde_json's
//! `Value`: the page's wasm is in every first load, and the generic
//! `Value` machinery cost more than the whole feature's budget.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::protocol::ExerciseProgress;
use json::Value;

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

/// The progress file (JSON, one exercise a line, in id order).
pub fn export(progress: &Progress) -> String {
    let mut out =
        format!("{{\n  \"format\": \"{FORMAT}\",\n  \"version\": {VERSION},\n  \"exercises\": {{");
    for (i, (id, p)) in progress.iter().enumerate() {
        out.push_str(if i == 0 { "\n    " } else { ",\n    " });
        json::write_string(&mut out, id);
        let _ = write!(
            out,
            ": {{\"passed\": {}, \"attempts\": {}, \"hints\": {}, \"answer\": ",
            p.passed, p.attempts, p.hints
        );
        json::write_string(&mut out, &p.answer);
        out.push('}');
    }
    out.push_str(if progress.is_empty() {
        "}\n}\n"
    } else {
        "\n  }\n}\n"
    });
    out
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
    let value = json::parse(text).map_err(|e| {
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
        Some(n) if n.as_count() == Some(VERSION) => {}
        Some(n) if n.as_count().is_some_and(|v| v > VERSION) => {
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
        Some(n) if n.as_count().is_some_and(|v| v <= u32::MAX as u64) => {
            n.as_count().unwrap_or(0) as u32
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
    let text = v.to_json();
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
            id = crate::tuning::escape_html(id),
            title = crate::tuning::escape_html(title),
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

/// Just enough JSON for the progress file: a reader with line and column
/// in its errors, and a string writer.
mod json {
    use std::fmt::Write as _;

    #[derive(Clone, Debug, PartialEq)]
    pub enum Value {
        Null,
        Bool(bool),
        /// As written (only whole numbers are read, by [`Value::as_count`]:
        /// the page does without a float parser).
        Number(String),
        String(String),
        Array(Vec<Value>),
        /// Members in file order (a repeated key: the last one counts).
        Object(Vec<(String, Value)>),
    }

    impl Value {
        /// Member `key` of an object.
        pub fn get(&self, key: &str) -> Option<&Value> {
            match self {
                Value::Object(m) => m.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v),
                _ => None,
            }
        }
        /// A whole number ≥ 0.
        pub fn as_count(&self) -> Option<u64> {
            match self {
                Value::Number(n) => n.parse().ok(),
                _ => None,
            }
        }
        /// The value as compact JSON.
        pub fn to_json(&self) -> String {
            let mut out = String::new();
            self.write(&mut out);
            out
        }
        fn write(&self, out: &mut String) {
            match self {
                Value::Null => out.push_str("null"),
                Value::Bool(b) => {
                    let _ = write!(out, "{b}");
                }
                Value::Number(n) => out.push_str(n),
                Value::String(s) => write_string(out, s),
                Value::Array(items) => {
                    out.push('[');
                    for (i, v) in items.iter().enumerate() {
                        if i > 0 {
                            out.push_str(", ");
                        }
                        v.write(out);
                    }
                    out.push(']');
                }
                Value::Object(members) => {
                    out.push('{');
                    for (i, (k, v)) in members.iter().enumerate() {
                        if i > 0 {
                            out.push_str(", ");
                        }
                        write_string(out, k);
                        out.push_str(": ");
                        v.write(out);
                    }
                    out.push('}');
                }
            }
        }
    }

    /// `s` as a JSON string.
    pub fn write_string(out: &mut String, s: &str) {
        out.push('"');
        for c in s.chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                c if (c as u32) < 0x20 => {
                    let _ = write!(out, "\\u{:04x}", c as u32);
                }
                c => out.push(c),
            }
        }
        out.push('"');
    }

    /// Nesting deeper than this is refused (a progress file is 3 deep).
    const MAX_DEPTH: usize = 64;

    /// Reads one JSON value (and nothing after it but whitespace).
    pub fn parse(text: &str) -> Result<Value, String> {
        let mut r = Reader {
            text: text.as_bytes(),
            at: 0,
        };
        let v = r.value(0)?;
        r.space();
        if r.at < r.text.len() {
            return Err(r.error("text after the end of the value"));
        }
        Ok(v)
    }

    struct Reader<'a> {
        text: &'a [u8],
        at: usize,
    }

    impl Reader<'_> {
        fn error(&self, what: &str) -> String {
            let before = &self.text[..self.at.min(self.text.len())];
            let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
            let line_start = before
                .iter()
                .rposition(|&b| b == b'\n')
                .map_or(0, |i| i + 1);
            let column = String::from_utf8_lossy(&before[line_start..])
                .chars()
                .count()
                + 1;
            format!("{what} at line {line} column {column}")
        }
        fn space(&mut self) {
            while self.at < self.text.len() && self.text[self.at].is_ascii_whitespace() {
                self.at += 1;
            }
        }
        fn eat(&mut self, b: u8) -> bool {
            self.space();
            let hit = self.text.get(self.at) == Some(&b);
            if hit {
                self.at += 1;
            }
            hit
        }
        fn word(&mut self, word: &str, v: Value) -> Result<Value, String> {
            if self.text[self.at..].starts_with(word.as_bytes()) {
                self.at += word.len();
                Ok(v)
            } else {
                Err(self.error("expected a value"))
            }
        }
        fn value(&mut self, depth: usize) -> Result<Value, String> {
            if depth > MAX_DEPTH {
                return Err(self.error("nested too deep"));
            }
            self.space();
            match self.text.get(self.at) {
                None => Err(self.error("unexpected end of the file")),
                Some(b'n') => self.word("null", Value::Null),
                Some(b't') => self.word("true", Value::Bool(true)),
                Some(b'f') => self.word("false", Value::Bool(false)),
                Some(b'"') => self.string().map(Value::String),
                Some(b'[') => {
                    self.at += 1;
                    let mut items = Vec::new();
                    if self.eat(b']') {
                        return Ok(Value::Array(items));
                    }
                    loop {
                        items.push(self.value(depth + 1)?);
                        if self.eat(b']') {
                            return Ok(Value::Array(items));
                        }
                        if !self.eat(b',') {
                            return Err(self.error("expected , or ]"));
                        }
                    }
                }
                Some(b'{') => {
                    self.at += 1;
                    let mut members = Vec::new();
                    if self.eat(b'}') {
                        return Ok(Value::Object(members));
                    }
                    loop {
                        self.space();
                        if self.text.get(self.at) != Some(&b'"') {
                            return Err(self.error("expected a \"key\""));
                        }
                        let key = self.string()?;
                        if !self.eat(b':') {
                            return Err(self.error("expected :"));
                        }
                        members.push((key, self.value(depth + 1)?));
                        if self.eat(b'}') {
                            return Ok(Value::Object(members));
                        }
                        if !self.eat(b',') {
                            return Err(self.error("expected , or }"));
                        }
                    }
                }
                Some(b'-' | b'0'..=b'9') => {
                    // JSON's number grammar: -?(0|[1-9]d*)(.d+)?([eE][+-]?d+)?
                    let start = self.at;
                    let digits = |r: &mut Self| {
                        let from = r.at;
                        while r.text.get(r.at).is_some_and(u8::is_ascii_digit) {
                            r.at += 1;
                        }
                        r.at > from
                    };
                    let mut ok = true;
                    if self.text[self.at] == b'-' {
                        self.at += 1;
                    }
                    ok &= digits(self);
                    if self.text.get(self.at) == Some(&b'.') {
                        self.at += 1;
                        ok &= digits(self);
                    }
                    if matches!(self.text.get(self.at), Some(b'e' | b'E')) {
                        self.at += 1;
                        if matches!(self.text.get(self.at), Some(b'+' | b'-')) {
                            self.at += 1;
                        }
                        ok &= digits(self);
                    }
                    let text = &self.text[start..self.at];
                    let body = text.strip_prefix(b"-").unwrap_or(text);
                    if !ok || (body.len() > 1 && body[0] == b'0' && body[1].is_ascii_digit()) {
                        return Err(self.error("a malformed number"));
                    }
                    Ok(Value::Number(String::from_utf8_lossy(text).into_owned()))
                }
                Some(_) => Err(self.error("expected a value")),
            }
        }
        /// A string; `self.at` is at its opening quote.
        fn string(&mut self) -> Result<String, String> {
            self.at += 1;
            let mut out = Vec::new();
            loop {
                let Some(&b) = self.text.get(self.at) else {
                    return Err(self.error("a string without its closing quote"));
                };
                self.at += 1;
                match b {
                    b'"' => break,
                    b'\\' => {
                        let Some(&e) = self.text.get(self.at) else {
                            return Err(self.error("a string without its closing quote"));
                        };
                        self.at += 1;
                        let c = match e {
                            b'"' => '"',
                            b'\\' => '\\',
                            b'/' => '/',
                            b'b' => '\u{8}',
                            b'f' => '\u{c}',
                            b'n' => '\n',
                            b'r' => '\r',
                            b't' => '\t',
                            b'u' => {
                                let hi = self.hex4()?;
                                let code = if (0xd800..0xdc00).contains(&hi)
                                    && self.text[self.at..].starts_with(b"\\u")
                                {
                                    self.at += 2;
                                    let lo = self.hex4()?;
                                    0x10000
                                        + ((hi - 0xd800) << 10)
                                        + (lo.wrapping_sub(0xdc00) & 0x3ff)
                                } else {
                                    hi
                                };
                                char::from_u32(code).unwrap_or('\u{fffd}')
                            }
                            _ => return Err(self.error("an unknown escape in a string")),
                        };
                        let mut buf = [0; 4];
                        out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                    }
                    b if b < 0x20 => return Err(self.error("a control character in a string")),
                    b => out.push(b),
                }
            }
            String::from_utf8(out).map_err(|_| self.error("a string that is not UTF-8"))
        }
        fn hex4(&mut self) -> Result<u32, String> {
            let digits = self
                .text
                .get(self.at..self.at + 4)
                .and_then(|d| std::str::from_utf8(d).ok())
                .and_then(|d| u32::from_str_radix(d, 16).ok())
                .ok_or_else(|| self.error("a malformed \\u escape"))?;
            self.at += 4;
            Ok(digits)
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn reads_what_json_allows_and_says_where_it_fails() {
            let v = parse(
                " {\"a\": [1, -2.5e1, true, null], \"b\": \"x\\n\\u00e9\\ud83d\\ude00\\\"\"} ",
            )
            .unwrap();
            assert_eq!(
                v.get("a"),
                Some(&Value::Array(vec![
                    Value::Number("1".into()),
                    Value::Number("-2.5e1".into()),
                    Value::Bool(true),
                    Value::Null
                ]))
            );
            assert_eq!(v.get("b"), Some(&Value::String("x\né😀\"".into())));
            assert_eq!(
                parse("{\"a\": 1,}").unwrap_err(),
                "expected a \"key\" at line 1 column 9"
            );
            assert_eq!(
                parse("{\n  \"a\" 1}").unwrap_err(),
                "expected : at line 2 column 7"
            );
            assert!(parse("[1] x")
                .unwrap_err()
                .starts_with("text after the end"));
            assert!(parse("\"open").unwrap_err().contains("closing quote"));
            assert!(parse(&"[".repeat(100))
                .unwrap_err()
                .contains("nested too deep"));
            assert!(parse("").unwrap_err().contains("unexpected end"));
            assert!(parse("01").unwrap_err().contains("malformed number"));
            assert!(parse("1.").unwrap_err().contains("malformed number"));
            assert_eq!(parse("7").unwrap().as_count(), Some(7));
            assert_eq!(parse("-1").unwrap().as_count(), None);
            assert_eq!(parse("1.5").unwrap().as_count(), None);
        }

        #[test]
        fn strings_written_read_back() {
            for s in [
                "plain",
                "quote \" back \\ slash",
                "tab\tnew\nline\u{1}",
                "ü → λ 😀",
            ] {
                let mut out = String::new();
                write_string(&mut out, s);
                assert_eq!(parse(&out), Ok(Value::String(s.into())), "{out}");
            }
        }
    }
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
        p.insert("conv2d".into(), entry(false, 3, "# ü → λ\n"));
        p
    }

    #[test]
    fn export_then_import_round_trips() {
        let text = export(&sample());
        assert!(text.contains("\"format\": \"tessel-progress\""), "{text}");
        assert!(text.contains("\"version\": 1"), "{text}");
        assert_eq!(import(&text), Ok(sample()));
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
