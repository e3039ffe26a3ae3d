//! `compute_at` and `reverse_compute_at`: move a block under a loop of
//! another stage and regenerate the loops it needs there.
//!
//! `sch.compute_at(block, loop)` moves a producer under a loop of its
//! consumers; the new loops cover, per iteration of `loop`, the region the
//! consumers below `loop` read. `sch.reverse_compute_at(block, loop)` moves a
//! consumer under a loop of its producers; the new loops cover the region the
//! producers below `loop` write. Both follow TVM 0.27 step by step:
//!
//! 1. checks: the scope is a stage pipeline; the block is complete or a
//!    reduction block; block and loop share the scope and the loop does not
//!    enclose the block; (compute_at) the block is not an output block;
//! 2. the block's old place is removed (with its loops up to the first
//!    ancestor that has other children);
//! 3. the insertion point under `loop`: after every producer and before
//!    every consumer found among the statements of the loop body (all
//!    consumers, for compute_at, or all producers, for reverse_compute_at,
//!    must be there);
//! 4. the *provided* region (what one instance of the block writes / reads)
//!    and the *required* region (what the consumers read / the producers
//!    write per iteration of `loop`, relaxing the loops between them and
//!    `loop` — and, for compute_at into `shared`/`warp` buffers, the thread
//!    loops whose threads share that memory);
//! 5. the domain of each block iterator: by inverting the provided indices
//!    when they are a bijective affine map of the iterators, else dimension
//!    by dimension (`v`, `v * c`, `v // c`, `v % c`);
//! 6. one loop `ax<k>` per iterator whose domain is not a single point
//!    (unless `preserve_unit_loops`), bindings `min + ax<k>`, and a `T.where`
//!    predicate where the domain runs past the iterator's range or the
//!    buffer's shape.

use std::collections::HashMap;

use super::menu::{MenuArg, MenuEntry, MenuSite, MenuTarget, MenuWhen};
use super::primitives::{param, Args, Param, ParamType as T, Primitive, Returns};
use super::replay::SchedValue;
use super::scope::{self, Scope};
use super::tree::{self, StmtPath};
use super::*;
use tessel_tir::arith::{detect_iter_map, Analyzer, IterMap, MarkSource};

/// An integer interval `[min, max]` with symbolic ends (`None`: infinite),
/// or the empty set.
#[derive(Clone, Debug)]
enum ISet {
    Nothing,
    Iv(Option<Expr>, Option<Expr>),
}

impl ISet {
    fn interval(min: Expr, max: Expr) -> ISet {
        ISet::Iv(Some(min), Some(max))
    }
    fn is_nothing(&self) -> bool {
        matches!(self, ISet::Nothing)
    }
    fn min(&self) -> Option<&Expr> {
        match self {
            ISet::Iv(a, _) => a.as_ref(),
            ISet::Nothing => None,
        }
    }
    fn max(&self) -> Option<&Expr> {
        match self {
            ISet::Iv(_, b) => b.as_ref(),
            ISet::Nothing => None,
        }
    }
    /// `[range.min, range.min + range.extent - 1]` (a point for extent 1).
    fn from_range(r: &Range) -> ISet {
        if r.extent.is_const_int(1) {
            return ISet::interval(r.min.clone(), r.min.clone());
        }
        ISet::interval(r.min.clone(), last_of(&r.min, &r.extent))
    }
    fn simplified(&self, ana: &Analyzer) -> ISet {
        match self {
            ISet::Nothing => ISet::Nothing,
            ISet::Iv(a, b) => ISet::Iv(
                a.as_ref().map(|e| ana.simplify(e)),
                b.as_ref().map(|e| ana.simplify(e)),
            ),
        }
    }
}

/// `min + extent - 1`, folding constants the way TVM's operators do.
fn last_of(min: &Expr, extent: &Expr) -> Expr {
    if let (Some(a), Some(b)) = (min.as_int(), extent.as_int()) {
        return Expr::int(a.saturating_add(b).saturating_sub(1), min.dtype());
    }
    let Some((min, extent)) = widen(min, extent) else {
        return min.clone();
    };
    let dt = min.dtype();
    Expr::binary(
        BinOp::Sub,
        Expr::binary(BinOp::Add, extent, min),
        Expr::int(1, dt),
    )
}

/// Two integers in the wider of their dtypes, as TVM's operators promote
/// (`None` for other mixes).
fn widen(a: &Expr, b: &Expr) -> Option<(Expr, Expr)> {
    let (ta, tb) = (a.dtype(), b.dtype());
    if ta == tb {
        return Some((a.clone(), b.clone()));
    }
    if !(ta.is_int() && tb.is_int() && ta.is_scalar() && tb.is_scalar()) {
        return None;
    }
    let dt = if ta.bits >= tb.bits { ta } else { tb };
    Some((int_as(a, dt), int_as(b, dt)))
}

/// An integer expression in `dt` (constants folded).
fn int_as(e: &Expr, dt: DataType) -> Expr {
    match e.as_int() {
        Some(v) => Expr::int(v, dt),
        None => Expr::cast(dt, e.clone()),
    }
}

fn min_expr(a: &Expr, b: &Expr) -> Expr {
    let (a, b) = widen(a, b).unwrap_or_else(|| (a.clone(), b.clone()));
    Expr::binary(BinOp::Min, a, b)
}
fn max_expr(a: &Expr, b: &Expr) -> Expr {
    let (a, b) = widen(a, b).unwrap_or_else(|| (a.clone(), b.clone()));
    Expr::binary(BinOp::Max, a, b)
}

/// TVM's `arith::Union` of a list: the covering interval, simplified by a
/// fresh analyzer (a single set is returned as is).
fn union_all(sets: &[ISet]) -> ISet {
    if sets.len() == 1 {
        return sets[0].clone();
    }
    let mut acc = ISet::Nothing;
    for s in sets {
        acc = match (&acc, s) {
            (ISet::Nothing, x) | (x, ISet::Nothing) => x.clone(),
            (ISet::Iv(a0, a1), ISet::Iv(b0, b1)) => ISet::Iv(
                match (a0, b0) {
                    (Some(a), Some(b)) if widen(a, b).is_some() => Some(min_expr(a, b)),
                    _ => None,
                },
                match (a1, b1) {
                    (Some(a), Some(b)) if widen(a, b).is_some() => Some(max_expr(a, b)),
                    _ => None,
                },
            ),
        };
    }
    acc.simplified(&Analyzer::new())
}

/// TVM's `arith::Intersect` of two sets, simplified by a fresh analyzer.
fn intersect(a: &ISet, b: &ISet) -> ISet {
    let (ISet::Iv(a0, a1), ISet::Iv(b0, b1)) = (a, b) else {
        return ISet::Nothing;
    };
    let lo = match (a0, b0) {
        (Some(x), Some(y)) if widen(x, y).is_some() => Some(max_expr(x, y)),
        (Some(x), _) => Some(x.clone()),
        (None, y) => y.clone(),
    };
    let hi = match (a1, b1) {
        (Some(x), Some(y)) if widen(x, y).is_some() => Some(min_expr(x, y)),
        (Some(x), _) => Some(x.clone()),
        (None, y) => y.clone(),
    };
    if let (Some(l), Some(h)) = (
        lo.as_ref().and_then(|e| e.as_int()),
        hi.as_ref().and_then(|e| e.as_int()),
    ) {
        if h < l {
            return ISet::Nothing;
        }
    }
    ISet::Iv(lo, hi).simplified(&Analyzer::new())
}

/// The domain of one block iterator: `dom` must be covered; `bound` is a
/// constraint the iterator must also satisfy (turned into a predicate).
#[derive(Clone, Debug)]
struct VarDomain {
    dom: ISet,
    bound: ISet,
}

impl VarDomain {
    fn empty() -> VarDomain {
        VarDomain {
            dom: ISet::Nothing,
            bound: ISet::Nothing,
        }
    }
    fn union(&mut self, other: &VarDomain) {
        self.dom = union_all(&[self.dom.clone(), other.dom.clone()]);
        self.bound = union_all(&[self.bound.clone(), other.bound.clone()]);
    }
    /// TVM's `BlockVarDomainInfo::Simplify`.
    fn simplify(&mut self, ana: &Analyzer) {
        if self.dom.is_nothing() {
            if let ISet::Iv(Some(_), Some(_)) = &self.bound {
                self.dom = self.bound.simplified(ana);
                self.bound = ISet::Nothing;
            }
            return;
        }
        self.dom = self.dom.simplified(ana);
        self.bound = self.bound.simplified(ana);
        let inter = intersect(&self.dom, &self.bound).simplified(ana);
        let eq = |a: Option<&Expr>, b: Option<&Expr>| match (a, b) {
            (Some(a), Some(b)) => ana.can_prove_equal(a, b),
            (None, None) => true,
            _ => false,
        };
        if eq(self.dom.min(), inter.min()) && eq(self.dom.max(), inter.max()) {
            self.bound = ISet::Nothing;
        } else if eq(self.bound.min(), inter.min()) && eq(self.bound.max(), inter.max()) {
            self.dom = self.bound.clone();
            self.bound = ISet::Nothing;
        } else if inter.min().is_some_and(|e| e.as_int().is_some())
            && inter.max().is_some_and(|e| e.as_int().is_some())
        {
            self.dom = inter;
            self.bound = ISet::Nothing;
        }
    }
}

/// Per buffer dimension, an interval.
type NdSet = Vec<ISet>;

fn nd_union(sets: &[NdSet]) -> NdSet {
    let ndim = sets.first().map(|s| s.len()).unwrap_or(0);
    (0..ndim)
        .map(|d| {
            let col: Vec<ISet> = sets.iter().filter_map(|s| s.get(d).cloned()).collect();
            union_all(&col)
        })
        .collect()
}

/// Where a storage scope's memory is shared: 0 global, 1 shared, 2 warp,
/// 3 local, 4 anything more private (wmma fragments, …).
fn storage_rank(scope: &str) -> u8 {
    let base = scope.split('.').next().unwrap_or("");
    match base {
        "" | "global" => 0,
        "shared" => 1,
        "warp" => 2,
        "local" => 3,
        _ => 4,
    }
}

/// Whether memory of `storage` rank is shared by the threads of `tag`, so a
/// region computed for one thread must be relaxed over that thread loop.
fn can_relax_under_thread(storage: u8, tag: &str) -> bool {
    let (rank, dim) = if tag.starts_with("vthread") || tag == "cthread" {
        (1u8, -1i32)
    } else if let Some(d) = tag.strip_prefix("blockIdx.") {
        (
            0,
            d.bytes().next().map(|c| c as i32 - 'x' as i32).unwrap_or(0),
        )
    } else if let Some(d) = tag.strip_prefix("threadIdx.") {
        (
            1,
            d.bytes().next().map(|c| c as i32 - 'x' as i32).unwrap_or(0),
        )
    } else {
        return false;
    };
    if storage == 2 {
        return rank == 1 && dim == 0;
    }
    storage <= rank
}

/// `compute_at` and `reverse_compute_at` share parameters.
const COMPUTE_AT_PARAMS: &[Param] = &[
    param("block", T::Block),
    param("loop", T::Loop),
    param("preserve_unit_loops", T::Bool)
        .or_bool(false)
        .attr_bool_as_int(),
    param("index", T::Int).or_int(-1).attr(),
];

fn apply_compute_at(sch: &mut Schedule, args: &Args, is_compute_at: bool) -> Result<SchedValue> {
    sch.compute_at_concrete(
        is_compute_at,
        args.block("block")?,
        args.loop_rv("loop")?,
        args.bool("preserve_unit_loops")?,
        args.int("index")?,
    )?;
    Ok(SchedValue::None)
}

/// `sch.compute_at(b, l)` for a block chosen from the menu's list.
fn menu_call(method: &str, site: &MenuSite, block: &str) -> Option<String> {
    Some(format!(
        "sch.{method}({}, {})",
        site.block_ref(block.trim()),
        site.loop_name()?
    ))
}

pub(super) const COMPUTE_AT: Primitive = Primitive {
    method: "compute_at",
    aliases: &[],
    kind: "ComputeAt",
    params: COMPUTE_AT_PARAMS,
    returns: Returns::Nothing,
    traced: true,
    apply: |sch, args| apply_compute_at(sch, args, true),
    menu: Some(MenuEntry {
        target: MenuTarget::Loop,
        help: "move a producer block under this loop",
        arg: MenuArg::OtherBlock,
        when: MenuWhen::HasOtherBlocks,
        call: |site, block| menu_call("compute_at", site, block),
    }),
};

pub(super) const REVERSE_COMPUTE_AT: Primitive = Primitive {
    method: "reverse_compute_at",
    aliases: &[],
    kind: "ReverseComputeAt",
    params: COMPUTE_AT_PARAMS,
    returns: Returns::Nothing,
    traced: true,
    apply: |sch, args| apply_compute_at(sch, args, false),
    menu: Some(MenuEntry {
        target: MenuTarget::Loop,
        help: "move a consumer block under this loop",
        arg: MenuArg::OtherBlock,
        when: MenuWhen::HasOtherBlocks,
        call: |site, block| menu_call("reverse_compute_at", site, block),
    }),
};

impl Schedule {
    /// `sch.compute_at(block, loop, preserve_unit_loops=False, index=-1)`.
    pub fn compute_at(
        &mut self,
        block: BlockRV,
        loop_rv: LoopRV,
        preserve_unit_loops: bool,
        index: i64,
    ) -> Result<()> {
        let args = vec![
            block.into(),
            loop_rv.into(),
            preserve_unit_loops.into(),
            index.into(),
        ];
        self.apply_traced(&COMPUTE_AT, Args::typed(&COMPUTE_AT, args))?;
        Ok(())
    }

    /// `sch.reverse_compute_at(block, loop, preserve_unit_loops=False, index=-1)`.
    pub fn reverse_compute_at(
        &mut self,
        block: BlockRV,
        loop_rv: LoopRV,
        preserve_unit_loops: bool,
        index: i64,
    ) -> Result<()> {
        let args = vec![
            block.into(),
            loop_rv.into(),
            preserve_unit_loops.into(),
            index.into(),
        ];
        self.apply_traced(&REVERSE_COMPUTE_AT, Args::typed(&REVERSE_COMPUTE_AT, args))?;
        Ok(())
    }

    pub(super) fn compute_at_concrete(
        &mut self,
        is_compute_at: bool,
        block_rv: BlockRV,
        loop_rv: LoopRV,
        preserve_unit_loops: bool,
        index: i64,
    ) -> Result<()> {
        let p: &str = if is_compute_at {
            "compute-at"
        } else {
            "reverse-compute-at"
        };
        // The locations `sample_compute_location` may pick besides loops.
        match self.special_loop(loop_rv) {
            Some(SpecialLoop::Root) => {
                self.resolve_block(p, block_rv)?;
                return Ok(());
            }
            Some(SpecialLoop::Inline) => {
                return if is_compute_at {
                    self.compute_inline_concrete(block_rv)
                } else {
                    self.reverse_compute_inline_concrete(block_rv)
                };
            }
            None => {}
        }
        let (block_path, realize) = self.resolve_block(p, block_rv)?;
        let (loop_path, loop_node) = self.resolve_loop(p, loop_rv)?;
        let body = self.body(p)?;
        let block = &realize.block;

        // Step 1. Checks.
        let scope = Scope::of_block(p, &body, &block_path)?;
        scope.check_stage_pipeline(p, &body)?;
        let bi = scope
            .blocks
            .iter()
            .position(|(path, _)| *path == block_path)
            .ok_or_else(|| ScheduleError::internal(p, "internal: the block is not in its scope"))?;
        let producers = scope.producers(bi);
        let consumers = scope.consumers(bi);
        scope.check_complete_or_reduction(p, &body, bi)?;
        let mut ana = Analyzer::new();
        let chain = tree::chain(&body, &loop_path);
        let same_scope = scope.path.is_prefix_of(&loop_path)
            && loop_path.0.len() > scope.path.0.len()
            && (scope.path.0.len() + 1..chain.len())
                .all(|d| !matches!(chain[d].kind(), StmtKind::BlockRealize(_)));
        if !same_scope || loop_path.is_prefix_of(&block_path) {
            return Err(ScheduleError::loop_structure(
                p,
                format!(
                    "Expected the block `{}` and loop `{}` to be under the same block scope, and loop not to be the ancestor of block",
                    block.name,
                    loop_node.loop_var.name()
                ),
            )
            .at(loop_path));
        }
        // The loops above the new nest, symbolic ranges included.
        let mut loop_dom: HashMap<VarId, Range> = HashMap::new();
        for d in (scope.path.0.len() + 1..chain.len()).rev() {
            if let StmtKind::For(l) = chain[d].kind() {
                let range = Range::new(l.min.clone(), l.extent.clone());
                ana.bind(&l.loop_var, &range);
                loop_dom.insert(l.loop_var.id(), range);
            }
        }
        if is_compute_at {
            scope.check_not_output(p, bi)?;
        }

        // Step 2. Where the block is removed from.
        let rm_path = scope::leaf_removal_path(p, &body, &block_path, &scope)?;

        // Step 3. The insertion point among the statements of the loop body.
        let subtrees: Vec<Stmt> = loop_node.body.as_slice().to_vec();
        let related = RelatedBlocks {
            scope: &scope,
            producers: &producers,
            consumers: &consumers,
        };
        let placement = scan_subtrees(&related, &loop_path, &loop_node);
        let insert_at =
            check_insertion_point(p, is_compute_at, &related, &placement, &loop_path, index)?;

        // Step 4. Provided and required regions.
        let provided = provided_regions(if is_compute_at {
            &block.writes
        } else {
            &block.reads
        });
        let required_blocks = if is_compute_at {
            &consumers
        } else {
            &producers
        };
        let required = required_regions(
            is_compute_at,
            &body,
            &chain,
            &loop_path,
            &placement.found,
            required_blocks,
            &provided,
        );

        // Step 5. The domain of each block iterator.
        let doms = block_var_domains(p, block, &provided, &required, &ana)?;

        // Step 6. The new loop nest.
        let (new_subtree, new_loop_vars) =
            make_new_loops(p, &realize, &doms, &mut ana, loop_dom, preserve_unit_loops)?;
        let mut items = subtrees.clone();
        let at = (insert_at.max(0) as usize).min(items.len());
        items.insert(at, new_subtree);
        let new_loop = Stmt::new(
            StmtKind::For(For {
                body: Stmt::seq(items),
                ..loop_node.clone()
            }),
            tree::get(&body, &loop_path)
                .map(|s| s.span())
                .unwrap_or_default(),
        );
        let removed_loops: Vec<VarId> = super::query::enclosing_loops(&body, &block_path)
            .iter()
            .filter(|(lp, _)| rm_path.is_prefix_of(lp))
            .map(|(_, l)| l.loop_var.id())
            .collect();
        let new_body = tree::replace(&body, &loop_path, new_loop);
        let new_body = scope::remove_seq_item(&new_body, &rm_path);
        self.set_body(p, new_body)?;
        for v in removed_loops {
            self.remove_loop_rvs(v);
        }
        let _ = new_loop_vars;
        Ok(())
    }
}

/// The block's scope and the indices in it of the block's producers and
/// consumers.
struct RelatedBlocks<'a> {
    scope: &'a Scope,
    producers: &'a [usize],
    consumers: &'a [usize],
}

/// Where the producers and consumers lie among the statements of the loop
/// body.
struct SubtreePlacement {
    /// The scope's blocks under the loop, by index in the scope.
    found: HashMap<usize, (StmtPath, BlockRealize)>,
    /// The last statement holding a producer, or -1.
    last_producer: i64,
    /// The first statement holding a consumer, or the statement count.
    first_consumer: i64,
    /// How many producers and consumers lie under the loop.
    n_prod: usize,
    n_cons: usize,
}

/// Looks at the statements of the loop body one by one for the block's
/// producers and consumers.
fn scan_subtrees(
    related: &RelatedBlocks,
    loop_path: &StmtPath,
    loop_node: &For,
) -> SubtreePlacement {
    let subtrees = loop_node.body.as_slice();
    let body_is_seq = matches!(loop_node.body.kind(), StmtKind::Seq(_));
    let mut found: HashMap<usize, (StmtPath, BlockRealize)> = HashMap::new();
    let mut last_producer: i64 = -1;
    let mut first_consumer: i64 = subtrees.len() as i64;
    let (mut n_prod, mut n_cons) = (0usize, 0usize);
    for (i, sub) in subtrees.iter().enumerate() {
        let mut base = loop_path.child(0);
        if body_is_seq {
            base = base.child(i);
        }
        let mut blocks = Vec::new();
        collect_blocks(sub, &mut base.0.clone(), &mut blocks);
        let (mut has_p, mut has_c) = (false, false);
        for (path, r) in blocks {
            let Some(si) = related.scope.blocks.iter().position(|(sp, _)| *sp == path) else {
                continue;
            };
            if related.producers.contains(&si) {
                n_prod += 1;
                has_p = true;
            }
            if related.consumers.contains(&si) {
                n_cons += 1;
                has_c = true;
            }
            found.insert(si, (path, r));
        }
        if has_p {
            last_producer = i as i64;
        }
        if has_c && first_consumer == subtrees.len() as i64 {
            first_consumer = i as i64;
        }
    }
    SubtreePlacement {
        found,
        last_producer,
        first_consumer,
        n_prod,
        n_cons,
    }
}

/// The order checks: the producers all come before the consumers, the ones
/// the primitive needs are all under the loop, and `index` lies between
/// them. Returns the position of the new nest.
fn check_insertion_point(
    p: &str,
    is_compute_at: bool,
    related: &RelatedBlocks,
    placement: &SubtreePlacement,
    loop_path: &StmtPath,
    index: i64,
) -> Result<i64> {
    let SubtreePlacement {
        last_producer,
        first_consumer,
        n_prod,
        n_cons,
        ..
    } = *placement;
    if last_producer >= first_consumer {
        return Err(ScheduleError::dependency(
            p,
            format!(
                "Cannot find the insertion point that satisfies the producer-consumer constraint. In 0-based indexing, the last producer appears in subtree {last_producer}, and the first consumer appears in subtree {first_consumer}"
            ),
        )
        .at(loop_path.clone()));
    }
    let not_visited = |relation: &str, required: &[usize], n_visited: usize| {
        let names: Vec<String> = required
            .iter()
            .map(|&i| format!("`{}`", related.scope.name(i)))
            .collect();
        ScheduleError::dependency(
            p,
            format!(
                "The primitive requires all the {relation} of the given block to be present under the target loop. However, there are {} {relation} not satisfying the constraint. List of the {relation}: {}",
                required.len().saturating_sub(n_visited),
                names.join(", ")
            ),
        )
    };
    if !is_compute_at && n_prod < related.producers.len() {
        return Err(not_visited("producer(s)", related.producers, n_prod).at(loop_path.clone()));
    }
    if is_compute_at && n_cons < related.consumers.len() {
        return Err(not_visited("consumer(s)", related.consumers, n_cons).at(loop_path.clone()));
    }
    match index {
        -1 => Ok(first_consumer),
        -2 => Ok(last_producer + 1),
        i if i > last_producer && i <= first_consumer => Ok(i),
        i => Err(ScheduleError::dependency(
            p,
            format!(
                "Valid index:(-1, -2, [{}, {}]), current index={i}",
                last_producer + 1,
                first_consumer
            ),
        )),
    }
}

/// The regions the block provides, grouped by buffer in first-seen order.
fn provided_regions(provided_list: &[BufferRegion]) -> Vec<(Buffer, Vec<NdSet>)> {
    let mut provided: Vec<(Buffer, Vec<NdSet>)> = Vec::new();
    for br in provided_list {
        let nd: NdSet = br.region.iter().map(ISet::from_range).collect();
        match provided.iter_mut().find(|(b, _)| *b == br.buffer) {
            Some((_, v)) => v.push(nd),
            None => provided.push((br.buffer.clone(), vec![nd])),
        }
    }
    provided
}

/// The regions of the provided buffers that the required blocks under the
/// loop access, relaxed over the loops between them and the loop (and, for
/// shared memory, the thread loops around it).
fn required_regions(
    is_compute_at: bool,
    body: &Stmt,
    chain: &[Stmt],
    loop_path: &StmtPath,
    found: &HashMap<usize, (StmtPath, BlockRealize)>,
    required_blocks: &[usize],
    provided: &[(Buffer, Vec<NdSet>)],
) -> HashMap<BufferId, Vec<NdSet>> {
    let mut required: HashMap<BufferId, Vec<NdSet>> = HashMap::new();
    for si in required_blocks {
        let Some((rpath, rreal)) = found.get(si) else {
            continue;
        };
        let binding: HashMap<VarId, Expr> = rreal
            .block
            .iter_vars
            .iter()
            .zip(&rreal.iter_values)
            .map(|(iv, v)| (iv.var.id(), v.clone()))
            .collect();
        let regions = if is_compute_at {
            &rreal.block.reads
        } else {
            &rreal.block.writes
        };
        let base_dom: HashMap<VarId, Range> = scope::loops_below(body, rpath, loop_path)
            .iter()
            .map(|l| (l.loop_var.id(), Range::new(l.min.clone(), l.extent.clone())))
            .collect();
        for br in regions {
            if !provided.iter().any(|(b, _)| *b == br.buffer) {
                continue;
            }
            let mut dom = base_dom.clone();
            let rank = if is_compute_at {
                storage_rank(&br.buffer.scope)
            } else {
                0
            };
            if rank != 0 {
                // Threads sharing this memory: relax their loops too.
                for s in chain {
                    if let StmtKind::For(l) = s.kind() {
                        if l.kind == ForKind::ThreadBinding
                            && can_relax_under_thread(rank, l.thread_tag.as_deref().unwrap_or(""))
                        {
                            dom.insert(
                                l.loop_var.id(),
                                Range::new(l.min.clone(), l.extent.clone()),
                            );
                        }
                    }
                }
            }
            let relaxed = scope::relax_region(br, &binding, &dom);
            let nd: NdSet = relaxed
                .into_iter()
                .map(|(lo, hi)| ISet::interval(lo, hi))
                .collect();
            required.entry(br.buffer.id()).or_default().push(nd);
        }
    }
    required
}

/// Block realizes under `s` (not looking inside blocks), with their paths.
fn collect_blocks(s: &Stmt, path: &mut Vec<usize>, out: &mut Vec<(StmtPath, BlockRealize)>) {
    if let StmtKind::BlockRealize(r) = s.kind() {
        out.push((StmtPath(path.clone()), r.clone()));
        return;
    }
    for (i, c) in tree::children(s).iter().enumerate() {
        path.push(i);
        collect_blocks(c, path, out);
        path.pop();
    }
}

/// TVM's `CanProve(.., kSymbolicBound)`: besides the ordinary proof,
/// `a < b` (`a >= b`) holds when the lower end of `b - a` (`a - b`) over the
/// loops' symbolic ranges is at least 1 (0): `k_0 * 32 + ax0 < n * 32` with
/// `k_0 < n`, `ax0 < 32`.
fn can_prove_symbolic_bound(ana: &Analyzer, cond: &Expr, dom: &HashMap<VarId, Range>) -> bool {
    if ana.can_prove(cond) {
        return true;
    }
    let (diff, least) = match cond.kind() {
        ExprKind::Cmp(CmpOp::Lt, a, b) => (Expr::binary(BinOp::Sub, b.clone(), a.clone()), 1),
        ExprKind::Cmp(CmpOp::Ge, a, b) => (Expr::binary(BinOp::Sub, a.clone(), b.clone()), 0),
        _ => return false,
    };
    tessel_tir::arith::int_set::eval_interval(ana, &ana.simplify(&diff), dom)
        .and_then(|(lo, _)| ana.const_int_bound(&ana.simplify(&lo)))
        .is_some_and(|(min, _)| min >= least)
}

/// TVM's `CalculateBlockVarDomain`.
fn block_var_domains(
    p: &str,
    block: &Block,
    provided: &[(Buffer, Vec<NdSet>)],
    required: &HashMap<BufferId, Vec<NdSet>>,
    ana: &Analyzer,
) -> Result<Vec<VarDomain>> {
    let mut doms: HashMap<VarId, VarDomain> = block
        .iter_vars
        .iter()
        .map(|iv| (iv.var.id(), VarDomain::empty()))
        .collect();
    for (buffer, many) in provided {
        let Some(req) = required.get(&buffer.id()) else {
            continue;
        };
        if req.is_empty() {
            continue;
        }
        let required_region = nd_union(req);
        let provided_region = nd_union(many);
        if required_region.len() != buffer.ndim() || provided_region.len() != buffer.ndim() {
            return Err(ScheduleError::region_coverage(
                p,
                format!(
                    "the regions of buffer `{}` do not match its rank",
                    buffer.name
                ),
            ));
        }
        if !update_affine(
            buffer,
            block,
            &provided_region,
            &required_region,
            ana,
            &mut doms,
        ) {
            update_dimwise(
                p,
                buffer,
                &provided_region,
                &required_region,
                ana,
                &mut doms,
            )?;
        }
    }
    let mut out = Vec::with_capacity(block.iter_vars.len());
    for iv in &block.iter_vars {
        let mut info = doms.remove(&iv.var.id()).unwrap_or_else(VarDomain::empty);
        let range_set = ISet::from_range(&iv.dom);
        info.bound = if info.bound.is_nothing() {
            range_set
        } else {
            intersect(&info.bound, &range_set)
        };
        info.simplify(ana);
        if info.dom.is_nothing() {
            return Err(ScheduleError::block_structure(
                p,
                format!(
                    "cannot determine the domain of block iterator `{}`",
                    iv.var.name()
                ),
            ));
        }
        out.push(info);
    }
    Ok(out)
}

fn is_point(s: &ISet, ana: &Analyzer) -> bool {
    match (s.min(), s.max()) {
        (Some(a), Some(b)) => ana.can_prove_equal(a, b),
        _ => false,
    }
}

/// The affine route: the provided indices are a bijective affine map of the
/// block iterators; inverting it at the required region's corners gives each
/// iterator's domain.
fn update_affine(
    buffer: &Buffer,
    block: &Block,
    provided: &NdSet,
    required: &NdSet,
    ana: &Analyzer,
    doms: &mut HashMap<VarId, VarDomain>,
) -> bool {
    if !provided.iter().all(|s| is_point(s, ana)) {
        return false;
    }
    let indices: Vec<Expr> = provided.iter().filter_map(|s| s.min().cloned()).collect();
    if indices.len() != provided.len() {
        return false;
    }
    let Some(map) = bijective_iter_map(&indices, &block.iter_vars) else {
        return false;
    };
    let mut req_min = Vec::new();
    let mut req_max = Vec::new();
    for s in required {
        match (s.min(), s.max()) {
            (Some(a), Some(b)) => {
                req_min.push(a.clone());
                req_max.push(b.clone());
            }
            _ => return false,
        }
    }
    let mut bound_min = Vec::new();
    let mut bound_max = Vec::new();
    for (e, index) in buffer.shape.iter().zip(&indices) {
        // The buffer's bounds in the dtype of the index into it.
        let dt = index.dtype();
        bound_min.push(Expr::int(0, dt));
        bound_max.push(Analyzer::new().simplify(&max_expr(
            &Expr::binary(BinOp::Sub, int_as(e, dt), Expr::int(1, dt)),
            &Expr::int(0, dt),
        )));
    }
    let (Some(mut dom_lo), Some(mut dom_hi), Some(mut b_lo), Some(mut b_hi)) = (
        inverse_iter_map(&map, &req_min),
        inverse_iter_map(&map, &req_max),
        inverse_iter_map(&map, &bound_min),
        inverse_iter_map(&map, &bound_max),
    ) else {
        return false;
    };
    // A unit iterator is an iterator too (TVM keeps trivial ones in the
    // map): one indexing a dimension alone spans that dimension's interval.
    for (d, index) in indices.iter().enumerate() {
        let Some(v) = index.as_var() else { continue };
        let unit = block
            .iter_vars
            .iter()
            .any(|iv| iv.var == *v && iv.dom.extent.is_const_int(1));
        if unit && indices.iter().filter(|e| e.uses_var(v)).count() == 1 {
            dom_lo.insert(v.id(), req_min[d].clone());
            dom_hi.insert(v.id(), req_max[d].clone());
            b_lo.insert(v.id(), bound_min[d].clone());
            b_hi.insert(v.id(), bound_max[d].clone());
        }
    }
    let to_set = |lo: &HashMap<VarId, Expr>, hi: &HashMap<VarId, Expr>, v: &VarId| -> ISet {
        match (lo.get(v), hi.get(v)) {
            (Some(a), Some(b)) if widen(a, b).is_some() => {
                ISet::interval(ana.simplify(&min_expr(a, b)), ana.simplify(&max_expr(a, b)))
            }
            _ => ISet::Nothing,
        }
    };
    for iv in &block.iter_vars {
        let id = iv.var.id();
        if !dom_lo.contains_key(&id) {
            continue;
        }
        let info = VarDomain {
            dom: to_set(&dom_lo, &dom_hi, &id),
            bound: to_set(&b_lo, &b_hi, &id),
        };
        if let Some(d) = doms.get_mut(&id) {
            d.union(&info);
        }
    }
    true
}

/// The indices as a bijective affine map of the block iterators (every
/// iterator of more than one value used exactly once), as TVM's
/// `DetectIterMap(..., Bijective)`.
pub(crate) fn bijective_iter_map(indices: &[Expr], iter_vars: &[IterVar]) -> Option<IterMap> {
    let ranges: Vec<(Var, Range)> = iter_vars
        .iter()
        .map(|iv| (iv.var.clone(), iv.dom.clone()))
        .collect();
    let map = detect_iter_map(indices, &ranges, &Expr::bool(true)).ok()?;
    let mut used: Vec<Var> = Vec::new();
    for i in 0..map.indices.len() {
        used.extend(map.vars_of(i));
    }
    for iv in iter_vars {
        if !iv.dom.extent.is_const_int(1) && !used.contains(&iv.var) {
            return None;
        }
    }
    Some(map)
}

/// TVM's `InverseAffineIterMap`: each block iterator as a function of the
/// index values `outputs`.
pub(crate) fn inverse_iter_map(map: &IterMap, outputs: &[Expr]) -> Option<HashMap<VarId, Expr>> {
    let mut mark_val: Vec<Option<Expr>> = vec![None; map.marks.len()];
    fn add(slot: &mut Option<Expr>, v: Expr) {
        *slot = Some(match slot.take() {
            None => v,
            Some(a) => Expr::binary(BinOp::Add, a, v),
        });
    }
    fn prop(
        sum: &tessel_tir::arith::IterSum,
        total: &Expr,
        mark_val: &mut [Option<Expr>],
    ) -> Option<()> {
        let dt = total.dtype();
        let input = if sum.base == 0 {
            total.clone()
        } else {
            Expr::binary(BinOp::Sub, total.clone(), Expr::int(sum.base, dt))
        };
        let n = sum.args.len();
        for (k, a) in sum.args.iter().enumerate() {
            let mut v = input.clone();
            if n > 1 {
                if a.scale != 1 {
                    v = Expr::binary(BinOp::FloorDiv, v, Expr::int(a.scale, dt));
                }
                if k > 0 {
                    v = Expr::binary(BinOp::FloorMod, v, Expr::int(a.extent, dt));
                }
            } else if a.scale != 1 {
                return None;
            }
            if a.lower_factor != 1 {
                v = Expr::binary(BinOp::Mul, v, Expr::int(a.lower_factor, dt));
            }
            add(mark_val.get_mut(a.mark)?, v);
        }
        Some(())
    }
    if outputs.len() != map.indices.len() {
        return None;
    }
    // TVM back-propagates in reverse topological order: the last index's
    // share of an iterator comes first in its sum.
    for (sum, out) in map.indices.iter().zip(outputs).rev() {
        prop(sum, out, &mut mark_val)?;
    }
    for m in (0..map.marks.len()).rev() {
        if let MarkSource::Fused(sum) = &map.marks[m].source {
            if let Some(v) = mark_val[m].clone() {
                prop(sum, &v, &mut mark_val)?;
            }
        }
    }
    let mut out = HashMap::new();
    for (m, mark) in map.marks.iter().enumerate() {
        if let (MarkSource::Var(v), Some(val)) = (&mark.source, &mark_val[m]) {
            out.insert(v.id(), val.clone());
        }
    }
    Some(out)
}

/// The dimension-by-dimension route (TVM's `UpdateBlockVarDomainDimwise`).
fn update_dimwise(
    p: &str,
    buffer: &Buffer,
    provided: &NdSet,
    required: &NdSet,
    ana: &Analyzer,
    doms: &mut HashMap<VarId, VarDomain>,
) -> Result<()> {
    for (d, (prov, req)) in provided.iter().zip(required).enumerate() {
        let Some(extent) = buffer.shape.get(d) else {
            continue;
        };
        let dt = prov.min().map_or(extent.dtype(), |e| e.dtype());
        let dim_max = Analyzer::new().simplify(&max_expr(
            &Expr::binary(BinOp::Sub, int_as(extent, dt), Expr::int(1, dt)),
            &Expr::int(0, dt),
        ));
        if is_point(prov, ana) && prov.min().is_some_and(|e| e.as_int().is_some()) {
            continue;
        }
        let (var, info) = solve_var_domain(p, prov, req, &dim_max, ana)?;
        if let Some(slot) = doms.get_mut(&var.id()) {
            slot.union(&info);
        }
    }
    Ok(())
}

/// TVM's `SolveBlockVarDomain`: the iterator a provided dimension is indexed
/// by, and the domain it needs to cover the required interval.
fn solve_var_domain(
    p: &str,
    provided: &ISet,
    required: &ISet,
    dim_max: &Expr,
    ana: &Analyzer,
) -> Result<(Var, VarDomain)> {
    let fail = |what: &Expr| {
        ScheduleError::region_coverage(
            p,
            format!("BufferRegion pattern match failed: {what:?} (the block's access to this dimension is not `v`, `c - v`, `v * c`, `v // c` or `v % c` of one block iterator)"),
        )
    };
    let (Some(pmin), Some(pmax)) = (provided.min(), provided.max()) else {
        return Err(ScheduleError::region_coverage(
            p,
            "unbounded provided region",
        ));
    };
    let pmin = ana.simplify(pmin);
    let pmax = ana.simplify(pmax);
    let rmin = required.min().map(|e| ana.simplify(e));
    let rmax = required.max().map(|e| ana.simplify(e));
    let dt = pmin.dtype();
    if let ExprKind::Binary(BinOp::Mul, a, b) = pmin.kind() {
        let (v, e) = match (a.as_var(), b.as_var()) {
            (Some(v), _) => (v, b),
            (_, Some(v)) => (v, a),
            _ => return Err(fail(&pmin)),
        };
        let fd = |x: &Option<Expr>| {
            x.as_ref()
                .map(|x| Expr::binary(BinOp::FloorDiv, x.clone(), e.clone()))
        };
        return Ok((
            v.clone(),
            VarDomain {
                dom: ISet::Iv(fd(&rmin), fd(&rmax)),
                bound: ISet::interval(
                    Expr::int(0, dt),
                    Expr::binary(BinOp::FloorDiv, dim_max.clone(), e.clone()),
                ),
            },
        ));
    }
    if !ana.can_prove_equal(&pmin, &pmax) {
        return Err(fail(&pmin));
    }
    if let Some(v) = pmin.as_var() {
        return Ok((
            v.clone(),
            VarDomain {
                dom: ISet::Iv(rmin, rmax),
                bound: ISet::interval(Expr::int(0, dt), dim_max.clone()),
            },
        ));
    }
    // A reversed index `c - v`: `v` covers `[c - rmax, c - rmin]`, and stays
    // where `0 <= c - v <= dim_max`.
    if let ExprKind::Binary(BinOp::Sub, c, x) = pmin.kind() {
        if let (Some(_), Some(v)) = (c.as_int(), x.as_var()) {
            let flip = |e: Option<Expr>| e.map(|e| Expr::binary(BinOp::Sub, c.clone(), e));
            return Ok((
                v.clone(),
                VarDomain {
                    dom: ISet::Iv(flip(rmax), flip(rmin)),
                    bound: ISet::interval(
                        Expr::binary(BinOp::Sub, c.clone(), dim_max.clone()),
                        c.clone(),
                    ),
                },
            ));
        }
    }
    match pmin.kind() {
        ExprKind::Binary(BinOp::FloorDiv, x, fac) if ana.can_prove_ge(fac, 1) => {
            let lo = rmin.map(|e| Expr::binary(BinOp::Mul, e, fac.clone()));
            let hi = rmax.map(|e| {
                ana.simplify(&Expr::binary(
                    BinOp::Sub,
                    Expr::binary(
                        BinOp::Add,
                        Expr::binary(BinOp::Mul, e, fac.clone()),
                        fac.clone(),
                    ),
                    Expr::int(1, dt),
                ))
            });
            if let Some(v) = x.as_var() {
                let bhi = ana.simplify(&Expr::binary(
                    BinOp::Sub,
                    Expr::binary(
                        BinOp::Add,
                        Expr::binary(BinOp::Mul, dim_max.clone(), fac.clone()),
                        fac.clone(),
                    ),
                    Expr::int(1, dt),
                ));
                return Ok((
                    v.clone(),
                    VarDomain {
                        dom: ISet::Iv(lo, hi),
                        bound: ISet::interval(Expr::int(0, dt), bhi),
                    },
                ));
            }
            solve_var_domain(
                p,
                &ISet::interval(x.clone(), x.clone()),
                &ISet::Iv(lo, hi),
                dim_max,
                ana,
            )
        }
        ExprKind::Binary(BinOp::FloorMod, x, m) => {
            if let Some(v) = x.as_var() {
                return Ok((v.clone(), VarDomain::empty()));
            }
            if ana.can_prove_ge(x, 1) && ana.can_prove_ge(m, 1) {
                if let Some(rmin) = rmin.filter(|e| ana.can_prove_ge(e, 0)) {
                    return solve_var_domain(
                        p,
                        &ISet::interval(x.clone(), x.clone()),
                        &ISet::Iv(Some(rmin), None),
                        dim_max,
                        ana,
                    );
                }
            }
            Err(fail(&pmin))
        }
        _ => Err(fail(&pmin)),
    }
}

/// TVM's `MakeNewLoop`: the loops and the realize of the moved block.
fn make_new_loops(
    p: &str,
    realize: &BlockRealize,
    doms: &[VarDomain],
    ana: &mut Analyzer,
    mut loop_dom: HashMap<VarId, Range>,
    preserve_unit_loops: bool,
) -> Result<(Stmt, Vec<Var>)> {
    let block = &realize.block;
    let mut loop_vars: Vec<Var> = Vec::new();
    let mut loop_extents: Vec<Expr> = Vec::new();
    let mut iter_values: Vec<Expr> = Vec::new();
    let mut predicate: Option<Expr> = None;
    let fresh = Analyzer::new();
    for (iv, info) in block.iter_vars.iter().zip(doms) {
        // CoverRange (with a fresh analyzer, as TVM does).
        let (min, extent) = match (info.dom.min(), info.dom.max()) {
            (Some(lo), Some(hi)) if widen(lo, hi).is_some() => {
                let (lo, hi) = widen(lo, hi).unwrap_or_else(|| (lo.clone(), hi.clone()));
                let lo_s = fresh.simplify(&lo);
                let ext = fresh.simplify(&Expr::binary(
                    BinOp::Sub,
                    Expr::binary(BinOp::Add, hi.clone(), Expr::int(1, hi.dtype())),
                    lo,
                ));
                (lo_s, ext)
            }
            _ => (iv.dom.min.clone(), iv.dom.extent.clone()),
        };
        let value = if preserve_unit_loops || !extent.is_const_int(1) {
            let bits = min.dtype().bits.max(extent.dtype().bits);
            let dt = DataType::int(bits);
            let var = Var::new(format!("ax{}", loop_vars.len()), dt);
            loop_extents.push(ana.simplify(&extent));
            let value = if min.is_const_int(0) {
                var.to_expr()
            } else if min.dtype() == dt {
                Expr::binary(BinOp::Add, min.clone(), var.to_expr())
            } else {
                Expr::binary(BinOp::Add, Expr::cast(dt, min.clone()), var.to_expr())
            };
            let range = Range::new(Expr::int(0, dt), Expr::cast(dt, extent.clone()));
            ana.bind(&var, &range);
            loop_dom.insert(var.id(), range);
            loop_vars.push(var);
            value
        } else {
            min.clone()
        };
        if let ISet::Iv(lo, hi) = &info.bound {
            // A bound the domain may run past becomes a predicate; one that
            // cannot be compared is refused rather than dropped.
            let typed = |e: &Expr| {
                widen(&value, e).ok_or_else(|| {
                    ScheduleError::unsupported(
                        p,
                        format!(
                            "cannot bound block iterator `{}`: mixed dtypes",
                            iv.var.name()
                        ),
                    )
                })
            };
            let mut conds = Vec::new();
            if let Some(lo) = lo {
                let (v, lo) = typed(lo)?;
                conds.push(Expr::cmp(CmpOp::Ge, v, lo));
            }
            if let Some(hi) = hi {
                let (v, hi) = typed(hi)?;
                let lim = match hi.as_int() {
                    Some(h) => Expr::int(h.saturating_add(1), hi.dtype()),
                    None => Expr::binary(BinOp::Add, hi.clone(), Expr::int(1, hi.dtype())),
                };
                conds.push(Expr::cmp(CmpOp::Lt, v, lim));
            }
            for c in conds {
                if !can_prove_symbolic_bound(ana, &c, &loop_dom) {
                    predicate = Some(match predicate {
                        None => c,
                        Some(pr) => Expr::and(pr, c),
                    });
                }
            }
        }
        iter_values.push(value);
    }
    let predicate = match predicate {
        None => Expr::bool(true),
        Some(pr) => ana.simplify(&pr),
    };
    if iter_values.len() != block.iter_vars.len() {
        return Err(ScheduleError::internal(
            p,
            "internal: iterator count mismatch",
        ));
    }
    let mut stmt = Stmt::from_kind(StmtKind::BlockRealize(BlockRealize {
        iter_values,
        predicate,
        block: block.clone(),
    }));
    for (v, e) in loop_vars.iter().zip(&loop_extents).rev() {
        stmt = Stmt::from_kind(StmtKind::For(For {
            loop_var: v.clone(),
            min: Expr::int(0, v.dtype()),
            extent: e.clone(),
            kind: ForKind::Serial,
            thread_tag: None,
            annotations: Annotations::new(),
            body: stmt,
        }));
    }
    Ok((stmt, loop_vars))
}
