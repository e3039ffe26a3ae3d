//! `cache_inplace`: a copy into a new buffer before a block that reads and
//! writes it, and a copy back after it.

use super::*;

/// Every mention of one buffer (accesses, regions) becomes another.
pub(super) struct SwapBuffer<'a> {
    pub(super) from: &'a Buffer,
    pub(super) to: &'a Buffer,
}

impl Mutator for SwapBuffer<'_> {
    fn buffer(&mut self, b: &Buffer) -> Buffer {
        if b == self.from {
            self.to.clone()
        } else {
            b.clone()
        }
    }
}

impl Schedule {
    /// `sch.cache_inplace(block, read_buffer_index, storage_scope)`: for a
    /// buffer the block both reads and writes, a copy into a new buffer
    /// `<buffer>_<scope>` right before the block and a copy back right after
    /// it; the block works on the new buffer. Returns both copy blocks (they
    /// share one name, as in TVM, so their handles cannot be resolved later).
    /// Checks in TVM's order: the scope string, the index, the scope's region
    /// cover (Tessel checks the whole scope is a stage pipeline), that the
    /// block writes the buffer too. Tessel also refuses a region of the buffer
    /// that uses the block's iterators: the copies sit outside the block,
    /// where those are not defined (TVM 0.27 builds ill-formed IR there).
    pub fn cache_inplace(
        &mut self,
        block_rv: BlockRV,
        read_buffer_index: i64,
        storage_scope: &str,
    ) -> Result<Vec<BlockRV>> {
        let args = Args::typed(
            &CACHE_INPLACE,
            vec![
                block_rv.into(),
                read_buffer_index.into(),
                storage_scope.into(),
            ],
        );
        self.apply_traced(&CACHE_INPLACE, args)?.into_blocks()
    }

    pub(super) fn cache_inplace_concrete(
        &mut self,
        block_rv: BlockRV,
        read_buffer_index: i64,
        storage_scope: &str,
    ) -> Result<Vec<BlockRV>> {
        const P: &str = "cache_inplace";
        check_storage_scope(P, storage_scope)?;
        let (t, buffer) =
            self.cache_target(P, block_rv, read_buffer_index, BufferIndexType::Read)?;
        let body = self.body(P)?;
        check_stage_pipeline(P, &body, &t.scope_path, &t.scope_name)?;
        let block = &t.realize.block;
        let read = block.reads.iter().find(|r| r.buffer == buffer).cloned();
        let write = block.writes.iter().find(|r| r.buffer == buffer).cloned();
        let (Some(read), Some(write)) = (read, write) else {
            return Err(ScheduleError::invalid_argument(
                P,
                format!(
                    "The target block `{}` does not both read & write target buffer {}.",
                    block.name, buffer.name
                ),
            )
            .at(t.path));
        };
        let iters: HashSet<VarId> = block.iter_vars.iter().map(|iv| iv.var.id()).collect();
        for r in read.region.iter().chain(&write.region) {
            let mut uses = false;
            for e in [&r.min, &r.extent] {
                e.walk(&mut |x| {
                    if let ExprKind::Var(v) = x.kind() {
                        uses |= iters.contains(&v.id());
                    }
                });
            }
            if uses {
                return Err(ScheduleError::region_coverage(
                    P,
                    format!(
                        "block `{}` accesses {} at a region that depends on its iterators; the \
                         copies before and after the block cannot name them",
                        block.name, buffer.name
                    ),
                )
                .at(t.path));
            }
        }
        // The copies go right before and right after the block, in its parent.
        let parent = t
            .path
            .parent()
            .ok_or_else(|| ScheduleError::internal(P, "internal: a block without a parent"))?;
        let (loc_path, pos) = match tree::get(&body, &parent).map(|s| s.kind().clone()) {
            Some(StmtKind::Seq(_)) => (
                parent.parent().ok_or_else(|| {
                    ScheduleError::internal(P, "internal: a sequence without a parent")
                })?,
                *t.path.0.last().unwrap_or(&0),
            ),
            _ => (parent, 0),
        };
        if !matches!(
            tree::get(&body, &loc_path).map(|s| s.kind().clone()),
            Some(StmtKind::For(_) | StmtKind::BlockRealize(_))
        ) {
            return Err(ScheduleError::loop_structure(
                P,
                format!(
                    "block `{}` is not directly in a loop or block body, where the copies would go",
                    block.name
                ),
            )
            .at(t.path));
        }
        let name = format!("{}_{}", buffer.name, storage_scope);
        let cache = cache_buffer(&buffer, &name, storage_scope, &read.region, true);
        let copy_in = make_cache_stage(&name, &read.region, &buffer, &cache, true, true);
        let copy_out = make_cache_stage(&name, &write.region, &cache, &buffer, false, true);
        let block_stmt = tree::get(&body, &t.path)
            .ok_or_else(|| ScheduleError::internal(P, "internal: stale block path"))?;
        let new_block = SwapBuffer {
            from: &buffer,
            to: &cache,
        }
        .stmt(&block_stmt);
        let body = tree::replace(&body, &t.path, new_block);
        let body = insert_stage(
            &body,
            &CacheLoc {
                path: loc_path.clone(),
                pos,
            },
            copy_in,
        );
        let body = insert_stage(
            &body,
            &CacheLoc {
                path: loc_path,
                pos: pos + 2,
            },
            copy_out,
        );
        let body = add_alloc(&body, &t.scope_path, cache);
        self.set_body(P, body)?;
        Ok(vec![self.new_block_rv(&name), self.new_block_rv(&name)])
    }
}
