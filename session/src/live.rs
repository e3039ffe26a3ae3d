//! A live session: one script, run once, kept for every question the
//! playground asks about it afterwards (regions of a loop, generated code,
//! runs, memory pictures). A host keys it by a revision number that changes
//! with every edit, so a request names `(revision, step, function)` instead
//! of resending the source, and only an edit parses and schedules.
//!
//! [`SessionCounts`] counts what the session driver did on this thread
//! (scripts run, schedule primitives applied), so tests can check that an
//! action other than an edit does neither.

use std::cell::Cell;

use crate::{run_script, ScriptEnv, ScriptOutcome};

/// One revision of a script and what running it produced.
#[derive(Clone, Debug)]
pub struct LiveSession {
    revision: u64,
    source: String,
    outcome: ScriptOutcome,
}

impl LiveSession {
    /// Runs `source` (revision `revision`) once with `env`.
    pub fn open(revision: u64, source: String, env: &ScriptEnv) -> LiveSession {
        let outcome = run_script(&source, env);
        LiveSession {
            revision,
            source,
            outcome,
        }
    }

    pub fn revision(&self) -> u64 {
        self.revision
    }

    pub fn source(&self) -> &str {
        &self.source
    }

    pub fn outcome(&self) -> &ScriptOutcome {
        &self.outcome
    }
}

thread_local! {
    static SCRIPT_RUNS: Cell<u64> = const { Cell::new(0) };
}

/// Counts [`run_script`] calls on this thread (every one parses the whole
/// script).
pub(crate) fn count_script_run() {
    SCRIPT_RUNS.with(|n| n.set(n.get() + 1));
}

/// What the session driver has done on this thread so far; subtract two
/// readings to see what one action cost.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SessionCounts {
    /// Scripts parsed and run ([`run_script`]).
    pub script_runs: u64,
    /// Schedule primitives applied (by scripts, replays and tuners alike).
    pub primitives_applied: u64,
}

impl SessionCounts {
    pub fn now() -> SessionCounts {
        SessionCounts {
            script_runs: SCRIPT_RUNS.with(|n| n.get()),
            primitives_applied: compiler_core::schedule::primitives::applied_primitive_count(),
        }
    }

    /// What happened between `earlier` and now.
    pub fn since(earlier: SessionCounts) -> SessionCounts {
        let now = SessionCounts::now();
        SessionCounts {
            script_runs: now.script_runs - earlier.script_runs,
            primitives_applied: now.primitives_applied - earlier.primitives_applied,
        }
    }
}
