//! `transform_layout`'s `pad_value`: what goes into the elements a layout
//! adds when the index map's image is larger than the buffer.
//!
//! Behaviour checked against TVM 0.27:
//!
//! - **The value.** A Python `int` for an integer buffer (or `float` for a
//!   float buffer) becomes a constant of the buffer's type; any other
//!   number keeps Python's type (`int32`, `float32`) and is refused when it
//!   differs from the buffer's. A lambda takes the new indices and returns
//!   one expression of the buffer's type. The trace records it as a lambda
//!   over the new indices (`lambda indices_0, indices_1: (T.float32(0.0),)`).
//! - **Where the padding is.** The map is inverted over the padded domain
//!   (each buffer axis split by the map grows to the product of the new
//!   axes it feeds); the new indices are named after the map's results
//!   (a result that is a parameter keeps its name, the others are
//!   `axis<k>`). An axis `n` split as `(x // c, ..)` is padded where
//!   `inv // c == n // c and n % c <= inv % c`, simplified, and the axes'
//!   conditions are or-ed.
//! - **Rewriting a producer.** A store into the buffer under loops that run
//!   serially from 0 over exactly its axes (directly or through block
//!   iterators bound to them), with no other store under those loops, has
//!   its loops replaced by loops over the new shape and stores
//!   `T.if_then_else(padding, pad, value)`; when the store's indices are the
//!   block's spatial iterators in order, those iterators become `v_<name>`
//!   over the new axes.
//! - **Otherwise a fill block.** `buffer_<name>_padding`, after the loop
//!   nest (or block) of the last store, writes `pad` under
//!   `T.where(padding)` over the new shape.
//! - **Inputs.** TVM records the padding of a buffer nothing writes as
//!   `T.assume`, which Tessel does not have: refused.
//! - **No padding.** The map is a bijection: `pad_value` is not used.

use std::collections::HashMap;

use super::*;
use tessel_tir::arith::{detect_iter_map, Analyzer};
use tessel_tir::ir::deep_equal::expr_deep_equal;
use tessel_tir::ir::mutate::{substitute_expr, walk_expr, walk_stmt, Mutator};
use tessel_tir::syntax::{self, ast};

const P: &str = "transform_layout";

/// The value written into the padding, a function of the new indices.
#[derive(Clone, Debug)]
pub(super) struct PadValue {
    pub params: Vec<Var>,
    pub value: Expr,
}

impl PadValue {
    /// A constant from Python: an `int` takes an integer buffer's type, a
    /// `float` a float buffer's; otherwise Python's own type.
    pub fn constant(v: &PadLiteral, buffer: DataType, ndim: usize, index: DataType) -> PadValue {
        let value = match *v {
            PadLiteral::Int(i) if buffer.is_integer() && !buffer.is_bool() => Expr::int(i, buffer),
            PadLiteral::Int(i) => Expr::int(i, DataType::i32()),
            PadLiteral::Float(f) if buffer.is_float() => Expr::float(f, buffer),
            PadLiteral::Float(f) => Expr::float(f, DataType::f32()),
        };
        PadValue {
            params: (0..ndim)
                .map(|k| Var::new(format!("indices_{k}"), index))
                .collect(),
            value,
        }
    }

    /// A lambda over the new indices (`lambda i, j: i + j`), as written or as
    /// a trace prints it (`lambda i, j: (T.Cast("float32", i + j),)`).
    pub fn parse(src: &str, ndim: usize, index: DataType) -> std::result::Result<PadValue, String> {
        let e = syntax::parse_expr(src)
            .map_err(|d| format!("cannot parse the pad_value: {}", d.message))?;
        let ast::ExprKind::Lambda { params, body } = &e.kind else {
            // A typed constant (`T.int8(0)`): the same value at every index.
            return Ok(PadValue {
                params: (0..ndim)
                    .map(|k| Var::new(format!("indices_{k}"), index))
                    .collect(),
                value: pad_expr(&e, &HashMap::new(), index, 0)?,
            });
        };
        if params.vararg.is_some() || params.kwarg.is_some() || !params.kwonly.is_empty() {
            return Err("pad_value parameters must be plain names".into());
        }
        let names: Vec<&ast::Param> = params.posonly.iter().chain(&params.args).collect();
        if names.len() != ndim {
            return Err(format!(
                "pad_value takes {} indices but the transformed buffer has {ndim} dimension(s)",
                names.len()
            ));
        }
        let mut env = HashMap::new();
        let mut vars = Vec::new();
        for p in names {
            let v = Var::new(p.name.clone(), index);
            env.insert(p.name.clone(), v.clone());
            vars.push(v);
        }
        let items: Vec<&ast::Expr> = match &body.kind {
            ast::ExprKind::Tuple(items) | ast::ExprKind::List(items) => items.iter().collect(),
            _ => vec![body.as_ref()],
        };
        let [item] = items.as_slice() else {
            return Err(format!(
                "The IndexMap specifying pad_value has {} outputs, should only have one output",
                items.len()
            ));
        };
        Ok(PadValue {
            params: vars,
            value: pad_expr(item, &env, index, 0)?,
        })
    }

    /// The value at `indices`.
    pub fn at(&self, indices: &[Expr]) -> Expr {
        let map: HashMap<VarId, Expr> = self
            .params
            .iter()
            .zip(indices)
            .map(|(p, e)| (p.id(), e.clone()))
            .collect();
        substitute_expr(&self.value, &map)
    }

    /// As TVM's trace prints it.
    pub fn python(&self) -> String {
        let params: Vec<&str> = self.params.iter().map(|v| v.name()).collect();
        format!(
            "lambda {}: ({},)",
            params.join(", "),
            tessel_tir::ir::printer::print_expr(&self.value)
        )
    }
}

/// A number given as `pad_value`.
#[derive(Clone, Copy, Debug)]
pub(crate) enum PadLiteral {
    Int(i64),
    Float(f64),
}

/// A pad value's expression: the index map's integer arithmetic plus
/// Python floats, typed constants (`T.float32(1.5)`) and `T.Cast`.
fn pad_expr(
    e: &ast::Expr,
    env: &HashMap<String, Var>,
    index: DataType,
    depth: u32,
) -> std::result::Result<Expr, String> {
    if depth > 200 {
        return Err("the pad_value is nested too deeply".into());
    }
    let literal = |e: &ast::Expr| -> Option<f64> {
        match &e.kind {
            ast::ExprKind::Int(v) => Some(*v as f64),
            ast::ExprKind::Float(v) => Some(*v),
            ast::ExprKind::UnaryOp {
                op: ast::UnaryOp::Neg,
                operand,
            } => match operand.kind {
                ast::ExprKind::Int(v) => Some(-(v as f64)),
                ast::ExprKind::Float(v) => Some(-v),
                _ => None,
            },
            _ => None,
        }
    };
    match &e.kind {
        ast::ExprKind::Int(v) if env.is_empty() || depth == 0 => Ok(Expr::int(*v, DataType::i32())),
        ast::ExprKind::Float(v) => Ok(Expr::f32(*v)),
        ast::ExprKind::Call { func, args } => {
            let ast::ExprKind::Attribute { value, attr, .. } = &func.kind else {
                return Err("pad_value may call only T.<dtype>(...) and T.Cast(...)".into());
            };
            if !matches!(&value.kind, ast::ExprKind::Name(n) if n == "T") {
                return Err(format!("pad_value cannot call `{attr}`"));
            }
            let positional: Vec<&ast::Expr> = args
                .iter()
                .filter_map(|a| match a {
                    ast::Arg::Positional(x) => Some(x),
                    _ => None,
                })
                .collect();
            if attr == "Cast" {
                let [dt, x] = positional.as_slice() else {
                    return Err("T.Cast takes a data type and a value".into());
                };
                let ast::ExprKind::Str(dt) = &dt.kind else {
                    return Err("T.Cast takes a data type name first".into());
                };
                let dtype =
                    DataType::parse(dt).ok_or_else(|| format!("`{dt}` is not a data type"))?;
                return Ok(Expr::cast(dtype, pad_expr(x, env, index, depth + 1)?));
            }
            let dtype =
                DataType::parse(attr).ok_or_else(|| format!("pad_value cannot call `T.{attr}`"))?;
            let [x] = positional.as_slice() else {
                return Err(format!("T.{attr} takes one value"));
            };
            match literal(x) {
                Some(v) if dtype.is_float() => Ok(Expr::float(v, dtype)),
                Some(v) if v.fract() == 0.0 => Ok(Expr::int(v as i64, dtype)),
                _ => Ok(Expr::cast(dtype, pad_expr(x, env, index, depth + 1)?)),
            }
        }
        ast::ExprKind::BinOp { left, op, right } => {
            let a = pad_expr(left, env, index, depth + 1)?;
            let b = pad_expr(right, env, index, depth + 1)?;
            if !a.dtype().is_float() && !b.dtype().is_float() {
                return super::index_map::lambda_expr(e, env, index, depth);
            }
            let op = match op {
                ast::BinOp::Add => BinOp::Add,
                ast::BinOp::Sub => BinOp::Sub,
                ast::BinOp::Mul => BinOp::Mul,
                ast::BinOp::Div => BinOp::Div,
                other => {
                    return Err(format!(
                        "the operator `{}` is not supported in a float pad_value",
                        other.as_str()
                    ))
                }
            };
            let dtype = if a.dtype().is_float() {
                a.dtype()
            } else {
                b.dtype()
            };
            let cast = |x: Expr| {
                if x.dtype() == dtype {
                    x
                } else {
                    Expr::cast(dtype, x)
                }
            };
            Ok(Expr::binary(op, cast(a), cast(b)))
        }
        _ => super::index_map::lambda_expr(e, env, index, depth),
    }
}

/// The inverse of an index map that pads: the new indices, the old indices
/// as functions of them, and where the padding is.
pub(super) struct PaddedInverse {
    pub axes: Vec<Var>,
    pub old_indices: Vec<Expr>,
    pub padding: Expr,
}

/// Inverts `results` (functions of `params`, each buffer axis of extent
/// `shape[k]`) onto `new_shape`, padding the axes the map splits unevenly.
/// `None` when Tessel cannot invert the map.
pub(super) fn padded_inverse(
    params: &[Var],
    results: &[Expr],
    shape: &[Expr],
    new_shape: &[Expr],
) -> Option<PaddedInverse> {
    let extents: Vec<i64> = shape.iter().map(|e| e.as_int()).collect::<Option<_>>()?;
    let new_extents: Vec<i64> = new_shape
        .iter()
        .map(|e| e.as_int())
        .collect::<Option<_>>()?;
    let users: Vec<Vec<usize>> = results
        .iter()
        .map(|r| {
            (0..params.len())
                .filter(|&k| r.uses_var(&params[k]))
                .collect()
        })
        .collect();
    // Each axis fed alone into some results grows to the product of theirs.
    let mut padded = extents.clone();
    let mut outermost: Vec<Option<usize>> = vec![None; params.len()];
    for (k, ext) in padded.iter_mut().enumerate() {
        let fed: Vec<usize> = (0..results.len()).filter(|&r| users[r] == [k]).collect();
        if fed.is_empty() || (0..results.len()).any(|r| users[r].len() > 1 && users[r].contains(&k))
        {
            continue;
        }
        *ext = fed
            .iter()
            .try_fold(1i64, |acc, &r| acc.checked_mul(new_extents[r]))?;
        outermost[k] = fed.first().copied();
    }
    let dtype = params.first().map_or(DataType::i32(), |p| p.dtype());
    let ranges: Vec<(Var, Range)> = params
        .iter()
        .zip(&padded)
        .map(|(v, &n)| (v.clone(), Range::from_extent(Expr::int(n, dtype))))
        .collect();
    let map = detect_iter_map(results, &ranges, &Expr::bool(true)).ok()?;
    let total = |v: &[i64]| v.iter().try_fold(1i64, |a, &b| a.checked_mul(b));
    if total(&padded)? != total(&new_extents)? {
        return None;
    }
    let axes: Vec<Var> = results
        .iter()
        .enumerate()
        .map(|(k, r)| match r.as_var() {
            Some(v) => Var::new(v.name(), v.dtype()),
            None => Var::new(format!("axis{k}"), r.dtype()),
        })
        .collect();
    let axis_exprs: Vec<Expr> = axes.iter().map(|v| v.to_expr()).collect();
    let inverse = super::compute_at::inverse_iter_map(&map, &axis_exprs)?;
    let mut ana = Analyzer::new();
    for (a, &n) in axes.iter().zip(&new_extents) {
        ana.bind(a, &Range::from_extent(Expr::int(n, a.dtype())));
    }
    let mut old_indices = Vec::new();
    let mut padding: Option<Expr> = None;
    for (k, p) in params.iter().enumerate() {
        let inv = ana.simplify(inverse.get(&p.id())?);
        let (n, n_padded) = (extents[k], padded[k]);
        if n_padded > n {
            let r0 = outermost[k]?;
            let c = n_padded / new_extents[r0];
            let int = |v: i64| Expr::int(v, dtype);
            let cond = if n_padded - n < c {
                Expr::and(
                    Expr::cmp(
                        CmpOp::Eq,
                        Expr::binary(BinOp::FloorDiv, inv.clone(), int(c)),
                        int(n / c),
                    ),
                    Expr::cmp(
                        CmpOp::Le,
                        int(n % c),
                        Expr::binary(BinOp::FloorMod, inv.clone(), int(c)),
                    ),
                )
            } else {
                Expr::cmp(CmpOp::Le, int(n), inv.clone())
            };
            let cond = ana.simplify(&cond);
            padding = Some(match padding {
                None => cond,
                Some(prev) => Expr::or(prev, cond),
            });
        } else if n_padded < n {
            return None;
        }
        old_indices.push(inv);
    }
    Some(PaddedInverse {
        axes,
        old_indices,
        padding: padding.unwrap_or_else(|| Expr::bool(false)),
    })
}

/// A store into the transformed buffer, as the planner found it.
struct WriteInfo {
    indices: Vec<Expr>,
    /// The innermost block around the store (name, iterator ids).
    realize: Option<BlockRealize>,
    /// The loops whose variables the indices use, outermost first.
    loopnest: Vec<For>,
    /// The loops run serially from 0 over exactly the buffer's axes.
    row_major: bool,
}

struct Planner<'a> {
    old: &'a Buffer,
    loops: Vec<For>,
    depth: HashMap<VarId, (usize, usize)>,
    bindings: HashMap<VarId, Expr>,
    realize: Option<BlockRealize>,
    writes: Vec<WriteInfo>,
}

impl Planner<'_> {
    fn dependency(&self, e: &Expr) -> Option<(usize, usize)> {
        let mut out: Option<(usize, usize)> = None;
        e.walk(&mut |x| {
            if let Some(v) = x.as_var() {
                if let Some(&(lo, hi)) = self.depth.get(&v.id()) {
                    out = Some(match out {
                        None => (lo, hi),
                        Some((a, b)) => (a.min(lo), b.max(hi)),
                    });
                }
            }
        });
        out
    }

    fn bind(&mut self, var: &Var, value: &Expr) {
        if let Some(range) = self.dependency(value) {
            self.depth.insert(var.id(), range);
            let v = substitute_expr(value, &self.bindings);
            self.bindings.insert(var.id(), v);
        }
    }

    fn visit(&mut self, s: &Stmt) {
        match s.kind() {
            StmtKind::For(l) => {
                let d = self.loops.len();
                self.depth.insert(l.loop_var.id(), (d, d));
                self.loops.push(l.clone());
                self.visit(&l.body);
                self.loops.pop();
                self.depth.remove(&l.loop_var.id());
            }
            StmtKind::Let { var, value, body } => {
                self.bind(var, value);
                self.visit(body);
            }
            StmtKind::BlockRealize(r) => {
                for (iv, v) in r.block.iter_vars.iter().zip(&r.iter_values) {
                    self.bind(&iv.var, v);
                }
                let saved = self.realize.replace(r.clone());
                if let Some(init) = &r.block.init {
                    self.visit(init);
                }
                self.visit(&r.block.body);
                self.realize = saved;
            }
            StmtKind::Store {
                buffer, indices, ..
            } if buffer == self.old => {
                let mut range: Option<(usize, usize)> = None;
                for i in indices {
                    if let Some((lo, hi)) = self.dependency(i) {
                        range = Some(match range {
                            None => (lo, hi),
                            Some((a, b)) => (a.min(lo), b.max(hi)),
                        });
                    }
                }
                let loopnest: Vec<For> = match range {
                    Some((lo, hi)) => self.loops[lo..=hi].to_vec(),
                    None => Vec::new(),
                };
                let row_major = !loopnest.is_empty()
                    && loopnest.len() == self.old.ndim()
                    && loopnest.len() == indices.len()
                    && loopnest.iter().enumerate().all(|(k, l)| {
                        let index = substitute_expr(&indices[k], &self.bindings);
                        index.as_var() == Some(&l.loop_var)
                            && l.min.is_const_int(0)
                            && expr_deep_equal(&l.extent, &self.old.shape[k])
                            && l.kind == ForKind::Serial
                    });
                self.writes.push(WriteInfo {
                    indices: indices.clone(),
                    realize: self.realize.clone(),
                    loopnest,
                    row_major,
                });
            }
            _ => s.for_each_child(|c| self.visit(c)),
        }
    }
}

fn same_realize(a: &BlockRealize, b: &BlockRealize) -> bool {
    a.block.name == b.block.name
        && a.block.iter_vars.len() == b.block.iter_vars.len()
        && a.block
            .iter_vars
            .iter()
            .zip(&b.block.iter_vars)
            .all(|(x, y)| x.var == y.var)
}

/// Rewrites one producer loop nest's body: the store becomes a store of
/// `T.if_then_else(padding, pad, value)` at the new indices.
struct StoreReplacer<'a> {
    info: &'a WriteInfo,
    old: &'a Buffer,
    new: &'a Buffer,
    new_indices: Vec<Expr>,
    padding: Expr,
    pad: &'a PadValue,
    remap: HashMap<VarId, Expr>,
    new_iter_vars: Option<(Vec<IterVar>, Vec<Expr>)>,
    all_replaced: bool,
}

impl<'a> StoreReplacer<'a> {
    fn new(
        info: &'a WriteInfo,
        old: &'a Buffer,
        new: &'a Buffer,
        inv: &PaddedInverse,
        pad: &'a PadValue,
    ) -> Self {
        let mut me = StoreReplacer {
            info,
            old,
            new,
            new_indices: inv.axes.iter().map(|v| v.to_expr()).collect(),
            padding: inv.padding.clone(),
            pad,
            remap: info
                .loopnest
                .iter()
                .zip(&inv.old_indices)
                .map(|(l, e)| (l.loop_var.id(), e.clone()))
                .collect(),
            new_iter_vars: None,
            all_replaced: true,
        };
        me.block_updates(inv);
        me
    }

    /// When the store's indices are the block's spatial iterators in order,
    /// the block iterates over the new axes instead.
    fn block_updates(&mut self, inv: &PaddedInverse) {
        let Some(realize) = &self.info.realize else {
            return;
        };
        let ivs = &realize.block.iter_vars;
        let idx = &self.info.indices;
        if idx.is_empty() || ivs.len() < idx.len() {
            return;
        }
        let Some(start) = ivs
            .iter()
            .position(|iv| idx[0].as_var() == Some(&iv.var))
            .filter(|&s| s + idx.len() <= ivs.len())
        else {
            return;
        };
        let matches = idx.iter().enumerate().all(|(k, e)| {
            e.as_var() == Some(&ivs[start + k].var) && ivs[start + k].kind == IterKind::Spatial
        });
        if !matches {
            return;
        }
        let virtuals: Vec<Var> = inv
            .axes
            .iter()
            .map(|a| Var::new(format!("v_{}", a.name()), a.dtype()))
            .collect();
        let to_virtual: HashMap<VarId, Expr> = inv
            .axes
            .iter()
            .zip(&virtuals)
            .map(|(a, v)| (a.id(), v.to_expr()))
            .collect();
        let mut vars = ivs[..start].to_vec();
        let mut values = realize.iter_values[..start].to_vec();
        for ((a, v), dim) in inv.axes.iter().zip(&virtuals).zip(&self.new.shape) {
            vars.push(IterVar {
                var: v.clone(),
                dom: Range::from_extent(dim.clone()),
                kind: IterKind::Spatial,
            });
            values.push(a.to_expr());
        }
        vars.extend(ivs[start + idx.len()..].iter().cloned());
        values.extend(realize.iter_values[start + idx.len()..].iter().cloned());
        for (k, e) in idx.iter().enumerate() {
            if let Some(v) = e.as_var() {
                self.remap
                    .insert(v.id(), substitute_expr(&inv.old_indices[k], &to_virtual));
            }
        }
        self.padding = substitute_expr(&self.padding, &to_virtual);
        self.new_indices = virtuals.iter().map(|v| v.to_expr()).collect();
        self.new_iter_vars = Some((vars, values));
    }
}

impl Mutator for StoreReplacer<'_> {
    fn expr(&mut self, e: &Expr) -> Expr {
        if let Some(v) = e.as_var() {
            if let Some(x) = self.remap.get(&v.id()) {
                return x.clone();
            }
        }
        walk_expr(self, e)
    }
    fn stmt(&mut self, s: &Stmt) -> Stmt {
        match s.kind() {
            StmtKind::Store {
                buffer,
                value,
                indices,
            } => {
                let same = buffer == self.old
                    && indices.len() == self.info.indices.len()
                    && indices
                        .iter()
                        .zip(&self.info.indices)
                        .all(|(a, b)| expr_deep_equal(a, b));
                if !same {
                    self.all_replaced = false;
                    return walk_stmt(self, s);
                }
                let value = self.expr(value);
                let pad = self.pad.at(&self.new_indices);
                Stmt::new(
                    StmtKind::Store {
                        buffer: self.new.clone(),
                        value: Expr::call(
                            Intrinsic::IfThenElse,
                            vec![self.padding.clone(), pad, value.clone()],
                            value.dtype(),
                        ),
                        indices: self.new_indices.clone(),
                    },
                    s.span(),
                )
            }
            StmtKind::BlockRealize(r) => {
                let out = walk_stmt(self, s);
                let mine = self
                    .info
                    .realize
                    .as_ref()
                    .is_some_and(|x| same_realize(x, r));
                match (mine, &self.new_iter_vars, out.kind()) {
                    (true, Some((vars, values)), StmtKind::BlockRealize(nr)) => {
                        let mut nr = nr.clone();
                        nr.block.iter_vars = vars.clone();
                        nr.iter_values = values.clone();
                        Stmt::new(StmtKind::BlockRealize(nr), s.span())
                    }
                    _ => out,
                }
            }
            _ => walk_stmt(self, s),
        }
    }
}

/// Loops over the new shape around `body`.
fn loop_nest(axes: &[Var], shape: &[Expr], body: Stmt) -> Stmt {
    axes.iter().zip(shape).rev().fold(body, |acc, (a, n)| {
        Stmt::from_kind(StmtKind::For(For {
            loop_var: a.clone(),
            min: Expr::int(0, a.dtype()),
            extent: n.clone(),
            kind: ForKind::Serial,
            thread_tag: None,
            annotations: Default::default(),
            body: acc,
        }))
    })
}

/// Replaces the loop of one variable, or inserts a statement after a loop
/// or a block.
struct Splice<'a> {
    replace: &'a HashMap<VarId, Stmt>,
    after: Option<(&'a Anchor, Stmt)>,
}

enum Anchor {
    Loop(VarId),
    Block(Box<BlockRealize>),
}

impl Mutator for Splice<'_> {
    fn stmt(&mut self, s: &Stmt) -> Stmt {
        if let StmtKind::Seq(items) = s.kind() {
            // An insertion joins the enclosing sequence (TVM flattens it).
            let mut out = Vec::with_capacity(items.len() + 1);
            for item in items {
                let r = self.stmt(item);
                match r.kind() {
                    StmtKind::Seq(inner) => out.extend(inner.iter().cloned()),
                    _ => out.push(r),
                }
            }
            return Stmt::new(StmtKind::Seq(out), s.span());
        }
        if let StmtKind::For(l) = s.kind() {
            if let Some(r) = self.replace.get(&l.loop_var.id()) {
                return r.clone();
            }
        }
        let out = walk_stmt(self, s);
        let hit = match (&self.after, s.kind()) {
            (Some((Anchor::Loop(id), _)), StmtKind::For(l)) => l.loop_var.id() == *id,
            (Some((Anchor::Block(b), _)), StmtKind::BlockRealize(r)) => same_realize(b, r),
            _ => false,
        };
        match (&self.after, hit) {
            (Some((_, extra)), true) => Stmt::seq(vec![out, extra.clone()]),
            _ => out,
        }
    }
}

/// Writes `pad` into the padding of `new` (replacing `old`) in `body`:
/// producers rewritten to `T.if_then_else` where TVM can, else a fill block
/// after the last store. Loads and stores elsewhere are left to the layout
/// rewriter.
pub(super) fn write_padding(
    body: &Stmt,
    old: &Buffer,
    new: &Buffer,
    inv: &PaddedInverse,
    pad: &PadValue,
) -> std::result::Result<Stmt, ScheduleError> {
    let mut planner = Planner {
        old,
        loops: Vec::new(),
        depth: HashMap::new(),
        bindings: HashMap::new(),
        realize: None,
        writes: Vec::new(),
    };
    planner.visit(body);
    if planner.writes.is_empty() {
        return Err(ScheduleError::unsupported(
            P,
            format!(
                "buffer {} is not written in this function, so its padding would have to be \
                 assumed to hold the pad_value (TVM states that with T.assume, which Tessel does not have)",
                old.name
            ),
        ));
    }
    let mut replace: HashMap<VarId, Stmt> = HashMap::new();
    for info in &planner.writes {
        if !info.row_major {
            continue;
        }
        let (Some(first), Some(last)) = (info.loopnest.first(), info.loopnest.last()) else {
            continue;
        };
        let mut r = StoreReplacer::new(info, old, new, inv, pad);
        let inner = r.stmt(&last.body);
        if r.all_replaced {
            replace.insert(first.loop_var.id(), loop_nest(&inv.axes, &new.shape, inner));
        }
    }
    if !replace.is_empty() {
        return Ok(Splice {
            replace: &replace,
            after: None,
        }
        .stmt(body));
    }
    let Some(last) = planner.writes.last() else {
        return Ok(body.clone());
    };
    let anchor = match (last.loopnest.first(), &last.realize) {
        (Some(l), _) => Anchor::Loop(l.loop_var.id()),
        (None, Some(r)) => Anchor::Block(Box::new(r.clone())),
        (None, None) => {
            return Err(ScheduleError::unsupported(
                P,
                format!(
                    "buffer {} is written outside of any loop or block; Tessel cannot place its padding",
                    old.name
                ),
            ))
        }
    };
    let virtuals: Vec<Var> = inv
        .axes
        .iter()
        .map(|a| Var::new(format!("v_{}", a.name()), a.dtype()))
        .collect();
    let indices: Vec<Expr> = virtuals.iter().map(|v| v.to_expr()).collect();
    let fill = Stmt::from_kind(StmtKind::Store {
        buffer: new.clone(),
        value: pad.at(&indices),
        indices: indices.clone(),
    });
    let block = Block {
        name: format!("buffer_{}_padding", new.name),
        iter_vars: virtuals
            .iter()
            .zip(&new.shape)
            .map(|(v, n)| IterVar {
                var: v.clone(),
                dom: Range::from_extent(n.clone()),
                kind: IterKind::Spatial,
            })
            .collect(),
        reads: Vec::new(),
        writes: vec![BufferRegion {
            buffer: new.clone(),
            region: indices.iter().cloned().map(Range::point).collect(),
        }],
        alloc_buffers: Vec::new(),
        match_buffers: Vec::new(),
        annotations: Default::default(),
        init: None,
        body: fill,
        span: Default::default(),
    };
    let realize = Stmt::from_kind(StmtKind::BlockRealize(BlockRealize {
        iter_values: inv.axes.iter().map(|a| a.to_expr()).collect(),
        predicate: inv.padding.clone(),
        block,
    }));
    let extra = loop_nest(&inv.axes, &new.shape, realize);
    Ok(Splice {
        replace: &replace,
        after: Some((&anchor, extra)),
    }
    .stmt(body))
}
