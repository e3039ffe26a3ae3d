//! `rolling_buffer`: a producer computed tile by tile keeps only one tile of
//! its buffer along one axis, indexed modulo the tile, and skips the
//! elements the previous tile already computed.
//!
//! Behaviour checked against TVM 0.27 (`RollingBuffer`):
//!
//! - **Checks.** The block is not an output block and has only
//!   read-after-write dependences. The lowest common ancestor of the block
//!   and its consumers is a loop. The block's `write_buffer_index`-th write
//!   region, relaxed over the loops between the block and that ancestor,
//!   must in some dimension start at `v`, `v * s` or `(v * s) // d` for a
//!   loop variable `v` and span more than the step (`s`, or `ceil(s / d)`):
//!   consecutive tiles overlap there. Dimensions starting at a constant do
//!   not roll.
//! - **Result.** The rolling axis is the dimension of the outermost of the
//!   block's loops that overlaps. The buffer keeps its name and shrinks to
//!   the tile's extent there; every access in the scope indexes that
//!   dimension modulo the extent. In every block of the scope, the iterator
//!   at the rolling axis's position becomes opaque, and the regions of the
//!   buffer are inferred again from the accesses. The block storing to the
//!   buffer gets the predicate `v < 1 or overlap <= <its binding there with
//!   v = 0>` for each overlapping dimension.
//! - **Tessel's further checks.** TVM takes the binding of the block
//!   iterator at the *dimension's position* for the predicate, and stops on
//!   an internal check when a block accessing the buffer has other regions
//!   of the same kind (it replaces the buffer's region by the only inferred
//!   one). Tessel refuses both: the store must index each overlapping
//!   dimension with the block iterator at that position, and a block
//!   reading (writing) the buffer must read (write) nothing else. Region
//!   bounds that are not constants are refused too (TVM reads them as
//!   integers).

use std::collections::HashMap;

use super::primitives::{param, ParamType as T, Primitive, Returns};
use super::query::enclosing_loops;
use super::replay::SchedValue;
use super::scope::{DepKind, Scope};
use super::tree::{self, StmtPath};
use super::*;
use tessel_tir::analysis::regions::infer_access_regions;
use tessel_tir::arith::Analyzer;
use tessel_tir::ir::mutate::{substitute_expr, walk_block, walk_expr, walk_stmt, Mutator};

pub(super) const ROLLING_BUFFER: Primitive = Primitive {
    method: "rolling_buffer",
    aliases: &[],
    kind: "RollingBuffer",
    params: &[
        param("block", T::Block),
        param("write_buffer_index", T::Int).attr(),
    ],
    returns: Returns::Nothing,
    traced: true,
    apply: super::primitives::unless_lean(|sch, args| {
        sch.rolling_buffer_concrete(args.block("block")?, args.int("write_buffer_index")?)?;
        Ok(SchedValue::None)
    }),
    menu: None,
};

const P: &str = "rolling_buffer";

/// One dimension of the relaxed region: the loop whose tiles overlap there,
/// and by how much.
#[derive(Clone)]
struct Roll {
    var: Option<Var>,
    overlap: i64,
}

/// Matches `v`, `v * s` or `(v * s) // d` (TVM's patterns, constants on the
/// right); `None` when the start is not a constant either.
fn match_dim(min: &Expr, extent: i64) -> Option<Roll> {
    let var_times = |e: &Expr| -> Option<(Var, i64)> {
        match e.kind() {
            ExprKind::Var(v) => Some((v.clone(), 1)),
            ExprKind::Binary(BinOp::Mul, a, b) => match (a.kind(), b.as_int()) {
                (ExprKind::Var(v), Some(s)) => Some((v.clone(), s)),
                _ => None,
            },
            _ => None,
        }
    };
    let (var, stride) = match min.kind() {
        ExprKind::Binary(BinOp::FloorDiv, a, d) => match (var_times(a), d.as_int()) {
            (Some((v, s)), Some(d))
                if matches!(a.kind(), ExprKind::Binary(BinOp::Mul, ..)) && d != 0 =>
            {
                (Some(v), (s as f64 / d as f64).ceil() as i64)
            }
            _ => return None,
        },
        _ => match var_times(min) {
            Some((v, s)) => (Some(v), s),
            None if min.as_int().is_some() => (None, 0),
            None => return None,
        },
    };
    let overlap = if var.is_some() { extent - stride } else { 0 };
    Some(if overlap <= 0 {
        Roll { var: None, overlap }
    } else {
        Roll { var, overlap }
    })
}

/// Rewrites the scope: accesses of the buffer go to the rolled one, block
/// iterators at the rolling axis turn opaque, regions are inferred again and
/// the storing block gets its predicate.
struct Roller<'a> {
    old: BufferId,
    new: &'a Buffer,
    axis: usize,
    extent: i64,
    rolls: &'a [Roll],
    ana: &'a Analyzer,
    /// Set by a store to the buffer until the innermost block around it
    /// takes it.
    stored: bool,
    error: Option<ScheduleError>,
}

impl Roller<'_> {
    fn indices(&mut self, indices: &[Expr]) -> Vec<Expr> {
        indices
            .iter()
            .enumerate()
            .map(|(i, x)| {
                let x = self.expr(x);
                if i == self.axis {
                    Expr::binary(
                        BinOp::FloorMod,
                        x.clone(),
                        Expr::int(self.extent, x.dtype()),
                    )
                } else {
                    x
                }
            })
            .collect()
    }

    fn regions(
        &mut self,
        declared: &[BufferRegion],
        inferred: &[BufferRegion],
        block: &str,
        kind: &str,
    ) -> Vec<BufferRegion> {
        declared
            .iter()
            .map(|r| {
                if r.buffer.id != self.old {
                    return r.clone();
                }
                match inferred {
                    [only] => only.clone(),
                    _ => {
                        self.error.get_or_insert(ScheduleError::unsupported(
                            P,
                            format!(
                                "Block `{block}` {kind}s `{}` and other buffers; Tessel rolls a \
                                 buffer only where its blocks {kind} nothing else (TVM 0.27 \
                                 stops on an internal check).",
                                self.new.name
                            ),
                        ));
                        r.clone()
                    }
                }
            })
            .collect()
    }
}

impl Mutator for Roller<'_> {
    fn expr(&mut self, e: &Expr) -> Expr {
        if let ExprKind::Load { buffer, indices } = e.kind() {
            if buffer.id == self.old {
                let indices = self.indices(indices);
                return Expr::load(self.new, indices);
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
            } if buffer.id == self.old => {
                // The store must index each overlapping dimension with the
                // block iterator TVM takes the predicate from: checked by the
                // block below, which sees the store's original indices here.
                self.stored = true;
                let value = self.expr(value);
                let indices = self.indices(indices);
                Stmt::new(
                    StmtKind::Store {
                        buffer: self.new.clone(),
                        value,
                        indices,
                    },
                    s.span(),
                )
            }
            StmtKind::BlockRealize(r) => {
                let before = self.stored;
                self.stored = false;
                let mut block = walk_block(self, &r.block);
                if let Some(iv) = block.iter_vars.get_mut(self.axis) {
                    iv.kind = IterKind::Opaque;
                }
                let (reads, writes) = infer_access_regions(&block);
                block.reads = self.regions(&block.reads.clone(), &reads, &r.block.name, "read");
                block.writes = self.regions(&block.writes.clone(), &writes, &r.block.name, "write");
                let mut predicate = self.expr(&r.predicate);
                if self.stored {
                    self.stored = false;
                    let stores = store_indices(&r.block.body, self.old);
                    for (i, roll) in self.rolls.iter().enumerate() {
                        let Some(var) = &roll.var else { continue };
                        let indexed_by_iter = r.block.iter_vars.get(i).is_some_and(|iv| {
                            stores.iter().all(|idx| {
                                matches!(idx.get(i).map(|x| x.kind()), Some(ExprKind::Var(v)) if v.id() == iv.var.id())
                            })
                        });
                        let Some(value) = r.iter_values.get(i).filter(|_| indexed_by_iter) else {
                            self.error.get_or_insert(ScheduleError::unsupported(
                                P,
                                format!(
                                    "Block `{}` does not index dimension {i} of `{}` with its \
                                     iterator at position {i}; the predicate that skips the \
                                     overlap would read the wrong binding (TVM 0.27 takes the \
                                     iterator by position).",
                                    r.block.name, self.new.name
                                ),
                            ));
                            continue;
                        };
                        let dt = var.dtype();
                        let first = self.ana.simplify(&substitute_expr(
                            value,
                            &HashMap::from([(var.id(), Expr::int(0, dt))]),
                        ));
                        let keep = Expr::or(
                            Expr::cmp(CmpOp::Lt, var.to_expr(), Expr::int(1, dt)),
                            Expr::cmp(
                                CmpOp::Ge,
                                first.clone(),
                                Expr::int(roll.overlap, first.dtype()),
                            ),
                        );
                        predicate = self.ana.simplify(&Expr::and(predicate, keep));
                    }
                }
                self.stored = before;
                Stmt::new(
                    StmtKind::BlockRealize(BlockRealize {
                        iter_values: r.iter_values.iter().map(|x| self.expr(x)).collect(),
                        predicate,
                        block,
                    }),
                    s.span(),
                )
            }
            _ => walk_stmt(self, s),
        }
    }
}

/// The indices of each store to `buffer` in `s`, not looking into blocks.
fn store_indices(s: &Stmt, buffer: BufferId) -> Vec<Vec<Expr>> {
    let mut out = Vec::new();
    fn go(s: &Stmt, buffer: BufferId, out: &mut Vec<Vec<Expr>>) {
        match s.kind() {
            StmtKind::Store {
                buffer: b, indices, ..
            } if b.id == buffer => out.push(indices.clone()),
            StmtKind::BlockRealize(_) => {}
            _ => tree::children(s).iter().for_each(|c| go(c, buffer, out)),
        }
    }
    go(s, buffer, &mut out);
    out
}

impl Schedule {
    /// `sch.rolling_buffer(block, write_buffer_index)`: see the module
    /// documentation.
    pub fn rolling_buffer(&mut self, block: BlockRV, write_buffer_index: i64) -> Result<()> {
        let args = vec![block.into(), SchedValue::Int(write_buffer_index)];
        self.apply_traced(
            &ROLLING_BUFFER,
            super::primitives::Args::typed(&ROLLING_BUFFER, args),
        )?;
        Ok(())
    }

    fn rolling_buffer_concrete(&mut self, block_rv: BlockRV, index: i64) -> Result<()> {
        let (path, realize) = self.resolve_block(P, block_rv)?;
        let writes = &realize.block.writes;
        let Some(region) = usize::try_from(index)
            .ok()
            .and_then(|i| writes.get(i))
            .cloned()
        else {
            return Err(ScheduleError::invalid_argument(
                P,
                format!(
                    "Index {index} is out of range: block `{}` has {} write region(s).",
                    realize.block.name,
                    writes.len()
                ),
            ));
        };
        let body = self.body(P)?;
        let scope = Scope::of_block(P, &body, &path)?;
        let Some(me) = scope.blocks.iter().position(|(p, _)| *p == path) else {
            return Err(ScheduleError::internal(
                P,
                "internal: the block is not in its scope",
            ));
        };
        scope.check_not_output(P, me)?;
        if scope
            .deps
            .iter()
            .any(|d| (d.src == me || d.dst == me) && d.kind != DepKind::Raw)
        {
            return Err(ScheduleError::dependency(
                P,
                format!(
                    "The target block `{}` is required to have only RAW dependencies",
                    realize.block.name
                ),
            )
            .at(path));
        }
        // The lowest common ancestor of the block and its consumers: a loop.
        let mut lca: Vec<usize> = path.0.clone();
        for c in scope.consumers(me) {
            let other = &scope.blocks[c].0 .0;
            let n = lca.iter().zip(other).take_while(|(a, b)| a == b).count();
            lca.truncate(n);
        }
        let lca_node = loop {
            match tree::get(&body, &StmtPath(lca.clone())).map(|s| s.kind().clone()) {
                Some(StmtKind::For(_)) | Some(StmtKind::BlockRealize(_)) | None => {
                    break lca.clone()
                }
                _ => {
                    lca.pop();
                }
            }
        };
        let lca_path = StmtPath(lca_node);
        if !matches!(
            tree::get(&body, &lca_path).map(|s| s.kind().clone()),
            Some(StmtKind::For(_))
        ) || lca_path == path
        {
            return Err(ScheduleError::loop_structure(
                P,
                format!(
                    "rolling_buffer injection is invalid. The block `{}` should be tiled so that \
                     the lca of the access location of the target buffer `{}` is a for loop.",
                    realize.block.name, region.buffer.name
                ),
            )
            .at(path));
        }
        let loops = enclosing_loops(&body, &path);
        let dom: HashMap<VarId, Range> = loops
            .iter()
            .filter(|(lp, _)| lp.0.len() > lca_path.0.len())
            .map(|(_, l)| (l.loop_var.id(), Range::new(l.min.clone(), l.extent.clone())))
            .collect();
        let binding: HashMap<VarId, Expr> = realize
            .block
            .iter_vars
            .iter()
            .zip(&realize.iter_values)
            .map(|(iv, v)| (iv.var.id(), v.clone()))
            .collect();
        let ana = Analyzer::new();
        let relaxed = scope::relax_region(&region, &binding, &dom);
        let mut rolls = Vec::new();
        let mut extents = Vec::new();
        let mismatch = || {
            ScheduleError::region_coverage(
                P,
                format!(
                    "rolling_buffer expect the buffer region to have at least one dimention \
                     matching the rolling pattern such as: hh.outer * stride + hh.inner \
                     (buffer `{}`).",
                    region.buffer.name
                ),
            )
            .at(path.clone())
        };
        for (lo, hi) in &relaxed {
            let lo = ana.simplify(lo);
            let extent = ana.simplify(&Expr::binary(
                BinOp::Sub,
                Expr::binary(BinOp::Add, hi.clone(), Expr::int(1, hi.dtype())),
                lo.clone(),
            ));
            let Some(roll) = match_dim(&lo, extent.as_int().unwrap_or(0)) else {
                return Err(mismatch());
            };
            if roll.var.is_some() && extent.as_int().is_none() {
                return Err(ScheduleError::region_coverage(
                    P,
                    format!(
                        "The tile of `{}` has a symbolic extent.",
                        region.buffer.name
                    ),
                ));
            }
            rolls.push(roll);
            extents.push(extent);
        }
        let Some((axis, _)) = loops.iter().find_map(|(_, l)| {
            rolls
                .iter()
                .position(|r| r.var.as_ref().is_some_and(|v| v.id() == l.loop_var.id()))
                .map(|i| (i, l))
        }) else {
            return Err(mismatch());
        };
        let old = region.buffer.clone();
        let (Some(tile), true) = (extents.get(axis).cloned(), axis < old.shape.len()) else {
            return Err(ScheduleError::region_coverage(
                P,
                format!("The region of `{}` does not match its rank.", old.name),
            ));
        };
        let extent = tile.as_int().unwrap_or(0);
        let new = old.derive(|n| n.shape[axis] = tile);

        let scope_path = scope.path.clone();
        let Some(StmtKind::BlockRealize(mut root)) =
            tree::get(&body, &scope_path).map(|s| s.kind().clone())
        else {
            return Err(ScheduleError::internal(
                P,
                "internal: the scope block moved",
            ));
        };
        let mut roller = Roller {
            old: old.id,
            new: &new,
            axis,
            extent,
            rolls: &rolls,
            ana: &ana,
            stored: false,
            error: None,
        };
        root.block.body = roller.stmt(&root.block.body);
        if let Some(e) = roller.error {
            return Err(e.at(path));
        }
        for b in &mut root.block.alloc_buffers {
            if b.id == old.id {
                *b = new.clone();
            }
        }
        let body = tree::replace(
            &body,
            &scope_path,
            Stmt::from_kind(StmtKind::BlockRealize(root)),
        );
        self.set_body(P, body)
    }
}
