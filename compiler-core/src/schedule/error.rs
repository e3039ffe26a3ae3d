//! Schedule errors: which primitive, which rule, and where in the IR.

use std::fmt;

use super::tree::StmtPath;

/// A primitive refused to transform the program. The IR is unchanged.
#[derive(Clone, Debug)]
pub struct ScheduleError {
    /// The primitive's name as the user called it (`split`, `compute_at`…).
    pub primitive: String,
    /// One or more sentences naming the rule that failed.
    pub message: String,
    /// The function body with the offending loop or block marked, when known.
    pub marked_ir: Option<String>,
    /// Where the offending statement is (for the UI to highlight).
    pub location: Option<StmtPath>,
}

/// [`ScheduleError::left_out`]'s message.
const LEFT_OUT: &str = "this schedule primitive is not part of this build of Tessel (it is left out of the playground's first-load worker)";

impl ScheduleError {
    pub fn new(primitive: &str, message: impl Into<String>) -> ScheduleError {
        ScheduleError {
            primitive: primitive.to_string(),
            message: message.into(),
            marked_ir: None,
            location: None,
        }
    }
    /// A primitive this build leaves out (feature `lean`).
    pub fn left_out(primitive: &str) -> ScheduleError {
        ScheduleError::new(primitive, LEFT_OUT)
    }

    /// Whether this is [`ScheduleError::left_out`]: the primitive exists,
    /// in a build with all of them.
    pub fn is_left_out(&self) -> bool {
        self.message == LEFT_OUT
    }

    pub fn at(mut self, location: StmtPath) -> ScheduleError {
        self.location = Some(location);
        self
    }
}

impl fmt::Display for ScheduleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "ScheduleError: An error occurred in the schedule primitive '{}'.",
            self.primitive
        )?;
        if let Some(ir) = &self.marked_ir {
            writeln!(f, "\nThe IR with diagnostic is:\n{ir}")?;
        }
        write!(f, "Error message: {}", self.message)
    }
}

impl std::error::Error for ScheduleError {}

pub type Result<T> = std::result::Result<T, ScheduleError>;
