//! Structural equality of graph functions, with TVM's semantics
//! (`tvm.ir.assert_structural_equal`):
//!
//! - parameters and binding variables are *definitions*: they are mapped in
//!   definition order and every later use must follow the mapping, so names
//!   never matter; a `DataflowVar` only equals a `DataflowVar`;
//! - symbolic dimensions (TIR variables) are defined where they first appear
//!   in a definition (a parameter's or a binding variable's struct info) and
//!   mapped the same way: `(n, m), (n, m)` equals `(m, n), (m, n)`;
//! - struct info, operator attributes, constants (element by element, NaN
//!   equal to NaN), `call_tir` callees (by global name), extern function
//!   names, block kinds and function attributes are compared;
//! - a graph variable used without a definition is free: it equals only
//!   itself unless `map_free_vars` is set.
//!
//! The first difference is reported as a [`Mismatch`] with a path such as
//! `mod["main"].body.blocks[0].bindings[1].value.args[0]`.

use std::collections::{BTreeMap, HashMap};

use super::{EqualOptions, Mismatch};
use crate::arith::expr_deep_equal;
use crate::ir::mutate::substitute_expr;
use crate::ir::printer::{print_graph_expr, relax_dim_text};
use crate::ir::{AttrValue, VarId};

use crate::ir::graph::{
    BindingBlock, Callee, Expr, ExprKind, Function, PrimExpr, SeqExpr, StructInfo, Var,
};

type R = Result<(), Mismatch>;

/// Compares two graph functions; `root` prefixes the reported paths
/// (`func`, or `mod["main"]`).
pub fn function_equal(a: &Function, b: &Function, root: &str, options: EqualOptions) -> R {
    Cmp::new(options).func(a, b, root)
}

/// Compares two graph expressions (free variables must be identical unless
/// `map_free_vars` is set).
pub fn expr_equal(a: &Expr, b: &Expr, options: EqualOptions) -> R {
    Cmp::new(options).expr(a, b, "expr")
}

struct Cmp {
    options: EqualOptions,
    vars: HashMap<VarId, VarId>,
    vars_rev: HashMap<VarId, VarId>,
    syms: HashMap<VarId, crate::ir::Var>,
    syms_rev: HashMap<VarId, VarId>,
}

fn fail(path: &str, lhs: impl Into<String>, rhs: impl Into<String>, msg: impl Into<String>) -> R {
    Err(Mismatch {
        path: path.to_string(),
        lhs: lhs.into(),
        rhs: rhs.into(),
        message: msg.into(),
        at: None,
    })
}

impl Cmp {
    fn new(options: EqualOptions) -> Cmp {
        Cmp {
            options,
            vars: HashMap::new(),
            vars_rev: HashMap::new(),
            syms: HashMap::new(),
            syms_rev: HashMap::new(),
        }
    }

    fn func(&mut self, a: &Function, b: &Function, path: &str) -> R {
        if a.params.len() != b.params.len() {
            return fail(
                &format!("{path}.params"),
                format!("{} parameters", a.params.len()),
                format!("{} parameters", b.params.len()),
                "different numbers of parameters",
            );
        }
        for (i, (x, y)) in a.params.iter().zip(&b.params).enumerate() {
            self.def_var(x, y, &format!("{path}.params[{i}]"))?;
        }
        self.sinfo(&a.ret, &b.ret, &format!("{path}.ret_struct_info"), true)?;
        if a.pure != b.pure {
            return fail(
                &format!("{path}.is_pure"),
                a.pure.to_string(),
                b.pure.to_string(),
                "purity differs",
            );
        }
        self.attrs(&a.attrs, &b.attrs, &format!("{path}.attrs"))?;
        self.seq(&a.body, &b.body, &format!("{path}.body"))
    }

    fn attrs(
        &mut self,
        a: &BTreeMap<String, AttrValue>,
        b: &BTreeMap<String, AttrValue>,
        path: &str,
    ) -> R {
        let skip = |k: &String| self.options.ignore_global_symbol && k == "global_symbol";
        let ka: Vec<&String> = a.keys().filter(|k| !skip(k)).collect();
        let kb: Vec<&String> = b.keys().filter(|k| !skip(k)).collect();
        if ka != kb {
            return fail(
                path,
                format!("{ka:?}"),
                format!("{kb:?}"),
                "attribute keys differ",
            );
        }
        for k in ka {
            let (x, y) = (&a[k], &b[k]);
            if !attr_equal(x, y) {
                return fail(
                    &format!("{path}[{k:?}]"),
                    format!("{x:?}"),
                    format!("{y:?}"),
                    "attribute values differ",
                );
            }
        }
        Ok(())
    }

    fn seq(&mut self, a: &SeqExpr, b: &SeqExpr, path: &str) -> R {
        if a.blocks.len() != b.blocks.len() {
            return fail(
                &format!("{path}.blocks"),
                format!("{} blocks", a.blocks.len()),
                format!("{} blocks", b.blocks.len()),
                "different numbers of binding blocks",
            );
        }
        for (i, (x, y)) in a.blocks.iter().zip(&b.blocks).enumerate() {
            self.block(x, y, &format!("{path}.blocks[{i}]"))?;
        }
        self.expr(&a.body, &b.body, &format!("{path}.body"))
    }

    fn block(&mut self, a: &BindingBlock, b: &BindingBlock, path: &str) -> R {
        if a.dataflow != b.dataflow {
            let kind = |d: bool| if d { "DataflowBlock" } else { "BindingBlock" };
            return fail(
                path,
                kind(a.dataflow),
                kind(b.dataflow),
                "block kinds differ",
            );
        }
        if a.bindings.len() != b.bindings.len() {
            return fail(
                &format!("{path}.bindings"),
                format!("{} bindings", a.bindings.len()),
                format!("{} bindings", b.bindings.len()),
                "different numbers of bindings",
            );
        }
        for (i, (x, y)) in a.bindings.iter().zip(&b.bindings).enumerate() {
            let p = format!("{path}.bindings[{i}]");
            self.expr(&x.value, &y.value, &format!("{p}.value"))?;
            self.def_var(&x.var, &y.var, &format!("{p}.var"))?;
        }
        Ok(())
    }

    fn def_var(&mut self, a: &Var, b: &Var, path: &str) -> R {
        if a.is_dataflow() != b.is_dataflow() {
            let kind = |d: bool| if d { "DataflowVar" } else { "Var" };
            return fail(
                path,
                kind(a.is_dataflow()),
                kind(b.is_dataflow()),
                "variable kinds differ",
            );
        }
        self.sinfo(a.sinfo(), b.sinfo(), &format!("{path}.struct_info"), true)?;
        if let Some(m) = self.vars.get(&a.id()) {
            if *m != b.id() {
                return fail(path, a.name(), b.name(), "lhs variable is redefined");
            }
        }
        self.vars.insert(a.id(), b.id());
        self.vars_rev.insert(b.id(), a.id());
        Ok(())
    }

    fn use_var(&mut self, a: &Var, b: &Var, path: &str) -> R {
        match (self.vars.get(&a.id()), self.vars_rev.get(&b.id())) {
            (Some(m), _) if *m == b.id() => Ok(()),
            (Some(_), _) | (_, Some(_)) => fail(
                path,
                a.name(),
                b.name(),
                "the variables correspond to different definitions",
            ),
            (None, None) => {
                if a.id() == b.id() {
                    return Ok(());
                }
                if self.options.map_free_vars && a.is_dataflow() == b.is_dataflow() {
                    self.vars.insert(a.id(), b.id());
                    self.vars_rev.insert(b.id(), a.id());
                    return Ok(());
                }
                fail(path, a.name(), b.name(), "different free variables")
            }
        }
    }

    /// Compares two dimensions; with `def`, unmapped symbolic variables are
    /// defined here (mapped in order of appearance).
    fn prim(&mut self, a: &PrimExpr, b: &PrimExpr, path: &str, def: bool) -> R {
        let mut va = Vec::new();
        a.walk(&mut |x| {
            if let Some(v) = x.as_var() {
                va.push(v.clone())
            }
        });
        let mut vb = Vec::new();
        b.walk(&mut |x| {
            if let Some(v) = x.as_var() {
                vb.push(v.clone())
            }
        });
        if va.len() == vb.len() {
            for (x, y) in va.iter().zip(&vb) {
                let known = self.syms.contains_key(&x.id()) || self.syms_rev.contains_key(&y.id());
                if !known && x.dtype() == y.dtype() && (def || self.options.map_free_vars) {
                    self.syms.insert(x.id(), y.clone());
                    self.syms_rev.insert(y.id(), x.id());
                }
            }
        }
        let map: HashMap<VarId, PrimExpr> =
            self.syms.iter().map(|(k, v)| (*k, v.to_expr())).collect();
        let a2 = substitute_expr(a, &map);
        if expr_deep_equal(&a2, b) {
            Ok(())
        } else {
            fail(
                path,
                relax_dim_text(a),
                relax_dim_text(b),
                "dimensions differ",
            )
        }
    }

    fn dims(&mut self, a: &[PrimExpr], b: &[PrimExpr], path: &str, def: bool) -> R {
        if a.len() != b.len() {
            return fail(
                path,
                format!("{} dimensions", a.len()),
                format!("{} dimensions", b.len()),
                "ranks differ",
            );
        }
        for (i, (x, y)) in a.iter().zip(b).enumerate() {
            self.prim(x, y, &format!("{path}[{i}]"), def)?;
        }
        Ok(())
    }

    fn sinfo(&mut self, a: &StructInfo, b: &StructInfo, path: &str, def: bool) -> R {
        let differ = || fail(path, a.describe(), b.describe(), "struct info differs");
        match (a, b) {
            (StructInfo::Object, StructInfo::Object) => Ok(()),
            (StructInfo::Prim(x), StructInfo::Prim(y)) if x == y => Ok(()),
            (StructInfo::Shape(x), StructInfo::Shape(y)) => {
                if x.ndim != y.ndim {
                    return differ();
                }
                match (&x.values, &y.values) {
                    (None, None) => Ok(()),
                    (Some(p), Some(q)) => self.dims(p, q, &format!("{path}.values"), def),
                    _ => differ(),
                }
            }
            (StructInfo::Tensor(x), StructInfo::Tensor(y)) => {
                if x.dtype != y.dtype || x.ndim != y.ndim {
                    return differ();
                }
                match (&x.shape, &y.shape) {
                    (None, None) => Ok(()),
                    (Some(p), Some(q)) => self.dims(p, q, &format!("{path}.shape"), def),
                    _ => differ(),
                }
            }
            (StructInfo::Tuple(x), StructInfo::Tuple(y)) => {
                if x.len() != y.len() {
                    return differ();
                }
                for (i, (p, q)) in x.iter().zip(y).enumerate() {
                    self.sinfo(p, q, &format!("{path}.fields[{i}]"), def)?;
                }
                Ok(())
            }
            (StructInfo::Func(x), StructInfo::Func(y)) => {
                if x.pure != y.pure {
                    return differ();
                }
                match (&x.params, &y.params) {
                    (None, None) => {}
                    (Some(p), Some(q)) if p.len() == q.len() => {
                        for (i, (s, t)) in p.iter().zip(q).enumerate() {
                            self.sinfo(s, t, &format!("{path}.params[{i}]"), def)?;
                        }
                    }
                    _ => return differ(),
                }
                self.sinfo(&x.ret, &y.ret, &format!("{path}.ret"), def)
            }
            _ => differ(),
        }
    }

    fn expr(&mut self, a: &Expr, b: &Expr, path: &str) -> R {
        let differ = |msg: &str| fail(path, print_graph_expr(a), print_graph_expr(b), msg);
        match (a.kind(), b.kind()) {
            (ExprKind::Var(x), ExprKind::Var(y)) => self.use_var(x, y, path),
            (ExprKind::Constant(x), ExprKind::Constant(y)) => {
                if x.dtype() != y.dtype() || x.shape() != y.shape() {
                    return differ("constants differ in dtype or shape");
                }
                let same = if x.dtype().is_float() {
                    x.to_f64_vec()
                        .iter()
                        .zip(y.to_f64_vec())
                        .all(|(p, q)| *p == q || (p.is_nan() && q.is_nan()))
                } else {
                    x.to_i64_vec() == y.to_i64_vec()
                };
                if same {
                    Ok(())
                } else {
                    differ("constants differ")
                }
            }
            (ExprKind::Tuple(x), ExprKind::Tuple(y)) => {
                if x.len() != y.len() {
                    return differ("tuples have different lengths");
                }
                for (i, (p, q)) in x.iter().zip(y).enumerate() {
                    self.expr(p, q, &format!("{path}.fields[{i}]"))?;
                }
                Ok(())
            }
            (ExprKind::TupleGetItem(x, i), ExprKind::TupleGetItem(y, j)) => {
                if i != j {
                    return differ("tuple indices differ");
                }
                self.expr(x, y, &format!("{path}.tuple_value"))
            }
            (ExprKind::Shape(x), ExprKind::Shape(y)) => {
                self.dims(x, y, &format!("{path}.values"), false)
            }
            (ExprKind::PrimValue(x), ExprKind::PrimValue(y)) => {
                self.prim(x, y, &format!("{path}.value"), false)
            }
            (ExprKind::Str(x), ExprKind::Str(y)) if x == y => Ok(()),
            (ExprKind::GlobalVar(x), ExprKind::GlobalVar(y)) if x == y => Ok(()),
            (ExprKind::ExternFunc(x), ExprKind::ExternFunc(y)) if x == y => Ok(()),
            (ExprKind::Call(x), ExprKind::Call(y)) => {
                match (&x.callee, &y.callee) {
                    (Callee::Op(p), Callee::Op(q)) => {
                        if p.script_name() != q.script_name() {
                            return differ("different operators");
                        }
                        if p != q {
                            return differ("operator attributes differ");
                        }
                    }
                    (Callee::Global(p), Callee::Global(q)) if p == q => {}
                    _ => return differ("different callees"),
                }
                if x.args.len() != y.args.len() {
                    return differ("different numbers of arguments");
                }
                for (i, (p, q)) in x.args.iter().zip(&y.args).enumerate() {
                    self.expr(p, q, &format!("{path}.args[{i}]"))?;
                }
                if x.sinfo_args.len() != y.sinfo_args.len() {
                    return differ("different struct info arguments");
                }
                for (i, (p, q)) in x.sinfo_args.iter().zip(&y.sinfo_args).enumerate() {
                    self.sinfo(p, q, &format!("{path}.sinfo_args[{i}]"), false)?;
                }
                Ok(())
            }
            _ => differ("different kinds of expressions"),
        }
    }
}

fn attr_equal(a: &AttrValue, b: &AttrValue) -> bool {
    match (a, b) {
        (AttrValue::Bool(x), AttrValue::Bool(y)) => x == y,
        (AttrValue::Int(x), AttrValue::Int(y)) => x == y,
        (AttrValue::Float(x), AttrValue::Float(y)) => x == y || (x.is_nan() && y.is_nan()),
        (AttrValue::Str(x), AttrValue::Str(y)) => x == y,
        (AttrValue::Expr(x), AttrValue::Expr(y)) => expr_deep_equal(x, y),
        (AttrValue::Array(x), AttrValue::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| attr_equal(p, q))
        }
        (AttrValue::Map(x), AttrValue::Map(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|((k1, v1), (k2, v2))| k1 == k2 && attr_equal(v1, v2))
        }
        _ => false,
    }
}
