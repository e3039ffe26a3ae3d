//! A small, bounded TVMScript-like formatter for IR fragments, used in
//! mismatch reports and diagnostics until the real printer lands.
//!
//! Everything here is bounded: nesting deeper than [`MAX_DEPTH`] prints as
//! `…`, and output longer than [`MAX_LEN`] bytes is cut with `…`, so rendering
//! a pathological tree neither overflows the stack nor allocates without limit.

use crate::ir::{
    AttrValue, BinOp, Buffer, BufferRegion, DataType, Expr, ExprKind, ForKind, Range, ScalarKind,
    Stmt, StmtKind,
};

/// Nesting depth beyond which sub-expressions print as `…`.
pub const MAX_DEPTH: usize = 24;
/// Longest rendering, in bytes, before it is cut with `…`.
pub const MAX_LEN: usize = 240;

/// Output that stops growing once it is over [`MAX_LEN`].
struct Out {
    s: String,
    full: bool,
}

impl Out {
    fn new() -> Out {
        Out {
            s: String::new(),
            full: false,
        }
    }
    fn push(&mut self, text: &str) {
        if self.full {
            return;
        }
        if self.s.len() + text.len() > MAX_LEN {
            let room = MAX_LEN.saturating_sub(self.s.len());
            let mut cut = room.min(text.len());
            while cut > 0 && !text.is_char_boundary(cut) {
                cut -= 1;
            }
            self.s.push_str(&text[..cut]);
            self.s.push('…');
            self.full = true;
        } else {
            self.s.push_str(text);
        }
    }
    fn finish(self) -> String {
        self.s
    }
}

/// `float32` → `"float32"` as TVMScript quotes dtypes.
fn quoted(dt: DataType) -> String {
    format!("\"{dt}\"")
}

/// Binding strength of an expression's outermost operator (higher binds tighter).
fn precedence(e: &Expr) -> u8 {
    match e.kind() {
        ExprKind::Or(..) => 1,
        ExprKind::And(..) => 2,
        ExprKind::Not(..) => 3,
        ExprKind::Cmp(..) => 4,
        ExprKind::Binary(op, ..) => match op {
            BinOp::Add | BinOp::Sub => 5,
            BinOp::Mul | BinOp::FloorDiv | BinOp::FloorMod => 6,
            BinOp::Div if e.dtype().is_float() => 6,
            _ => 10,
        },
        ExprKind::Int(v) if *v < 0 => 7,
        ExprKind::Float(v) if *v < 0.0 => 7,
        _ => 10,
    }
}

fn infix(op: BinOp, dtype: DataType) -> Option<&'static str> {
    Some(match op {
        BinOp::Add => "+",
        BinOp::Sub => "-",
        BinOp::Mul => "*",
        BinOp::FloorDiv => "//",
        BinOp::FloorMod => "%",
        BinOp::Div if dtype.is_float() => "/",
        _ => return None,
    })
}

fn call_name(op: BinOp) -> &'static str {
    match op {
        BinOp::Div => "T.Div",
        BinOp::Mod => "T.truncmod",
        BinOp::Min => "T.min",
        BinOp::Max => "T.max",
        BinOp::Add => "T.Add",
        BinOp::Sub => "T.Sub",
        BinOp::Mul => "T.Mul",
        BinOp::FloorDiv => "T.floordiv",
        BinOp::FloorMod => "T.floormod",
    }
}

fn write_int(out: &mut Out, v: i64, dt: DataType) {
    match dt.kind {
        ScalarKind::Bool if dt.is_scalar() => out.push(if v != 0 { "True" } else { "False" }),
        ScalarKind::Int if dt.bits == 32 && dt.is_scalar() => out.push(&v.to_string()),
        _ => out.push(&format!("T.{dt}({v})")),
    }
}

fn write_float(out: &mut Out, v: f64, dt: DataType) {
    if v.is_finite() {
        out.push(&format!("T.{dt}({v:?})"));
    } else {
        out.push(&format!("T.{dt}(\"{v}\")"));
    }
}

fn write_args(out: &mut Out, args: &[Expr], depth: usize) {
    for (i, a) in args.iter().enumerate() {
        if i > 0 {
            out.push(", ");
        }
        write_expr(out, a, depth + 1);
        if out.full {
            return;
        }
    }
}

fn write_child(out: &mut Out, e: &Expr, depth: usize, parens: bool) {
    if parens {
        out.push("(");
    }
    write_expr(out, e, depth + 1);
    if parens {
        out.push(")");
    }
}

fn write_expr(out: &mut Out, e: &Expr, depth: usize) {
    if out.full {
        return;
    }
    if depth > MAX_DEPTH {
        out.push("…");
        return;
    }
    let p = precedence(e);
    match e.kind() {
        ExprKind::Var(v) => out.push(v.name()),
        ExprKind::Int(v) => write_int(out, *v, e.dtype()),
        ExprKind::Float(v) => write_float(out, *v, e.dtype()),
        ExprKind::Str(s) => out.push(&format!("{s:?}")),
        ExprKind::Binary(op, a, b) => match infix(*op, e.dtype()) {
            Some(sym) => {
                write_child(out, a, depth, precedence(a) < p);
                out.push(&format!(" {sym} "));
                write_child(out, b, depth, precedence(b) <= p);
            }
            None => {
                out.push(call_name(*op));
                out.push("(");
                write_args(out, &[a.clone(), b.clone()], depth);
                out.push(")");
            }
        },
        ExprKind::Cmp(op, a, b) => {
            write_child(out, a, depth, precedence(a) <= p);
            out.push(&format!(" {} ", op.symbol()));
            write_child(out, b, depth, precedence(b) <= p);
        }
        ExprKind::And(a, b) | ExprKind::Or(a, b) => {
            let word = if matches!(e.kind(), ExprKind::And(..)) {
                " and "
            } else {
                " or "
            };
            write_child(out, a, depth, precedence(a) < p);
            out.push(word);
            write_child(out, b, depth, precedence(b) <= p);
        }
        ExprKind::Not(a) => {
            out.push("not ");
            write_child(out, a, depth, precedence(a) < p);
        }
        ExprKind::Select {
            cond,
            then,
            otherwise,
        } => {
            out.push("T.Select(");
            write_args(out, &[cond.clone(), then.clone(), otherwise.clone()], depth);
            out.push(")");
        }
        ExprKind::Cast(a) => {
            out.push(&format!("T.Cast({}, ", quoted(e.dtype())));
            write_expr(out, a, depth + 1);
            out.push(")");
        }
        ExprKind::Call { op, args } => {
            out.push("T.");
            out.push(op.name());
            out.push("(");
            write_args(out, args, depth);
            out.push(")");
        }
        ExprKind::Load { buffer, indices } => {
            out.push(&buffer.name);
            out.push("[");
            write_args(out, indices, depth);
            out.push("]");
        }
        ExprKind::Let { var, value, body } => {
            out.push(&format!("T.Let({} = ", var.name()));
            write_expr(out, value, depth + 1);
            out.push(", ");
            write_expr(out, body, depth + 1);
            out.push(")");
        }
        ExprKind::Ramp { base, stride } => {
            out.push("T.Ramp(");
            write_args(out, &[base.clone(), stride.clone()], depth);
            out.push(&format!(", {})", e.dtype().lanes));
        }
        ExprKind::Broadcast(a) => {
            out.push("T.Broadcast(");
            write_expr(out, a, depth + 1);
            out.push(&format!(", {})", e.dtype().lanes));
        }
    }
}

/// An expression, TVMScript style: `A[vi, vk] * T.float32(2.0)`.
pub fn expr(e: &Expr) -> String {
    let mut out = Out::new();
    write_expr(&mut out, e, 0);
    out.finish()
}

fn write_range(out: &mut Out, r: &Range) {
    // A unit range prints as its point, like TVMScript's `A[vi]` regions.
    if r.extent.is_const_int(1) {
        write_expr(out, &r.min, 1);
        return;
    }
    write_expr(out, &r.min, 1);
    out.push(":");
    match (r.min.as_int(), r.extent.as_int()) {
        (Some(lo), Some(ext)) => match lo.checked_add(ext) {
            Some(hi) => out.push(&hi.to_string()),
            None => out.push("…"),
        },
        _ => {
            write_expr(out, &r.min, 1);
            out.push(" + ");
            write_child(out, &r.extent, 0, precedence(&r.extent) <= 5);
        }
    }
}

/// A range as a slice: `vi * 16:vi * 16 + 16`, or `[lo, hi)` for constants.
pub fn range(r: &Range) -> String {
    let mut out = Out::new();
    write_range(&mut out, r);
    out.finish()
}

/// A half-open interval `[lo, hi)` when both ends are constants, else `min:min + extent`.
pub fn interval(r: &Range) -> String {
    match (r.min.as_int(), r.extent.as_int()) {
        (Some(lo), Some(ext)) => format!("[{lo}, {})", lo as i128 + ext as i128),
        _ => format!("[{}, {} + {})", expr(&r.min), expr(&r.min), expr(&r.extent)),
    }
}

/// A buffer region: `A[vi, 0:16]`.
pub fn region(r: &BufferRegion) -> String {
    let mut out = Out::new();
    out.push(&r.buffer.name);
    out.push("[");
    for (i, rg) in r.region.iter().enumerate() {
        if i > 0 {
            out.push(", ");
        }
        write_range(&mut out, rg);
    }
    out.push("]");
    out.finish()
}

/// A buffer declaration: `A: T.Buffer((128, 128), "float32")` plus non-default fields.
pub fn buffer(b: &Buffer) -> String {
    let mut out = Out::new();
    out.push(&b.name);
    out.push(": T.Buffer((");
    for (i, d) in b.shape.iter().enumerate() {
        if i > 0 {
            out.push(", ");
        }
        write_expr(&mut out, d, 1);
    }
    if b.shape.len() == 1 {
        out.push(",");
    }
    out.push(&format!("), {}", quoted(b.dtype)));
    if !b.strides.is_empty() {
        out.push(", strides=(");
        for (i, d) in b.strides.iter().enumerate() {
            if i > 0 {
                out.push(", ");
            }
            write_expr(&mut out, d, 1);
        }
        out.push(")");
    }
    if !b.elem_offset.is_const_int(0) {
        out.push(", elem_offset=");
        write_expr(&mut out, &b.elem_offset, 1);
    }
    if b.scope != "global" {
        out.push(&format!(", scope={:?}", b.scope));
    }
    if b.align != 64 {
        out.push(&format!(", align={}", b.align));
    }
    if b.offset_factor != 1 {
        out.push(&format!(", offset_factor={}", b.offset_factor));
    }
    out.push(")");
    out.finish()
}

fn write_attr(out: &mut Out, a: &AttrValue, depth: usize) {
    if out.full {
        return;
    }
    if depth > MAX_DEPTH {
        out.push("…");
        return;
    }
    match a {
        AttrValue::Bool(b) => out.push(if *b { "True" } else { "False" }),
        AttrValue::Int(i) => out.push(&i.to_string()),
        AttrValue::Float(f) => out.push(&format!("{f:?}")),
        AttrValue::Str(s) => out.push(&format!("{s:?}")),
        AttrValue::Expr(e) => write_expr(out, e, depth + 1),
        AttrValue::Array(items) => {
            out.push("[");
            for (i, x) in items.iter().enumerate() {
                if i > 0 {
                    out.push(", ");
                }
                write_attr(out, x, depth + 1);
                if out.full {
                    return;
                }
            }
            out.push("]");
        }
        AttrValue::Map(m) => {
            out.push("{");
            for (i, (k, v)) in m.iter().enumerate() {
                if i > 0 {
                    out.push(", ");
                }
                out.push(&format!("{k:?}: "));
                write_attr(out, v, depth + 1);
                if out.full {
                    return;
                }
            }
            out.push("}");
        }
    }
}

/// An attribute or annotation value: `{"k": 1}`, `"main"`, `True`.
pub fn attr(a: &AttrValue) -> String {
    let mut out = Out::new();
    write_attr(&mut out, a, 0);
    out.finish()
}

/// The kind of attribute value, for "kinds differ" messages.
pub fn attr_kind(a: &AttrValue) -> &'static str {
    match a {
        AttrValue::Bool(_) => "bool",
        AttrValue::Int(_) => "int",
        AttrValue::Float(_) => "float",
        AttrValue::Str(_) => "string",
        AttrValue::Expr(_) => "expression",
        AttrValue::Array(_) => "array",
        AttrValue::Map(_) => "map",
    }
}

fn for_head(out: &mut Out, l: &crate::ir::For) {
    out.push(&format!("for {} in ", l.loop_var.name()));
    let func = match l.kind {
        ForKind::Serial => {
            if l.min.is_const_int(0) && l.annotations.is_empty() {
                "range"
            } else {
                "T.serial"
            }
        }
        ForKind::Parallel => "T.parallel",
        ForKind::Vectorized => "T.vectorized",
        ForKind::Unrolled => "T.unroll",
        ForKind::ThreadBinding => "T.thread_binding",
    };
    out.push(func);
    out.push("(");
    if !l.min.is_const_int(0) {
        write_expr(out, &l.min, 1);
        out.push(", ");
        write_expr(out, &l.min, 1);
        out.push(" + ");
        write_child(out, &l.extent, 0, precedence(&l.extent) <= 5);
    } else {
        write_expr(out, &l.extent, 1);
    }
    if let Some(tag) = &l.thread_tag {
        out.push(&format!(", thread={tag:?}"));
    }
    out.push(")");
}

/// One line summarising a statement: its header for compound statements
/// (`for i in range(128)`, `with T.sblock("C")`), the whole line for simple ones.
pub fn stmt(s: &Stmt) -> String {
    let mut out = Out::new();
    match s.kind() {
        StmtKind::For(l) => for_head(&mut out, l),
        StmtKind::BlockRealize(r) => out.push(&format!("with T.sblock({:?})", r.block.name)),
        StmtKind::Store {
            buffer,
            value,
            indices,
        } => {
            out.push(&buffer.name);
            out.push("[");
            write_args(&mut out, indices, 0);
            out.push("] = ");
            write_expr(&mut out, value, 1);
        }
        StmtKind::Let { var, value, .. } => {
            out.push(&format!("{} = T.let(", var.name()));
            write_expr(&mut out, value, 1);
            out.push(")");
        }
        StmtKind::If { cond, .. } => {
            out.push("if ");
            write_expr(&mut out, cond, 1);
        }
        StmtKind::Evaluate(e) => {
            out.push("T.evaluate(");
            write_expr(&mut out, e, 1);
            out.push(")");
        }
        StmtKind::Seq(v) => out.push(&format!("<sequence of {} statements>", v.len())),
        StmtKind::Allocate { buffer: b, .. } => {
            out.push(&format!("{} = T.allocate(", b.name));
            out.push(&buffer(b));
            out.push(")");
        }
    }
    out.finish()
}

/// The name of a statement's kind, for "kinds differ" messages.
pub fn stmt_kind(s: &Stmt) -> &'static str {
    match s.kind() {
        StmtKind::For(_) => "loop",
        StmtKind::BlockRealize(_) => "block",
        StmtKind::Store { .. } => "buffer store",
        StmtKind::Let { .. } => "let",
        StmtKind::If { .. } => "if",
        StmtKind::Evaluate(_) => "evaluate",
        StmtKind::Seq(_) => "sequence",
        StmtKind::Allocate { .. } => "allocate",
    }
}

/// The name of an expression's kind, for "kinds differ" messages.
pub fn expr_kind(e: &Expr) -> &'static str {
    match e.kind() {
        ExprKind::Var(_) => "variable",
        ExprKind::Int(_) => "integer constant",
        ExprKind::Float(_) => "float constant",
        ExprKind::Str(_) => "string",
        ExprKind::Binary(..) => "binary operation",
        ExprKind::Cmp(..) => "comparison",
        ExprKind::And(..) => "and",
        ExprKind::Or(..) => "or",
        ExprKind::Not(..) => "not",
        ExprKind::Select { .. } => "select",
        ExprKind::Cast(..) => "cast",
        ExprKind::Call { .. } => "call",
        ExprKind::Load { .. } => "buffer load",
        ExprKind::Let { .. } => "let",
        ExprKind::Ramp { .. } => "ramp",
        ExprKind::Broadcast(..) => "broadcast",
    }
}

/// `Binary(Add)` → `+`, for messages about operators.
pub fn binop_name(op: BinOp) -> &'static str {
    match op {
        BinOp::Add => "+",
        BinOp::Sub => "-",
        BinOp::Mul => "*",
        BinOp::Div => "T.Div",
        BinOp::Mod => "T.truncmod",
        BinOp::FloorDiv => "//",
        BinOp::FloorMod => "%",
        BinOp::Min => "T.min",
        BinOp::Max => "T.max",
    }
}
