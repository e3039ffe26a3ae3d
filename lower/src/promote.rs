//! Register promotion (what LLVM's LICM/mem2reg do for TVM's CPU code): in
//! a loop whose body reads and writes a buffer only at addresses that do not
//! change with the loop, those elements live in a `local` buffer of one
//! element (or one vector) for the loop's duration — loaded before it,
//! stored after it — and backends keep such buffers in registers.
//!
//! The typical case is the accumulator of a matmul whose reduction loop is
//! innermost: `for k: C[i, j] = C[i, j] + A[i, k] * B[k, j]` becomes
//! `c = C[i, j]; for k: c = c + A[i, k] * B[k, j]; C[i, j] = c`.
//!
//! Conditions: the loop runs at least once (constant extent ≥ 1) and is not
//! parallel or thread-bound, the body contains no such loop, every access of the buffer
//! in the body is at an invariant index, accesses at different indices are
//! provably disjoint (constant distance of at least their lane count), and
//! the buffer's pointer is not used otherwise. Buffers are distinct unless
//! they share a data pointer (parameters do not alias, as `tir.noalias` says).

use super::LoweringReport;
use tessel_tir::arith::{expr_deep_equal, Analyzer};
use tessel_tir::diag::Span;
use tessel_tir::ir::mutate::{self, Mutator};
use tessel_tir::ir::{Buffer, DataType, Expr, ExprKind, ForKind, Stmt, StmtKind, Var, VarId};

/// At most this many promoted elements per loop (register pressure).
const MAX_GROUPS: usize = 32;

pub(super) fn promote(body: &Stmt, report: &mut LoweringReport) -> Stmt {
    let mut p = Promoter {
        report,
        promoted: Vec::new(),
    };
    p.stmt(body)
}

struct Promoter<'r> {
    report: &'r mut LoweringReport,
    /// Data pointers of the local buffers this pass made (never promoted again).
    promoted: Vec<VarId>,
}

/// One access: the buffer, the scalar index (a ramp's base) and lanes.
struct Access {
    buffer: Buffer,
    index: Expr,
    lanes: u16,
    is_store: bool,
}

fn split_index(idx: &Expr) -> Option<(Expr, u16)> {
    match idx.kind() {
        ExprKind::Ramp { base, stride } if stride.is_const_int(1) => {
            Some((base.clone(), idx.dtype().lanes))
        }
        ExprKind::Ramp { .. } | ExprKind::Broadcast(_) => None,
        _ if idx.dtype().lanes == 1 => Some((idx.clone(), 1)),
        _ => None,
    }
}

impl Mutator for Promoter<'_> {
    /// Outermost loops first: an element is promoted across the outermost
    /// loop it is invariant in, then inner loops see a register.
    fn stmt(&mut self, s: &Stmt) -> Stmt {
        let StmtKind::For(l) = s.kind() else {
            return mutate::walk_stmt(self, s);
        };
        let concurrent = matches!(l.kind, ForKind::Parallel | ForKind::ThreadBinding);
        if !concurrent && l.extent.as_int().is_some_and(|n| n >= 1) {
            if let Some(p) = self.try_promote(&l.loop_var, s) {
                // `p` is allocations around loads, the loop, stores: recurse
                // into the loop (the only loop in it).
                return self.stmt_below(&p);
            }
        }
        mutate::walk_stmt(self, s)
    }
}

impl Promoter<'_> {
    /// Recurses into the loop bodies of a statement built by `try_promote`
    /// without trying the outer loop again.
    fn stmt_below(&mut self, s: &Stmt) -> Stmt {
        match s.kind() {
            StmtKind::For(_) => mutate::walk_stmt(self, s),
            StmtKind::Allocate { buffer, body } => Stmt::new(
                StmtKind::Allocate {
                    buffer: buffer.clone(),
                    body: self.stmt_below(body),
                },
                s.span(),
            ),
            StmtKind::Seq(v) => Stmt::new(
                StmtKind::Seq(v.iter().map(|x| self.stmt_below(x)).collect()),
                s.span(),
            ),
            _ => s.clone(),
        }
    }
}

impl Promoter<'_> {
    fn try_promote(&mut self, loop_var: &Var, looped: &Stmt) -> Option<Stmt> {
        let StmtKind::For(l) = looped.kind() else {
            return None;
        };
        // Variables defined inside the body, and whether a parallel loop is.
        let mut inner: Vec<VarId> = vec![loop_var.id()];
        let mut has_parallel = false;
        l.body.walk(&mut |x| match x.kind() {
            StmtKind::For(f) => {
                inner.push(f.loop_var.id());
                has_parallel |= matches!(f.kind, ForKind::Parallel | ForKind::ThreadBinding);
            }
            StmtKind::Let { var, .. } => inner.push(var.id()),
            StmtKind::Allocate { buffer, .. } => inner.push(buffer.data.id()),
            _ => {}
        });
        if has_parallel {
            return None;
        }
        let mut accesses: Vec<Access> = Vec::new();
        let mut opaque: Vec<VarId> = Vec::new();
        let mut unsplittable: Vec<VarId> = Vec::new();
        l.body.walk(&mut |x| {
            if let StmtKind::Store {
                buffer, indices, ..
            } = x.kind()
            {
                match indices.first().and_then(split_index) {
                    Some((index, lanes)) => accesses.push(Access {
                        buffer: buffer.clone(),
                        index,
                        lanes,
                        is_store: true,
                    }),
                    None => unsplittable.push(buffer.data.id()),
                }
            }
            x.for_each_expr(|e| {
                e.walk(&mut |y| match y.kind() {
                    ExprKind::Load { buffer, indices } => {
                        match indices.first().and_then(split_index) {
                            Some((index, lanes)) => accesses.push(Access {
                                buffer: buffer.clone(),
                                index,
                                lanes,
                                is_store: false,
                            }),
                            None => unsplittable.push(buffer.data.id()),
                        }
                    }
                    ExprKind::Var(v) => opaque.push(v.id()),
                    _ => {}
                })
            });
        });
        let invariant = |e: &Expr| {
            let mut ok = true;
            e.walk(&mut |y| {
                if let ExprKind::Var(v) = y.kind() {
                    ok &= !inner.contains(&v.id());
                }
            });
            ok
        };
        let ana = Analyzer::new();
        // Candidate buffers, by data pointer, in order of first store.
        let mut groups: Vec<(Buffer, Expr, u16)> = Vec::new();
        let mut done: Vec<VarId> = Vec::new();
        for a in accesses.iter().filter(|a| a.is_store) {
            let data = a.buffer.data.id();
            if done.contains(&data) {
                continue;
            }
            done.push(data);
            if opaque.contains(&data)
                || unsplittable.contains(&data)
                || inner.contains(&data)
                || self.promoted.contains(&data)
            {
                continue;
            }
            let mine: Vec<&Access> = accesses
                .iter()
                .filter(|b| b.buffer.data.id() == data)
                .collect();
            if !mine.iter().all(|b| invariant(&b.index)) {
                continue;
            }
            // Distinct index groups, pairwise disjoint.
            let mut keys: Vec<(Expr, u16, Buffer)> = Vec::new();
            let mut ok = true;
            for b in &mine {
                if let Some(k) = keys.iter().find(|k| expr_deep_equal(&k.0, &b.index)) {
                    if k.1 != b.lanes || k.2.dtype != b.buffer.dtype {
                        ok = false;
                    }
                    continue;
                }
                for k in &keys {
                    let d = ana.simplify(&super::util::sub(&k.0, &b.index));
                    match d.as_int() {
                        Some(d) if d.unsigned_abs() >= k.1.max(b.lanes) as u64 => {}
                        _ => ok = false,
                    }
                }
                keys.push((b.index.clone(), b.lanes, b.buffer.clone()));
            }
            if !ok {
                continue;
            }
            for (index, lanes, buffer) in keys {
                groups.push((buffer, index, lanes));
            }
        }
        if groups.is_empty() || groups.len() > MAX_GROUPS {
            return None;
        }
        // Build: locals, loads before, the loop with accesses replaced, stores after.
        let mut locals: Vec<Buffer> = Vec::new();
        for (buffer, _, lanes) in &groups {
            locals.push(
                Buffer::new(
                    format!("{}_local", buffer.name),
                    buffer.dtype,
                    vec![Expr::i32(*lanes as i64)],
                )
                .derive(|n| n.scope = "local".to_string()),
            );
        }
        self.promoted.extend(locals.iter().map(|b| b.data.id()));
        let mut rep = Replace {
            groups: &groups,
            locals: &locals,
        };
        let new_loop = rep.stmt(looped);
        let mut before = Vec::new();
        let mut after = Vec::new();
        for ((buffer, index, lanes), local) in groups.iter().zip(&locals) {
            let dt = buffer.dtype.with_lanes(*lanes);
            let global_idx = index_expr(index, *lanes);
            let local_idx = index_expr(&Expr::i32(0), *lanes);
            before.push(Stmt::from_kind(StmtKind::Store {
                buffer: local.clone(),
                value: load(buffer, global_idx.clone(), dt),
                indices: vec![local_idx.clone()],
            }));
            after.push(Stmt::from_kind(StmtKind::Store {
                buffer: buffer.clone(),
                value: load(local, local_idx, dt),
                indices: vec![global_idx],
            }));
        }
        let mut seq = before;
        seq.push(new_loop);
        seq.extend(after);
        let mut out = Stmt::seq(seq);
        for local in locals.iter().rev() {
            out = Stmt::from_kind(StmtKind::Allocate {
                buffer: local.clone(),
                body: out,
            });
        }
        let names: Vec<String> = {
            let mut v: Vec<String> = Vec::new();
            for (b, _, _) in &groups {
                if !v.contains(&b.name) {
                    v.push(b.name.clone());
                }
            }
            v
        };
        self.report.note(format!(
            "loop {}: {} element(s) of {} kept in registers across the loop",
            loop_var.name(),
            groups.len(),
            names.join(", ")
        ));
        Some(out)
    }
}

fn index_expr(index: &Expr, lanes: u16) -> Expr {
    if lanes == 1 {
        return index.clone();
    }
    let dt = index.dtype();
    Expr::new(
        ExprKind::Ramp {
            base: index.clone(),
            stride: Expr::int(1, dt),
        },
        dt.with_lanes(lanes),
        Span::default(),
    )
}

fn load(buffer: &Buffer, index: Expr, dt: DataType) -> Expr {
    Expr::new(
        ExprKind::Load {
            buffer: buffer.clone(),
            indices: vec![index],
        },
        dt,
        Span::default(),
    )
}

struct Replace<'a> {
    groups: &'a [(Buffer, Expr, u16)],
    locals: &'a [Buffer],
}

impl Replace<'_> {
    fn find(&self, buffer: &Buffer, idx: &Expr) -> Option<(Buffer, Expr)> {
        let (base, lanes) = split_index(idx)?;
        for ((b, i, l), local) in self.groups.iter().zip(self.locals) {
            if b.data == buffer.data && *l == lanes && expr_deep_equal(i, &base) {
                return Some((local.clone(), index_expr(&Expr::i32(0), lanes)));
            }
        }
        None
    }
}

impl Mutator for Replace<'_> {
    fn expr(&mut self, e: &Expr) -> Expr {
        let e = mutate::walk_expr(self, e);
        if let ExprKind::Load { buffer, indices } = e.kind() {
            if let Some((local, idx)) = indices.first().and_then(|i| self.find(buffer, i)) {
                return load(&local, idx, e.dtype());
            }
        }
        e
    }
    fn stmt(&mut self, s: &Stmt) -> Stmt {
        if let StmtKind::Store {
            buffer,
            value,
            indices,
        } = s.kind()
        {
            let value = self.expr(value);
            if let Some((local, idx)) = indices.first().and_then(|i| self.find(buffer, i)) {
                return Stmt::new(
                    StmtKind::Store {
                        buffer: local,
                        value,
                        indices: vec![idx],
                    },
                    s.span(),
                );
            }
            return Stmt::new(
                StmtKind::Store {
                    buffer: buffer.clone(),
                    value,
                    indices: indices.clone(),
                },
                s.span(),
            );
        }
        mutate::walk_stmt(self, s)
    }
}
