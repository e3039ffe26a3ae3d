//! (owned by its branch)
