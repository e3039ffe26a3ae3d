//! The schedule case format (`tests/data/schedule/<name>.py`), read the same
//! way as `tools/tvm_oracle/schedule_case.py` reads it. See
//! `tests/data/schedule/README.md`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Suffixes of the generated (or hand-written) golden files.
pub const GOLDEN_SUFFIXES: [&str; 4] = [
    ".expected.py",
    ".expected-trace.py",
    ".expected-values.txt",
    ".expected-error.txt",
];

/// Lines a hand-written golden starts with (its derivation note).
pub const HAND_NOTE: &str = "# hand-written:";

#[derive(Clone, Debug)]
pub struct Case {
    pub name: String,
    pub path: PathBuf,
    /// The module section (starts at line 1 of the file).
    pub module_src: String,
    /// The schedule text, padded with blank lines so that its line numbers
    /// are the case file's.
    pub schedule_src: String,
    /// 1-based line where the schedule starts.
    pub schedule_line: usize,
    /// `(intrinsic name, TVMScript with its description and implementation)`.
    pub intrinsics: Vec<(String, String)>,
    pub expect_error: Option<String>,
    pub target: Option<String>,
    pub values: Vec<String>,
    pub hand_written: Option<String>,
    pub tessel_error: Option<String>,
    pub numerics: Option<String>,
}

/// `# --- kind[: arg] ---`
fn marker(line: &str) -> Option<(String, Option<String>)> {
    let inner = line.trim().strip_prefix('#')?.trim_start();
    let inner = inner.strip_prefix("---")?.strip_suffix("---")?.trim();
    let (kind, arg) = match inner.split_once(':') {
        Some((k, a)) => (k.trim(), Some(a.trim().to_string())),
        None => (inner, None),
    };
    if kind.is_empty() || !kind.chars().all(|c| c.is_ascii_lowercase() || c == '-') {
        return None;
    }
    Some((kind.to_string(), arg.filter(|a| !a.is_empty())))
}

pub fn parse_case(text: &str, path: &Path) -> Result<Case, String> {
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(|n| n.strip_suffix(".py"))
        .ok_or_else(|| format!("{}: not a .py file", path.display()))?
        .to_string();
    let where_ = |line: usize| format!("{}:{line}", path.display());
    // (kind, arg, first line, lines)
    let mut sections: Vec<(String, Option<String>, usize, Vec<&str>)> =
        vec![("module".into(), None, 1, Vec::new())];
    let mut expect_error = None;
    for (i, line) in text.split('\n').enumerate() {
        let lineno = i + 1;
        if let Some((kind, arg)) = marker(line) {
            match kind.as_str() {
                "expect-error" => {
                    let arg = arg.ok_or_else(|| {
                        format!("{}: `expect-error` needs a substring", where_(lineno))
                    })?;
                    if expect_error.replace(arg).is_some() {
                        return Err(format!("{}: a second `expect-error`", where_(lineno)));
                    }
                }
                "schedule" | "tensor-intrin" => {
                    if kind == "tensor-intrin" && arg.is_none() {
                        return Err(format!("{}: `tensor-intrin` needs a name", where_(lineno)));
                    }
                    sections.push((kind, arg, lineno + 1, Vec::new()));
                }
                other => return Err(format!("{}: unknown marker `{other}`", where_(lineno))),
            }
            continue;
        }
        sections.last_mut().expect("a section").3.push(line);
    }
    let schedules = sections.iter().filter(|s| s.0 == "schedule").count();
    if schedules != 1 || sections.last().map(|s| s.0.as_str()) != Some("schedule") {
        return Err(format!(
            "{}: expected exactly one `# --- schedule ---` section, last",
            path.display()
        ));
    }
    let last = sections.last().expect("schedule section");
    let mut case = Case {
        name,
        path: path.to_path_buf(),
        module_src: sections[0].3.join("\n"),
        schedule_src: "\n".repeat(last.2 - 1) + &last.3.join("\n"),
        schedule_line: last.2,
        intrinsics: sections
            .iter()
            .filter(|s| s.0 == "tensor-intrin")
            .map(|s| (s.1.clone().unwrap_or_default(), s.3.join("\n")))
            .collect(),
        expect_error,
        target: None,
        values: Vec::new(),
        hand_written: None,
        tessel_error: None,
        numerics: None,
    };
    for line in &sections[0].3 {
        let t = line.trim();
        if !t.is_empty() && !t.starts_with('#') {
            break; // directives live in the header comment
        }
        let Some(rest) = t.strip_prefix('#') else {
            continue;
        };
        let Some((key, value)) = rest.trim_start().split_once(':') else {
            continue;
        };
        let value = value.trim().to_string();
        match key {
            "target" => case.target = Some(value),
            "values" => {
                case.values = value
                    .split(',')
                    .map(|v| v.trim().to_string())
                    .filter(|v| !v.is_empty())
                    .collect()
            }
            "hand-written" => case.hand_written = Some(value),
            "tessel-error" => case.tessel_error = Some(value),
            "numerics" => case.numerics = Some(value),
            _ => {}
        }
    }
    Ok(case)
}

pub fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/schedule")
}

/// Every case file, sorted by name.
pub fn case_paths() -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(data_dir())
        .expect("tests/data/schedule")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| {
            let n = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            n.ends_with(".py") && !GOLDEN_SUFFIXES.iter().any(|s| n.ends_with(s))
        })
        .collect();
    out.sort();
    out
}

pub fn load_case(path: &Path) -> Result<Case, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    parse_case(&text, path)
}

impl Case {
    /// A golden file of this case, if present.
    pub fn golden(&self, suffix: &str) -> Option<String> {
        std::fs::read_to_string(data_dir().join(format!("{}{suffix}", self.name))).ok()
    }
}

/// `PENDING.txt`: `name  # reason` per line (`#` lines and blank lines ignored).
pub fn load_pending() -> BTreeMap<String, String> {
    let text = std::fs::read_to_string(data_dir().join("PENDING.txt")).unwrap_or_default();
    let mut out = BTreeMap::new();
    for line in text.lines() {
        let t = line.trim();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        let (name, reason) = match t.split_once('#') {
            Some((n, r)) => (n.trim(), r.trim()),
            None => (t, ""),
        };
        out.insert(name.to_string(), reason.to_string());
    }
    out
}

/// A hand-written golden without its note lines.
pub fn strip_hand_note(text: &str) -> String {
    text.lines()
        .skip_while(|l| l.starts_with(HAND_NOTE))
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_and_directives() {
        let text = "# about\n# target: ../x.py\n# values: a, b\nimport tvm\n# --- schedule ---\nb = sch.get_block(\"C\")\n# --- expect-error: boom ---\n";
        let c = parse_case(text, Path::new("/d/c1.py")).unwrap();
        assert_eq!(c.name, "c1");
        assert_eq!(c.target.as_deref(), Some("../x.py"));
        assert_eq!(c.values, vec!["a", "b"]);
        assert_eq!(c.expect_error.as_deref(), Some("boom"));
        assert_eq!(c.schedule_line, 6);
        assert_eq!(
            c.schedule_src.lines().nth(5),
            Some("b = sch.get_block(\"C\")")
        );
        assert!(parse_case("x = 1\n", Path::new("/d/c2.py")).is_err());
    }
}
