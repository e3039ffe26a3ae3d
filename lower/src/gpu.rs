//! GPU lowering: scheduled TensorIR with `blockIdx.*`/`threadIdx.*`-bound
//! loops → a list of kernels, each in the low-level form (TVM:
//! `LowerCrossThreadReduction`, `SplitHostDevice`, `CompactBufferAllocation`,
//! `LowerThreadAllreduce`).
//!
//! The steps, reusing the CPU pipeline's passes:
//!
//! 0. [`allreduce`](super::allreduce) — cross-thread reductions: a reduction
//!    block whose reduce loops are bound to `threadIdx.*` becomes each
//!    invocation's partial (in a `local` accumulator), a shared-memory tree
//!    over the workgroup's invocations (barriers from step 5), and one
//!    write-back; shapes that cannot be made race-free are errors naming
//!    the block, as is a reduce loop bound to `blockIdx.*`.
//! 1. [`blocks`](super::blocks) — blocks → statements; the thread-bound loops
//!    come back as thread-bound loops (the CPU pipeline runs them serially).
//! 2. Host/device split — each top-level thread-bound loop nest is a kernel;
//!    kernels run in program order. Inside a kernel every loop bound to the
//!    same tag is the same hardware index: the first loop's variable stands
//!    for all of them, and the launch loops move to the kernel's top
//!    (`blockIdx.z/y/x`, then `threadIdx.z/y/x`). A loop bound with a smaller
//!    extent than its tag's kernel-wide extent runs under `if idx < extent`.
//!    Top-level statements outside any kernel are an error naming the loop
//!    to bind.
//! 3. Compaction — a `shared` or `local` buffer is allocated inside each
//!    kernel that uses it, shrunk to the region its accesses span below the
//!    innermost loop enclosing all of them (`local`: per invocation;
//!    `shared`: per workgroup, so `threadIdx` ranges too), and its indices
//!    are rebased. `global` allocations between kernels stay buffers the
//!    runtime allocates ([`GpuFunc::temps`]).
//! 4. Per kernel: [`flatten`](super::flatten), [`simplify`](super::simplify),
//!    [`vectorize`](super::vectorize), [`unroll`](super::unroll), simplify.
//! 5. Barriers ([`insert_syncs`]): `T.tvm_storage_sync("shared")` before a
//!    statement that reads shared data other invocations wrote since the
//!    last barrier (or overwrites data they may still read), and at the end
//!    of a loop body whose next iteration would.

use std::collections::{HashMap, HashSet};

use super::util::{self, cast};
use super::{allreduce, blocks, flatten, simplify, unroll, vectorize};
use super::{LowerError, LowerOptions, LoweringReport, Result};
use tessel_tir::arith::int_set::eval_interval;
use tessel_tir::arith::Analyzer;
use tessel_tir::diag::Span;
use tessel_tir::ir::mutate::{self, substitute_stmt, Mutator};
use tessel_tir::ir::visit::BufferAccesses;
use tessel_tir::ir::{
    BinOp, Buffer, BufferId, CmpOp, Expr, ExprKind, For, ForKind, PrimFunc, Range, Stmt, StmtKind,
    Var, VarId,
};

pub use crate::LAUNCH_TAGS;

/// One launch axis of a kernel.
#[derive(Clone, Debug)]
pub struct LaunchAxis {
    /// `blockIdx.x`, `threadIdx.y`, …
    pub tag: String,
    /// The variable that holds the index in the kernel body.
    pub var: Var,
    pub extent: i64,
    /// The loops bound to this tag, by name (for messages).
    pub loops: Vec<String>,
    pub span: Span,
}

impl LaunchAxis {
    pub fn is_block(&self) -> bool {
        self.tag.starts_with("blockIdx")
    }
    /// 0 for `.x`, 1 for `.y`, 2 for `.z`.
    pub fn dim(&self) -> usize {
        match self.tag.as_bytes().last() {
            Some(b'y') => 1,
            Some(b'z') => 2,
            _ => 0,
        }
    }
}

/// One kernel: the launch axes and the body every invocation runs.
#[derive(Clone, Debug)]
pub struct GpuKernel {
    pub name: String,
    /// Outermost first (the order of [`LAUNCH_TAGS`]); only the axes used.
    pub launch: Vec<LaunchAxis>,
    /// Low-level form: flat buffers; `shared`/`local` buffers inside
    /// [`StmtKind::Allocate`]s; no launch loops.
    pub body: Stmt,
}

impl GpuKernel {
    pub fn axis(&self, tag: &str) -> Option<&LaunchAxis> {
        self.launch.iter().find(|a| a.tag == tag)
    }
    /// The extent of `blockIdx.<d>` / `threadIdx.<d>` (1 when unbound).
    pub fn extent(&self, block: bool, dim: usize) -> i64 {
        self.launch
            .iter()
            .find(|a| a.is_block() == block && a.dim() == dim)
            .map_or(1, |a| a.extent)
    }
    /// The kernel as one statement: its launch loops around the body.
    pub fn to_stmt(&self) -> Stmt {
        let mut s = self.body.clone();
        for a in self.launch.iter().rev() {
            s = Stmt::new(
                StmtKind::For(For {
                    loop_var: a.var.clone(),
                    min: Expr::int(0, a.var.dtype()),
                    extent: Expr::int(a.extent, a.var.dtype()),
                    kind: ForKind::ThreadBinding,
                    thread_tag: Some(a.tag.clone()),
                    annotations: Default::default(),
                    body: s,
                }),
                a.span,
            );
        }
        s
    }
}

/// A function lowered for a GPU.
#[derive(Clone, Debug)]
pub struct GpuFunc {
    pub name: String,
    /// The source function (parameters and buffer map are the kernels').
    pub func: PrimFunc,
    pub kernels: Vec<GpuKernel>,
    /// `global` buffers allocated between kernels (flat).
    pub temps: Vec<Buffer>,
    pub report: LoweringReport,
}

impl GpuFunc {
    /// The kernels in order as one function (the UI's "lowered" view).
    pub fn to_prim_func(&self) -> PrimFunc {
        let mut body = Stmt::seq(self.kernels.iter().map(GpuKernel::to_stmt).collect());
        for t in self.temps.iter().rev() {
            body = Stmt::from_kind(StmtKind::Allocate {
                buffer: t.clone(),
                body,
            });
        }
        self.func.with_body(body)
    }
}

fn is_launch_tag(tag: &str) -> bool {
    LAUNCH_TAGS.contains(&tag)
}

/// Lowers `func` for a GPU target (see the module docs).
pub fn lower_func_gpu(name: &str, func: &PrimFunc, opts: &LowerOptions) -> Result<GpuFunc> {
    let source = func;
    let mut report = LoweringReport::default();
    let func = &func.with_body(allreduce::lower_cross_thread_reductions(func, &mut report)?);
    // Thread-bound loops by variable, before `blocks` turns them serial.
    let mut tags: HashMap<VarId, String> = HashMap::new();
    func.body.walk(&mut |s| {
        if let StmtKind::For(l) = s.kind() {
            if l.kind == ForKind::ThreadBinding {
                if let Some(t) = &l.thread_tag {
                    if is_launch_tag(t) {
                        tags.insert(l.loop_var.id(), t.clone());
                    }
                }
            }
        }
    });
    let body = blocks::lower_blocks(func, opts.serialize_thread_bindings, &mut report)?;
    report
        .notes
        .retain(|n| !(n.contains("runs as a serial loop on the CPU") && is_launch_note(n)));
    let body = retag(&body, &tags);

    let mut split = Splitter {
        kernels: Vec::new(),
        temps: Vec::new(),
        name: name.to_string(),
    };
    split.host(&body, &[])?;

    let mut kernels = Vec::new();
    for (i, (k, allocs)) in split.kernels.into_iter().enumerate() {
        let kname = format!("{name}_kernel{i}");
        kernels.push(finish_kernel(func, kname, k, &allocs, opts, &mut report)?);
    }
    let mut temps = Vec::new();
    for t in &split.temps {
        let flat = flatten::flatten(
            func,
            &Stmt::from_kind(StmtKind::Allocate {
                buffer: t.clone(),
                body: Stmt::evaluate_zero(),
            }),
        )?;
        if let StmtKind::Allocate { buffer, .. } = flat.kind() {
            temps.push(buffer.clone());
        }
    }
    for k in &kernels {
        let grid: Vec<i64> = (0..3).map(|d| k.extent(true, d)).collect();
        let wg: Vec<i64> = (0..3).map(|d| k.extent(false, d)).collect();
        report.note(format!(
            "kernel {}: grid ({}, {}, {}) of workgroups ({}, {}, {})",
            k.name, grid[0], grid[1], grid[2], wg[0], wg[1], wg[2]
        ));
    }
    Ok(GpuFunc {
        name: name.to_string(),
        func: source.clone(),
        kernels,
        temps,
        report,
    })
}

fn is_launch_note(n: &str) -> bool {
    LAUNCH_TAGS
        .iter()
        .any(|t| n.contains(&format!("bound to {t} ")))
}

/// Gives the thread-bound loops `blocks` made serial their tags back.
fn retag(s: &Stmt, tags: &HashMap<VarId, String>) -> Stmt {
    struct R<'a>(&'a HashMap<VarId, String>);
    impl Mutator for R<'_> {
        fn stmt(&mut self, s: &Stmt) -> Stmt {
            let s = mutate::walk_stmt(self, s);
            if let StmtKind::For(l) = s.kind() {
                if let Some(t) = self.0.get(&l.loop_var.id()) {
                    let mut nl = l.clone();
                    nl.kind = ForKind::ThreadBinding;
                    nl.thread_tag = Some(t.clone());
                    return Stmt::new(StmtKind::For(nl), s.span());
                }
            }
            s
        }
    }
    R(tags).stmt(s)
}

fn launch_tag(l: &For) -> Option<&str> {
    match (&l.kind, &l.thread_tag) {
        (ForKind::ThreadBinding, Some(t)) if is_launch_tag(t) => Some(t),
        _ => None,
    }
}

fn contains_launch_loop(s: &Stmt) -> bool {
    let mut found = false;
    s.walk(&mut |x| {
        if let StmtKind::For(l) = x.kind() {
            found |= launch_tag(l).is_some();
        }
    });
    found
}

struct Splitter {
    /// Each kernel's root loop and the host-level allocations around it.
    kernels: Vec<(Stmt, Vec<Buffer>)>,
    temps: Vec<Buffer>,
    name: String,
}

impl Splitter {
    fn host(&mut self, s: &Stmt, allocs: &[Buffer]) -> Result<()> {
        match s.kind() {
            StmtKind::Seq(v) => {
                for x in v {
                    self.host(x, allocs)?;
                }
                Ok(())
            }
            StmtKind::Allocate { buffer, body } => {
                if buffer.scope == "global" || buffer.scope.is_empty() {
                    self.temps.push(buffer.clone());
                }
                let mut inner = allocs.to_vec();
                inner.push(buffer.clone());
                self.host(body, &inner)
            }
            StmtKind::Evaluate(e) if e.as_int().is_some() => Ok(()),
            StmtKind::For(l) if launch_tag(l).is_some() => {
                self.kernels.push((s.clone(), allocs.to_vec()));
                Ok(())
            }
            StmtKind::For(l) => {
                let what = if contains_launch_loop(&l.body) {
                    "encloses thread-bound loops but is not bound itself (kernels cannot run \
                     inside a host loop)"
                } else {
                    "is not bound to a GPU thread axis"
                };
                Err(LowerError::new(
                    format!(
                        "{}: loop {} {what}; bind it, e.g. sch.bind({}, \"blockIdx.x\") after a \
                         split whose inner loop is bound to \"threadIdx.x\"",
                        self.name,
                        l.loop_var.name(),
                        l.loop_var.name()
                    ),
                    s.span(),
                ))
            }
            _ => Err(LowerError::new(
                format!(
                    "{}: a statement outside every thread-bound loop would run on the host; \
                     bind its loops to blockIdx/threadIdx",
                    self.name
                ),
                s.span(),
            )),
        }
    }
}

/// Collects the launch loops of a kernel per tag and removes them.
struct Canon {
    axes: Vec<LaunchAxis>,
    error: Option<LowerError>,
}

impl Canon {
    fn collect(&mut self, s: &Stmt) {
        s.walk(&mut |x| {
            if let StmtKind::For(l) = x.kind() {
                if let Some(tag) = launch_tag(l) {
                    let Some(n) = l.extent.as_int() else {
                        self.error.get_or_insert(LowerError::new(
                            format!(
                                "loop {} bound to {tag} has a non-constant extent; GPU launch \
                                 sizes must be constants",
                                l.loop_var.name()
                            ),
                            x.span(),
                        ));
                        return;
                    };
                    match self.axes.iter_mut().find(|a| a.tag == tag) {
                        Some(a) => {
                            a.extent = a.extent.max(n);
                            if !a.loops.iter().any(|x| x == l.loop_var.name()) {
                                a.loops.push(l.loop_var.name().to_string());
                            }
                        }
                        None => self.axes.push(LaunchAxis {
                            tag: tag.to_string(),
                            var: l.loop_var.clone(),
                            extent: n,
                            loops: vec![l.loop_var.name().to_string()],
                            span: x.span(),
                        }),
                    }
                }
            }
        });
    }
}

impl Mutator for Canon {
    fn stmt(&mut self, s: &Stmt) -> Stmt {
        let s = mutate::walk_stmt(self, s);
        let StmtKind::For(l) = s.kind() else {
            return s;
        };
        let Some(tag) = launch_tag(l) else {
            return s;
        };
        let Some(axis) = self.axes.iter().find(|a| a.tag == tag) else {
            return s;
        };
        let v = axis.var.to_expr();
        let idx = if l.min.is_const_int(0) {
            v.clone()
        } else {
            util::add(&cast(&v, l.loop_var.dtype()), &l.min)
        };
        let mut map = HashMap::new();
        map.insert(l.loop_var.id(), cast(&idx, l.loop_var.dtype()));
        let body = substitute_stmt(&l.body, &map);
        if l.extent.as_int() == Some(axis.extent) {
            body
        } else {
            Stmt::new(
                StmtKind::If {
                    cond: Expr::cmp(CmpOp::Lt, v, cast(&l.extent, axis.var.dtype())),
                    then: body,
                    otherwise: None,
                },
                s.span(),
            )
        }
    }
}

fn finish_kernel(
    func: &PrimFunc,
    name: String,
    root: Stmt,
    host_allocs: &[Buffer],
    opts: &LowerOptions,
    report: &mut LoweringReport,
) -> Result<GpuKernel> {
    let mut c = Canon {
        axes: Vec::new(),
        error: None,
    };
    c.collect(&root);
    if let Some(e) = c.error {
        return Err(e);
    }
    let mut body = c.stmt(&root);
    if let Some(e) = c.error.take() {
        return Err(e);
    }
    let mut axes = c.axes;
    tessel_ir::sort::by_key(&mut axes, |a| LAUNCH_TAGS.iter().position(|t| *t == a.tag));

    // Scratch buffers the kernel uses, allocated inside it and compacted.
    for b in host_allocs.iter().rev() {
        if b.scope == "global" || b.scope.is_empty() {
            continue;
        }
        if util::stmt_touches(&body, &b.data) || mentions(&body, b) {
            body = Stmt::from_kind(StmtKind::Allocate {
                buffer: b.clone(),
                body,
            });
        }
    }
    let body = compact(&body, &axes, report)?;

    // The per-kernel pipeline, with the launch loops around it so the
    // analyzer knows their ranges.
    let mut k = GpuKernel {
        name,
        launch: axes,
        body,
    };
    let s = k.to_stmt();
    let s = flatten::flatten(func, &s)?;
    let s = simplify::simplify(func, &s);
    let s = vectorize::vectorize(&s, opts.vector_bytes, opts.auto_vectorize, report)?;
    let s = unroll::unroll(&s, opts.max_unroll, report)?;
    let s = simplify::simplify(func, &s);
    // Peel the launch loops again (simplify drops unit ones).
    let mut s = s;
    loop {
        let next = match s.kind() {
            StmtKind::For(l) if k.launch.iter().any(|a| a.var == l.loop_var) => l.body.clone(),
            _ => break,
        };
        s = next;
    }
    k.body = insert_syncs(&s);
    Ok(k)
}

fn mentions(s: &Stmt, b: &Buffer) -> bool {
    let mut found = false;
    s.walk(&mut |x| {
        if let StmtKind::Store { buffer, .. } = x.kind() {
            found |= buffer == b;
        }
        x.for_each_expr(|e| {
            e.walk(&mut |y| {
                if let ExprKind::Load { buffer, .. } = y.kind() {
                    found |= buffer == b;
                }
            })
        });
    });
    found
}

/// One access of a buffer: its indices and the loops around it.
struct Access {
    indices: Vec<Expr>,
    loops: Vec<(Var, Range)>,
}

fn collect_accesses(s: &Stmt, b: &Buffer, loops: &mut Vec<(Var, Range)>, out: &mut Vec<Access>) {
    let in_exprs = |e: &Expr, loops: &Vec<(Var, Range)>, out: &mut Vec<Access>| {
        e.walk(&mut |y| {
            if let ExprKind::Load { buffer, indices } = y.kind() {
                if buffer == b {
                    out.push(Access {
                        indices: indices.clone(),
                        loops: loops.clone(),
                    });
                }
            }
        })
    };
    match s.kind() {
        StmtKind::For(l) => {
            in_exprs(&l.min, loops, out);
            in_exprs(&l.extent, loops, out);
            loops.push((
                l.loop_var.clone(),
                Range::new(l.min.clone(), l.extent.clone()),
            ));
            collect_accesses(&l.body, b, loops, out);
            loops.pop();
        }
        StmtKind::Store {
            buffer,
            value,
            indices,
        } => {
            in_exprs(value, loops, out);
            for i in indices {
                in_exprs(i, loops, out);
            }
            if buffer == b {
                out.push(Access {
                    indices: indices.clone(),
                    loops: loops.clone(),
                });
            }
        }
        _ => {
            s.for_each_expr(|e| in_exprs(e, loops, out));
            s.for_each_child(|c| collect_accesses(c, b, loops, out));
        }
    }
}

/// Shrinks each `shared`/`local` allocation of a kernel body to the region
/// its accesses span (see the module docs).
fn compact(body: &Stmt, axes: &[LaunchAxis], report: &mut LoweringReport) -> Result<Stmt> {
    let mut allocs: Vec<Buffer> = Vec::new();
    body.walk(&mut |s| {
        if let StmtKind::Allocate { buffer, .. } = s.kind() {
            if buffer.scope == "shared" || buffer.scope == "local" {
                allocs.push(buffer.clone());
            }
        }
    });
    let mut map: HashMap<BufferId, (Buffer, Vec<Expr>)> = HashMap::new();
    let ana = {
        let mut a = Analyzer::new();
        for ax in axes {
            a.bind_range(&ax.var, 0, ax.extent);
        }
        a
    };
    for b in allocs {
        let mut acc = Vec::new();
        collect_accesses(body, &b, &mut Vec::new(), &mut acc);
        if acc.is_empty() {
            continue;
        }
        // Loops enclosing every access stay fixed; the others range.
        let common = acc.iter().map(|a| a.loops.len()).min().unwrap_or(0);
        let mut prefix = 0;
        while prefix < common
            && acc
                .iter()
                .all(|a| a.loops[prefix].0 == acc[0].loops[prefix].0)
        {
            prefix += 1;
        }
        let mut mins: Vec<Expr> = Vec::new();
        let mut shape: Vec<Expr> = Vec::new();
        let mut changed = false;
        for d in 0..b.ndim() {
            let mut lo_all: Option<Expr> = None;
            let mut hi_all: Option<Expr> = None;
            let mut ok = true;
            for a in &acc {
                let mut dom: HashMap<VarId, Range> = a.loops[prefix..]
                    .iter()
                    .map(|(v, r)| (v.id(), r.clone()))
                    .collect();
                if b.scope == "shared" {
                    for ax in axes.iter().filter(|a| !a.is_block()) {
                        dom.insert(
                            ax.var.id(),
                            Range::new(
                                Expr::int(0, ax.var.dtype()),
                                Expr::int(ax.extent, ax.var.dtype()),
                            ),
                        );
                    }
                }
                let Some(i) = a.indices.get(d) else {
                    ok = false;
                    break;
                };
                let Some((lo, hi)) = eval_interval(&ana, i, &dom) else {
                    ok = false;
                    break;
                };
                let (nlo, nhi) = match (lo_all.take(), hi_all.take()) {
                    (Some(pl), Some(ph)) => {
                        match (const_diff(&ana, &lo, &pl), const_diff(&ana, &hi, &ph)) {
                            (Some(a), Some(b)) => {
                                (if a < 0 { lo } else { pl }, if b > 0 { hi } else { ph })
                            }
                            _ => {
                                ok = false;
                                break;
                            }
                        }
                    }
                    _ => (lo, hi),
                };
                lo_all = Some(nlo);
                hi_all = Some(nhi);
            }
            let (Some(lo), Some(hi)) = (lo_all, hi_all) else {
                mins.push(Expr::int(0, b.shape[d].dtype()));
                shape.push(b.shape[d].clone());
                continue;
            };
            let extent = const_diff(&ana, &hi, &lo).map(|x| x + 1);
            let whole = b.shape[d].as_int();
            match (ok, extent) {
                (true, Some(n)) if whole.is_none_or(|w| n < w) && n > 0 => {
                    changed = true;
                    mins.push(lo);
                    shape.push(Expr::int(n, b.shape[d].dtype()));
                }
                _ => {
                    mins.push(Expr::int(0, b.shape[d].dtype()));
                    shape.push(b.shape[d].clone());
                }
            }
        }
        if !changed {
            continue;
        }
        let shape_text: Vec<String> = shape
            .iter()
            .map(|e| e.as_int().map_or("?".into(), |n| n.to_string()))
            .collect();
        report.note(format!(
            "{} buffer {} compacted to [{}] (the region one {} uses)",
            b.scope,
            b.name,
            shape_text.join(", "),
            if b.scope == "shared" {
                "workgroup"
            } else {
                "invocation"
            }
        ));
        let nb = b.derive(|n| {
            n.shape = shape;
            n.strides = Vec::new();
            n.elem_offset = Expr::i32(0);
        });
        map.insert(b.id(), (nb, mins));
    }
    if map.is_empty() {
        return Ok(body.clone());
    }
    struct Rebase<'a>(&'a HashMap<BufferId, (Buffer, Vec<Expr>)>);
    impl Rebase<'_> {
        fn idx(&self, mins: &[Expr], indices: &[Expr]) -> Vec<Expr> {
            indices
                .iter()
                .zip(mins)
                .map(|(i, m)| {
                    if m.is_const_int(0) {
                        i.clone()
                    } else {
                        Expr::binary(BinOp::Sub, i.clone(), cast(m, i.dtype()))
                    }
                })
                .collect()
        }
    }
    impl Mutator for Rebase<'_> {
        fn expr(&mut self, e: &Expr) -> Expr {
            let e = mutate::walk_expr(self, e);
            if let ExprKind::Load { buffer, indices } = e.kind() {
                if let Some((nb, mins)) = self.0.get(&buffer.id()) {
                    return Expr::new(
                        ExprKind::Load {
                            buffer: nb.clone(),
                            indices: self.idx(mins, indices),
                        },
                        e.dtype(),
                        e.span(),
                    );
                }
            }
            e
        }
        fn stmt(&mut self, s: &Stmt) -> Stmt {
            let s = mutate::walk_stmt(self, s);
            match s.kind() {
                StmtKind::Store {
                    buffer,
                    value,
                    indices,
                } => match self.0.get(&buffer.id()) {
                    Some((nb, mins)) => Stmt::new(
                        StmtKind::Store {
                            buffer: nb.clone(),
                            value: value.clone(),
                            indices: self.idx(mins, indices),
                        },
                        s.span(),
                    ),
                    None => s,
                },
                StmtKind::Allocate { buffer, body } => match self.0.get(&buffer.id()) {
                    Some((nb, _)) => Stmt::new(
                        StmtKind::Allocate {
                            buffer: nb.clone(),
                            body: body.clone(),
                        },
                        s.span(),
                    ),
                    None => s,
                },
                _ => s,
            }
        }
    }
    Ok(Rebase(&map).stmt(body))
}

/// `a - b` when it simplifies to a constant.
fn const_diff(ana: &Analyzer, a: &Expr, b: &Expr) -> Option<i64> {
    let dt = util::wider(a.dtype(), b.dtype());
    ana.simplify(&Expr::binary(BinOp::Sub, cast(a, dt), cast(b, dt)))
        .as_int()
}

/// Buffers a statement reads and writes (by data variable), for callers
/// that analyse kernels.
pub fn buffers_touched(s: &Stmt) -> (HashSet<VarId>, HashSet<VarId>) {
    let accesses = BufferAccesses::of_stmt(s);
    let data_ids =
        |buffers: &[tessel_tir::ir::Buffer]| buffers.iter().map(|b| b.data.id()).collect();
    (data_ids(&accesses.loaded), data_ids(&accesses.stored))
}

/// The statement a `workgroupBarrier()` is written as in lowered TIR
/// (TVM's `T.tvm_storage_sync("shared")`).
pub fn sync_stmt() -> Stmt {
    Stmt::from_kind(StmtKind::Evaluate(Expr::call(
        tessel_tir::ir::Intrinsic::Other("tvm_storage_sync".into()),
        vec![Expr::new(
            ExprKind::Str("shared".into()),
            tessel_tir::ir::DataType::handle(),
            Span::default(),
        )],
        tessel_tir::ir::DataType::i32(),
    )))
}

/// Whether `s` is the statement [`sync_stmt`] builds.
pub fn is_sync(s: &Stmt) -> bool {
    matches!(s.kind(), StmtKind::Evaluate(e) if matches!(e.kind(),
        ExprKind::Call { op: tessel_tir::ir::Intrinsic::Other(n), .. } if n == "tvm_storage_sync"))
}

/// One access of a shared buffer: data variable, flat indices, write?
#[derive(Clone)]
struct SAccess {
    data: VarId,
    indices: Vec<Expr>,
    write: bool,
}

fn shared_accesses(s: &Stmt, shared: &HashSet<VarId>, out: &mut Vec<SAccess>) {
    s.walk(&mut |x| {
        if let StmtKind::Store {
            buffer, indices, ..
        } = x.kind()
        {
            if shared.contains(&buffer.data.id()) {
                out.push(SAccess {
                    data: buffer.data.id(),
                    indices: indices.clone(),
                    write: true,
                });
            }
        }
        x.for_each_expr(|e| {
            e.walk(&mut |y| {
                if let ExprKind::Load { buffer, indices } = y.kind() {
                    if shared.contains(&buffer.data.id()) {
                        out.push(SAccess {
                            data: buffer.data.id(),
                            indices: indices.clone(),
                            write: false,
                        });
                    }
                }
            })
        });
    });
}

/// Whether `later` may touch what another invocation did in `earlier`
/// (read after write or write after read of the same shared buffer at an
/// index that is not provably this invocation's own).
fn conflicts(earlier: &[SAccess], later: &[SAccess]) -> bool {
    earlier.iter().any(|a| {
        later.iter().any(|b| {
            a.data == b.data
                && (a.write != b.write)
                && !(a.indices.len() == b.indices.len()
                    && a.indices
                        .iter()
                        .zip(&b.indices)
                        .all(|(x, y)| tessel_tir::arith::expr_deep_equal(x, y)))
        })
    })
}

fn internal_conflict(s: &Stmt, shared: &HashSet<VarId>) -> bool {
    let mut acc = Vec::new();
    shared_accesses(s, shared, &mut acc);
    let (w, r): (Vec<SAccess>, Vec<SAccess>) = acc.into_iter().partition(|a| a.write);
    conflicts(&w, &r)
}

/// Inserts a barrier where shared data written by some invocations is read
/// by others, or overwritten while others may still read it (TVM's
/// `ThreadSync` for the shared scope), including across loop iterations.
pub fn insert_syncs(body: &Stmt) -> Stmt {
    let mut shared = HashSet::new();
    body.walk(&mut |s| {
        if let StmtKind::Allocate { buffer, .. } = s.kind() {
            if buffer.scope == "shared" {
                shared.insert(buffer.data.id());
            }
        }
    });
    if shared.is_empty() {
        return body.clone();
    }
    let mut pending = Vec::new();
    sync_stmt_rec(body, &shared, &mut pending)
}

fn sync_stmt_rec(s: &Stmt, shared: &HashSet<VarId>, pending: &mut Vec<SAccess>) -> Stmt {
    let span = s.span();
    match s.kind() {
        StmtKind::Seq(v) => {
            let mut out = Vec::new();
            for x in v {
                let mut acc = Vec::new();
                shared_accesses(x, shared, &mut acc);
                if conflicts(pending, &acc) {
                    out.push(sync_stmt());
                    pending.clear();
                }
                if internal_conflict(x, shared) {
                    out.push(sync_stmt_rec(x, shared, pending));
                } else {
                    pending.extend(acc);
                    out.push(x.clone());
                }
            }
            Stmt::seq(out)
        }
        StmtKind::Allocate { buffer, body } => Stmt::new(
            StmtKind::Allocate {
                buffer: buffer.clone(),
                body: sync_stmt_rec(body, shared, pending),
            },
            span,
        ),
        StmtKind::Let { var, value, body } => Stmt::new(
            StmtKind::Let {
                var: var.clone(),
                value: value.clone(),
                body: sync_stmt_rec(body, shared, pending),
            },
            span,
        ),
        StmtKind::For(l) if internal_conflict(&l.body, shared) => {
            let body = sync_stmt_rec(&l.body, shared, pending);
            // Loop-carried: the accesses before the body's first barrier
            // against those after its last one.
            let items = body.as_slice();
            let mut head = Vec::new();
            for x in items {
                if is_sync(x) {
                    break;
                }
                shared_accesses(x, shared, &mut head);
            }
            let body = if conflicts(pending, &head) {
                pending.clear();
                let mut v = items.to_vec();
                v.push(sync_stmt());
                Stmt::seq(v)
            } else {
                body
            };
            let mut nl = l.clone();
            nl.body = body;
            Stmt::new(StmtKind::For(nl), span)
        }
        StmtKind::If {
            cond,
            then,
            otherwise,
        } => Stmt::new(
            StmtKind::If {
                cond: cond.clone(),
                then: sync_stmt_rec(then, shared, pending),
                otherwise: otherwise
                    .as_ref()
                    .map(|o| sync_stmt_rec(o, shared, pending)),
            },
            span,
        ),
        _ => {
            let mut acc = Vec::new();
            shared_accesses(s, shared, &mut acc);
            if conflicts(pending, &acc) {
                pending.clear();
                pending.extend(acc);
                return Stmt::seq(vec![sync_stmt(), s.clone()]);
            }
            pending.extend(acc);
            s.clone()
        }
    }
}
