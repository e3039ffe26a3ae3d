//! Schedules: "separate what you compute from how you compute it".
//!
//! A [`Schedule`] holds an [`IRModule`], the function it works on, a
//! [`Trace`] of every primitive applied, and a table of random variables —
//! handles to blocks ([`BlockRV`]), loops ([`LoopRV`]) and sampled integers
//! ([`ExprRV`]). Handles stay valid across transformations that keep their
//! target (a reordered loop is the same loop) and report a clear error once
//! their target is gone (a loop that was split).
//!
//! Handle resolution: a loop handle names its loop variable (loop variables
//! are defined once, so the variable identifies the loop); a block handle
//! names its block, and primitives that rename a block (`decompose_reduction`
//! turns `C` into `C_update`) update the handles that pointed at it.
//!
//! Every primitive checks TVM's preconditions first and returns a
//! [`ScheduleError`] naming the rule that failed; an illegal request never
//! changes the IR. Primitives live one group per file:
//! - [`query`]: `get_block`, `get_loops`, `get_child_blocks`, producers, consumers,
//!   `enter_postproc`;
//! - [`loops`]: `split`, `fuse`, `reorder`, `add_unit_loop`;
//! - [`merge`]: `merge` of loop nests;
//! - [`loop_partition`]: `loop_partition` of a loop's range into pieces;
//! - [`padding`]: `decompose_padding`, `can_decompose_padding`;
//! - [`pad_einsum`]: padding an einsum block's iteration space;
//! - [`loop_kind`]: `parallel`, `vectorize`, `unroll`, `bind`;
//! - [`reduction`]: `decompose_reduction`, `rfactor`;
//! - [`reduction_epilogue`]: `fuse_reduction_epilogue` of a bias into a reduction;
//! - [`blockize`]: `blockize` of a loop;
//! - [`block_iters`]: `reorder_block_iter_var`, `transform_block_layout`;
//! - [`tensorize`]: tensor intrinsics and `tensorize`;
//! - [`compute_at`]: `compute_at`, `reverse_compute_at`;
//! - [`inline`]: `compute_inline`, `reverse_compute_inline`;
//! - [`cache`]: `cache_read`, `cache_write`, `cache_inplace`;
//! - [`cache_index`]: `cache_index` of a block's index computations;
//! - [`read_write_at`]: `read_at`, `write_at` (copies at the top of a loop);
//! - [`rolling_buffer`]: `rolling_buffer` of a tiled producer's buffer;
//! - [`reindex`]: `reindex`, `reindex_cache_read`, `reindex_cache_write`;
//! - [`layout`]: `transform_layout`, `set_scope`, `unsafe_set_dtype`, `storage_align`;
//! - [`annotate`]: `annotate`, `unannotate`, `unsafe_hide_buffer_access`,
//!   `annotate_buffer_access`.
//!
//! Each primitive is declared once, next to its implementation, and listed
//! in [`primitives::PRIMITIVES`]: its name, parameters, TVM instruction kind
//! and playground menu entry. Calls by name ([`Schedule::call`]), replay,
//! trace printing and JSON read that table, and every application — typed
//! (`sch.split(…)`) or by name — is recorded in one place,
//! [`Schedule::apply_traced`], after the primitive succeeded.

// A panic in WebAssembly kills the page: library code returns typed errors (tests may unwrap).
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

pub mod annotate;
pub mod block_iters;
pub mod blockize;
pub mod buffer_access;
pub mod cache;
pub mod cache_index;
pub mod compute_at;
pub mod error;
pub mod index_map;
pub mod inline;
pub mod json;
pub mod layout;
mod layout_padding;
pub mod loop_kind;
pub mod loop_partition;
pub mod loops;
pub mod menu;
pub mod merge;
pub mod pad_einsum;
pub mod padding;
pub mod primitives;
pub mod query;
pub mod read_write_at;
pub mod reduction;
pub mod reduction_epilogue;
pub mod reindex;
pub mod replay;
pub mod rolling_buffer;
pub mod sampling;
pub(crate) mod scope;
pub mod tensorize;
pub mod trace;
pub mod tree;
mod util;
pub mod value;

use std::rc::Rc;

pub use error::{HandleKind, Result, ScheduleError, ScheduleErrorKind};
pub use tensorize::{TensorIntrin, TensorIntrinTable};
pub use trace::{Instruction, Rv, Trace, TraceArg, TraceDialect};
use tree::StmtPath;

use tessel_tir::ir::printer::{print_prim_func, Dialect, Mark, PrintOptions};
use tessel_tir::ir::*;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BlockRV(pub u32);
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LoopRV(pub u32);
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ExprRV(pub u32);

impl From<BlockRV> for Rv {
    fn from(b: BlockRV) -> Rv {
        Rv::Block(b.0)
    }
}
impl From<LoopRV> for Rv {
    fn from(l: LoopRV) -> Rv {
        Rv::Loop(l.0)
    }
}
impl From<ExprRV> for Rv {
    fn from(v: ExprRV) -> Rv {
        Rv::Expr(v.0)
    }
}

/// What a random variable refers to now.
#[derive(Clone, Debug)]
enum RvTarget {
    /// A block, by name (`None` once removed, e.g. by `compute_inline`).
    Block(Option<String>),
    /// A loop, by loop variable (`None` once removed).
    Loop(Option<VarId>),
    /// A sampled integer.
    Expr(i64),
    /// A tile factor left for `split` to infer (`sample_perfect_tile` of a
    /// loop of symbolic extent; Python sees `None`).
    AbsentExpr,
    /// `sample_compute_location`'s "stay at the root" location.
    RootLoop,
    /// `sample_compute_location`'s "inline it" location.
    InlineLoop,
    /// A handle given up by `remove_rv`.
    Removed,
}

/// The two compute locations that are not loops (TVM's decisions -1 and -2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SpecialLoop {
    Root,
    Inline,
}

/// A split factor: inferred (`None`), a constant, or a sampled value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Factor {
    Infer,
    Const(i64),
    Sampled(ExprRV),
}

#[derive(Clone, Debug)]
pub struct Schedule {
    module: IRModule,
    func_name: String,
    trace: Trace,
    /// The module after each instruction of `trace` (same length), so a
    /// step-through needs no second application of the schedule.
    modules_after: Vec<IRModule>,
    rvs: Vec<RvTarget>,
    rand_state: u64,
    /// How traces print (`get_block` vs `get_sblock`).
    pub dialect: TraceDialect,
    /// How IR in error messages prints.
    pub ir_dialect: Dialect,
    /// The tensor intrinsics `tensorize` looks names up in.
    intrins: TensorIntrinTable,
    /// TVM's `debug_mask` bit that re-checks each block's cached flags after
    /// every primitive: then a primitive that leaves a block whose binding is
    /// no longer affine fails, as in TVM.
    pub verify_cached_flags: bool,
}

impl Schedule {
    /// A schedule over `module`, working on `main` (or its only function).
    pub fn new(module: IRModule) -> Result<Schedule> {
        Schedule::with_seed(module, 0)
    }

    pub fn with_seed(module: IRModule, seed: u64) -> Result<Schedule> {
        let func_name = if module.get_prim("main").is_some() {
            "main".to_string()
        } else {
            let names: Vec<&str> = module.prim_funcs().map(|(n, _)| n).collect();
            match names.as_slice() {
                [only] => only.to_string(),
                _ => String::new(),
            }
        };
        Ok(Schedule {
            module,
            func_name,
            trace: Trace::default(),
            modules_after: Vec::new(),
            rvs: Vec::new(),
            rand_state: seed_state(seed),
            dialect: TraceDialect::default(),
            ir_dialect: Dialect::default(),
            intrins: TensorIntrinTable::default(),
            verify_cached_flags: false,
        })
    }

    /// The current module.
    pub fn module(&self) -> &IRModule {
        &self.module
    }
    pub fn trace(&self) -> &Trace {
        &self.trace
    }
    /// The module right after each instruction of [`Schedule::trace`], in
    /// order (modules share unchanged functions, so this is cheap).
    pub fn modules_after(&self) -> &[IRModule] {
        &self.modules_after
    }
    pub fn func_name(&self) -> &str {
        &self.func_name
    }
    /// How many handles (blocks, loops, sampled values) the schedule has made.
    pub fn rv_count(&self) -> usize {
        self.rvs.len()
    }

    /// Chooses the function later primitives work on.
    pub fn work_on(&mut self, func_name: &str) -> Result<()> {
        if self.module.get_prim(func_name).is_none() {
            return Err(ScheduleError::not_found(
                "work_on",
                format!("the module has no PrimFunc named `{func_name}`"),
            ));
        }
        // Like TVM, not recorded: the `get_block` that follows names the
        // function itself, so the trace replays without it.
        self.func_name = func_name.to_string();
        Ok(())
    }

    /// Reseeds the random state from a new seed.
    pub fn seed(&mut self, seed: u64) {
        self.rand_state = seed_state(seed);
    }

    /// A new seed derived from the current random state (advances it).
    pub fn fork_seed(&mut self) -> u64 {
        self.next_random()
    }

    pub(crate) fn next_random(&mut self) -> u64 {
        // splitmix64: small, fast, and the same on every platform.
        self.rand_state = self.rand_state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.rand_state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    // ----- the function being scheduled ----------------------------------------

    pub(crate) fn func(&self, primitive: &str) -> Result<Rc<PrimFunc>> {
        self.module
            .get_prim(&self.func_name)
            .cloned()
            .ok_or_else(|| {
                if self.func_name.is_empty() {
                    ScheduleError::no_function_chosen(
                    primitive,
                    "the module has several functions: choose one with `func_name=` or `work_on`",
                )
                } else {
                    ScheduleError::not_found(
                        primitive,
                        format!("the module has no PrimFunc named `{}`", self.func_name),
                    )
                }
            })
    }

    pub(crate) fn body(&self, primitive: &str) -> Result<Stmt> {
        Ok(self.func(primitive)?.body.clone())
    }

    /// Installs a new body for the function being scheduled.
    pub(crate) fn set_body(&mut self, primitive: &str, body: Stmt) -> Result<()> {
        let func = self.func(primitive)?;
        let new = func.with_body(body);
        self.module
            .insert(self.func_name.clone(), BaseFunc::Prim(Rc::new(new)));
        Ok(())
    }

    /// Replaces the statement at `path` in the current function.
    pub(crate) fn replace_at(&mut self, primitive: &str, path: &StmtPath, new: Stmt) -> Result<()> {
        let body = self.body(primitive)?;
        self.set_body(primitive, tree::replace(&body, path, new))
    }

    // ----- random variables --------------------------------------------------------

    fn push_rv(&mut self, t: RvTarget) -> u32 {
        self.rvs.push(t);
        (self.rvs.len() - 1) as u32
    }
    pub(crate) fn new_block_rv(&mut self, name: &str) -> BlockRV {
        BlockRV(self.push_rv(RvTarget::Block(Some(name.to_string()))))
    }
    pub(crate) fn new_loop_rv(&mut self, var: &Var) -> LoopRV {
        LoopRV(self.push_rv(RvTarget::Loop(Some(var.id()))))
    }
    pub(crate) fn new_special_loop_rv(&mut self, which: SpecialLoop) -> LoopRV {
        LoopRV(self.push_rv(match which {
            SpecialLoop::Root => RvTarget::RootLoop,
            SpecialLoop::Inline => RvTarget::InlineLoop,
        }))
    }
    /// Whether a loop handle is one of the special compute locations.
    pub(crate) fn special_loop(&self, rv: LoopRV) -> Option<SpecialLoop> {
        match self.rvs.get(rv.0 as usize) {
            Some(RvTarget::RootLoop) => Some(SpecialLoop::Root),
            Some(RvTarget::InlineLoop) => Some(SpecialLoop::Inline),
            _ => None,
        }
    }
    pub(crate) fn new_expr_rv(&mut self, value: i64) -> ExprRV {
        ExprRV(self.push_rv(RvTarget::Expr(value)))
    }

    /// A sampled tile factor that has no value: `split` infers it.
    pub(crate) fn new_absent_expr_rv(&mut self) -> ExprRV {
        ExprRV(self.push_rv(RvTarget::AbsentExpr))
    }

    /// Whether a sampled value is a factor left to infer (Python's `None`).
    pub fn is_absent(&self, rv: ExprRV) -> bool {
        matches!(self.rvs.get(rv.0 as usize), Some(RvTarget::AbsentExpr))
    }

    /// TVM's `remove_rv`: forgets a handle, so that later uses of it fail.
    /// Not recorded in the trace (as in TVM).
    pub fn remove_rv(&mut self, rv: Rv) -> Result<()> {
        let index = match rv {
            Rv::Block(i) | Rv::Loop(i) | Rv::Expr(i) => i as usize,
        };
        match self.rvs.get_mut(index) {
            Some(slot) if !matches!(slot, RvTarget::Removed) => {
                *slot = RvTarget::Removed;
                Ok(())
            }
            _ => Err(ScheduleError::not_found(
                "remove_rv",
                "the random variable is not defined in this schedule",
            )),
        }
    }

    /// Whether `remove_rv` gave the handle up.
    pub fn is_removed(&self, rv: Rv) -> bool {
        let index = match rv {
            Rv::Block(i) | Rv::Loop(i) | Rv::Expr(i) => i as usize,
        };
        matches!(self.rvs.get(index), Some(RvTarget::Removed))
    }

    /// The value of a sampled integer.
    pub fn get_value(&self, rv: ExprRV) -> Result<i64> {
        match self.rvs.get(rv.0 as usize) {
            Some(RvTarget::Expr(v)) => Ok(*v),
            Some(RvTarget::AbsentExpr) => Err(ScheduleError::invalid_argument(
                "get",
                format!(
                    "v{} is a tile factor left to infer (None); it has no value",
                    rv.0
                ),
            )),
            _ => Err(ScheduleError::not_found(
                "get",
                format!("v{} is not a sampled value of this schedule", rv.0),
            )),
        }
    }

    /// The current name of the block a handle refers to.
    pub fn block_name(&self, rv: BlockRV) -> Result<String> {
        match self.rvs.get(rv.0 as usize) {
            Some(RvTarget::Block(Some(n))) => Ok(n.clone()),
            Some(RvTarget::Block(None)) => Err(ScheduleError::not_found(
                "get",
                format!("the block referenced by b{} was removed", rv.0),
            )),
            _ => Err(ScheduleError::not_found(
                "get",
                format!("b{} is not a block of this schedule", rv.0),
            )),
        }
    }

    /// Re-points every handle of block `old` to `new` (or marks them removed).
    pub(crate) fn rename_block_rvs(&mut self, old: &str, new: Option<&str>) {
        for t in &mut self.rvs {
            if let RvTarget::Block(Some(n)) = t {
                if n == old {
                    *t = RvTarget::Block(new.map(str::to_string));
                }
            }
        }
    }

    /// Marks every handle of a loop that no longer exists.
    pub(crate) fn remove_loop_rvs(&mut self, var: VarId) {
        for t in &mut self.rvs {
            if let RvTarget::Loop(Some(v)) = t {
                if *v == var {
                    *t = RvTarget::Loop(None);
                }
            }
        }
    }

    /// Finds the block a handle refers to: its path and realize.
    pub fn resolve_block(&self, primitive: &str, rv: BlockRV) -> Result<(StmtPath, BlockRealize)> {
        let name = match self.rvs.get(rv.0 as usize) {
            Some(RvTarget::Block(Some(n))) => n.clone(),
            Some(RvTarget::Block(None)) => {
                return Err(ScheduleError::stale_handle(
                    HandleKind::Block,
                    primitive,
                    format!(
                        "the block b{} refers to no longer exists (it was inlined or replaced)",
                        rv.0
                    ),
                ))
            }
            _ => {
                return Err(ScheduleError::not_found(
                    primitive,
                    format!("b{} is not a block handle of this schedule", rv.0),
                ))
            }
        };
        let body = self.body(primitive)?;
        let paths = tree::find_blocks(&body, &name);
        match paths.as_slice() {
            [path] => {
                let realize = tree::get(&body, path)
                    .and_then(|s| s.as_block_realize().cloned())
                    .ok_or_else(|| {
                        ScheduleError::internal(primitive, "internal: block path is stale")
                    })?;
                Ok((path.clone(), realize))
            }
            [] => Err(ScheduleError::stale_handle(
                HandleKind::Block,
                primitive,
                format!("block `{name}` (b{}) no longer exists", rv.0),
            )),
            _ => Err(ScheduleError::block_structure(
                primitive,
                format!(
                    "several blocks are named `{name}`; block names must be unique to be scheduled"
                ),
            )),
        }
    }

    /// Finds the loop a handle refers to: its path and node.
    pub fn resolve_loop(&self, primitive: &str, rv: LoopRV) -> Result<(StmtPath, For)> {
        let var = match self.rvs.get(rv.0 as usize) {
            Some(RvTarget::Loop(Some(v))) => *v,
            Some(RvTarget::Loop(None)) => {
                return Err(ScheduleError::stale_handle(
                    HandleKind::Loop,
                    primitive,
                    format!("the loop l{} refers to no longer exists (it was split, fused or removed); use the loops that replaced it", rv.0),
                ))
            }
            _ => return Err(ScheduleError::not_found(primitive, format!("l{} is not a loop handle of this schedule", rv.0))),
        };
        let body = self.body(primitive)?;
        let path = tree::find_loop(&body, var).ok_or_else(|| {
            ScheduleError::stale_handle(
                HandleKind::Loop,
                primitive,
                format!("the loop l{} refers to is no longer in the function", rv.0),
            )
        })?;
        let node = tree::get(&body, &path)
            .and_then(|s| s.as_for().cloned())
            .ok_or_else(|| ScheduleError::internal(primitive, "internal: loop path is stale"))?;
        Ok((path, node))
    }

    /// The statement a block or loop handle refers to now: the node itself
    /// (`Stmt::same_node` tells whether two lookups found the same object,
    /// TVM's `same_as`; a primitive that rewrites the node makes a new one).
    pub fn node_of(&self, primitive: &str, rv: Rv) -> Result<Stmt> {
        let path = match rv {
            Rv::Block(i) => self.resolve_block(primitive, BlockRV(i))?.0,
            Rv::Loop(i) => self.resolve_loop(primitive, LoopRV(i))?.0,
            Rv::Expr(i) => {
                return Err(ScheduleError::invalid_argument(
                    primitive,
                    format!("v{i} is a sampled value, not a block or loop"),
                ))
            }
        };
        let body = self.body(primitive)?;
        tree::get(&body, &path)
            .ok_or_else(|| ScheduleError::internal(primitive, "internal: statement path is stale"))
    }

    /// Fills in an error's IR view: the function being scheduled, printed
    /// with the statement at the error's location underlined.
    pub fn explain(&self, mut err: ScheduleError) -> ScheduleError {
        if err.marked_ir.is_some() {
            return err;
        }
        let Ok(func) = self.func(&err.primitive) else {
            return err;
        };
        let mut opts = PrintOptions::new(self.ir_dialect);
        if let Some(stmt) = err.location.as_ref().and_then(|p| tree::get(&func.body, p)) {
            opts = opts.with_mark(Mark::stmt(&stmt).underline().with_label(""));
        }
        err.marked_ir = Some(print_prim_func(&func, &self.func_name, &opts));
        err
    }
}

fn seed_state(seed: u64) -> u64 {
    seed ^ 0x5DEE_CE66_D1CE_4E5B
}
