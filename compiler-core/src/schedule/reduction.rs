//! Reductions: `decompose_reduction` (and later `rfactor`).

use std::collections::{HashMap, HashSet};

use super::query::enclosing_loops;
use super::tree;
use super::*;
use crate::ir::mutate::{substitute_expr, substitute_stmt};

impl Schedule {
    /// `sch.decompose_reduction(block, loop)`: splits a reduction block into
    /// an init block `<name>_init`, placed right before `loop`, and the update
    /// block (renamed `<name>_update`; handles to the block follow it). The
    /// init block gets copies (`<loop>_init`) of the loops under `loop` that
    /// feed only spatial iterators. `loop` must enclose every loop that feeds
    /// a reduce iterator.
    pub fn decompose_reduction(&mut self, block_rv: BlockRV, loop_rv: LoopRV) -> Result<BlockRV> {
        const P: &str = "decompose_reduction";
        let (block_path, realize) = self.resolve_block(P, block_rv)?;
        let (loop_path, loop_node) = self.resolve_loop(P, loop_rv)?;
        let block = &realize.block;
        let Some(init) = &block.init else {
            return Err(ScheduleError::new(
                P,
                format!(
                    "block `{}` has no `T.init()`, so it is not a reduction block",
                    block.name
                ),
            )
            .at(block_path));
        };
        if !block
            .iter_vars
            .iter()
            .all(|iv| matches!(iv.kind, IterKind::Spatial | IterKind::Reduce))
        {
            return Err(ScheduleError::new(
                P,
                format!(
                    "block `{}` has iterators that are neither spatial nor reduce",
                    block.name
                ),
            )
            .at(block_path));
        }
        if !loop_path.is_prefix_of(&block_path) {
            return Err(ScheduleError::new(
                P,
                format!(
                    "loop `{}` is not an ancestor of block `{}`",
                    loop_node.loop_var.name(),
                    block.name
                ),
            )
            .at(loop_path));
        }
        let body = self.body(P)?;
        let loops = enclosing_loops(&body, &block_path);
        let Some(pos) = loops
            .iter()
            .position(|(_, l)| l.loop_var == loop_node.loop_var)
        else {
            return Err(ScheduleError::new(
                P,
                format!(
                    "loop `{}` lies outside the scope of block `{}` (another block is in between)",
                    loop_node.loop_var.name(),
                    block.name
                ),
            ));
        };
        // Loop variables feeding reduce / spatial iterators.
        let mut reduce_vars: HashSet<VarId> = HashSet::new();
        let mut spatial_vars: HashSet<VarId> = HashSet::new();
        for (iv, value) in block.iter_vars.iter().zip(&realize.iter_values) {
            value.walk(&mut |e| {
                if let ExprKind::Var(v) = e.kind() {
                    if iv.kind == IterKind::Reduce {
                        reduce_vars.insert(v.id());
                    } else {
                        spatial_vars.insert(v.id());
                    }
                }
            });
        }
        for (_, l) in &loops[..pos] {
            if reduce_vars.contains(&l.loop_var.id()) {
                return Err(ScheduleError::new(
                    P,
                    format!(
                        "loop `{}` feeds a reduce iterator but lies above `{}`; decompose at a loop that encloses every reduction loop",
                        l.loop_var.name(),
                        loop_node.loop_var.name()
                    ),
                )
                .at(loop_path));
            }
        }
        // The init block's loops: copies of the loops from `loop` down that feed only spatial iterators.
        let mut copies: Vec<(For, Var)> = Vec::new();
        let mut subst: HashMap<VarId, Expr> = HashMap::new();
        for (_, l) in &loops[pos..] {
            let v = l.loop_var.id();
            if reduce_vars.contains(&v) {
                continue;
            }
            if spatial_vars.contains(&v) {
                let copy = Var::new(format!("{}_init", l.loop_var.name()), l.loop_var.dtype());
                subst.insert(v, copy.to_expr());
                copies.push((l.clone(), copy));
            }
        }
        // Iterators of the init block: the spatial ones, bound as before.
        let mut iter_vars = Vec::new();
        let mut iter_values = Vec::new();
        let mut iter_subst: HashMap<VarId, Expr> = HashMap::new();
        for (iv, value) in block.iter_vars.iter().zip(&realize.iter_values) {
            if iv.kind == IterKind::Spatial {
                let nv = iv.var.fresh_copy();
                iter_subst.insert(iv.var.id(), nv.to_expr());
                iter_vars.push(IterVar {
                    var: nv,
                    dom: iv.dom.clone(),
                    kind: IterKind::Spatial,
                });
                iter_values.push(substitute_expr(value, &subst));
            }
        }
        let inner_loop_vars: HashSet<VarId> =
            loops[pos..].iter().map(|(_, l)| l.loop_var.id()).collect();
        let predicate = conjuncts(&realize.predicate)
            .into_iter()
            .filter(|c| {
                let mut ok = true;
                c.walk(&mut |e| {
                    if let ExprKind::Var(v) = e.kind() {
                        if inner_loop_vars.contains(&v.id()) && !subst.contains_key(&v.id()) {
                            ok = false;
                        }
                    }
                });
                ok
            })
            .map(|c| substitute_expr(&c, &subst))
            .reduce(Expr::and)
            .unwrap_or_else(|| Expr::bool(true));
        let writes = block
            .writes
            .iter()
            .map(|w| BufferRegion {
                buffer: w.buffer.clone(),
                region: w
                    .region
                    .iter()
                    .map(|r| {
                        Range::new(
                            substitute_expr(&r.min, &iter_subst),
                            substitute_expr(&r.extent, &iter_subst),
                        )
                    })
                    .collect(),
            })
            .collect();
        let init_block = Block {
            name: format!("{}_init", block.name),
            iter_vars,
            reads: vec![],
            writes,
            alloc_buffers: vec![],
            match_buffers: vec![],
            annotations: Annotations::new(),
            init: None,
            body: substitute_stmt(init, &iter_subst),
            span: block.span,
        };
        let mut init_stmt = Stmt::from_kind(StmtKind::BlockRealize(BlockRealize {
            iter_values,
            predicate,
            block: init_block,
        }));
        for (l, copy) in copies.into_iter().rev() {
            init_stmt = Stmt::from_kind(StmtKind::For(For {
                loop_var: copy,
                min: substitute_expr(&l.min, &subst),
                extent: substitute_expr(&l.extent, &subst),
                kind: l.kind,
                thread_tag: l.thread_tag.clone(),
                annotations: l.annotations.clone(),
                body: init_stmt,
            }));
        }
        // The update block: no init, new name.
        let update_name = format!("{}_update", block.name);
        let mut update = realize.clone();
        update.block.init = None;
        update.block.name = update_name.clone();
        // Without its init the update block reads what it accumulates into:
        // TVM puts the written regions first, unless the buffer is already read.
        let mut reads: Vec<BufferRegion> = block
            .writes
            .iter()
            .filter(|w| !block.reads.iter().any(|r| r.buffer == w.buffer))
            .cloned()
            .collect();
        reads.extend(block.reads.iter().cloned());
        update.block.reads = reads;
        let body = tree::replace(
            &body,
            &block_path,
            Stmt::from_kind(StmtKind::BlockRealize(update)),
        );
        // Insert the init nest right before `loop`.
        let loop_stmt = tree::get(&body, &loop_path)
            .ok_or_else(|| ScheduleError::new(P, "internal: stale loop path"))?;
        let body = tree::replace(&body, &loop_path, Stmt::seq(vec![init_stmt, loop_stmt]));
        self.set_body(P, body)?;
        let old_name = block.name.clone();
        let init_name = format!("{old_name}_init");
        self.rename_block_rvs(&old_name, Some(&update_name));
        let rv = self.new_block_rv(&init_name);
        self.record(
            Instruction::new("decompose_reduction")
                .arg("block", TraceArg::Rv(block_rv.into()))
                .arg("loop", TraceArg::Rv(loop_rv.into()))
                .outputs(vec![rv.into()]),
        );
        Ok(rv)
    }
}

/// `a and b and c` as `[a, b, c]` (a literal `True` gives nothing).
pub(crate) fn conjuncts(e: &Expr) -> Vec<Expr> {
    match e.kind() {
        ExprKind::And(a, b) => {
            let mut v = conjuncts(a);
            v.extend(conjuncts(b));
            v
        }
        ExprKind::Int(1) if e.dtype().is_bool() => vec![],
        _ => vec![e.clone()],
    }
}
