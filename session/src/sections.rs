//! The playground's script-mode file format: a TVMScript module, then
//! sections that start at `# --- kind[: arg] ---` marker lines.

/// The line that separates the module from its schedule in script mode.
pub const SCHEDULE_MARKER: &str = "# --- schedule";

/// Replaces every character except line breaks with spaces (one per
/// byte), so that byte offsets in the blanked text are offsets in the original.
fn blank(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\n' | '\r' => out.push(c),
            c => out.extend(std::iter::repeat_n(' ', c.len_utf8())),
        }
    }
    out
}

/// A script-mode source cut at its `# --- kind[: arg] ---` marker lines.
/// Every part is the full length of the source with the rest blanked, so
/// spans in any part are offsets in the source.
#[derive(Clone, Debug, Default)]
pub struct Sections {
    /// The TVMScript module (everything before the first marker).
    pub module: String,
    /// `# --- tensor-intrin: NAME ---` sections: description then
    /// implementation PrimFunc (`TensorIntrin.register`).
    pub intrins: Vec<(String, String)>,
    /// `# --- schedule ---`: schedule calls.
    pub schedule: Option<String>,
    /// `# --- expect-error: TEXT ---` (the schedule cases' negative tests).
    pub expect_error: Option<String>,
}

/// The kind and argument of a marker line, if it is one.
fn marker(line: &str) -> Option<(String, Option<String>)> {
    let body = line.trim().strip_prefix("# ---")?.trim();
    let body = body.strip_suffix("---").unwrap_or(body).trim();
    let (kind, arg) = match body.split_once(':') {
        Some((k, a)) => (k.trim(), Some(a.trim().to_string())),
        None => (body, None),
    };
    matches!(kind, "schedule" | "tensor-intrin" | "expect-error").then(|| (kind.to_string(), arg))
}

/// Splits script-mode source into its sections.
pub fn split_script(source: &str) -> Sections {
    // (kind, arg, start of the section's text)
    let mut cuts: Vec<(String, Option<String>, usize)> = Vec::new();
    let mut offset = 0;
    for line in source.split_inclusive('\n') {
        if let Some((kind, arg)) = marker(line) {
            cuts.push((kind, arg, offset));
        }
        offset += line.len();
    }
    let first = cuts.first().map_or(source.len(), |c| c.2);
    let keep = |start: usize, end: usize, f: &dyn Fn(&str) -> String| -> String {
        format!(
            "{}{}{}",
            blank(&source[..start]),
            f(&source[start..end]),
            blank(&source[end..])
        )
    };
    let mut out = Sections {
        module: keep(0, first, &|t| t.to_string()),
        ..Sections::default()
    };
    for (k, (kind, arg, start)) in cuts.iter().enumerate() {
        let end = cuts.get(k + 1).map_or(source.len(), |c| c.2);
        match kind.as_str() {
            "schedule" => out.schedule = Some(keep(*start, end, &schedule_lines)),
            "tensor-intrin" => out.intrins.push((
                arg.clone().unwrap_or_default(),
                keep(*start, end, &|t| t.to_string()),
            )),
            _ => out.expect_error = arg.clone(),
        }
    }
    out
}

/// The schedule part with the notebook lines that are not schedule calls
/// (`sch = tvm.tir.Schedule(mod)`, `print(…)`, imports, `….show()`) blanked.
fn schedule_lines(rest: &str) -> String {
    rest.split_inclusive('\n')
        .map(|line| {
            let t = line.trim_start();
            let skip = (t.starts_with("sch =") || t.starts_with("sch=")) && t.contains("Schedule(")
                || t.starts_with("print(")
                || t.starts_with("import ")
                || t.starts_with("from ")
                || t.contains(".show(")
                || t.starts_with("IPython");
            if skip {
                blank(line)
            } else {
                line.to_string()
            }
        })
        .collect()
}
