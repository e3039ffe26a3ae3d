//! Print-time names: variables and buffers are identified by id, and two
//! distinct ones with the same name hint get distinct printed names, the way
//! TVM's printer does it: the first live definition keeps the hint, later
//! ones get `hint_1`, `hint_2`, … (the first suffix not in use). A name is
//! released when the scope that defined it ends, so sibling loops both print
//! as `i`.

use std::collections::{HashMap, HashSet};

use super::literal::{sanitize_identifier, PYTHON_KEYWORDS};
use crate::{BufferId, VarId};

/// The import aliases a printed program uses; TVM never gives a variable one
/// of these names (`T` → `T_1`).
const RESERVED: &[&str] = &["T", "I", "R"];

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Key {
    Var(VarId),
    Buf(BufferId),
}

#[derive(Default)]
pub(crate) struct Names {
    /// Stack of printed names per variable (inner redefinitions shadow).
    vars: HashMap<VarId, Vec<String>>,
    bufs: HashMap<BufferId, Vec<String>>,
    /// Names currently taken, with how many live definitions hold each
    /// (more than one only for aliases such as `A.data`, which take none).
    taken: HashMap<String, u32>,
    /// What each open scope defined, so it can be released on exit.
    frames: Vec<Vec<(Key, Option<String>)>>,
    reserved: HashSet<&'static str>,
}

impl Names {
    pub(crate) fn new() -> Names {
        let mut reserved: HashSet<&'static str> = RESERVED.iter().copied().collect();
        reserved.extend(PYTHON_KEYWORDS.iter().copied());
        Names {
            frames: vec![Vec::new()],
            reserved,
            ..Names::default()
        }
    }

    fn is_taken(&self, name: &str) -> bool {
        self.reserved.contains(name) || self.taken.get(name).is_some_and(|n| *n > 0)
    }

    /// A fresh name for `hint`: the hint itself if free, else `hint_1`, …
    fn fresh(&self, hint: &str) -> String {
        let base = sanitize_identifier(hint);
        if !self.is_taken(&base) {
            return base;
        }
        let mut i: u64 = 1;
        loop {
            let cand = format!("{base}_{i}");
            if !self.is_taken(&cand) {
                return cand;
            }
            i += 1;
        }
    }

    pub(crate) fn push_frame(&mut self) {
        self.frames.push(Vec::new());
    }

    /// Ends the innermost scope, releasing the names it defined.
    pub(crate) fn pop_frame(&mut self) {
        let Some(frame) = self.frames.pop() else {
            return;
        };
        for (key, taken) in frame.into_iter().rev() {
            let stack = match key {
                Key::Var(id) => self.vars.get_mut(&id),
                Key::Buf(id) => self.bufs.get_mut(&id),
            };
            if let Some(stack) = stack {
                stack.pop();
            }
            if let Some(name) = taken {
                if let Some(n) = self.taken.get_mut(&name) {
                    *n = n.saturating_sub(1);
                }
            }
        }
        if self.frames.is_empty() {
            self.frames.push(Vec::new());
        }
    }

    fn record(&mut self, key: Key, name: String, takes_name: bool) {
        let depth = self.frames.len().saturating_sub(1);
        self.record_at(depth, key, name, takes_name);
    }

    fn record_at(&mut self, depth: usize, key: Key, name: String, takes_name: bool) {
        match key {
            Key::Var(id) => self.vars.entry(id).or_default().push(name.clone()),
            Key::Buf(id) => self.bufs.entry(id).or_default().push(name.clone()),
        }
        let taken = if takes_name {
            *self.taken.entry(name.clone()).or_insert(0) += 1;
            Some(name)
        } else {
            None
        };
        let last = self.frames.len().saturating_sub(1);
        if let Some(frame) = self.frames.get_mut(depth.min(last)) {
            frame.push((key, taken));
        }
    }

    /// The number of open scopes below the base one.
    pub(crate) fn depth(&self) -> usize {
        self.frames.len().saturating_sub(1)
    }

    /// Defines a variable in the scope at `depth` (0 is the base scope).
    pub(crate) fn define_var_at(&mut self, depth: usize, id: VarId, hint: &str) -> String {
        let name = self.fresh(hint);
        self.record_at(depth, Key::Var(id), name.clone(), true);
        name
    }

    /// Defines a buffer in the scope at `depth`.
    pub(crate) fn define_buffer_at(&mut self, depth: usize, id: BufferId, hint: &str) -> String {
        let name = self.fresh(hint);
        self.record_at(depth, Key::Buf(id), name.clone(), true);
        name
    }

    /// Defines a variable in the innermost scope and returns its printed name.
    pub(crate) fn define_var(&mut self, id: VarId, hint: &str) -> String {
        let name = self.fresh(hint);
        self.record(Key::Var(id), name.clone(), true);
        name
    }

    /// Makes a variable print as `text` (e.g. `A.data`) without taking a
    /// name, in the scope at `depth`.
    pub(crate) fn alias_var_at(&mut self, depth: usize, id: VarId, text: String) {
        self.record_at(depth, Key::Var(id), text, false);
    }

    pub(crate) fn var(&self, id: VarId) -> Option<&str> {
        self.vars
            .get(&id)
            .and_then(|s| s.last())
            .map(String::as_str)
    }

    pub(crate) fn buffer(&self, id: BufferId) -> Option<&str> {
        self.bufs
            .get(&id)
            .and_then(|s| s.last())
            .map(String::as_str)
    }

    pub(crate) fn is_var_defined(&self, id: VarId) -> bool {
        self.var(id).is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suffixes_and_release() {
        let mut n = Names::new();
        n.push_frame();
        assert_eq!(n.define_var(VarId(1), "i"), "i");
        assert_eq!(n.define_var(VarId(2), "i_1"), "i_1");
        assert_eq!(n.define_var(VarId(3), "i"), "i_2");
        n.pop_frame();
        assert!(!n.is_var_defined(VarId(3)));
        assert_eq!(n.define_var(VarId(4), "i"), "i");
        assert_eq!(n.define_var(VarId(5), "T"), "T_1");
        assert_eq!(n.define_var(VarId(6), "for"), "for_1");
        assert_eq!(n.define_buffer_at(n.depth(), BufferId(7), "i"), "i_1");
    }

    #[test]
    fn redefinition_shadows() {
        let mut n = Names::new();
        assert_eq!(n.define_var(VarId(1), "x"), "x");
        n.push_frame();
        assert_eq!(n.define_var(VarId(1), "x"), "x_1");
        assert_eq!(n.var(VarId(1)), Some("x_1"));
        n.pop_frame();
        assert_eq!(n.var(VarId(1)), Some("x"));
        // Popping more frames than were pushed is harmless.
        n.pop_frame();
        n.pop_frame();
        assert_eq!(n.define_var(VarId(2), "y"), "y");
    }
}
