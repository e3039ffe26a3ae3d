//! Shared helpers of the schedule tests.

pub mod schedule_case;
