//! Helpers for schedule tests: run schedule text on TVMScript, compare the
//! result with TVM's expected text structurally (names included), and show
//! IR compactly when they differ.

#![allow(dead_code)]

use std::collections::HashMap;
use std::fmt::Write as _;

use compiler_core::analysis::structural_equal::prim_func_equal;
use compiler_core::ir::*;
use compiler_core::schedule::replay::run_python;
use compiler_core::schedule::{Schedule, TraceDialect};
use compiler_core::tvmscript::builder::parse_script;
use compiler_core::tvmscript::printer::{print_module, Dialect, PrintOptions};

pub fn parse(src: &str) -> IRModule {
    match parse_script(src) {
        Ok(p) => p.to_module(),
        Err(d) => panic!("does not parse: {}\n{src}", d.message),
    }
}

pub fn only_func(m: &IRModule) -> std::rc::Rc<PrimFunc> {
    let funcs: Vec<_> = m.prim_funcs().collect();
    assert_eq!(funcs.len(), 1, "expected one function");
    funcs[0].1.clone()
}

/// Runs `sched` (Python schedule text) on `before`.
pub fn schedule(before: &str, sched: &str) -> Schedule {
    let mut sch = Schedule::new(parse(before)).expect("schedule");
    if let Err(d) = run_python(&mut sch, sched) {
        panic!("schedule failed: {}", d.message);
    }
    sch
}

/// Runs `sched` and returns the error message it must fail with; checks the
/// IR is unchanged.
pub fn schedule_err(before: &str, sched: &str) -> String {
    let mut sch = Schedule::new(parse(before)).expect("schedule");
    // Run all but the last statement, which must fail.
    let lines: Vec<&str> = sched.trim().lines().collect();
    let (last, prefix) = lines.split_last().expect("some schedule text");
    if let Err(d) = run_python(&mut sch, &prefix.join("\n")) {
        panic!("the setup failed: {}", d.message);
    }
    let before_fn = only_func(sch.module()).clone();
    let text = prefix.join("\n") + "\n" + last;
    let mut sch2 = Schedule::new(parse(before)).expect("schedule");
    match run_python(&mut sch2, &text) {
        Ok(_) => panic!(
            "expected an error from `{last}`, got:\n{}",
            show_func(&only_func(sch2.module()))
        ),
        Err(d) => {
            let after_fn = only_func(sch2.module());
            if let Err(e) = func_eq(&before_fn, &after_fn) {
                panic!("the failing primitive changed the IR: {e}");
            }
            d.message
        }
    }
}

/// Asserts the scheduled function equals the function in `expected`:
/// structurally with names (bindings, predicates, reads/writes) and with
/// TVM's structural equality.
pub fn assert_func(sch: &Schedule, expected: &str) {
    let ours = only_func(sch.module());
    let theirs = only_func(&parse(expected));
    if let Err(e) = func_eq(&ours, &theirs) {
        panic!(
            "mismatch: {e}\n--- ours:\n{}\n--- expected:\n{}",
            show_func(&ours),
            show_func(&theirs)
        );
    }
    if let Err(m) = prim_func_equal(&ours, &theirs) {
        panic!("structural_equal: {m:?}");
    }
}

/// Asserts the scheduled module prints as `expected` (a TVM printing of a
/// module, in the course dialect), ignoring header comments and blank lines.
pub fn assert_printed(sch: &Schedule, expected: &str) {
    let printed = print_module(sch.module(), &PrintOptions::new(Dialect::Block));
    let norm = |t: &str| -> String {
        t.lines()
            .filter(|l| !l.trim_start().starts_with("# from") && !l.trim().is_empty())
            .map(|l| l.trim_end())
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(
        norm(&printed),
        norm(expected),
        "printed text differs:\n{printed}"
    );
}

// ---------------------------------------------------------------------------
// Structural comparison with names.

#[derive(Default)]
struct Cmp {
    vars: HashMap<VarId, VarId>,
    bufs: HashMap<BufferId, BufferId>,
}

type R = Result<(), String>;

pub fn func_eq(a: &PrimFunc, b: &PrimFunc) -> R {
    let mut c = Cmp::default();
    if a.params.len() != b.params.len() {
        return Err("parameter count".into());
    }
    for (x, y) in a.params.iter().zip(&b.params) {
        c.vars.insert(x.id(), y.id());
    }
    for ((_, x), (_, y)) in a.buffer_map.iter().zip(&b.buffer_map) {
        c.buffer_def(x, y)?;
    }
    c.stmt(&a.body, &b.body)
}

impl Cmp {
    fn buffer_def(&mut self, a: &Buffer, b: &Buffer) -> R {
        // TVM prints a name that is not an identifier (`B.rf`) sanitised (`B_rf`).
        let printed = a.name.replace('.', "_");
        if (a.name != b.name && printed != b.name) || a.dtype != b.dtype || a.scope != b.scope {
            return Err(format!("buffer {:?} vs {:?}", a, b));
        }
        if a.shape.len() != b.shape.len() {
            return Err(format!("buffer shape {:?} vs {:?}", a.shape, b.shape));
        }
        self.bufs.insert(a.id(), b.id());
        for (x, y) in a.shape.iter().zip(&b.shape) {
            self.expr(x, y)?;
        }
        Ok(())
    }
    fn buffer(&self, a: &Buffer, b: &Buffer) -> R {
        match self.bufs.get(&a.id()) {
            Some(id) if *id == b.id() => Ok(()),
            _ => Err(format!("buffer `{}` vs `{}`", a.name, b.name)),
        }
    }
    fn var_def(&mut self, a: &Var, b: &Var) -> R {
        if !same_printed_name(a.name(), b.name()) || a.dtype() != b.dtype() {
            return Err(format!("variable {a:?} vs {b:?}"));
        }
        self.vars.insert(a.id(), b.id());
        Ok(())
    }
    fn expr(&self, a: &Expr, b: &Expr) -> R {
        let fail = || Err(format!("expr {} vs {}", show_expr(a), show_expr(b)));
        if a.dtype() != b.dtype() {
            return Err(format!(
                "dtype of {} ({}) vs {} ({})",
                show_expr(a),
                a.dtype(),
                show_expr(b),
                b.dtype()
            ));
        }
        match (a.kind(), b.kind()) {
            (ExprKind::Var(x), ExprKind::Var(y)) => match self.vars.get(&x.id()) {
                Some(id) if *id == y.id() => Ok(()),
                None if x.name() == y.name() => Ok(()),
                _ => fail(),
            },
            (ExprKind::Int(x), ExprKind::Int(y)) if x == y => Ok(()),
            (ExprKind::Float(x), ExprKind::Float(y)) if x == y => Ok(()),
            (ExprKind::Str(x), ExprKind::Str(y)) if x == y => Ok(()),
            (ExprKind::Binary(o1, a1, b1), ExprKind::Binary(o2, a2, b2)) if o1 == o2 => self
                .expr(a1, a2)
                .and_then(|_| self.expr(b1, b2))
                .or_else(|_| fail()),
            (ExprKind::Cmp(o1, a1, b1), ExprKind::Cmp(o2, a2, b2)) if o1 == o2 => self
                .expr(a1, a2)
                .and_then(|_| self.expr(b1, b2))
                .or_else(|_| fail()),
            (ExprKind::And(a1, b1), ExprKind::And(a2, b2))
            | (ExprKind::Or(a1, b1), ExprKind::Or(a2, b2)) => self
                .expr(a1, a2)
                .and_then(|_| self.expr(b1, b2))
                .or_else(|_| fail()),
            (ExprKind::Not(x), ExprKind::Not(y))
            | (ExprKind::Cast(x), ExprKind::Cast(y))
            | (ExprKind::Broadcast(x), ExprKind::Broadcast(y)) => self.expr(x, y),
            (
                ExprKind::Select {
                    cond: c1,
                    then: t1,
                    otherwise: o1,
                },
                ExprKind::Select {
                    cond: c2,
                    then: t2,
                    otherwise: o2,
                },
            ) => {
                self.expr(c1, c2)?;
                self.expr(t1, t2)?;
                self.expr(o1, o2)
            }
            (ExprKind::Call { op: p1, args: a1 }, ExprKind::Call { op: p2, args: a2 })
                if p1 == p2 && a1.len() == a2.len() =>
            {
                a1.iter().zip(a2).try_for_each(|(x, y)| self.expr(x, y))
            }
            (
                ExprKind::Load {
                    buffer: b1,
                    indices: i1,
                },
                ExprKind::Load {
                    buffer: b2,
                    indices: i2,
                },
            ) if i1.len() == i2.len() => {
                self.buffer(b1, b2)?;
                i1.iter().zip(i2).try_for_each(|(x, y)| self.expr(x, y))
            }
            _ => fail(),
        }
    }
    fn region(&self, a: &BufferRegion, b: &BufferRegion) -> R {
        self.buffer(&a.buffer, &b.buffer)?;
        if a.region.len() != b.region.len() {
            return Err("region rank".into());
        }
        for (x, y) in a.region.iter().zip(&b.region) {
            self.expr(&x.min, &y.min)
                .and_then(|_| self.expr(&x.extent, &y.extent))
                .map_err(|e| format!("region of `{}`: {e}", a.buffer.name))?;
        }
        Ok(())
    }
    fn stmt(&mut self, a: &Stmt, b: &Stmt) -> R {
        match (a.kind(), b.kind()) {
            (StmtKind::For(x), StmtKind::For(y)) => {
                self.expr(&x.min, &y.min)?;
                self.expr(&x.extent, &y.extent)
                    .map_err(|e| format!("extent of loop `{}`: {e}", x.loop_var.name()))?;
                if x.kind != y.kind || x.thread_tag != y.thread_tag {
                    return Err(format!("kind of loop `{}`", x.loop_var.name()));
                }
                self.var_def(&x.loop_var, &y.loop_var)?;
                self.stmt(&x.body, &y.body)
            }
            (StmtKind::BlockRealize(x), StmtKind::BlockRealize(y)) => {
                let (bx, by) = (&x.block, &y.block);
                if bx.name != by.name {
                    return Err(format!("block `{}` vs `{}`", bx.name, by.name));
                }
                let ctx = |e: String| format!("block `{}`: {e}", bx.name);
                if bx.iter_vars.len() != by.iter_vars.len() {
                    return Err(ctx("iterator count".into()));
                }
                for (i, j) in bx.iter_vars.iter().zip(&by.iter_vars) {
                    if i.kind != j.kind {
                        return Err(ctx(format!("kind of `{}`", i.var.name())));
                    }
                    self.expr(&i.dom.min, &j.dom.min).map_err(ctx)?;
                    self.expr(&i.dom.extent, &j.dom.extent).map_err(ctx)?;
                }
                for (v, w) in x.iter_values.iter().zip(&y.iter_values) {
                    self.expr(v, w).map_err(|e| ctx(format!("binding: {e}")))?;
                }
                self.expr(&x.predicate, &y.predicate)
                    .map_err(|e| ctx(format!("predicate: {e}")))?;
                for (i, j) in bx.iter_vars.iter().zip(&by.iter_vars) {
                    self.var_def(&i.var, &j.var).map_err(ctx)?;
                }
                if bx.alloc_buffers.len() != by.alloc_buffers.len() {
                    return Err(ctx("alloc_buffers".into()));
                }
                for (p, q) in bx.alloc_buffers.iter().zip(&by.alloc_buffers) {
                    self.buffer_def(p, q).map_err(ctx)?;
                }
                if bx.reads.len() != by.reads.len() || bx.writes.len() != by.writes.len() {
                    return Err(ctx(format!(
                        "reads/writes {} vs {}",
                        show_regions(bx),
                        show_regions(by)
                    )));
                }
                for (p, q) in bx
                    .reads
                    .iter()
                    .zip(&by.reads)
                    .chain(bx.writes.iter().zip(&by.writes))
                {
                    self.region(p, q).map_err(ctx)?;
                }
                let ka: Vec<_> = bx.annotations.keys().collect();
                let kb: Vec<_> = by.annotations.keys().collect();
                if ka != kb {
                    return Err(ctx("annotations".into()));
                }
                match (&bx.init, &by.init) {
                    (None, None) => {}
                    (Some(p), Some(q)) => self.stmt(p, q).map_err(ctx)?,
                    _ => return Err(ctx("init".into())),
                }
                self.stmt(&bx.body, &by.body)
            }
            (
                StmtKind::Store {
                    buffer: b1,
                    value: v1,
                    indices: i1,
                },
                StmtKind::Store {
                    buffer: b2,
                    value: v2,
                    indices: i2,
                },
            ) => {
                self.buffer(b1, b2)?;
                self.expr(v1, v2)?;
                if i1.len() != i2.len() {
                    return Err("store rank".into());
                }
                i1.iter().zip(i2).try_for_each(|(x, y)| self.expr(x, y))
            }
            (StmtKind::Seq(x), StmtKind::Seq(y)) => {
                if x.len() != y.len() {
                    return Err(format!("sequence of {} vs {} statements", x.len(), y.len()));
                }
                x.iter().zip(y).try_for_each(|(p, q)| self.stmt(p, q))
            }
            (StmtKind::Evaluate(x), StmtKind::Evaluate(y)) => self.expr(x, y),
            (
                StmtKind::If {
                    cond: c1,
                    then: t1,
                    otherwise: o1,
                },
                StmtKind::If {
                    cond: c2,
                    then: t2,
                    otherwise: o2,
                },
            ) => {
                self.expr(c1, c2)?;
                self.stmt(t1, t2)?;
                match (o1, o2) {
                    (None, None) => Ok(()),
                    (Some(p), Some(q)) => self.stmt(p, q),
                    _ => Err("else branch".into()),
                }
            }
            (
                StmtKind::Let {
                    var: v1,
                    value: e1,
                    body: b1,
                },
                StmtKind::Let {
                    var: v2,
                    value: e2,
                    body: b2,
                },
            ) => {
                self.expr(e1, e2)?;
                self.var_def(v1, v2)?;
                self.stmt(b1, b2)
            }
            _ => Err(format!(
                "statement kinds differ:\n{}\nvs\n{}",
                show_stmt(a),
                show_stmt(b)
            )),
        }
    }
}

/// TVM's printer renames a variable that shadows another of the same name
/// (`ax0` inside `ax0` prints as `ax0_1`); expected texts carry that suffix.
fn same_printed_name(ours: &str, printed: &str) -> bool {
    ours == printed
        || printed
            .strip_prefix(ours)
            .and_then(|rest| rest.strip_prefix('_'))
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|c| c.is_ascii_digit()))
}

// ---------------------------------------------------------------------------
// A compact TVMScript-like rendering, for failure messages.

pub fn show_expr(e: &Expr) -> String {
    match e.kind() {
        ExprKind::Var(v) => v.name().to_string(),
        ExprKind::Int(v) => {
            if e.dtype().is_bool() {
                (if *v != 0 { "True" } else { "False" }).into()
            } else if e.dtype() == DataType::i32() {
                v.to_string()
            } else {
                format!("T.{}({v})", e.dtype())
            }
        }
        ExprKind::Float(v) => format!("T.{}({v:?})", e.dtype()),
        ExprKind::Str(s) => format!("{s:?}"),
        ExprKind::Binary(op, a, b) => {
            let sym = match op {
                BinOp::Add => "+",
                BinOp::Sub => "-",
                BinOp::Mul => "*",
                BinOp::Div => "/",
                BinOp::Mod => "%%",
                BinOp::FloorDiv => "//",
                BinOp::FloorMod => "%",
                BinOp::Min => return format!("T.min({}, {})", show_expr(a), show_expr(b)),
                BinOp::Max => return format!("T.max({}, {})", show_expr(a), show_expr(b)),
            };
            format!("({} {sym} {})", show_expr(a), show_expr(b))
        }
        ExprKind::Cmp(op, a, b) => format!("{} {} {}", show_expr(a), op.symbol(), show_expr(b)),
        ExprKind::And(a, b) => format!("({} and {})", show_expr(a), show_expr(b)),
        ExprKind::Or(a, b) => format!("({} or {})", show_expr(a), show_expr(b)),
        ExprKind::Not(a) => format!("not {}", show_expr(a)),
        ExprKind::Cast(a) => format!("T.Cast({:?}, {})", e.dtype().to_string(), show_expr(a)),
        ExprKind::Select {
            cond,
            then,
            otherwise,
        } => format!(
            "T.Select({}, {}, {})",
            show_expr(cond),
            show_expr(then),
            show_expr(otherwise)
        ),
        ExprKind::Call { op, args } => format!(
            "T.{}({})",
            op.name(),
            args.iter().map(show_expr).collect::<Vec<_>>().join(", ")
        ),
        ExprKind::Load { buffer, indices } => format!(
            "{}[{}]",
            buffer.name,
            indices.iter().map(show_expr).collect::<Vec<_>>().join(", ")
        ),
        other => format!("{other:?}"),
    }
}

fn show_region(r: &BufferRegion) -> String {
    let dims: Vec<String> = r
        .region
        .iter()
        .map(|x| {
            if x.extent.is_const_int(1) {
                show_expr(&x.min)
            } else {
                format!(
                    "{}:{}+{}",
                    show_expr(&x.min),
                    show_expr(&x.min),
                    show_expr(&x.extent)
                )
            }
        })
        .collect();
    format!("{}[{}]", r.buffer.name, dims.join(", "))
}

fn show_regions(b: &Block) -> String {
    format!(
        "reads({}) writes({})",
        b.reads
            .iter()
            .map(show_region)
            .collect::<Vec<_>>()
            .join(", "),
        b.writes
            .iter()
            .map(show_region)
            .collect::<Vec<_>>()
            .join(", ")
    )
}

pub fn show_func(f: &PrimFunc) -> String {
    show_stmt(&f.body)
}

pub fn show_stmt(s: &Stmt) -> String {
    let mut out = String::new();
    go(s, 0, &mut out);
    out
}

fn go(s: &Stmt, ind: usize, out: &mut String) {
    let pad = "    ".repeat(ind);
    match s.kind() {
        StmtKind::For(l) => {
            let kind = match l.kind {
                ForKind::Serial => "range".to_string(),
                ForKind::ThreadBinding => {
                    format!(
                        "T.thread_binding[{}]",
                        l.thread_tag.as_deref().unwrap_or("")
                    )
                }
                k => format!("T.{}", k.script_name()),
            };
            let min = if l.min.is_const_int(0) {
                String::new()
            } else {
                format!("{}, ", show_expr(&l.min))
            };
            let _ = writeln!(
                out,
                "{pad}for {} in {kind}({min}{}):",
                l.loop_var.name(),
                show_expr(&l.extent)
            );
            go(&l.body, ind + 1, out);
        }
        StmtKind::BlockRealize(r) => {
            let b = &r.block;
            let _ = writeln!(out, "{pad}with T.block({:?}):", b.name);
            let p2 = "    ".repeat(ind + 1);
            for buf in &b.alloc_buffers {
                let _ = writeln!(
                    out,
                    "{p2}{} = T.alloc_buffer({:?}, {}, {})",
                    buf.name, buf.shape, buf.dtype, buf.scope
                );
            }
            for (iv, v) in b.iter_vars.iter().zip(&r.iter_values) {
                let _ = writeln!(
                    out,
                    "{p2}{} = T.axis.{}({}, {})",
                    iv.var.name(),
                    iv.kind.axis_name(),
                    show_expr(&iv.dom.extent),
                    show_expr(v)
                );
            }
            if !(r.predicate.is_const_int(1) && r.predicate.dtype().is_bool()) {
                let _ = writeln!(out, "{p2}T.where({})", show_expr(&r.predicate));
            }
            if !b.iter_vars.is_empty() {
                let _ = writeln!(out, "{p2}{}", show_regions(b));
            }
            if let Some(init) = &b.init {
                let _ = writeln!(out, "{p2}with T.init():");
                go(init, ind + 2, out);
            }
            go(&b.body, ind + 1, out);
        }
        StmtKind::Store {
            buffer,
            value,
            indices,
        } => {
            let _ = writeln!(
                out,
                "{pad}{}[{}] = {}",
                buffer.name,
                indices.iter().map(show_expr).collect::<Vec<_>>().join(", "),
                show_expr(value)
            );
        }
        StmtKind::Seq(v) => v.iter().for_each(|x| go(x, ind, out)),
        StmtKind::If {
            cond,
            then,
            otherwise,
        } => {
            let _ = writeln!(out, "{pad}if {}:", show_expr(cond));
            go(then, ind + 1, out);
            if let Some(o) = otherwise {
                let _ = writeln!(out, "{pad}else:");
                go(o, ind + 1, out);
            }
        }
        StmtKind::Evaluate(e) => {
            let _ = writeln!(out, "{pad}T.evaluate({})", show_expr(e));
        }
        other => {
            let _ = writeln!(out, "{pad}{other:?}");
        }
    }
}

/// A schedule case file (see tools/tvm_oracle/schedule_cases.py).
pub struct Case {
    pub before: String,
    pub schedule: String,
    pub expected: Option<String>,
    /// TVM's trace, one instruction per line.
    pub trace: Vec<String>,
    pub error: Option<String>,
}

impl Case {
    pub fn parse(text: &str) -> Case {
        let (before, rest) = text
            .split_once("# --- schedule")
            .expect("a schedule section");
        let (schedule, expected, error) = if let Some((s, e)) = rest.split_once("# --- expected") {
            (s, Some(e.to_string()), None)
        } else if let Some((s, e)) = rest.split_once("# --- error (Tessel only):") {
            (
                s,
                None,
                Some(e.lines().next().unwrap_or("").trim().to_string()),
            )
        } else if let Some((s, e)) = rest.split_once("# --- error:") {
            (
                s,
                None,
                Some(e.lines().next().unwrap_or("").trim().to_string()),
            )
        } else {
            panic!("no expected or error section")
        };
        let (expected, trace) = match expected {
            Some(e) => match e.split_once("# --- trace") {
                Some((e, t)) => (
                    Some(e.to_string()),
                    t.lines()
                        .filter_map(|l| l.strip_prefix("# "))
                        .map(str::to_string)
                        .collect(),
                ),
                None => (Some(e), Vec::new()),
            },
            None => (None, Vec::new()),
        };
        Case {
            before: before.to_string(),
            schedule: schedule.to_string(),
            expected,
            trace,
            error,
        }
    }

    /// Runs the schedule and checks the result (panics on mismatch).
    /// Returns whether the outputs were also compared numerically.
    pub fn check(&self) -> bool {
        if let Some(phrase) = &self.error {
            let msg = schedule_err(&self.before, &self.schedule);
            assert!(
                msg.contains(phrase.as_str()),
                "message {msg:?} lacks {phrase:?}"
            );
            return false;
        }
        let sch = schedule(&self.before, &self.schedule);
        let expected = self.expected.as_deref().unwrap_or("");
        assert_func(&sch, expected);
        assert_printed(&sch, expected);
        // The trace prints as TVM's, and replaying it gives the same function.
        let text = sch.trace().python(TraceDialect::Tir);
        let ours: Vec<&str> = text
            .lines()
            .filter(|l| l.starts_with("  "))
            .map(str::trim)
            .collect();
        assert_eq!(ours, self.trace, "the trace differs from TVM's");
        let again = schedule(&self.before, &text);
        assert_func(&again, expected);
        let before = only_func(&parse(&self.before));
        let after = only_func(sch.module());
        if self.before.contains("# numerics: differ") {
            // A TVM quirk reproduced on purpose: the result computes something else.
            let same = compare_outputs(&before, &after, 1);
            assert!(same.is_err(), "expected the outputs to differ (TVM quirk)");
            return true;
        }
        assert_same_outputs(&before, &after, 1) && assert_same_outputs(&before, &after, 2)
    }
}

/// Steps the interpreter may spend on one run before a numeric check is
/// skipped (1024^3 matmuls are checked structurally only).
pub const NUMERIC_STEP_BUDGET: u64 = 3_000_000;

/// Loop iterations of a function (constant extents; others count 16).
pub fn static_steps(s: &Stmt) -> u64 {
    match s.kind() {
        StmtKind::For(f) => {
            let n = f.extent.as_int().unwrap_or(16).max(0) as u64;
            n.saturating_mul(static_steps(&f.body).saturating_add(1))
        }
        _ => {
            let mut total = 0u64;
            s.for_each_child(|c| total = total.saturating_add(static_steps(c)));
            total.saturating_add(1)
        }
    }
}

/// Runs both functions on the same seeded random inputs and asserts every
/// buffer argument ends up the same (allclose); the transformed function
/// runs with region checking, so wrong `T.reads`/`T.writes` or iterators
/// leaving their domains fail too. Returns false when skipped (too large).
pub fn assert_same_outputs(before: &PrimFunc, after: &PrimFunc, seed: u64) -> bool {
    match compare_outputs(before, after, seed) {
        Ok(checked) => checked,
        Err(e) => panic!("{e}"),
    }
}

/// [`assert_same_outputs`] without panicking: `Err` describes the difference.
pub fn compare_outputs(before: &PrimFunc, after: &PrimFunc, seed: u64) -> Result<bool, String> {
    use compiler_core::eval::allclose;
    use compiler_core::eval::{random_inputs, run_prim_func, EvalOptions};
    if static_steps(&before.body) > NUMERIC_STEP_BUDGET
        || static_steps(&after.body) > NUMERIC_STEP_BUDGET
    {
        return Ok(false);
    }
    let inputs = random_inputs(before, seed, &HashMap::new()).map_err(|e| e.message)?;
    let mut a = inputs.clone();
    let mut b = inputs;
    let opts = EvalOptions {
        step_budget: Some(NUMERIC_STEP_BUDGET),
        check_regions: true,
        ..EvalOptions::default()
    };
    match run_prim_func(before, &mut a, &opts) {
        Ok(()) => {}
        Err(e) if e.message.contains("step budget") => return Ok(false),
        Err(e) => return Err(format!("the original function fails: {}", e.message)),
    }
    if let Err(e) = run_prim_func(after, &mut b, &opts) {
        return Err(format!(
            "the transformed function fails: {}\n{}",
            e.message,
            show_func(after)
        ));
    }
    for (i, (x, y)) in a.iter().zip(&b).enumerate() {
        if let Err(e) = allclose(x, y, 1e-5, 1e-6) {
            return Err(format!("argument {i} differs after the schedule: {e}"));
        }
    }
    Ok(true)
}

/// Whether some block before `name` (in program order) reads a buffer that
/// `name` writes: the schedule moved a producer past one of its consumers.
pub fn consumer_precedes(f: &PrimFunc, name: &str) -> bool {
    let mut blocks: Vec<Block> = Vec::new();
    f.body.walk(&mut |s| {
        if let StmtKind::BlockRealize(r) = s.kind() {
            blocks.push(r.block.clone());
        }
    });
    let Some(pos) = blocks.iter().position(|b| b.name == name) else {
        return false;
    };
    let written: Vec<BufferId> = blocks[pos].writes.iter().map(|w| w.buffer.id()).collect();
    blocks[..pos]
        .iter()
        .any(|b| b.reads.iter().any(|r| written.contains(&r.buffer.id())))
}
