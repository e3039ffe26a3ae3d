//! Loop transformations: `split`, `fuse`, `reorder`, `add_unit_loop`.

use std::collections::{HashMap, HashSet};

use super::menu::{MenuArg, MenuEntry, MenuSite, MenuTarget, MenuWhen};
use super::primitives::{param, Args, ParamType as T, Primitive, Returns};
use super::query::enclosing_loops;
use super::replay::SchedValue;
use super::tree::{self, StmtPath};
use super::util::var_ids;
use super::*;
use tessel_tir::ir::mutate::{substitute_stmt, walk_stmt, Mutator};

pub(super) const SPLIT: Primitive = Primitive {
    method: "split",
    aliases: &[],
    kind: "Split",
    params: &[
        param("loop", T::Loop),
        param("factors", T::Factors).spread_input(),
        param("preserve_unit_iters", T::Bool).or_bool(true).attr(),
        param("disable_predication", T::Bool).or_bool(false).attr(),
    ],
    returns: Returns::List,
    traced: true,
    apply: |sch, args| {
        let loops = sch.split_concrete(
            args.loop_rv("loop")?,
            &args.factors("factors")?,
            args.bool("preserve_unit_iters")?,
            args.bool("disable_predication")?,
        )?;
        Ok(SchedValue::rv_list(&loops))
    },
    menu: Some(MenuEntry {
        target: MenuTarget::Loop,
        help: "split into nested loops (None = inferred)",
        arg: MenuArg::Text {
            label: "split factors",
            default: |site| match site.extent {
                Some(e) if e % 4 == 0 && e > 4 => "None, 4".to_string(),
                Some(e) if e % 2 == 0 && e > 2 => "None, 2".to_string(),
                _ => "None, 4".to_string(),
            },
        },
        when: MenuWhen::Always,
        call: |site, arg| {
            let l = site.loop_name()?;
            let n = arg
                .split(',')
                .filter(|s| !s.trim().is_empty())
                .count()
                .max(1);
            let outs: Vec<String> = (0..n).map(|k| format!("{l}_{k}")).collect();
            Some(format!(
                "{} = sch.split({l}, factors=[{}])",
                outs.join(", "),
                arg.trim()
            ))
        },
    }),
};

pub(super) const FUSE: Primitive = Primitive {
    method: "fuse",
    aliases: &[],
    kind: "Fuse",
    params: &[
        param("loops", T::Loops).var_positional(),
        param("preserve_unit_iters", T::Bool)
            .or_bool(true)
            .keyword_only()
            .attr_bool_as_int(),
    ],
    returns: Returns::One,
    traced: true,
    apply: |sch, args| {
        let fused = sch.fuse_concrete(&args.loops("loops")?, args.bool("preserve_unit_iters")?)?;
        Ok(fused.into())
    },
    menu: Some(MenuEntry {
        target: MenuTarget::Loop,
        help: "fuse with the next loop",
        arg: MenuArg::None,
        when: MenuWhen::HasNextLoop,
        call: |site, _| {
            let (l, next) = (site.loop_name()?, site.next_loop()?);
            Some(format!("{l}_{next}_fused = sch.fuse({l}, {next})"))
        },
    }),
};

pub(super) const REORDER: Primitive = Primitive {
    method: "reorder",
    aliases: &[],
    kind: "Reorder",
    params: &[param("loops", T::Loops).var_positional()],
    returns: Returns::Nothing,
    traced: true,
    apply: |sch, args| {
        sch.reorder_concrete(&args.loops("loops")?)?;
        Ok(SchedValue::None)
    },
    menu: Some(MenuEntry {
        target: MenuTarget::Loop,
        help: "new order of these loops",
        arg: MenuArg::Text {
            label: "loops in their new order",
            default: |site: &MenuSite| site.loops[site.loop_pos.unwrap_or(0)..].join(", "),
        },
        when: MenuWhen::Always,
        call: |_, arg| Some(format!("sch.reorder({})", arg.trim())),
    }),
};

pub(super) const ADD_UNIT_LOOP: Primitive = Primitive {
    method: "add_unit_loop",
    aliases: &[],
    kind: "AddUnitLoop",
    params: &[param("block_or_loop", T::BlockOrLoop)],
    returns: Returns::One,
    traced: true,
    apply: |sch, args| {
        Ok(sch
            .add_unit_loop_concrete(args.rv("block_or_loop")?)?
            .into())
    },
    menu: None,
};

impl Schedule {
    /// `sch.split(loop, factors=[…])`: one loop becomes a nest whose extents
    /// multiply to (at least) the original extent. One factor may be `None`
    /// (inferred). When the factors over-cover the extent, the blocks below get
    /// a `T.where` predicate so no iteration runs twice.
    pub fn split(
        &mut self,
        loop_rv: LoopRV,
        factors: &[Factor],
        preserve_unit_iters: bool,
    ) -> Result<Vec<LoopRV>> {
        let factors = factors
            .iter()
            .map(|f| match f {
                Factor::Infer => SchedValue::None,
                Factor::Const(c) => SchedValue::Int(*c),
                Factor::Sampled(rv) => (*rv).into(),
            })
            .collect();
        let args = vec![
            loop_rv.into(),
            SchedValue::List(factors),
            preserve_unit_iters.into(),
        ];
        self.apply_traced(&SPLIT, Args::typed(&SPLIT, args))?
            .into_loops()
    }

    /// `sch.fuse(l0, l1, …)`: a chain of directly nested loops becomes one
    /// loop named `l0_l1_fused`.
    pub fn fuse(&mut self, loop_rvs: &[LoopRV], preserve_unit_iters: bool) -> Result<LoopRV> {
        let args = vec![SchedValue::rv_list(loop_rvs), preserve_unit_iters.into()];
        self.apply_traced(&FUSE, Args::typed(&FUSE, args))?
            .into_loop()
    }

    /// `sch.reorder(l0, l1, …)`: the given loops, which lie on one chain of
    /// singly nested loops, take the listed order; loops between them that
    /// are not listed keep their place.
    pub fn reorder(&mut self, loop_rvs: &[LoopRV]) -> Result<()> {
        let args = vec![SchedValue::rv_list(loop_rvs)];
        self.apply_traced(&REORDER, Args::typed(&REORDER, args))?;
        Ok(())
    }

    /// `sch.add_unit_loop(block_or_loop)`: a loop of extent 1 around it.
    pub fn add_unit_loop(&mut self, target: Rv) -> Result<LoopRV> {
        self.apply_traced(
            &ADD_UNIT_LOOP,
            Args::typed(&ADD_UNIT_LOOP, vec![target.into()]),
        )?
        .into_loop()
    }

    /// With `disable_predication` a split that over-covers the loop adds no
    /// `T.where` guard (TVM's option for factors the caller knows divide
    /// the extent; otherwise the extra iterations run out of bounds).
    fn split_concrete(
        &mut self,
        loop_rv: LoopRV,
        factors: &[Factor],
        preserve_unit_iters: bool,
        disable_predication: bool,
    ) -> Result<Vec<LoopRV>> {
        const P: &str = "split";
        let (path, node) = self.resolve_loop(P, loop_rv)?;
        if factors.len() < 2 {
            return Err(ScheduleError::invalid_argument(
                P,
                "split needs at least two factors",
            ));
        }
        // Serial, parallel, vectorized and unrolled loops may be split (the
        // new loops are serial, as in TVM); annotated and bound ones not.
        check_plain_loop(P, &path, &node)?;
        if !node.min.is_const_int(0) {
            return Err(ScheduleError::loop_structure(
                P,
                format!(
                    "loop `{}` does not start with 0; only loops starting at 0 can be split",
                    node.loop_var.name()
                ),
            )
            .at(path));
        }
        let mut values: Vec<Option<i64>> = Vec::with_capacity(factors.len());
        for f in factors {
            values.push(match f {
                Factor::Infer => None,
                Factor::Const(c) => Some(*c),
                Factor::Sampled(rv) => Some(self.get_value(*rv).map_err(|e| e.for_primitive(P))?),
            });
        }
        let inferred = values.iter().filter(|v| v.is_none()).count();
        if inferred > 1 {
            return Err(ScheduleError::invalid_argument(
                P,
                "at most one factor can be None (inferred)",
            ));
        }
        if let Some(bad) = values.iter().flatten().find(|v| **v <= 0) {
            return Err(ScheduleError::invalid_argument(
                P,
                format!("split factors must be positive, got {bad}"),
            ));
        }
        let Some(extent) = node.extent.as_int() else {
            return self.split_symbolic(
                &path,
                &node,
                &values,
                preserve_unit_iters,
                disable_predication,
            );
        };
        let known: i64 = values
            .iter()
            .flatten()
            .try_fold(1i64, |acc, v| acc.checked_mul(*v))
            .unwrap_or(i64::MAX);
        let extents: Vec<i64> = values
            .iter()
            .map(|v| v.unwrap_or_else(|| (extent + known - 1) / known.max(1)))
            .collect();
        let product: i64 = extents
            .iter()
            .try_fold(1i64, |acc, v| acc.checked_mul(*v))
            .unwrap_or(i64::MAX);
        if product < extent {
            return Err(ScheduleError::loop_structure(
                P,
                format!("the factors {extents:?} multiply to {product}, less than the loop extent {extent}"),
            )
            .at(path));
        }
        let dtype = node.loop_var.dtype();
        let base = node.loop_var.name().to_string();
        let new_vars: Vec<Var> = (0..extents.len())
            .map(|i| Var::new(format!("{base}_{i}"), dtype))
            .collect();
        // TVM's form: the nested sum `((i_0 * e1 + i_1) * e2 + i_2)…` is the
        // predicate's left side as written; simplified once (knowing the new
        // loops' ranges; unit loops stay symbolic when their iterators are
        // preserved) it replaces the old loop variable in the body, which is
        // otherwise left as it is (no re-association of the bindings).
        let mut nested = new_vars[0].to_expr();
        for (v, e) in new_vars.iter().zip(&extents).skip(1) {
            nested = Expr::binary(
                BinOp::Add,
                Expr::binary(BinOp::Mul, nested, Expr::int(*e, dtype)),
                v.to_expr(),
            );
        }
        let ranges: Vec<(Var, Range)> = new_vars
            .iter()
            .zip(&extents)
            .filter(|(_, e)| !(preserve_unit_iters && **e == 1))
            .map(|(v, e)| (v.clone(), Range::from_extent(Expr::int(*e, dtype))))
            .collect();
        let index = simplify(&nested, &ranges);
        let mut map = HashMap::new();
        map.insert(node.loop_var.id(), index);
        let mut body = substitute_stmt(&node.body, &map);
        if product > extent && !disable_predication {
            let cond = Expr::cmp(CmpOp::Lt, nested, Expr::int(extent, dtype));
            body = add_predicate(&body, &cond);
        }
        let mut stmt = body;
        for (v, e) in new_vars.iter().zip(&extents).rev() {
            stmt = Stmt::from_kind(StmtKind::For(For {
                loop_var: v.clone(),
                min: Expr::int(0, dtype),
                extent: Expr::int(*e, dtype),
                kind: ForKind::Serial,
                thread_tag: None,
                annotations: Annotations::new(),
                body: stmt,
            }));
        }
        self.replace_at(P, &path, stmt)?;
        self.remove_loop_rvs(node.loop_var.id());
        Ok(new_vars.iter().map(|v| self.new_loop_rv(v)).collect())
    }

    /// [`Self::split_concrete`] of a loop whose extent is an expression, as
    /// TVM 0.27 does it: the omitted factor is `(extent + k - 1) // k`
    /// simplified (`k` the product of the others), or without one the
    /// factors must provably cover the extent; the loops' extents are the
    /// factors, the old variable becomes the nested sum simplified, and the
    /// blocks get `sum < extent` unless the factors provably multiply to at
    /// most the extent (then they multiply to exactly it).
    fn split_symbolic(
        &mut self,
        path: &StmtPath,
        node: &For,
        values: &[Option<i64>],
        preserve_unit_iters: bool,
        disable_predication: bool,
    ) -> Result<Vec<LoopRV>> {
        const P: &str = "split";
        let dtype = node.loop_var.dtype();
        let ana = tessel_tir::arith::Analyzer::new();
        let known = values
            .iter()
            .flatten()
            .try_fold(1i64, |acc, v| acc.checked_mul(*v))
            .ok_or_else(|| ScheduleError::invalid_argument(P, "the split factors overflow"))?;
        let known_expr = Expr::int(known, dtype);
        let inferred = ana.simplify(&Expr::binary(
            BinOp::FloorDiv,
            Expr::binary(BinOp::Add, node.extent.clone(), Expr::int(known - 1, dtype)),
            known_expr.clone(),
        ));
        if values.iter().all(Option::is_some)
            && !ana.can_prove(&Expr::cmp(CmpOp::Ge, known_expr, node.extent.clone()))
        {
            return Err(ScheduleError::loop_structure(
                P,
                format!(
                    "the factors multiply to {known}, which is not provably at least the loop extent {}",
                    tessel_tir::ir::printer::print_expr(&node.extent)
                ),
            )
            .at(path.clone()));
        }
        let extents: Vec<Expr> = values
            .iter()
            .map(|v| match v {
                Some(c) => Expr::int(*c, dtype),
                None => inferred.clone(),
            })
            .collect();
        let base = node.loop_var.name().to_string();
        let new_vars: Vec<Var> = (0..extents.len())
            .map(|i| Var::new(format!("{base}_{i}"), dtype))
            .collect();
        let mut nested = new_vars[0].to_expr();
        for (v, e) in new_vars.iter().zip(&extents).skip(1) {
            nested = Expr::binary(
                BinOp::Add,
                Expr::binary(BinOp::Mul, nested, e.clone()),
                v.to_expr(),
            );
        }
        let ranges: Vec<(Var, Range)> = new_vars
            .iter()
            .zip(&extents)
            .filter(|(_, e)| !(preserve_unit_iters && e.is_const_int(1)))
            .map(|(v, e)| (v.clone(), Range::from_extent(e.clone())))
            .collect();
        let index = simplify(&nested, &ranges);
        let mut map = HashMap::new();
        map.insert(node.loop_var.id(), index);
        let mut body = substitute_stmt(&node.body, &map);
        // Each factor is at least 1, so the sum stays below the product:
        // a product no larger than the extent needs no guard.
        let product = extents.iter().skip(1).fold(extents[0].clone(), |acc, e| {
            Expr::binary(BinOp::Mul, acc, e.clone())
        });
        let excess = ana.simplify(&Expr::binary(BinOp::Sub, product, node.extent.clone()));
        let covered_exactly = excess.as_int().is_some_and(|d| d <= 0);
        if !covered_exactly && !disable_predication {
            let cond = Expr::cmp(CmpOp::Lt, nested, node.extent.clone());
            body = add_predicate(&body, &cond);
        }
        let mut stmt = body;
        for (v, e) in new_vars.iter().zip(&extents).rev() {
            stmt = Stmt::from_kind(StmtKind::For(For {
                loop_var: v.clone(),
                min: Expr::int(0, dtype),
                extent: e.clone(),
                kind: ForKind::Serial,
                thread_tag: None,
                annotations: Annotations::new(),
                body: stmt,
            }));
        }
        self.replace_at(P, path, stmt)?;
        self.remove_loop_rvs(node.loop_var.id());
        Ok(new_vars.iter().map(|v| self.new_loop_rv(v)).collect())
    }

    fn fuse_concrete(&mut self, loop_rvs: &[LoopRV], preserve_unit_iters: bool) -> Result<LoopRV> {
        const P: &str = "fuse";
        if loop_rvs.is_empty() {
            return Err(ScheduleError::invalid_argument(
                P,
                "fuse needs at least one loop",
            ));
        }
        let mut loops = Vec::new();
        for rv in loop_rvs {
            loops.push(self.resolve_loop(P, *rv)?);
        }
        for w in loops.windows(2) {
            let (outer_path, outer) = &w[0];
            let (inner_path, inner) = &w[1];
            if inner_path.0.len() != outer_path.0.len() + 1
                || !outer_path.is_prefix_of(inner_path)
                || outer.body.as_for().is_none()
            {
                return Err(ScheduleError::loop_structure(
                    P,
                    format!(
                        "loop `{}` must be the only statement directly inside loop `{}`; fused loops form a perfect nest",
                        inner.loop_var.name(),
                        outer.loop_var.name()
                    ),
                )
                .at(inner_path.clone()));
            }
        }
        for (path, l) in &loops {
            // The fused loop is serial, as in TVM; annotated and bound loops
            // cannot be fused.
            check_plain_loop(P, path, l)?;
            if !l.min.is_const_int(0) {
                return Err(ScheduleError::loop_structure(
                    P,
                    format!(
                        "loop `{}` does not start with 0; only loops starting at 0 can be fused",
                        l.loop_var.name()
                    ),
                )
                .at(path.clone()));
            }
        }
        let _ = preserve_unit_iters;
        self.fuse_loops(&loops)
    }

    /// The rewrite of [`Self::fuse_concrete`], as TVM 0.27 does it (extents
    /// may be expressions): an extent may not use an outer fused loop's
    /// variable; with `s_k` the product of the extents inside loop `k`
    /// (simplified), loop `k` becomes `fused % s_{k-1} // s_k` (the outermost
    /// `fused // s_0`, a unit loop 0; `// 1` folded away) and the fused
    /// extent is the product of all extents, simplified. Block bindings are
    /// then simplified; an opaque block's regions keep these values as built.
    fn fuse_loops(&mut self, loops: &[(StmtPath, For)]) -> Result<LoopRV> {
        const P: &str = "fuse";
        let mut outer_vars = HashSet::new();
        for (path, l) in loops {
            if let Some(used) = var_ids(&l.extent)
                .into_iter()
                .find(|v| outer_vars.contains(v))
            {
                let name = loops
                    .iter()
                    .find(|(_, o)| o.loop_var.id() == used)
                    .map(|(_, o)| o.loop_var.name().to_string())
                    .unwrap_or_default();
                return Err(ScheduleError::dependency(
                    P,
                    format!(
                        "the extent of loop `{}` depends on `{name}`, an outer loop being fused",
                        l.loop_var.name()
                    ),
                )
                .at(path.clone()));
            }
            outer_vars.insert(l.loop_var.id());
        }
        let ana = tessel_tir::arith::Analyzer::new();
        let dtype = loops[0].1.loop_var.dtype();
        let name = loops
            .iter()
            .map(|(_, l)| l.loop_var.name().to_string())
            .collect::<Vec<_>>()
            .join("_")
            + "_fused";
        let fused = Var::new(name, dtype);
        let mut map = HashMap::new();
        let mut lower = Expr::int(1, dtype);
        for (_, l) in loops.iter().skip(1).rev() {
            let next =
                ana.canonical_simplify(&Expr::binary(BinOp::Mul, l.extent.clone(), lower.clone()));
            let value = if l.extent.is_const_int(1) {
                Expr::int(0, dtype)
            } else {
                floordiv_folded(
                    Expr::binary(BinOp::FloorMod, fused.to_expr(), next.clone()),
                    lower,
                )
            };
            map.insert(l.loop_var.id(), value);
            lower = next;
        }
        let outer = &loops[0].1;
        let value = if outer.extent.is_const_int(1) {
            Expr::int(0, dtype)
        } else {
            floordiv_folded(fused.to_expr(), lower)
        };
        map.insert(outer.loop_var.id(), value);
        let total = ana.simplify(&loops.iter().fold(Expr::int(1, dtype), |acc, (_, l)| {
            Expr::binary(BinOp::Mul, acc, l.extent.clone())
        }));
        let innermost_body = loops
            .last()
            .map(|(_, l)| l.body.clone())
            .unwrap_or_else(Stmt::evaluate_zero);
        let ranges = vec![(fused.clone(), Range::from_extent(total.clone()))];
        let body = simplify_bindings(&substitute_stmt(&innermost_body, &map), &ranges);
        let stmt = Stmt::from_kind(StmtKind::For(For {
            loop_var: fused.clone(),
            min: Expr::int(0, dtype),
            extent: total,
            kind: ForKind::Serial,
            thread_tag: None,
            annotations: Annotations::new(),
            body,
        }));
        self.replace_at(P, &loops[0].0, stmt)?;
        for (_, l) in loops {
            self.remove_loop_rvs(l.loop_var.id());
        }
        Ok(self.new_loop_rv(&fused))
    }

    fn reorder_concrete(&mut self, loop_rvs: &[LoopRV]) -> Result<()> {
        const P: &str = "reorder";
        let mut loops = Vec::new();
        for rv in loop_rvs {
            loops.push(self.resolve_loop(P, *rv)?);
        }
        for (i, (_, a)) in loops.iter().enumerate() {
            if loops[..i].iter().any(|(_, b)| b.loop_var == a.loop_var) {
                return Err(ScheduleError::invalid_argument(
                    P,
                    format!("loop `{}` is listed twice", a.loop_var.name()),
                ));
            }
        }
        if loops.len() < 2 {
            return Ok(());
        }
        // Sort by depth: every loop must be an ancestor of the deeper ones.
        let mut by_depth: Vec<&(StmtPath, For)> = loops.iter().collect();
        tessel_ir::sort::by_key(&mut by_depth, |(p, _)| p.0.len());
        for w in by_depth.windows(2) {
            if !w[0].0.is_prefix_of(&w[1].0) {
                return Err(ScheduleError::loop_structure(
                    P,
                    format!(
                        "loops `{}` and `{}` are not nested in one another; reorder works on loops of one nest",
                        w[0].1.loop_var.name(),
                        w[1].1.loop_var.name()
                    ),
                ));
            }
        }
        let outer_path = by_depth[0].0.clone();
        let inner_path = by_depth[by_depth.len() - 1].0.clone();
        let body = self.body(P)?;
        // The chain from the outermost to the innermost listed loop must be a
        // single branch of loops.
        let mut chain: Vec<For> = Vec::new();
        let mut cur = tree::get(&body, &outer_path).and_then(|s| s.as_for().cloned());
        loop {
            let Some(l) = cur else {
                return Err(ScheduleError::loop_structure(
                    P,
                    "the loops between the reordered ones must form a single branch of loops",
                )
                .at(outer_path));
            };
            let done = l.loop_var == by_depth[by_depth.len() - 1].1.loop_var;
            let next = l.body.as_for().cloned();
            chain.push(l);
            if done {
                break;
            }
            if next.is_none() {
                return Err(ScheduleError::loop_structure(
                    P,
                    format!(
                        "loop `{}` contains more than a single loop, so the nest below it is not a single branch",
                        chain.last().map(|l| l.loop_var.name().to_string()).unwrap_or_default()
                    ),
                )
                .at(inner_path));
            }
            cur = next;
        }
        self.check_reorderable_blocks(P, &body, &outer_path)?;
        // Slots occupied by listed loops get the listed order.
        let listed: Vec<VarId> = loops.iter().map(|(_, l)| l.loop_var.id()).collect();
        let mut order = loops.iter().map(|(_, l)| l.clone());
        let new_chain: Vec<For> = chain
            .iter()
            .map(|l| {
                if listed.contains(&l.loop_var.id()) {
                    order.next().unwrap_or_else(|| l.clone())
                } else {
                    l.clone()
                }
            })
            .collect();
        // A loop's extent may not use a variable of a loop that now sits inside it.
        for (i, l) in new_chain.iter().enumerate() {
            for inner in &new_chain[i..] {
                if l.extent.uses_var(&inner.loop_var) || l.min.uses_var(&inner.loop_var) {
                    return Err(ScheduleError::dependency(
                        P,
                        format!(
                            "the extent of loop `{}` depends on loop `{}`",
                            l.loop_var.name(),
                            inner.loop_var.name()
                        ),
                    ));
                }
            }
        }
        let mut stmt = chain[chain.len() - 1].body.clone();
        for l in new_chain.into_iter().rev() {
            stmt = Stmt::from_kind(StmtKind::For(For { body: stmt, ..l }));
        }
        self.replace_at(P, &outer_path, stmt)?;
        Ok(())
    }

    /// Blocks below a transformed loop must have affine bindings: a binding
    /// that is not a sum of loop variables times constants cannot be
    /// reasoned about when loops move.
    /// TVM's `CheckBlockIterTypeAndAffineBinding` for `reorder`: every
    /// block directly under the outermost reordered loop (at `top`) has only
    /// data-parallel and reduction iterators, and a binding that is affine in
    /// its enclosing loops, or at least in the loops from `top` down (loops
    /// above `top` then count as constants: TVM's partial affine binding).
    fn check_reorderable_blocks(&self, primitive: &str, body: &Stmt, top: &StmtPath) -> Result<()> {
        let Some(top_stmt) = tree::get(body, top) else {
            return Err(ScheduleError::internal(
                primitive,
                "internal: stale loop path",
            ));
        };
        // The first blocks under `top` (not the blocks nested in them).
        let mut first_blocks = Vec::new();
        let mut stack = vec![(top.clone(), top_stmt)];
        while let Some((path, s)) = stack.pop() {
            if matches!(s.kind(), StmtKind::BlockRealize(_)) {
                first_blocks.push(path);
                continue;
            }
            for (i, c) in tree::children(&s).into_iter().enumerate() {
                stack.push((path.child(i), c));
            }
        }
        for path in first_blocks {
            let Some(realize) = tree::get(body, &path).and_then(|s| s.as_block_realize().cloned())
            else {
                continue;
            };
            if let Some(iter) = realize
                .block
                .iter_vars
                .iter()
                .find(|iv| !matches!(iv.kind, IterKind::Spatial | IterKind::Reduce))
            {
                return Err(ScheduleError::block_structure(
                    primitive,
                    format!(
                        "block `{}` under the loops to be reordered has iterator `{}` that is neither data-parallel nor a reduction",
                        realize.block.name,
                        iter.var.name()
                    ),
                )
                .at(path));
            }
            let loops = enclosing_loops(body, &path);
            let under_top: Vec<(Var, Range)> = loops
                .iter()
                .filter(|(p, _)| top.is_prefix_of(p))
                .map(|(_, l)| {
                    (
                        l.loop_var.clone(),
                        Range::new(l.min.clone(), l.extent.clone()),
                    )
                })
                .collect();
            let all: Vec<(Var, Range)> = loops
                .iter()
                .map(|(_, l)| {
                    (
                        l.loop_var.clone(),
                        Range::new(l.min.clone(), l.extent.clone()),
                    )
                })
                .collect();
            if !is_affine_in(&realize, &all) && !is_affine_in(&realize, &under_top) {
                return Err(ScheduleError::non_affine_binding(
                    primitive,
                    format!(
                        "block `{}` is required to have an affine binding in the loops from `{}` down",
                        realize.block.name,
                        top_loop_name(body, top)
                    ),
                )
                .at(path));
            }
        }
        Ok(())
    }

    fn add_unit_loop_concrete(&mut self, target: Rv) -> Result<LoopRV> {
        const P: &str = "add_unit_loop";
        let path = match target {
            Rv::Block(b) => self.resolve_block(P, BlockRV(b))?.0,
            Rv::Loop(l) => self.resolve_loop(P, LoopRV(l))?.0,
            Rv::Expr(_) => {
                return Err(ScheduleError::argument_type(
                    P,
                    "expected a block or a loop",
                ))
            }
        };
        let body = self.body(P)?;
        let Some(inner) = tree::get(&body, &path) else {
            return Err(ScheduleError::internal(P, "internal: stale path"));
        };
        let var = Var::new("u", DataType::i32());
        let stmt = Stmt::from_kind(StmtKind::For(For {
            loop_var: var.clone(),
            min: Expr::i32(0),
            extent: Expr::i32(1),
            kind: ForKind::Serial,
            thread_tag: None,
            annotations: Annotations::new(),
            body: inner,
        }));
        self.replace_at(P, &path, stmt)?;
        Ok(self.new_loop_rv(&var))
    }
}

/// `a // b`, or `a` when `b` is 1 (TVM's operator folds that division).
fn floordiv_folded(a: Expr, b: Expr) -> Expr {
    if b.is_const_int(1) {
        a
    } else {
        Expr::binary(BinOp::FloorDiv, a, b)
    }
}

fn top_loop_name(body: &Stmt, top: &StmtPath) -> String {
    tree::get(body, top)
        .and_then(|s| s.as_for().map(|l| l.loop_var.name().to_string()))
        .unwrap_or_default()
}

/// TVM's `IsAffineBinding` over `loops` (a block without iterators under a
/// loop has none). Terms of a binding that use none
/// of `loops` are constants to it (TVM treats the variables of loops outside
/// as symbols), so they are set aside; what is left must be quasi-affine in
/// the loops with a term of scale 1 (`j * 4` alone is a strided, not an
/// affine, binding). Each `T.where` conjunct `sum < c` must bound a whole
/// part of one binding (as a non-divisible split leaves it: the sum's terms
/// appear in the binding, all scaled alike), not pieces of several.
pub(crate) fn is_affine_in(realize: &BlockRealize, loops: &[(Var, Range)]) -> bool {
    if loops.is_empty() {
        return true;
    }
    // TVM's iter-map detection finds no map for a block without iterators
    // under loops, so such a block has no affine binding.
    if realize.iter_values.is_empty() {
        return false;
    }
    let inside: HashSet<VarId> = loops.iter().map(|(v, _)| v.id()).collect();
    let inner_terms = |e: &Expr| {
        let mut terms = Vec::new();
        additive_terms(e, false, &mut terms);
        terms.retain(|(t, _)| uses_any(t, &inside));
        terms
    };
    let mut binding_coeffs = Vec::with_capacity(realize.iter_values.len());
    for value in &realize.iter_values {
        let terms = inner_terms(value);
        if terms.is_empty() {
            continue;
        }
        let unit_scale = terms.iter().any(|(t, negated)| {
            !negated
                && matches!(
                    strip_casts(t).kind(),
                    ExprKind::Var(_) | ExprKind::Binary(BinOp::FloorDiv | BinOp::FloorMod, ..)
                )
        });
        if !unit_scale || !terms.iter().all(|(t, _)| is_quasi_affine(t)) {
            return false;
        }
        binding_coeffs.push(linear_coefficients(&terms));
        // A fused loop split again (`(f0 * 128 + f1) // 300`): a predicate
        // may bound the fused sum inside the division.
        for (t, _) in &terms {
            if let ExprKind::Binary(BinOp::FloorDiv | BinOp::FloorMod, a, _) = strip_casts(t).kind()
            {
                binding_coeffs.push(linear_coefficients(&inner_terms(a)));
            }
        }
    }
    let mut conjuncts = Vec::new();
    and_conjuncts(&realize.predicate, &mut conjuncts);
    conjuncts.iter().all(|c| {
        if c.as_int().is_some_and(|v| v != 0) || !uses_any(c, &inside) {
            return true;
        }
        let ExprKind::Cmp(CmpOp::Lt | CmpOp::Le, sum, _) = c.kind() else {
            return false;
        };
        let Some(bounded) = linear_coefficients(&inner_terms(sum)) else {
            return false;
        };
        binding_coeffs
            .iter()
            .flatten()
            .any(|binding| scaled_part_of(&bounded, binding))
    })
}

fn uses_any(e: &Expr, vars: &HashSet<VarId>) -> bool {
    let mut found = false;
    e.walk(&mut |x| {
        if let ExprKind::Var(v) = x.kind() {
            found |= vars.contains(&v.id());
        }
    });
    found
}

fn and_conjuncts(e: &Expr, out: &mut Vec<Expr>) {
    match e.kind() {
        ExprKind::And(a, b) => {
            and_conjuncts(a, out);
            and_conjuncts(b, out);
        }
        _ => out.push(e.clone()),
    }
}

/// The coefficient of each variable in a sum of terms linear in variables
/// (`(i * 4 + j) * 8` gives `i: 32, j: 8`; constants drop out); `None` if
/// a term is not linear (`//`, `%`, a product of variables).
fn linear_coefficients(terms: &[(Expr, bool)]) -> Option<HashMap<VarId, i64>> {
    fn add(e: &Expr, scale: i64, out: &mut HashMap<VarId, i64>) -> Option<()> {
        match e.kind() {
            ExprKind::Var(v) => *out.entry(v.id()).or_default() += scale,
            ExprKind::Int(_) => {}
            ExprKind::Cast(a) => add(a, scale, out)?,
            ExprKind::Binary(BinOp::Add, a, b) => {
                add(a, scale, out)?;
                add(b, scale, out)?;
            }
            ExprKind::Binary(BinOp::Sub, a, b) => {
                add(a, scale, out)?;
                add(b, -scale, out)?;
            }
            ExprKind::Binary(BinOp::Mul, a, b) => match (a.as_int(), b.as_int()) {
                (_, Some(c)) => add(a, scale.checked_mul(c)?, out)?,
                (Some(c), _) => add(b, scale.checked_mul(c)?, out)?,
                _ => return None,
            },
            _ => return None,
        }
        Some(())
    }
    let mut out = HashMap::new();
    for (t, negated) in terms {
        add(t, if *negated { -1 } else { 1 }, &mut out)?;
    }
    Some(out)
}

/// Whether every variable of `part` appears in `whole` with its coefficient
/// times one common positive factor.
fn scaled_part_of(part: &HashMap<VarId, i64>, whole: &HashMap<VarId, i64>) -> bool {
    let Some((v, c)) = part.iter().find(|(_, c)| **c != 0) else {
        return true;
    };
    let Some(w) = whole.get(v) else {
        return false;
    };
    if *w % *c != 0 || *w / *c <= 0 {
        return false;
    }
    let k = *w / *c;
    part.iter()
        .all(|(v, c)| *c == 0 || whole.get(v).is_some_and(|w| *w == k * *c))
}

fn strip_casts(e: &Expr) -> &Expr {
    match e.kind() {
        ExprKind::Cast(inner) => strip_casts(inner),
        _ => e,
    }
}

/// The terms of a sum (`a + b - c` gives `a`, `b`, and `c` negated).
fn additive_terms(e: &Expr, negated: bool, out: &mut Vec<(Expr, bool)>) {
    match e.kind() {
        ExprKind::Binary(BinOp::Add, a, b) => {
            additive_terms(a, negated, out);
            additive_terms(b, negated, out);
        }
        ExprKind::Binary(BinOp::Sub, a, b) => {
            additive_terms(a, negated, out);
            additive_terms(b, !negated, out);
        }
        _ => out.push((e.clone(), negated)),
    }
}

/// TVM's `HasAnnotationOrThreadBindingError`: `split` and `fuse` leave
/// loops with annotations or a thread binding alone (the new loops could
/// not keep them).
fn check_plain_loop(primitive: &str, path: &StmtPath, l: &For) -> Result<()> {
    if !l.annotations.is_empty() || l.kind == ForKind::ThreadBinding {
        return Err(ScheduleError::loop_structure(
            primitive,
            format!(
                "loop `{}` has annotation or thread binding; only loops with neither can be {}",
                l.loop_var.name(),
                if primitive == "split" {
                    "split"
                } else {
                    "fused"
                }
            ),
        )
        .at(path.clone()));
    }
    Ok(())
}

pub(crate) fn kind_phrase(l: &For) -> String {
    match l.kind {
        ForKind::Serial => "serial".into(),
        ForKind::Parallel => "parallel".into(),
        ForKind::Vectorized => "vectorized".into(),
        ForKind::Unrolled => "unrolled".into(),
        ForKind::ThreadBinding => format!("bound to `{}`", l.thread_tag.as_deref().unwrap_or("?")),
    }
}

/// Sums and products by constants of variables, `//` and `%` by constants.
pub(crate) fn is_quasi_affine(e: &Expr) -> bool {
    match e.kind() {
        ExprKind::Var(_) | ExprKind::Int(_) => true,
        ExprKind::Binary(BinOp::Add | BinOp::Sub, a, b) => is_quasi_affine(a) && is_quasi_affine(b),
        ExprKind::Binary(BinOp::Mul, a, b) => {
            (is_quasi_affine(a) && b.as_int().is_some())
                || (a.as_int().is_some() && is_quasi_affine(b))
        }
        ExprKind::Binary(BinOp::FloorDiv | BinOp::FloorMod, a, b) => {
            is_quasi_affine(a) && b.as_int().is_some_and(|c| c > 0)
        }
        ExprKind::Cast(a) => is_quasi_affine(a),
        _ => false,
    }
}

/// Conjoins `cond` to the predicate of every block realize under `stmt`
/// that is not nested in another block.
pub(crate) fn add_predicate(stmt: &Stmt, cond: &Expr) -> Stmt {
    struct AddPred<'a>(&'a Expr);
    impl Mutator for AddPred<'_> {
        fn stmt(&mut self, s: &Stmt) -> Stmt {
            if let StmtKind::BlockRealize(r) = s.kind() {
                let mut r = r.clone();
                r.predicate = if r.predicate.is_const_int(1) && r.predicate.dtype().is_bool() {
                    self.0.clone()
                } else {
                    // TVM appends: `predicate && new` (a later split's
                    // condition comes last).
                    Expr::and(r.predicate.clone(), self.0.clone())
                };
                return Stmt::new(StmtKind::BlockRealize(r), s.span());
            }
            walk_stmt(self, s)
        }
    }
    AddPred(cond).stmt(stmt)
}

/// Simplifies block bindings and predicates under `stmt`, knowing the ranges
/// of the given loop variables.
pub(crate) fn simplify_bindings(stmt: &Stmt, ranges: &[(Var, Range)]) -> Stmt {
    struct Simp<'a>(&'a [(Var, Range)]);
    impl Mutator for Simp<'_> {
        fn stmt(&mut self, s: &Stmt) -> Stmt {
            if let StmtKind::BlockRealize(r) = s.kind() {
                let mut r = r.clone();
                r.iter_values = r.iter_values.iter().map(|v| simplify(v, self.0)).collect();
                r.predicate = simplify(&r.predicate, self.0);
                return Stmt::new(StmtKind::BlockRealize(r), s.span());
            }
            walk_stmt(self, s)
        }
    }
    Simp(ranges).stmt(stmt)
}

/// Simplification knowing the ranges of the given loop variables.
pub(crate) fn simplify(e: &Expr, ranges: &[(Var, Range)]) -> Expr {
    let mut ana = tessel_tir::arith::Analyzer::new();
    for (v, r) in ranges {
        ana.bind(v, r);
    }
    ana.simplify(e)
}

pub(crate) fn loops_above(body: &Stmt, path: &StmtPath) -> Vec<(StmtPath, For)> {
    enclosing_loops(body, path)
}
