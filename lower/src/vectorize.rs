//! `T.vectorized` loops → native-width vector code (TVM: `VectorizeLoop`,
//! plus the legalisation LLVM does for TVM: a loop of 8 `float32` lanes on a
//! 16-byte target becomes two 4-lane halves, in an unrolled loop).
//!
//! A loop is vectorized when its extent is a constant multiple of the
//! native lane count, every store's index has stride 1 in the loop
//! variable, every load's index stride 1 or 0 (a broadcast), every value has
//! the native width (`bytes × lanes = vector_bytes`), conditions and inner
//! loop bounds do not depend on it, and no buffer is read at an index other
//! than the one it is written at (a possible loop-carried dependence).
//! Otherwise it stays a scalar (serial) loop, and the report says why.

use std::collections::HashMap;

use super::util::{self, cast};
use super::{LoweringReport, Result};
use tessel_tir::arith::Analyzer;
use tessel_tir::diag::Span;
use tessel_tir::ir::mutate::{self, substitute_expr, Mutator};
use tessel_tir::ir::{
    BinOp, DataType, Expr, ExprKind, For, ForKind, Intrinsic, Range, Stmt, StmtKind, Var, VarId,
};

pub(super) fn vectorize(
    body: &Stmt,
    vector_bytes: u32,
    auto: bool,
    report: &mut LoweringReport,
) -> Result<Stmt> {
    let mut v = Vectorizer {
        vector_bytes,
        auto,
        report,
        ana: Analyzer::new(),
    };
    Ok(v.stmt(body))
}

/// Vector steps of a split loop up to this many are unrolled.
const MAX_UNROLLED_STEPS: i64 = 16;

struct Vectorizer<'r> {
    vector_bytes: u32,
    /// Also try innermost serial loops.
    auto: bool,
    report: &'r mut LoweringReport,
    /// Ranges of the enclosing loops (for stride proofs).
    ana: Analyzer,
}

impl Mutator for Vectorizer<'_> {
    fn stmt(&mut self, s: &Stmt) -> Stmt {
        let StmtKind::For(l) = s.kind() else {
            return mutate::walk_stmt(self, s);
        };
        self.ana
            .bind(&l.loop_var, &Range::new(l.min.clone(), l.extent.clone()));
        // Inner loops first.
        let body = self.stmt(&l.body);
        let mut nl = l.clone();
        nl.body = body;
        let out = if l.kind == ForKind::Vectorized {
            match self.try_vectorize(&nl) {
                Ok((stmt, what)) => {
                    self.report
                        .note(format!("loop {}: vectorized as {what}", l.loop_var.name()));
                    stmt
                }
                Err(why) => {
                    self.report.note(format!(
                        "loop {} stays a scalar loop: {why}",
                        l.loop_var.name()
                    ));
                    nl.kind = ForKind::Serial;
                    Stmt::new(StmtKind::For(nl), s.span())
                }
            }
        } else if self.auto && l.kind == ForKind::Serial && is_innermost(&nl.body) {
            match self.try_vectorize(&nl) {
                Ok((stmt, what)) => {
                    self.report.note(format!(
                        "loop {}: auto-vectorized as {what} (innermost, contiguous)",
                        l.loop_var.name()
                    ));
                    stmt
                }
                Err(_) => Stmt::new(StmtKind::For(nl), s.span()),
            }
        } else {
            Stmt::new(StmtKind::For(nl), s.span())
        };
        self.ana.unbind(&l.loop_var);
        out
    }
}

type Why = String;

fn is_innermost(body: &Stmt) -> bool {
    let mut inner = false;
    body.walk(&mut |x| inner |= matches!(x.kind(), StmtKind::For(_)));
    !inner
}

impl Vectorizer<'_> {
    fn try_vectorize(&mut self, l: &For) -> std::result::Result<(Stmt, String), Why> {
        let extent = l
            .extent
            .as_int()
            .ok_or_else(|| "its extent is not a constant".to_string())?;
        // The element width: that of the stored values.
        let mut widths: Vec<DataType> = Vec::new();
        let mut stored: Vec<(Var, Expr)> = Vec::new();
        let mut bad: Option<Why> = None;
        l.body.walk(&mut |s| match s.kind() {
            StmtKind::Store {
                buffer, indices, ..
            } => {
                if !widths.contains(&buffer.dtype) {
                    widths.push(buffer.dtype);
                }
                if let Some(i) = indices.first() {
                    stored.push((buffer.data.clone(), i.clone()));
                }
            }
            StmtKind::Allocate { .. } => {
                bad.get_or_insert_with(|| "it allocates a buffer".into());
            }
            _ => {}
        });
        if let Some(b) = bad {
            return Err(b);
        }
        let Some(&elem) = widths.first() else {
            return Err("it stores nothing".into());
        };
        let bytes = elem.bytes() as u32;
        if widths.iter().any(|w| w.bytes() as u32 != bytes) {
            return Err("it stores values of different widths".into());
        }
        if elem.is_bool() || !(bytes == 4 || bytes == 8) || (elem.is_float() && elem.bits == 16) {
            return Err(format!(
                "{elem} elements are not vectorized (32- and 64-bit types are)"
            ));
        }
        if bytes > self.vector_bytes || !self.vector_bytes.is_multiple_of(bytes) {
            return Err(format!("{elem} does not fit the target's vectors"));
        }
        let lanes = (self.vector_bytes / bytes) as i64;
        if extent % lanes != 0 {
            return Err(format!(
                "its extent {extent} is not a multiple of {lanes} ({elem} lanes per {}-byte vector)",
                self.vector_bytes
            ));
        }
        // Loop-carried dependences: a buffer written in the loop may only be
        // read at the very index it is written at.
        for (data, idx) in &stored {
            if stored
                .iter()
                .any(|(d, i)| d == data && !tessel_tir::arith::expr_deep_equal(i, idx))
            {
                return Err("it writes one buffer at two different indices".into());
            }
            let mut conflict = false;
            l.body.walk(&mut |s| {
                s.for_each_expr(|e| {
                    e.walk(&mut |x| {
                        if let ExprKind::Load { buffer, indices } = x.kind() {
                            if &buffer.data == data
                                && indices
                                    .first()
                                    .is_none_or(|i| !tessel_tir::arith::expr_deep_equal(i, idx))
                            {
                                conflict = true;
                            }
                        }
                    })
                })
            });
            if conflict {
                return Err(
                    "it reads a buffer it writes at another index (a possible dependence)".into(),
                );
            }
        }
        let outer = extent / lanes;
        let vo = Var::new(format!("{}_v", l.loop_var.name()), l.loop_var.dtype());
        let base = if outer == 1 {
            l.min.clone()
        } else {
            util::add(
                &l.min,
                &util::mul(&vo.to_expr(), &Expr::int(lanes, l.loop_var.dtype())),
            )
        };
        let mut ana = self.ana.clone();
        if outer > 1 {
            ana.bind_range(&vo, 0, outer);
        }
        let mut cx = Cx {
            v: l.loop_var.clone(),
            base: ana.simplify(&base),
            lanes: lanes as u16,
            vector_bytes: self.vector_bytes,
            vec_vars: HashMap::new(),
            ana,
        };
        let body = cx.stmt(&l.body)?;
        let unrolled = outer <= MAX_UNROLLED_STEPS;
        let what = if outer == 1 {
            format!("{lanes} × {elem}")
        } else if unrolled {
            format!("{outer} unrolled steps of {lanes} × {elem}")
        } else {
            format!("a loop of {outer} steps of {lanes} × {elem}")
        };
        let stmt = if outer == 1 {
            body
        } else {
            Stmt::from_kind(StmtKind::For(For {
                loop_var: vo,
                min: Expr::int(0, l.loop_var.dtype()),
                extent: Expr::int(outer, l.loop_var.dtype()),
                kind: if unrolled {
                    ForKind::Unrolled
                } else {
                    ForKind::Serial
                },
                thread_tag: None,
                annotations: Default::default(),
                body,
            }))
        };
        Ok((stmt, what))
    }
}

/// Rewriting one loop body with `v` as a vector.
struct Cx {
    v: Var,
    /// The first lane's value of `v`.
    base: Expr,
    lanes: u16,
    vector_bytes: u32,
    /// `let` variables that became vectors.
    vec_vars: HashMap<VarId, Var>,
    ana: Analyzer,
}

impl Cx {
    fn depends(&self, e: &Expr) -> bool {
        let mut found = false;
        e.walk(&mut |x| {
            if let ExprKind::Var(var) = x.kind() {
                found |= *var == self.v || self.vec_vars.contains_key(&var.id());
            }
        });
        found
    }

    fn check_width(&self, dt: DataType) -> std::result::Result<(), Why> {
        if dt.is_bool() {
            return Ok(());
        }
        if dt.bytes() as u32 * self.lanes as u32 != self.vector_bytes
            || (dt.is_float() && dt.bits == 16)
        {
            return Err(format!(
                "it computes {} values, which do not fill a {}-byte vector in {} lanes",
                dt, self.vector_bytes, self.lanes
            ));
        }
        Ok(())
    }

    fn broadcast(&self, e: Expr) -> Expr {
        if e.dtype().lanes == self.lanes {
            return e;
        }
        let dt = e.dtype().with_lanes(self.lanes);
        Expr::new(ExprKind::Broadcast(e), dt, Span::default())
    }

    /// The contiguous vector index replacing the scalar `idx`, or `None` when
    /// `idx` does not depend on the loop.
    fn vector_index(&self, idx: &Expr) -> std::result::Result<Option<Expr>, Why> {
        if !self.depends(idx) {
            return Ok(None);
        }
        let mut vec_let = false;
        idx.walk(&mut |x| {
            if let ExprKind::Var(var) = x.kind() {
                vec_let |= self.vec_vars.contains_key(&var.id());
            }
        });
        if vec_let || idx.dtype().lanes != 1 {
            return Err("an index depends on a vectorized value".into());
        }
        let dt = idx.dtype();
        let mut next = HashMap::new();
        next.insert(
            self.v.id(),
            util::add(&self.v.to_expr(), &Expr::int(1, self.v.dtype())),
        );
        let stride = self
            .ana
            .simplify(&util::sub(&substitute_expr(idx, &next), idx));
        match stride.as_int() {
            Some(1) => {}
            Some(s) => return Err(format!("an access has stride {s} in the loop variable")),
            None => return Err("an access is not affine in the loop variable".into()),
        }
        let mut at = HashMap::new();
        at.insert(self.v.id(), cast(&self.base, self.v.dtype()));
        let base = self.ana.simplify(&substitute_expr(idx, &at));
        Ok(Some(Expr::new(
            ExprKind::Ramp {
                base: cast(&base, dt),
                stride: Expr::int(1, dt),
            },
            dt.with_lanes(self.lanes),
            Span::default(),
        )))
    }

    fn stmt(&mut self, s: &Stmt) -> std::result::Result<Stmt, Why> {
        let span = s.span();
        Ok(match s.kind() {
            StmtKind::Store {
                buffer,
                value,
                indices,
            } => {
                let [idx] = indices.as_slice() else {
                    return Err("a store is not flat".into());
                };
                let Some(vidx) = self.vector_index(idx)? else {
                    return Err(format!(
                        "every lane would store to the same element of {}",
                        buffer.name
                    ));
                };
                let value = self.expr(value)?;
                self.check_width(buffer.dtype)?;
                let value = self.broadcast(value);
                Stmt::new(
                    StmtKind::Store {
                        buffer: buffer.clone(),
                        value,
                        indices: vec![vidx],
                    },
                    span,
                )
            }
            StmtKind::Let { var, value, body } => {
                let value = self.expr(value)?;
                if value.dtype().lanes > 1 {
                    let nv = Var::new(var.name(), value.dtype());
                    self.vec_vars.insert(var.id(), nv.clone());
                    let body = self.stmt(body)?;
                    Stmt::new(
                        StmtKind::Let {
                            var: nv,
                            value,
                            body,
                        },
                        span,
                    )
                } else {
                    if let Some((lo, hi)) = self.ana.const_int_bound(&value) {
                        self.ana.bind_bound(var, lo, hi);
                    }
                    Stmt::new(
                        StmtKind::Let {
                            var: var.clone(),
                            value,
                            body: self.stmt(body)?,
                        },
                        span,
                    )
                }
            }
            StmtKind::Seq(v) => {
                let mut out = Vec::with_capacity(v.len());
                for x in v {
                    out.push(self.stmt(x)?);
                }
                Stmt::new(StmtKind::Seq(out), span)
            }
            StmtKind::If {
                cond,
                then,
                otherwise,
            } => {
                if self.depends(cond) {
                    return Err("a condition depends on the loop variable".into());
                }
                Stmt::new(
                    StmtKind::If {
                        cond: cond.clone(),
                        then: self.stmt(then)?,
                        otherwise: match otherwise {
                            Some(o) => Some(self.stmt(o)?),
                            None => None,
                        },
                    },
                    span,
                )
            }
            StmtKind::For(l) => {
                if self.depends(&l.min) || self.depends(&l.extent) {
                    return Err("an inner loop's bounds depend on the loop variable".into());
                }
                self.ana
                    .bind(&l.loop_var, &Range::new(l.min.clone(), l.extent.clone()));
                let mut nl = l.clone();
                nl.body = self.stmt(&l.body)?;
                Stmt::new(StmtKind::For(nl), span)
            }
            StmtKind::Evaluate(e) => {
                if self.depends(e) {
                    return Err("it evaluates a call per lane".into());
                }
                s.clone()
            }
            StmtKind::Allocate { .. } => return Err("it allocates a buffer".into()),
            StmtKind::BlockRealize(_) => return Err("it contains a block".into()),
        })
    }

    fn expr(&mut self, e: &Expr) -> std::result::Result<Expr, Why> {
        if !self.depends(e) {
            if e.dtype().lanes != 1 {
                return Err("it already holds vector expressions".into());
            }
            return Ok(e.clone());
        }
        let dt = e.dtype();
        let vdt = dt.with_lanes(self.lanes);
        let span = e.span();
        let out = match e.kind() {
            ExprKind::Var(var) => {
                if *var == self.v {
                    self.check_width(dt)?;
                    return Ok(Expr::new(
                        ExprKind::Ramp {
                            base: cast(&self.base, dt),
                            stride: Expr::int(1, dt),
                        },
                        vdt,
                        span,
                    ));
                }
                match self.vec_vars.get(&var.id()) {
                    Some(nv) => return Ok(nv.to_expr()),
                    None => return Ok(e.clone()),
                }
            }
            ExprKind::Binary(op, a, b) => {
                let is_int_div = matches!(
                    op,
                    BinOp::Div | BinOp::Mod | BinOp::FloorDiv | BinOp::FloorMod
                ) && !dt.is_float();
                if is_int_div {
                    return Err("integer division has no SIMD128 instruction".into());
                }
                if matches!(op, BinOp::Mod | BinOp::FloorDiv | BinOp::FloorMod) {
                    return Err("float floor division / modulo is not vectorized".into());
                }
                let (a, b) = (self.expr(a)?, self.expr(b)?);
                ExprKind::Binary(*op, self.broadcast(a), self.broadcast(b))
            }
            ExprKind::Cmp(op, a, b) => {
                let (a, b) = (self.expr(a)?, self.expr(b)?);
                self.check_width(a.dtype().element())?;
                ExprKind::Cmp(*op, self.broadcast(a), self.broadcast(b))
            }
            ExprKind::And(a, b) => {
                let (a, b) = (self.expr(a)?, self.expr(b)?);
                ExprKind::And(self.broadcast(a), self.broadcast(b))
            }
            ExprKind::Or(a, b) => {
                let (a, b) = (self.expr(a)?, self.expr(b)?);
                ExprKind::Or(self.broadcast(a), self.broadcast(b))
            }
            ExprKind::Not(a) => {
                let a = self.expr(a)?;
                ExprKind::Not(self.broadcast(a))
            }
            ExprKind::Select {
                cond,
                then,
                otherwise,
            } => {
                let c = self.expr(cond)?;
                let t = self.expr(then)?;
                let o = self.expr(otherwise)?;
                ExprKind::Select {
                    cond: self.broadcast(c),
                    then: self.broadcast(t),
                    otherwise: self.broadcast(o),
                }
            }
            ExprKind::Cast(a) => {
                let a = self.expr(a)?;
                self.check_width(a.dtype().element())?;
                ExprKind::Cast(self.broadcast(a))
            }
            ExprKind::Call { op, args } => {
                let native = matches!(
                    op,
                    Intrinsic::Fabs
                        | Intrinsic::Sqrt
                        | Intrinsic::Floor
                        | Intrinsic::Ceil
                        | Intrinsic::Trunc
                        | Intrinsic::Round
                ) && dt.is_float();
                if !native {
                    return Err(format!("T.{} has no SIMD128 instruction", op.name()));
                }
                let mut out = Vec::with_capacity(args.len());
                for a in args {
                    let a = self.expr(a)?;
                    out.push(self.broadcast(a));
                }
                ExprKind::Call {
                    op: op.clone(),
                    args: out,
                }
            }
            ExprKind::Load { buffer, indices } => {
                let [idx] = indices.as_slice() else {
                    return Err("a load is not flat".into());
                };
                match self.vector_index(idx)? {
                    Some(vidx) => ExprKind::Load {
                        buffer: buffer.clone(),
                        indices: vec![vidx],
                    },
                    None => return Ok(e.clone()),
                }
            }
            ExprKind::Let { .. } => return Err("it contains a let expression".into()),
            ExprKind::Ramp { .. } | ExprKind::Broadcast(_) => {
                return Err("it already holds vector expressions".into())
            }
            ExprKind::Int(_) | ExprKind::Float(_) | ExprKind::Str(_) => return Ok(e.clone()),
        };
        self.check_width(dt)?;
        Ok(Expr::new(out, vdt, span))
    }
}
