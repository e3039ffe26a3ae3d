//! Expressions, constants, attribute values and buffer regions.

use std::collections::BTreeMap;

use super::literal::{float_literal, str_literal};
use super::Printer;
use crate::{
    AttrValue, BinOp, Buffer, CmpOp, DataType, Expr, ExprKind, Intrinsic, Range, ScalarKind, Var,
};

// Python precedence levels, as TVM's doc printer numbers them.
const PREC_OR: u8 = 3;
const PREC_AND: u8 = 4;
const PREC_NOT: u8 = 5;
const PREC_CMP: u8 = 6;
const PREC_ADD: u8 = 11;
const PREC_MUL: u8 = 12;
const PREC_ATOM: u8 = 16;

/// Rendered expression text with its precedence.
pub(crate) struct Doc {
    text: String,
    prec: u8,
}

impl Doc {
    fn atom(text: String) -> Doc {
        Doc {
            text,
            prec: PREC_ATOM,
        }
    }
}

/// Calls whose TVMScript form takes the result dtype as first argument.
const DTYPE_FIRST_CALLS: &[&str] = &[
    "call_extern",
    // `T.type_annotation("float32")`: the dtype is its only argument.
    "type_annotation",
    "call_pure_extern",
    "call_llvm_intrin",
    "call_llvm_pure_intrin",
    "call_packed",
    "call_cpacked",
    "call_packed_lowered",
    "call_cpacked_lowered",
    "reinterpret",
];

fn is_zero(e: &Expr) -> bool {
    match e.kind() {
        ExprKind::Int(v) => *v == 0,
        ExprKind::Float(v) => *v == 0.0,
        _ => false,
    }
}

fn is_one(e: &Expr) -> bool {
    match e.kind() {
        ExprKind::Int(v) => *v == 1,
        ExprKind::Float(v) => *v == 1.0,
        _ => false,
    }
}

fn is_const(e: &Expr) -> bool {
    matches!(e.kind(), ExprKind::Int(_) | ExprKind::Float(_))
}

/// Whether TVM's constant folding (`arith::TryConstFold`) would simplify
/// `a op b` when the printed text is parsed again; such operations print in
/// the explicit `T.Add(a, b)` form.
fn folds(op: BinOp, a: &Expr, b: &Expr) -> bool {
    if is_const(a) && is_const(b) {
        return true;
    }
    match op {
        BinOp::Add => is_zero(a) || is_zero(b),
        BinOp::Sub => is_zero(b),
        BinOp::Mul => is_zero(a) || is_one(a) || is_zero(b) || is_one(b),
        BinOp::Div | BinOp::FloorDiv => is_zero(a) || is_one(b),
        BinOp::Mod | BinOp::FloorMod => {
            matches!(a.kind(), ExprKind::Int(0)) || matches!(b.kind(), ExprKind::Int(1))
        }
        BinOp::Min | BinOp::Max => false,
    }
}

/// `a + b` as TVM's `operator+` builds it: constants folded, `+ 0` dropped.
/// Used for the ends of ranges (`min + extent`).
pub(crate) fn add_folded(a: &Expr, b: &Expr) -> Expr {
    match (a.kind(), b.kind()) {
        (ExprKind::Int(x), ExprKind::Int(y)) => match x.checked_add(*y) {
            Some(v) => Expr::int(v, a.dtype()),
            None => Expr::binary(BinOp::Add, a.clone(), b.clone()),
        },
        (ExprKind::Float(x), ExprKind::Float(y)) => Expr::float(x + y, a.dtype()),
        _ if is_zero(a) => b.clone(),
        _ if is_zero(b) => a.clone(),
        _ => Expr::binary(BinOp::Add, a.clone(), b.clone()),
    }
}

/// `a * b` folded the same way (for `lanes * stride`).
fn mul_folded(a: &Expr, b: &Expr) -> Expr {
    match (a.kind(), b.kind()) {
        (ExprKind::Int(x), ExprKind::Int(y)) => match x.checked_mul(*y) {
            Some(v) => Expr::int(v, b.dtype()),
            None => Expr::binary(BinOp::Mul, a.clone(), b.clone()),
        },
        _ => Expr::binary(BinOp::Mul, a.clone(), b.clone()),
    }
}

/// The `T.<dtype>` spelling of a type.
pub(crate) fn dtype_name(dt: DataType) -> String {
    dt.to_string()
}

impl<'o> Printer<'o> {
    /// The text of an expression.
    pub(crate) fn expr(&mut self, e: &Expr) -> String {
        self.expr_doc(e).text
    }

    /// The printed name of a variable; an undefined one is a free variable,
    /// named now and (when printing a function) declared as `n = T.int32()`
    /// in the innermost scope enclosing all its uses.
    pub(crate) fn var_ref(&mut self, v: &Var) -> String {
        if let Some(name) = self.names.var(v.id()) {
            return name.to_string();
        }
        if !self.define_free {
            return self.names.define_var_at(0, v.id(), v.name());
        }
        let depth = self.free_scope(self.paths.vars.get(&v.id()));
        let name = self.names.define_var_at(depth, v.id(), v.name());
        let creation = self.var_creation(v.dtype());
        self.insert_decl(depth, &format!("{name} = {creation}"));
        name
    }

    /// `T.int64()`: a fresh variable of this type, as in `n = T.int64()`.
    pub(crate) fn var_creation(&self, dt: DataType) -> String {
        format!("{}()", self.tir(&dtype_name(dt)))
    }

    /// The printed name of a buffer; an undefined one is declared like a
    /// free variable, as `A = T.Buffer((8,))`.
    pub(crate) fn buffer_ref(&mut self, b: &Buffer) -> String {
        if let Some(name) = self.names.buffer(b.id()) {
            return name.to_string();
        }
        if !self.define_free {
            return self.names.define_buffer_at(0, b.id(), &b.name);
        }
        let depth = self.free_scope(self.paths.bufs.get(&b.id()));
        let name = self.define_buffer_at(depth, b);
        // Variables in the declaration go before it, in the same scope.
        let saved = std::mem::take(&mut self.pending);
        let decl = self.buffer_decl(b, "Buffer", None, false, depth);
        let size_vars = std::mem::replace(&mut self.pending, saved);
        for line in size_vars {
            self.insert_decl(depth, &line);
        }
        self.insert_decl(depth, &format!("{name} = {decl}"));
        name
    }

    fn call_doc(&mut self, name: &str, args: &[Expr]) -> Doc {
        let args: Vec<String> = args.iter().map(|a| self.expr(a)).collect();
        Doc::atom(format!("{}({})", self.tir(name), args.join(", ")))
    }

    fn binary_doc(&mut self, op: &str, prec: u8, a: &Expr, b: &Expr) -> Doc {
        let a = self.expr_doc(a);
        let b = self.expr_doc(b);
        let left = if a.prec < prec {
            format!("({})", a.text)
        } else {
            a.text
        };
        let right = if b.prec <= prec {
            format!("({})", b.text)
        } else {
            b.text
        };
        Doc {
            text: format!("{left} {op} {right}"),
            prec,
        }
    }

    pub(crate) fn int_literal(&self, v: i64, dt: DataType) -> String {
        if dt.is_bool() && dt.is_scalar() {
            let b = if v != 0 { "True" } else { "False" };
            return format!("{}({b})", self.tir("bool"));
        }
        if dt == DataType::i32() {
            return v.to_string();
        }
        let digits = if dt.kind == ScalarKind::UInt && dt.bits == 64 {
            (v as u64).to_string()
        } else {
            v.to_string()
        };
        format!("{}({digits})", self.tir(&dtype_name(dt)))
    }

    pub(crate) fn expr_doc(&mut self, e: &Expr) -> Doc {
        let dt = e.dtype();
        match e.kind() {
            ExprKind::Var(v) => Doc::atom(self.var_ref(v)),
            ExprKind::Int(v) => Doc::atom(self.int_literal(*v, dt)),
            ExprKind::Float(v) => Doc::atom(format!(
                "{}({})",
                self.tir(&dtype_name(dt)),
                float_literal(*v)
            )),
            ExprKind::Str(s) => Doc::atom(str_literal(s)),
            ExprKind::Binary(op, a, b) => {
                let (name, sugar) = match op {
                    BinOp::Add => ("Add", Some(("+", PREC_ADD))),
                    BinOp::Sub => ("Sub", Some(("-", PREC_ADD))),
                    BinOp::Mul => ("Mul", Some(("*", PREC_MUL))),
                    BinOp::Div => {
                        let float = a.dtype().is_float() || b.dtype().is_float();
                        ("Div", if float { Some(("/", PREC_MUL)) } else { None })
                    }
                    BinOp::FloorDiv => ("FloorDiv", Some(("//", PREC_MUL))),
                    BinOp::FloorMod => ("FloorMod", Some(("%", PREC_MUL))),
                    BinOp::Mod => ("truncmod", None),
                    BinOp::Min => ("min", None),
                    BinOp::Max => ("max", None),
                };
                match sugar {
                    Some((sym, prec)) if !folds(*op, a, b) => self.binary_doc(sym, prec, a, b),
                    _ => self.call_doc(name, &[a.clone(), b.clone()]),
                }
            }
            ExprKind::Cmp(op, a, b) => {
                if is_const(a) && is_const(b) {
                    let name = match op {
                        CmpOp::Eq => "EQ",
                        CmpOp::Ne => "NE",
                        CmpOp::Lt => "LT",
                        CmpOp::Le => "LE",
                        CmpOp::Gt => "GT",
                        CmpOp::Ge => "GE",
                    };
                    self.call_doc(name, &[a.clone(), b.clone()])
                } else {
                    // As in TVM, a comparison on the left of another is not
                    // parenthesised (`a < b == c`).
                    self.binary_doc(op.symbol(), PREC_CMP, a, b)
                }
            }
            ExprKind::And(a, b) => {
                if matches!(a.kind(), ExprKind::Int(_)) || matches!(b.kind(), ExprKind::Int(_)) {
                    self.call_doc("And", &[a.clone(), b.clone()])
                } else {
                    self.binary_doc("and", PREC_AND, a, b)
                }
            }
            ExprKind::Or(a, b) => {
                if matches!(a.kind(), ExprKind::Int(_)) || matches!(b.kind(), ExprKind::Int(_)) {
                    self.call_doc("Or", &[a.clone(), b.clone()])
                } else {
                    self.binary_doc("or", PREC_OR, a, b)
                }
            }
            ExprKind::Not(a) => {
                let a = self.expr_doc(a);
                let inner = if a.prec < PREC_NOT {
                    format!("({})", a.text)
                } else {
                    a.text
                };
                Doc {
                    text: format!("not {inner}"),
                    prec: PREC_NOT,
                }
            }
            ExprKind::Select {
                cond,
                then,
                otherwise,
            } => self.call_doc("Select", &[cond.clone(), then.clone(), otherwise.clone()]),
            ExprKind::Cast(x) => {
                let x = self.expr(x);
                Doc::atom(format!(
                    "{}({}, {x})",
                    self.tir("Cast"),
                    str_literal(&dtype_name(dt))
                ))
            }
            ExprKind::Call { op, args } => {
                let name = op.name().to_string();
                let dtype_first =
                    matches!(op, Intrinsic::Other(n) if DTYPE_FIRST_CALLS.contains(&n.as_str()));
                if dtype_first {
                    let mut parts = vec![str_literal(&dtype_name(dt))];
                    parts.extend(args.iter().map(|a| self.expr(a)));
                    Doc::atom(format!("{}({})", self.tir(&name), parts.join(", ")))
                } else {
                    self.call_doc(&name, args)
                }
            }
            ExprKind::Load { buffer, indices } => {
                let name = self.buffer_ref(buffer);
                let idx: Vec<String> = indices.iter().map(|i| self.expr(i)).collect();
                Doc::atom(format!("{name}[{}]", index_list(&idx)))
            }
            ExprKind::Let { var, value, body } => {
                // TVM treats the bound variable as free: it is declared
                // before the statement (`x = T.float32()`).
                let body = self.expr(body);
                let name = self.var_ref(var);
                let value = self.expr(value);
                Doc::atom(format!(
                    "{}({body}, where={{{name}: {value}}})",
                    self.tir("Let")
                ))
            }
            ExprKind::Ramp { base, stride } => {
                let base = self.expr(base);
                let stride = self.expr(stride);
                Doc::atom(format!(
                    "{}({base}, {stride}, {})",
                    self.tir("Ramp"),
                    dt.lanes
                ))
            }
            ExprKind::Broadcast(x) => {
                let x = self.expr(x);
                Doc::atom(format!("{}({x}, {})", self.tir("Broadcast"), dt.lanes))
            }
        }
    }

    /// A store index: a `Ramp` with constant stride prints as a slice.
    pub(crate) fn store_index(&mut self, e: &Expr) -> String {
        if let ExprKind::Ramp { base, stride } = e.kind() {
            if let ExprKind::Int(s) = stride.kind() {
                let lanes = Expr::int(i64::from(e.dtype().lanes), DataType::i32());
                let stop = add_folded(base, &mul_folded(&lanes, stride));
                let start = self.expr(base);
                let stop = self.expr(&stop);
                return if *s == 1 {
                    format!("{start}:{stop}")
                } else {
                    let step = self.expr(stride);
                    format!("{start}:{stop}:{step}")
                };
            }
        }
        self.expr(e)
    }

    /// A range as a region component: `min` for extent 1, else `min:min + extent`.
    pub(crate) fn range(&mut self, r: &Range) -> String {
        if matches!(r.extent.kind(), ExprKind::Int(1)) {
            return self.expr(&r.min);
        }
        let end = add_folded(&r.min, &r.extent);
        let min = self.expr(&r.min);
        let end = self.expr(&end);
        format!("{min}:{end}")
    }

    /// `A[vi, 0:128]`
    pub(crate) fn buffer_region(&mut self, buffer: &Buffer, region: &[Range]) -> String {
        let name = self.buffer_ref(buffer);
        let parts: Vec<String> = region.iter().map(|r| self.range(r)).collect();
        format!("{name}[{}]", index_list(&parts))
    }

    pub(crate) fn attr_value(&mut self, v: &AttrValue) -> String {
        match v {
            AttrValue::Bool(b) => if *b { "True" } else { "False" }.to_string(),
            AttrValue::Int(i) => i.to_string(),
            AttrValue::Float(f) => float_literal(*f),
            AttrValue::Str(s) => str_literal(s),
            AttrValue::Expr(e) => self.expr(e),
            AttrValue::Array(items) => {
                let parts: Vec<String> = items.iter().map(|x| self.attr_value(x)).collect();
                format!("[{}]", parts.join(", "))
            }
            AttrValue::Map(m) => self.attr_map(m),
        }
    }

    /// `{"key": value, ...}` in key order.
    pub(crate) fn attr_map(&mut self, m: &BTreeMap<String, AttrValue>) -> String {
        let parts: Vec<String> = m
            .iter()
            .map(|(k, v)| format!("{}: {}", str_literal(k), self.attr_value(v)))
            .collect();
        format!("{{{}}}", parts.join(", "))
    }
}

/// Subscript contents: `i, j`; a 0-d subscript is `()`.
pub(crate) fn index_list(parts: &[String]) -> String {
    if parts.is_empty() {
        "()".to_string()
    } else {
        parts.join(", ")
    }
}
