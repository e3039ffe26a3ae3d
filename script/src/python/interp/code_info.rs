//! Which names a function body binds ([`CodeInfo::analyze`]) and whether
//! it yields: the scope analysis a `def` runs once.

use super::*;

impl CodeInfo {
    #[inline]
    pub fn slot(&self, name: &str) -> Option<usize> {
        self.locals.iter().position(|n| same_name(n, name))
    }

    /// Scope analysis of a function: parameters, then every other name the
    /// body binds, minus `global`/`nonlocal` declarations.
    pub fn analyze(params: &ast::Params, body: &[Stmt]) -> CodeInfo {
        let mut info = CodeInfo::default();
        for p in params.iter() {
            push_unique(&mut info.locals, &p.name);
        }
        let mut bound = Vec::new();
        for s in body {
            collect_stmt(s, &mut bound, &mut info.globals, &mut info.nonlocals);
        }
        for n in bound {
            if !info.globals.contains(&n) && !info.nonlocals.contains(&n) {
                push_unique(&mut info.locals, &n);
            }
        }
        info.generator = body.iter().any(stmt_yields);
        info
    }

    pub(super) fn lambda(params: &ast::Params) -> CodeInfo {
        let mut info = CodeInfo::default();
        for p in params.iter() {
            push_unique(&mut info.locals, &p.name);
        }
        info
    }
}

/// Does a statement (outside nested functions and classes) contain `yield`?
fn stmt_yields(s: &Stmt) -> bool {
    let any = |b: &[Stmt]| b.iter().any(stmt_yields);
    match &s.kind {
        StmtKind::Expr(e) | StmtKind::Return(Some(e)) => expr_yields(e),
        StmtKind::Assign { targets, value } => {
            expr_yields(value) || targets.iter().any(expr_yields)
        }
        StmtKind::AugAssign { value, .. } => expr_yields(value),
        StmtKind::AnnAssign { value: Some(v), .. } => expr_yields(v),
        StmtKind::If { test, body, orelse } | StmtKind::While { test, body, orelse } => {
            expr_yields(test) || any(body) || any(orelse)
        }
        StmtKind::For {
            iter, body, orelse, ..
        } => expr_yields(iter) || any(body) || any(orelse),
        StmtKind::With { items, body } => {
            items.iter().any(|i| expr_yields(&i.context)) || any(body)
        }
        StmtKind::Try {
            body,
            handlers,
            orelse,
            finalbody,
        } => any(body) || handlers.iter().any(|h| any(&h.body)) || any(orelse) || any(finalbody),
        _ => false,
    }
}

fn expr_yields(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Yield(_) | ExprKind::YieldFrom(_) => true,
        ExprKind::Lambda { .. } => false,
        ExprKind::BinOp { left, right, .. } => expr_yields(left) || expr_yields(right),
        ExprKind::UnaryOp { operand, .. } => expr_yields(operand),
        ExprKind::BoolOp { values, .. } => values.iter().any(expr_yields),
        ExprKind::Compare {
            left, comparators, ..
        } => expr_yields(left) || comparators.iter().any(expr_yields),
        ExprKind::Call { func, args } => {
            expr_yields(func)
                || args.iter().any(|a| match a {
                    ast::Arg::Positional(x) | ast::Arg::Starred(x) | ast::Arg::DoubleStarred(x) => {
                        expr_yields(x)
                    }
                    ast::Arg::Keyword(k) => expr_yields(&k.value),
                })
        }
        ExprKind::Attribute { value, .. } => expr_yields(value),
        ExprKind::Subscript { value, index } => expr_yields(value) || expr_yields(index),
        ExprKind::Tuple(items) | ExprKind::List(items) | ExprKind::Set(items) => {
            items.iter().any(expr_yields)
        }
        ExprKind::IfExp { test, body, orelse } => {
            expr_yields(test) || expr_yields(body) || expr_yields(orelse)
        }
        ExprKind::NamedExpr { value, .. } => expr_yields(value),
        ExprKind::Starred(x) => expr_yields(x),
        _ => false,
    }
}

fn push_unique(v: &mut Vec<String>, n: &str) {
    if !v.iter().any(|x| x == n) {
        v.push(n.to_string());
    }
}

pub(super) fn collect_target(e: &Expr, out: &mut Vec<String>) {
    match &e.kind {
        ExprKind::Name(n) => push_unique(out, n),
        ExprKind::Tuple(items) | ExprKind::List(items) => {
            for i in items {
                collect_target(i, out);
            }
        }
        ExprKind::Starred(inner) => collect_target(inner, out),
        _ => {}
    }
}

fn collect_stmt(
    s: &Stmt,
    out: &mut Vec<String>,
    globals: &mut Vec<String>,
    nonlocals: &mut Vec<String>,
) {
    let body = |b: &[Stmt], out: &mut Vec<String>, g: &mut Vec<String>, n: &mut Vec<String>| {
        for s in b {
            collect_stmt(s, out, g, n);
        }
    };
    match &s.kind {
        StmtKind::Assign { targets, .. } => {
            for t in targets {
                collect_target(t, out);
            }
        }
        StmtKind::AugAssign { target, .. } | StmtKind::AnnAssign { target, .. } => {
            collect_target(target, out)
        }
        StmtKind::For {
            target,
            body: b,
            orelse,
            ..
        } => {
            collect_target(target, out);
            body(b, out, globals, nonlocals);
            body(orelse, out, globals, nonlocals);
        }
        StmtKind::While {
            body: b, orelse, ..
        } => {
            body(b, out, globals, nonlocals);
            body(orelse, out, globals, nonlocals);
        }
        StmtKind::If {
            body: b, orelse, ..
        } => {
            body(b, out, globals, nonlocals);
            body(orelse, out, globals, nonlocals);
        }
        StmtKind::With { items, body: b } => {
            for i in items {
                if let Some(v) = &i.vars {
                    collect_target(v, out);
                }
            }
            body(b, out, globals, nonlocals);
        }
        StmtKind::Try {
            body: b,
            handlers,
            orelse,
            finalbody,
        } => {
            body(b, out, globals, nonlocals);
            for h in handlers {
                if let Some(n) = &h.name {
                    push_unique(out, &n.name);
                }
                body(&h.body, out, globals, nonlocals);
            }
            body(orelse, out, globals, nonlocals);
            body(finalbody, out, globals, nonlocals);
        }
        StmtKind::FunctionDef(d) => push_unique(out, &d.name),
        StmtKind::ClassDef(c) => push_unique(out, &c.name),
        StmtKind::Import(aliases) => {
            for a in aliases {
                match &a.asname {
                    Some(n) => push_unique(out, &n.name),
                    None => push_unique(out, a.name.name.split('.').next().unwrap_or("")),
                }
            }
        }
        StmtKind::ImportFrom { names, .. } => {
            for a in names {
                let n = a.asname.as_ref().unwrap_or(&a.name);
                if n.name != "*" {
                    push_unique(out, &n.name);
                }
            }
        }
        StmtKind::Delete(targets) => {
            for t in targets {
                collect_target(t, out);
            }
        }
        StmtKind::Global(names) => {
            for n in names {
                push_unique(globals, &n.name);
            }
        }
        StmtKind::Nonlocal(names) => {
            for n in names {
                push_unique(nonlocals, &n.name);
            }
        }
        _ => {}
    }
}
