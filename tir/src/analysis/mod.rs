//! Analyses over the IR: access-region inference, structural equality and
//! hashing, the verifier, reducer matching.

pub mod reducer;
pub mod regions;
pub mod structural_equal;
pub mod structural_hash;
pub mod verify;
