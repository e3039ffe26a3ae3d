//! A block's iterators: `reorder_block_iter_var`, `transform_block_layout`.
//!
//! Behaviour checked against TVM 0.27:
//!
//! - `reorder_block_iter_var(block, new_order)`: the block's iterators (and
//!   their bindings) in the order `new_order` gives, which must be a
//!   permutation of `0..n` for a block of `n` iterators. Nothing else
//!   changes: the loops, the body and the regions stay. The trace prints
//!   `new_order=[2, 0, 1]`; TVM's JSON keeps the list as the second input.
//! - `transform_block_layout(block, index_map)`: the block's iterators
//!   `vi, vj, …` become `v0, v1, …`, one per result of `index_map` applied to
//!   them, with the result's range as domain, under fresh loops
//!   `ax0, ax1, …` that replace the block's loops; the body and regions use
//!   the inverse map (indices and regions simplified). Legality, in TVM's
//!   order: every loop above the block starts at 0; the outermost loop holds
//!   this block only, as a chain; the binding is trivial (the `k`-th iterator
//!   bound to the `k`-th loop's variable); the map takes one index per
//!   iterator; each result mixes no spatial with reduction iterators; the map
//!   is a bijective quasi-affine map of the iterator domains. Tessel also
//!   refuses a predicate (it would name the removed loops) and maps whose
//!   results split a fused sum (`(i * 16 + j) // 4`), whose inverse it does not
//!   build.

use std::collections::HashMap;

use super::layout::IndexMap;
use super::primitives::{describe, param, Args, ParamType as T, Primitive, Returns};
use super::replay::SchedValue;
use super::*;
use tessel_tir::arith::{detect_iter_map, Analyzer, MarkSource};
use tessel_tir::ir::mutate::{walk_expr, walk_stmt, Mutator};

pub(super) const TRANSFORM_BLOCK_LAYOUT: Primitive = Primitive {
    method: "transform_block_layout",
    aliases: &[],
    kind: "TransformBlockLayout",
    params: &[param("block", T::Block), param("index_map", T::Any).attr()],
    returns: Returns::Nothing,
    traced: true,
    apply: super::primitives::unless_lean(|sch, args| {
        let map_src = match args.value("index_map")? {
            SchedValue::Source(s) | SchedValue::Str(s) => s,
            other => {
                return Err(args.err(ScheduleErrorKind::InvalidArgument, format!(
                    "index_map must be a lambda over the block's iterators, such as `lambda i, j: (j, i)`; got {}",
                    describe(&other)
                )))
            }
        };
        let map = sch.transform_block_layout_concrete(args.block("block")?, &map_src)?;
        args.record_as("index_map", SchedValue::Source(map.python()))?;
        Ok(SchedValue::None)
    }),
    menu: None,
};

/// The block after `transform_block_layout`: old iterators replaced by their
/// inverse images, buffer indices and regions simplified.
struct Relayout<'a> {
    map: &'a HashMap<VarId, Expr>,
    ana: &'a Analyzer,
}

impl Relayout<'_> {
    fn index(&mut self, e: &Expr) -> Expr {
        let e = self.expr(e);
        self.ana.simplify(&e)
    }
    fn regions(&mut self, regions: &[BufferRegion]) -> Vec<BufferRegion> {
        regions
            .iter()
            .map(|r| BufferRegion {
                buffer: r.buffer.clone(),
                region: r
                    .region
                    .iter()
                    .map(|x| Range::new(self.index(&x.min), self.index(&x.extent)))
                    .collect(),
            })
            .collect()
    }
}

impl Mutator for Relayout<'_> {
    fn expr(&mut self, e: &Expr) -> Expr {
        match e.kind() {
            ExprKind::Var(v) => self.map.get(&v.id()).cloned().unwrap_or_else(|| e.clone()),
            ExprKind::Load { buffer, indices } => {
                let indices = indices.iter().map(|i| self.index(i)).collect();
                Expr::new(
                    ExprKind::Load {
                        buffer: buffer.clone(),
                        indices,
                    },
                    e.dtype(),
                    e.span(),
                )
            }
            _ => walk_expr(self, e),
        }
    }
    fn stmt(&mut self, s: &Stmt) -> Stmt {
        match s.kind() {
            StmtKind::Store {
                buffer,
                value,
                indices,
            } => Stmt::new(
                StmtKind::Store {
                    buffer: buffer.clone(),
                    value: self.expr(value),
                    indices: indices.iter().map(|i| self.index(i)).collect(),
                },
                s.span(),
            ),
            _ => walk_stmt(self, s),
        }
    }
}

pub(super) const REORDER_BLOCK_ITER_VAR: Primitive = Primitive {
    method: "reorder_block_iter_var",
    aliases: &[],
    kind: "ReorderBlockIterVar",
    params: &[
        param("block", T::Block),
        param("new_order", T::Ints).list_input(),
    ],
    returns: Returns::Nothing,
    traced: true,
    apply: super::primitives::unless_lean(|sch, args| {
        sch.reorder_block_iter_var_concrete(args.block("block")?, &args.ints("new_order")?)?;
        Ok(SchedValue::None)
    }),
    menu: None,
};

impl Schedule {
    /// `sch.transform_block_layout(block, index_map)`: see the module
    /// documentation. `index_map` is the Python lambda's source text.
    pub fn transform_block_layout(&mut self, block_rv: BlockRV, index_map: &str) -> Result<()> {
        let args = Args::typed(
            &TRANSFORM_BLOCK_LAYOUT,
            vec![block_rv.into(), SchedValue::Source(index_map.to_string())],
        );
        self.apply_traced(&TRANSFORM_BLOCK_LAYOUT, args)?;
        Ok(())
    }

    fn transform_block_layout_concrete(
        &mut self,
        block_rv: BlockRV,
        map_src: &str,
    ) -> Result<IndexMap> {
        const P: &str = "transform_block_layout";
        let (path, realize) = self.resolve_block(P, block_rv)?;
        let block = &realize.block;
        let body = self.body(P)?;
        let loops = super::loops::loops_above(&body, &path);
        let scope_path = check_block_layout_target(P, &body, &path, &realize, &loops)?;
        let dtype = block
            .iter_vars
            .first()
            .map(|iv| iv.var.dtype())
            .unwrap_or(DataType::i32());
        let outer = IndexMap::outer_vars(&*self.func(P)?);
        let map = IndexMap::parse_for(map_src, dtype, None, &outer)
            .map_err(|m| ScheduleError::invalid_argument(P, m))?;
        if map.params.len() != block.iter_vars.len() {
            return Err(ScheduleError::invalid_argument(
                P,
                format!(
                    "The index map {} can't be applied to block iters of block `{}`: it takes {} indices, the block has {} iterators.",
                    map.python(),
                    block.name,
                    map.params.len(),
                    block.iter_vars.len()
                ),
            )
            .at(path));
        }
        let mut ana = Analyzer::new();
        for iv in &block.iter_vars {
            ana.bind(&iv.var, &iv.dom);
        }
        let olds: Vec<Expr> = block.iter_vars.iter().map(|iv| iv.var.to_expr()).collect();
        let results: Vec<Expr> = map.apply(&olds).iter().map(|e| ana.simplify(e)).collect();
        let new_kinds = new_iter_kinds(P, block, &results, &path)?;
        let not_bijective = |why: String| {
            ScheduleError::non_affine_binding(
                P,
                format!(
                    "The index map {} is not bijective affine over the iterators of block `{}`: {why}",
                    map.python(),
                    block.name
                ),
            )
            .at(path.clone())
        };
        let ranges: Vec<(Var, Range)> = block
            .iter_vars
            .iter()
            .map(|iv| (iv.var.clone(), iv.dom.clone()))
            .collect();
        let iter_map = detect_iter_map(&results, &ranges, &Expr::bool(true))
            .map_err(|e| not_bijective(e.message))?;
        if iter_map.marks.len() != block.iter_vars.len()
            || iter_map
                .marks
                .iter()
                .any(|m| !matches!(m.source, MarkSource::Var(_)))
        {
            return Err(not_bijective(
                "a result splits a fused sum of iterators, which Tessel does not invert".into(),
            ));
        }

        let (new_iters, subst, new_ana) = invert_iter_map(block, &iter_map, new_kinds, dtype);
        let mut rw = Relayout {
            map: &subst,
            ana: &new_ana,
        };
        let mut new_block = block.clone();
        new_block.body = rw.stmt(&block.body);
        new_block.init = block.init.as_ref().map(|s| rw.stmt(s));
        new_block.reads = rw.regions(&block.reads);
        new_block.writes = rw.regions(&block.writes);
        new_block.iter_vars = new_iters;
        let loop_vars: Vec<Var> = (0..new_block.iter_vars.len())
            .map(|i| Var::new(format!("ax{i}"), dtype))
            .collect();
        let extents: Vec<Expr> = new_block
            .iter_vars
            .iter()
            .map(|iv| iv.dom.extent.clone())
            .collect();
        let mut stmt = super::util::realize(
            loop_vars.iter().map(Var::to_expr).collect(),
            realize.predicate.clone(),
            new_block,
        );
        for (v, extent) in loop_vars.into_iter().zip(extents).rev() {
            stmt = Stmt::from_kind(StmtKind::For(For {
                loop_var: v,
                min: Expr::int(0, extent.dtype()),
                extent,
                kind: ForKind::Serial,
                thread_tag: None,
                annotations: Annotations::new(),
                body: stmt,
            }));
        }
        for (_, l) in &loops {
            self.remove_loop_rvs(l.loop_var.id());
        }
        self.replace_at(P, &scope_path, stmt)?;
        Ok(map)
    }

    /// `sch.reorder_block_iter_var(block, new_order)`: see the module
    /// documentation.
    pub fn reorder_block_iter_var(&mut self, block_rv: BlockRV, new_order: &[i64]) -> Result<()> {
        let order = SchedValue::List(new_order.iter().map(|&i| SchedValue::Int(i)).collect());
        let args = Args::typed(&REORDER_BLOCK_ITER_VAR, vec![block_rv.into(), order]);
        self.apply_traced(&REORDER_BLOCK_ITER_VAR, args)?;
        Ok(())
    }

    fn reorder_block_iter_var_concrete(
        &mut self,
        block_rv: BlockRV,
        new_order: &[i64],
    ) -> Result<()> {
        const P: &str = "reorder_block_iter_var";
        let (path, realize) = self.resolve_block(P, block_rv)?;
        let n = realize.block.iter_vars.len();
        let mut seen = vec![false; n];
        let valid = new_order.len() == n
            && new_order.iter().all(|&i| {
                let ok = i >= 0 && (i as usize) < n && !seen[i as usize];
                if ok {
                    seen[i as usize] = true;
                }
                ok
            });
        if !valid {
            let listed: Vec<String> = new_order.iter().map(i64::to_string).collect();
            return Err(ScheduleError::invalid_argument(
                P,
                format!(
                    "The specified reorder indices are invalid: the order [{}] is not a valid \
                     permutation of [0, 1, ..., {}] for the {n} iterators of block `{}`.",
                    listed.join(", "),
                    n as i64 - 1,
                    realize.block.name
                ),
            )
            .at(path));
        }
        let mut new = realize.clone();
        new.block.iter_vars = new_order
            .iter()
            .map(|&i| realize.block.iter_vars[i as usize].clone())
            .collect();
        new.iter_values = new_order
            .iter()
            .map(|&i| realize.iter_values[i as usize].clone())
            .collect();
        let span = tree::get(&self.body(P)?, &path)
            .map(|s| s.span())
            .unwrap_or_default();
        self.replace_at(P, &path, Stmt::new(StmtKind::BlockRealize(new), span))
    }
}

/// The structure checks of `transform_block_layout`: the loops above the
/// block start at 0 and form a chain down to it, each iterator is bound to
/// the loop at its position, there is no predicate and every iterator starts
/// at 0. Returns the path of the statement the new nest replaces.
fn check_block_layout_target(
    p: &str,
    body: &Stmt,
    path: &StmtPath,
    realize: &BlockRealize,
    loops: &[(StmtPath, For)],
) -> Result<StmtPath> {
    let block = &realize.block;
    for (lp, l) in loops {
        if !l.min.is_const_int(0) {
            return Err(ScheduleError::loop_structure(
                p,
                format!(
                    "The loop `{}` above block `{}` does not start with 0.",
                    l.loop_var.name(),
                    block.name
                ),
            )
            .at(lp.clone()));
        }
    }
    let scope_path = match loops.first() {
        Some((lp, _)) => {
            // The outermost loop holds this block only, as a chain of loops.
            let chain = tree::chain(body, path);
            let start = lp.0.len();
            if chain[start..chain.len() - 1]
                .iter()
                .any(|s| !matches!(s.kind(), StmtKind::For(_)))
            {
                return Err(ScheduleError::loop_structure(
                    p,
                    format!(
                        "The loop `{}` is required to have only one child, the chain of loops down to block `{}`, but it holds other statements.",
                        loops[0].1.loop_var.name(),
                        block.name
                    ),
                )
                .at(lp.clone()));
            }
            lp.clone()
        }
        None => path.clone(),
    };
    let trivial = loops.len() == realize.iter_values.len()
        && loops
            .iter()
            .zip(&realize.iter_values)
            .all(|((_, l), v)| matches!(v.kind(), ExprKind::Var(x) if x.id() == l.loop_var.id()));
    if !trivial {
        return Err(ScheduleError::non_affine_binding(
            p,
            format!(
                "The binding values of block `{}` are not variables of outer loops: each iterator must be bound to the loop at its position.",
                block.name
            ),
        )
        .at(path.clone()));
    }
    if !super::util::is_true(&realize.predicate) {
        return Err(ScheduleError::block_structure(
            p,
            format!(
                "block `{}` has a predicate; its new loops would not define the variables it uses",
                block.name
            ),
        )
        .at(path.clone()));
    }
    if let Some(iv) = block
        .iter_vars
        .iter()
        .find(|iv| !iv.dom.min.is_const_int(0))
    {
        return Err(ScheduleError::block_structure(
            p,
            format!(
                "the iterator {} of block `{}` does not start at 0",
                iv.var.name(),
                block.name
            ),
        )
        .at(path.clone()));
    }
    Ok(scope_path)
}

/// The kind of each new iterator: that of the old iterators its result
/// uses, which must all be spatial or all reduction (spatial when none).
fn new_iter_kinds(
    p: &str,
    block: &Block,
    results: &[Expr],
    path: &StmtPath,
) -> Result<Vec<IterKind>> {
    let kinds: HashMap<VarId, IterKind> = block
        .iter_vars
        .iter()
        .map(|iv| (iv.var.id(), iv.kind))
        .collect();
    let mut new_kinds = Vec::new();
    for r in results {
        let used: Vec<IterKind> = super::util::var_ids(r)
            .iter()
            .filter_map(|v| kinds.get(v).copied())
            .collect();
        let kind = match used.first() {
            None => IterKind::Spatial,
            Some(&k)
                if used.iter().all(|&u| u == k)
                    && matches!(k, IterKind::Spatial | IterKind::Reduce) =>
            {
                k
            }
            _ => {
                return Err(ScheduleError::block_structure(
                    p,
                    format!(
                        "Cannot detect the block iter type for new iter value {} in block `{}` because it contains more than one type of original iter vars.",
                        tessel_tir::ir::printer::print_expr(r),
                        block.name
                    ),
                )
                .at(path.clone()))
            }
        };
        new_kinds.push(kind);
    }
    Ok(new_kinds)
}

/// New iterators v0, v1, … and the inverse: each old iterator as the sum of
/// its pieces, each piece read from the new iterator holding it. Returns the
/// new iterators, the substitution and an analyzer bound to the new domains.
fn invert_iter_map(
    block: &Block,
    iter_map: &tessel_tir::arith::IterMap,
    new_kinds: Vec<IterKind>,
    dtype: DataType,
) -> (Vec<IterVar>, HashMap<VarId, Expr>, Analyzer) {
    let mut new_iters = Vec::new();
    let mut inverse: Vec<Vec<Expr>> = vec![Vec::new(); block.iter_vars.len()];
    let mut new_ana = Analyzer::new();
    for (k, (sum, kind)) in iter_map.indices.iter().zip(new_kinds).enumerate() {
        let v = Var::new(format!("v{k}"), dtype);
        let dom = Range::from_extent(Expr::int(sum.extent, dtype));
        new_ana.bind(&v, &dom);
        let shifted = if sum.base == 0 {
            v.to_expr()
        } else {
            Expr::binary(BinOp::Sub, v.to_expr(), Expr::int(sum.base, dtype))
        };
        for (n, a) in sum.args.iter().enumerate() {
            let mut piece = if a.scale == 1 {
                shifted.clone()
            } else {
                Expr::binary(BinOp::FloorDiv, shifted.clone(), Expr::int(a.scale, dtype))
            };
            if n > 0 {
                piece = Expr::binary(BinOp::FloorMod, piece, Expr::int(a.extent, dtype));
            }
            if a.lower_factor != 1 {
                piece = Expr::binary(BinOp::Mul, piece, Expr::int(a.lower_factor, dtype));
            }
            inverse[a.mark].push(piece);
        }
        new_iters.push(IterVar { var: v, dom, kind });
    }
    let subst: HashMap<VarId, Expr> = block
        .iter_vars
        .iter()
        .zip(inverse)
        .map(|(iv, pieces)| {
            let sum = pieces
                .into_iter()
                .reduce(|a, b| Expr::binary(BinOp::Add, a, b))
                .unwrap_or_else(|| Expr::int(0, dtype));
            (iv.var.id(), new_ana.simplify(&sum))
        })
        .collect();
    (new_iters, subst, new_ana)
}
