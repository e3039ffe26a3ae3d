//! Addressing and replacing statements inside an immutable function body.
//!
//! A [`StmtPath`] is the list of child indices from the function body down to
//! a statement. Child numbering (see [`children`]): `For`, `Let`, `Allocate`
//! → `[body]`; `BlockRealize` → `[body, init?]`; `If` → `[then, else?]`;
//! `Seq` → its items. Replacing a statement rebuilds only its ancestors.

use tessel_tir::ir::*;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StmtPath(pub Vec<usize>);

impl StmtPath {
    pub fn child(&self, i: usize) -> StmtPath {
        let mut v = self.0.clone();
        v.push(i);
        StmtPath(v)
    }
    pub fn parent(&self) -> Option<StmtPath> {
        let (_, rest) = self.0.split_last()?;
        Some(StmtPath(rest.to_vec()))
    }
    pub fn is_prefix_of(&self, other: &StmtPath) -> bool {
        other.0.len() >= self.0.len() && other.0[..self.0.len()] == self.0[..]
    }
}

/// The child statements of `s`, in path order.
pub fn children(s: &Stmt) -> Vec<Stmt> {
    match s.kind() {
        StmtKind::For(l) => vec![l.body.clone()],
        StmtKind::BlockRealize(r) => {
            let mut v = vec![r.block.body.clone()];
            if let Some(init) = &r.block.init {
                v.push(init.clone());
            }
            v
        }
        StmtKind::Let { body, .. } | StmtKind::Allocate { body, .. } => vec![body.clone()],
        StmtKind::If {
            then, otherwise, ..
        } => {
            let mut v = vec![then.clone()];
            if let Some(o) = otherwise {
                v.push(o.clone());
            }
            v
        }
        StmtKind::Seq(items) => items.clone(),
        StmtKind::Store { .. } | StmtKind::Evaluate(_) => vec![],
    }
}

/// `s` with child `index` replaced by `new` (a `Seq` child replaced by a `Seq`
/// is spliced in; one replaced by an empty `Seq` is removed).
pub fn with_child(s: &Stmt, index: usize, new: Stmt) -> Stmt {
    let kind = match s.kind() {
        StmtKind::For(l) => StmtKind::For(For {
            body: new,
            ..l.clone()
        }),
        StmtKind::BlockRealize(r) => {
            let mut r = r.clone();
            if index == 0 {
                r.block.body = new;
            } else {
                r.block.init = Some(new);
            }
            StmtKind::BlockRealize(r)
        }
        StmtKind::Let { var, value, .. } => StmtKind::Let {
            var: var.clone(),
            value: value.clone(),
            body: new,
        },
        StmtKind::Allocate { buffer, .. } => StmtKind::Allocate {
            buffer: buffer.clone(),
            body: new,
        },
        StmtKind::If {
            cond,
            then,
            otherwise,
        } => {
            if index == 0 {
                StmtKind::If {
                    cond: cond.clone(),
                    then: new,
                    otherwise: otherwise.clone(),
                }
            } else {
                StmtKind::If {
                    cond: cond.clone(),
                    then: then.clone(),
                    otherwise: Some(new),
                }
            }
        }
        StmtKind::Seq(items) => {
            let mut out = Vec::with_capacity(items.len());
            for (i, item) in items.iter().enumerate() {
                if i == index {
                    out.extend(new.as_slice().iter().cloned());
                } else {
                    out.push(item.clone());
                }
            }
            return Stmt::new(StmtKind::Seq(out), s.span()).normalize_seq();
        }
        StmtKind::Store { .. } | StmtKind::Evaluate(_) => return s.clone(),
    };
    Stmt::new(kind, s.span())
}

trait NormalizeSeq {
    fn normalize_seq(self) -> Stmt;
}
impl NormalizeSeq for Stmt {
    fn normalize_seq(self) -> Stmt {
        match self.kind() {
            StmtKind::Seq(items) if items.len() == 1 => items[0].clone(),
            StmtKind::Seq(items) if items.is_empty() => Stmt::evaluate_zero(),
            _ => self,
        }
    }
}

/// The statement at `path`, if the path is valid.
pub fn get(root: &Stmt, path: &StmtPath) -> Option<Stmt> {
    let mut cur = root.clone();
    for &i in &path.0 {
        cur = children(&cur).into_iter().nth(i)?;
    }
    Some(cur)
}

/// The statements along `path`, root first, the addressed one last.
pub fn chain(root: &Stmt, path: &StmtPath) -> Vec<Stmt> {
    let mut out = vec![root.clone()];
    let mut cur = root.clone();
    for &i in &path.0 {
        match children(&cur).into_iter().nth(i) {
            Some(c) => {
                out.push(c.clone());
                cur = c;
            }
            None => break,
        }
    }
    out
}

/// `root` with the statement at `path` replaced by `new`.
pub fn replace(root: &Stmt, path: &StmtPath, new: Stmt) -> Stmt {
    fn go(cur: &Stmt, rest: &[usize], new: Stmt) -> Stmt {
        match rest.split_first() {
            None => new,
            Some((&i, tail)) => match children(cur).into_iter().nth(i) {
                Some(child) => with_child(cur, i, go(&child, tail, new)),
                None => cur.clone(),
            },
        }
    }
    go(root, &path.0, new)
}

/// Paths of every statement satisfying `pred`, in pre-order.
pub fn find_all(root: &Stmt, pred: &mut impl FnMut(&Stmt) -> bool) -> Vec<StmtPath> {
    fn go(
        s: &Stmt,
        path: &mut Vec<usize>,
        pred: &mut impl FnMut(&Stmt) -> bool,
        out: &mut Vec<StmtPath>,
    ) {
        if pred(s) {
            out.push(StmtPath(path.clone()));
        }
        for (i, c) in children(s).iter().enumerate() {
            path.push(i);
            go(c, path, pred, out);
            path.pop();
        }
    }
    let mut out = Vec::new();
    go(root, &mut Vec::new(), pred, &mut out);
    out
}

/// The path of the block realize whose block is named `name`.
pub fn find_blocks(root: &Stmt, name: &str) -> Vec<StmtPath> {
    find_all(
        root,
        &mut |s| matches!(s.kind(), StmtKind::BlockRealize(r) if r.block.name == name),
    )
}

/// The path of the loop whose variable is `var`.
pub fn find_loop(root: &Stmt, var: VarId) -> Option<StmtPath> {
    find_all(
        root,
        &mut |s| matches!(s.kind(), StmtKind::For(f) if f.loop_var.id() == var),
    )
    .into_iter()
    .next()
}
