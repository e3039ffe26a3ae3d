//! The tuning-record database: in memory, keyed by the workload's
//! structural hash and the target text, and (de)serialised in TVM's
//! JSON-lines shape so a host can keep it (`tessel run` under `work_dir`,
//! the browser in IndexedDB):
//! - `database_workload.json`, one line per workload: `["0x<hash>", "<module
//!   as TVMScript>"]` (TVM writes the module as its JSON graph);
//! - `database_tuning_record.json`, one line per measured candidate:
//!   `[<workload line>, [<trace as TVM's JSON>, [<seconds per run>…],
//!   {"kind": …, "target": …}, null]]`; a failed run records `[1e10]`, TVM's
//!   marker.
//!
//! A record's trace is the design trace with its decisions, before the
//! postprocessors: replaying it and postprocessing rebuilds the program
//! (and a search can mutate it further).

use compiler_core::schedule::json::Json;
use compiler_core::schedule::Trace;

use crate::error::TuneError;
use crate::workload::Workload;

/// TVM's run time for a failed measurement.
pub const FAILED_SECONDS: f64 = 1e10;

/// One measured candidate.
#[derive(Clone, Debug, PartialEq)]
pub struct TuningRecord {
    pub workload_hash: u64,
    /// The target as given (`llvm --num-cores=1`).
    pub target: String,
    pub trace: Trace,
    /// Seconds per run of each repeat; `None` when the candidate failed.
    pub run_secs: Option<Vec<f64>>,
}

impl TuningRecord {
    /// Mean seconds, or infinity for a failure.
    pub fn mean_seconds(&self) -> f64 {
        match &self.run_secs {
            Some(v) if !v.is_empty() => v.iter().sum::<f64>() / v.len() as f64,
            _ => f64::INFINITY,
        }
    }
}

/// Workloads and their records.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Database {
    /// Each workload's hash and module text, in commit order.
    workloads: Vec<(u64, String)>,
    records: Vec<TuningRecord>,
}

impl Database {
    pub fn new() -> Database {
        Database::default()
    }

    /// Registers a workload (once per hash).
    pub fn commit_workload(&mut self, workload: &Workload) {
        if !self.workloads.iter().any(|(h, _)| *h == workload.hash) {
            let text =
                compiler_core::ir::printer::print_module(&workload.module, &Default::default());
            self.workloads.push((workload.hash, text));
        }
    }

    pub fn commit_record(&mut self, record: TuningRecord) {
        self.records.push(record);
    }

    pub fn len(&self) -> usize {
        self.records.len()
    }

    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// The successful records of a workload on a target, fastest first.
    pub fn top_k(&self, workload_hash: u64, target: &str, k: usize) -> Vec<&TuningRecord> {
        let mut rs: Vec<&TuningRecord> = self
            .records
            .iter()
            .filter(|r| {
                r.workload_hash == workload_hash && r.target == target && r.run_secs.is_some()
            })
            .collect();
        rs.sort_by(|a, b| a.mean_seconds().total_cmp(&b.mean_seconds()));
        rs.truncate(k);
        rs
    }

    /// Every record of a workload on a target (failures too), oldest first.
    pub fn records_for(
        &self,
        workload_hash: u64,
        target: &str,
    ) -> impl Iterator<Item = &TuningRecord> {
        let target = target.to_string();
        self.records
            .iter()
            .filter(move |r| r.workload_hash == workload_hash && r.target == target)
    }

    /// The fastest record (TVM's `query_tuning_record`).
    pub fn query_best(&self, workload_hash: u64, target: &str) -> Option<&TuningRecord> {
        self.top_k(workload_hash, target, 1).into_iter().next()
    }

    /// The workloads file's text (one JSON array per line).
    pub fn workloads_json(&self) -> String {
        let mut out = String::new();
        for (h, text) in &self.workloads {
            out.push_str(
                &Json::Array(vec![
                    Json::Str(format!("0x{h:016x}")),
                    Json::Str(text.clone()),
                ])
                .dump(),
            );
            out.push('\n');
        }
        out
    }

    /// The records file's text (one JSON array per line).
    pub fn records_json(&self) -> String {
        let mut out = String::new();
        for r in &self.records {
            let Some(index) = self
                .workloads
                .iter()
                .position(|(h, _)| *h == r.workload_hash)
            else {
                continue;
            };
            let secs = r.run_secs.clone().unwrap_or_else(|| vec![FAILED_SECONDS]);
            let kind = r.target.split_whitespace().next().unwrap_or("").to_string();
            let line = Json::Array(vec![
                Json::Int(index as i64),
                Json::Array(vec![
                    r.trace.to_json(),
                    Json::Array(secs.into_iter().map(Json::Float).collect()),
                    Json::Object(vec![
                        ("kind".into(), Json::Str(kind)),
                        ("target".into(), Json::Str(r.target.clone())),
                    ]),
                    Json::Null,
                ]),
            ]);
            out.push_str(&line.dump());
            out.push('\n');
        }
        out
    }

    /// Reads the two files' texts back.
    pub fn from_json(workloads: &str, records: &str) -> Result<Database, TuneError> {
        let bad =
            |line: usize, what: &str| TuneError::Database(format!("line {}: {what}", line + 1));
        let mut db = Database::new();
        for (n, line) in workloads
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
        {
            let j = Json::parse(line).map_err(|e| bad(n, &e))?;
            let items = j
                .as_array()
                .ok_or_else(|| bad(n, "a workload is a JSON array"))?;
            let [hash, text] = items else {
                return Err(bad(n, "a workload is [hash, module]"));
            };
            let hash = hash
                .as_str()
                .and_then(|h| u64::from_str_radix(h.trim_start_matches("0x"), 16).ok())
                .ok_or_else(|| bad(n, "the hash is a hexadecimal string"))?;
            let text = text
                .as_str()
                .ok_or_else(|| bad(n, "the module is a string"))?;
            db.workloads.push((hash, text.to_string()));
        }
        for (n, line) in records
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
        {
            let j = Json::parse(line).map_err(|e| bad(n, &e))?;
            let parsed = (|| {
                let [index, body] = j.as_array()? else {
                    return None;
                };
                let (hash, _) = db.workloads.get(usize::try_from(index.as_i64()?).ok()?)?;
                let [trace, secs, target, _args] = body.as_array()? else {
                    return None;
                };
                let secs: Vec<f64> = secs
                    .as_array()?
                    .iter()
                    .map(|s| s.as_f64())
                    .collect::<Option<_>>()?;
                let target = match target {
                    Json::Object(fields) => fields
                        .iter()
                        .find(|(k, _)| k == "target")?
                        .1
                        .as_str()?
                        .to_string(),
                    _ => return None,
                };
                Some((*hash, trace.clone(), secs, target))
            })();
            let (hash, trace, secs, target) = parsed
                .ok_or_else(|| bad(n, "a record is [workload, [trace, run_secs, target, args]]"))?;
            let trace = Trace::from_json(&trace).map_err(|e| bad(n, &e))?;
            let failed = secs.iter().any(|s| *s >= FAILED_SECONDS);
            db.records.push(TuningRecord {
                workload_hash: hash,
                target,
                trace,
                run_secs: (!failed).then_some(secs),
            });
        }
        Ok(db)
    }
}
