//! Memory-access pictures: which elements of each buffer one unit of work
//! touches — one iteration of a loop, one lane of a vectorized loop, one
//! GPU thread or one workgroup — with its loads and stores counted by
//! memory scope (global, shared, local).
//!
//! The loop nest is walked point by point with concrete integer index
//! arithmetic (the reference interpreter's: `Div`/`Mod` truncate,
//! `FloorDiv`/`FloorMod` floor), so the picture shows exactly the elements
//! the program reads and writes, not a bounding box. Which loops are fixed
//! and which are enumerated depends on the unit:
//!
//! - **iteration** / **lane** of loop `L`: the loops outside `L` at their
//!   minimum, `L` at iteration `at`, everything inside `L` enumerated
//!   (the same point the compiler's region analysis draws,
//!   [`crate::loop_regions`]); a lane is an iteration of a vectorized loop;
//! - **thread** `at`: `threadIdx.x/y/z` fixed (x fastest), `blockIdx.*` at
//!   0, every other loop of the kernel enumerated;
//! - **workgroup** `at`: `blockIdx.x/y/z` fixed, every thread and loop of
//!   the kernel enumerated.
//!
//! A loop bound to a thread axis takes the axis's value wherever the axis
//! is already fixed (cooperative fetches re-bind `threadIdx.x` inside a
//! thread's own loop). The walk stops with [`AccessError::OverBudget`]
//! once it has enumerated more loop iterations than the caller allows.

use compiler_core::arith::fold::{floordiv_i64, floormod_i64};
use std::collections::{BTreeSet, HashMap};
use std::fmt;

use compiler_core::ir::{
    BinOp, Buffer, BufferId, CmpOp, Expr, ExprKind, For, ForKind, Intrinsic, IterKind, PrimFunc,
    Stmt, StmtKind, VarId,
};

/// Loop iterations a picture may enumerate by default: a few seconds of
/// walking at most, in the browser's worker.
pub const DEFAULT_BUDGET: u64 = 2_000_000;

/// The unit of work a picture shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AccessUnit {
    /// One iteration of loop number `loop_index` (pre-order among the
    /// function's loops, as the playground numbers them).
    Iteration { loop_index: usize },
    /// One lane of a vectorized loop (an iteration of it, one vector
    /// instruction's element).
    Lane { loop_index: usize },
    /// One GPU thread (`threadIdx`), in workgroup 0.
    Thread,
    /// One GPU workgroup (`blockIdx`), all its threads.
    Workgroup,
}

impl AccessUnit {
    /// `iteration`, `lane`, `thread` or `workgroup`.
    pub fn name(self) -> &'static str {
        match self {
            AccessUnit::Iteration { .. } => "iteration",
            AccessUnit::Lane { .. } => "lane",
            AccessUnit::Thread => "thread",
            AccessUnit::Workgroup => "workgroup",
        }
    }
}

/// Where a buffer lives, as its scope says.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum MemoryScope {
    Global,
    Shared,
    Local,
}

impl MemoryScope {
    /// `shared*` is shared, `local*`, `warp` and the tensor-core fragments
    /// (`wmma.*`, `m16n8k8.*`) are local, anything else is global.
    pub fn of(scope: &str) -> MemoryScope {
        if scope.starts_with("shared") {
            MemoryScope::Shared
        } else if scope.starts_with("local")
            || scope == "warp"
            || scope.starts_with("wmma.")
            || scope.starts_with("m16n8k8.")
        {
            MemoryScope::Local
        } else {
            MemoryScope::Global
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            MemoryScope::Global => "global",
            MemoryScope::Shared => "shared",
            MemoryScope::Local => "local",
        }
    }
    pub const ALL: [MemoryScope; 3] =
        [MemoryScope::Global, MemoryScope::Shared, MemoryScope::Local];
}

/// Element loads and stores in one scope.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ScopeCounts {
    pub loads: u64,
    pub stores: u64,
}

/// What one unit of work does to one buffer.
#[derive(Clone, Debug, PartialEq)]
pub struct BufferAccess {
    pub name: String,
    pub shape: Vec<i64>,
    /// The buffer's scope as written (`global`, `shared`, `local`, …).
    pub scope: String,
    pub memory: MemoryScope,
    /// Elements read, as row-major offsets, ascending and distinct.
    pub reads: Vec<i64>,
    /// Elements written, likewise.
    pub writes: Vec<i64>,
    /// Element loads and stores executed (an element read twice counts twice).
    pub loads: u64,
    pub stores: u64,
    /// Accesses outside the buffer's shape (not drawn).
    pub out_of_bounds: u64,
}

impl BufferAccess {
    /// The multi-dimensional index of a row-major offset.
    pub fn index_of(&self, offset: i64) -> Vec<i64> {
        unflatten(&self.shape, offset)
    }
    /// Whether the unit reads the element at `index`.
    pub fn reads_index(&self, index: &[i64]) -> bool {
        flatten(&self.shape, index).is_some_and(|o| self.reads.binary_search(&o).is_ok())
    }
    /// Whether the unit writes the element at `index`.
    pub fn writes_index(&self, index: &[i64]) -> bool {
        flatten(&self.shape, index).is_some_and(|o| self.writes.binary_search(&o).is_ok())
    }
}

/// The picture of one unit of work.
#[derive(Clone, Debug, PartialEq)]
pub struct MemoryAccess {
    pub unit: AccessUnit,
    /// Which unit: the iteration (0-based), lane, thread or workgroup number.
    pub at: i64,
    /// How many units there are (`at` runs over `0..steps`).
    pub steps: i64,
    /// The chosen loop's name (iteration and lane).
    pub loop_name: Option<String>,
    /// What was fixed, for a caption: `j_0 = 1`, `threadIdx.x = 5`, ….
    pub label: String,
    /// The function's buffers (parameters first, then allocations in the
    /// order the walk meets them).
    pub buffers: Vec<BufferAccess>,
    /// Loop iterations enumerated.
    pub points: u64,
}

impl MemoryAccess {
    pub fn buffer(&self, name: &str) -> Option<&BufferAccess> {
        self.buffers.iter().find(|b| b.name == name)
    }
    /// Loads and stores summed by memory scope.
    pub fn counts(&self, scope: MemoryScope) -> ScopeCounts {
        self.buffers
            .iter()
            .filter(|b| b.memory == scope)
            .fold(ScopeCounts::default(), |c, b| ScopeCounts {
                loads: c.loads + b.loads,
                stores: c.stores + b.stores,
            })
    }
}

/// Why there is no picture.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AccessError {
    NoSuchLoop(usize),
    /// A lane was asked of a loop that is not vectorized.
    NotVectorized(String),
    /// A thread or workgroup was asked of a function with no such binding
    /// (`threadIdx` or `blockIdx`).
    NoThreadBinding(&'static str),
    /// `at` is past the last unit.
    OutOfRange {
        at: i64,
        steps: i64,
        what: String,
    },
    /// A loop bound or index the walk cannot evaluate to a number.
    NotConcrete(String),
    /// More loop iterations than the budget.
    OverBudget {
        budget: u64,
    },
}

impl fmt::Display for AccessError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AccessError::NoSuchLoop(i) => write!(f, "no loop number {i} in this function"),
            AccessError::NotVectorized(name) => write!(
                f,
                "loop `{name}` is not vectorized: lanes are the iterations of a vectorized loop"
            ),
            AccessError::NoThreadBinding(axis) => write!(
                f,
                "no loop of this function is bound to {axis}: bind one (sch.bind) to see a {}",
                if *axis == "threadIdx" {
                    "thread"
                } else {
                    "workgroup"
                }
            ),
            AccessError::OutOfRange { at, steps, what } => {
                write!(
                    f,
                    "{what} {at} does not exist: there are {steps} (0 to {})",
                    steps - 1
                )
            }
            AccessError::NotConcrete(why) => write!(f, "cannot draw the accesses: {why}"),
            AccessError::OverBudget { budget } => write!(
                f,
                "this unit runs more than {budget} loop iterations, too many to draw: \
                 choose an inner loop or a smaller unit"
            ),
        }
    }
}

impl std::error::Error for AccessError {}

/// The elements of each buffer of `func` one `unit` of work number `at`
/// touches, enumerating at most `budget` loop iterations.
pub fn memory_access(
    func: &PrimFunc,
    unit: AccessUnit,
    at: i64,
    budget: u64,
) -> Result<MemoryAccess, AccessError> {
    let mut walker = Walker::new(func, budget);
    let (steps, loop_name, label);
    match unit {
        AccessUnit::Iteration { loop_index } | AccessUnit::Lane { loop_index } => {
            let path =
                loop_path(&func.body, loop_index).ok_or(AccessError::NoSuchLoop(loop_index))?;
            // A found loop ends its path, which holds loops only.
            let Some(chosen) = path.last().cloned() else {
                return Err(AccessError::NoSuchLoop(loop_index));
            };
            let Some(f) = chosen.as_for() else {
                return Err(AccessError::NoSuchLoop(loop_index));
            };
            if matches!(unit, AccessUnit::Lane { .. }) && f.kind != ForKind::Vectorized {
                return Err(AccessError::NotVectorized(f.loop_var.name().to_string()));
            }
            walker.path = path.iter().map(|s| s.node_id()).collect();
            walker.chosen = Some((chosen.node_id(), at));
            walker.walk(&func.body)?;
            let (min, extent) = walker.chosen_range.ok_or_else(|| {
                AccessError::NotConcrete(format!("loop `{}` is not reached", f.loop_var.name()))
            })?;
            steps = extent;
            if at < 0 || at >= extent {
                return Err(AccessError::OutOfRange {
                    at,
                    steps,
                    what: format!("iteration of `{}`", f.loop_var.name()),
                });
            }
            loop_name = Some(f.loop_var.name().to_string());
            label = format!("{} = {}", f.loop_var.name(), min + at);
        }
        AccessUnit::Thread | AccessUnit::Workgroup => {
            let (fixed_axis, zero_axis) = if unit == AccessUnit::Thread {
                ("threadIdx", Some("blockIdx"))
            } else {
                ("blockIdx", None)
            };
            let extents = thread_extents(&func.body)?;
            let axes: Vec<(String, i64)> = ["x", "y", "z"]
                .iter()
                .filter_map(|d| {
                    let tag = format!("{fixed_axis}.{d}");
                    extents.get(&tag).map(|&e| (tag, e))
                })
                .collect();
            if axes.is_empty() {
                return Err(AccessError::NoThreadBinding(fixed_axis));
            }
            steps = axes.iter().map(|(_, e)| e).product();
            if at < 0 || at >= steps {
                return Err(AccessError::OutOfRange {
                    at,
                    steps,
                    what: unit.name().to_string(),
                });
            }
            // x varies fastest.
            let mut rest = at;
            let mut parts = Vec::new();
            for (tag, extent) in &axes {
                walker.threads.insert(tag.clone(), rest % extent);
                parts.push(format!("{tag} = {}", rest % extent));
                rest /= extent;
            }
            if let Some(zero) = zero_axis {
                for tag in extents.keys().filter(|t| t.starts_with(zero)) {
                    walker.threads.insert(tag.clone(), 0);
                }
                parts.push(format!("{zero} = 0"));
            }
            walker.recording = true;
            walker.walk(&func.body)?;
            loop_name = None;
            label = parts.join(", ");
        }
    }
    Ok(MemoryAccess {
        unit,
        at,
        steps,
        loop_name,
        label,
        points: walker.points,
        buffers: walker.finish(),
    })
}

/// The units a picture of `func` can show: an iteration of the chosen loop
/// (and a lane, when it is vectorized), a thread and a workgroup when the
/// function binds loops to `threadIdx` and `blockIdx`.
pub fn units_for(func: &PrimFunc, loop_index: Option<usize>) -> Vec<AccessUnit> {
    let mut units = Vec::new();
    if let Some(path) = loop_index.and_then(|i| loop_path(&func.body, i).map(|p| (i, p))) {
        let (loop_index, path) = path;
        units.push(AccessUnit::Iteration { loop_index });
        if path
            .last()
            .and_then(|s| s.as_for())
            .is_some_and(|f| f.kind == ForKind::Vectorized)
        {
            units.push(AccessUnit::Lane { loop_index });
        }
    }
    let mut tags = Vec::new();
    func.body.walk(&mut |s| {
        if let Some(tag) = s.as_for().and_then(|f| f.thread_tag.clone()) {
            tags.push(tag);
        }
    });
    if tags.iter().any(|t| t.starts_with("threadIdx")) {
        units.push(AccessUnit::Thread);
    }
    if tags.iter().any(|t| t.starts_with("blockIdx")) {
        units.push(AccessUnit::Workgroup);
    }
    units
}

/// How a buffer laid out as a grid looks: 1-D buffers are one row, 2-D
/// buffers rows × columns, higher dimensions flattened into rows of the
/// last dimension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GridLayout {
    pub rows: i64,
    pub cols: i64,
}

impl GridLayout {
    pub fn of(shape: &[i64]) -> GridLayout {
        match shape {
            [] => GridLayout { rows: 1, cols: 1 },
            [n] => GridLayout { rows: 1, cols: *n },
            [outer @ .., last] => GridLayout {
                rows: outer.iter().product(),
                cols: *last,
            },
        }
    }
    /// The (row, column) of a row-major offset.
    pub fn cell(self, offset: i64) -> (i64, i64) {
        if self.cols <= 0 {
            return (0, 0);
        }
        (offset / self.cols, offset % self.cols)
    }
}

/// The row-major offset of `index` in `shape`, when inside it.
pub fn flatten(shape: &[i64], index: &[i64]) -> Option<i64> {
    if shape.len() != index.len() {
        return None;
    }
    let mut offset = 0;
    for (&i, &n) in index.iter().zip(shape) {
        if i < 0 || i >= n {
            return None;
        }
        offset = offset * n + i;
    }
    Some(offset)
}

/// The index of a row-major offset in `shape`.
pub fn unflatten(shape: &[i64], mut offset: i64) -> Vec<i64> {
    let mut index = vec![0; shape.len()];
    for (slot, &n) in index.iter_mut().zip(shape).rev() {
        if n > 0 {
            *slot = offset % n;
            offset /= n;
        }
    }
    index
}

/// The loops from the outermost down to loop number `loop_index`
/// (pre-order, a block's init before its body), or `None`.
fn loop_path(body: &Stmt, loop_index: usize) -> Option<Vec<Stmt>> {
    fn go(s: &Stmt, target: usize, count: &mut usize, path: &mut Vec<Stmt>) -> bool {
        if let StmtKind::For(f) = s.kind() {
            let index = *count;
            *count += 1;
            path.push(s.clone());
            if index == target || go(&f.body, target, count, path) {
                return true;
            }
            path.pop();
            return false;
        }
        let mut found = false;
        s.for_each_child(|c| {
            if !found {
                found = go(c, target, count, path);
            }
        });
        found
    }
    let mut path = Vec::new();
    go(body, loop_index, &mut 0, &mut path).then_some(path)
}

/// Each thread axis's extent (the largest loop bound to it).
fn thread_extents(body: &Stmt) -> Result<HashMap<String, i64>, AccessError> {
    let mut extents = HashMap::new();
    let mut symbolic = None;
    body.walk(&mut |s| {
        if let StmtKind::For(f) = s.kind() {
            if let (ForKind::ThreadBinding, Some(tag)) = (f.kind, &f.thread_tag) {
                match f.extent.as_int() {
                    Some(e) => {
                        let slot = extents.entry(tag.clone()).or_insert(0);
                        *slot = (*slot).max(e);
                    }
                    None => symbolic = Some(tag.clone()),
                }
            }
        }
    });
    match symbolic {
        Some(tag) => Err(AccessError::NotConcrete(format!(
            "the extent of `{tag}` is not a constant"
        ))),
        None => Ok(extents),
    }
}

/// A buffer's accesses while walking.
struct Tally {
    buffer: Buffer,
    shape: Option<Vec<i64>>,
    reads: BTreeSet<i64>,
    writes: BTreeSet<i64>,
    loads: u64,
    stores: u64,
    out_of_bounds: u64,
}

struct Walker {
    env: HashMap<VarId, i64>,
    /// Thread axes with a value: fixed by the unit, or by an enclosing
    /// loop bound to the axis.
    threads: HashMap<String, i64>,
    /// Iteration and lane: the loops down to the chosen one, and the
    /// chosen loop with its iteration; its (min, extent) once met.
    path: Vec<usize>,
    chosen: Option<(usize, i64)>,
    chosen_range: Option<(i64, i64)>,
    /// Inside the unit: accesses count.
    recording: bool,
    /// Matched buffers: the source buffer and the offset of each dimension.
    matched: HashMap<BufferId, (Buffer, Vec<i64>)>,
    tallies: Vec<Tally>,
    slot: HashMap<BufferId, usize>,
    points: u64,
    budget: u64,
}

/// Why an expression has no integer value here.
enum NoValue {
    Free(String),
    DataDependent(String),
    NotInteger,
}

impl Walker {
    fn new(func: &PrimFunc, budget: u64) -> Walker {
        let mut w = Walker {
            env: HashMap::new(),
            threads: HashMap::new(),
            path: Vec::new(),
            chosen: None,
            chosen_range: None,
            recording: false,
            matched: HashMap::new(),
            tallies: Vec::new(),
            slot: HashMap::new(),
            points: 0,
            budget,
        };
        for (_, b) in &func.buffer_map {
            w.register(b);
        }
        w
    }

    fn register(&mut self, b: &Buffer) -> usize {
        if let Some(&i) = self.slot.get(&b.id()) {
            return i;
        }
        self.tallies.push(Tally {
            buffer: b.clone(),
            shape: b.const_shape(),
            reads: BTreeSet::new(),
            writes: BTreeSet::new(),
            loads: 0,
            stores: 0,
            out_of_bounds: 0,
        });
        self.slot.insert(b.id(), self.tallies.len() - 1);
        self.tallies.len() - 1
    }

    fn finish(self) -> Vec<BufferAccess> {
        self.tallies
            .into_iter()
            .map(|t| BufferAccess {
                name: t.buffer.name.clone(),
                shape: t.shape.unwrap_or_default(),
                scope: t.buffer.scope.clone(),
                memory: MemoryScope::of(&t.buffer.scope),
                reads: t.reads.into_iter().collect(),
                writes: t.writes.into_iter().collect(),
                loads: t.loads,
                stores: t.stores,
                out_of_bounds: t.out_of_bounds,
            })
            .collect()
    }

    fn tick(&mut self) -> Result<(), AccessError> {
        self.points += 1;
        if self.points > self.budget {
            return Err(AccessError::OverBudget {
                budget: self.budget,
            });
        }
        Ok(())
    }

    fn eval(&mut self, e: &Expr) -> Result<i64, NoValue> {
        eval(&mut self.env, e)
    }

    fn int(&mut self, e: &Expr, what: &str) -> Result<i64, AccessError> {
        self.eval(e).map_err(|why| {
            AccessError::NotConcrete(match why {
                NoValue::Free(v) => format!("{what} depends on `{v}`, which has no value here"),
                NoValue::DataDependent(b) => {
                    format!("{what} depends on data (it reads `{b}`)")
                }
                NoValue::NotInteger => format!("{what} is not an integer"),
            })
        })
    }

    fn walk(&mut self, s: &Stmt) -> Result<(), AccessError> {
        match s.kind() {
            StmtKind::For(f) => self.walk_for(s, f),
            StmtKind::BlockRealize(r) => {
                let block = &r.block;
                let mut bound = Vec::new();
                for (iv, value) in block.iter_vars.iter().zip(&r.iter_values) {
                    let v = self.int(value, &format!("block `{}`'s binding", block.name))?;
                    bound.push((iv.var.id(), self.env.insert(iv.var.id(), v)));
                }
                let result = self.walk_block(r);
                for (var, old) in bound.into_iter().rev() {
                    restore(&mut self.env, var, old);
                }
                result
            }
            StmtKind::Store {
                buffer,
                value,
                indices,
            } => {
                if !self.recording {
                    return Ok(());
                }
                self.loads_in(value)?;
                for i in indices {
                    self.loads_in(i)?;
                }
                self.access(buffer, indices, true)
            }
            StmtKind::Evaluate(e) => {
                if self.recording {
                    self.loads_in(e)?;
                }
                Ok(())
            }
            StmtKind::Let { var, value, body } => {
                if self.recording {
                    self.loads_in(value)?;
                }
                match self.eval(value) {
                    Ok(v) => {
                        let old = self.env.insert(var.id(), v);
                        let result = self.walk(body);
                        restore(&mut self.env, var.id(), old);
                        result
                    }
                    // A value that is not an index (a float, a load): any
                    // index using it fails when evaluated.
                    Err(_) => self.walk(body),
                }
            }
            StmtKind::If {
                cond,
                then,
                otherwise,
            } => {
                if self.recording {
                    self.loads_in(cond)?;
                }
                match self.eval(cond) {
                    Ok(c) if self.recording => match (c != 0, otherwise) {
                        (true, _) => self.walk(then),
                        (false, Some(o)) => self.walk(o),
                        (false, None) => Ok(()),
                    },
                    // Outside the unit (on the way to the chosen loop) or
                    // data-dependent: both sides may run.
                    _ => {
                        self.walk(then)?;
                        match otherwise {
                            Some(o) => self.walk(o),
                            None => Ok(()),
                        }
                    }
                }
            }
            StmtKind::Seq(items) => items.iter().try_for_each(|x| self.walk(x)),
            StmtKind::Allocate { buffer, body } => {
                self.register(buffer);
                self.walk(body)
            }
        }
    }

    fn walk_for(&mut self, s: &Stmt, f: &For) -> Result<(), AccessError> {
        let name = f.loop_var.name();
        let min = self.int(&f.min, &format!("the start of loop `{name}`"))?;
        let extent = self.int(&f.extent, &format!("the extent of loop `{name}`"))?;
        let id = s.node_id();
        let var = f.loop_var.id();
        // A loop on the way to the chosen one: at its minimum (or at its
        // thread axis's value); the chosen one at its iteration.
        if !self.recording {
            if !self.path.contains(&id) {
                return Ok(());
            }
            if let Some((chosen, at)) = self.chosen.filter(|(c, _)| *c == id) {
                let _ = chosen;
                self.chosen_range = Some((min, extent));
                if at < 0 || at >= extent {
                    return Ok(());
                }
                let old = self.env.insert(var, min + at);
                self.recording = true;
                self.tick()?;
                let result = self.walk(&f.body);
                self.recording = false;
                restore(&mut self.env, var, old);
                return result;
            }
            let value = match self.thread_value(f) {
                Some(v) => v,
                None => min,
            };
            let old = self.env.insert(var, value);
            let old_axis = self.bind_axis(f, value);
            let result = self.walk(&f.body);
            self.unbind_axis(f, old_axis);
            restore(&mut self.env, var, old);
            return result;
        }
        // Inside the unit: a thread axis with a value runs once (if in
        // range), anything else runs every iteration.
        if let Some(v) = self.thread_value(f) {
            if v < min || v >= min + extent {
                return Ok(());
            }
            let old = self.env.insert(var, v);
            self.tick()?;
            let result = self.walk(&f.body);
            restore(&mut self.env, var, old);
            return result;
        }
        let old = self.env.get(&var).copied();
        for i in min..min + extent {
            self.env.insert(var, i);
            let old_axis = self.bind_axis(f, i);
            self.tick()?;
            let result = self.walk(&f.body);
            self.unbind_axis(f, old_axis);
            if result.is_err() {
                restore(&mut self.env, var, old);
                return result;
            }
        }
        restore(&mut self.env, var, old);
        Ok(())
    }

    /// The value of the thread axis a loop is bound to, when the axis has one.
    fn thread_value(&self, f: &For) -> Option<i64> {
        match (f.kind, &f.thread_tag) {
            (ForKind::ThreadBinding, Some(tag)) => self.threads.get(tag).copied(),
            _ => None,
        }
    }

    /// Gives a thread-bound loop's axis `value` for the loops inside.
    fn bind_axis(&mut self, f: &For, value: i64) -> Option<Option<i64>> {
        match (f.kind, &f.thread_tag) {
            (ForKind::ThreadBinding, Some(tag)) => Some(self.threads.insert(tag.clone(), value)),
            _ => None,
        }
    }

    fn unbind_axis(&mut self, f: &For, old: Option<Option<i64>>) {
        if let (Some(old), Some(tag)) = (old, &f.thread_tag) {
            match old {
                Some(v) => self.threads.insert(tag.clone(), v),
                None => self.threads.remove(tag),
            };
        }
    }

    fn walk_block(&mut self, r: &compiler_core::ir::BlockRealize) -> Result<(), AccessError> {
        let block = &r.block;
        if self.recording {
            let pred = self.int(&r.predicate, &format!("block `{}`'s predicate", block.name))?;
            if pred == 0 {
                return Ok(());
            }
        }
        for b in &block.alloc_buffers {
            self.register(b);
        }
        let mut matched = Vec::new();
        for m in &block.match_buffers {
            let mut offsets = Vec::new();
            for range in &m.source.region {
                offsets.push(self.int(
                    &range.min,
                    &format!("the region matched to `{}`", m.buffer.name),
                )?);
            }
            matched.push(m.buffer.id());
            self.matched
                .insert(m.buffer.id(), (m.source.buffer.clone(), offsets));
        }
        // The init runs once per output element: at the first iteration of
        // every reduction axis.
        if let (Some(init), true) = (&block.init, self.recording) {
            let mut first = true;
            for iv in block
                .iter_vars
                .iter()
                .filter(|iv| iv.kind == IterKind::Reduce)
            {
                let min = self.int(&iv.dom.min, &format!("block `{}`'s domain", block.name))?;
                first &= self.env.get(&iv.var.id()) == Some(&min);
            }
            if first {
                self.walk(init)?;
            }
        }
        let result = self.walk(&block.body);
        for id in matched {
            self.matched.remove(&id);
        }
        result
    }

    /// Records the loads of `e` (both sides of a `Select`, the taken side
    /// of `if_then_else` when its condition has a value).
    fn loads_in(&mut self, e: &Expr) -> Result<(), AccessError> {
        match e.kind() {
            ExprKind::Load { buffer, indices } => self.access(buffer, indices, false),
            ExprKind::Call {
                op: Intrinsic::IfThenElse,
                args,
            } if args.len() == 3 => {
                self.loads_in(&args[0])?;
                match self.eval(&args[0]) {
                    Ok(c) => self.loads_in(&args[if c != 0 { 1 } else { 2 }]),
                    Err(_) => {
                        self.loads_in(&args[1])?;
                        self.loads_in(&args[2])
                    }
                }
            }
            ExprKind::Let { var, value, body } => {
                self.loads_in(value)?;
                match self.eval(value) {
                    Ok(v) => {
                        let old = self.env.insert(var.id(), v);
                        let result = self.loads_in(body);
                        restore(&mut self.env, var.id(), old);
                        result
                    }
                    Err(_) => self.loads_in(body),
                }
            }
            _ => {
                let mut result = Ok(());
                e.for_each_child(|x| {
                    if result.is_ok() {
                        result = self.loads_in(x);
                    }
                });
                result
            }
        }
    }

    fn access(
        &mut self,
        buffer: &Buffer,
        indices: &[Expr],
        store: bool,
    ) -> Result<(), AccessError> {
        let mut index = Vec::with_capacity(indices.len());
        for i in indices {
            index.push(self.int(i, &format!("an index of `{}`", buffer.name))?);
        }
        // A matched buffer is a view of its source: count the source.
        let mut target = buffer.clone();
        if let Some((source, offsets)) = self.matched.get(&buffer.id()) {
            let skip = offsets.len().saturating_sub(index.len());
            let mut full = offsets.clone();
            for (slot, i) in full[skip..].iter_mut().zip(&index) {
                *slot += i;
            }
            index = full;
            target = source.clone();
        }
        let slot = self.register(&target);
        let tally = &mut self.tallies[slot];
        let Some(shape) = &tally.shape else {
            return Err(AccessError::NotConcrete(format!(
                "the shape of `{}` is not constant",
                target.name
            )));
        };
        let offset = flatten(shape, &index);
        if store {
            tally.stores += 1;
        } else {
            tally.loads += 1;
        }
        match (offset, store) {
            (Some(o), true) => {
                tally.writes.insert(o);
            }
            (Some(o), false) => {
                tally.reads.insert(o);
            }
            (None, _) => tally.out_of_bounds += 1,
        }
        Ok(())
    }
}

/// An integer expression's value (index arithmetic as the reference
/// interpreter does it).
fn eval(env: &mut HashMap<VarId, i64>, e: &Expr) -> Result<i64, NoValue> {
    Ok(match e.kind() {
        ExprKind::Int(v) => *v,
        ExprKind::Var(v) => *env
            .get(&v.id())
            .ok_or_else(|| NoValue::Free(v.name().to_string()))?,
        ExprKind::Binary(op, a, b) => {
            let (a, b) = (eval(env, a)?, eval(env, b)?);
            match op {
                BinOp::Add => a.wrapping_add(b),
                BinOp::Sub => a.wrapping_sub(b),
                BinOp::Mul => a.wrapping_mul(b),
                BinOp::Div => a.checked_div(b).ok_or(NoValue::NotInteger)?,
                BinOp::Mod => a.checked_rem(b).ok_or(NoValue::NotInteger)?,
                BinOp::FloorDiv => floordiv_i64(a, b).ok_or(NoValue::NotInteger)?,
                BinOp::FloorMod => floormod_i64(a, b).ok_or(NoValue::NotInteger)?,
                BinOp::Min => a.min(b),
                BinOp::Max => a.max(b),
            }
        }
        ExprKind::Cmp(op, a, b) => {
            let (a, b) = (eval(env, a)?, eval(env, b)?);
            i64::from(match op {
                CmpOp::Eq => a == b,
                CmpOp::Ne => a != b,
                CmpOp::Lt => a < b,
                CmpOp::Le => a <= b,
                CmpOp::Gt => a > b,
                CmpOp::Ge => a >= b,
            })
        }
        ExprKind::And(a, b) => i64::from(eval(env, a)? != 0 && eval(env, b)? != 0),
        ExprKind::Or(a, b) => i64::from(eval(env, a)? != 0 || eval(env, b)? != 0),
        ExprKind::Not(a) => i64::from(eval(env, a)? == 0),
        ExprKind::Select {
            cond,
            then,
            otherwise,
        } => {
            if eval(env, cond)? != 0 {
                eval(env, then)?
            } else {
                eval(env, otherwise)?
            }
        }
        ExprKind::Call {
            op: Intrinsic::IfThenElse,
            args,
        } if args.len() == 3 => {
            if eval(env, &args[0])? != 0 {
                eval(env, &args[1])?
            } else {
                eval(env, &args[2])?
            }
        }
        ExprKind::Cast(a) if e.dtype().is_bool() => i64::from(eval(env, a)? != 0),
        ExprKind::Cast(a) if e.dtype().is_int() || e.dtype().is_uint() => eval(env, a)?,
        ExprKind::Load { buffer, .. } => return Err(NoValue::DataDependent(buffer.name.clone())),
        ExprKind::Let { var, value, body } => {
            let v = eval(env, value)?;
            let old = env.insert(var.id(), v);
            let result = eval(env, body);
            restore(env, var.id(), old);
            return result;
        }
        _ => return Err(NoValue::NotInteger),
    })
}

fn restore(env: &mut HashMap<VarId, i64>, var: VarId, old: Option<i64>) {
    match old {
        Some(v) => env.insert(var, v),
        None => env.remove(&var),
    };
}
