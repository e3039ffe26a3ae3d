//! `fuse_reduction_epilogue`: a bias added to a reduction's result is moved
//! into the reduction, which then starts from the bias and writes the
//! epilogue's output directly.
//!
//! Behaviour checked against TVM 0.27 (`FuseReductionEpilogue`):
//!
//! - **Checks.** Both blocks share a scope that is a stage pipeline; the
//!   reduction block writes one buffer (`temp`), is a reduction block and
//!   not an output block; the epilogue is complete, has no predicate, is a
//!   single store, loads `temp` exactly once, and does not multiply, divide
//!   or take the remainder of an expression holding that load.
//! - **Result.** The reduction block keeps its name, iterators and loops;
//!   its init stores the epilogue's value with the load of `temp` replaced by
//!   0 into the epilogue's output (`D[vi, vj] = C[vi, vj]`), its update
//!   accumulates into that output (`D[vi, vj] = D[vi, vj] + …`), it reads the
//!   epilogue's other buffers first, then its own, and writes the output.
//!   The epilogue block and the loops left empty are removed; `temp` stays
//!   allocated, as in TVM 0.27.
//! - **Tessel's further checks.** TVM assumes the reduction is a sum from 0
//!   and applies every other shell around the load (`max(temp + C, 0)`) at
//!   each step of the reduction, which computes something else. Tessel
//!   fuses only what stays equal: the epilogue's value is `temp[…] + X` (or
//!   `X + temp[…]`) with `X` free of `temp`, the reduction is
//!   `temp[…] = temp[…] + e` with an init storing 0, the epilogue indexes
//!   `temp` and its output as the reduction indexes `temp` (after pairing
//!   their spatial iterators in order, as TVM does, over equal domains), and
//!   no other block of the scope accesses `temp` or the output or writes
//!   what `X` reads.

use std::collections::HashMap;

use super::primitives::{param, ParamType as T, Primitive, Returns};
use super::replay::SchedValue;
use super::scope::Scope;
use super::tree;
use super::*;
use tessel_tir::ir::deep_equal::expr_deep_equal;
use tessel_tir::ir::mutate::{substitute_expr, walk_expr, Mutator};

pub(super) const FUSE_REDUCTION_EPILOGUE: Primitive = Primitive {
    method: "fuse_reduction_epilogue",
    aliases: &[],
    kind: "FuseReductionEpilogue",
    params: &[
        param("reduction_block", T::Block),
        param("epilogue_block", T::Block),
    ],
    returns: Returns::Nothing,
    traced: true,
    apply: super::primitives::unless_lean(|sch, args| {
        sch.fuse_reduction_epilogue_concrete(
            args.block("reduction_block")?,
            args.block("epilogue_block")?,
        )?;
        Ok(SchedValue::None)
    }),
    menu: None,
};

const P: &str = "fuse_reduction_epilogue";

/// The loads of `buffer` in `e`.
fn loads_of(e: &Expr, buffer: BufferId) -> Vec<Vec<Expr>> {
    let mut out = Vec::new();
    e.walk(&mut |x| {
        if let ExprKind::Load { buffer: b, indices } = x.kind() {
            if b.id == buffer {
                out.push(indices.clone());
            }
        }
    });
    out
}

/// Whether a product, quotient or remainder holds a load of `buffer`
/// (TVM's "scaling" of the reduction result).
fn scales(e: &Expr, buffer: BufferId) -> bool {
    let mut found = false;
    e.walk(&mut |x| {
        if let ExprKind::Binary(BinOp::Mul | BinOp::Div | BinOp::Mod, a, b) = x.kind() {
            if !loads_of(a, buffer).is_empty() || !loads_of(b, buffer).is_empty() {
                found = true;
            }
        }
    });
    found
}

/// Loads of `from` become loads of `to`.
struct Retarget<'a> {
    from: BufferId,
    to: &'a Buffer,
}

impl Mutator for Retarget<'_> {
    fn expr(&mut self, e: &Expr) -> Expr {
        if let ExprKind::Load { buffer, indices } = e.kind() {
            if buffer.id == self.from {
                let indices = indices.iter().map(|i| self.expr(i)).collect();
                return Expr::load(self.to, indices);
            }
        }
        walk_expr(self, e)
    }
}

fn same(a: &[Expr], b: &[Expr]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| expr_deep_equal(x, y))
}

impl Schedule {
    /// `sch.fuse_reduction_epilogue(reduction_block, epilogue_block)`: see
    /// the module documentation.
    pub fn fuse_reduction_epilogue(&mut self, reduction: BlockRV, epilogue: BlockRV) -> Result<()> {
        let args = vec![reduction.into(), epilogue.into()];
        self.apply_traced(
            &FUSE_REDUCTION_EPILOGUE,
            super::primitives::Args::typed(&FUSE_REDUCTION_EPILOGUE, args),
        )?;
        Ok(())
    }

    fn fuse_reduction_epilogue_concrete(&mut self, red_rv: BlockRV, epi_rv: BlockRV) -> Result<()> {
        let (rpath, rreal) = self.resolve_block(P, red_rv)?;
        let (epath, ereal) = self.resolve_block(P, epi_rv)?;
        let body = self.body(P)?;
        let scope = Scope::of_block(P, &body, &epath)?;
        scope.check_stage_pipeline(P, &body)?;
        let position = |p: &StmtPath| scope.blocks.iter().position(|(q, _)| q == p);
        let (Some(ri), Some(ei)) = (position(&rpath), position(&epath)) else {
            return Err(ScheduleError::block_structure(
                P,
                "The reduction and the epilogue blocks must be in the same scope.",
            ));
        };
        let (rb, eb) = (&rreal.block, &ereal.block);
        let [temp_region] = rb.writes.as_slice() else {
            return Err(ScheduleError::block_structure(
                P,
                format!(
                    "The block `{}` is expected to write a single buffer.",
                    rb.name
                ),
            )
            .at(rpath));
        };
        let temp = temp_region.buffer.clone();
        if scope.reduction_code(&body, ri) != 0 {
            return Err(ScheduleError::not_reduction(
                P,
                format!("The block `{}` is not a reduction block.", rb.name),
            )
            .at(rpath));
        }
        scope.check_complete(P, ei)?;
        scope.check_not_output(P, ri)?;

        // TVM's pattern checks.
        let epilogue = epilogue_store(&ereal, rb, &temp, &epath)?;

        // Tessel's checks: a bias added to a sum from 0.
        let refuse = |why: &str| unsupported_epilogue(why, &epath);
        let is_temp_load =
            |e: &Expr| matches!(e.kind(), ExprKind::Load { buffer, .. } if buffer.id == temp.id);
        let bias = match epilogue.value.kind() {
            ExprKind::Binary(BinOp::Add, a, b) if is_temp_load(a) => b.clone(),
            ExprKind::Binary(BinOp::Add, a, b) if is_temp_load(b) => a.clone(),
            _ => return Err(refuse("The epilogue is not `temp[...] + bias`")),
        };
        let (rvalue, ridx) = zero_based_sum(rb, &temp, &epath)?;
        let var_map = spatial_var_map(rb, eb, &epilogue, ridx, &epath)?;
        check_no_other_access(&scope, [ri, ei], &temp, epilogue.out, &bias, &epath)?;

        // The fused block.
        let fused = build_fused_block(rb, eb, &temp, &epilogue, &bias, &var_map, (rvalue, ridx));
        let rm_path = scope::leaf_removal_path(P, &body, &epath, &scope)?;
        let new_realize = Stmt::from_kind(StmtKind::BlockRealize(BlockRealize {
            block: fused,
            ..rreal.clone()
        }));
        let body = tree::replace(&body, &rpath, new_realize);
        let body = scope::remove_seq_item(&body, &rm_path);
        self.set_body(P, body)?;
        self.rename_block_rvs(&eb.name, None);
        Ok(())
    }
}

/// A refusal of an epilogue Tessel does not fuse.
fn unsupported_epilogue(why: &str, epath: &StmtPath) -> ScheduleError {
    ScheduleError::unsupported(
        P,
        format!(
            "{why}; Tessel fuses only a bias added to a sum that starts from 0 (TVM 0.27 \
             assumes that and computes something else otherwise)."
        ),
    )
    .at(epath.clone())
}

/// The epilogue's single store, and its one load of the reduction result.
struct EpilogueStore<'a> {
    out: &'a Buffer,
    value: &'a Expr,
    out_indices: &'a [Expr],
    /// The indices of each load of the reduction result (exactly one).
    temp_loads: Vec<Vec<Expr>>,
}

/// TVM's pattern checks: the epilogue is a single store without predicate
/// that uses the reduction result `temp` once, unscaled, and the reduction
/// has a reduction iterator.
fn epilogue_store<'a>(
    ereal: &'a BlockRealize,
    rb: &Block,
    temp: &Buffer,
    epath: &StmtPath,
) -> Result<EpilogueStore<'a>> {
    let eb = &ereal.block;
    let body_error = || {
        ScheduleError::block_structure(
            P,
            format!(
                "The body of the epilogue block `{}` is not a single store that uses the \
                 reduction result once, unscaled.",
                eb.name
            ),
        )
        .at(epath.clone())
    };
    let StmtKind::Store {
        buffer: out,
        value,
        indices: out_indices,
    } = eb.body.kind()
    else {
        return Err(body_error());
    };
    let temp_loads = loads_of(value, temp.id);
    if !util::is_true(&ereal.predicate)
        || temp_loads.len() != 1
        || out_indices.iter().any(|i| !loads_of(i, temp.id).is_empty())
        || scales(value, temp.id)
        || !rb.iter_vars.iter().any(|iv| iv.kind == IterKind::Reduce)
    {
        return Err(body_error());
    }
    Ok(EpilogueStore {
        out,
        value,
        out_indices,
        temp_loads,
    })
}

/// The reduction must be `temp[...] = temp[...] + e` after an init storing
/// 0; returns its stored value and indices.
fn zero_based_sum<'a>(
    rb: &'a Block,
    temp: &Buffer,
    epath: &StmtPath,
) -> Result<(&'a Expr, &'a [Expr])> {
    let StmtKind::Store {
        buffer: rbuf,
        value: rvalue,
        indices: ridx,
    } = rb.body.kind()
    else {
        return Err(unsupported_epilogue(
            "The reduction's body is not a single store",
            epath,
        ));
    };
    let accumulates = rbuf.id == temp.id
        && match rvalue.kind() {
            ExprKind::Binary(BinOp::Add, a, b) => [a, b].iter().any(|x| {
                matches!(x.kind(), ExprKind::Load { buffer, indices } if buffer.id == temp.id && same(indices, ridx))
            }) && loads_of(rvalue, temp.id).len() == 1,
            _ => false,
        };
    let zero_init = matches!(
        rb.init.as_ref().map(|s| s.kind()),
        Some(StmtKind::Store { buffer, value, indices })
            if buffer.id == temp.id && same(indices, ridx)
                && (value.as_int() == Some(0) || matches!(value.kind(), ExprKind::Float(f) if *f == 0.0))
    );
    if !accumulates || !zero_init {
        return Err(unsupported_epilogue(
            "The reduction is not `temp[...] = temp[...] + e` after an init storing 0",
            epath,
        ));
    }
    Ok((rvalue, ridx))
}

/// The epilogue's spatial iterators in terms of the reduction's, which must
/// have the same domains; the epilogue must read `temp` and write its
/// output where the reduction writes `temp`.
fn spatial_var_map(
    rb: &Block,
    eb: &Block,
    epilogue: &EpilogueStore,
    ridx: &[Expr],
    epath: &StmtPath,
) -> Result<HashMap<VarId, Expr>> {
    let spatial = |b: &Block| -> Vec<IterVar> {
        b.iter_vars
            .iter()
            .filter(|iv| iv.kind == IterKind::Spatial)
            .cloned()
            .collect()
    };
    let (rs, es) = (spatial(rb), spatial(eb));
    if rs.len() != es.len() {
        return Err(ScheduleError::block_structure(
            P,
            "The number of data parallel iter vars must be the same in the reduction and epilogue blocks.",
        ));
    }
    let var_map: HashMap<VarId, Expr> = es
        .iter()
        .zip(&rs)
        .map(|(e, r)| (e.var.id(), r.var.to_expr()))
        .collect();
    let map_all =
        |v: &[Expr]| -> Vec<Expr> { v.iter().map(|x| substitute_expr(x, &var_map)).collect() };
    let doms_equal = es.iter().zip(&rs).all(|(e, r)| {
        expr_deep_equal(&e.dom.min, &r.dom.min) && expr_deep_equal(&e.dom.extent, &r.dom.extent)
    });
    if !doms_equal
        || !same(&map_all(epilogue.out_indices), ridx)
        || !same(&map_all(&epilogue.temp_loads[0]), ridx)
    {
        return Err(unsupported_epilogue(
            "The epilogue does not read `temp` and write its output where the reduction writes `temp`",
            epath,
        ));
    }
    Ok(var_map)
}

/// Refuses a bias that reads the output, and any other block of the scope
/// that accesses `temp` or the output or writes what the bias reads.
fn check_no_other_access(
    scope: &Scope,
    [ri, ei]: [usize; 2],
    temp: &Buffer,
    out: &Buffer,
    bias: &Expr,
    epath: &StmtPath,
) -> Result<()> {
    let bias_reads: Vec<BufferId> = {
        let mut ids = Vec::new();
        bias.walk(&mut |x| {
            if let ExprKind::Load { buffer, .. } = x.kind() {
                ids.push(buffer.id);
            }
        });
        ids
    };
    if bias_reads.contains(&out.id) {
        return Err(unsupported_epilogue(
            "The bias reads the epilogue's output",
            epath,
        ));
    }
    for (k, (_, other)) in scope.blocks.iter().enumerate() {
        if k == ri || k == ei {
            continue;
        }
        let ob = &other.block;
        let touches = |id: BufferId| ob.reads.iter().chain(&ob.writes).any(|r| r.buffer.id == id);
        if touches(temp.id)
            || touches(out.id)
            || ob.writes.iter().any(|w| bias_reads.contains(&w.buffer.id))
        {
            return Err(unsupported_epilogue(
                &format!(
                    "Block `{}` also accesses `{}`, `{}` or what the bias reads, so moving the \
                     epilogue into the reduction would change what it sees",
                    ob.name, temp.name, out.name
                ),
                epath,
            ));
        }
    }
    Ok(())
}

/// The reduction block writing the epilogue's output: its init stores the
/// bias, its update (the reduction's stored value and indices) accumulates
/// into the output.
fn build_fused_block(
    rb: &Block,
    eb: &Block,
    temp: &Buffer,
    epilogue: &EpilogueStore,
    bias: &Expr,
    var_map: &HashMap<VarId, Expr>,
    (rvalue, ridx): (&Expr, &[Expr]),
) -> Block {
    let out = epilogue.out;
    let mut fused = rb.clone();
    let out_idx_mapped: Vec<Expr> = epilogue
        .out_indices
        .iter()
        .map(|x| substitute_expr(x, var_map))
        .collect();
    fused.init = Some(Stmt::from_kind(StmtKind::Store {
        buffer: out.clone(),
        value: substitute_expr(bias, var_map),
        indices: out_idx_mapped,
    }));
    let update = Retarget {
        from: temp.id,
        to: out,
    }
    .expr(rvalue);
    fused.body = Stmt::new(
        StmtKind::Store {
            buffer: out.clone(),
            value: update,
            indices: ridx.to_vec(),
        },
        rb.body.span(),
    );
    fused.writes = rb
        .writes
        .iter()
        .map(|w| BufferRegion {
            buffer: out.clone(),
            region: w.region.clone(),
        })
        .collect();
    let mut reads: Vec<BufferRegion> = Vec::new();
    for r in eb.reads.iter().filter(|r| r.buffer.id != temp.id) {
        reads.push(util::substitute_region(r, var_map));
    }
    for r in rb.reads.iter().filter(|r| r.buffer.id != temp.id) {
        if !reads.iter().any(|x| x.buffer.id == r.buffer.id) {
            reads.push(r.clone());
        }
    }
    fused.reads = reads;
    fused
}
