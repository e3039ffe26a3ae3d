//! Mismatch paths: a tree of path segments (`.body`, `[i]`, `block("C")`)
//! built while comparing, rendered only for the first mismatch, with the
//! printed-TVMScript anchors of the statements on the way.

use super::*;

pub(super) type P = usize;
const NO_PARENT: usize = usize::MAX;
/// Paths longer than this many segments are rendered with the middle elided.
const MAX_PATH_SEGMENTS: usize = 80;

#[derive(Clone, Debug)]
pub(super) enum Seg {
    Root(&'static str),
    Func(String),
    Field(&'static str),
    Index(usize),
    Key(String),
    Block(String),
}

/// All paths of one comparison, as parent links in an arena (no recursion,
/// no deep `Rc` chains to drop).
#[derive(Default)]
pub(super) struct Paths {
    nodes: Vec<(usize, Seg)>,
    /// The printed places of the path nodes that have one.
    anchors: HashMap<P, (Anchor, Anchor)>,
}

impl Paths {
    /// Records that the nodes at `p` print at `lhs` and `rhs`.
    pub(super) fn anchor(&mut self, p: P, lhs: Anchor, rhs: Anchor) {
        self.anchors.insert(p, (lhs, rhs));
    }
    /// A child path anchored at part `part` of statements `a` and `b`.
    pub(super) fn part(&mut self, p: P, a: &Stmt, b: &Stmt, part: StmtPart) {
        self.anchor(
            p,
            Anchor::Stmt(a.clone(), part),
            Anchor::Stmt(b.clone(), part),
        );
    }
    /// The anchors of `p` or of its nearest anchored ancestor.
    pub(super) fn anchors_of(&self, p: P) -> Option<Box<(Anchor, Anchor)>> {
        let mut cur = p;
        while cur != NO_PARENT {
            if let Some(a) = self.anchors.get(&cur) {
                return Some(Box::new(a.clone()));
            }
            cur = self.nodes.get(cur)?.0;
        }
        None
    }

    pub(super) fn root(&mut self, seg: Seg) -> P {
        self.nodes.push((NO_PARENT, seg));
        self.nodes.len() - 1
    }
    pub(super) fn child(&mut self, parent: P, seg: Seg) -> P {
        self.nodes.push((parent, seg));
        self.nodes.len() - 1
    }
    pub(super) fn field(&mut self, parent: P, name: &'static str) -> P {
        self.child(parent, Seg::Field(name))
    }
    pub(super) fn index(&mut self, parent: P, i: usize) -> P {
        self.child(parent, Seg::Index(i))
    }
    pub(super) fn render(&self, p: P) -> String {
        let mut segs = Vec::new();
        let mut cur = p;
        while cur != NO_PARENT {
            let Some((parent, seg)) = self.nodes.get(cur) else {
                break;
            };
            segs.push(seg);
            cur = *parent;
        }
        segs.reverse();
        let mut out = String::new();
        let n = segs.len();
        let (head, tail) = if n > MAX_PATH_SEGMENTS {
            (MAX_PATH_SEGMENTS / 2, MAX_PATH_SEGMENTS / 2)
        } else {
            (n, 0)
        };
        for (i, seg) in segs.iter().enumerate() {
            if i == head && tail > 0 && i < n - tail {
                out.push_str(&format!("…({} more)…", n - head - tail));
            }
            if i >= head && i < n - tail {
                continue;
            }
            match seg {
                Seg::Root(r) => out.push_str(r),
                Seg::Func(name) => out.push_str(&format!("mod[{name:?}]")),
                Seg::Field(f) => {
                    out.push('.');
                    out.push_str(f);
                }
                Seg::Index(i) => out.push_str(&format!("[{i}]")),
                Seg::Key(k) => out.push_str(&format!("[{k:?}]")),
                Seg::Block(b) => out.push_str(&format!(".block({b:?})")),
            }
        }
        out
    }
}
