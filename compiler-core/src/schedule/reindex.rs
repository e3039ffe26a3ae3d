//! `reindex`: a block reads (or writes) a buffer through a new buffer indexed
//! by the block's own iterators.
//!
//! Behaviour checked against TVM 0.27 (`ReIndex`):
//!
//! - **Buffer.** `buffer` is `("read", i)`, `("write", i)` or a buffer name,
//!   as for `transform_layout`. The trace prints it as `buffer=("read", 0)`;
//!   TVM's JSON keeps it as two attributes, the index and the kind (`0` read,
//!   `1` write).
//! - **Legality.** The block must be a leaf (no block inside it); its body
//!   (not its init) must access the buffer only through loads and stores, all
//!   with the same indices (an opaque use of the buffer's data refuses); the
//!   scope must be a stage pipeline; and the block must sit under a chain of
//!   loops directly in its scope (no other statement between the loops).
//! - **Result.** The indices, simplified with the iterator domains, name the
//!   iterators they use ("covered"). A buffer `<name>_reindex` of shape
//!   `dom.min + dom.extent` for each covered iterator, in iterator order, is
//!   allocated in the scope; every access of the buffer in the block (init
//!   included) becomes `<name>_reindex[v…]` of the covered iterators, and the
//!   block's region of it the point at those iterators. A copy block — named
//!   after the buffer it writes plus `_reindex`, so `A_reindex_reindex` for a
//!   read — with iterators `v0, v1, …` over loops `ax0, ax1, …` spanning the
//!   covered domains goes right before the block's outermost loop (a read) or
//!   right after it (a write).

use std::collections::HashSet;

use super::cache::{
    check_stage_pipeline, insert_stage, nth_access_buffer, BufferIndexType, CacheLoc,
};
use super::layout::{select_buffer, BufferSel};
use super::primitives::{param, Enc, ParamType as T, Primitive, Returns};
use super::query::enclosing_block_path;
use super::replay::SchedValue;
use super::tree;
use super::util::var_ids;
use super::*;
use crate::arith::{expr_deep_equal, Analyzer};
use crate::ir::mutate::{walk_expr, walk_stmt, Mutator};

pub(super) const REINDEX: Primitive = Primitive {
    method: "reindex",
    aliases: &[],
    kind: "ReIndex",
    params: &[
        param("block", T::Block),
        param("buffer", T::Any).attr_as(Enc::IndexAndKind),
    ],
    returns: Returns::One,
    traced: true,
    apply: |sch, args| {
        let sel = BufferSel::from_value(args.value("buffer")?, None).map_err(|m| args.err(m))?;
        let (copy, kind, index) = sch.reindex_concrete(args.block("block")?, &sel)?;
        args.record_as("buffer", SchedValue::Source(index_and_kind(kind, index)))?;
        Ok(copy.into())
    },
    menu: None,
};

/// `("read", 0)`, as TVM's trace prints a buffer chosen by kind and index.
pub(crate) fn index_and_kind(kind: BufferIndexType, index: i64) -> String {
    format!("(\"{}\", {index})", kind.name())
}

/// The indices of every load and store of one buffer in a block body, with
/// TVM's refusals: a nested block, different indices, an opaque use.
struct AccessCollector<'a> {
    buffer: &'a Buffer,
    indices: Option<Vec<Expr>>,
    problem: Option<&'static str>,
}

impl AccessCollector<'_> {
    fn record(&mut self, indices: &[Expr]) {
        match &self.indices {
            None => self.indices = Some(indices.to_vec()),
            Some(seen) => {
                let same = seen.len() == indices.len()
                    && seen.iter().zip(indices).all(|(a, b)| expr_deep_equal(a, b));
                if !same && self.problem.is_none() {
                    self.problem = Some("Multiple buffer accesses have non-unique indices.");
                }
            }
        }
    }
}

impl Mutator for AccessCollector<'_> {
    fn expr(&mut self, e: &Expr) -> Expr {
        match e.kind() {
            ExprKind::Load { buffer, indices } if buffer == self.buffer => {
                self.record(indices);
                for i in indices {
                    self.expr(i);
                }
                e.clone()
            }
            ExprKind::Var(v) if v.id() == self.buffer.data.id() => {
                self.problem.get_or_insert("Opaque buffer accesses found.");
                e.clone()
            }
            _ => walk_expr(self, e),
        }
    }
    fn stmt(&mut self, s: &Stmt) -> Stmt {
        if let StmtKind::Store {
            buffer, indices, ..
        } = s.kind()
        {
            if buffer == self.buffer {
                let indices = indices.clone();
                walk_stmt(self, s);
                self.record(&indices);
                return s.clone();
            }
        }
        walk_stmt(self, s)
    }
}

/// Every access of `from` becomes `to[indices]`; the block's regions of it
/// the point at `indices`.
struct ReindexRewriter<'a> {
    from: &'a Buffer,
    to: &'a Buffer,
    indices: &'a [Expr],
}

impl Mutator for ReindexRewriter<'_> {
    fn expr(&mut self, e: &Expr) -> Expr {
        let e = walk_expr(self, e);
        match e.kind() {
            ExprKind::Load { buffer, .. } if buffer == self.from => {
                Expr::load(self.to, self.indices.to_vec())
            }
            _ => e,
        }
    }
    fn stmt(&mut self, s: &Stmt) -> Stmt {
        let s = walk_stmt(self, s);
        match s.kind() {
            StmtKind::Store { buffer, value, .. } if buffer == self.from => Stmt::new(
                StmtKind::Store {
                    buffer: self.to.clone(),
                    value: value.clone(),
                    indices: self.indices.to_vec(),
                },
                s.span(),
            ),
            _ => s,
        }
    }
}

impl Schedule {
    /// `sch.reindex(block, buffer)`: see the module documentation. Returns
    /// the copy block.
    pub fn reindex(&mut self, block_rv: BlockRV, buffer: BufferSel) -> Result<BlockRV> {
        let buffer = match buffer {
            BufferSel::Index(kind, i) => SchedValue::List(vec![kind.name().into(), i.into()]),
            BufferSel::Name(name) => SchedValue::Str(name),
        };
        let args = super::primitives::Args::typed(&REINDEX, vec![block_rv.into(), buffer]);
        self.apply_traced(&REINDEX, args)?.into_block()
    }

    fn reindex_concrete(
        &mut self,
        block_rv: BlockRV,
        sel: &BufferSel,
    ) -> Result<(BlockRV, BufferIndexType, i64)> {
        const P: &str = "reindex";
        let (path, realize) = self.resolve_block(P, block_rv)?;
        let block = &realize.block;
        let (kind, index) = select_buffer(P, block, sel, &path)?;
        let buffer = nth_access_buffer(P, block, index, kind, &path)?;
        let body = self.body(P)?;
        let Some(scope_path) = enclosing_block_path(&body, &path) else {
            return Err(ScheduleError::new(
                P,
                format!("block `{}` is the root block; it has no scope", block.name),
            )
            .at(path));
        };
        let scope_name = match tree::get(&body, &scope_path).map(|s| s.kind().clone()) {
            Some(StmtKind::BlockRealize(r)) => r.block.name,
            _ => String::new(),
        };

        // A leaf block whose body accesses the buffer one way only.
        let mut nested = false;
        for part in std::iter::once(&block.body).chain(block.init.as_ref()) {
            nested |= !tree::find_all(part, &mut |s| matches!(s.kind(), StmtKind::BlockRealize(_)))
                .is_empty();
        }
        if nested {
            return Err(ScheduleError::new(
                P,
                format!("The target block `{}` is not a leaf block.", block.name),
            )
            .at(path));
        }
        let mut collector = AccessCollector {
            buffer: &buffer,
            indices: None,
            problem: None,
        };
        collector.stmt(&block.body);
        let access_error = |detail: &str| {
            ScheduleError::new(
                P,
                format!(
                    "The target buffer {} should be accessed in the leaf block `{}` via BufferLoad \
                     or BufferStore. The indices should be the same if there are multiple accesses \
                     to the target buffer. {detail}",
                    buffer.name, block.name
                ),
            )
            .at(path.clone())
        };
        if let Some(problem) = collector.problem {
            return Err(access_error(problem));
        }
        let Some(indices) = collector.indices else {
            return Err(access_error("No buffer accesses found."));
        };
        check_stage_pipeline(P, &body, &scope_path, &scope_name)?;

        // The block must hang from a chain of loops directly in the scope.
        let chain = tree::chain(&body, &path);
        let depth = scope_path.0.len();
        let mut pos = 0;
        let mut first = depth + 1;
        if let Some(StmtKind::Seq(_)) = chain.get(first).map(|s| s.kind()) {
            pos = path.0[first];
            first += 1;
        }
        for d in first..chain.len() - 1 {
            if !matches!(chain[d].kind(), StmtKind::For(_)) {
                return Err(ScheduleError::new(
                    P,
                    format!(
                        "block `{}` is not under a chain of loops directly in its scope `{scope_name}`: \
                         only loops may stand between them",
                        block.name
                    ),
                )
                .at(path));
            }
        }
        if kind == BufferIndexType::Write {
            pos += 1;
        }

        // The indices, simplified, and the iterators they cover.
        let mut ana = Analyzer::new();
        for iv in &block.iter_vars {
            ana.bind(&iv.var, &iv.dom);
        }
        let indices: Vec<Expr> = indices.iter().map(|e| ana.simplify(e)).collect();
        let mut covered: HashSet<VarId> = HashSet::new();
        for e in &indices {
            covered.extend(var_ids(e));
        }
        let covered_iters: Vec<&IterVar> = block
            .iter_vars
            .iter()
            .filter(|iv| covered.contains(&iv.var.id()))
            .collect();

        let reindex_buffer = buffer.derive(|n| {
            n.name = format!("{}_reindex", buffer.name);
            n.shape = covered_iters
                .iter()
                .map(|iv| {
                    if iv.dom.min.is_const_int(0) {
                        iv.dom.extent.clone()
                    } else {
                        ana.simplify(&Expr::binary(
                            BinOp::Add,
                            iv.dom.min.clone(),
                            iv.dom.extent.clone(),
                        ))
                    }
                })
                .collect();
            n.strides = Vec::new();
        });

        // The copy stage: iterators v0, v1, … over loops ax0, ax1, ….
        let mut map = std::collections::HashMap::new();
        let mut new_iters = Vec::new();
        let mut loops = Vec::new();
        for iv in &covered_iters {
            let i = new_iters.len();
            let v = Var::new(format!("v{i}"), iv.var.dtype());
            let ax = Var::new(format!("ax{i}"), iv.var.dtype());
            map.insert(iv.var.id(), v.to_expr());
            new_iters.push(IterVar {
                var: v,
                dom: iv.dom.clone(),
                kind: IterKind::Spatial,
            });
            loops.push((ax, iv.dom.clone()));
        }
        // Iterators that are not covered do not occur in the indices.
        let target_indices: Vec<Expr> = indices
            .iter()
            .map(|e| crate::ir::mutate::substitute_expr(e, &map))
            .collect();
        let reindex_indices: Vec<Expr> = new_iters.iter().map(|iv| iv.var.to_expr()).collect();
        let (src, src_idx, dst, dst_idx) = match kind {
            BufferIndexType::Read => (&buffer, target_indices, &reindex_buffer, reindex_indices),
            BufferIndexType::Write => (&reindex_buffer, reindex_indices, &buffer, target_indices),
        };
        let point = |b: &Buffer, idx: &[Expr]| BufferRegion {
            buffer: b.clone(),
            region: idx.iter().map(|e| Range::point(e.clone())).collect(),
        };
        let stage_name = format!("{}_reindex", dst.name);
        let stage_block = Block {
            name: stage_name.clone(),
            iter_vars: new_iters,
            reads: vec![point(src, &src_idx)],
            writes: vec![point(dst, &dst_idx)],
            alloc_buffers: vec![],
            match_buffers: vec![],
            annotations: Annotations::new(),
            init: None,
            body: Stmt::from_kind(StmtKind::Store {
                buffer: dst.clone(),
                value: Expr::load(src, src_idx),
                indices: dst_idx,
            }),
            span: Default::default(),
        };
        let mut stage = super::util::realize(
            loops.iter().map(|(ax, _)| ax.to_expr()).collect(),
            Expr::bool(true),
            stage_block,
        );
        for (ax, dom) in loops.into_iter().rev() {
            stage = Stmt::from_kind(StmtKind::For(For {
                loop_var: ax,
                min: dom.min,
                extent: dom.extent,
                kind: ForKind::Serial,
                thread_tag: None,
                annotations: Annotations::new(),
                body: stage,
            }));
        }

        // The block reads or writes the reindex buffer at its covered iterators.
        let new_indices: Vec<Expr> = covered_iters.iter().map(|iv| iv.var.to_expr()).collect();
        let mut rw = ReindexRewriter {
            from: &buffer,
            to: &reindex_buffer,
            indices: &new_indices,
        };
        let mut new_block = block.clone();
        new_block.body = rw.stmt(&block.body);
        new_block.init = block.init.as_ref().map(|s| rw.stmt(s));
        let retarget = |regions: &[BufferRegion]| -> Vec<BufferRegion> {
            regions
                .iter()
                .map(|r| {
                    if r.buffer == buffer {
                        point(&reindex_buffer, &new_indices)
                    } else {
                        r.clone()
                    }
                })
                .collect()
        };
        new_block.reads = retarget(&block.reads);
        new_block.writes = retarget(&block.writes);
        let mut new_realize = realize.clone();
        new_realize.block = new_block;
        let span = tree::get(&body, &path)
            .map(|s| s.span())
            .unwrap_or_default();
        let body = tree::replace(
            &body,
            &path,
            Stmt::new(StmtKind::BlockRealize(new_realize), span),
        );
        let body = insert_stage(
            &body,
            &CacheLoc {
                path: scope_path.clone(),
                pos,
            },
            stage,
        );
        let body = super::cache::add_alloc(&body, &scope_path, reindex_buffer);
        self.set_body(P, body)?;
        Ok((self.new_block_rv(&stage_name), kind, index))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tvmscript::builder::parse_script;

    const MATMUL: &str = r#"
from tvm.script import tir as T
@T.prim_func
def main(A: T.Buffer((16, 32), "float32"), B: T.Buffer((32, 8), "float32"), C: T.Buffer((16, 8), "float32")):
    for i, j, k in T.grid(16, 8, 32):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
"#;

    /// TVM 0.27 writes `reindex` as `['ReIndex', ['b0'], [index, kind], ['b1']]`
    /// (kind 0 read, 1 write); the JSON reads back to the same trace.
    #[test]
    fn reindex_json_keeps_index_and_kind_as_attributes() {
        let module = parse_script(MATMUL).expect("parses").to_module();
        let mut sch = Schedule::new(module).expect("schedule");
        let b = sch.get_block("C", None).unwrap();
        sch.reindex(b, BufferSel::Index(BufferIndexType::Read, 0))
            .expect("reindex A");
        sch.reindex(b, BufferSel::Name("C".into()))
            .expect("reindex C");
        let json = sch.trace().to_json_string();
        assert_eq!(
            json,
            r#"[[["GetSBlock", [], ["C", "main"], ["b0"]], ["ReIndex", ["b0"], [0, 0], ["b1"]], ["ReIndex", ["b0"], [0, 1], ["b2"]]], []]"#
        );
        let back = Trace::from_json_str(&json).expect("reads back");
        assert_eq!(
            back.python(TraceDialect::STir),
            sch.trace().python(TraceDialect::STir)
        );
        assert!(back
            .python(TraceDialect::STir)
            .contains(r#"b2 = sch.reindex(block=b0, buffer=("write", 0))"#));
    }
}
