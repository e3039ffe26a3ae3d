//! Course exercises as data. An exercise is one TOML file (no Rust to add
//! one); this crate reads it into the session's plain
//! [`tessel_session::exercise::Exercise`], validates it — every error names
//! the file, the field and the problem — and writes and reads the JSON
//! catalogue the playground ships. The repository's `exercises/` folder is
//! bundled in at build time ([`bundled`]).
//!
//! The file format (every field but `hints`, `target`, `sizes` and a
//! check's options is required):
//!
//! ```toml
//! id = "broadcast-add"            # the file's name without `.toml`
//! title = "Broadcast add"
//! function = "add"                # the function the checks look at
//! target = "llvm"                 # or "webgpu"
//! statement = """Markdown…"""
//! starting_code = """…"""
//! solution = """…"""
//! alternatives = ["""…"""]   # other right answers, by other routes (tests only)
//! hints = ["first hint", "second hint"]
//!
//! [[checks]]
//! kind = "numbers"                # numbers | structure | schedule | speed | output
//! ```

// A panic in WebAssembly kills the page: library code returns typed errors (tests may unwrap).
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;

use compiler_core::target::TargetKind;
use tessel_session::exercise::{
    Check, CheckKind, Exercise, OutputMatch, ScheduleRules, LOOP_KINDS,
};

include!(concat!(env!("OUT_DIR"), "/bundled.rs"));

/// What is wrong with an exercise file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExerciseFileError {
    pub file: String,
    /// The field (`checks[2].min_speedup`), or `line L, column C` for syntax.
    pub field: String,
    pub problem: String,
}

impl fmt::Display for ExerciseFileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}: {}", self.file, self.field, self.problem)
    }
}

impl std::error::Error for ExerciseFileError {}

/// An exercise file as written (also the catalogue's JSON form).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ExerciseFile {
    id: String,
    title: String,
    function: String,
    #[serde(default = "default_target")]
    target: String,
    statement: String,
    starting_code: String,
    solution: String,
    /// Other correct answers by other routes: tests check them; the
    /// catalogue leaves them out.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    alternatives: Vec<String>,
    #[serde(default)]
    hints: Vec<String>,
    #[serde(default)]
    sizes: BTreeMap<String, i64>,
    checks: Vec<CheckFile>,
}

fn default_target() -> String {
    "llvm".into()
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase", deny_unknown_fields)]
enum CheckFile {
    Numbers {
        reference: Option<String>,
        rtol: Option<f64>,
        atol: Option<f64>,
        advice: Option<String>,
    },
    Structure {
        target: String,
        advice: Option<String>,
    },
    Schedule {
        #[serde(default)]
        must_use: Vec<String>,
        #[serde(default)]
        must_not_use: Vec<String>,
        #[serde(default)]
        thread_bindings: Vec<String>,
        #[serde(default)]
        scopes: Vec<String>,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        loop_kinds: Vec<String>,
        advice: Option<String>,
    },
    Speed {
        baseline: String,
        min_speedup: f64,
        runs: Option<u32>,
        advice: Option<String>,
    },
    Output {
        expected: String,
        #[serde(default)]
        matching: MatchFile,
        advice: Option<String>,
    },
}

#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
enum MatchFile {
    #[default]
    Exact,
    Contains,
}

/// Timed runs of a speed check when the file does not say.
pub const DEFAULT_SPEED_RUNS: u32 = 5;

/// Reads one exercise file; `file_name` (e.g. `broadcast-add.toml`) must
/// be the exercise's id plus `.toml`.
pub fn parse_exercise(file_name: &str, text: &str) -> Result<Exercise, ExerciseFileError> {
    let file: ExerciseFile = toml::from_str(text).map_err(|e| {
        let message = e.message().trim();
        // A missing top-level field has the whole file as its span: name it.
        if let Some(name) = message
            .strip_prefix("missing field `")
            .and_then(|m| m.strip_suffix('`'))
            .filter(|_| e.span().is_none_or(|s| s.start == 0))
        {
            return ExerciseFileError {
                file: file_name.to_string(),
                field: name.to_string(),
                problem: "is missing".into(),
            };
        }
        let field = match e.span() {
            Some(span) => {
                let line = text[..span.start.min(text.len())].matches('\n').count() + 1;
                let col = text[..span.start.min(text.len())]
                    .rsplit('\n')
                    .next()
                    .map_or(0, |l| l.chars().count())
                    + 1;
                format!("line {line}, column {col}")
            }
            None => "(file)".into(),
        };
        ExerciseFileError {
            file: file_name.to_string(),
            field,
            problem: message.to_string(),
        }
    })?;
    let stem = file_name.strip_suffix(".toml").unwrap_or(file_name);
    let stem = stem.rsplit(['/', '\\']).next().unwrap_or(stem);
    convert(file, Some(stem)).map_err(|(field, problem)| ExerciseFileError {
        file: file_name.to_string(),
        field,
        problem,
    })
}

/// Validates a decoded file and turns it into the session's data; errors
/// are `(field, problem)`.
fn convert(file: ExerciseFile, stem: Option<&str>) -> Result<Exercise, (String, String)> {
    check_text_fields(&file, stem)?;
    if file.checks.is_empty() {
        return Err((
            "checks".to_string(),
            "an exercise needs at least one check".to_string(),
        ));
    }
    let mut checks = Vec::new();
    for (i, c) in file.checks.into_iter().enumerate() {
        checks.push(convert_check(i, c)?);
    }
    Ok(Exercise {
        id: file.id,
        title: file.title,
        statement: file.statement,
        starting_code: file.starting_code,
        hints: file.hints,
        solution: file.solution,
        alternatives: file.alternatives,
        function: file.function,
        target: file.target,
        sizes: file.sizes.into_iter().collect(),
        checks,
    })
}

/// Checks the file's id (against its name, `stem`), its text fields, its
/// target, alternatives and hints.
fn check_text_fields(file: &ExerciseFile, stem: Option<&str>) -> Result<(), (String, String)> {
    let err = |field: &str, problem: &str| Err((field.to_string(), problem.to_string()));
    if file.id.is_empty()
        || !file
            .id
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
    {
        return err(
            "id",
            "must be lowercase letters, digits and `-` (it goes in URLs)",
        );
    }
    if let Some(stem) = stem {
        if stem != file.id {
            return Err((
                "id".into(),
                format!("is `{}` but the file is named `{stem}.toml`", file.id),
            ));
        }
    }
    for (field, value) in [
        ("title", &file.title),
        ("function", &file.function),
        ("statement", &file.statement),
        ("starting_code", &file.starting_code),
        ("solution", &file.solution),
    ] {
        if value.trim().is_empty() {
            return err(field, "must not be empty");
        }
    }
    if TargetKind::from_name(&file.target).is_none() {
        return err(
            "target",
            "must be a CPU target (`llvm`) or a GPU one (`webgpu`)",
        );
    }
    for (i, a) in file.alternatives.iter().enumerate() {
        if a.trim().is_empty() {
            return Err((format!("alternatives[{i}]"), "must not be empty".into()));
        }
        if a.trim() == file.solution.trim() {
            return Err((
                format!("alternatives[{i}]"),
                "is the solution itself: an alternative takes another route".into(),
            ));
        }
    }
    for (i, h) in file.hints.iter().enumerate() {
        if h.trim().is_empty() {
            return Err((format!("hints[{i}]"), "must not be empty".into()));
        }
    }
    Ok(())
}

/// Validates the `i`th check and turns it into the session's data.
fn convert_check(i: usize, c: CheckFile) -> Result<Check, (String, String)> {
    let field = |name: &str| format!("checks[{i}].{name}");
    let (kind, advice) = match c {
        CheckFile::Numbers {
            reference,
            rtol,
            atol,
            advice,
        } => {
            let tolerance = match (rtol, atol) {
                (None, None) => None,
                (Some(r), Some(a)) if r >= 0.0 && a >= 0.0 => Some((r, a)),
                (Some(_), Some(_)) => {
                    return Err((field("rtol"), "tolerances must not be negative".into()))
                }
                _ => {
                    return Err((
                        field("rtol"),
                        "give both `rtol` and `atol`, or neither".into(),
                    ))
                }
            };
            if reference.as_ref().is_some_and(|r| r.trim().is_empty()) {
                return Err((field("reference"), "must not be empty".into()));
            }
            (
                CheckKind::Numbers {
                    reference,
                    tolerance,
                },
                advice,
            )
        }
        CheckFile::Structure { target, advice } => {
            if target.trim().is_empty() {
                return Err((field("target"), "must not be empty".into()));
            }
            (CheckKind::Structure { target }, advice)
        }
        CheckFile::Schedule {
            must_use,
            must_not_use,
            thread_bindings,
            scopes,
            loop_kinds,
            advice,
        } => {
            if must_use.is_empty()
                && must_not_use.is_empty()
                && thread_bindings.is_empty()
                && scopes.is_empty()
                && loop_kinds.is_empty()
            {
                return Err((
                    field("must_use"),
                    "a schedule check needs one of `must_use`, `must_not_use`, \
                     `thread_bindings`, `scopes`, `loop_kinds`"
                        .into(),
                ));
            }
            if let Some(k) = loop_kinds
                .iter()
                .find(|k| !LOOP_KINDS.contains(&k.as_str()))
            {
                return Err((
                    field("loop_kinds"),
                    format!(
                        "`{k}` is not a loop kind (one of {})",
                        LOOP_KINDS.join(", ")
                    ),
                ));
            }
            for (name, list) in [("must_use", &must_use), ("must_not_use", &must_not_use)] {
                if let Some(p) = list.iter().find(|p| !is_primitive(p)) {
                    return Err((field(name), format!("`{p}` is not a schedule primitive")));
                }
            }
            (
                CheckKind::Schedule(ScheduleRules {
                    must_use,
                    must_not_use,
                    thread_bindings,
                    scopes,
                    loop_kinds,
                }),
                advice,
            )
        }
        CheckFile::Speed {
            baseline,
            min_speedup,
            runs,
            advice,
        } => {
            if baseline.trim().is_empty() {
                return Err((field("baseline"), "must not be empty".into()));
            }
            if !(min_speedup.is_finite() && min_speedup > 0.0) {
                return Err((field("min_speedup"), "must be a positive number".into()));
            }
            let runs = runs.unwrap_or(DEFAULT_SPEED_RUNS);
            if !(1..=100).contains(&runs) {
                return Err((field("runs"), "must be between 1 and 100".into()));
            }
            (
                CheckKind::Speed {
                    baseline,
                    min_speedup,
                    runs,
                },
                advice,
            )
        }
        CheckFile::Output {
            expected,
            matching,
            advice,
        } => {
            if expected.trim().is_empty() {
                return Err((field("expected"), "must not be empty".into()));
            }
            let matching = match matching {
                MatchFile::Exact => OutputMatch::Exact,
                MatchFile::Contains => OutputMatch::Contains,
            };
            (CheckKind::Output { expected, matching }, advice)
        }
    };
    Ok(Check { kind, advice })
}

/// Whether `name` is a schedule primitive's method name.
fn is_primitive(name: &str) -> bool {
    compiler_core::schedule::primitives::by_method(name).is_some()
}

/// Reads a set of exercise files: every file's errors, or the exercises
/// sorted by id (ids must be unique).
pub fn parse_all(files: &[(&str, &str)]) -> Result<Vec<Exercise>, Vec<ExerciseFileError>> {
    unique_sorted(
        files
            .iter()
            .map(|(name, text)| (*name, parse_exercise(name, text))),
    )
}

/// The exercises sorted by id, or every error (a read error, or an id
/// that another file already uses).
fn unique_sorted<'a>(
    read: impl Iterator<Item = (&'a str, Result<Exercise, ExerciseFileError>)>,
) -> Result<Vec<Exercise>, Vec<ExerciseFileError>> {
    let mut errors = Vec::new();
    let mut exercises: Vec<Exercise> = Vec::new();
    for (name, result) in read {
        match result {
            Ok(e) if exercises.iter().any(|x| x.id == e.id) => errors.push(ExerciseFileError {
                file: name.to_string(),
                field: "id".into(),
                problem: format!("`{}` is used by another exercise", e.id),
            }),
            Ok(e) => exercises.push(e),
            Err(e) => errors.push(e),
        }
    }
    if errors.is_empty() {
        compiler_core::ir::sort::by(&mut exercises, |a, b| a.id.cmp(&b.id));
        Ok(exercises)
    } else {
        Err(errors)
    }
}

/// The repository's exercises (bundled at build time, as JSON: see
/// `build.rs`), validated like [`parse_all`] validates files.
pub fn bundled() -> Result<Vec<Exercise>, Vec<ExerciseFileError>> {
    unique_sorted(BUNDLED.iter().map(|(name, json)| {
        let bad = |field: String, problem: String| ExerciseFileError {
            file: name.to_string(),
            field,
            problem,
        };
        let stem = name.strip_suffix(".toml").unwrap_or(name);
        let decoded = serde_json::from_str::<ExerciseFile>(json)
            .map_err(|e| bad("(file)".into(), e.to_string()))
            .and_then(|f| convert(f, Some(stem)).map_err(|(field, problem)| bad(field, problem)));
        (*name, decoded)
    }))
}

/// The catalogue's JSON form: `{"exercises": [...]}` with every field of
/// the files (the worker needs the solution as the numbers reference; the
/// page never shows it).
pub fn catalogue_json(exercises: &[Exercise]) -> String {
    #[derive(Serialize)]
    struct Catalogue {
        exercises: Vec<ExerciseFile>,
    }
    let catalogue = Catalogue {
        exercises: exercises.iter().map(to_file).collect(),
    };
    serde_json::to_string_pretty(&catalogue).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
}

/// Reads a catalogue [`catalogue_json`] wrote.
pub fn parse_catalogue(json: &str) -> Result<Vec<Exercise>, ExerciseFileError> {
    #[derive(Deserialize)]
    struct Catalogue {
        exercises: Vec<ExerciseFile>,
    }
    let bad = |field: String, problem: String| ExerciseFileError {
        file: "exercises.json".into(),
        field,
        problem,
    };
    let catalogue: Catalogue =
        serde_json::from_str(json).map_err(|e| bad(format!("line {}", e.line()), e.to_string()))?;
    catalogue
        .exercises
        .into_iter()
        .map(|f| {
            let id = f.id.clone();
            convert(f, None).map_err(|(field, problem)| bad(format!("{id}.{field}"), problem))
        })
        .collect()
}

/// One exercise as the page fetches it (`exercises/ID.json` in the built
/// site): the file's fields (without the alternatives, which only tests
/// use) and the statement rendered to HTML when the site was built.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct PageExercise {
    exercise: ExerciseFile,
    statement_html: String,
}

/// The page's file for `exercise` (see [`parse_page_exercise`]).
pub fn page_exercise_json(exercise: &Exercise) -> String {
    let page = PageExercise {
        exercise: to_file(exercise),
        statement_html: statement_html(&exercise.statement),
    };
    serde_json::to_string(&page).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
}

/// Reads a file [`page_exercise_json`] wrote, validated like an exercise
/// file: the exercise and its statement as HTML.
pub fn parse_page_exercise(json: &str) -> Result<(Exercise, String), ExerciseFileError> {
    let bad = |field: String, problem: String| ExerciseFileError {
        file: "exercise.json".into(),
        field,
        problem,
    };
    let page: PageExercise =
        serde_json::from_str(json).map_err(|e| bad(format!("line {}", e.line()), e.to_string()))?;
    let id = page.exercise.id.clone();
    let exercise = convert(page.exercise, None).map_err(|(field, problem)| ExerciseFileError {
        file: format!("{id}.json"),
        field,
        problem,
    })?;
    Ok((exercise, page.statement_html))
}

/// What the page lists before an exercise is opened: id, title and
/// target of each (`exercises/index.json`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct IndexEntry {
    pub id: String,
    pub title: String,
    pub target: String,
}

/// The page's index of `exercises` as JSON: `{"exercises": [...]}`.
pub fn index_json(exercises: &[Exercise]) -> String {
    #[derive(Serialize)]
    struct Index {
        exercises: Vec<IndexEntry>,
    }
    let index = Index {
        exercises: exercises
            .iter()
            .map(|e| IndexEntry {
                id: e.id.clone(),
                title: e.title.clone(),
                target: e.target.clone(),
            })
            .collect(),
    };
    serde_json::to_string(&index).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
}

/// Reads [`index_json`]'s output.
pub fn parse_index(json: &str) -> Result<Vec<IndexEntry>, String> {
    #[derive(Deserialize)]
    struct Index {
        exercises: Vec<IndexEntry>,
    }
    serde_json::from_str::<Index>(json)
        .map(|i| i.exercises)
        .map_err(|e| format!("exercises/index.json: {e}"))
}

/// A statement's Markdown as HTML; raw HTML in it is shown as text, so a
/// statement can never inject markup into the page.
pub fn statement_html(markdown: &str) -> String {
    use pulldown_cmark::{html, Event, Parser};
    let events = Parser::new(markdown).map(|e| match e {
        Event::Html(raw) | Event::InlineHtml(raw) => Event::Text(raw),
        other => other,
    });
    let mut rendered = String::new();
    html::push_html(&mut rendered, events);
    rendered
}

fn to_file(e: &Exercise) -> ExerciseFile {
    ExerciseFile {
        id: e.id.clone(),
        title: e.title.clone(),
        function: e.function.clone(),
        target: e.target.clone(),
        statement: e.statement.clone(),
        starting_code: e.starting_code.clone(),
        solution: e.solution.clone(),
        alternatives: Vec::new(),
        hints: e.hints.clone(),
        sizes: e.sizes.iter().cloned().collect(),
        checks: e
            .checks
            .iter()
            .map(|c| {
                let advice = c.advice.clone();
                match &c.kind {
                    CheckKind::Numbers {
                        reference,
                        tolerance,
                    } => CheckFile::Numbers {
                        reference: reference.clone(),
                        rtol: tolerance.map(|t| t.0),
                        atol: tolerance.map(|t| t.1),
                        advice,
                    },
                    CheckKind::Structure { target } => CheckFile::Structure {
                        target: target.clone(),
                        advice,
                    },
                    CheckKind::Schedule(r) => CheckFile::Schedule {
                        must_use: r.must_use.clone(),
                        must_not_use: r.must_not_use.clone(),
                        thread_bindings: r.thread_bindings.clone(),
                        scopes: r.scopes.clone(),
                        loop_kinds: r.loop_kinds.clone(),
                        advice,
                    },
                    CheckKind::Speed {
                        baseline,
                        min_speedup,
                        runs,
                    } => CheckFile::Speed {
                        baseline: baseline.clone(),
                        min_speedup: *min_speedup,
                        runs: Some(*runs),
                        advice,
                    },
                    CheckKind::Output { expected, matching } => CheckFile::Output {
                        expected: expected.clone(),
                        matching: match matching {
                            OutputMatch::Exact => MatchFile::Exact,
                            OutputMatch::Contains => MatchFile::Contains,
                        },
                        advice,
                    },
                }
            })
            .collect(),
    }
}
