//! Index maps (`lambda i, j: (i // 16, j // 16, i % 16, j % 16)`): read
//! from a schedule call's Python text, applied to indices and printed back as
//! TVM's trace prints them. `transform_layout`, its padding and `reindex`
//! take them.

use std::collections::HashMap;

use super::*;
use tessel_tir::arith::fold;
use tessel_tir::ir::mutate::substitute_expr;
use tessel_tir::syntax::{self, ast};

/// An index map: parameters and the expressions of them that give the new
/// indices (`lambda i, j: (i // 16, j // 16, i % 16, j % 16)`).
#[derive(Clone, Debug)]
pub struct IndexMap {
    pub params: Vec<Var>,
    pub results: Vec<Expr>,
}

impl IndexMap {
    /// Parses a Python lambda whose body is a tuple (or list, or single
    /// expression) of integer arithmetic over its parameters: names,
    /// integers and constants (`tirx.const(0, …)`, `T.int64(0)`),
    /// `+ - * // %`, unary minus. Operations fold the way TVM's Python
    /// operators do. [`IndexMap::parse_for`] also resolves the names of
    /// `outer` variables the lambda closes over.
    pub fn parse(src: &str, dtype: DataType) -> std::result::Result<IndexMap, String> {
        IndexMap::parse_for(src, dtype, None, &[])
    }

    /// The function's variables an index map may close over, as TVM's
    /// Python lambdas do: its scalar parameters and the sizes its buffers
    /// are declared with (`n` in `lambda i: (i // n, i % n)`).
    pub fn outer_vars(func: &PrimFunc) -> Vec<Var> {
        let mut out: Vec<Var> = func
            .params
            .iter()
            .filter(|p| func.param_buffer(p).is_none())
            .cloned()
            .collect();
        for (_, b) in &func.buffer_map {
            for e in &b.shape {
                e.walk(&mut |x| {
                    if let ExprKind::Var(v) = x.kind() {
                        if !out.contains(v) {
                            out.push(v.clone());
                        }
                    }
                });
            }
        }
        out
    }

    /// [`IndexMap::parse`] for a buffer of `ndim` dimensions, which also
    /// takes TVM's sugar of `*args` (the dimensions the other parameters
    /// leave, named `<args>_0`, `<args>_1`, …) followed by keyword-only
    /// parameters, and `*args` spread in the results.
    pub fn parse_for(
        src: &str,
        dtype: DataType,
        ndim: Option<usize>,
        outer: &[Var],
    ) -> std::result::Result<IndexMap, String> {
        let e = syntax::parse_expr(src)
            .map_err(|d| format!("cannot parse the index map: {}", d.message))?;
        let ast::ExprKind::Lambda { params, body } = &e.kind else {
            return Err("the index map must be a lambda, such as `lambda i, j: (j, i)`".into());
        };
        let sugar = params.vararg.is_some() && ndim.is_some();
        if params.kwarg.is_some()
            || (!sugar && (params.vararg.is_some() || !params.kwonly.is_empty()))
        {
            return Err("index map parameters must be plain names".into());
        }
        let mut vars = Vec::new();
        let mut env: HashMap<String, Var> = outer
            .iter()
            .map(|v| (v.name().to_string(), v.clone()))
            .collect();
        let mut spread: Option<(String, Vec<Var>)> = None;
        let positional: Vec<&ast::Param> = params.posonly.iter().chain(&params.args).collect();
        let mut add = |p: &ast::Param, vars: &mut Vec<Var>| -> std::result::Result<(), String> {
            if p.default.is_some() {
                return Err("index map parameters cannot have defaults".into());
            }
            let v = Var::new(p.name.clone(), dtype);
            env.insert(p.name.clone(), v.clone());
            vars.push(v);
            Ok(())
        };
        for p in &positional {
            add(p, &mut vars)?;
        }
        if let (Some(rest), Some(ndim)) = (&params.vararg, ndim) {
            let named = positional.len() + params.kwonly.len();
            let Some(count) = ndim.checked_sub(named) else {
                return Err(format!(
                    "the index map names {named} indices but the buffer has {ndim} dimension(s)"
                ));
            };
            let rest_vars: Vec<Var> = (0..count)
                .map(|k| Var::new(format!("{}_{k}", rest.name), dtype))
                .collect();
            vars.extend(rest_vars.iter().cloned());
            spread = Some((rest.name.clone(), rest_vars));
            for p in &params.kwonly {
                add(p, &mut vars)?;
            }
        }
        let items: Vec<&ast::Expr> = match &body.kind {
            ast::ExprKind::Tuple(items) | ast::ExprKind::List(items) => items.iter().collect(),
            _ => vec![body.as_ref()],
        };
        let mut results = Vec::new();
        for item in items {
            if let (ast::ExprKind::Starred(inner), Some((name, rest))) = (&item.kind, &spread) {
                if matches!(&inner.kind, ast::ExprKind::Name(n) if n == name) {
                    results.extend(rest.iter().map(|v| v.to_expr()));
                    continue;
                }
            }
            if let ast::ExprKind::Int(v) = item.kind {
                return Err(format!(
                    "Expected mapping function to return tvm.ir.Expr or a list of tvm.ir.Expr.  Instead received {v} of type <class 'int'>."
                ));
            }
            results.push(lambda_expr(item, &env, dtype, 0)?);
        }
        Ok(IndexMap {
            params: vars,
            results,
        })
    }

    /// `indices` mapped: the results with the parameters replaced.
    pub fn apply(&self, indices: &[Expr]) -> Vec<Expr> {
        let map: HashMap<VarId, Expr> = self
            .params
            .iter()
            .zip(indices)
            .map(|(p, e)| (p.id(), Expr::cast(p.dtype(), e.clone())))
            .collect();
        self.results
            .iter()
            .map(|r| substitute_expr(r, &map))
            .collect()
    }

    /// The map as TVM's trace prints it: `lambda i, j: (j, i,)`.
    pub fn python(&self) -> String {
        let params: Vec<&str> = self.params.iter().map(|v| v.name()).collect();
        let mut out = format!("lambda {}: (", params.join(", "));
        for r in &self.results {
            out.push_str(&tessel_tir::ir::printer::print_expr(r));
            out.push_str(", ");
        }
        if out.ends_with(", ") {
            out.truncate(out.len() - 1);
        }
        out.push(')');
        out
    }
}

pub(crate) fn lambda_expr(
    e: &ast::Expr,
    env: &HashMap<String, Var>,
    dtype: DataType,
    depth: u32,
) -> std::result::Result<Expr, String> {
    if depth > 200 {
        return Err("the index map is nested too deeply".into());
    }
    let binary = |op: BinOp, a: Expr, b: Expr| {
        fold::try_fold_binary(op, &a, &b).unwrap_or_else(|| Expr::binary(op, a, b))
    };
    match &e.kind {
        ast::ExprKind::Name(n) => env
            .get(n)
            .map(|v| v.to_expr())
            .ok_or_else(|| format!("`{n}` is not a parameter of the index map")),
        ast::ExprKind::Int(v) => Ok(Expr::int(*v, dtype)),
        // `tirx.const(0, i.ty.dtype)` or `T.int64(0)` (as traces print it):
        // a constant index, legalised to the map's index type as TVM does.
        ast::ExprKind::Call { func, args }
            if matches!(&func.kind, ast::ExprKind::Attribute { attr, .. }
                if attr == "const" || DataType::parse(attr).is_some_and(|d| d.is_int())) =>
        {
            match args.first() {
                Some(ast::Arg::Positional(x)) if matches!(x.kind, ast::ExprKind::Int(_)) => {
                    lambda_expr(x, env, dtype, depth + 1)
                }
                _ => Err("a constant in an index map must be an integer".into()),
            }
        }
        ast::ExprKind::UnaryOp { op: ast::UnaryOp::Neg, operand } => {
            let x = lambda_expr(operand, env, dtype, depth + 1)?;
            match x.as_int() {
                Some(v) => Ok(Expr::int(v.wrapping_neg(), dtype)),
                None => Ok(binary(BinOp::Mul, x, Expr::int(-1, dtype))),
            }
        }
        ast::ExprKind::UnaryOp { op: ast::UnaryOp::Pos, operand } => lambda_expr(operand, env, dtype, depth + 1),
        ast::ExprKind::BinOp { left, op, right } => {
            let op = match op {
                ast::BinOp::Add => BinOp::Add,
                ast::BinOp::Sub => BinOp::Sub,
                ast::BinOp::Mul => BinOp::Mul,
                ast::BinOp::FloorDiv => BinOp::FloorDiv,
                ast::BinOp::Mod => BinOp::FloorMod,
                other => {
                    return Err(format!(
                        "the operator `{}` is not supported in an index map (use + - * // %)",
                        other.as_str()
                    ))
                }
            };
            let a = lambda_expr(left, env, dtype, depth + 1)?;
            let b = lambda_expr(right, env, dtype, depth + 1)?;
            if matches!(op, BinOp::FloorDiv | BinOp::FloorMod) && b.is_const_int(0) {
                return Err("division by zero in the index map".into());
            }
            Ok(binary(op, a, b))
        }
        _ => Err("an index map result must be integer arithmetic (+ - * // %) of the parameters and integers".into()),
    }
}
