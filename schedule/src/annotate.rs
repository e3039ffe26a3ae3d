//! Annotations: `annotate` and `unannotate` on blocks and loops, and
//! `unsafe_hide_buffer_access` and `annotate_buffer_access` on a block's
//! declared regions.
//!
//! As in TVM 0.27: values are integers, floats, strings, booleans, lists of
//! them and string-keyed dictionaries; a block's annotations print as
//! `T.block_attr({...})`, a loop's as `annotations={...}` (a loop with
//! annotations no longer folds into `T.grid`). Annotating a key that is
//! already present keeps the old value (TVM 0.27 does not overwrite it,
//! though the trace records the call). `unannotate` of a missing key is an
//! error. The trace writes booleans as `0`/`1` and floats like C's `%.17g`
//! (`2.0` as `2`), as TVM's does.
//!
//! `unsafe_hide_buffer_access(block, buf_type, buf_index_array)` drops the
//! listed read (`buf_type="read"`) or write regions from the block's
//! declaration; the body is untouched, so what it computes is the same, but
//! analyses no longer see those accesses (the caller's risk, as the name
//! says). `buf_type` must be `read` or `write` (checked first), each index in
//! range; repeated indices count once. TVM's JSON keeps all three as inputs.
//!
//! `annotate_buffer_access(block, buffer_index, buf_type, gen_new_ranges)`
//! replaces the block's `buffer_index`-th read or write region by the one
//! `gen_new_ranges` gives: a lambda over the block's iterators returning one
//! `(begin, end)` pair per dimension (the region `begin:end`, its extent
//! simplified), and records the index in the block annotation
//! `explicit_read_region` / `explicit_write_region` (appended once). The
//! trace prints the lambda as TVM does, `lambda vi, vj: [(vi - 1, vi + 1),
//! (vj, vj + 1)]`, and `buf_type="read"`.

use std::collections::{BTreeMap, HashMap};

use super::primitives::{param, Args, ParamType as T, Primitive, Returns};
use super::replay::SchedValue;
use super::*;
use tessel_tir::syntax::{self, ast};

pub(super) const ANNOTATE: Primitive = Primitive {
    method: "annotate",
    aliases: &[],
    kind: "Annotate",
    params: &[
        param("block_or_loop", T::BlockOrLoop),
        param("ann_key", T::Str).attr(),
        param("ann_val", T::Any),
    ],
    returns: Returns::Nothing,
    traced: true,
    apply: super::primitives::unless_lean(|sch, args| {
        let given = args.value("ann_val")?;
        // A sampled integer (`ann_val=v1`, as MetaSchedule's rules write) is
        // stored as its value and recorded as the variable, so a replay with
        // a new decision annotates the new value.
        let (value, recorded) = match given {
            SchedValue::Rv(Rv::Expr(e)) => (AttrValue::Int(sch.get_value(ExprRV(e))?), given),
            _ => {
                let value = attr_from_value(&given)
                    .map_err(|m| args.err(ScheduleErrorKind::InvalidArgument, m))?;
                // The trace prints the value the way TVM does (`1` for `True`).
                let recorded = SchedValue::of_trace(&trace_value(&value));
                (value, recorded)
            }
        };
        sch.annotate_concrete(args.rv("block_or_loop")?, &args.string("ann_key")?, value)?;
        args.record_as("ann_val", recorded)?;
        Ok(SchedValue::None)
    }),
    menu: None,
};

pub(super) const UNANNOTATE: Primitive = Primitive {
    method: "unannotate",
    aliases: &[],
    kind: "Unannotate",
    params: &[
        param("block_or_loop", T::BlockOrLoop),
        param("ann_key", T::Str).attr(),
    ],
    returns: Returns::Nothing,
    traced: true,
    apply: super::primitives::unless_lean(|sch, args| {
        sch.unannotate_concrete(args.rv("block_or_loop")?, &args.string("ann_key")?)?;
        Ok(SchedValue::None)
    }),
    menu: None,
};

/// An annotation value as a dispatcher argument (the inverse of
/// [`attr_from_value`]; a dictionary travels as its source text).
fn value_of_attr(v: &AttrValue) -> SchedValue {
    match v {
        AttrValue::Bool(b) => SchedValue::Bool(*b),
        AttrValue::Int(i) => SchedValue::Int(*i),
        AttrValue::Float(f) => SchedValue::Float(*f),
        AttrValue::Str(s) => SchedValue::Str(s.clone()),
        AttrValue::Array(items) => SchedValue::List(items.iter().map(value_of_attr).collect()),
        other @ (AttrValue::Map(_) | AttrValue::Expr(_)) => {
            SchedValue::of_trace(&trace_value(other))
        }
    }
}

/// An annotation value from a dispatcher argument (`{...}` dictionaries
/// arrive as source text).
pub fn attr_from_value(v: &SchedValue) -> std::result::Result<AttrValue, String> {
    Ok(match v {
        SchedValue::Int(i) => AttrValue::Int(*i),
        SchedValue::Float(f) => AttrValue::Float(*f),
        SchedValue::Bool(b) => AttrValue::Bool(*b),
        SchedValue::Str(s) => AttrValue::Str(s.clone()),
        SchedValue::List(items) => {
            if items.is_empty() {
                return Err("an annotation value cannot be an empty list (TVM: \"Cannot take a Union of no types\")".into());
            }
            AttrValue::Array(
                items
                    .iter()
                    .map(attr_from_value)
                    .collect::<std::result::Result<_, _>>()?,
            )
        }
        SchedValue::Source(text) => {
            let e = syntax::parse_expr(text).map_err(|d| d.message)?;
            attr_from_ast(&e, 0)?
        }
        SchedValue::None => {
            return Err("an annotation value cannot be None".into());
        }
        SchedValue::Rv(r) => {
            return Err(format!(
                "an annotation value cannot be the schedule variable {}",
                r.name()
            ));
        }
    })
}

fn attr_from_ast(e: &ast::Expr, depth: u32) -> std::result::Result<AttrValue, String> {
    if depth > 64 {
        return Err("the annotation value is nested too deeply".into());
    }
    Ok(match &e.kind {
        ast::ExprKind::Int(i) => AttrValue::Int(*i),
        ast::ExprKind::Float(f) => AttrValue::Float(*f),
        ast::ExprKind::Bool(b) => AttrValue::Bool(*b),
        ast::ExprKind::Str(s) => AttrValue::Str(s.clone()),
        ast::ExprKind::UnaryOp {
            op: ast::UnaryOp::Neg,
            operand,
        } => match attr_from_ast(operand, depth + 1)? {
            AttrValue::Int(i) => AttrValue::Int(i.wrapping_neg()),
            AttrValue::Float(f) => AttrValue::Float(-f),
            _ => return Err("cannot negate this annotation value".into()),
        },
        ast::ExprKind::List(items) | ast::ExprKind::Tuple(items) => {
            if items.is_empty() {
                return Err("an annotation value cannot be an empty list".into());
            }
            AttrValue::Array(
                items
                    .iter()
                    .map(|x| attr_from_ast(x, depth + 1))
                    .collect::<std::result::Result<_, _>>()?,
            )
        }
        ast::ExprKind::Dict(entries) => {
            let mut map = BTreeMap::new();
            for (k, v) in entries {
                let Some(ast::Expr {
                    kind: ast::ExprKind::Str(key),
                    ..
                }) = k
                else {
                    return Err("annotation dictionaries need string keys".into());
                };
                map.insert(key.clone(), attr_from_ast(v, depth + 1)?);
            }
            AttrValue::Map(map)
        }
        _ => return Err("an annotation value is an int, float, str, bool, list or dict".into()),
    })
}

/// The value as TVM's trace prints it.
fn trace_value(v: &AttrValue) -> TraceArg {
    match v {
        AttrValue::Bool(b) => TraceArg::Int(*b as i64),
        AttrValue::Int(i) => TraceArg::Int(*i),
        AttrValue::Float(f) => TraceArg::Source(float_g17(*f)),
        AttrValue::Str(s) => TraceArg::Str(s.clone()),
        AttrValue::Array(items) => TraceArg::List(items.iter().map(trace_value).collect()),
        AttrValue::Map(m) => {
            let mut out = String::from("{");
            for (i, (k, v)) in m.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                let entry = Instruction::new("x")
                    .arg("", TraceArg::Str(k.clone()))
                    .arg("", trace_value(v));
                // `sch.x("k", v)` → `"k": v`
                let text = entry.python();
                let inner = text
                    .strip_prefix("sch.x(")
                    .and_then(|t| t.strip_suffix(')'))
                    .unwrap_or_default();
                out.push_str(&inner.replacen(", ", ": ", 1));
            }
            out.push('}');
            TraceArg::Source(out)
        }
        AttrValue::Expr(e) => TraceArg::Source(tessel_tir::ir::printer::print_expr(e)),
    }
}

/// C's `%.17g`.
fn float_g17(v: f64) -> String {
    if !v.is_finite() {
        return format!("{v}");
    }
    let sci = format!("{:.16e}", v);
    let (mantissa, exp) = match sci.split_once('e') {
        Some((m, e)) => (m.to_string(), e.parse::<i32>().unwrap_or(0)),
        None => (sci.clone(), 0),
    };
    let trim = |s: &str| -> String {
        if !s.contains('.') {
            return s.to_string();
        }
        let t = s.trim_end_matches('0');
        t.strip_suffix('.').unwrap_or(t).to_string()
    };
    if !(-4..17).contains(&exp) {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{}e{sign}{:02}", trim(&mantissa), exp.unsigned_abs())
    } else {
        let decimals = (16 - exp).max(0) as usize;
        trim(&format!("{v:.decimals$}"))
    }
}

pub(super) const ANNOTATE_BUFFER_ACCESS: Primitive = Primitive {
    method: "annotate_buffer_access",
    aliases: &[],
    kind: "AnnotateBufferAccess",
    params: &[
        param("block", T::Block),
        param("buffer_index", T::Int),
        param("buf_type", T::Str),
        param("gen_new_ranges", T::Any),
    ],
    returns: Returns::Nothing,
    traced: true,
    apply: super::primitives::unless_lean(|sch, args| {
        let src = match args.value("gen_new_ranges")? {
            SchedValue::Source(s) | SchedValue::Str(s) => s,
            other => {
                return Err(args.err(ScheduleErrorKind::InvalidArgument, format!(
                    "gen_new_ranges must be a lambda over the block's iterators returning (begin, end) pairs; got {}",
                    super::primitives::describe(&other)
                )))
            }
        };
        let printed = sch.annotate_buffer_access_concrete(
            args.block("block")?,
            args.int("buffer_index")?,
            &args.string("buf_type")?,
            &src,
        )?;
        args.record_as("gen_new_ranges", SchedValue::Source(printed))?;
        Ok(SchedValue::None)
    }),
    menu: None,
};

/// A `gen_new_ranges` lambda read: its parameter names and one
/// `(begin, end)` pair per dimension.
struct RangesLambda {
    names: Vec<String>,
    pairs: Vec<(Expr, Expr)>,
}

/// `lambda vi, vj: [(vi - 1, vi + 1), (vj, vj + 1)]` read over the block's
/// iterators.
fn parse_ranges_lambda(src: &str, iters: &[IterVar]) -> std::result::Result<RangesLambda, String> {
    let e = syntax::parse_expr(src)
        .map_err(|d| format!("cannot parse gen_new_ranges: {}", d.message))?;
    let ast::ExprKind::Lambda { params, body } = &e.kind else {
        return Err("gen_new_ranges must be a lambda, such as `lambda vi: [(vi, vi + 2)]`".into());
    };
    let names: Vec<String> = params
        .posonly
        .iter()
        .chain(&params.args)
        .map(|p| p.name.clone())
        .collect();
    if names.len() != iters.len() || params.vararg.is_some() || params.kwarg.is_some() {
        return Err(format!(
            "gen_new_ranges takes one parameter per block iterator ({}), not {}",
            iters.len(),
            names.len()
        ));
    }
    let env: HashMap<String, Var> = names
        .iter()
        .zip(iters)
        .map(|(n, iv)| (n.clone(), iv.var.clone()))
        .collect();
    let dtype = iters
        .first()
        .map(|iv| iv.var.dtype())
        .unwrap_or(DataType::i32());
    let items = match &body.kind {
        ast::ExprKind::List(items) | ast::ExprKind::Tuple(items) => items,
        _ => return Err("gen_new_ranges must return a list of (begin, end) pairs".into()),
    };
    let mut pairs = Vec::new();
    for item in items {
        let (ast::ExprKind::Tuple(pair) | ast::ExprKind::List(pair)) = &item.kind else {
            return Err("each range of gen_new_ranges is a (begin, end) pair".into());
        };
        let [b, e] = pair.as_slice() else {
            return Err("each range of gen_new_ranges is a (begin, end) pair".into());
        };
        pairs.push((
            super::layout::lambda_expr(b, &env, dtype, 0)?,
            super::layout::lambda_expr(e, &env, dtype, 0)?,
        ));
    }
    Ok(RangesLambda { names, pairs })
}

pub(super) const UNSAFE_HIDE_BUFFER_ACCESS: Primitive = Primitive {
    method: "unsafe_hide_buffer_access",
    aliases: &[],
    kind: "UnsafeHideBufferAccess",
    params: &[
        param("block", T::Block),
        param("buf_type", T::Str),
        param("buf_index_array", T::Ints).list_input(),
    ],
    returns: Returns::Nothing,
    traced: true,
    apply: super::primitives::unless_lean(|sch, args| {
        sch.unsafe_hide_buffer_access_concrete(
            args.block("block")?,
            &args.string("buf_type")?,
            &args.ints("buf_index_array")?,
        )?;
        Ok(SchedValue::None)
    }),
    menu: None,
};

impl Schedule {
    /// `sch.unsafe_hide_buffer_access(block, buf_type, buf_index_array)`:
    /// see the module documentation.
    pub fn unsafe_hide_buffer_access(
        &mut self,
        block_rv: BlockRV,
        buf_type: &str,
        buf_index_array: &[i64],
    ) -> Result<()> {
        let indices = SchedValue::List(buf_index_array.iter().map(|&i| i.into()).collect());
        let args = Args::typed(
            &UNSAFE_HIDE_BUFFER_ACCESS,
            vec![block_rv.into(), buf_type.into(), indices],
        );
        self.apply_traced(&UNSAFE_HIDE_BUFFER_ACCESS, args)?;
        Ok(())
    }

    /// `sch.annotate_buffer_access(block, buffer_index, buf_type,
    /// gen_new_ranges)`: see the module documentation; `gen_new_ranges` is
    /// the lambda's source text.
    pub fn annotate_buffer_access(
        &mut self,
        block_rv: BlockRV,
        buffer_index: i64,
        buf_type: &str,
        gen_new_ranges: &str,
    ) -> Result<()> {
        let args = Args::typed(
            &ANNOTATE_BUFFER_ACCESS,
            vec![
                block_rv.into(),
                buffer_index.into(),
                buf_type.into(),
                SchedValue::Source(gen_new_ranges.to_string()),
            ],
        );
        self.apply_traced(&ANNOTATE_BUFFER_ACCESS, args)?;
        Ok(())
    }

    /// Returns the lambda as the trace prints it.
    fn annotate_buffer_access_concrete(
        &mut self,
        block_rv: BlockRV,
        buffer_index: i64,
        buf_type: &str,
        src: &str,
    ) -> Result<String> {
        const P: &str = "annotate_buffer_access";
        use super::cache::{nth_access_buffer, BufferIndexType};
        let Some(kind) = BufferIndexType::parse(buf_type) else {
            return Err(ScheduleError::invalid_argument(
                P,
                format!("Invalid buf_type: {buf_type}. Expected 'read' or 'write'."),
            ));
        };
        let (path, realize) = self.resolve_block(P, block_rv)?;
        let buffer = nth_access_buffer(P, &realize.block, buffer_index, kind, &path)?;
        let RangesLambda { names, pairs } = parse_ranges_lambda(src, &realize.block.iter_vars)
            .map_err(|m| ScheduleError::invalid_argument(P, m).at(path.clone()))?;
        if pairs.len() != buffer.shape.len() {
            return Err(ScheduleError::invalid_argument(
                P,
                format!(
                    "gen_new_ranges gives {} ranges but buffer {} has {} dimensions",
                    pairs.len(),
                    buffer.name,
                    buffer.shape.len()
                ),
            )
            .at(path));
        }
        let ana = tessel_tir::arith::Analyzer::new();
        let pairs: Vec<(Expr, Expr)> = pairs
            .into_iter()
            .map(|(b, e)| (ana.simplify(&b), ana.simplify(&e)))
            .collect();
        let region = BufferRegion {
            buffer: buffer.clone(),
            region: pairs
                .iter()
                .map(|(b, e)| {
                    Range::new(
                        b.clone(),
                        ana.simplify(&Expr::binary(BinOp::Sub, e.clone(), b.clone())),
                    )
                })
                .collect(),
        };
        let mut new = realize.clone();
        let key = match kind {
            BufferIndexType::Read => {
                new.block.reads[buffer_index as usize] = region;
                "explicit_read_region"
            }
            BufferIndexType::Write => {
                new.block.writes[buffer_index as usize] = region;
                "explicit_write_region"
            }
        };
        let entry = new
            .block
            .annotations
            .entry(key.to_string())
            .or_insert_with(|| AttrValue::Array(Vec::new()));
        match entry {
            AttrValue::Array(items) => {
                if !items
                    .iter()
                    .any(|x| matches!(x, AttrValue::Int(i) if *i == buffer_index))
                {
                    items.push(AttrValue::Int(buffer_index));
                }
            }
            _ => {
                return Err(ScheduleError::block_structure(
                    P,
                    format!("the block's `{key}` annotation is not a list of buffer indices"),
                )
                .at(path))
            }
        }
        let span = tree::get(&self.body(P)?, &path)
            .map(|s| s.span())
            .unwrap_or_default();
        self.replace_at(P, &path, Stmt::new(StmtKind::BlockRealize(new), span))?;
        let printed: Vec<String> = pairs
            .iter()
            .map(|(b, e)| {
                format!(
                    "({}, {})",
                    tessel_tir::ir::printer::print_expr(b),
                    tessel_tir::ir::printer::print_expr(e)
                )
            })
            .collect();
        Ok(format!(
            "lambda {}: [{}]",
            names.join(", "),
            printed.join(", ")
        ))
    }

    fn unsafe_hide_buffer_access_concrete(
        &mut self,
        block_rv: BlockRV,
        buf_type: &str,
        buf_index_array: &[i64],
    ) -> Result<()> {
        const P: &str = "unsafe_hide_buffer_access";
        let (path, realize) = self.resolve_block(P, block_rv)?;
        let n = match buf_type {
            "read" => realize.block.reads.len(),
            "write" => realize.block.writes.len(),
            other => {
                return Err(ScheduleError::invalid_argument(
                    P,
                    format!(
                        "The buffer type for hide_buffer_access schedule should either be 'read' \
                         or 'write', got {other} instead."
                    ),
                )
                .at(path))
            }
        };
        let mut hidden = std::collections::BTreeSet::new();
        for &i in buf_index_array {
            if i < 0 || i as usize >= n {
                return Err(ScheduleError::invalid_argument(
                    P,
                    format!(
                        "The buffer index array for hide_buffer_access schedule should be a list \
                         of integers between 0 and {}, got {i} instead.",
                        n as i64 - 1
                    ),
                )
                .at(path));
            }
            hidden.insert(i as usize);
        }
        let mut new = realize.clone();
        let regions = if buf_type == "read" {
            &mut new.block.reads
        } else {
            &mut new.block.writes
        };
        *regions = std::mem::take(regions)
            .into_iter()
            .enumerate()
            .filter(|(i, _)| !hidden.contains(i))
            .map(|(_, r)| r)
            .collect();
        let span = tree::get(&self.body(P)?, &path)
            .map(|s| s.span())
            .unwrap_or_default();
        self.replace_at(P, &path, Stmt::new(StmtKind::BlockRealize(new), span))
    }

    fn annotations_of(&self, primitive: &str, target: Rv) -> Result<(tree::StmtPath, Annotations)> {
        match target {
            Rv::Block(b) => {
                let (p, r) = self.resolve_block(primitive, BlockRV(b))?;
                Ok((p, r.block.annotations))
            }
            Rv::Loop(l) => {
                let (p, f) = self.resolve_loop(primitive, LoopRV(l))?;
                Ok((p, f.annotations))
            }
            Rv::Expr(_) => Err(ScheduleError::argument_type(
                primitive,
                "expected a block or a loop",
            )),
        }
    }

    fn set_annotations(
        &mut self,
        primitive: &str,
        path: &tree::StmtPath,
        ann: Annotations,
    ) -> Result<()> {
        let body = self.body(primitive)?;
        let Some(s) = tree::get(&body, path) else {
            return Err(ScheduleError::internal(primitive, "internal: stale path"));
        };
        let new = match s.kind() {
            StmtKind::For(f) => StmtKind::For(For {
                annotations: ann,
                ..f.clone()
            }),
            StmtKind::BlockRealize(r) => {
                let mut r = r.clone();
                r.block.annotations = ann;
                StmtKind::BlockRealize(r)
            }
            _ => {
                return Err(ScheduleError::internal(
                    primitive,
                    "internal: not a block or loop",
                ))
            }
        };
        self.replace_at(primitive, path, Stmt::new(new, s.span()))
    }

    /// `sch.annotate(block_or_loop, ann_key, ann_val)`.
    pub fn annotate(&mut self, target: Rv, ann_key: &str, ann_val: AttrValue) -> Result<()> {
        let args = vec![target.into(), ann_key.into(), value_of_attr(&ann_val)];
        self.apply_traced(&ANNOTATE, Args::typed(&ANNOTATE, args))?;
        Ok(())
    }

    /// `sch.unannotate(block_or_loop, ann_key)`.
    pub fn unannotate(&mut self, target: Rv, ann_key: &str) -> Result<()> {
        let args = vec![target.into(), ann_key.into()];
        self.apply_traced(&UNANNOTATE, Args::typed(&UNANNOTATE, args))?;
        Ok(())
    }

    fn annotate_concrete(&mut self, target: Rv, ann_key: &str, ann_val: AttrValue) -> Result<()> {
        const P: &str = "annotate";
        let (path, mut ann) = self.annotations_of(P, target)?;
        if !ann.contains_key(ann_key) {
            ann.insert(ann_key.to_string(), ann_val.clone());
            self.set_annotations(P, &path, ann)?;
        }
        Ok(())
    }

    fn unannotate_concrete(&mut self, target: Rv, ann_key: &str) -> Result<()> {
        const P: &str = "unannotate";
        let (path, mut ann) = self.annotations_of(P, target)?;
        if ann.remove(ann_key).is_none() {
            return Err(ScheduleError::not_found(
                P,
                format!("Cannot find annotation key: {ann_key}"),
            )
            .at(path));
        }
        self.set_annotations(P, &path, ann)
    }
}
