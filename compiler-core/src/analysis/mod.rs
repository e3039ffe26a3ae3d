//! Analyses over the IR: access-region inference, structural equality, the verifier.

pub mod regions;
pub mod structural_equal;
pub mod verify;
