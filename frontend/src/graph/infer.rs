//! Struct-info deduction for expressions, and the compatibility checks the
//! builder applies to annotations and calls.

use std::collections::HashMap;

use tessel_tir::ir::mutate::substitute_expr;
use tessel_tir::ir::{ExprKind as PrimKind, IRModule, VarId};

use super::ir::{Callee, Expr, ExprKind, FuncInfo, PrimExpr, StructInfo, TensorInfo};
use super::op::{infer_op, prove_equal, shape_sinfo};
use tessel_tir::ir::printer::describe_dim;

/// What inference needs to know about the module: the struct info of a
/// global function (`R.Callable`), by name.
pub trait Globals {
    fn global_sinfo(&self, name: &str) -> Option<StructInfo>;
}

impl Globals for IRModule {
    fn global_sinfo(&self, name: &str) -> Option<StructInfo> {
        match self.get(name)? {
            tessel_tir::ir::BaseFunc::Graph(f) => Some(f.sinfo()),
            tessel_tir::ir::BaseFunc::Prim(_) => Some(StructInfo::Func(FuncInfo {
                params: None,
                ret: Box::new(StructInfo::Object),
                pure: false,
            })),
        }
    }
}

/// No globals (for expressions that do not refer to the module).
pub struct NoGlobals;

impl Globals for NoGlobals {
    fn global_sinfo(&self, _: &str) -> Option<StructInfo> {
        None
    }
}

/// The struct info of an expression. Variables carry theirs; calls are
/// inferred from their arguments.
pub fn expr_sinfo(e: &Expr, globals: &dyn Globals) -> Result<StructInfo, String> {
    match e.kind() {
        ExprKind::Var(v) => Ok(v.sinfo().clone()),
        ExprKind::Constant(a) => Ok(StructInfo::Tensor(TensorInfo::new(
            a.shape().iter().map(|&d| PrimExpr::i64(d as i64)).collect(),
            Some(a.dtype()),
        ))),
        ExprKind::Tuple(fields) => Ok(StructInfo::Tuple(
            fields
                .iter()
                .map(|f| expr_sinfo(f, globals))
                .collect::<Result<_, _>>()?,
        )),
        ExprKind::TupleGetItem(t, i) => match expr_sinfo(t, globals)? {
            StructInfo::Tuple(fields) => fields.get(*i).cloned().ok_or_else(|| {
                format!(
                    "tuple index {i} is out of range: the tuple has {} fields",
                    fields.len()
                )
            }),
            StructInfo::Object => Ok(StructInfo::Object),
            other => Err(format!(
                "only tuples can be indexed, but this is {}",
                other.describe()
            )),
        },
        ExprKind::Shape(values) => Ok(shape_sinfo(values)),
        ExprKind::PrimValue(v) => Ok(StructInfo::Prim(v.dtype())),
        ExprKind::Str(_) => Ok(StructInfo::Object),
        ExprKind::GlobalVar(g) => Ok(globals.global_sinfo(g.name()).unwrap_or(StructInfo::Object)),
        ExprKind::ExternFunc(_) => Ok(StructInfo::Func(FuncInfo {
            params: None,
            ret: Box::new(StructInfo::Object),
            pure: false,
        })),
        ExprKind::Call(call) => {
            let args: Vec<StructInfo> = call
                .args
                .iter()
                .map(|a| expr_sinfo(a, globals))
                .collect::<Result<_, _>>()?;
            match &call.callee {
                Callee::Op(op) => infer_op(op, &args, &call.sinfo_args),
                Callee::Global(g) => match globals.global_sinfo(g.name()) {
                    Some(StructInfo::Func(fi)) => derive_call_ret(g.name(), &fi, &args),
                    Some(_) | None => {
                        Err(format!("`{}` is not a function of the module", g.name()))
                    }
                },
            }
        }
    }
}

/// The result of calling a function of struct info `fi` on arguments of
/// struct info `args`: the parameters' symbolic dimensions are matched
/// against the arguments' and substituted into the return struct info.
pub fn derive_call_ret(
    name: &str,
    fi: &FuncInfo,
    args: &[StructInfo],
) -> Result<StructInfo, String> {
    let Some(params) = &fi.params else {
        return Ok((*fi.ret).clone());
    };
    if params.len() != args.len() {
        return Err(format!(
            "`{name}` takes {} argument{}, but {} were given",
            params.len(),
            if params.len() == 1 { "" } else { "s" },
            args.len()
        ));
    }
    let mut binding: HashMap<VarId, PrimExpr> = HashMap::new();
    for (i, (p, a)) in params.iter().zip(args).enumerate() {
        match_sinfo(p, a, &mut binding)
            .map_err(|m| format!("argument {} of `{name}`: {m}", i + 1))?;
    }
    Ok(substitute_sinfo(&fi.ret, &binding))
}

/// Binds the symbolic variables of `param` to the dimensions of `arg` and
/// checks the rest for compatibility.
fn match_sinfo(
    param: &StructInfo,
    arg: &StructInfo,
    binding: &mut HashMap<VarId, PrimExpr>,
) -> Result<(), String> {
    match (param, arg) {
        (StructInfo::Object, _) => Ok(()),
        (StructInfo::Tensor(p), StructInfo::Tensor(a)) => {
            if let (Some(pd), Some(ad)) = (p.dtype, a.dtype) {
                if pd != ad {
                    return Err(format!("expected dtype {pd}, got {ad}"));
                }
            }
            if let (Some(pn), Some(an)) = (p.ndim, a.ndim) {
                if pn != an {
                    return Err(format!("expected a {pn}-d tensor, got a {an}-d tensor"));
                }
            }
            if let (Some(ps), Some(as_)) = (&p.shape, &a.shape) {
                match_dims(ps, as_, binding)?;
            }
            Ok(())
        }
        (StructInfo::Shape(p), StructInfo::Shape(a)) => {
            if let (Some(ps), Some(as_)) = (&p.values, &a.values) {
                if ps.len() != as_.len() {
                    return Err(format!(
                        "expected a shape of {} dimensions, got {}",
                        ps.len(),
                        as_.len()
                    ));
                }
                match_dims(ps, as_, binding)?;
            }
            Ok(())
        }
        (StructInfo::Tuple(p), StructInfo::Tuple(a)) => {
            if p.len() != a.len() {
                return Err(format!(
                    "expected a tuple of {} fields, got {}",
                    p.len(),
                    a.len()
                ));
            }
            for (x, y) in p.iter().zip(a) {
                match_sinfo(x, y, binding)?;
            }
            Ok(())
        }
        (StructInfo::Prim(p), StructInfo::Prim(a)) if p == a => Ok(()),
        (StructInfo::Func(_), StructInfo::Func(_)) => Ok(()),
        (p, StructInfo::Object) => Err(format!("expected {}, got an object", p.describe())),
        (p, a) => Err(format!("expected {}, got {}", p.describe(), a.describe())),
    }
}

fn match_dims(
    ps: &[PrimExpr],
    as_: &[PrimExpr],
    binding: &mut HashMap<VarId, PrimExpr>,
) -> Result<(), String> {
    if ps.len() != as_.len() {
        return Err(format!(
            "expected a {}-d tensor, got a {}-d tensor",
            ps.len(),
            as_.len()
        ));
    }
    for (i, (p, a)) in ps.iter().zip(as_).enumerate() {
        if let PrimKind::Var(v) = p.kind() {
            if let Some(bound) = binding.get(&v.id()) {
                if !prove_equal(bound, a) && provably_unequal(bound, a) {
                    return Err(format!(
                        "dimension {i} is {}, but `{}` was already bound to {}",
                        describe_dim(a),
                        v.name(),
                        describe_dim(bound)
                    ));
                }
            } else {
                binding.insert(v.id(), a.clone());
            }
            continue;
        }
        let p = substitute_expr(p, binding);
        if provably_unequal(&p, a) {
            return Err(format!(
                "dimension {i} must be {}, but it is {}",
                describe_dim(&p),
                describe_dim(a)
            ));
        }
    }
    Ok(())
}

fn provably_unequal(a: &PrimExpr, b: &PrimExpr) -> bool {
    matches!((a.as_int(), b.as_int()), (Some(x), Some(y)) if x != y)
}

/// `sinfo` with its symbolic variables replaced.
pub fn substitute_sinfo(sinfo: &StructInfo, map: &HashMap<VarId, PrimExpr>) -> StructInfo {
    if map.is_empty() {
        return sinfo.clone();
    }
    sinfo.map_dims(&mut |d| {
        let e = substitute_expr(d, map);
        if e.as_int().is_some() {
            e
        } else {
            tessel_tir::arith::Analyzer::new().simplify(&e)
        }
    })
}

/// Checks that a value of struct info `deduced` may be bound to a variable
/// annotated with `annotated`: they must not provably disagree (dtype, rank,
/// constant dimensions, tuple arity). TVM accepts an annotation that is more
/// or less precise than what it deduces, and the variable takes the
/// annotation.
pub fn check_compatible(annotated: &StructInfo, deduced: &StructInfo) -> Result<(), String> {
    match (annotated, deduced) {
        (StructInfo::Object, _) | (_, StructInfo::Object) => Ok(()),
        (StructInfo::Tensor(a), StructInfo::Tensor(d)) => {
            if let (Some(x), Some(y)) = (a.dtype, d.dtype) {
                if x != y {
                    return Err(format!("the dtype is {y}, not {x}"));
                }
            }
            if let (Some(x), Some(y)) = (a.ndim, d.ndim) {
                if x != y {
                    return Err(format!("the value has {y} dimensions, not {x}"));
                }
            }
            if let (Some(x), Some(y)) = (&a.shape, &d.shape) {
                for (i, (p, q)) in x.iter().zip(y).enumerate() {
                    if provably_unequal(p, q) {
                        return Err(format!(
                            "dimension {i} is {}, not {}",
                            describe_dim(q),
                            describe_dim(p)
                        ));
                    }
                }
            }
            Ok(())
        }
        (StructInfo::Shape(a), StructInfo::Shape(d)) => {
            if let (Some(x), Some(y)) = (a.ndim, d.ndim) {
                if x != y {
                    return Err(format!("the shape has {y} dimensions, not {x}"));
                }
            }
            Ok(())
        }
        (StructInfo::Tuple(a), StructInfo::Tuple(d)) => {
            if a.len() != d.len() {
                return Err(format!("the tuple has {} fields, not {}", d.len(), a.len()));
            }
            for (i, (x, y)) in a.iter().zip(d).enumerate() {
                check_compatible(x, y).map_err(|m| format!("field {i}: {m}"))?;
            }
            Ok(())
        }
        (StructInfo::Prim(a), StructInfo::Prim(d)) if a == d => Ok(()),
        (StructInfo::Func(_), StructInfo::Func(_)) => Ok(()),
        (a, d) => Err(format!(
            "the value is {}, not {}",
            d.describe(),
            a.describe()
        )),
    }
}
