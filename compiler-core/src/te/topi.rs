//! topi (placeholder)
