//! Graph functions (`@R.function`) → TVMScript, the way TVM prints Relax.
//!
//! The rules, checked against TVM 0.27 (`tools/tvm_oracle/graph_print.py`
//! writes its printing of every graph test module to
//! `tests/data/graph_tvm/`):
//!
//! - `@R.function`, `@R.function(pure=False)`, `@R.function(private=True)`
//!   (no `global_symbol`); the signature on one line with every parameter
//!   annotated and the return struct info always shown:
//!   `def main(x: R.Tensor((1, 784), dtype="float32")) -> R.Tensor((1, 10), dtype="float32"):`.
//! - Struct info: `R.Tensor((2, 3), dtype="float32")`, `R.Tensor((), dtype=…)`,
//!   `R.Tensor(dtype="float32", ndim=2)`, `R.Tensor`, `R.Shape([2, 3])`,
//!   `R.Shape(ndim=2)`, `R.Tuple(...)`, `R.Callable`, a scalar `R.Prim("int64")`
//!   as `T.int64`, and `R.Object` (TVM 0.27: `R.Any`). Dimensions that are
//!   `int64` constants print bare.
//! - Body: `R.func_attr({...})` without `global_symbol` (when it is the
//!   function's name), then `cls = Module` when the function refers to
//!   another function of the module, then the bindings: `name: ANN = value`,
//!   where the annotation is left out only for `R.call_tir` /
//!   `R.call_dps_packed` whose output struct info equals the variable's
//!   (TVM's default `show_all_struct_info=True`). A dataflow block is
//!   `with R.dataflow():` ending in `R.output(...)` with its non-dataflow
//!   variables; the result is `return value`.
//! - Calls: `R.add(x, y)`; attributes as keywords in TVM's field order
//!   (`R.matmul(x, w, out_dtype=None)`, `R.permute_dims(w, axes=None)`,
//!   `R.sum(x, axis=[1], keepdims=False)`, `R.nn.softmax(x, axis=-1)`, all
//!   eight of `R.nn.conv2d`); `R.call_tir(cls.f, (x, w), out_sinfo=...)` and
//!   `R.call_dps_packed("env.relu", (x,), out_sinfo=...)` (a list for
//!   several outputs); `cls.f(x, w)` for graph functions.
//! - A tuple is `(a, b)` (`(a,)`); bound directly to a variable it prints
//!   without parentheses (`t: R.Tuple(...) = a, b`), as TVM's printer does.
//!   Scalar constants print as `R.const(1.5, "float32")`; other constants
//!   as `metadata["relax.expr.Constant"][i]` (TVM 0.27:
//!   `metadata["ir.GenericConst"][i]`) with the closing comment
//!   `# Metadata omitted. Use show_meta=True in script() method to show it.`
//! - Variables whose name is taken get `name_1`, …, like TIR names.
//!
//! Dialects. TVM 0.27 spells the output struct info keyword `out_ty=` and
//! an unset `out_dtype` `None`; the course's TVM (Unity, 2023) spelled them
//! `out_sinfo=` and `"void"`, printed `R.Object` and named constants
//! `relax.expr.Constant` in the metadata. The course spellings are used in
//! the `Block`/`SBlock` dialects.
//!
//! Symbolic shapes. Like the TIR printer, Tessel prints the form the
//! course's TVM printed and TVM 0.27 still parses, not TVM 0.27's
//! module-level `n = TypeVar("n")` (which neither can parse back without
//! `from __future__ import annotations`): in the signature every dimension
//! that uses a symbolic variable is a string (`R.Tensor((1, "m"), ...)`,
//! `"n * 2"`), and the body starts with `m = T.int64()` for each, in the
//! order TVM's printer meets them (return struct info first, then the
//! parameters).

use std::collections::{BTreeMap, HashSet};

use super::literal::{float_literal, sanitize_identifier, str_literal};
use super::{Dialect, Printer};
use crate::graph::op::{Conv2dAttrs, Op};
use crate::graph::{
    Binding, BindingBlock, Call, Callee, Expr, ExprKind, Function, PrimExpr, StructInfo, SymVar,
    Var,
};
use crate::visit::expr_vars;
use crate::{AttrValue, BinOp, DataType, ExprKind as PrimKind, VarId};

/// Precedences for dimension expressions.
const P_ADD: u8 = 1;
const P_MUL: u8 = 2;
const P_ATOM: u8 = 9;

/// Graph-printing state of one function.
pub(crate) struct GraphCtx {
    /// Symbolic variables defined by the signature (printed as strings there).
    sig_vars: HashSet<VarId>,
    /// Whether we are printing the signature (symbolic dims as strings).
    in_sig: bool,
    /// Lines that go before the body: symbolic declarations, `cls = Module`.
    pre: Vec<String>,
    /// Whether `cls = Module` was emitted.
    cls_emitted: bool,
    /// Inside an `I.ir_module` class (global functions print as `cls.f`).
    in_module: bool,
}

impl GraphCtx {
    /// A fresh context; `in_module` when global functions print as `cls.f`.
    fn new(in_module: bool) -> GraphCtx {
        GraphCtx {
            sig_vars: HashSet::new(),
            in_sig: false,
            pre: Vec::new(),
            cls_emitted: false,
            in_module,
        }
    }

    /// Starting in a function's signature.
    fn in_signature(mut self) -> GraphCtx {
        self.in_sig = true;
        self
    }
}

impl<'o> Printer<'o> {
    fn r_dialect_tvm027(&self) -> bool {
        self.dialect() == Dialect::Tirx
    }

    /// Whether printing `f` needs the `T` import (symbolic shapes, scalars).
    pub(crate) fn graph_needs_tir(f: &Function) -> bool {
        if !f.defined_sym_vars().is_empty() {
            return true;
        }
        fn has_prim(s: &StructInfo) -> bool {
            match s {
                StructInfo::Prim(_) => true,
                StructInfo::Tuple(f) => f.iter().any(has_prim),
                _ => false,
            }
        }
        let mut prim = f.params.iter().any(|p| has_prim(p.sinfo())) || has_prim(&f.ret);
        for b in f.body.bindings() {
            prim |= has_prim(b.var.sinfo());
            b.var
                .sinfo()
                .for_each_dim(&mut |d| prim |= d.as_int().is_none());
        }
        prim
    }

    pub(crate) fn relax_header(&mut self) {
        self.raw_line("# from tvm.script import relax as R");
    }

    /// Prints a graph function at the current indentation.
    pub(crate) fn graph_func(&mut self, f: &Function, name: &str, in_module: bool) {
        let mut ctx = GraphCtx::new(in_module).in_signature();
        self.names.push_frame();

        // Symbolic variables, in the order TVM's printer meets them.
        let mut order: Vec<SymVar> = Vec::new();
        let mut seen = HashSet::new();
        for s in std::iter::once(&f.ret).chain(f.params.iter().map(|p| p.sinfo())) {
            for v in s.sym_vars() {
                if seen.insert(v.id()) {
                    order.push(v);
                }
            }
        }
        // Only variables the parameters define are signature variables; a
        // variable that only the return type uses is declared the same way.
        for v in &order {
            let name = self.names.define_var(v.id(), v.name());
            ctx.sig_vars.insert(v.id());
            ctx.pre
                .push(format!("{name} = {}", self.var_creation(v.dtype())));
        }

        let ret = self.sinfo_text(&f.ret, &mut ctx);
        let mut params = Vec::new();
        for p in &f.params {
            let ann = self.sinfo_text(p.sinfo(), &mut ctx);
            let pname = self.names.define_var(p.id(), p.name());
            params.push(format!("{pname}: {ann}"));
        }
        ctx.in_sig = false;

        let mut options = Vec::new();
        if !f.pure {
            options.push("pure=False");
        }
        if f.is_private() {
            options.push("private=True");
        }
        if options.is_empty() {
            self.raw_line("@R.function");
        } else {
            self.raw_line(&format!("@R.function({})", options.join(", ")));
        }
        self.raw_line(&format!(
            "def {}({}) -> {ret}:",
            sanitize_identifier(name),
            params.join(", ")
        ));
        self.indent += 1;

        let attrs: BTreeMap<String, AttrValue> = f
            .attrs
            .iter()
            .filter(|(k, v)| {
                !(k.as_str() == "global_symbol" && matches!(v, AttrValue::Str(s) if s == name))
            })
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        if !attrs.is_empty() {
            let a = self.attr_map(&attrs);
            ctx.pre.push(format!("R.func_attr({a})"));
        }

        let mut body = Vec::new();
        for block in &f.body.blocks {
            self.graph_block(block, &mut ctx, &mut body);
        }
        let ret_value = self.graph_expr(&f.body.body, &mut ctx, false);
        body.push(format!("return {ret_value}"));

        let pre = std::mem::take(&mut ctx.pre);
        for line in pre.iter().chain(body.iter()) {
            self.raw_line(line);
        }
        self.indent -= 1;
        self.names.pop_frame();
    }

    fn graph_block(&mut self, block: &BindingBlock, ctx: &mut GraphCtx, out: &mut Vec<String>) {
        let indent = if block.dataflow { "    " } else { "" };
        if block.dataflow {
            out.push("with R.dataflow():".into());
        }
        let mut outputs = Vec::new();
        for b in &block.bindings {
            let value = self.graph_expr(&b.value, ctx, true);
            let hide = match b.value.as_call() {
                Some(call) if crate::graph::op::is_dps_call(call) => call
                    .sinfo_args
                    .first()
                    .is_some_and(|s| crate::graph::sinfo_equal(s, b.var.sinfo())),
                _ => false,
            };
            let ann = if hide {
                None
            } else {
                Some(self.sinfo_text(b.var.sinfo(), ctx))
            };
            let name = self.names.define_var(b.var.id(), b.var.name());
            if block.dataflow && !b.var.is_dataflow() {
                outputs.push(name.clone());
            }
            match ann {
                Some(a) => out.push(format!("{indent}{name}: {a} = {value}")),
                None => out.push(format!("{indent}{name} = {value}")),
            }
        }
        if block.dataflow {
            out.push(format!("    R.output({})", outputs.join(", ")));
        }
    }

    /// The text of a graph expression; `rhs` is true for the right-hand side
    /// of a binding (where a tuple prints without parentheses).
    pub(crate) fn graph_expr(&mut self, e: &Expr, ctx: &mut GraphCtx, rhs: bool) -> String {
        match e.kind() {
            ExprKind::Var(v) => match self.names.var(v.id()) {
                Some(n) => n.to_string(),
                None => self.names.define_var_at(0, v.id(), v.name()),
            },
            ExprKind::Constant(a) => {
                if a.ndim() == 0 {
                    if let Some(text) = scalar_const(a) {
                        return format!("R.const({text}, \"{}\")", a.dtype());
                    }
                }
                let key = if self.r_dialect_tvm027() {
                    "ir.GenericConst"
                } else {
                    "relax.expr.Constant"
                };
                let i = self.graph_meta;
                self.graph_meta += 1;
                format!("metadata[\"{key}\"][{i}]")
            }
            ExprKind::Tuple(fields) => {
                if fields.is_empty() {
                    return "R.tuple()".into();
                }
                let parts: Vec<String> = fields
                    .iter()
                    .map(|f| self.graph_expr(f, ctx, false))
                    .collect();
                match (parts.len(), rhs) {
                    (1, true) => format!("{},", parts[0]),
                    (1, false) => format!("({},)", parts[0]),
                    (_, true) => parts.join(", "),
                    (_, false) => format!("({})", parts.join(", ")),
                }
            }
            ExprKind::TupleGetItem(t, i) => {
                let t = self.graph_expr(t, ctx, false);
                format!("{t}[{i}]")
            }
            ExprKind::Shape(values) => {
                let parts: Vec<String> = values.iter().map(|d| self.dim(d, ctx)).collect();
                format!("R.shape([{}])", parts.join(", "))
            }
            ExprKind::PrimValue(v) => format!("R.prim_value({})", self.dim(v, ctx)),
            ExprKind::Str(s) => format!("R.str({})", str_literal(s)),
            ExprKind::GlobalVar(g) => self.global_ref(g.name(), ctx),
            ExprKind::ExternFunc(s) => format!("R.ExternFunc({})", str_literal(s)),
            ExprKind::Call(c) => self.graph_call(c, ctx),
        }
    }

    fn global_ref(&mut self, name: &str, ctx: &mut GraphCtx) -> String {
        let name = sanitize_identifier(name);
        if !ctx.in_module {
            return name;
        }
        if !ctx.cls_emitted {
            ctx.cls_emitted = true;
            ctx.pre.push("cls = Module".into());
        }
        format!("cls.{name}")
    }

    fn out_sinfo_text(&mut self, s: &StructInfo, ctx: &mut GraphCtx) -> String {
        match s {
            StructInfo::Tuple(fields) => {
                let parts: Vec<String> = fields.iter().map(|f| self.sinfo_text(f, ctx)).collect();
                format!("[{}]", parts.join(", "))
            }
            s => self.sinfo_text(s, ctx),
        }
    }

    fn graph_call(&mut self, c: &Call, ctx: &mut GraphCtx) -> String {
        let op = match &c.callee {
            Callee::Global(g) => {
                let f = self.global_ref(g.name(), ctx);
                let args: Vec<String> = c
                    .args
                    .iter()
                    .map(|a| self.graph_expr(a, ctx, false))
                    .collect();
                return format!("{f}({})", args.join(", "));
            }
            Callee::Op(op) => op,
        };
        if matches!(op, Op::CallTir | Op::CallDpsPacked) {
            let mut args = Vec::new();
            if let Some(f) = c.args.first() {
                args.push(match f.kind() {
                    ExprKind::ExternFunc(s) => str_literal(s),
                    _ => self.graph_expr(f, ctx, false),
                });
            }
            if let Some(a) = c.args.get(1) {
                args.push(self.graph_expr(a, ctx, false));
            }
            let key = if self.r_dialect_tvm027() {
                "out_ty"
            } else {
                "out_sinfo"
            };
            if let Some(s) = c.sinfo_args.first() {
                let t = self.out_sinfo_text(s, ctx);
                args.push(format!("{key}={t}"));
            }
            if let (Op::CallTir, Some(v)) = (op, c.args.get(2)) {
                let t = self.graph_expr(v, ctx, false);
                args.push(format!("tir_vars={t}"));
            }
            return format!("R.{}({})", op.script_name(), args.join(", "));
        }
        let mut args: Vec<String> = c
            .args
            .iter()
            .map(|a| self.graph_expr(a, ctx, false))
            .collect();
        args.extend(self.op_attrs(op));
        format!("R.{}({})", op.script_name(), args.join(", "))
    }

    fn dtype_attr(&self, d: Option<DataType>) -> String {
        match d {
            Some(d) => format!("\"{d}\""),
            None if self.r_dialect_tvm027() => "None".into(),
            None => "\"void\"".into(),
        }
    }

    /// The keyword attributes of an operator, in TVM's field order.
    fn op_attrs(&self, op: &Op) -> Vec<String> {
        let ints = |v: &[i64]| {
            let p: Vec<String> = v.iter().map(|x| x.to_string()).collect();
            format!("[{}]", p.join(", "))
        };
        let opt_ints = |v: &Option<Vec<i64>>| match v {
            Some(v) => ints(v),
            None => "None".into(),
        };
        let py_bool = |b: bool| if b { "True" } else { "False" };
        match op {
            Op::Matmul { out_dtype } => vec![format!("out_dtype={}", self.dtype_attr(*out_dtype))],
            Op::PermuteDims { axes } => vec![format!("axes={}", opt_ints(axes))],
            Op::Softmax { axis } => vec![format!("axis={axis}")],
            Op::Sum { axis, keepdims } | Op::Mean { axis, keepdims } => vec![
                format!("axis={}", opt_ints(axis)),
                format!("keepdims={}", py_bool(*keepdims)),
            ],
            Op::Conv2d(a) => {
                let Conv2dAttrs {
                    strides,
                    padding,
                    dilation,
                    groups,
                    data_layout,
                    kernel_layout,
                    out_layout,
                    out_dtype,
                } = a;
                vec![
                    format!("strides={}", ints(strides)),
                    format!("padding={}", ints(padding)),
                    format!("dilation={}", ints(dilation)),
                    format!("groups={groups}"),
                    format!("data_layout={}", str_literal(data_layout)),
                    format!("kernel_layout={}", str_literal(kernel_layout)),
                    format!("out_layout={}", str_literal(out_layout)),
                    format!("out_dtype={}", self.dtype_attr(*out_dtype)),
                ]
            }
            _ => Vec::new(),
        }
    }

    /// `R.Tensor((1, n), dtype="float32")` and friends.
    pub(crate) fn sinfo_text(&mut self, s: &StructInfo, ctx: &mut GraphCtx) -> String {
        match s {
            StructInfo::Object => {
                if self.r_dialect_tvm027() {
                    "R.Any".into()
                } else {
                    "R.Object".into()
                }
            }
            StructInfo::Prim(d) => format!("T.{d}"),
            StructInfo::Shape(sh) => match (&sh.values, sh.ndim) {
                (Some(v), _) => {
                    let parts: Vec<String> = v.iter().map(|d| self.dim(d, ctx)).collect();
                    format!("R.Shape([{}])", parts.join(", "))
                }
                (None, Some(n)) => format!("R.Shape(ndim={n})"),
                (None, None) => "R.Shape".into(),
            },
            StructInfo::Tensor(t) => {
                let mut args = Vec::new();
                if let Some(shape) = &t.shape {
                    let parts: Vec<String> = shape.iter().map(|d| self.dim(d, ctx)).collect();
                    args.push(super::func::tuple(&parts));
                }
                if let Some(d) = t.dtype {
                    args.push(format!("dtype=\"{d}\""));
                }
                if t.shape.is_none() {
                    if let Some(n) = t.ndim {
                        args.push(format!("ndim={n}"));
                    }
                }
                if args.is_empty() {
                    "R.Tensor".into()
                } else {
                    format!("R.Tensor({})", args.join(", "))
                }
            }
            StructInfo::Tuple(fields) => {
                if fields.is_empty() {
                    return "R.Tuple".into();
                }
                let parts: Vec<String> = fields.iter().map(|f| self.sinfo_text(f, ctx)).collect();
                format!("R.Tuple({})", parts.join(", "))
            }
            StructInfo::Func(fi) => match &fi.params {
                None => "R.Callable".into(),
                Some(ps) => {
                    let parts: Vec<String> = ps.iter().map(|p| self.sinfo_text(p, ctx)).collect();
                    let ret = self.sinfo_text(&fi.ret, ctx);
                    format!("R.Callable({}, {ret})", super::func::tuple(&parts))
                }
            },
        }
    }

    /// A dimension: `int64` constants bare, symbolic variables by name (as a
    /// string in the signature), arithmetic with Python precedence.
    fn dim(&mut self, e: &PrimExpr, ctx: &mut GraphCtx) -> String {
        let text = self.dim_doc(e, ctx).0;
        if ctx.in_sig {
            let uses = expr_vars(e).iter().any(|v| ctx.sig_vars.contains(&v.id()));
            if uses {
                return str_literal(&text);
            }
        }
        text
    }

    fn dim_doc(&mut self, e: &PrimExpr, ctx: &mut GraphCtx) -> (String, u8) {
        match e.kind() {
            PrimKind::Int(v) if e.dtype() == DataType::i64() => (v.to_string(), P_ATOM),
            PrimKind::Var(v) => {
                if let Some(n) = self.names.var(v.id()) {
                    return (n.to_string(), P_ATOM);
                }
                // First seen in the body: declared before the body.
                let name = self
                    .names
                    .define_var_at(self.names.depth(), v.id(), v.name());
                ctx.pre
                    .push(format!("{name} = {}", self.var_creation(v.dtype())));
                (name, P_ATOM)
            }
            PrimKind::Binary(op, a, b) => {
                let (sym, prec) = match op {
                    BinOp::Add => ("+", P_ADD),
                    BinOp::Sub => ("-", P_ADD),
                    BinOp::Mul => ("*", P_MUL),
                    BinOp::FloorDiv => ("//", P_MUL),
                    BinOp::FloorMod => ("%", P_MUL),
                    BinOp::Min | BinOp::Max | BinOp::Div | BinOp::Mod => {
                        let f = match op {
                            BinOp::Min => "T.min",
                            BinOp::Max => "T.max",
                            BinOp::Div => "T.Div",
                            _ => "T.truncmod",
                        };
                        let x = self.dim_doc(a, ctx).0;
                        let y = self.dim_doc(b, ctx).0;
                        return (format!("{f}({x}, {y})"), P_ATOM);
                    }
                };
                let (x, px) = self.dim_doc(a, ctx);
                let (y, py) = self.dim_doc(b, ctx);
                let x = if px < prec { format!("({x})") } else { x };
                let y = if py <= prec { format!("({y})") } else { y };
                (format!("{x} {sym} {y}"), prec)
            }
            _ => {
                // Free variables inside must be declared first.
                for v in expr_vars(e) {
                    if self.names.var(v.id()).is_none() {
                        self.dim_doc(&v.to_expr(), ctx);
                    }
                }
                (self.expr(e), P_ATOM)
            }
        }
    }
}

/// The literal of a 0-d constant, when TVM prints it inline.
fn scalar_const(a: &crate::values::NDArray) -> Option<String> {
    let d = a.dtype();
    if d.is_bool() {
        let v = a.get_flat_i64(0)?;
        return Some(if v != 0 { "True" } else { "False" }.into());
    }
    if d.is_int() && matches!(d.bits, 8 | 16 | 32 | 64) {
        return Some(a.get_flat_i64(0)?.to_string());
    }
    if d.is_float() && matches!(d.bits, 16 | 32 | 64) {
        return Some(float_literal(a.get_flat_f64(0)?));
    }
    None
}

/// A dimension as TVM prints it inside Relax (`n * 3`), for messages.
pub fn relax_dim_text(e: &PrimExpr) -> String {
    let opts = super::PrintOptions::default();
    let mut p = Printer::new(&opts, false);
    let mut ctx = GraphCtx::new(false);
    p.dim_doc(e, &mut ctx).0
}

/// A graph expression as one line (for messages). Variables print under
/// their own names.
pub fn print_graph_expr(e: &Expr) -> String {
    let opts = super::PrintOptions::new(Dialect::Tirx);
    let mut p = Printer::new(&opts, false);
    let mut ctx = GraphCtx::new(true);
    p.graph_expr(e, &mut ctx, false)
}

/// A struct info as TVM 0.27 prints it (for messages).
pub fn print_struct_info(s: &StructInfo) -> String {
    let opts = super::PrintOptions::new(Dialect::Tirx);
    let mut p = Printer::new(&opts, false);
    let mut ctx = GraphCtx::new(true);
    p.sinfo_text(s, &mut ctx)
}

/// Graph variables `e` uses, in order of first use, once each.
fn used_vars(e: &Expr, out: &mut Vec<Var>) {
    match e.kind() {
        ExprKind::Var(v) => {
            if !out.iter().any(|u| u.id() == v.id()) {
                out.push(v.clone());
            }
        }
        ExprKind::Tuple(items) => items.iter().for_each(|x| used_vars(x, out)),
        ExprKind::TupleGetItem(x, _) => used_vars(x, out),
        ExprKind::Call(c) => c.args.iter().for_each(|x| used_vars(x, out)),
        ExprKind::Constant(_)
        | ExprKind::Shape(_)
        | ExprKind::PrimValue(_)
        | ExprKind::Str(_)
        | ExprKind::GlobalVar(_)
        | ExprKind::ExternFunc(_) => {}
    }
}

/// Prints `bindings` on their own, as TVM shows a block or a binding: each
/// variable they use but do not define is declared first (`x: R.Tensor(…)`).
fn print_bindings_alone(block: &BindingBlock) -> String {
    let opts = super::PrintOptions::new(Dialect::Tirx);
    let mut p = Printer::new(&opts, false);
    let mut ctx = GraphCtx::new(true);
    let mut used = Vec::new();
    let mut defined = HashSet::new();
    let mut free = Vec::new();
    for b in &block.bindings {
        used.clear();
        used_vars(&b.value, &mut used);
        for v in &used {
            if !defined.contains(&v.id()) && !free.iter().any(|f: &Var| f.id() == v.id()) {
                free.push(v.clone());
            }
        }
        defined.insert(b.var.id());
    }
    let mut lines = Vec::new();
    for v in &free {
        let ann = p.sinfo_text(v.sinfo(), &mut ctx);
        let name = p.names.define_var(v.id(), v.name());
        lines.push(format!("{name}: {ann}"));
    }
    let mut body = Vec::new();
    p.graph_block(block, &mut ctx, &mut body);
    lines.extend(body);
    lines.join("\n")
}

/// A binding block as TVM prints it on its own (`func.body.blocks[0]`).
pub fn print_graph_block(block: &BindingBlock) -> String {
    print_bindings_alone(block)
}

/// A binding as TVM prints it on its own (`block.bindings[0]`).
pub fn print_graph_binding(binding: &Binding) -> String {
    print_bindings_alone(&BindingBlock {
        bindings: vec![binding.clone()],
        dataflow: false,
    })
}
