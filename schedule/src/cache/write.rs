//! `cache_write`: the block writes a buffer in another storage scope, and a
//! copy block writes it back.

use super::*;

impl Schedule {
    /// `sch.cache_write(block, write_buffer_index, storage_scope,
    /// consumer_blocks=None)`: the block writes a new buffer `<buffer>_<scope>`
    /// instead, and a block of that name copies it back afterwards;
    /// `consumer_blocks` read the new buffer directly. Returns the copy block.
    pub fn cache_write(
        &mut self,
        block_rv: BlockRV,
        write_buffer_index: i64,
        storage_scope: &str,
        consumer_blocks: &[BlockRV],
    ) -> Result<BlockRV> {
        let args = cache_args(
            &CACHE_WRITE,
            block_rv,
            write_buffer_index,
            storage_scope,
            consumer_blocks,
        );
        self.apply_traced(&CACHE_WRITE, args)?.into_block()
    }

    pub(super) fn cache_write_concrete(
        &mut self,
        block_rv: BlockRV,
        write_buffer_index: i64,
        storage_scope: &str,
        consumer_blocks: &[BlockRV],
    ) -> Result<BlockRV> {
        const P: &str = "cache_write";
        check_storage_scope(P, storage_scope)?;
        let (t, buffer) =
            self.cache_target(P, block_rv, write_buffer_index, BufferIndexType::Write)?;
        let body = self.body(P)?;
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
        let me = children
            .iter()
            .position(|c| c.realize.block.name == t.realize.block.name);
        let related: HashSet<String> = match me {
            Some(i) => raw_consumers(&children, i)
                .into_iter()
                .filter(|n| !consumers.contains(n))
                .collect(),
            None => HashSet::new(),
        };
        let loc = detect_cache_loc(&body, &t.scope_path, &t.realize.block.name, &related);
        let region = t
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
        let relax = loops_below(&body, &t.path, &loc.path);
        let outer = analyzer_for(&loops_outside(&body, &t.path, &loc.path));
        let nested = nested_access_predicate(&t.realize.block, &buffer, false);
        let region = relax_region(&t.realize, &region, &relax, &outer, nested.as_ref());
        let name = format!("{}_{}", buffer.name, storage_scope);
        let full = loc_is_loop(&body, &loc);
        let cache = cache_buffer(&buffer, &name, storage_scope, &region, full);
        let stage = make_cache_stage(&name, &region, &cache, &buffer, false, full);
        let scope_stmt = tree::get(&body, &t.scope_path)
            .ok_or_else(|| ScheduleError::internal(P, "internal: stale scope path"))?;
        let mut rw = WriteRewriter {
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
            writer: &t.realize.block.name,
            consumers: &consumers,
            under_writer: false,
            seen_scope: false,
        };
        let new_scope = rw.stmt(&scope_stmt);
        self.install_cache_stage(P, body, (&t.scope_path, new_scope), (&loc, stage), cache)
    }
}
