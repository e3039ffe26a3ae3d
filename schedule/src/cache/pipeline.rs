//! The stage-pipeline property of a scope (TVM's region cover check): every
//! consumer's read region covered by what its producers write.

use super::*;

/// RAW dependencies of a scope's children (TVM's `BlockScope`): `raw[i]`
/// lists the earlier children writing a buffer child `i` reads.
pub(super) struct Deps {
    pub(super) raw: Vec<Vec<usize>>,
}

pub(super) fn dependencies(children: &[ChildBlock]) -> Deps {
    let mut writers: HashMap<BufferId, Vec<usize>> = HashMap::new();
    let mut raw = vec![Vec::new(); children.len()];
    for (i, c) in children.iter().enumerate() {
        let b = &c.realize.block;
        for w in &b.writes {
            writers.entry(w.buffer.id()).or_default().push(i);
        }
        for r in &b.reads {
            for &w in writers.get(&r.buffer.id()).into_iter().flatten() {
                if w != i && !raw[i].contains(&w) {
                    raw[i].push(w);
                }
            }
        }
    }
    Deps { raw }
}

/// The deepest loop (or the scope) enclosing both paths.
pub(super) fn lca_path(body: &Stmt, scope: &StmtPath, a: &StmtPath, b: &StmtPath) -> StmtPath {
    let common: Vec<usize> =
        a.0.iter()
            .zip(&b.0)
            .take_while(|(x, y)| x == y)
            .map(|(x, _)| *x)
            .collect();
    let mut best = scope.clone();
    for (p, _) in enclosing_loops(body, a) {
        if p.0.len() <= common.len() && p.0[..] == common[..p.0.len()] && p.0.len() > best.0.len() {
            best = p;
        }
    }
    best
}

/// TVM's stage-pipeline property of the scope at `scope_path`: every
/// consumer's read region covered by what its producers write (blocks that
/// overwrite what an earlier one read do not matter: TVM 0.27 accepts them).
/// `Err` names the offending pair.
pub(crate) fn check_stage_pipeline(
    primitive: &str,
    body: &Stmt,
    scope_path: &StmtPath,
    scope_name: &str,
) -> Result<()> {
    let children = child_blocks(body, scope_path);
    let deps = dependencies(&children);
    let not_pipeline = |detail: String| {
        ScheduleError::region_coverage(
            primitive,
            format!(
                "The scope `{scope_name}` is not a stage pipeline: its region cover is not complete \
                 (the region cover property must hold for every one of its child blocks). {detail}"
            ),
        )
        .at(scope_path.clone())
    };
    for (ci, consumer) in children.iter().enumerate() {
        if deps.raw[ci].is_empty() {
            continue;
        }
        // Producers grouped by their lowest common ancestor with the consumer.
        let mut groups: Vec<(StmtPath, Vec<usize>)> = Vec::new();
        for &pi in &deps.raw[ci] {
            let lca = lca_path(body, scope_path, &consumer.path, &children[pi].path);
            match groups.iter_mut().find(|(p, _)| *p == lca) {
                Some(g) => g.1.push(pi),
                None => groups.push((lca, vec![pi])),
            }
        }
        for (lca, producers) in groups {
            let ana = analyzer_for(&loops_outside(body, &consumer.path, &lca));
            for read in &consumer.realize.block.reads {
                // What the producers at this level write of the buffer.
                let mut produced: Vec<Vec<Option<(Expr, Expr)>>> = Vec::new();
                for &pi in &producers {
                    let p = &children[pi];
                    let relax: HashMap<VarId, Range> = loops_below(body, &p.path, &lca)
                        .iter()
                        .map(|(_, l)| {
                            (l.loop_var.id(), Range::new(l.min.clone(), l.extent.clone()))
                        })
                        .collect();
                    let pred = unbind(&p.realize.predicate, &p.realize);
                    for w in p
                        .realize
                        .block
                        .writes
                        .iter()
                        .filter(|w| w.buffer == read.buffer)
                    {
                        produced.push(
                            w.region
                                .iter()
                                .map(|r| {
                                    let r = Range::new(
                                        unbind(&r.min, &p.realize),
                                        unbind(&r.extent, &p.realize),
                                    );
                                    lower_bound_dim(&ana, &r, &relax, &pred)
                                })
                                .collect(),
                        );
                    }
                }
                if produced.is_empty() {
                    continue;
                }
                let relax: HashMap<VarId, Range> = loops_below(body, &consumer.path, &lca)
                    .iter()
                    .map(|(_, l)| (l.loop_var.id(), Range::new(l.min.clone(), l.extent.clone())))
                    .collect();
                let pred = unbind(&consumer.realize.predicate, &consumer.realize);
                for (d, r) in read.region.iter().enumerate() {
                    let r = Range::new(
                        unbind(&r.min, &consumer.realize),
                        unbind(&r.extent, &consumer.realize),
                    );
                    let consumed = upper_bound_dim(&ana, &r, &relax, &pred);
                    let made = union_lower_bound(
                        &ana,
                        produced.iter().map(|p| p.get(d).cloned().flatten()),
                    );
                    let shape = read.buffer.shape.get(d).cloned();
                    if !covers(&ana, made, consumed, shape) {
                        return Err(not_pipeline(format!(
                            "Block `{}` reads a part of buffer `{}` (dimension {d}) that its producer{} `{}` may not write.",
                            consumer.realize.block.name,
                            read.buffer.name,
                            if producers.len() > 1 { "s" } else { "" },
                            producers
                                .iter()
                                .map(|&i| children[i].realize.block.name.clone())
                                .collect::<Vec<_>>()
                                .join("`, `")
                        )));
                    }
                }
            }
        }
    }
    Ok(())
}

/// The union of dense intervals, when it is itself an interval.
pub(super) fn union_lower_bound(
    ana: &Analyzer,
    parts: impl Iterator<Item = Option<(Expr, Expr)>>,
) -> Option<(Expr, Expr)> {
    let parts: Vec<(Expr, Expr)> = parts.collect::<Option<Vec<_>>>()?;
    match parts.len() {
        0 => None,
        1 => parts.into_iter().next(),
        _ => {
            if parts
                .iter()
                .all(|(lo, hi)| lo.as_int().is_some() && hi.as_int().is_some())
            {
                let mut v: Vec<(i64, i64)> = parts
                    .iter()
                    .map(|(lo, hi)| (lo.as_int().unwrap_or(0), hi.as_int().unwrap_or(0)))
                    .collect();
                tessel_ir::sort::ascending(&mut v);
                let (mut lo, mut hi) = v[0];
                for &(a, b) in &v[1..] {
                    if a > hi.saturating_add(1) {
                        return None;
                    }
                    hi = hi.max(b);
                }
                lo = lo.min(v[0].0);
                let dt = parts[0].0.dtype();
                return Some((Expr::int(lo, dt), Expr::int(hi, dt)));
            }
            let (lo0, hi0) = &parts[0];
            if parts
                .iter()
                .all(|(lo, hi)| ana.can_prove_equal(lo, lo0) && ana.can_prove_equal(hi, hi0))
            {
                return Some((lo0.clone(), hi0.clone()));
            }
            None
        }
    }
}

/// TVM's `ProducerCoversConsumer` for one dimension.
pub(super) fn covers(
    ana: &Analyzer,
    produced: Option<(Expr, Expr)>,
    consumed: Option<(Expr, Expr)>,
    shape: Option<Expr>,
) -> bool {
    let Some((plo, phi)) = produced else {
        return false;
    };
    let Some((clo, chi)) = consumed else {
        return false;
    };
    if plo.dtype() != clo.dtype() || phi.dtype() != chi.dtype() {
        return false;
    }
    let dt = plo.dtype();
    let clamp = |lo: Expr, hi: Expr| -> (Expr, Expr) {
        let lo = ana.simplify(&Expr::binary(BinOp::Max, lo, Expr::int(0, dt)));
        let hi = match &shape {
            Some(s) if s.dtype() == dt => ana.simplify(&Expr::binary(
                BinOp::Min,
                hi,
                Expr::binary(BinOp::Sub, s.clone(), Expr::int(1, dt)),
            )),
            _ => hi,
        };
        (lo, hi)
    };
    let (plo, phi) = clamp(plo, phi);
    let (clo, chi) = clamp(clo, chi);
    let le = |a: &Expr, b: &Expr| {
        let d = ana.simplify(&Expr::binary(BinOp::Sub, a.clone(), b.clone()));
        ana.can_prove(&Expr::cmp(CmpOp::Le, d, Expr::int(0, dt)))
    };
    le(&plo, &clo) && le(&chi, &phi)
}
