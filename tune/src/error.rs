//! The tuner's errors: refusals before any search (bad module, bad
//! configuration, unknown target) and a search in which nothing worked.

use std::fmt;

/// Why tuning could not start or could not produce a program.
#[derive(Clone, Debug, PartialEq)]
pub enum TuneError {
    /// The module is not one the tuner takes (several functions, none,
    /// symbolic shapes, …).
    Workload(String),
    /// A trial count or other setting is out of range.
    Config(String),
    /// No design space could be generated (every rule or the user's
    /// schedule function failed); holds the first failure.
    Space(String),
    /// Every candidate failed; holds the first failure.
    NoValidCandidate(String),
    /// A database file is malformed.
    Database(String),
}

impl fmt::Display for TuneError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TuneError::Workload(m) => write!(f, "cannot tune this module: {m}"),
            TuneError::Config(m) => write!(f, "invalid tuning configuration: {m}"),
            TuneError::Space(m) => write!(f, "no design space could be generated: {m}"),
            TuneError::NoValidCandidate(m) => {
                write!(f, "every candidate failed; the first failure: {m}")
            }
            TuneError::Database(m) => write!(f, "malformed tuning database: {m}"),
        }
    }
}

impl std::error::Error for TuneError {}
