//! Arithmetic analysis (owned by the arith branch).
