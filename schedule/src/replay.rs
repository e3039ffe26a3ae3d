//! Applying schedule calls by name: the one dispatcher behind trace replay,
//! schedule scripts written as Python text (`b0 = sch.get_block("C")` …, the
//! very text `print(sch.trace)` shows), and the script interpreter. The
//! primitives and their parameters come from [`super::primitives`].

use std::collections::HashMap;

use super::*;
use tessel_tir::diag::{Diagnostic, Span};
use tessel_tir::syntax::{self, ast};

pub use super::value::SchedValue;

impl Schedule {
    /// Calls the primitive `method` with Python-style arguments, read with
    /// TVM's parameter names and defaults (see [`primitives`]). A refusal
    /// comes with the IR printed and the offending statement marked.
    pub fn call(
        &mut self,
        method: &str,
        positional: Vec<SchedValue>,
        keywords: Vec<(String, SchedValue)>,
    ) -> Result<SchedValue> {
        self.call_unexplained(method, positional, keywords)
            .map_err(|e| self.explain(e))
    }

    fn call_unexplained(
        &mut self,
        method: &str,
        positional: Vec<SchedValue>,
        keywords: Vec<(String, SchedValue)>,
    ) -> Result<SchedValue> {
        let Some(prim) = primitives::by_method(method) else {
            return Err(ScheduleError::not_found(
                method,
                format!("unknown schedule primitive `{method}`"),
            ));
        };
        let args = primitives::Args::bind(self, prim, method, positional, keywords)?;
        self.apply_traced(prim, args)
    }

    /// Replays `trace` on this schedule (usually a fresh one over the original
    /// module). Sampling decisions are kept unless `resample` is set.
    pub fn replay(&mut self, trace: &Trace, resample: bool) -> Result<()> {
        let mut map: HashMap<Rv, Rv> = HashMap::new();
        for inst in &trace.instructions {
            let mut positional = Vec::new();
            let mut keywords = Vec::new();
            for (k, v) in &inst.args {
                let v = SchedValue::from_trace(v, &map);
                if k.is_empty() {
                    positional.push(v);
                } else {
                    keywords.push((k.clone(), v));
                }
            }
            if let (Some(d), false) = (&inst.decision, resample) {
                let as_list =
                    primitives::by_method(&inst.name).is_none_or(|p| p.decision_is_list());
                let v = if as_list {
                    SchedValue::List(d.iter().map(|x| SchedValue::Int(*x)).collect())
                } else {
                    SchedValue::Int(d.first().copied().unwrap_or(0))
                };
                keywords.push(("decision".into(), v));
            }
            let out = self.call(&inst.name, positional, keywords)?;
            let produced: Vec<Rv> = match out {
                SchedValue::Rv(r) => vec![r],
                SchedValue::List(items) => items
                    .into_iter()
                    .filter_map(|x| {
                        if let SchedValue::Rv(r) = x {
                            Some(r)
                        } else {
                            None
                        }
                    })
                    .collect(),
                _ => vec![],
            };
            for (old, new) in inst.outputs.iter().zip(produced) {
                map.insert(*old, new);
            }
        }
        Ok(())
    }
}

/// Runs schedule calls written as Python (`b0 = sch.get_block("C")` …), or a
/// whole `def apply_trace(sch): …`, on `sch`. Returns the variables the text
/// defined. Errors carry the span of the failing statement.
pub fn run_python(
    sch: &mut Schedule,
    src: &str,
) -> std::result::Result<HashMap<String, SchedValue>, Diagnostic> {
    let module = syntax::parse_module(src)?;
    let mut env: HashMap<String, SchedValue> = HashMap::new();
    let mut body: Vec<&ast::Stmt> = Vec::new();
    for stmt in &module.body {
        match &stmt.kind {
            ast::StmtKind::FunctionDef(def) if def.name == "apply_trace" => {
                body.extend(def.body.iter())
            }
            _ => body.push(stmt),
        }
    }
    for stmt in body {
        run_stmt(sch, &mut env, src, stmt)?;
    }
    Ok(env)
}

fn run_stmt(
    sch: &mut Schedule,
    env: &mut HashMap<String, SchedValue>,
    src: &str,
    stmt: &ast::Stmt,
) -> std::result::Result<(), Diagnostic> {
    match &stmt.kind {
        ast::StmtKind::Import(_) | ast::StmtKind::ImportFrom { .. } | ast::StmtKind::Pass => Ok(()),
        ast::StmtKind::Expr(e) => {
            if matches!(e.kind, ast::ExprKind::Str(_)) {
                return Ok(());
            }
            eval(sch, env, src, e).map(|_| ())
        }
        ast::StmtKind::Assign { targets, value } => {
            let v = eval(sch, env, src, value)?;
            for t in targets {
                bind(env, t, v.clone())?;
            }
            Ok(())
        }
        _ => Err(Diagnostic::error(
            "only assignments and `sch.…(…)` calls are allowed in a schedule script",
            stmt.span,
        )),
    }
}

fn bind(
    env: &mut HashMap<String, SchedValue>,
    target: &ast::Expr,
    v: SchedValue,
) -> std::result::Result<(), Diagnostic> {
    match &target.kind {
        ast::ExprKind::Name(n) => {
            env.insert(n.clone(), v);
            Ok(())
        }
        ast::ExprKind::Tuple(items) | ast::ExprKind::List(items) => {
            let SchedValue::List(vals) = v else {
                return Err(Diagnostic::error(
                    "cannot unpack a single value",
                    target.span,
                ));
            };
            if vals.len() != items.len() {
                return Err(Diagnostic::error(
                    format!(
                        "expected {} values to unpack, got {}",
                        items.len(),
                        vals.len()
                    ),
                    target.span,
                ));
            }
            for (t, x) in items.iter().zip(vals) {
                bind(env, t, x)?;
            }
            Ok(())
        }
        _ => Err(Diagnostic::error("cannot assign to this", target.span)),
    }
}

fn eval(
    sch: &mut Schedule,
    env: &HashMap<String, SchedValue>,
    src: &str,
    e: &ast::Expr,
) -> std::result::Result<SchedValue, Diagnostic> {
    Ok(match &e.kind {
        ast::ExprKind::Int(v) => SchedValue::Int(*v),
        ast::ExprKind::Float(v) => SchedValue::Float(*v),
        ast::ExprKind::Bool(v) => SchedValue::Bool(*v),
        ast::ExprKind::Str(s) => SchedValue::Str(s.clone()),
        ast::ExprKind::NoneLit => SchedValue::None,
        ast::ExprKind::UnaryOp {
            op: ast::UnaryOp::Neg,
            operand,
        } => match eval(sch, env, src, operand)? {
            SchedValue::Int(v) => SchedValue::Int(-v),
            SchedValue::Float(v) => SchedValue::Float(-v),
            _ => return Err(Diagnostic::error("cannot negate this", e.span)),
        },
        ast::ExprKind::Name(n) => env
            .get(n)
            .cloned()
            .ok_or_else(|| Diagnostic::error(format!("undefined name `{n}`"), e.span))?,
        ast::ExprKind::List(items) | ast::ExprKind::Tuple(items) => SchedValue::List(
            items
                .iter()
                .map(|i| eval(sch, env, src, i))
                .collect::<std::result::Result<_, _>>()?,
        ),
        // Index maps (`lambda i, j: (j, i)`) and dictionaries (annotation
        // values) travel as their source text; the primitive parses them.
        ast::ExprKind::Subscript { value, index } => {
            let SchedValue::List(items) = eval(sch, env, src, value)? else {
                return Err(Diagnostic::error("only lists can be indexed", value.span));
            };
            let n = items.len() as i64;
            let mut int_of = |e: &ast::Expr| -> std::result::Result<i64, Diagnostic> {
                match eval(sch, env, src, e)? {
                    SchedValue::Int(i) => Ok(i),
                    _ => Err(Diagnostic::error("an index is an integer", e.span)),
                }
            };
            // Python's rules: negative indices count from the end; slices clamp.
            let norm = |i: i64| if i < 0 { (i + n).max(0) } else { i.min(n) };
            match &index.kind {
                ast::ExprKind::Slice {
                    lower,
                    upper,
                    step: None,
                } => {
                    let lo = match lower {
                        Some(l) => norm(int_of(l)?),
                        None => 0,
                    };
                    let hi = match upper {
                        Some(u) => norm(int_of(u)?),
                        None => n,
                    };
                    SchedValue::List(
                        items
                            .get(lo as usize..hi.max(lo) as usize)
                            .unwrap_or_default()
                            .to_vec(),
                    )
                }
                ast::ExprKind::Slice { .. } => {
                    return Err(Diagnostic::error(
                        "slices with a step are not supported here",
                        index.span,
                    ))
                }
                _ => {
                    let i = int_of(index)?;
                    let k = if i < 0 { i + n } else { i };
                    if k < 0 || k >= n {
                        return Err(Diagnostic::error(
                            format!("IndexError: list index {i} out of range (length {n})"),
                            index.span,
                        ));
                    }
                    items[k as usize].clone()
                }
            }
        }
        ast::ExprKind::Lambda { .. } | ast::ExprKind::Dict(_) => {
            let text = src
                .get(e.span.start as usize..e.span.end as usize)
                .unwrap_or_default();
            SchedValue::Source(text.to_string())
        }
        ast::ExprKind::Call { func, args } => {
            let ast::ExprKind::Attribute {
                value,
                attr,
                attr_span,
            } = &func.kind
            else {
                return Err(Diagnostic::error(
                    "expected a call of a schedule method, `sch.…(…)`",
                    func.span,
                ));
            };
            if value.as_name().is_none() {
                return Err(Diagnostic::error("expected `sch.…(…)`", value.span));
            }
            let mut positional = Vec::new();
            let mut keywords = Vec::new();
            for a in args {
                match a {
                    ast::Arg::Positional(x) => positional.push(eval(sch, env, src, x)?),
                    ast::Arg::Keyword(k) => {
                        keywords.push((k.name.clone(), eval(sch, env, src, &k.value)?))
                    }
                    ast::Arg::Starred(x) => match eval(sch, env, src, x)? {
                        SchedValue::List(items) => positional.extend(items),
                        _ => return Err(Diagnostic::error("`*` needs a list", x.span)),
                    },
                    other => return Err(Diagnostic::error("unsupported argument", other.span())),
                }
            }
            sch.call(attr, positional, keywords)
                .map_err(|err| schedule_diagnostic(&err, e.span, *attr_span))?
        }
        _ => {
            return Err(Diagnostic::error(
                "unsupported expression in a schedule script",
                e.span,
            ))
        }
    })
}

/// A schedule error as a diagnostic at the failing call.
pub fn schedule_diagnostic(err: &ScheduleError, call: Span, method: Span) -> Diagnostic {
    let mut d = Diagnostic::error(format!("{}: {}", err.primitive, err.message), call)
        .with_label(method, "this primitive refused");
    if let Some(ir) = &err.marked_ir {
        d = d.with_marked_code("the IR, with the offending statement marked:", ir.as_str());
    }
    d
}
