//! Applying schedule calls by name: the one dispatcher behind trace replay,
//! schedule scripts written as Python text (`b0 = sch.get_block("C")` …, the
//! very text `print(sch.trace)` shows), and later the script interpreter.

use std::collections::HashMap;

use super::*;
use crate::diag::{Diagnostic, Span};
use crate::syntax::{self, ast};

/// A value passed to or returned from a schedule method.
#[derive(Clone, Debug, PartialEq)]
pub enum SchedValue {
    Rv(Rv),
    Int(i64),
    Float(f64),
    Bool(bool),
    Str(String),
    None,
    List(Vec<SchedValue>),
    /// Python source of an argument Tessel keeps as text (an index-map lambda).
    Source(String),
}

impl SchedValue {
    pub fn to_trace(&self) -> TraceArg {
        match self {
            SchedValue::Rv(r) => TraceArg::Rv(*r),
            SchedValue::Int(v) => TraceArg::Int(*v),
            SchedValue::Float(v) => TraceArg::Float(*v),
            SchedValue::Bool(v) => TraceArg::Bool(*v),
            SchedValue::Str(s) => TraceArg::Str(s.clone()),
            SchedValue::None => TraceArg::None,
            SchedValue::List(v) => TraceArg::List(v.iter().map(|x| x.to_trace()).collect()),
            SchedValue::Source(s) => TraceArg::Source(s.clone()),
        }
    }
    fn from_trace(t: &TraceArg, rvs: &HashMap<Rv, Rv>) -> SchedValue {
        match t {
            TraceArg::Rv(r) => SchedValue::Rv(*rvs.get(r).unwrap_or(r)),
            TraceArg::Int(v) => SchedValue::Int(*v),
            TraceArg::Float(v) => SchedValue::Float(*v),
            TraceArg::Bool(v) => SchedValue::Bool(*v),
            TraceArg::Str(s) => SchedValue::Str(s.clone()),
            TraceArg::None => SchedValue::None,
            TraceArg::List(v) => {
                SchedValue::List(v.iter().map(|x| SchedValue::from_trace(x, rvs)).collect())
            }
            TraceArg::Source(s) => SchedValue::Source(s.clone()),
        }
    }
}

/// Arguments of one call, positional and keyword, read with TVM's parameter names.
pub struct CallArgs<'a> {
    method: &'a str,
    positional: Vec<SchedValue>,
    keywords: Vec<(String, SchedValue)>,
    used: usize,
}

impl<'a> CallArgs<'a> {
    pub fn new(
        method: &'a str,
        positional: Vec<SchedValue>,
        keywords: Vec<(String, SchedValue)>,
    ) -> Self {
        CallArgs {
            method,
            positional,
            keywords,
            used: 0,
        }
    }
    fn err(&self, msg: impl Into<String>) -> ScheduleError {
        ScheduleError::new(self.method, msg)
    }
    /// The next parameter, by position or by name.
    pub fn get(&mut self, name: &str) -> Option<SchedValue> {
        if let Some(i) = self.keywords.iter().position(|(k, _)| k == name) {
            return Some(self.keywords.remove(i).1);
        }
        if self.used < self.positional.len() {
            self.used += 1;
            return Some(self.positional[self.used - 1].clone());
        }
        None
    }
    pub fn required(&mut self, name: &str) -> Result<SchedValue> {
        self.get(name)
            .ok_or_else(|| self.err(format!("missing argument `{name}`")))
    }
    /// All remaining positional arguments (`*loops`).
    pub fn rest(&mut self) -> Vec<SchedValue> {
        let v = self.positional[self.used.min(self.positional.len())..].to_vec();
        self.used = self.positional.len();
        v
    }
    pub fn finish(&self) -> Result<()> {
        if self.used < self.positional.len() {
            return Err(self.err(format!(
                "too many arguments ({} given)",
                self.positional.len()
            )));
        }
        if let Some((k, _)) = self.keywords.first() {
            return Err(self.err(format!("unexpected keyword argument `{k}`")));
        }
        Ok(())
    }
    pub fn block(&self, v: SchedValue) -> Result<BlockRV> {
        match v {
            SchedValue::Rv(Rv::Block(b)) => Ok(BlockRV(b)),
            other => Err(self.err(format!("expected a block, got {}", describe(&other)))),
        }
    }
    pub fn loop_(&self, v: SchedValue) -> Result<LoopRV> {
        match v {
            SchedValue::Rv(Rv::Loop(l)) => Ok(LoopRV(l)),
            other => Err(self.err(format!("expected a loop, got {}", describe(&other)))),
        }
    }
    pub fn int(&self, v: SchedValue) -> Result<i64> {
        match v {
            SchedValue::Int(i) => Ok(i),
            SchedValue::Bool(b) => Ok(b as i64),
            other => Err(self.err(format!("expected an integer, got {}", describe(&other)))),
        }
    }
    pub fn bool(&self, v: SchedValue) -> Result<bool> {
        match v {
            SchedValue::Bool(b) => Ok(b),
            SchedValue::Int(i) => Ok(i != 0),
            other => Err(self.err(format!("expected a bool, got {}", describe(&other)))),
        }
    }
    pub fn string(&self, v: SchedValue) -> Result<String> {
        match v {
            SchedValue::Str(s) => Ok(s),
            other => Err(self.err(format!("expected a string, got {}", describe(&other)))),
        }
    }
    pub fn list(&self, v: SchedValue) -> Result<Vec<SchedValue>> {
        match v {
            SchedValue::List(items) => Ok(items),
            other => Err(self.err(format!("expected a list, got {}", describe(&other)))),
        }
    }
}

fn describe(v: &SchedValue) -> String {
    match v {
        SchedValue::Rv(r) => format!("`{}`", r.name()),
        SchedValue::Int(i) => format!("the integer {i}"),
        SchedValue::Float(f) => format!("the float {f}"),
        SchedValue::Bool(b) => format!("{b}"),
        SchedValue::Str(s) => format!("the string {s:?}"),
        SchedValue::None => "None".into(),
        SchedValue::List(_) => "a list".into(),
        SchedValue::Source(s) => s.clone(),
    }
}

fn rvs<T: Into<Rv> + Copy>(v: &[T]) -> SchedValue {
    SchedValue::List(v.iter().map(|x| SchedValue::Rv((*x).into())).collect())
}

impl Schedule {
    /// Calls the primitive `method` with Python-style arguments.
    /// Calls the primitive `method` with Python-style arguments. A refusal
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
        let mut a = CallArgs::new(method, positional, keywords);
        let out = match method {
            "get_block" | "get_sblock" => {
                let name = a.required("name")?;
                let name = a.string(name)?;
                let func = match a.get("func_name") {
                    None | Some(SchedValue::None) => None,
                    Some(v) => Some(a.string(v)?),
                };
                a.finish()?;
                SchedValue::Rv(self.get_block(&name, func.as_deref())?.into())
            }
            "get_loops" => {
                let b = a.required("block")?;
                let b = self.block_or_name(&a, b)?;
                a.finish()?;
                rvs(&self.get_loops(b)?)
            }
            "get_child_blocks" => {
                let t = a.required("block_or_loop")?;
                let SchedValue::Rv(t) = t else {
                    return Err(a.err("expected a block or a loop"));
                };
                a.finish()?;
                rvs(&self.get_child_blocks(t)?)
            }
            "get_producers" | "get_consumers" => {
                let b = a.required("block")?;
                let b = self.block_or_name(&a, b)?;
                a.finish()?;
                let r = if method == "get_producers" {
                    self.get_producers(b)?
                } else {
                    self.get_consumers(b)?
                };
                rvs(&r)
            }
            "get_output_blocks" => {
                let b = a.required("block")?;
                let b = self.block_or_name(&a, b)?;
                a.finish()?;
                rvs(&self.get_output_blocks(b)?)
            }
            "work_on" => {
                let f = a.required("func_name")?;
                let f = a.string(f)?;
                a.finish()?;
                self.work_on(&f)?;
                SchedValue::None
            }
            "split" => {
                let l = a.required("loop")?;
                let l = a.loop_(l)?;
                let factors = a.required("factors")?;
                let factors = a
                    .list(factors)?
                    .into_iter()
                    .map(|f| match f {
                        SchedValue::None => Ok(Factor::Infer),
                        SchedValue::Int(c) => Ok(Factor::Const(c)),
                        SchedValue::Rv(Rv::Expr(e)) => Ok(Factor::Sampled(ExprRV(e))),
                        other => Err(a.err(format!(
                            "a split factor is None, an integer or a sampled value, not {}",
                            describe(&other)
                        ))),
                    })
                    .collect::<Result<Vec<_>>>()?;
                let preserve = match a.get("preserve_unit_iters") {
                    Some(v) => a.bool(v)?,
                    None => true,
                };
                if let Some(v) = a.get("disable_predication") {
                    if a.bool(v)? {
                        return Err(a.err("disable_predication=True is not supported"));
                    }
                }
                a.finish()?;
                rvs(&self.split(l, &factors, preserve)?)
            }
            "fuse" => {
                let preserve = match a.get_keyword("preserve_unit_iters") {
                    Some(v) => a.bool(v)?,
                    None => true,
                };
                let loops = a
                    .rest()
                    .into_iter()
                    .map(|v| a.loop_(v))
                    .collect::<Result<Vec<_>>>()?;
                a.finish()?;
                SchedValue::Rv(self.fuse(&loops, preserve)?.into())
            }
            "reorder" => {
                let loops = a
                    .rest()
                    .into_iter()
                    .map(|v| a.loop_(v))
                    .collect::<Result<Vec<_>>>()?;
                a.finish()?;
                self.reorder(&loops)?;
                SchedValue::None
            }
            "add_unit_loop" => {
                let t = a.required("block_or_loop")?;
                let SchedValue::Rv(t) = t else {
                    return Err(a.err("expected a block or a loop"));
                };
                a.finish()?;
                SchedValue::Rv(self.add_unit_loop(t)?.into())
            }
            "parallel" | "vectorize" | "unroll" => {
                let l = a.required("loop")?;
                let l = a.loop_(l)?;
                a.finish()?;
                match method {
                    "parallel" => self.parallel(l)?,
                    "vectorize" => self.vectorize(l)?,
                    _ => self.unroll(l)?,
                }
                SchedValue::None
            }
            "bind" => {
                let l = a.required("loop")?;
                let l = a.loop_(l)?;
                let t = a.required("thread_axis")?;
                let t = a.string(t)?;
                a.finish()?;
                self.bind(l, &t)?;
                SchedValue::None
            }
            "compute_inline" | "reverse_compute_inline" => {
                let b = a.required("block")?;
                let b = self.block_or_name(&a, b)?;
                a.finish()?;
                if method == "compute_inline" {
                    self.compute_inline(b)?;
                } else {
                    self.reverse_compute_inline(b)?;
                }
                SchedValue::None
            }
            "decompose_reduction" => {
                let b = a.required("block")?;
                let b = self.block_or_name(&a, b)?;
                let l = a.required("loop")?;
                let l = a.loop_(l)?;
                a.finish()?;
                SchedValue::Rv(self.decompose_reduction(b, l)?.into())
            }
            "blockize" => {
                let t = a.required("target")?;
                let preserve = match a.get("preserve_unit_iters") {
                    Some(v) => a.bool(v)?,
                    None => true,
                };
                a.finish()?;
                match t {
                    SchedValue::Rv(Rv::Loop(l)) => {
                        SchedValue::Rv(self.blockize(LoopRV(l), preserve)?.into())
                    }
                    SchedValue::List(_) => {
                        return Err(a.err(
                            "blockize of a list of blocks is not supported yet; blockize the loop above them",
                        ))
                    }
                    other => {
                        return Err(a.err(format!(
                            "expected a loop (or a list of blocks), got {}",
                            describe(&other)
                        )))
                    }
                }
            }
            "tensorize" => {
                let t = a.required("block_or_loop")?;
                let t = match t {
                    SchedValue::Rv(r @ (Rv::Block(_) | Rv::Loop(_))) => r,
                    SchedValue::Str(_) => self.block_or_name(&a, t)?.into(),
                    other => {
                        return Err(a.err(format!(
                            "expected a block or a loop, got {}",
                            describe(&other)
                        )))
                    }
                };
                let name = a.required("tensor_intrin")?;
                let name = a.string(name)?;
                let preserve = match a.get("preserve_unit_iters") {
                    Some(v) => a.bool(v)?,
                    None => true,
                };
                a.finish()?;
                self.tensorize(t, &name, preserve)?;
                SchedValue::None
            }
            "rfactor" => {
                let l = a.required("loop")?;
                let l = a.loop_(l)?;
                let f = a.required("factor_axis")?;
                let f = a.int(f)?;
                a.finish()?;
                SchedValue::Rv(self.rfactor(l, f)?.into())
            }
            "compute_at" | "reverse_compute_at" => {
                let b = a.required("block")?;
                let b = self.block_or_name(&a, b)?;
                let l = a.required("loop")?;
                let l = a.loop_(l)?;
                let preserve = match a.get("preserve_unit_loops") {
                    Some(v) => a.bool(v)?,
                    None => false,
                };
                let index = match a.get("index") {
                    Some(v) => a.int(v)?,
                    None => -1,
                };
                a.finish()?;
                if method == "compute_at" {
                    self.compute_at(b, l, preserve, index)?;
                } else {
                    self.reverse_compute_at(b, l, preserve, index)?;
                }
                SchedValue::None
            }
            "sample_perfect_tile" => {
                let l = a.required("loop")?;
                let l = a.loop_(l)?;
                let n = a.required("n")?;
                let n = a.int(n)?;
                let m = match a.get("max_innermost_factor") {
                    Some(v) => a.int(v)?,
                    None => 16,
                };
                let decision = match a.get("decision") {
                    None | Some(SchedValue::None) => None,
                    Some(v) => Some(
                        a.list(v)?
                            .into_iter()
                            .map(|x| a.int(x))
                            .collect::<Result<Vec<_>>>()?,
                    ),
                };
                a.finish()?;
                if n <= 0 {
                    return Err(a.err("n must be positive"));
                }
                rvs(&self.sample_perfect_tile(l, n as usize, m, decision.as_deref())?)
            }
            "sample_compute_location" => {
                let b = a.required("block")?;
                let b = self.block_or_name(&a, b)?;
                let decision = match a.get("decision") {
                    None | Some(SchedValue::None) => None,
                    Some(v) => Some(a.int(v)?),
                };
                a.finish()?;
                SchedValue::Rv(self.sample_compute_location(b, decision)?.into())
            }
            "sample_categorical" => {
                let c = a.required("candidates")?;
                let c = a
                    .list(c)?
                    .into_iter()
                    .map(|x| a.int(x))
                    .collect::<Result<Vec<_>>>()?;
                let p = a.required("probs")?;
                let p = a
                    .list(p)?
                    .into_iter()
                    .map(|x| match x {
                        SchedValue::Float(f) => Ok(f),
                        SchedValue::Int(i) => Ok(i as f64),
                        other => Err(a.err(format!(
                            "a probability is a number, not {}",
                            describe(&other)
                        ))),
                    })
                    .collect::<Result<Vec<_>>>()?;
                let decision = match a.get("decision") {
                    None | Some(SchedValue::None) => None,
                    Some(v) => Some(a.int(v)?),
                };
                a.finish()?;
                SchedValue::Rv(self.sample_categorical(&c, &p, decision)?.into())
            }
            "cache_read" | "cache_write" => {
                let b = a.required("block")?;
                let b = self.block_or_name(&a, b)?;
                let index_name = if method == "cache_read" {
                    "read_buffer_index"
                } else {
                    "write_buffer_index"
                };
                let i = a.required(index_name)?;
                let i = a.int(i)?;
                let scope = a.required("storage_scope")?;
                let scope = a.string(scope)?;
                let consumers = match a.get("consumer_blocks") {
                    None | Some(SchedValue::None) => Vec::new(),
                    Some(v) => a
                        .list(v)?
                        .into_iter()
                        .map(|x| a.block(x))
                        .collect::<Result<Vec<_>>>()?,
                };
                a.finish()?;
                let rv = if method == "cache_read" {
                    self.cache_read(b, i, &scope, &consumers)?
                } else {
                    self.cache_write(b, i, &scope, &consumers)?
                };
                SchedValue::Rv(rv.into())
            }
            "set_scope" => {
                let b = a.required("block")?;
                let b = self.block_or_name(&a, b)?;
                let i = a.required("buffer_index")?;
                let i = a.int(i)?;
                let scope = a.required("storage_scope")?;
                let scope = a.string(scope)?;
                a.finish()?;
                self.set_scope(b, i, &scope)?;
                SchedValue::None
            }
            "storage_align" => {
                let b = a.required("block")?;
                let b = self.block_or_name(&a, b)?;
                let mut ints = [0i64; 4];
                for (slot, name) in
                    ints.iter_mut()
                        .zip(["buffer_index", "axis", "factor", "offset"])
                {
                    let v = a.required(name)?;
                    *slot = a.int(v)?;
                }
                a.finish()?;
                self.storage_align(b, ints[0], ints[1], ints[2], ints[3])?;
                SchedValue::None
            }
            "transform_layout" => {
                let b = a.required("block")?;
                let b = self.block_or_name(&a, b)?;
                let buffer = a.required("buffer")?;
                let index_map = a.required("index_map")?;
                let pad_value = a.get("pad_value");
                let legacy_type = a.get_keyword("buffer_index_type");
                let injective = match a.get_keyword("assume_injective_transform") {
                    Some(v) => a.bool(v)?,
                    None => false,
                };
                a.finish()?;
                let sel =
                    layout::BufferSel::from_value(buffer, legacy_type).map_err(|m| a.err(m))?;
                let map_src = match index_map {
                    SchedValue::Source(s) | SchedValue::Str(s) => s,
                    other => {
                        return Err(a.err(format!(
                            "index_map must be a lambda, such as `lambda i, j: (j, i)`; got {}",
                            describe(&other)
                        )))
                    }
                };
                let pad = match pad_value {
                    None | Some(SchedValue::None) => None,
                    Some(SchedValue::Int(v)) => Some(v.to_string()),
                    Some(SchedValue::Float(v)) => Some(format!("{v:?}")),
                    Some(SchedValue::Source(s)) => Some(s),
                    Some(other) => {
                        return Err(a.err(format!(
                            "pad_value must be a number or a lambda, not {}",
                            describe(&other)
                        )))
                    }
                };
                self.transform_layout(b, sel, &map_src, pad.as_deref(), injective)?;
                SchedValue::None
            }
            "annotate" => {
                let t = a.required("block_or_loop")?;
                let SchedValue::Rv(t) = t else {
                    return Err(a.err("expected a block or a loop"));
                };
                let k = a.required("ann_key")?;
                let k = a.string(k)?;
                let v = a.required("ann_val")?;
                a.finish()?;
                let v = annotate::attr_from_value(&v).map_err(|m| a.err(m))?;
                self.annotate(t, &k, v)?;
                SchedValue::None
            }
            "unannotate" => {
                let t = a.required("block_or_loop")?;
                let SchedValue::Rv(t) = t else {
                    return Err(a.err("expected a block or a loop"));
                };
                let k = a.required("ann_key")?;
                let k = a.string(k)?;
                a.finish()?;
                self.unannotate(t, &k)?;
                SchedValue::None
            }
            other => {
                return Err(ScheduleError::new(
                    other,
                    format!("unknown schedule primitive `{other}`"),
                ))
            }
        };
        Ok(out)
    }

    /// A block argument, which TVM also accepts as a block name: the name is
    /// looked up with `get_block` (recorded in the trace, as TVM does).
    fn block_or_name(&mut self, a: &CallArgs, v: SchedValue) -> Result<BlockRV> {
        match v {
            SchedValue::Str(name) => self.get_block(&name, None),
            other => a.block(other),
        }
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
                let v = if inst.name == "sample_categorical"
                    || inst.name == "sample_compute_location"
                {
                    SchedValue::Int(d.first().copied().unwrap_or(0))
                } else {
                    SchedValue::List(d.iter().map(|x| SchedValue::Int(*x)).collect())
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

impl CallArgs<'_> {
    /// A keyword-only parameter (never taken from positional arguments).
    pub fn get_keyword(&mut self, name: &str) -> Option<SchedValue> {
        let i = self.keywords.iter().position(|(k, _)| k == name)?;
        Some(self.keywords.remove(i).1)
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
        d = d.with_note(format!(
            "the IR, with the offending statement marked:\n{ir}"
        ));
    }
    d
}
