//! BindParams (`relax.transform.BindParams(func_name, params)`): the named
//! parameters of one graph function become constants.
//!
//! Invariants: each bound array must have the parameter's dtype and rank,
//! and every constant dimension must match; a symbolic dimension takes the
//! array's size everywhere in the function (struct infos, shapes, call
//! outputs). The parameter disappears from the signature; the other
//! parameters keep their order. A name that is not a parameter is an error
//! (TVM would silently ignore it, hiding a typo).

use std::collections::HashMap;
use std::rc::Rc;

use tessel_tir::eval::NDArray;
use tessel_tir::ir::mutate::substitute_expr;
use tessel_tir::ir::{BaseFunc, IRModule, VarId};

use super::super::ir::{
    Binding, BindingBlock, Call, Expr, ExprKind, Function, PrimExpr, SeqExpr, StructInfo, Var,
};
use super::{error, substitute, PassResult};

/// Binds `params` (by parameter name) in graph function `func_name`.
pub fn bind_params(
    module: &IRModule,
    func_name: &str,
    params: &HashMap<String, NDArray>,
) -> PassResult<IRModule> {
    let Some(func) = module.get_graph(func_name) else {
        return Err(error(
            format!("BindParams: the module has no graph function `{func_name}`"),
            Default::default(),
        ));
    };
    let mut names: Vec<&String> = params.keys().collect();
    tessel_ir::sort::ascending(&mut names);
    for n in names {
        if !func.params.iter().any(|p| p.name() == n) {
            return Err(error(
                format!("BindParams: `{func_name}` has no parameter named `{n}`"),
                func.span,
            ));
        }
    }
    let mut syms: HashMap<VarId, PrimExpr> = HashMap::new();
    let mut consts: HashMap<VarId, Expr> = HashMap::new();
    for p in &func.params {
        let Some(arr) = params.get(p.name()) else {
            continue;
        };
        let Some(t) = p.sinfo().as_tensor() else {
            return Err(error(
                format!("BindParams: parameter `{}` is not a tensor", p.name()),
                p.span(),
            ));
        };
        if let Some(d) = t.dtype {
            if d != arr.dtype() {
                return Err(error(
                    format!(
                        "BindParams: parameter `{}` has dtype {d}, the bound array {}",
                        p.name(),
                        arr.dtype()
                    ),
                    p.span(),
                ));
            }
        }
        if let Some(n) = t.ndim {
            if n != arr.ndim() {
                return Err(error(
                    format!(
                        "BindParams: parameter `{}` has {n} dimensions, the bound array {}",
                        p.name(),
                        arr.ndim()
                    ),
                    p.span(),
                ));
            }
        }
        for (i, (d, &size)) in t.shape.iter().flatten().zip(arr.shape()).enumerate() {
            let size = size as i64;
            let d = substitute_expr(d, &syms);
            match d.as_int() {
                Some(c) if c != size => {
                    return Err(error(
                        format!(
                            "BindParams: dimension {i} of parameter `{}` is {c}, the bound array has {size}",
                            p.name()
                        ),
                        p.span(),
                    ))
                }
                Some(_) => {}
                None => match d.as_var() {
                    Some(v) => {
                        syms.insert(v.id(), PrimExpr::int(size, v.dtype()));
                    }
                    None => {
                        return Err(error(
                            format!(
                                "BindParams: dimension {i} of parameter `{}` is the expression {}, which cannot be bound",
                                p.name(),
                                tessel_tir::ir::printer::describe_dim(&d)
                            ),
                            p.span(),
                        ))
                    }
                },
            }
        }
        consts.insert(p.id(), Expr::constant(arr.clone()).with_span(p.span()));
    }
    let new = rebuild(func, &consts, &syms);
    let mut out = module.clone();
    out.insert(func_name, BaseFunc::Graph(Rc::new(new)));
    Ok(out)
}

fn sinfo_subst(s: &StructInfo, syms: &HashMap<VarId, PrimExpr>) -> StructInfo {
    if syms.is_empty() {
        return s.clone();
    }
    s.map_dims(&mut |d| tessel_tir::arith::Analyzer::new().simplify(&substitute_expr(d, syms)))
}

fn prim_subst(e: &Expr, syms: &HashMap<VarId, PrimExpr>) -> Expr {
    if syms.is_empty() {
        return e.clone();
    }
    let kind = match e.kind() {
        ExprKind::Shape(v) => ExprKind::Shape(v.iter().map(|d| substitute_expr(d, syms)).collect()),
        ExprKind::PrimValue(v) => ExprKind::PrimValue(substitute_expr(v, syms)),
        ExprKind::Tuple(f) => ExprKind::Tuple(f.iter().map(|x| prim_subst(x, syms)).collect()),
        ExprKind::TupleGetItem(t, i) => ExprKind::TupleGetItem(prim_subst(t, syms), *i),
        ExprKind::Call(c) => ExprKind::Call(Call {
            callee: c.callee.clone(),
            args: c.args.iter().map(|a| prim_subst(a, syms)).collect(),
            sinfo_args: c.sinfo_args.iter().map(|s| sinfo_subst(s, syms)).collect(),
        }),
        _ => return e.clone(),
    };
    Expr::new(kind, e.span())
}

/// `func` without the parameters in `consts` (their uses replaced) and with
/// the symbolic dimensions in `syms` replaced everywhere.
fn rebuild(
    func: &Function,
    consts: &HashMap<VarId, Expr>,
    syms: &HashMap<VarId, PrimExpr>,
) -> Function {
    let mut map = consts.clone();
    let renew = |v: &Var, map: &mut HashMap<VarId, Expr>| -> Var {
        if syms.is_empty() {
            return v.clone();
        }
        let nv = Var::with(
            v.name(),
            sinfo_subst(v.sinfo(), syms),
            v.is_dataflow(),
            v.span(),
        );
        map.insert(v.id(), nv.to_expr());
        nv
    };
    let params: Vec<Var> = func
        .params
        .iter()
        .filter(|p| !consts.contains_key(&p.id()))
        .map(|p| renew(p, &mut map))
        .collect();
    let mut blocks = Vec::new();
    for b in &func.body.blocks {
        let mut bindings = Vec::new();
        for x in &b.bindings {
            let value = prim_subst(&substitute(&x.value, &map), syms);
            let var = renew(&x.var, &mut map);
            bindings.push(Binding {
                var,
                value,
                span: x.span,
            });
        }
        blocks.push(BindingBlock {
            bindings,
            dataflow: b.dataflow,
        });
    }
    let body = prim_subst(&substitute(&func.body.body, &map), syms);
    Function {
        params,
        body: SeqExpr { blocks, body },
        ret: sinfo_subst(&func.ret, syms),
        attrs: func.attrs.clone(),
        pure: func.pure,
        span: func.span,
    }
}
