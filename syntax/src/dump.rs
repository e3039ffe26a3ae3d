//! A compact, stable text form of the AST, for tests and debugging.
//!
//! Statements are printed one per line with bodies indented by two spaces;
//! expressions as S-expressions, except that names, literals and dotted
//! attribute chains print as written (`T.Buffer`, `128`, `"float32"`):
//!
//! ```text
//! def f(A: (call T.Buffer (tuple 128 128) "float32")) -> None
//!   assign Y = (+ (sub A (tuple vi vk)) 1)
//! ```
//!
//! The dump recurses once per level of the tree; trees produced by the
//! parser are bounded in depth (see [`super::MAX_DEPTH`]).

use super::ast::*;
use std::fmt::Write as _;

/// Dumps a module, one statement per line.
pub fn dump_module(module: &Module) -> String {
    let mut out = String::new();
    for stmt in &module.body {
        stmt_into(&mut out, stmt, 0);
    }
    out
}

/// Dumps a single statement (and its body), ending with a newline.
pub fn dump_stmt(stmt: &Stmt) -> String {
    let mut out = String::new();
    stmt_into(&mut out, stmt, 0);
    out
}

/// Dumps an expression as an S-expression.
pub fn dump_expr(expr: &Expr) -> String {
    let mut out = String::new();
    expr_into(&mut out, expr);
    out
}

fn line(out: &mut String, indent: usize, text: &str) {
    for _ in 0..indent {
        out.push_str("  ");
    }
    out.push_str(text);
    out.push('\n');
}

fn body(out: &mut String, stmts: &[Stmt], indent: usize) {
    for s in stmts {
        stmt_into(out, s, indent);
    }
}

fn else_body(out: &mut String, label: &str, stmts: &[Stmt], indent: usize) {
    if !stmts.is_empty() {
        line(out, indent, label);
        body(out, stmts, indent + 1);
    }
}

fn stmt_into(out: &mut String, stmt: &Stmt, indent: usize) {
    // Only the block statements recurse; keep their path free of the
    // formatting temporaries of the simple statements (stack use per level
    // matters: see the module docs).
    match &stmt.kind {
        StmtKind::FunctionDef(f) => function_into(out, f, indent),
        StmtKind::ClassDef(c) => class_into(out, c, indent),
        StmtKind::If {
            test,
            body: b,
            orelse,
        } => {
            header(out, indent, "if ", test, "");
            body(out, b, indent + 1);
            else_body(out, "else", orelse, indent);
        }
        StmtKind::For {
            target,
            iter,
            body: b,
            orelse,
        } => {
            for_header(out, target, iter, indent);
            body(out, b, indent + 1);
            else_body(out, "else", orelse, indent);
        }
        StmtKind::While {
            test,
            body: b,
            orelse,
        } => {
            header(out, indent, "while ", test, "");
            body(out, b, indent + 1);
            else_body(out, "else", orelse, indent);
        }
        StmtKind::With { items, body: b } => {
            with_header(out, items, indent);
            body(out, b, indent + 1);
        }
        StmtKind::Try {
            body: b,
            handlers,
            orelse,
            finalbody,
        } => {
            line(out, indent, "try");
            body(out, b, indent + 1);
            for h in handlers {
                handler_header(out, h, indent);
                body(out, &h.body, indent + 1);
            }
            else_body(out, "else", orelse, indent);
            else_body(out, "finally", finalbody, indent);
        }
        _ => simple_stmt_into(out, stmt, indent),
    }
}

/// `{indent}{prefix}{expr}{suffix}\n`
fn header(out: &mut String, indent: usize, prefix: &str, e: &Expr, suffix: &str) {
    for _ in 0..indent {
        out.push_str("  ");
    }
    out.push_str(prefix);
    expr_into(out, e);
    out.push_str(suffix);
    out.push('\n');
}

fn for_header(out: &mut String, target: &Expr, iter: &Expr, indent: usize) {
    line(
        out,
        indent,
        &format!("for {} in {}", dump_expr(target), dump_expr(iter)),
    );
}

fn function_into(out: &mut String, f: &FunctionDef, indent: usize) {
    let mut s = format!("def {}({})", f.name, params(&f.params));
    if let Some(r) = &f.returns {
        let _ = write!(s, " -> {}", dump_expr(r));
    }
    for d in &f.decorators {
        let _ = write!(s, " @{}", dump_expr(d));
    }
    line(out, indent, &s);
    body(out, &f.body, indent + 1);
}

fn class_into(out: &mut String, c: &ClassDef, indent: usize) {
    let mut s = format!("class {}", c.name);
    if !c.bases.is_empty() || !c.keywords.is_empty() {
        let mut args: Vec<String> = c.bases.iter().map(dump_expr).collect();
        args.extend(
            c.keywords
                .iter()
                .map(|k| format!("{}={}", k.name, dump_expr(&k.value))),
        );
        let _ = write!(s, "({})", args.join(" "));
    }
    for d in &c.decorators {
        let _ = write!(s, " @{}", dump_expr(d));
    }
    line(out, indent, &s);
    body(out, &c.body, indent + 1);
}

fn with_header(out: &mut String, items: &[WithItem], indent: usize) {
    let items: Vec<String> = items
        .iter()
        .map(|i| match &i.vars {
            Some(v) => format!("{} as {}", dump_expr(&i.context), dump_expr(v)),
            None => dump_expr(&i.context),
        })
        .collect();
    line(out, indent, &format!("with {}", items.join(", ")));
}

fn handler_header(out: &mut String, h: &ExceptHandler, indent: usize) {
    let mut s = String::from("except");
    if let Some(t) = &h.type_ {
        let _ = write!(s, " {}", dump_expr(t));
    }
    if let Some(n) = &h.name {
        let _ = write!(s, " as {}", n.name);
    }
    line(out, indent, &s);
}

fn simple_stmt_into(out: &mut String, stmt: &Stmt, indent: usize) {
    let text = match &stmt.kind {
        StmtKind::Expr(e) => format!("expr {}", dump_expr(e)),
        StmtKind::Assign { targets, value } => {
            let mut s = String::from("assign ");
            for t in targets {
                s.push_str(&dump_expr(t));
                s.push_str(" = ");
            }
            s.push_str(&dump_expr(value));
            s
        }
        StmtKind::AugAssign { target, op, value } => format!(
            "augassign {} {}= {}",
            dump_expr(target),
            op.as_str(),
            dump_expr(value)
        ),
        StmtKind::AnnAssign {
            target,
            annotation,
            value,
        } => {
            let mut s = format!("annassign {}: {}", dump_expr(target), dump_expr(annotation));
            if let Some(v) = value {
                let _ = write!(s, " = {}", dump_expr(v));
            }
            s
        }
        StmtKind::Return(Some(v)) => format!("return {}", dump_expr(v)),
        StmtKind::Return(None) => "return".into(),
        StmtKind::Break => "break".into(),
        StmtKind::Continue => "continue".into(),
        StmtKind::Pass => "pass".into(),
        StmtKind::Import(names) => format!("import {}", aliases(names)),
        StmtKind::ImportFrom {
            module,
            names,
            level,
        } => {
            let dots = ".".repeat(*level as usize);
            let module = module.as_ref().map_or("", |m| m.name.as_str());
            format!("from {dots}{module} import {}", aliases(names))
        }
        StmtKind::Assert { test, msg } => {
            let mut s = format!("assert {}", dump_expr(test));
            if let Some(m) = msg {
                let _ = write!(s, ", {}", dump_expr(m));
            }
            s
        }
        StmtKind::Raise { exc, cause } => {
            let mut s = String::from("raise");
            if let Some(e) = exc {
                let _ = write!(s, " {}", dump_expr(e));
            }
            if let Some(c) = cause {
                let _ = write!(s, " from {}", dump_expr(c));
            }
            s
        }
        StmtKind::Delete(targets) => {
            let t: Vec<String> = targets.iter().map(dump_expr).collect();
            format!("del {}", t.join(", "))
        }
        StmtKind::Global(names) | StmtKind::Nonlocal(names) => {
            let kw = if matches!(stmt.kind, StmtKind::Global(_)) {
                "global"
            } else {
                "nonlocal"
            };
            let n: Vec<&str> = names.iter().map(|i| i.name.as_str()).collect();
            format!("{kw} {}", n.join(", "))
        }
        StmtKind::Magic(text) => format!("magic {text:?}"),
        // Block statements are handled by `stmt_into`.
        _ => String::new(),
    };
    line(out, indent, &text);
}

fn aliases(names: &[Alias]) -> String {
    let v: Vec<String> = names
        .iter()
        .map(|a| match &a.asname {
            Some(n) => format!("{} as {}", a.name.name, n.name),
            None => a.name.name.clone(),
        })
        .collect();
    v.join(", ")
}

fn param(p: &Param, prefix: &str) -> String {
    let mut s = format!("{prefix}{}", p.name);
    if let Some(a) = &p.annotation {
        let _ = write!(s, ": {}", dump_expr(a));
    }
    if let Some(d) = &p.default {
        let _ = write!(s, " = {}", dump_expr(d));
    }
    s
}

fn params(p: &Params) -> String {
    let mut v: Vec<String> = p.posonly.iter().map(|x| param(x, "")).collect();
    if !p.posonly.is_empty() {
        v.push("/".into());
    }
    v.extend(p.args.iter().map(|x| param(x, "")));
    match &p.vararg {
        Some(x) => v.push(param(x, "*")),
        None if !p.kwonly.is_empty() => v.push("*".into()),
        None => {}
    }
    v.extend(p.kwonly.iter().map(|x| param(x, "")));
    if let Some(x) = &p.kwarg {
        v.push(param(x, "**"));
    }
    v.join(", ")
}

fn list(out: &mut String, head: &str, items: &[Expr]) {
    out.push('(');
    out.push_str(head);
    for e in items {
        out.push(' ');
        expr_into(out, e);
    }
    out.push(')');
}

fn generators(out: &mut String, gens: &[Comprehension]) {
    for g in gens {
        out.push_str(" (for ");
        expr_into(out, &g.target);
        out.push(' ');
        expr_into(out, &g.iter);
        for c in &g.ifs {
            out.push_str(" (if ");
            expr_into(out, c);
            out.push(')');
        }
        out.push(')');
    }
}

fn fstring_parts(out: &mut String, parts: &[FStringPart]) {
    for p in parts {
        out.push(' ');
        match p {
            FStringPart::Literal(s) => {
                let _ = write!(out, "{s:?}");
            }
            FStringPart::Field(f) => {
                out.push('{');
                expr_into(out, &f.expr);
                if let Some(d) = &f.debug_text {
                    let _ = write!(out, " ={d:?}");
                }
                if let Some(c) = f.conversion {
                    let _ = write!(out, " !{c}");
                }
                if let Some(spec) = &f.format_spec {
                    out.push_str(" :(spec");
                    fstring_parts(out, spec);
                    out.push(')');
                }
                out.push('}');
            }
        }
    }
}

/// True if the expression dumps without spaces or parentheses.
fn is_simple(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Name(_) | ExprKind::Int(_) => true,
        ExprKind::Attribute { value, .. } => is_simple(value),
        _ => false,
    }
}

fn expr_into(out: &mut String, e: &Expr) {
    // The recursive arms only push string slices: formatting temporaries
    // live in `leaf_into` and the other helpers, off the recursion path.
    match &e.kind {
        ExprKind::BoolOp { op, values } => {
            let head = match op {
                BoolOp::And => "and",
                BoolOp::Or => "or",
            };
            list(out, head, values);
        }
        ExprKind::BinOp { left, op, right } => {
            out.push('(');
            out.push_str(op.as_str());
            out.push(' ');
            expr_into(out, left);
            out.push(' ');
            expr_into(out, right);
            out.push(')');
        }
        ExprKind::UnaryOp { op, operand } => {
            out.push_str(match op {
                UnaryOp::Not => "(not ",
                UnaryOp::Neg => "(neg ",
                UnaryOp::Pos => "(pos ",
                UnaryOp::Invert => "(~ ",
            });
            expr_into(out, operand);
            out.push(')');
        }
        ExprKind::Compare {
            left,
            ops,
            comparators,
        } => {
            out.push_str("(cmp ");
            expr_into(out, left);
            for (op, c) in ops.iter().zip(comparators) {
                out.push(' ');
                out.push_str(op.as_str());
                out.push(' ');
                expr_into(out, c);
            }
            out.push(')');
        }
        ExprKind::Call { func, args } => {
            out.push_str("(call ");
            expr_into(out, func);
            for a in args {
                out.push(' ');
                match a {
                    Arg::Positional(e) | Arg::Starred(e) => expr_into(out, e),
                    Arg::Keyword(k) => {
                        out.push_str(&k.name);
                        out.push('=');
                        expr_into(out, &k.value);
                    }
                    Arg::DoubleStarred(e) => {
                        out.push_str("**");
                        expr_into(out, e);
                    }
                }
            }
            out.push(')');
        }
        ExprKind::Attribute { value, attr, .. } => {
            if is_simple(value) {
                expr_into(out, value);
                out.push('.');
                out.push_str(attr);
            } else {
                out.push_str("(. ");
                expr_into(out, value);
                out.push(' ');
                out.push_str(attr);
                out.push(')');
            }
        }
        ExprKind::Subscript { value, index } => {
            out.push_str("(sub ");
            expr_into(out, value);
            out.push(' ');
            expr_into(out, index);
            out.push(')');
        }
        ExprKind::Slice { lower, upper, step } => {
            out.push_str("(slice");
            for part in [lower, upper, step] {
                out.push(' ');
                match part {
                    Some(p) => expr_into(out, p),
                    None => out.push('_'),
                }
            }
            out.push(')');
        }
        ExprKind::Starred(inner) => {
            out.push_str("(* ");
            expr_into(out, inner);
            out.push(')');
        }
        ExprKind::Tuple(items) => list(out, "tuple", items),
        ExprKind::List(items) => list(out, "list", items),
        ExprKind::Set(items) => list(out, "set", items),
        ExprKind::Dict(items) => {
            out.push_str("(dict");
            for (k, v) in items {
                out.push_str(" (");
                match k {
                    Some(k) => expr_into(out, k),
                    None => out.push_str("**"),
                }
                out.push(' ');
                expr_into(out, v);
                out.push(')');
            }
            out.push(')');
        }
        ExprKind::ListComp { elt, generators: g }
        | ExprKind::SetComp { elt, generators: g }
        | ExprKind::GeneratorExp { elt, generators: g } => {
            out.push_str(match &e.kind {
                ExprKind::ListComp { .. } => "(listcomp ",
                ExprKind::SetComp { .. } => "(setcomp ",
                _ => "(genexp ",
            });
            expr_into(out, elt);
            generators(out, g);
            out.push(')');
        }
        ExprKind::DictComp {
            key,
            value,
            generators: g,
        } => {
            out.push_str("(dictcomp ");
            expr_into(out, key);
            out.push(' ');
            expr_into(out, value);
            generators(out, g);
            out.push(')');
        }
        ExprKind::IfExp { test, body, orelse } => {
            out.push_str("(if ");
            expr_into(out, test);
            out.push(' ');
            expr_into(out, body);
            out.push(' ');
            expr_into(out, orelse);
            out.push(')');
        }
        ExprKind::Lambda { params: p, body } => {
            out.push_str("(lambda (");
            out.push_str(&params(p));
            out.push_str(") ");
            expr_into(out, body);
            out.push(')');
        }
        ExprKind::NamedExpr { target, value } => {
            out.push_str("(:= ");
            expr_into(out, target);
            out.push(' ');
            expr_into(out, value);
            out.push(')');
        }
        ExprKind::Yield(v) => {
            out.push_str("(yield");
            if let Some(v) = v {
                out.push(' ');
                expr_into(out, v);
            }
            out.push(')');
        }
        ExprKind::YieldFrom(v) => {
            out.push_str("(yield-from ");
            expr_into(out, v);
            out.push(')');
        }
        ExprKind::FString(parts) => {
            out.push_str("(f");
            fstring_parts(out, parts);
            out.push(')');
        }
        _ => leaf_into(out, e),
    }
}

/// Expressions without sub-expressions.
fn leaf_into(out: &mut String, e: &Expr) {
    match &e.kind {
        ExprKind::Name(n) => out.push_str(n),
        ExprKind::Int(v) => {
            let _ = write!(out, "{v}");
        }
        ExprKind::Float(v) => {
            let _ = write!(out, "{v:?}");
        }
        ExprKind::Imag(v) => {
            let _ = write!(out, "{v:?}j");
        }
        ExprKind::Str(s) => {
            let _ = write!(out, "{s:?}");
        }
        ExprKind::Bytes(b) => {
            let _ = write!(out, "b\"{}\"", b.escape_ascii());
        }
        ExprKind::Bool(b) => out.push_str(if *b { "True" } else { "False" }),
        ExprKind::NoneLit => out.push_str("None"),
        ExprKind::Ellipsis => out.push_str("..."),
        _ => out.push_str("<?>"),
    }
}
