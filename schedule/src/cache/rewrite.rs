//! Moving accesses to the cache buffer: TVM's `CacheReadRewriter` and
//! `CacheWriteRewriter`, over a shared index retargeting.

use super::*;

/// Accesses of `from` moved to `to`: the region's minimum subtracted from
/// every index, simplified.
pub(super) struct Retarget {
    pub(super) from: Buffer,
    pub(super) to: Buffer,
    pub(super) mins: Vec<Expr>,
}

impl Retarget {
    pub(super) fn indices(&self, indices: &[Expr]) -> Vec<Expr> {
        let ana = Analyzer::new();
        indices
            .iter()
            .enumerate()
            .map(|(i, e)| match self.mins.get(i) {
                Some(m) if !m.is_const_int(0) && m.dtype() == e.dtype() => {
                    ana.simplify(&Expr::binary(BinOp::Sub, e.clone(), m.clone()))
                }
                _ => ana.simplify(e),
            })
            .collect()
    }
    pub(super) fn regions(&self, regions: &[BufferRegion]) -> Vec<BufferRegion> {
        regions
            .iter()
            .map(|r| {
                if r.buffer != self.from {
                    return r.clone();
                }
                let mins: Vec<Expr> = r.region.iter().map(|x| x.min.clone()).collect();
                let mins = self.indices(&mins);
                BufferRegion {
                    buffer: self.to.clone(),
                    region: r
                        .region
                        .iter()
                        .zip(mins)
                        .map(|(x, m)| Range::new(m, x.extent.clone()))
                        .collect(),
                }
            })
            .collect()
    }
    pub(super) fn match_buffers(&self, mbs: &[MatchBufferRegion]) -> Vec<MatchBufferRegion> {
        mbs.iter()
            .map(|mb| MatchBufferRegion {
                buffer: mb.buffer.clone(),
                source: self
                    .regions(std::slice::from_ref(&mb.source))
                    .pop()
                    .unwrap_or_else(|| mb.source.clone()),
            })
            .collect()
    }
    /// A load of `from`, or `from`'s data pointer in an opaque call
    /// (`T.tvm_access_ptr(..., A.data, ...)`), moved to `to` (TVM's
    /// rewriters replace the data variable too).
    pub(super) fn load(&self, e: &Expr) -> Option<Expr> {
        if let ExprKind::Var(v) = e.kind() {
            if *v == self.from.data {
                return Some(Expr::new(
                    ExprKind::Var(self.to.data.clone()),
                    e.dtype(),
                    e.span(),
                ));
            }
        }
        if let ExprKind::Load { buffer, indices } = e.kind() {
            if *buffer == self.from {
                return Some(Expr::new(
                    ExprKind::Load {
                        buffer: self.to.clone(),
                        indices: self.indices(indices),
                    },
                    e.dtype(),
                    e.span(),
                ));
            }
        }
        None
    }
}

/// TVM's `CacheReadRewriter`.
pub(super) struct ReadRewriter<'a> {
    pub(super) t: Retarget,
    pub(super) scope_name: &'a str,
    /// `None`: every block is a consumer.
    pub(super) consumers: Option<&'a HashSet<String>>,
    pub(super) current_consumes: bool,
    pub(super) seen_scope: bool,
}

impl Mutator for ReadRewriter<'_> {
    fn expr(&mut self, e: &Expr) -> Expr {
        if self.current_consumes {
            if let Some(n) = self.t.load(e) {
                return n;
            }
        }
        walk_expr(self, e)
    }
    fn stmt(&mut self, s: &Stmt) -> Stmt {
        let StmtKind::BlockRealize(r) = s.kind() else {
            return walk_stmt(self, s);
        };
        let b = &r.block;
        let is_scope = !self.seen_scope && b.name == self.scope_name;
        self.seen_scope = true;
        let iter_values: Vec<Expr> = r.iter_values.iter().map(|e| self.expr(e)).collect();
        let predicate = self.expr(&r.predicate);
        let is_consumer = match self.consumers {
            None => true,
            Some(set) => set.contains(&b.name),
        };
        self.current_consumes = is_consumer;
        // The block producing the buffer is left alone.
        if !is_scope && b.writes.iter().any(|w| w.buffer == self.t.from) {
            return s.clone();
        }
        let mut nb = walk_block(self, b);
        if !is_scope && is_consumer {
            nb.reads = self.t.regions(&nb.reads);
            nb.match_buffers = self.t.match_buffers(&nb.match_buffers);
        }
        Stmt::new(
            StmtKind::BlockRealize(BlockRealize {
                iter_values,
                predicate,
                block: nb,
            }),
            s.span(),
        )
    }
}

/// TVM's `CacheWriteRewriter`.
pub(super) struct WriteRewriter<'a> {
    pub(super) t: Retarget,
    pub(super) scope_name: &'a str,
    pub(super) writer: &'a str,
    pub(super) consumers: &'a HashSet<String>,
    pub(super) under_writer: bool,
    pub(super) seen_scope: bool,
}

impl WriteRewriter<'_> {
    pub(super) fn realize(&mut self, s: &Stmt, r: &BlockRealize, block: Block) -> Stmt {
        let iter_values: Vec<Expr> = r.iter_values.iter().map(|e| self.expr(e)).collect();
        let predicate = self.expr(&r.predicate);
        Stmt::new(
            StmtKind::BlockRealize(BlockRealize {
                iter_values,
                predicate,
                block,
            }),
            s.span(),
        )
    }
}

impl Mutator for WriteRewriter<'_> {
    fn expr(&mut self, e: &Expr) -> Expr {
        if let Some(n) = self.t.load(e) {
            return n;
        }
        walk_expr(self, e)
    }
    fn stmt(&mut self, s: &Stmt) -> Stmt {
        match s.kind() {
            StmtKind::Store {
                buffer,
                value,
                indices,
            } if *buffer == self.t.from => {
                let value = self.expr(value);
                let indices: Vec<Expr> = indices.iter().map(|e| self.expr(e)).collect();
                Stmt::new(
                    StmtKind::Store {
                        buffer: self.t.to.clone(),
                        value,
                        indices: self.t.indices(&indices),
                    },
                    s.span(),
                )
            }
            StmtKind::BlockRealize(r) => {
                let b = &r.block;
                let is_scope = !self.seen_scope && b.name == self.scope_name;
                self.seen_scope = true;
                if !is_scope && self.consumers.contains(&b.name) {
                    let reads = self.t.regions(&b.reads);
                    let writes = self.t.regions(&b.writes);
                    let changed = reads.iter().chain(&writes).any(|x| x.buffer == self.t.to)
                        || b.match_buffers
                            .iter()
                            .any(|m| m.source.buffer == self.t.from);
                    if !changed {
                        return s.clone();
                    }
                    let mut nb = b.clone();
                    nb.reads = reads;
                    nb.writes = writes;
                    nb.match_buffers = self.t.match_buffers(&b.match_buffers);
                    nb.body = self.stmt(&b.body);
                    return Stmt::new(
                        StmtKind::BlockRealize(BlockRealize {
                            iter_values: r.iter_values.clone(),
                            predicate: r.predicate.clone(),
                            block: nb,
                        }),
                        s.span(),
                    );
                }
                if !is_scope && b.name != self.writer && !self.under_writer {
                    return s.clone();
                }
                let saved = self.under_writer;
                self.under_writer = self.under_writer || b.name == self.writer;
                let mut nb = walk_block(self, b);
                self.under_writer = saved;
                if !is_scope {
                    nb.reads = self.t.regions(&nb.reads);
                    nb.writes = self.t.regions(&nb.writes);
                    nb.match_buffers = self.t.match_buffers(&nb.match_buffers);
                }
                self.realize(s, r, nb)
            }
            _ => walk_stmt(self, s),
        }
    }
}
