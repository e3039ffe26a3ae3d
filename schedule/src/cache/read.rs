//! `cache_read`: a copy of a block's read buffer into another storage scope,
//! which the consumers read instead.

use super::*;

impl Schedule {
    /// `sch.cache_read(block, read_buffer_index, storage_scope,
    /// consumer_blocks=None)`: a block `<buffer>_<scope>` copying the
    /// block's `read_buffer_index`-th read buffer into a new buffer of that
    /// scope; the consumers (all readers in the scope, or `consumer_blocks`)
    /// read the copy. Returns the copy block.
    pub fn cache_read(
        &mut self,
        block_rv: BlockRV,
        read_buffer_index: i64,
        storage_scope: &str,
        consumer_blocks: &[BlockRV],
    ) -> Result<BlockRV> {
        let args = cache_args(
            &CACHE_READ,
            block_rv,
            read_buffer_index,
            storage_scope,
            consumer_blocks,
        );
        self.apply_traced(&CACHE_READ, args)?.into_block()
    }

    pub(super) fn cache_read_concrete(
        &mut self,
        block_rv: BlockRV,
        read_buffer_index: i64,
        storage_scope: &str,
        consumer_blocks: &[BlockRV],
    ) -> Result<BlockRV> {
        const P: &str = "cache_read";
        check_storage_scope(P, storage_scope)?;
        let (t, buffer) =
            self.cache_target(P, block_rv, read_buffer_index, BufferIndexType::Read)?;
        let body = self.body(P)?;
        check_stage_pipeline(P, &body, &t.scope_path, &t.scope_name)?;
        let consumers = self.block_names(P, consumer_blocks)?;
        let children = child_blocks(&body, &t.scope_path);
        let writers: Vec<usize> = children
            .iter()
            .enumerate()
            .filter(|(_, c)| c.realize.block.writes.iter().any(|w| w.buffer == buffer))
            .map(|(i, _)| i)
            .collect();
        if writers.len() > 1 {
            return Err(single_writer_error(P, &buffer, &children, &writers));
        }
        let (loc, region) = match writers.first() {
            Some(&pi) => {
                // The buffer is produced in the scope: cache what the producer writes.
                let producer = &children[pi];
                let related: HashSet<String> = if !consumers.is_empty() {
                    consumers.clone()
                } else {
                    raw_consumers(&children, pi)
                };
                let loc =
                    detect_cache_loc(&body, &t.scope_path, &producer.realize.block.name, &related);
                let region = producer
                    .realize
                    .block
                    .writes
                    .iter()
                    .find(|w| w.buffer == buffer)
                    .cloned()
                    .unwrap_or_else(|| BufferRegion {
                        buffer: buffer.clone(),
                        region: buffer.full_region(),
                    });
                let relax = loops_below(&body, &producer.path, &loc.path);
                let outer = analyzer_for(&loops_outside(&body, &producer.path, &loc.path));
                let region = relax_region(&producer.realize, &region, &relax, &outer, None);
                (loc, region)
            }
            None => {
                // An input of the scope: the block's read region relaxed over
                // the scope when a nested block reads it under a predicate,
                // else the scope's read region of it, or all of it.
                let scope_reads = match tree::get(&body, &t.scope_path).map(|s| s.kind().clone()) {
                    Some(StmtKind::BlockRealize(r)) => r.block.reads,
                    _ => vec![],
                };
                let own_read = t.realize.block.reads.iter().find(|r| r.buffer == buffer);
                let nested = own_read
                    .and_then(|_| nested_access_predicate(&t.realize.block, &buffer, true))
                    .filter(|p| !p.is_const_int(1));
                let region = match (own_read, nested) {
                    (Some(read), Some(pred)) => {
                        let relax = loops_below(&body, &t.path, &t.scope_path);
                        let outer = analyzer_for(&loops_outside(&body, &t.path, &t.scope_path));
                        relax_region(&t.realize, read, &relax, &outer, Some(&pred))
                    }
                    _ => scope_reads
                        .iter()
                        .find(|r| r.buffer == buffer)
                        .map(|r| r.region.clone())
                        .unwrap_or_else(|| buffer.full_region()),
                };
                (
                    CacheLoc {
                        path: t.scope_path.clone(),
                        pos: 0,
                    },
                    region,
                )
            }
        };
        let name = format!("{}_{}", buffer.name, storage_scope);
        let full = loc_is_loop(&body, &loc);
        let cache = cache_buffer(&buffer, &name, storage_scope, &region, full);
        let stage = make_cache_stage(&name, &region, &buffer, &cache, true, full);
        let scope_stmt = tree::get(&body, &t.scope_path)
            .ok_or_else(|| ScheduleError::internal(P, "internal: stale scope path"))?;
        let mut rw = ReadRewriter {
            t: Retarget {
                from: buffer.clone(),
                to: cache.clone(),
                mins: if full {
                    Vec::new()
                } else {
                    region.iter().map(|r| r.min.clone()).collect()
                },
            },
            scope_name: &t.scope_name,
            consumers: if consumers.is_empty() {
                None
            } else {
                Some(&consumers)
            },
            current_consumes: false,
            seen_scope: false,
        };
        let new_scope = rw.stmt(&scope_stmt);
        self.install_cache_stage(P, body, (&t.scope_path, new_scope), (&loc, stage), cache)
    }
}
