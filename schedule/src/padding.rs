//! `decompose_padding` and `can_decompose_padding`: a block that writes a
//! padded buffer with `T.if_then_else(in_bounds, value, pad)` becomes a fill
//! block that writes `pad` everywhere and, after it, a copy block that writes
//! `value` over the in-bound iterators only.
//!
//! Behaviour checked against TVM 0.27 (`DecomposePadding`):
//!
//! - **Which blocks.** A block with spatial iterators only, no `T.init()`,
//!   whose body is one store of `T.if_then_else(cond, value, pad)` where `pad`
//!   reads no buffer and no iterator. `loop` must enclose the block in the
//!   same block scope.
//! - **Result.** Before `loop`, copies of the loops from `loop` down hold the
//!   fill block `<name>_pad_const` (same iterators and bindings, no reads,
//!   the store of `pad`). The original block keeps its name; each iterator
//!   `v` that `cond` bounds to `[lo, hi)` gets the domain `hi - lo` and is
//!   read as `v + lo`. Where a loop at or under `loop` binds it alone over
//!   its whole domain, that loop runs `hi - lo` times; otherwise the binding
//!   `b` becomes `b - lo` and the block gets the predicate `lo <= b and b <
//!   hi`. The store writes `value` without the condition. It returns the
//!   fill block.
//! - **`can_decompose_padding`** answers whether `decompose_padding` would
//!   succeed; it changes nothing and is not traced.
//! - **Tessel's narrower rule.** The condition must be a conjunction of
//!   bounds of one iterator against a constant (`lo <= v`, `v < hi`, ...);
//!   TVM also takes bounds on expressions of several iterators.

use std::collections::HashMap;

use super::primitives::{param, Args, ParamType as T, Primitive, Returns};
use super::query::enclosing_loops;
use super::reduction::conjuncts;
use super::replay::SchedValue;
use super::tree::{self, StmtPath};
use super::util;
use super::*;
use tessel_tir::arith::Analyzer;
use tessel_tir::ir::mutate::substitute_expr;

pub(super) const DECOMPOSE_PADDING: Primitive = Primitive {
    method: "decompose_padding",
    aliases: &[],
    kind: "DecomposePadding",
    params: &[param("block", T::Block), param("loop", T::Loop)],
    returns: Returns::One,
    traced: true,
    apply: super::primitives::unless_lean(|sch, args| {
        let fill = sch.decompose_padding_concrete(args.block("block")?, args.loop_rv("loop")?)?;
        Ok(fill.into())
    }),
    menu: None,
};

pub(super) const CAN_DECOMPOSE_PADDING: Primitive = Primitive {
    method: "can_decompose_padding",
    aliases: &[],
    kind: "CanDecomposePadding",
    params: &[param("block", T::Block), param("loop", T::Loop)],
    returns: Returns::One,
    traced: false,
    apply: super::primitives::unless_lean(|sch, args| {
        let plan = sch.padding_plan(args.block("block")?, args.loop_rv("loop")?);
        Ok(SchedValue::Bool(plan.is_ok()))
    }),
    menu: None,
};

/// What `decompose_padding` will do, once every rule is checked.
struct PaddingPlan {
    block_path: StmtPath,
    realize: BlockRealize,
    loop_path: StmtPath,
    /// The loops from `loop` down to the block, outermost first.
    inner_loops: Vec<(StmtPath, For)>,
    buffer: Buffer,
    indices: Vec<Expr>,
    value: Expr,
    pad: Expr,
    /// Per iterator: the in-bound `[lo, hi)` where the condition narrows it.
    bounds: Vec<Option<(i64, i64)>>,
}

/// `v` compared with a constant, as a bound `(lower, upper)` on `v` (upper
/// exclusive); `None` when `c` has another form.
fn bound_of(c: &Expr, iters: &[IterVar]) -> Option<(usize, Option<i64>, Option<i64>)> {
    let ExprKind::Cmp(op, a, b) = c.kind() else {
        return None;
    };
    let index = |e: &Expr| {
        e.as_var()
            .and_then(|v| iters.iter().position(|iv| iv.var == *v))
    };
    // Normalise to `v op k`.
    let (i, op, k) = match (index(a), b.as_int(), index(b), a.as_int()) {
        (Some(i), Some(k), _, _) => (i, *op, k),
        (_, _, Some(i), Some(k)) => (
            i,
            match op {
                CmpOp::Lt => CmpOp::Gt,
                CmpOp::Le => CmpOp::Ge,
                CmpOp::Gt => CmpOp::Lt,
                CmpOp::Ge => CmpOp::Le,
                other => *other,
            },
            k,
        ),
        _ => return None,
    };
    match op {
        CmpOp::Ge => Some((i, Some(k), None)),
        CmpOp::Gt => Some((i, Some(k + 1), None)),
        CmpOp::Lt => Some((i, None, Some(k))),
        CmpOp::Le => Some((i, None, Some(k + 1))),
        CmpOp::Eq | CmpOp::Ne => None,
    }
}

impl Schedule {
    /// `sch.decompose_padding(block, loop)`: see the module documentation.
    pub fn decompose_padding(&mut self, block_rv: BlockRV, loop_rv: LoopRV) -> Result<BlockRV> {
        let args = Args::typed(&DECOMPOSE_PADDING, vec![block_rv.into(), loop_rv.into()]);
        self.apply_traced(&DECOMPOSE_PADDING, args)?.into_block()
    }

    /// `sch.can_decompose_padding(block, loop)`: whether `decompose_padding`
    /// would succeed.
    pub fn can_decompose_padding(&mut self, block_rv: BlockRV, loop_rv: LoopRV) -> Result<bool> {
        let args = Args::typed(
            &CAN_DECOMPOSE_PADDING,
            vec![block_rv.into(), loop_rv.into()],
        );
        match self.apply_traced(&CAN_DECOMPOSE_PADDING, args)? {
            SchedValue::Bool(b) => Ok(b),
            other => Err(ScheduleError::internal(
                "can_decompose_padding",
                format!("internal: unexpected result {other:?}"),
            )),
        }
    }

    fn padding_plan(&self, block_rv: BlockRV, loop_rv: LoopRV) -> Result<PaddingPlan> {
        const P: &str = "decompose_padding";
        let (block_path, realize) = self.resolve_block(P, block_rv)?;
        let (loop_path, loop_node) = self.resolve_loop(P, loop_rv)?;
        let block = &realize.block;
        let refuse =
            |msg: String| Err(ScheduleError::block_structure(P, msg).at(block_path.clone()));
        if block.init.is_some()
            || block
                .iter_vars
                .iter()
                .any(|iv| iv.kind != IterKind::Spatial)
        {
            return refuse(format!(
                "block `{}` is not a spatial block without `T.init()`; only such a block can be a padding block",
                block.name
            ));
        }
        let StmtKind::Store {
            buffer,
            value,
            indices,
        } = block.body.kind()
        else {
            return refuse(format!(
                "the body of block `{}` is not a single buffer store",
                block.name
            ));
        };
        let ExprKind::Call {
            op: Intrinsic::IfThenElse,
            args,
        } = value.kind()
        else {
            return refuse(format!(
                "block `{}` is not a padding block: it does not store a `T.if_then_else(in_bounds, value, pad)`",
                block.name
            ));
        };
        let [cond, in_bound, pad] = args.as_slice() else {
            return refuse("`T.if_then_else` takes three arguments".into());
        };
        let mut pad_is_constant = true;
        pad.walk(&mut |e| {
            if matches!(e.kind(), ExprKind::Var(_) | ExprKind::Load { .. }) {
                pad_is_constant = false;
            }
        });
        if !pad_is_constant {
            return refuse(format!(
                "the pad value of block `{}` reads a buffer or a variable; it must be a constant",
                block.name
            ));
        }
        let body = self.body(P)?;
        let loops = enclosing_loops(&body, &block_path);
        let Some(pos) = loops
            .iter()
            .position(|(_, l)| l.loop_var == loop_node.loop_var)
        else {
            return Err(ScheduleError::loop_structure(
                P,
                format!(
                    "loop `{}` is not an ancestor of block `{}` in its block scope",
                    loop_node.loop_var.name(),
                    block.name
                ),
            )
            .at(loop_path));
        };
        let inner_loops = loops[pos..].to_vec();
        // The in-bound interval of each iterator, from the condition.
        let mut bounds: Vec<(i64, i64)> = Vec::new();
        for iv in &block.iter_vars {
            let (Some(min), Some(extent)) = (iv.dom.min.as_int(), iv.dom.extent.as_int()) else {
                return refuse(format!(
                    "iterator `{}` of block `{}` has a non-constant domain",
                    iv.var.name(),
                    block.name
                ));
            };
            bounds.push((min, min + extent));
        }
        let full = bounds.clone();
        for c in conjuncts(cond) {
            let Some((i, lo, hi)) = bound_of(&c, &block.iter_vars) else {
                return refuse(format!(
                    "the padding condition of block `{}` is not a conjunction of bounds of its iterators by constants",
                    block.name
                ));
            };
            if let Some(lo) = lo {
                bounds[i].0 = bounds[i].0.max(lo);
            }
            if let Some(hi) = hi {
                bounds[i].1 = bounds[i].1.min(hi);
            }
        }
        let mut narrowed = Vec::new();
        for (i, (iv, &(lo, hi))) in block.iter_vars.iter().zip(&bounds).enumerate() {
            if (lo, hi) == full[i] {
                narrowed.push(None);
                continue;
            }
            if lo >= hi {
                return refuse(format!(
                    "iterator `{}` of block `{}` has no in-bound value",
                    iv.var.name(),
                    block.name
                ));
            }
            narrowed.push(Some((lo, hi)));
        }
        Ok(PaddingPlan {
            block_path,
            realize: realize.clone(),
            loop_path,
            inner_loops,
            buffer: buffer.clone(),
            indices: indices.clone(),
            value: in_bound.clone(),
            pad: pad.clone(),
            bounds: narrowed,
        })
    }

    /// The loop bound alone to iterator `i`, at or under `loop`, starting at
    /// 0 and covering the iterator's whole domain: narrowing it narrows the
    /// iterator.
    fn narrowable_loop(&self, plan: &PaddingPlan, i: usize) -> Option<VarId> {
        let iv = &plan.realize.block.iter_vars[i];
        let v = plan.realize.iter_values[i].as_var()?;
        let (_, l) = plan.inner_loops.iter().find(|(_, l)| l.loop_var == *v)?;
        let alone = plan
            .realize
            .iter_values
            .iter()
            .enumerate()
            .all(|(j, e)| j == i || !util::var_ids(e).contains(&v.id()));
        let covers = l.min.is_const_int(0)
            && iv.dom.min.is_const_int(0)
            && l.extent.as_int().is_some()
            && l.extent.as_int() == iv.dom.extent.as_int();
        (alone && covers).then(|| v.id())
    }

    fn decompose_padding_concrete(
        &mut self,
        block_rv: BlockRV,
        loop_rv: LoopRV,
    ) -> Result<BlockRV> {
        const P: &str = "decompose_padding";
        let plan = self.padding_plan(block_rv, loop_rv)?;
        let block = &plan.realize.block;
        // The fill nest: fresh copies of the loops, the fill block inside.
        let mut loop_subst: HashMap<VarId, Expr> = HashMap::new();
        let mut copies = Vec::new();
        for (_, l) in &plan.inner_loops {
            let copy = l.loop_var.fresh_copy();
            loop_subst.insert(l.loop_var.id(), copy.to_expr());
            copies.push((l.clone(), copy));
        }
        let mut iter_subst: HashMap<VarId, Expr> = HashMap::new();
        let iter_vars: Vec<IterVar> = block
            .iter_vars
            .iter()
            .map(|iv| {
                let nv = iv.var.fresh_copy();
                iter_subst.insert(iv.var.id(), nv.to_expr());
                IterVar {
                    var: nv,
                    dom: iv.dom.clone(),
                    kind: iv.kind,
                }
            })
            .collect();
        let fill_block = Block {
            name: format!("{}_pad_const", block.name),
            iter_vars,
            reads: vec![],
            writes: block
                .writes
                .iter()
                .map(|w| util::substitute_region(w, &iter_subst))
                .collect(),
            alloc_buffers: vec![],
            match_buffers: vec![],
            annotations: block.annotations.clone(),
            init: None,
            body: Stmt::from_kind(StmtKind::Store {
                buffer: plan.buffer.clone(),
                value: plan.pad.clone(),
                indices: plan
                    .indices
                    .iter()
                    .map(|e| substitute_expr(e, &iter_subst))
                    .collect(),
            }),
            span: block.span,
        };
        let mut fill = util::realize(
            plan.realize
                .iter_values
                .iter()
                .map(|e| substitute_expr(e, &loop_subst))
                .collect(),
            substitute_expr(&plan.realize.predicate, &loop_subst),
            fill_block,
        );
        for (l, copy) in copies.into_iter().rev() {
            fill = util::rebuild_loop(
                &For {
                    min: substitute_expr(&l.min, &loop_subst),
                    extent: substitute_expr(&l.extent, &loop_subst),
                    ..l.clone()
                },
                copy,
                fill,
            );
        }
        // The copy block: narrowed iterators, read shifted by their lower bound.
        let analyzer = Analyzer::new();
        let mut shift: HashMap<VarId, Expr> = HashMap::new();
        let mut copy_block = block.clone();
        let mut new_extents: HashMap<VarId, i64> = HashMap::new();
        let mut iter_values = plan.realize.iter_values.clone();
        let mut predicate = plan.realize.predicate.clone();
        for (i, b) in plan.bounds.iter().enumerate() {
            let Some((lo, hi)) = *b else { continue };
            let iv = &mut copy_block.iter_vars[i];
            let dt = iv.var.dtype();
            iv.dom = Range::new(Expr::int(0, dt), Expr::int(hi - lo, dt));
            shift.insert(
                iv.var.id(),
                Expr::binary(BinOp::Add, iv.var.to_expr(), Expr::int(lo, dt)),
            );
            let binding = &plan.realize.iter_values[i];
            match self.narrowable_loop(&plan, i) {
                // A loop of its own at or under `loop`: it runs over the in-bound part.
                Some(v) => {
                    new_extents.insert(v, hi - lo);
                }
                // Otherwise the block is guarded and reads the binding shifted.
                None => {
                    let in_bounds = Expr::and(
                        Expr::cmp(CmpOp::Le, Expr::int(lo, dt), binding.clone()),
                        Expr::cmp(CmpOp::Lt, binding.clone(), Expr::int(hi, dt)),
                    );
                    predicate = if util::is_true(&predicate) {
                        in_bounds
                    } else {
                        Expr::and(predicate, in_bounds)
                    };
                    iter_values[i] = analyzer.simplify(&Expr::binary(
                        BinOp::Sub,
                        binding.clone(),
                        Expr::int(lo, dt),
                    ));
                }
            }
        }
        let shifted = |e: &Expr| analyzer.simplify(&substitute_expr(e, &shift));
        let shift_region = |r: &BufferRegion| BufferRegion {
            buffer: r.buffer.clone(),
            region: r
                .region
                .iter()
                .map(|x| Range::new(shifted(&x.min), shifted(&x.extent)))
                .collect(),
        };
        copy_block.reads = block.reads.iter().map(shift_region).collect();
        copy_block.writes = block.writes.iter().map(shift_region).collect();
        copy_block.body = Stmt::from_kind(StmtKind::Store {
            buffer: plan.buffer.clone(),
            value: shifted(&plan.value),
            indices: plan.indices.iter().map(shifted).collect(),
        });
        let mut body = self.body(P)?;
        body = tree::replace(
            &body,
            &plan.block_path,
            util::realize(iter_values, predicate, copy_block),
        );
        for (path, l) in &plan.inner_loops {
            let Some(extent) = new_extents.get(&l.loop_var.id()) else {
                continue;
            };
            let Some(node) = tree::get(&body, path) else {
                return Err(ScheduleError::internal(P, "internal: stale loop path"));
            };
            let StmtKind::For(current) = node.kind() else {
                return Err(ScheduleError::internal(
                    P,
                    "internal: a loop path holds no loop",
                ));
            };
            let narrowed = For {
                extent: Expr::int(*extent, current.extent.dtype()),
                ..current.clone()
            };
            body = tree::replace(&body, path, Stmt::from_kind(StmtKind::For(narrowed)));
        }
        let loop_stmt = tree::get(&body, &plan.loop_path)
            .ok_or_else(|| ScheduleError::internal(P, "internal: stale loop path"))?;
        body = tree::replace(&body, &plan.loop_path, Stmt::seq(vec![fill, loop_stmt]));
        self.set_body(P, body)?;
        Ok(self.new_block_rv(&format!("{}_pad_const", block.name)))
    }
}
