//! `pad_einsum`: pads the iteration space of an einsum block to multiples of
//! given factors, through zero-padded copies of its inputs and a padded
//! output that a last block copies back.
//!
//! Behaviour checked against TVM 0.27 (`PadEinsum`):
//!
//! - **Which blocks.** Every buffer the block loads or stores is indexed by
//!   distinct iterators, one per dimension, and each dimension spans its
//!   iterator's whole domain; the block writes one buffer. `padding` gives
//!   one positive factor per iterator.
//! - **Result.** Each iterator's extent (and the loop binding it) rounds up
//!   to a multiple of its factor. Every buffer with a dimension that grows is
//!   replaced in the block by `<name>_pad`, allocated in the block's scope
//!   (inputs in read order, then the output). An input gets the block
//!   `<name>_pad` right before the block's loops, over loops `i0, i1, …` of
//!   the padded shape, storing `T.if_then_else(v0 < n0 and …, x[v0, …], 0)`
//!   (one bound per grown dimension); the output gets the block `<name>_pad`
//!   right after them, copying the original extent back. Nothing is
//!   returned.
//! - **Tessel's narrower rules.** The loops above the block, up to its
//!   scope, must be a perfect nest each binding one iterator directly and
//!   covering its domain from 0, and the block has no predicate.

use std::collections::HashMap;

use super::primitives::{param, Args, ParamType as T, Primitive, Returns};
use super::query::{enclosing_block_path, enclosing_loops};
use super::replay::SchedValue;
use super::tree::{self, StmtPath};
use super::util;
use super::*;
use tessel_tir::ir::mutate::{walk_stmt, Mutator};

pub(super) const PAD_EINSUM: Primitive = Primitive {
    method: "pad_einsum",
    aliases: &[],
    kind: "PadEinsum",
    params: &[param("block", T::Block), param("padding", T::Ints).attr()],
    returns: Returns::Nothing,
    traced: true,
    apply: super::primitives::unless_lean(|sch, args| {
        sch.pad_einsum_concrete(args.block("block")?, &args.ints("padding")?)?;
        Ok(SchedValue::None)
    }),
    menu: None,
};

/// Swaps buffers (by identity) for their padded versions.
struct SwapBuffers<'a>(&'a HashMap<BufferId, Buffer>);

impl Mutator for SwapBuffers<'_> {
    fn buffer(&mut self, b: &Buffer) -> Buffer {
        self.0.get(&b.id).cloned().unwrap_or_else(|| b.clone())
    }
}

/// Every buffer access of the stores under `s` (the store and the loads in
/// it), as (buffer, indices).
fn accesses(s: &Stmt, out: &mut Vec<(Buffer, Vec<Expr>)>) {
    let on_expr = |e: &Expr, out: &mut Vec<(Buffer, Vec<Expr>)>| {
        e.walk(&mut |x| {
            if let ExprKind::Load { buffer, indices } = x.kind() {
                out.push((buffer.clone(), indices.clone()));
            }
        })
    };
    match s.kind() {
        StmtKind::Store {
            buffer,
            value,
            indices,
        } => {
            out.push((buffer.clone(), indices.clone()));
            for i in indices {
                on_expr(i, out);
            }
            on_expr(value, out);
        }
        _ => {
            for c in tree::children(s) {
                accesses(&c, out);
            }
        }
    }
}

/// A fresh loop nest `i0, i1, …` over `shape` around the block `body` gives
/// (with its bindings) from the loop variables.
fn copy_nest(shape: &[i64], dt: DataType, body: impl Fn(&[Expr]) -> (Block, Vec<Expr>)) -> Stmt {
    let loop_vars: Vec<Var> = (0..shape.len())
        .map(|d| Var::new(format!("i{d}"), dt))
        .collect();
    let (block, values) = body(&loop_vars.iter().map(|v| v.to_expr()).collect::<Vec<_>>());
    let mut s = util::realize(values, Expr::bool(true), block);
    for (v, &n) in loop_vars.into_iter().zip(shape).rev() {
        s = Stmt::from_kind(StmtKind::For(For {
            loop_var: v,
            min: Expr::int(0, dt),
            extent: Expr::int(n, dt),
            kind: ForKind::Serial,
            thread_tag: None,
            annotations: Default::default(),
            body: s,
        }));
    }
    s
}

impl Schedule {
    /// `sch.pad_einsum(block, padding)`: see the module documentation.
    pub fn pad_einsum(&mut self, block_rv: BlockRV, padding: &[i64]) -> Result<()> {
        let args = Args::typed(
            &PAD_EINSUM,
            vec![
                block_rv.into(),
                SchedValue::List(padding.iter().map(|&p| SchedValue::Int(p)).collect()),
            ],
        );
        self.apply_traced(&PAD_EINSUM, args)?;
        Ok(())
    }

    fn pad_einsum_concrete(&mut self, block_rv: BlockRV, padding: &[i64]) -> Result<()> {
        let (block_path, realize) = self.resolve_block(P, block_rv)?;
        let block = &realize.block;
        let extents = einsum_extents(&block_path, &realize, padding)?;
        let padded: Vec<i64> = extents
            .iter()
            .zip(padding)
            .map(|(&n, &p)| (n + p - 1) / p * p)
            .collect();
        // The loops: a perfect nest, each binding one iterator directly.
        let body = self.body(P)?;
        let scope = enclosing_block_path(&body, &block_path).ok_or_else(|| {
            ScheduleError::block_structure(P, "the block has no enclosing scope block")
        })?;
        let (loops, loop_of_iter) = einsum_loops(&body, &block_path, &scope, &realize, &extents)?;
        // Each access: distinct iterators, one per dimension, covering it.
        let dims = einsum_dims(&block_path, block, &extents)?;
        if block.writes.len() != 1 {
            return Err(refusal(
                ScheduleErrorKind::BlockStructure,
                &block_path,
                format!("block `{}` must write exactly one buffer", block.name),
            ));
        }
        let output = block.writes[0].buffer.clone();
        // Padded buffers, inputs in read order then the output.
        let mut order: Vec<Buffer> = block
            .reads
            .iter()
            .map(|r| r.buffer.clone())
            .filter(|b| b.id != output.id)
            .collect();
        order.dedup_by(|a, b| a.id == b.id);
        order.push(output.clone());
        let mut swap: HashMap<BufferId, Buffer> = HashMap::new();
        let mut before = Vec::new();
        let mut after = Vec::new();
        let mut allocs = Vec::new();
        for buf in &order {
            let Some(its) = dims.get(&buf.id) else {
                continue;
            };
            let shape: Vec<i64> = its.iter().map(|&i| extents[i]).collect();
            let new_shape: Vec<i64> = its.iter().map(|&i| padded[i]).collect();
            if shape == new_shape {
                continue;
            }
            let is_output = buf.id == output.id;
            let (pad_buf, nest) = build_pad_stage(buf, is_output, &shape, &new_shape, block.span);
            if is_output {
                after.push(nest);
            } else {
                before.push(nest);
            }
            swap.insert(buf.id, pad_buf.clone());
            allocs.push(pad_buf);
        }
        // The block over the padded space, on padded buffers.
        let mut new_realize = realize.clone();
        for (iv, &n) in new_realize.block.iter_vars.iter_mut().zip(&padded) {
            iv.dom = Range::new(iv.dom.min.clone(), Expr::int(n, iv.dom.extent.dtype()));
        }
        let swapped = walk_stmt(
            &mut SwapBuffers(&swap),
            &Stmt::from_kind(StmtKind::BlockRealize(new_realize)),
        );
        let mut new_body = tree::replace(&body, &block_path, swapped);
        for (i, k) in loop_of_iter.iter().enumerate() {
            let (path, _) = &loops[k.unwrap_or_default()];
            let Some(StmtKind::For(l)) = tree::get(&new_body, path).map(|s| s.kind().clone())
            else {
                return Err(ScheduleError::internal(
                    P,
                    "internal: a loop path holds no loop",
                ));
            };
            let l = For {
                extent: Expr::int(padded[i], l.extent.dtype()),
                ..l
            };
            new_body = tree::replace(&new_body, path, Stmt::from_kind(StmtKind::For(l)));
        }
        let outer = &loops[0].0;
        let nest = tree::get(&new_body, outer)
            .ok_or_else(|| ScheduleError::internal(P, "internal: stale loop path"))?;
        let mut seq = before;
        seq.push(nest);
        seq.extend(after);
        new_body = tree::replace(&new_body, outer, Stmt::seq(seq));
        for b in allocs {
            new_body = cache::add_alloc(&new_body, &scope, b);
        }
        self.set_body(P, new_body)
    }
}

const P: &str = "pad_einsum";

/// A `pad_einsum` refusal at the block.
fn refusal(kind: ScheduleErrorKind, block_path: &StmtPath, msg: String) -> ScheduleError {
    ScheduleError::new(kind, P, msg).at(block_path.clone())
}

/// The argument checks: one positive factor per iterator, no predicate, and
/// iterators over constant extents from 0, which it returns.
fn einsum_extents(
    block_path: &StmtPath,
    realize: &BlockRealize,
    padding: &[i64],
) -> Result<Vec<i64>> {
    let block = &realize.block;
    let refuse = |kind: ScheduleErrorKind, msg: String| -> Result<Vec<i64>> {
        Err(refusal(kind, block_path, msg))
    };
    if padding.len() != block.iter_vars.len() {
        return refuse(
            ScheduleErrorKind::InvalidArgument,
            format!(
                "padding has {} factors but block `{}` has {} iterators",
                padding.len(),
                block.name,
                block.iter_vars.len()
            ),
        );
    }
    if padding.iter().any(|&p| p <= 0) {
        return refuse(
            ScheduleErrorKind::InvalidArgument,
            format!("padding factors must be positive, got {padding:?}"),
        );
    }
    if !util::is_true(&realize.predicate) {
        return refuse(
            ScheduleErrorKind::BlockStructure,
            format!(
                "block `{}` has a predicate; pad_einsum needs none",
                block.name
            ),
        );
    }
    let mut extents = Vec::new();
    for iv in &block.iter_vars {
        match (iv.dom.min.as_int(), iv.dom.extent.as_int()) {
            (Some(0), Some(n)) => extents.push(n),
            _ => {
                return refuse(
                    ScheduleErrorKind::BlockStructure,
                    format!(
                        "iterator `{}` of block `{}` does not range over a constant extent from 0",
                        iv.var.name(),
                        block.name
                    ),
                )
            }
        }
    }
    Ok(extents)
}

/// Loops with their paths, outermost first.
type LoopNest = Vec<(StmtPath, For)>;

/// The loops (in the scope) around the block, which must be a perfect nest
/// each binding one iterator over its whole domain, and for each iterator
/// the index of its loop.
fn einsum_loops(
    body: &Stmt,
    block_path: &StmtPath,
    scope: &StmtPath,
    realize: &BlockRealize,
    extents: &[i64],
) -> Result<(LoopNest, Vec<Option<usize>>)> {
    let block = &realize.block;
    let loops: LoopNest = enclosing_loops(body, block_path)
        .into_iter()
        .filter(|(p, _)| scope.is_prefix_of(p))
        .collect();
    let mut loop_of_iter: Vec<Option<usize>> = vec![None; extents.len()];
    for (k, (p, l)) in loops.iter().enumerate() {
        let child_ok = p.0.len() + 1
            == loops
                .get(k + 1)
                .map_or(block_path.0.len(), |(q, _)| q.0.len());
        let iter = realize
            .iter_values
            .iter()
            .position(|e| e.as_var() == Some(&l.loop_var));
        let ok = child_ok
            && iter.is_some_and(|i| {
                loop_of_iter[i].is_none()
                    && l.min.is_const_int(0)
                    && l.extent.as_int() == Some(extents[i])
            });
        if !ok {
            return Err(refusal(
                ScheduleErrorKind::LoopStructure,
                block_path,
                format!(
                    "loop `{}` is not a loop of a perfect nest that binds one iterator of block `{}` over its whole domain",
                    l.loop_var.name(),
                    block.name
                ),
            ));
        }
        loop_of_iter[iter.unwrap_or_default()] = Some(k);
    }
    if loop_of_iter.iter().any(Option::is_none) || loops.is_empty() {
        return Err(refusal(
            ScheduleErrorKind::LoopStructure,
            block_path,
            format!(
                "every iterator of block `{}` must be bound to a loop of its own",
                block.name
            ),
        ));
    }
    Ok((loops, loop_of_iter))
}

/// For each buffer the block accesses, the iterators indexing its
/// dimensions: distinct, one per dimension, covering it, the same at every
/// access.
fn einsum_dims(
    block_path: &StmtPath,
    block: &Block,
    extents: &[i64],
) -> Result<HashMap<BufferId, Vec<usize>>> {
    let mut all = Vec::new();
    if let Some(init) = &block.init {
        accesses(init, &mut all);
    }
    accesses(&block.body, &mut all);
    let mut dims: HashMap<BufferId, Vec<usize>> = HashMap::new();
    for (buffer, indices) in &all {
        let mut its = Vec::new();
        for (d, e) in indices.iter().enumerate() {
            let it = e
                .as_var()
                .and_then(|v| block.iter_vars.iter().position(|iv| iv.var == *v));
            let covers = it
                .is_some_and(|i| buffer.shape.get(d).and_then(|s| s.as_int()) == Some(extents[i]));
            if !covers || its.contains(&it) {
                return Err(refusal(
                    ScheduleErrorKind::BlockStructure,
                    block_path,
                    format!(
                        "block `{}` is not an einsum: `{}` is not indexed by distinct iterators covering its dimensions",
                        block.name, buffer.name
                    ),
                ));
            }
            its.push(it);
        }
        let its: Vec<usize> = its.into_iter().flatten().collect();
        if dims.get(&buffer.id).is_some_and(|x| *x != its) {
            return Err(refusal(
                ScheduleErrorKind::BlockStructure,
                block_path,
                format!(
                    "block `{}` is not an einsum: `{}` is indexed in two ways",
                    block.name, buffer.name
                ),
            ));
        }
        dims.insert(buffer.id, its);
    }
    Ok(dims)
}

/// The padded copy `<buf>_pad` of `buf` and the stage nest that fills it
/// (an input, zero past `shape`) or copies it back (the output).
fn build_pad_stage(
    buf: &Buffer,
    is_output: bool,
    shape: &[i64],
    new_shape: &[i64],
    span: tessel_tir::diag::Span,
) -> (Buffer, Stmt) {
    let name = format!("{}_pad", buf.name);
    let dt = buf.shape.first().map_or(DataType::int(32), |s| s.dtype());
    let pad_buf = buf.derive(|n| {
        n.name = name.clone();
        n.shape = new_shape.iter().map(|&s| Expr::int(s, dt)).collect();
        n.scope = "global".to_string();
    });
    let iter_vars: Vec<IterVar> = (0..shape.len())
        .map(|d| IterVar {
            var: Var::new(format!("v{d}"), dt),
            dom: Range::new(
                Expr::int(0, dt),
                Expr::int(if is_output { shape[d] } else { new_shape[d] }, dt),
            ),
            kind: IterKind::Spatial,
        })
        .collect();
    let vs: Vec<Expr> = iter_vars.iter().map(|iv| iv.var.to_expr()).collect();
    let (src, dst) = if is_output {
        (&pad_buf, buf)
    } else {
        (buf, &pad_buf)
    };
    let load = Expr::load(src, vs.clone());
    let value = if is_output {
        load
    } else {
        let bound = (0..shape.len())
            .filter(|&d| shape[d] != new_shape[d])
            .map(|d| Expr::cmp(CmpOp::Lt, vs[d].clone(), Expr::int(shape[d], dt)))
            .reduce(Expr::and)
            .unwrap_or_else(|| Expr::bool(true));
        let zero = if buf.dtype.is_float() {
            Expr::float(0.0, buf.dtype)
        } else {
            Expr::int(0, buf.dtype)
        };
        Expr::call(Intrinsic::IfThenElse, vec![bound, load, zero], buf.dtype)
    };
    let stage = Block {
        name: name.clone(),
        iter_vars,
        reads: vec![util::point_region(src, &vs)],
        writes: vec![util::point_region(dst, &vs)],
        alloc_buffers: vec![],
        match_buffers: vec![],
        annotations: Default::default(),
        init: None,
        body: Stmt::from_kind(StmtKind::Store {
            buffer: dst.clone(),
            value,
            indices: vs.clone(),
        }),
        span,
    };
    let nest_shape = if is_output { shape } else { new_shape };
    let nest = copy_nest(nest_shape, dt, |loop_vars| {
        (stage.clone(), loop_vars.to_vec())
    });
    (pad_buf, nest)
}
