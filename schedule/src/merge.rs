//! `merge`: loop nests of equal extents, side by side, become one nest whose
//! body runs each nest's body in turn.
//!
//! Behaviour checked against TVM 0.27 (`Merge`):
//!
//! - **Which loops.** Each given loop, with the loops above it up to the
//!   lowest statement holding all of them, forms a nest. Every loop of a nest
//!   must have no annotations and no thread binding and start at 0, and each
//!   must be the only child of the one above it. All nests must lie in the
//!   same block scope, have the same depth, and equal extents level by level.
//! - **Result.** New loops named after the first nest's (`i` → `i_m`) with its
//!   extents; the innermost runs the bodies of the given loops, in the order
//!   the loops were given, with each nest's loop variables replaced by the new
//!   ones. It returns the new loop at the given loops' level.
//! - **Tessel's further checks.** TVM checks no dependences: running the
//!   bodies interleaved changes what they compute when one nest reads or
//!   writes what another writes, and TVM places the merged nest where the last
//!   nest was, moving the others past whatever lies between. Tessel refuses
//!   both: the nests must be adjacent statements, and no buffer one nest
//!   writes may be read or written by another.

use std::collections::{HashMap, HashSet};

use super::primitives::{param, ParamType as T, Primitive, Returns};
use super::query::enclosing_block_path;
use super::replay::SchedValue;
use super::tree::{self, StmtPath};
use super::*;
use tessel_tir::arith::Analyzer;
use tessel_tir::ir::mutate::substitute_stmt;

pub(super) const MERGE: Primitive = Primitive {
    method: "merge",
    aliases: &[],
    kind: "Merge",
    params: &[param("loops", T::Loops).var_positional()],
    returns: Returns::One,
    traced: true,
    apply: super::primitives::unless_lean(|sch, args| {
        Ok(sch.merge_concrete(&args.loops("loops")?)?.into())
    }),
    menu: None,
};

/// The buffers the blocks under a statement read and write.
fn accesses(s: &Stmt) -> (HashSet<BufferId>, HashSet<BufferId>) {
    let (mut reads, mut writes) = (HashSet::new(), HashSet::new());
    for p in tree::find_all(s, &mut |x| matches!(x.kind(), StmtKind::BlockRealize(_))) {
        if let Some(StmtKind::BlockRealize(r)) = tree::get(s, &p).map(|x| x.kind().clone()) {
            reads.extend(r.block.reads.iter().map(|x| x.buffer.id));
            writes.extend(r.block.writes.iter().map(|x| x.buffer.id));
        }
    }
    (reads, writes)
}

impl Schedule {
    /// `sch.merge(*loops)`: see the module documentation.
    pub fn merge(&mut self, loop_rvs: &[LoopRV]) -> Result<LoopRV> {
        let args = super::primitives::Args::typed(&MERGE, vec![SchedValue::rv_list(loop_rvs)]);
        self.apply_traced(&MERGE, args)?.into_loop()
    }

    fn merge_concrete(&mut self, loop_rvs: &[LoopRV]) -> Result<LoopRV> {
        if loop_rvs.is_empty() {
            return Err(ScheduleError::invalid_argument(
                P,
                "merge needs at least one loop",
            ));
        }
        let body = self.body(P)?;
        let mut paths = Vec::new();
        for rv in loop_rvs {
            let (path, _) = self.resolve_loop(P, *rv)?;
            if paths.contains(&path) {
                return Err(ScheduleError::invalid_argument(P, "a loop is given twice").at(path));
            }
            paths.push(path);
        }
        // The lowest common ancestor: the longest common prefix of the paths.
        let mut lca: Vec<usize> = paths[0].0.clone();
        for p in &paths[1..] {
            let n = lca.iter().zip(&p.0).take_while(|(a, b)| a == b).count();
            lca.truncate(n);
        }
        let lca = StmtPath(lca);
        let nests = merge_nests(&body, &paths, &lca)?;
        let depth = nests[0].len();
        if nests.iter().any(|n| n.len() != depth) || depth == 0 {
            return Err(ScheduleError::loop_structure(
                P,
                "The loops to merge must sit at the same depth below the statement holding them all.",
            ));
        }
        check_equal_extents(&nests)?;

        // Tessel's checks: adjacent nests, no dependences between them.
        let outer_paths: Vec<StmtPath> = nests.iter().map(|n| n[depth - 1].0.clone()).collect();
        let seq_path = outer_paths[0].parent();
        let positions = adjacent_positions(&body, &outer_paths, seq_path.as_ref())?;
        check_independent(&nests)?;

        // The merged nest.
        let (stmt, new_vars) = build_merged_nest(&nests);
        let body = match seq_path.filter(|_| nests.len() > 1) {
            Some(seq_path) => {
                let Some(StmtKind::Seq(items)) =
                    tree::get(&body, &seq_path).map(|s| s.kind().clone())
                else {
                    return Err(ScheduleError::internal(P, "internal: the sequence moved"));
                };
                let (first, last) = (positions[0], positions[positions.len() - 1]);
                let mut kept: Vec<Stmt> = items[..first].to_vec();
                kept.push(stmt);
                kept.extend_from_slice(&items[last + 1..]);
                let new = if kept.len() == 1 {
                    kept.pop().unwrap_or_else(Stmt::evaluate_zero)
                } else {
                    Stmt::seq(kept)
                };
                tree::replace(&body, &seq_path, new)
            }
            None => tree::replace(&body, &outer_paths[0], stmt),
        };
        for n in &nests {
            for (_, l) in n {
                self.remove_loop_rvs(l.loop_var.id());
            }
        }
        self.set_body(P, body)?;
        Ok(self.new_loop_rv(&new_vars[0]))
    }
}

const P: &str = "merge";

/// A nest of loops, innermost first, with their paths.
type Nest = Vec<(StmtPath, For)>;

/// The nests from each given loop up to the lowest common ancestor,
/// innermost loop first, each a chain of plain loops from 0, all under the
/// same block scope.
fn merge_nests(body: &Stmt, paths: &[StmtPath], lca: &StmtPath) -> Result<Vec<Nest>> {
    let mut nests: Vec<Nest> = Vec::new();
    let mut scope: Option<StmtPath> = None;
    for p in paths {
        let chain = tree::chain(body, p);
        let mut nest = Vec::new();
        for d in (lca.0.len()..chain.len()).rev() {
            let StmtKind::For(l) = chain[d].kind() else {
                continue;
            };
            let lp = StmtPath(p.0[..d].to_vec());
            if !l.annotations.is_empty() || l.thread_tag.is_some() {
                return Err(ScheduleError::loop_structure(
                    P,
                    format!(
                        "The loop `{}` has annotations or a thread binding; merge needs plain loops.",
                        l.loop_var.name()
                    ),
                )
                .at(lp));
            }
            if !l.min.is_const_int(0) {
                return Err(ScheduleError::loop_structure(
                    P,
                    format!("The loop `{}` does not start with 0.", l.loop_var.name()),
                )
                .at(lp));
            }
            if let Some((_, inner)) = nest.last() {
                let inner: &For = inner;
                if !matches!(l.body.kind(), StmtKind::For(x) if x.loop_var.id() == inner.loop_var.id())
                {
                    return Err(ScheduleError::loop_structure(
                        P,
                        format!(
                            "The loop `{}` is required to have only one child, loop `{}`.",
                            l.loop_var.name(),
                            inner.loop_var.name()
                        ),
                    )
                    .at(lp));
                }
            }
            nest.push((lp, l.clone()));
        }
        let here = enclosing_block_path(body, p);
        match (&scope, here) {
            (None, s) => scope = s,
            (Some(a), Some(b)) if *a == b => {}
            _ => {
                return Err(ScheduleError::loop_structure(
                    P,
                    "Expected the loops to be under the same block scope.",
                )
                .at(p.clone()))
            }
        }
        nests.push(nest);
    }
    Ok(nests)
}

/// Refuses nests whose extents differ at some level.
fn check_equal_extents(nests: &[Nest]) -> Result<()> {
    let ana = Analyzer::new();
    for n in &nests[1..] {
        for (j, (lp, l)) in n.iter().enumerate() {
            let want = &nests[0][j].1.extent;
            let diff = ana.simplify(&Expr::binary(BinOp::Sub, l.extent.clone(), want.clone()));
            if !diff.is_const_int(0) {
                return Err(ScheduleError::loop_structure(
                    P,
                    format!(
                        "The loops to merge must have equal extents level by level: `{}` has {} \
                         where `{}` has {}.",
                        l.loop_var.name(),
                        tessel_tir::ir::printer::print_expr(&l.extent),
                        nests[0][j].1.loop_var.name(),
                        tessel_tir::ir::printer::print_expr(want)
                    ),
                )
                .at(lp.clone()));
            }
        }
    }
    Ok(())
}

/// The positions of the nests' outermost loops in their sequence, which
/// must be adjacent statements of it (ascending; empty for a single nest).
fn adjacent_positions(
    body: &Stmt,
    outer_paths: &[StmtPath],
    seq_path: Option<&StmtPath>,
) -> Result<Vec<usize>> {
    let mut positions = Vec::new();
    let adjacent = outer_paths.len() == 1
        || (outer_paths.iter().all(|p| p.parent().as_ref() == seq_path)
            && matches!(
                seq_path
                    .and_then(|s| tree::get(body, s))
                    .map(|s| s.kind().clone()),
                Some(StmtKind::Seq(_))
            ));
    if adjacent {
        positions = outer_paths
            .iter()
            .map(|p| *p.0.last().unwrap_or(&0))
            .collect();
        tessel_ir::sort::ascending(&mut positions);
    }
    if !adjacent || positions.windows(2).any(|w| w[1] != w[0] + 1) {
        return Err(ScheduleError::loop_structure(
            P,
            "The loop nests to merge must be adjacent statements of one sequence: merging would \
             move a nest past the statements between them.",
        ));
    }
    Ok(positions)
}

/// Refuses nests one of which writes a buffer another accesses.
fn check_independent(nests: &[Nest]) -> Result<()> {
    let access: Vec<_> = nests
        .iter()
        .map(|n| accesses(&Stmt::from_kind(StmtKind::For(n[n.len() - 1].1.clone()))))
        .collect();
    for (a, (_, wa)) in access.iter().enumerate() {
        for (b, (rb, wb)) in access.iter().enumerate() {
            if a != b && wa.iter().any(|x| rb.contains(x) || wb.contains(x)) {
                return Err(ScheduleError::dependency(
                    P,
                    format!(
                        "The nests of `{}` and `{}` depend on each other (one writes a buffer the \
                         other accesses); running their bodies interleaved would change the results.",
                        nests[a][0].1.loop_var.name(),
                        nests[b][0].1.loop_var.name()
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// One nest of new loops `<name>_m` (named after the first nest's) over the
/// bodies of all the nests in order. Returns it with the new loop variables,
/// innermost first.
fn build_merged_nest(nests: &[Nest]) -> (Stmt, Vec<Var>) {
    let new_vars: Vec<Var> = nests[0]
        .iter()
        .map(|(_, l)| Var::new(format!("{}_m", l.loop_var.name()), l.loop_var.dtype()))
        .collect();
    let mut bodies = Vec::new();
    for n in nests {
        let map: HashMap<VarId, Expr> = n
            .iter()
            .zip(&new_vars)
            .map(|((_, l), v)| (l.loop_var.id(), v.to_expr()))
            .collect();
        bodies.push(substitute_stmt(&n[0].1.body, &map));
    }
    let mut stmt = Stmt::seq(bodies);
    for (v, (_, l)) in new_vars.iter().zip(&nests[0]) {
        stmt = Stmt::from_kind(StmtKind::For(For {
            loop_var: v.clone(),
            min: Expr::int(0, l.extent.dtype()),
            extent: l.extent.clone(),
            kind: ForKind::Serial,
            thread_tag: None,
            annotations: Annotations::new(),
            body: stmt,
        }));
    }
    (stmt, new_vars)
}
