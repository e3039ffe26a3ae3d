//! Cache stages: `cache_read`, `cache_write` and `cache_inplace`.
//!
//! Both primitives add a copy block between a buffer and the blocks that use
//! it, through a new buffer in another storage scope, exactly as TVM 0.27
//! does (every rule below was checked against it):
//!
//! - **Names.** The cache buffer and the copy block are both named
//!   `<buffer>_<scope>` with the scope string verbatim (`A_shared`,
//!   `A_global.A_reg`; the printer turns the dots of the buffer's name into
//!   underscores). TVM does not make these names unique; neither does Tessel.
//! - **Scope strings.** Valid when empty or starting with `global`,
//!   `shared`, `warp`, `local`, `wmma.matrix_a`, `wmma.matrix_b`,
//!   `wmma.accumulator`, `metal.simdgroup` or `texture` (TVM's
//!   `StorageScope::Create`, a prefix test: `globalx` is accepted).
//! - **Region.** The cache covers one rectangular region and has its extents
//!   as shape. `cache_read` of a buffer that no block in the scope writes:
//!   the scope block's read region of it (the whole buffer at the root);
//!   otherwise the producer's write region, relaxed over the loops between
//!   the producer and the insertion point. `cache_write`: the block's write
//!   region relaxed the same way. Accesses that are rewritten get the
//!   region's minimum subtracted and are simplified (`B[vi + 10]` with a
//!   cache starting at 8 becomes `B_shared[vi + 2]`); the copy block reads
//!   `B[8 + v0]` (minimum first, not simplified).
//! - **Placement.** `cache_read` of an input of the scope goes first in the
//!   scope; otherwise (and for `cache_write`) right after the producer,
//!   before the first related consumer, in the innermost loop or block body
//!   holding both (TVM's `CacheLocDetector`); with no consumer, at the end
//!   of the scope. The cache buffer is appended to the scope block's
//!   allocations.
//! - **Rewriting.** `cache_read` rewrites every block of the scope that reads
//!   the buffer (or only `consumer_blocks`), except blocks that write it;
//!   `cache_write` rewrites the block (and blocks nested in it) plus the
//!   listed `consumer_blocks`, which then read the cache.
//! - **Legality.** The scope string must be valid (checked first), the index
//!   in range, the buffer written by at most one block of the scope, and for
//!   `cache_read` the scope must be a *stage pipeline*: every consumer's read
//!   region covered by what its producers write (checked with TVM's
//!   estimates: a strided write such as `B[2 * vi]` covers nothing).
//!
//! This module holds what the primitives share (storage scopes, buffer
//! indices, the scope's child blocks, the primitive table); each primitive
//! has its file (`read`, `write`, `inplace`), and the analyses they build on
//! have theirs: `region` (relaxed access regions), `pipeline` (the
//! stage-pipeline check), `stage` (placing and building the copy stage),
//! `rewrite` (moving accesses to the cache buffer).

use std::collections::{HashMap, HashSet};

use super::buffer_access::buffer_index_arg;
pub(crate) use super::buffer_access::{check_storage_scope, nth_access_buffer};
pub use super::buffer_access::{is_valid_storage_scope, BufferIndexType};
use super::menu::{MenuArg, MenuEntry, MenuSite, MenuTarget, MenuWhen};
use super::primitives::{param, Args, Param, ParamType as T, Primitive, Returns};
use super::query::enclosing_loops;
use super::replay::SchedValue;
use super::tree::{self, StmtPath};
use super::*;
use tessel_tir::arith::int_set::eval_interval;
use tessel_tir::arith::{expr_deep_equal, Analyzer};
use tessel_tir::ir::mutate::{substitute_expr, walk_block, walk_expr, walk_stmt, Mutator};

mod inplace;
mod pipeline;
mod read;
mod region;
mod rewrite;
mod stage;
mod write;

pub(crate) use self::pipeline::*;
pub(crate) use self::region::*;
use self::rewrite::*;
pub(crate) use self::stage::*;

/// A block directly under a scope, with its path.
#[derive(Clone)]
pub(crate) struct ChildBlock {
    pub path: StmtPath,
    pub realize: BlockRealize,
}

/// The blocks directly under the block at `scope` (not inside those), in
/// program order, with their paths.
pub(crate) fn child_blocks(body: &Stmt, scope: &StmtPath) -> Vec<ChildBlock> {
    fn go(s: &Stmt, path: &mut Vec<usize>, out: &mut Vec<ChildBlock>) {
        if let StmtKind::BlockRealize(r) = s.kind() {
            out.push(ChildBlock {
                path: StmtPath(path.clone()),
                realize: r.clone(),
            });
            return;
        }
        for (i, c) in tree::children(s).iter().enumerate() {
            path.push(i);
            go(c, path, out);
            path.pop();
        }
    }
    let mut out = Vec::new();
    let Some(StmtKind::BlockRealize(r)) = tree::get(body, scope).map(|s| s.kind().clone()) else {
        return out;
    };
    let mut path = scope.0.clone();
    // The scope's body is child 0; its init (child 1) holds no scheduled blocks.
    path.push(0);
    go(&r.block.body, &mut path, &mut out);
    out
}

/// Everything both primitives need about the block and its scope.
struct Target {
    path: StmtPath,
    realize: BlockRealize,
    scope_path: StmtPath,
    scope_name: String,
}

/// `cache_read` and `cache_write` differ in the index's name.
macro_rules! cache_params {
    ($index:literal) => {
        &[
            param("block", T::Block),
            // An index, or a buffer's name (recorded as its index).
            param($index, T::Any).attr(),
            param("storage_scope", T::Str).attr(),
            param("consumer_blocks", T::OptBlocks)
                .optional()
                .list_input(),
        ]
    };
}

/// The arguments of a typed `cache_read`/`cache_write` call.
fn cache_args(
    prim: &'static Primitive,
    block_rv: BlockRV,
    buffer_index: i64,
    storage_scope: &str,
    consumer_blocks: &[BlockRV],
) -> Args {
    let mut values = vec![block_rv.into(), buffer_index.into(), storage_scope.into()];
    // Like the by-name call: no consumers means the parameter was not given.
    if !consumer_blocks.is_empty() {
        values.push(SchedValue::rv_list(consumer_blocks));
    }
    Args::typed(prim, values)
}

/// `B_shared = sch.cache_read(b, 0, "shared")` from the menu's "index, scope".
fn menu_call(method: &str, site: &MenuSite, arg: &str) -> String {
    let (index, scope) = arg.split_once(',').unwrap_or(("0", "local"));
    format!(
        "{}_{} = sch.{method}({}, {}, \"{}\")",
        site.block,
        scope.trim().replace('.', "_"),
        site.block_ref(&site.block),
        index.trim(),
        scope.trim()
    )
}

const CACHE_READ_PARAMS: &[Param] = cache_params!("read_buffer_index");
const CACHE_WRITE_PARAMS: &[Param] = cache_params!("write_buffer_index");

pub(super) const CACHE_READ: Primitive = Primitive {
    method: "cache_read",
    aliases: &[],
    kind: "CacheRead",
    params: CACHE_READ_PARAMS,
    returns: Returns::One,
    traced: true,
    apply: |sch, args| {
        let block = args.block("block")?;
        let index = buffer_index_arg(sch, args, "read_buffer_index", block, BufferIndexType::Read)?;
        let copy = sch.cache_read_concrete(
            block,
            index,
            &args.string("storage_scope")?,
            &args.blocks("consumer_blocks")?,
        )?;
        Ok(copy.into())
    },
    menu: Some(MenuEntry {
        target: MenuTarget::Block,
        help: "read buffer index, scope",
        arg: MenuArg::Text {
            label: "read buffer index and scope",
            default: |_| "0, shared".to_string(),
        },
        when: MenuWhen::Always,
        call: |site, arg| Some(menu_call("cache_read", site, arg)),
    }),
};

pub(super) const CACHE_WRITE: Primitive = Primitive {
    method: "cache_write",
    aliases: &[],
    kind: "CacheWrite",
    params: CACHE_WRITE_PARAMS,
    returns: Returns::One,
    traced: true,
    apply: |sch, args| {
        let block = args.block("block")?;
        let index = buffer_index_arg(
            sch,
            args,
            "write_buffer_index",
            block,
            BufferIndexType::Write,
        )?;
        let copy = sch.cache_write_concrete(
            block,
            index,
            &args.string("storage_scope")?,
            &args.blocks("consumer_blocks")?,
        )?;
        Ok(copy.into())
    },
    menu: Some(MenuEntry {
        target: MenuTarget::Block,
        help: "write buffer index, scope",
        arg: MenuArg::Text {
            label: "write buffer index and scope",
            default: |_| "0, local".to_string(),
        },
        when: MenuWhen::Always,
        call: |site, arg| Some(menu_call("cache_write", site, arg)),
    }),
};

pub(super) const CACHE_INPLACE: Primitive = Primitive {
    method: "cache_inplace",
    aliases: &[],
    kind: "CacheInplace",
    params: &[
        param("block", T::Block),
        param("read_buffer_index", T::Any).attr(),
        param("storage_scope", T::Str).attr(),
    ],
    returns: Returns::List,
    traced: true,
    apply: super::primitives::unless_lean(|sch, args| {
        let block = args.block("block")?;
        let index = buffer_index_arg(sch, args, "read_buffer_index", block, BufferIndexType::Read)?;
        let copies = sch.cache_inplace_concrete(block, index, &args.string("storage_scope")?)?;
        Ok(SchedValue::rv_list(&copies))
    }),
    menu: None,
};

impl Schedule {
    fn cache_target(
        &self,
        primitive: &str,
        block_rv: BlockRV,
        index: i64,
        kind: BufferIndexType,
    ) -> Result<(Target, Buffer)> {
        let (path, realize) = self.resolve_block(primitive, block_rv)?;
        let buffer = nth_access_buffer(primitive, &realize.block, index, kind, &path)?;
        let body = self.body(primitive)?;
        let Some(scope_path) = super::query::enclosing_block_path(&body, &path) else {
            return Err(ScheduleError::block_structure(
                primitive,
                format!(
                    "block `{}` is the root block; it has no enclosing scope to put a cache stage in",
                    realize.block.name
                ),
            )
            .at(path));
        };
        let scope_name = match tree::get(&body, &scope_path).map(|s| s.kind().clone()) {
            Some(StmtKind::BlockRealize(r)) => r.block.name,
            _ => String::new(),
        };
        Ok((
            Target {
                path,
                realize,
                scope_path,
                scope_name,
            },
            buffer,
        ))
    }

    fn block_names(&self, primitive: &str, rvs: &[BlockRV]) -> Result<HashSet<String>> {
        let mut out = HashSet::new();
        for rv in rvs {
            let (_, r) = self.resolve_block(primitive, *rv)?;
            out.insert(r.block.name);
        }
        Ok(out)
    }

    /// The tail shared by `cache_read` and `cache_write`: put the rewritten
    /// scope back, insert the copy stage at `loc`, allocate the cache buffer
    /// in the scope, returning the copy block's handle.
    fn install_cache_stage(
        &mut self,
        primitive: &'static str,
        body: Stmt,
        (scope_path, new_scope): (&StmtPath, Stmt),
        (loc, stage): (&CacheLoc, Stmt),
        cache: Buffer,
    ) -> Result<BlockRV> {
        let name = cache.name.clone();
        let body = tree::replace(&body, scope_path, new_scope);
        let body = insert_stage(&body, loc, stage);
        let body = add_alloc(&body, scope_path, cache);
        self.set_body(primitive, body)?;
        Ok(self.new_block_rv(&name))
    }
}

/// The children of the scope that read a buffer child `src` writes, after it.
pub(super) fn raw_consumers(children: &[ChildBlock], src: usize) -> HashSet<String> {
    let deps = dependencies(children);
    deps.raw
        .iter()
        .enumerate()
        .filter(|(_, producers)| producers.contains(&src))
        .map(|(i, _)| children[i].realize.block.name.clone())
        .collect()
}

pub(super) fn single_writer_error(
    primitive: &str,
    buffer: &Buffer,
    children: &[ChildBlock],
    writers: &[usize],
) -> ScheduleError {
    let names: Vec<String> = writers
        .iter()
        .map(|&i| format!("`{}`", children[i].realize.block.name))
        .collect();
    ScheduleError::dependency(
        primitive,
        format!(
            "The buffer {} is expected to be written by single block, but got {} blocks who write it ({}).",
            buffer.name,
            writers.len(),
            names.join(", ")
        ),
    )
    .at(children[writers[0]].path.clone())
}

/// The cache buffer: a copy of `of` (TVM's `WithScope`) named `name`, in
/// `scope`, shaped like `region` (or like `of` for a full cache).
fn cache_buffer(of: &Buffer, name: &str, scope: &str, region: &[Range], full: bool) -> Buffer {
    of.derive(|n| {
        n.name = name.to_string();
        n.scope = if scope.is_empty() {
            "global".to_string()
        } else {
            scope.to_string()
        };
        if !full {
            n.shape = region.iter().map(|r| r.extent.clone()).collect();
        }
    })
}

/// Whether the stage goes under a loop (then the cache is a full copy).
fn loc_is_loop(body: &Stmt, loc: &CacheLoc) -> bool {
    matches!(
        tree::get(body, &loc.path).map(|s| s.kind().clone()),
        Some(StmtKind::For(_))
    )
}
