//! The verifier: checks that a function is well-formed TensorIR and reports
//! every problem as a [`Diagnostic`] at the span of the offending node.
//!
//! Checks (TVM behaviour confirmed against Apache TVM 0.27 where noted):
//! - **scoping**: every variable used is defined in scope (parameter, symbolic
//!   shape variable of a parameter or match buffer, loop variable, block
//!   iterator, let binding); every buffer used is a parameter buffer, an
//!   allocation or a match buffer in scope. Inside a block that has iterators
//!   ("non-opaque"), loop variables from outside the block are not accessible,
//!   while outer block iterators are, and the block's own bindings and
//!   predicate are evaluated outside it (TVM's well-formedness check: "Loop
//!   iterator var i is defined outside of any block, but is used inside the
//!   non-opaque current block "C"");
//! - **single definition**: a variable or buffer is defined once (TVM: "multiple
//!   definitions of variable i");
//! - **dtypes**: operands of arithmetic and comparisons agree, conditions are
//!   bool, stored values match the buffer, loop variables match their bounds,
//!   bindings match their iterators, constants fit their type;
//! - **ranks**: loads, stores and regions have one index/range per dimension;
//! - **iterator bindings**: a binding's values must stay inside the
//!   iterator's domain, judged by TVM's iter-map detection (`crate::arith`,
//!   predicates included) or, failing that, by an affine analysis of
//!   constants, loop variables and sums `c0 + Σ ci·vi` (see [`bindings`]);
//!   undecidable bindings are skipped. In the course's `T.block` generation
//!   (see [`ApiGeneration`]) a binding must also reach the whole domain: the
//!   MLC book calls `range(127)` bound to `T.axis.spatial(128, i)` an error.
//!   TVM 0.27 accepts such a binding (the block runs for part of its domain),
//!   and so do we for its `T.sblock` generation;
//! - **reductions** (course generation only, like the binding rule above): a
//!   reduction iterator may not index a block's output (store indices,
//!   `T.writes` regions), and `T.init()` needs a reduction iterator. TVM's
//!   parser, schedule and `tvm.compile` accept both; schedule primitives that
//!   need a proper reduction block check it themselves;
//! - **warnings** where TVM is silent but schedules would go wrong: a block
//!   that stores to a buffer missing from its `T.writes`, and block names used
//!   twice in a function (TVM's `get_sblock` then fails with "Found 2 blocks
//!   with the name").
//!
//! The walk uses explicit work stacks: deep IR cannot overflow the call stack.

pub mod bindings;

use std::collections::{HashMap, HashSet};

use super::structural_equal::render;
use crate::diag::{Diagnostic, Severity, Span};
use crate::ir::{
    Block, BlockRealize, Buffer, BufferId, BufferRegion, DataType, Expr, ExprKind, ForKind,
    IRModule, Intrinsic, IterKind, IterVar, PrimFunc, ScalarKind, Stmt, StmtKind, Var, VarId,
};
use bindings::{block_coverage, BindingCoverage, Coverage};

/// The generation of the TVMScript block API a program was written in; it
/// decides the rules TVM itself does not enforce.
///
/// The course (the MLC book, TVM before 0.27) writes `T.block` and teaches
/// that a block iterator's binding must cover its whole domain, that a
/// reduction iterator never indexes an output and that `T.init()` belongs to
/// a reduction: those are errors in [`ApiGeneration::Block`] programs. TVM
/// 0.27 (`T.sblock`, `@T.prim_func(s_tir=True)`, `from tvm.script import
/// tirx`) parses, schedules and compiles such programs, so in
/// [`ApiGeneration::SBlock`] programs they are accepted as TVM accepts them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ApiGeneration {
    /// `T.block`: the course's generation, with its stricter rules.
    #[default]
    Block,
    /// `T.sblock` / `tirx`: TVM 0.27's generation, as permissive as TVM.
    SBlock,
}

/// Verifies every function of a module under the course's rules
/// ([`ApiGeneration::Block`]); diagnostics in function order, each
/// function's sorted by position.
pub fn verify_module(m: &IRModule) -> Vec<Diagnostic> {
    verify_module_as(m, ApiGeneration::Block)
}

/// Verifies every function of a module under the rules of `generation`.
pub fn verify_module_as(m: &IRModule, generation: ApiGeneration) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for (name, f) in m.prim_funcs() {
        out.extend(verify_prim_func_as(f, name, generation));
    }
    out
}

/// Verifies one function under the course's rules (`name` is used in
/// messages), returning all errors and warnings sorted by position.
pub fn verify_prim_func(f: &PrimFunc, name: &str) -> Vec<Diagnostic> {
    verify_prim_func_as(f, name, ApiGeneration::Block)
}

/// Verifies one function under the rules of `generation`.
pub fn verify_prim_func_as(f: &PrimFunc, name: &str, generation: ApiGeneration) -> Vec<Diagnostic> {
    let mut v = Verifier::new(name, generation);
    v.func(f);
    v.finish()
}

/// Whether any of `diags` is an error (warnings do not count).
pub fn has_errors(diags: &[Diagnostic]) -> bool {
    diags.iter().any(|d| d.severity == Severity::Error)
}

// ---------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum VarKind {
    Param,
    /// Defined by appearing in a parameter or match buffer's shape/strides/offset.
    Symbolic,
    Loop,
    Iter,
    Let,
    /// A buffer's data pointer.
    Data,
}

#[derive(Clone, Debug)]
struct VarInfo {
    kind: VarKind,
    span: Span,
    /// Number of enclosing non-opaque blocks where it was defined.
    depth: usize,
    /// The innermost enclosing (non-root) block where it was defined.
    block: Option<String>,
    /// `(min, extent)` when both are constants (loops, block iterators).
    range: Option<(i128, i128)>,
}

#[derive(Clone, Debug)]
struct BufInfo {
    data: VarId,
}

struct BlockCtx {
    name: String,
    span: Span,
    nonopaque: bool,
    root: bool,
    reduce: HashSet<VarId>,
    /// Variables and buffers to take out of scope when the block ends.
    vars: Vec<VarId>,
    bufs: Vec<BufferId>,
    /// Buffers allocated inside the block: not outputs.
    local: HashSet<BufferId>,
    declared_writes: HashSet<BufferId>,
    /// Buffers stored to in the block's subtree (after match-buffer resolution):
    /// first store's buffer name and span.
    stored: Vec<(BufferId, String, Span)>,
    stored_set: HashSet<BufferId>,
    reduce_store_errors: HashSet<BufferId>,
    /// Buffers with a rank or index-dtype error in an access in the subtree.
    access_errors: HashSet<BufferId>,
    /// Region diagnostics that are only reported when no access (store or
    /// load) in the block already reported the same problem: regions are
    /// often inferred from those very accesses.
    pending_region_errors: Vec<(Pending, BufferId, Diagnostic)>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Pending {
    /// A reduction iterator in a write region (see `reduce_store_errors`).
    Reduce,
    /// Rank or bound dtype of a region (see `access_errors`).
    Access,
}

enum Task<'a> {
    Stmt(&'a Stmt, Span),
    EndVar(VarId),
    EndBuf(BufferId),
    ExitBlock,
}

enum ETask<'a> {
    Visit(&'a Expr, Span),
    DefLet(&'a Var, Span),
    EndVar(VarId),
}

/// Dedup keys: one report per variable/buffer and problem.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Once {
    UndefinedVar(VarId),
    LoopInBlock(VarId, usize),
    UndefinedBuf(BufferId),
}

struct Verifier<'n> {
    func_name: &'n str,
    /// Whether the course's rules apply (see [`ApiGeneration`]).
    course_rules: bool,
    diags: Vec<Diagnostic>,
    scope: HashMap<VarId, Vec<VarInfo>>,
    /// Every definition seen (for "used outside its scope").
    ever: HashMap<VarId, Span>,
    /// Definitions that must be unique (params, loops, iterators, lets).
    defined_once: HashMap<VarId, Span>,
    bufs: HashMap<BufferId, Vec<BufInfo>>,
    bufs_ever: HashMap<BufferId, Span>,
    /// Match buffer → the buffer it views (resolved to a non-match buffer).
    match_source: HashMap<BufferId, BufferId>,
    blocks: Vec<BlockCtx>,
    /// Number of non-opaque blocks on `blocks`.
    depth: usize,
    block_names: HashMap<String, Span>,
    reported: HashSet<Once>,
}

fn pick(s: Span, fallback: Span) -> Span {
    if s == Span::default() {
        fallback
    } else {
        s
    }
}

fn plural(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        format!("{n} {one}")
    } else {
        format!("{n} {many}")
    }
}

/// The variables occurring in `e`, each once, in first-occurrence order.
fn vars_in(e: &Expr) -> Vec<Var> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    let mut stack = vec![e];
    while let Some(x) = stack.pop() {
        if let ExprKind::Var(v) = x.kind() {
            if seen.insert(v.id()) {
                out.push(v.clone());
            }
        }
        stack.extend(children(x).into_iter().rev());
    }
    out
}

/// The direct sub-expressions of `e`, borrowed for as long as `e` is.
pub(crate) fn children(e: &Expr) -> Vec<&Expr> {
    match e.kind() {
        ExprKind::Var(_) | ExprKind::Int(_) | ExprKind::Float(_) | ExprKind::Str(_) => vec![],
        ExprKind::Binary(_, a, b)
        | ExprKind::Cmp(_, a, b)
        | ExprKind::And(a, b)
        | ExprKind::Or(a, b) => vec![a, b],
        ExprKind::Not(a) | ExprKind::Cast(a) | ExprKind::Broadcast(a) => vec![a],
        ExprKind::Select {
            cond,
            then,
            otherwise,
        } => vec![cond, then, otherwise],
        ExprKind::Call { args, .. } => args.iter().collect(),
        ExprKind::Load { indices, .. } => indices.iter().collect(),
        ExprKind::Let { value, body, .. } => vec![value, body],
        ExprKind::Ramp { base, stride } => vec![base, stride],
    }
}

fn bool_scalar(dt: DataType) -> bool {
    dt.is_bool() && dt.is_scalar()
}

impl<'n> Verifier<'n> {
    fn new(func_name: &'n str, generation: ApiGeneration) -> Verifier<'n> {
        Verifier {
            func_name,
            course_rules: generation == ApiGeneration::Block,
            diags: Vec::new(),
            scope: HashMap::new(),
            ever: HashMap::new(),
            defined_once: HashMap::new(),
            bufs: HashMap::new(),
            bufs_ever: HashMap::new(),
            match_source: HashMap::new(),
            blocks: Vec::new(),
            depth: 0,
            block_names: HashMap::new(),
            reported: HashSet::new(),
        }
    }

    fn finish(mut self) -> Vec<Diagnostic> {
        tessel_ir::sort::by_key(&mut self.diags, |d| (d.span.start, d.span.end));
        self.diags
    }

    fn error(&mut self, d: Diagnostic) {
        self.diags.push(d);
    }

    fn once(&mut self, key: Once) -> bool {
        self.reported.insert(key)
    }

    /// The innermost enclosing block that is not the function's root block.
    fn current_block_name(&self) -> Option<String> {
        self.blocks
            .iter()
            .rev()
            .find(|b| !b.root)
            .map(|b| b.name.clone())
    }

    // -- scopes ---------------------------------------------------------------

    fn define_var(&mut self, v: &Var, kind: VarKind, span: Span, range: Option<(i128, i128)>) {
        let unique = !matches!(kind, VarKind::Data | VarKind::Symbolic);
        if unique {
            if let Some(first) = self.defined_once.get(&v.id()).copied() {
                self.error(
                    Diagnostic::error(
                        format!("variable `{}` is defined more than once", v.name()),
                        span,
                    )
                    .with_label(first, format!("`{}` is first defined here", v.name()))
                    .with_note("every loop variable, block iterator, let binding and parameter must be a distinct variable (TVM: \"multiple definitions of variable\")"),
                );
            } else {
                self.defined_once.insert(v.id(), span);
            }
        }
        self.ever.entry(v.id()).or_insert(span);
        let info = VarInfo {
            kind,
            span,
            depth: self.depth,
            block: self.current_block_name(),
            range,
        };
        self.scope.entry(v.id()).or_default().push(info);
    }

    fn end_var(&mut self, id: VarId) {
        if let Some(stack) = self.scope.get_mut(&id) {
            stack.pop();
            if stack.is_empty() {
                self.scope.remove(&id);
            }
        }
    }

    fn in_scope(&self, id: VarId) -> Option<&VarInfo> {
        self.scope.get(&id).and_then(|s| s.last())
    }

    /// Defines `b` (and its data pointer). With `binds_fields`, variables in its
    /// shape, strides and offset that are not in scope are defined by it (as for
    /// parameter and match buffers); they are returned for the caller to scope.
    fn define_buffer(&mut self, b: &Buffer, fallback: Span, binds_fields: bool) -> Vec<VarId> {
        let span = pick(b.span, fallback);
        if let Some(first) = self.bufs_ever.get(&b.id()).copied() {
            self.error(
                Diagnostic::error(
                    format!("buffer `{}` is defined more than once", b.name),
                    span,
                )
                .with_label(first, format!("`{}` is first defined here", b.name)),
            );
        } else {
            self.bufs_ever.insert(b.id(), span);
        }
        let mut defined = Vec::new();
        let fields: Vec<&Expr> = b
            .shape
            .iter()
            .chain(&b.strides)
            .chain(std::iter::once(&b.elem_offset))
            .collect();
        if binds_fields {
            for e in &fields {
                for v in vars_in(e) {
                    if self.in_scope(v.id()).is_none() {
                        self.define_var(&v, VarKind::Symbolic, span, None);
                        defined.push(v.id());
                    }
                }
            }
        }
        for e in &fields {
            self.check_expr(e, span);
        }
        for (k, d) in b.shape.iter().enumerate() {
            if !d.dtype().is_integer() || !d.dtype().is_scalar() {
                self.error(Diagnostic::error(
                    format!(
                        "dimension {k} of buffer `{}` has dtype {}; shapes must be integers",
                        b.name,
                        d.dtype()
                    ),
                    pick(d.span(), span),
                ));
            } else if let Some(n) = d.as_int() {
                if n < 0 {
                    self.error(Diagnostic::error(
                        format!("dimension {k} of buffer `{}` is negative ({n})", b.name),
                        pick(d.span(), span),
                    ));
                }
            }
        }
        self.define_var(&b.data, VarKind::Data, span, None);
        self.bufs
            .entry(b.id())
            .or_default()
            .push(BufInfo { data: b.data.id() });
        defined
    }

    fn end_buf(&mut self, id: BufferId) {
        let mut data = None;
        if let Some(stack) = self.bufs.get_mut(&id) {
            data = stack.pop().map(|i| i.data);
            if stack.is_empty() {
                self.bufs.remove(&id);
            }
        }
        if let Some(d) = data {
            self.end_var(d);
        }
    }

    fn resolve(&self, id: BufferId) -> BufferId {
        self.match_source.get(&id).copied().unwrap_or(id)
    }

    fn use_buffer(&mut self, b: &Buffer, span: Span) {
        if self.bufs.contains_key(&b.id()) || !self.once(Once::UndefinedBuf(b.id())) {
            return;
        }
        let d = match self.bufs_ever.get(&b.id()).copied() {
            Some(def) => Diagnostic::error(
                format!(
                    "buffer `{}` is used outside the scope of its definition",
                    b.name
                ),
                span,
            )
            .with_label(def, format!("`{}` is defined here", b.name)),
            None => Diagnostic::error(format!("buffer `{}` is not defined", b.name), span)
                .with_note("a buffer must be a parameter buffer, allocated (`T.alloc_buffer`) or matched (`T.match_buffer`) in an enclosing scope"),
        };
        self.error(d);
    }

    fn use_var(&mut self, v: &Var, span: Span) {
        let Some(info) = self.in_scope(v.id()).cloned() else {
            if !self.once(Once::UndefinedVar(v.id())) {
                return;
            }
            let d = match self.ever.get(&v.id()).copied() {
                Some(def) => Diagnostic::error(
                    format!(
                        "variable `{}` is used outside the scope of its definition",
                        v.name()
                    ),
                    span,
                )
                .with_label(def, format!("`{}` is defined here", v.name())),
                None => Diagnostic::error(format!("variable `{}` is not defined", v.name()), span)
                    .with_note("a variable must be a parameter, a symbolic shape variable, a loop variable, a block iterator or a let binding in scope"),
            };
            self.error(d);
            return;
        };
        if info.kind == VarKind::Loop && info.depth < self.depth {
            let key = Once::LoopInBlock(v.id(), self.blocks.len());
            if !self.once(key) {
                return;
            }
            let block = self
                .blocks
                .iter()
                .rev()
                .find(|b| b.nonopaque)
                .map(|b| b.name.clone())
                .unwrap_or_default();
            let whence = match &info.block {
                Some(b) => format!("in block `{b}`"),
                None => "outside of any block".to_string(),
            };
            self.error(
                Diagnostic::error(
                    format!(
                        "loop variable `{}` is defined {whence}, but is used inside the non-opaque block `{block}`",
                        v.name()
                    ),
                    span,
                )
                .with_label(info.span, format!("`{}` is defined here", v.name()))
                .with_note(format!(
                    "a block with iterators only sees its own and outer blocks' iterators: bind the loop to an iterator (`v{0} = T.axis.spatial(..., {0})`) and use that",
                    v.name()
                )),
            );
        }
    }

    // -- expressions ----------------------------------------------------------

    /// Checks `e` and all its sub-expressions; `fallback` is the span used for
    /// nodes without one.
    fn check_expr(&mut self, e: &Expr, fallback: Span) {
        let mut stack = vec![ETask::Visit(e, fallback)];
        while let Some(t) = stack.pop() {
            match t {
                ETask::Visit(x, fb) => {
                    let sp = pick(x.span(), fb);
                    self.check_node(x, sp);
                    if let ExprKind::Let { var, value, body } = x.kind() {
                        stack.push(ETask::EndVar(var.id()));
                        stack.push(ETask::Visit(body, sp));
                        stack.push(ETask::DefLet(var, sp));
                        stack.push(ETask::Visit(value, sp));
                        continue;
                    }
                    for c in children(x).into_iter().rev() {
                        stack.push(ETask::Visit(c, sp));
                    }
                }
                ETask::DefLet(v, sp) => self.define_var(v, VarKind::Let, sp, None),
                ETask::EndVar(id) => self.end_var(id),
            }
        }
    }

    fn dtype_error(&mut self, msg: String, span: Span) {
        self.error(Diagnostic::error(msg, span));
    }

    /// The checks local to one expression node.
    fn check_node(&mut self, e: &Expr, sp: Span) {
        let dt = e.dtype();
        let show = |x: &Expr| format!("`{}`", render::expr(x));
        match e.kind() {
            ExprKind::Var(v) => {
                self.use_var(v, sp);
                if v.dtype() != dt {
                    self.dtype_error(
                        format!(
                            "variable `{}` has dtype {} but is used as {dt}",
                            v.name(),
                            v.dtype()
                        ),
                        sp,
                    );
                }
            }
            ExprKind::Int(v) => self.check_int_const(*v, dt, sp),
            ExprKind::Float(_) => {
                if !dt.is_float() {
                    self.dtype_error(format!("float constant has non-float dtype {dt}"), sp);
                }
            }
            ExprKind::Str(_) => {}
            ExprKind::Binary(op, a, b) => {
                let name = render::binop_name(*op);
                if a.dtype() != b.dtype() {
                    self.dtype_error(
                        format!(
                            "operands of `{name}` have different dtypes: {} is {}, {} is {}",
                            show(a),
                            a.dtype(),
                            show(b),
                            b.dtype()
                        ),
                        sp,
                    );
                } else if a.dtype() != dt {
                    self.dtype_error(
                        format!("`{name}` of {} operands has dtype {dt}", a.dtype()),
                        sp,
                    );
                }
            }
            ExprKind::Cmp(op, a, b) => {
                if a.dtype() != b.dtype() {
                    self.dtype_error(
                        format!(
                            "operands of `{}` have different dtypes: {} is {}, {} is {}",
                            op.symbol(),
                            show(a),
                            a.dtype(),
                            show(b),
                            b.dtype()
                        ),
                        sp,
                    );
                }
                if !dt.is_bool() || dt.lanes != a.dtype().lanes {
                    self.dtype_error(
                        format!("comparison `{}` has dtype {dt}, expected bool", op.symbol()),
                        sp,
                    );
                }
            }
            ExprKind::And(a, b) | ExprKind::Or(a, b) => {
                let word = if matches!(e.kind(), ExprKind::And(..)) {
                    "and"
                } else {
                    "or"
                };
                for x in [a, b] {
                    if !x.dtype().is_bool() {
                        self.dtype_error(
                            format!(
                                "operand {} of `{word}` has dtype {}, expected bool",
                                show(x),
                                x.dtype()
                            ),
                            pick(x.span(), sp),
                        );
                    }
                }
            }
            ExprKind::Not(a) => {
                if !a.dtype().is_bool() {
                    self.dtype_error(
                        format!(
                            "operand {} of `not` has dtype {}, expected bool",
                            show(a),
                            a.dtype()
                        ),
                        pick(a.span(), sp),
                    );
                }
            }
            ExprKind::Select {
                cond,
                then,
                otherwise,
            } => {
                self.check_cond(cond, "condition", "`T.Select`", sp);
                self.check_branches("T.Select", then, otherwise, dt, sp);
            }
            ExprKind::Cast(a) => {
                if a.dtype().lanes != dt.lanes {
                    self.dtype_error(
                        format!(
                            "cast from {} to {dt} changes the number of lanes",
                            a.dtype()
                        ),
                        sp,
                    );
                }
            }
            ExprKind::Call { op, args } => {
                if let Some(n) = op.arity() {
                    if args.len() != n {
                        self.error(Diagnostic::error(
                            format!(
                                "`T.{}` takes {} but is given {}",
                                op.name(),
                                plural(n, "argument", "arguments"),
                                args.len()
                            ),
                            sp,
                        ));
                        return;
                    }
                }
                if *op == Intrinsic::IfThenElse {
                    self.check_cond(&args[0], "condition", "`T.if_then_else`", sp);
                    self.check_branches("T.if_then_else", &args[1], &args[2], dt, sp);
                }
            }
            ExprKind::Load { buffer, indices } => {
                self.use_buffer(buffer, sp);
                self.check_indices(buffer, indices, sp);
                if dt.element() != buffer.dtype.element() {
                    self.dtype_error(
                        format!(
                            "load from buffer `{}` of {} has dtype {dt}",
                            buffer.name, buffer.dtype
                        ),
                        sp,
                    );
                }
            }
            ExprKind::Let { var, value, .. } => {
                if var.dtype() != value.dtype() {
                    self.dtype_error(
                        format!(
                            "let variable `{}` has dtype {} but its value {} is {}",
                            var.name(),
                            var.dtype(),
                            show(value),
                            value.dtype()
                        ),
                        sp,
                    );
                }
            }
            ExprKind::Ramp { base, stride } => {
                if base.dtype() != stride.dtype() || !base.dtype().is_scalar() {
                    self.dtype_error(
                        format!(
                            "`T.Ramp` base and stride must be scalars of one dtype, found {} and {}",
                            base.dtype(),
                            stride.dtype()
                        ),
                        sp,
                    );
                } else if dt.element() != base.dtype() {
                    self.dtype_error(format!("`T.Ramp` of {} has dtype {dt}", base.dtype()), sp);
                }
            }
            ExprKind::Broadcast(a) => {
                if dt.element() != a.dtype() {
                    self.dtype_error(format!("`T.Broadcast` of {} has dtype {dt}", a.dtype()), sp);
                }
            }
        }
    }

    fn check_int_const(&mut self, v: i64, dt: DataType, sp: Span) {
        let ok = match dt.kind {
            ScalarKind::Bool => v == 0 || v == 1,
            ScalarKind::Int => {
                dt.bits >= 64 || {
                    let half = 1i128 << (dt.bits.saturating_sub(1) as u32).min(126);
                    (-half..half).contains(&(v as i128))
                }
            }
            ScalarKind::UInt => {
                v >= 0 && (dt.bits >= 64 || (v as i128) < (1i128 << dt.bits.min(126)))
            }
            ScalarKind::Handle => true,
            ScalarKind::Float => {
                self.dtype_error(format!("integer constant {v} has dtype {dt}"), sp);
                return;
            }
        };
        if !ok {
            self.dtype_error(format!("constant {v} does not fit in {dt}"), sp);
        }
    }

    /// `role` of `owner` (e.g. "condition", "`if`") must be bool.
    fn check_cond(&mut self, c: &Expr, role: &str, owner: &str, sp: Span) {
        if !c.dtype().is_bool() {
            self.dtype_error(
                format!(
                    "{role} `{}` of {owner} has dtype {}, expected bool",
                    render::expr(c),
                    c.dtype()
                ),
                pick(c.span(), sp),
            );
        }
    }

    fn check_branches(&mut self, what: &str, a: &Expr, b: &Expr, dt: DataType, sp: Span) {
        if a.dtype() != b.dtype() {
            self.dtype_error(
                format!(
                    "branches of `{what}` have different dtypes: {} and {}",
                    a.dtype(),
                    b.dtype()
                ),
                sp,
            );
        } else if a.dtype() != dt {
            self.dtype_error(
                format!("`{what}` of {} branches has dtype {dt}", a.dtype()),
                sp,
            );
        }
    }

    /// Rank and index dtypes of an access.
    fn check_indices(&mut self, buffer: &Buffer, indices: &[Expr], sp: Span) {
        let before = self.diags.len();
        if indices.len() != buffer.ndim() {
            self.error(Diagnostic::error(
                format!(
                    "buffer `{}` is {}-dimensional but is indexed with {}",
                    buffer.name,
                    buffer.ndim(),
                    plural(indices.len(), "index", "indices")
                ),
                sp,
            ));
        }
        for ix in indices {
            if !ix.dtype().is_integer() {
                self.dtype_error(
                    format!(
                        "index `{}` of buffer `{}` has dtype {}; indices must be integers",
                        render::expr(ix),
                        buffer.name,
                        ix.dtype()
                    ),
                    pick(ix.span(), sp),
                );
            }
        }
        if self.diags.len() > before {
            let target = self.resolve(buffer.id());
            if let Some(ctx) = self.blocks.last_mut() {
                ctx.access_errors.insert(target);
            }
        }
    }

    /// Buffer in scope, one range per dimension, and the range expressions.
    /// Rank and bound-dtype problems are deferred to the end of the block
    /// (see [`Pending::Access`]); `sp` is the fallback span.
    fn check_region(&mut self, r: &BufferRegion, what: &str, sp: Span) {
        let rsp = r
            .region
            .first()
            .map_or(sp, |range| pick(range.min.span(), sp));
        self.use_buffer(&r.buffer, rsp);
        let target = self.resolve(r.buffer.id());
        let mut deferred = Vec::new();
        if r.region.len() != r.buffer.ndim() {
            deferred.push(Diagnostic::error(
                format!(
                    "{what} `{}` has {} but buffer `{}` is {}-dimensional",
                    render::region(r),
                    plural(r.region.len(), "range", "ranges"),
                    r.buffer.name,
                    r.buffer.ndim()
                ),
                rsp,
            ));
        }
        for range in &r.region {
            let bad = [&range.min, &range.extent]
                .into_iter()
                .find(|e| !e.dtype().is_integer() || !e.dtype().is_scalar());
            if let Some(e) = bad {
                deferred.push(Diagnostic::error(
                    format!(
                        "{what} `{}` has bounds of dtype {}; regions must be integer ranges",
                        render::region(r),
                        e.dtype()
                    ),
                    pick(range.min.span(), rsp),
                ));
                continue;
            }
            self.check_expr(&range.min, rsp);
            self.check_expr(&range.extent, rsp);
        }
        match self.blocks.last_mut() {
            Some(ctx) => ctx
                .pending_region_errors
                .extend(deferred.into_iter().map(|d| (Pending::Access, target, d))),
            None => self.diags.extend(deferred),
        }
    }

    // -- functions and statements ---------------------------------------------

    fn func(&mut self, f: &PrimFunc) {
        for p in &f.params {
            self.define_var(p, VarKind::Param, f.span, None);
        }
        for (v, b) in &f.buffer_map {
            if !f.params.contains(v) {
                self.error(Diagnostic::error(
                    format!(
                        "buffer `{}` is bound to `{}`, which is not a parameter of `{}`",
                        b.name,
                        v.name(),
                        self.func_name
                    ),
                    pick(b.span, f.span),
                ));
            } else if !v.dtype().is_handle() {
                self.error(Diagnostic::error(
                    format!(
                        "parameter `{}` is bound to buffer `{}` but has dtype {}, not handle",
                        v.name(),
                        b.name,
                        v.dtype()
                    ),
                    pick(b.span, f.span),
                ));
            }
            self.define_buffer(b, f.span, true);
        }
        self.run(&f.body, f.span);
    }

    fn run<'a>(&mut self, body: &'a Stmt, fallback: Span) {
        let mut stack: Vec<Task<'a>> = vec![Task::Stmt(body, fallback)];
        while let Some(t) = stack.pop() {
            match t {
                Task::Stmt(s, fb) => self.stmt(s, fb, &mut stack),
                Task::EndVar(id) => self.end_var(id),
                Task::EndBuf(id) => self.end_buf(id),
                Task::ExitBlock => self.exit_block(),
            }
        }
    }

    fn stmt<'a>(&mut self, s: &'a Stmt, fallback: Span, stack: &mut Vec<Task<'a>>) {
        let sp = pick(s.span(), fallback);
        match s.kind() {
            StmtKind::For(l) => {
                self.check_expr(&l.min, sp);
                self.check_expr(&l.extent, sp);
                let vt = l.loop_var.dtype();
                if !vt.is_integer() || !vt.is_scalar() {
                    self.dtype_error(
                        format!(
                            "loop variable `{}` has dtype {vt}; loop variables must be integers",
                            l.loop_var.name()
                        ),
                        sp,
                    );
                } else {
                    for (what, e) in [("start", &l.min), ("extent", &l.extent)] {
                        if e.dtype() != vt {
                            self.dtype_error(
                                format!(
                                    "loop variable `{}` is {vt} but its {what} `{}` is {}",
                                    l.loop_var.name(),
                                    render::expr(e),
                                    e.dtype()
                                ),
                                pick(e.span(), sp),
                            );
                        }
                    }
                }
                match (l.kind, &l.thread_tag) {
                    (ForKind::ThreadBinding, None) => self.error(Diagnostic::error(
                        format!("thread-bound loop `{}` has no thread tag", l.loop_var.name()),
                        sp,
                    )),
                    (k, Some(tag)) if k != ForKind::ThreadBinding => {
                        self.error(Diagnostic::error(
                            format!(
                                "{} loop `{}` has a thread tag `{tag}`; only `T.thread_binding` loops are bound to threads",
                                k.script_name(),
                                l.loop_var.name()
                            ),
                            sp,
                        ))
                    }
                    _ => {}
                }
                let range = match (l.min.as_int(), l.extent.as_int()) {
                    (Some(m), Some(e)) if e >= 1 => Some((m as i128, e as i128)),
                    _ => None,
                };
                self.define_var(&l.loop_var, VarKind::Loop, sp, range);
                stack.push(Task::EndVar(l.loop_var.id()));
                stack.push(Task::Stmt(&l.body, sp));
            }
            StmtKind::BlockRealize(r) => self.block_realize(r, sp, stack),
            StmtKind::Store {
                buffer,
                value,
                indices,
            } => self.store(buffer, value, indices, sp),
            StmtKind::Let { var, value, body } => {
                self.check_expr(value, sp);
                if var.dtype() != value.dtype() {
                    self.dtype_error(
                        format!(
                            "let variable `{}` has dtype {} but its value `{}` is {}",
                            var.name(),
                            var.dtype(),
                            render::expr(value),
                            value.dtype()
                        ),
                        pick(value.span(), sp),
                    );
                }
                self.define_var(var, VarKind::Let, sp, None);
                stack.push(Task::EndVar(var.id()));
                stack.push(Task::Stmt(body, sp));
            }
            StmtKind::If {
                cond,
                then,
                otherwise,
            } => {
                self.check_expr(cond, sp);
                if !bool_scalar(cond.dtype()) {
                    self.check_cond(cond, "condition", "`if`", sp);
                }
                if let Some(o) = otherwise {
                    stack.push(Task::Stmt(o, sp));
                }
                stack.push(Task::Stmt(then, sp));
            }
            StmtKind::Evaluate(e) => self.check_expr(e, sp),
            StmtKind::Seq(items) => {
                for x in items.iter().rev() {
                    stack.push(Task::Stmt(x, sp));
                }
            }
            StmtKind::Allocate { buffer, body } => {
                self.define_buffer(buffer, sp, false);
                if let Some(b) = self.blocks.last_mut() {
                    b.local.insert(buffer.id());
                }
                stack.push(Task::EndBuf(buffer.id()));
                stack.push(Task::Stmt(body, sp));
            }
        }
    }

    fn store(&mut self, buffer: &Buffer, value: &Expr, indices: &[Expr], sp: Span) {
        self.use_buffer(buffer, sp);
        self.check_indices(buffer, indices, sp);
        for ix in indices {
            self.check_expr(ix, sp);
        }
        self.check_expr(value, sp);
        let vt = value.dtype();
        if vt.element() != buffer.dtype.element() {
            self.dtype_error(
                format!(
                    "cannot store a {vt} value into buffer `{}` of {}",
                    buffer.name, buffer.dtype
                ),
                pick(value.span(), sp),
            );
        } else {
            let index_lanes = indices.iter().map(|i| i.dtype().lanes).max().unwrap_or(1);
            let want = (buffer.dtype.lanes as u32) * (index_lanes as u32);
            if vt.lanes as u32 != want {
                self.dtype_error(
                    format!(
                        "store into `{}` writes {} lanes but the value {} has {}",
                        buffer.name,
                        want,
                        render::expr(value),
                        vt.lanes
                    ),
                    pick(value.span(), sp),
                );
            }
        }
        let target = self.resolve(buffer.id());
        let Some(ctx) = self.blocks.last_mut() else {
            return;
        };
        if ctx.stored_set.insert(target) {
            ctx.stored.push((target, buffer.name.clone(), sp));
        }
        // A reduction iterator may not pick the output element (course rule).
        if !self.course_rules || ctx.reduce.is_empty() || ctx.local.contains(&target) {
            return;
        }
        let reduce = ctx.reduce.clone();
        for ix in indices {
            if let Some(v) = vars_in(ix).into_iter().find(|v| reduce.contains(&v.id())) {
                let Some(ctx) = self.blocks.last_mut() else {
                    return;
                };
                if !ctx.reduce_store_errors.insert(target) {
                    return;
                }
                let block = ctx.name.clone();
                let bspan = ctx.span;
                self.error(reduce_in_output(
                    &v,
                    &buffer.name,
                    &block,
                    pick(ix.span(), sp),
                    bspan,
                ));
                return;
            }
        }
    }

    fn block_realize<'a>(
        &mut self,
        r: &'a BlockRealize,
        fallback: Span,
        stack: &mut Vec<Task<'a>>,
    ) {
        let blk: &'a Block = &r.block;
        let bspan = pick(blk.span, fallback);
        let root = self.blocks.is_empty() && blk.iter_vars.is_empty() && blk.name == "root";

        // The realize's own expressions live outside the block.
        self.check_block_bindings(r, bspan);
        if !root {
            self.note_block_name(blk, bspan);
        }

        // Inside the block.
        self.enter_block(r, bspan, root);
        self.check_block_regions(blk, bspan);
        stack.push(Task::ExitBlock);
        stack.push(Task::Stmt(&blk.body, bspan));
        if let Some(init) = &blk.init {
            stack.push(Task::Stmt(init, bspan));
        }
    }

    /// Checks the realize's bindings, predicate and iterator domains, which
    /// live outside the block.
    fn check_block_bindings(&mut self, r: &BlockRealize, bspan: Span) {
        let blk = &r.block;
        if r.iter_values.len() != blk.iter_vars.len() {
            self.error(Diagnostic::error(
                format!(
                    "block `{}` has {} but {}",
                    blk.name,
                    plural(blk.iter_vars.len(), "iterator", "iterators"),
                    plural(r.iter_values.len(), "binding", "bindings")
                ),
                bspan,
            ));
        }
        for (iv, val) in blk.iter_vars.iter().zip(&r.iter_values) {
            let vsp = pick(val.span(), bspan);
            self.check_expr(val, vsp);
            if val.dtype() != iv.var.dtype() {
                self.dtype_error(
                    format!(
                        "binding `{}` of block iterator `{}` has dtype {} but the iterator is {}",
                        render::expr(val),
                        iv.var.name(),
                        val.dtype(),
                        iv.var.dtype()
                    ),
                    vsp,
                );
            }
        }
        self.check_expr(&r.predicate, bspan);
        if !bool_scalar(r.predicate.dtype()) {
            let owner = format!("block `{}`", blk.name);
            self.check_cond(&r.predicate, "predicate", &owner, bspan);
        }
        for iv in &blk.iter_vars {
            self.check_expr(&iv.dom.min, bspan);
            self.check_expr(&iv.dom.extent, bspan);
            let vt = iv.var.dtype();
            if !vt.is_integer() || !vt.is_scalar() {
                self.dtype_error(
                    format!(
                        "block iterator `{}` has dtype {vt}; iterators must be integers",
                        iv.var.name()
                    ),
                    bspan,
                );
            } else if iv.dom.min.dtype() != vt || iv.dom.extent.dtype() != vt {
                self.dtype_error(
                    format!(
                        "block iterator `{}` is {vt} but its domain {} is {}",
                        iv.var.name(),
                        render::interval(&iv.dom),
                        iv.dom.extent.dtype()
                    ),
                    pick(iv.dom.extent.span(), bspan),
                );
            }
        }
        let coverage = block_coverage(&r.iter_values, &r.predicate, |id| {
            self.in_scope(id).and_then(|i| i.range)
        });
        for ((iv, val), cov) in blk.iter_vars.iter().zip(&r.iter_values).zip(coverage) {
            self.check_binding(iv, val, cov, &blk.name, bspan);
        }
    }

    /// Records the block's name, warning when it is already taken.
    fn note_block_name(&mut self, blk: &Block, bspan: Span) {
        if let Some(first) = self.block_names.get(&blk.name).copied() {
            self.diags.push(
                Diagnostic::warning(
                    format!(
                        "block name `{}` is used more than once in `{}`",
                        blk.name, self.func_name
                    ),
                    bspan,
                )
                .with_label(first, "first used here")
                .with_note(format!(
                    "TVM accepts this, but schedules cannot address the block: `sch.get_sblock(\"{}\")` fails with \"Found 2 blocks with the name\"",
                    blk.name
                )),
            );
        } else {
            self.block_names.insert(blk.name.clone(), bspan);
        }
    }

    /// Opens the block's context: its iterators, allocated and matched
    /// buffers come into scope.
    fn enter_block(&mut self, r: &BlockRealize, bspan: Span, root: bool) {
        let blk = &r.block;
        let nonopaque = !blk.iter_vars.is_empty();
        if nonopaque {
            self.depth += 1;
        }
        self.blocks.push(BlockCtx {
            name: blk.name.clone(),
            span: bspan,
            nonopaque,
            root,
            reduce: blk
                .iter_vars
                .iter()
                .filter(|iv| iv.kind == IterKind::Reduce)
                .map(|iv| iv.var.id())
                .collect(),
            vars: Vec::new(),
            bufs: Vec::new(),
            local: HashSet::new(),
            declared_writes: HashSet::new(),
            stored: Vec::new(),
            stored_set: HashSet::new(),
            reduce_store_errors: HashSet::new(),
            access_errors: HashSet::new(),
            pending_region_errors: Vec::new(),
        });
        for (k, iv) in blk.iter_vars.iter().enumerate() {
            let range = match (iv.dom.min.as_int(), iv.dom.extent.as_int()) {
                (Some(m), Some(e)) if e >= 1 => Some((m as i128, e as i128)),
                _ => None,
            };
            let dsp = r
                .iter_values
                .get(k)
                .map(|v| pick(v.span(), bspan))
                .unwrap_or(bspan);
            self.define_var(&iv.var, VarKind::Iter, dsp, range);
            self.top().vars.push(iv.var.id());
        }
        for b in &blk.alloc_buffers {
            let defined = self.define_buffer(b, bspan, false);
            let ctx = self.top();
            ctx.vars.extend(defined);
            ctx.bufs.push(b.id());
            ctx.local.insert(b.id());
        }
        for mb in &blk.match_buffers {
            let msp = pick(mb.buffer.span, bspan);
            self.check_region(&mb.source, "match_buffer source", msp);
            if mb.buffer.dtype != mb.source.buffer.dtype {
                self.dtype_error(
                    format!(
                        "match buffer `{}` is {} but its source `{}` is {}",
                        mb.buffer.name,
                        mb.buffer.dtype,
                        mb.source.buffer.name,
                        mb.source.buffer.dtype
                    ),
                    msp,
                );
            }
            let defined = self.define_buffer(&mb.buffer, bspan, true);
            let source = self.resolve(mb.source.buffer.id());
            self.match_source.insert(mb.buffer.id(), source);
            let ctx = self.top();
            ctx.vars.extend(defined);
            ctx.bufs.push(mb.buffer.id());
        }
    }

    /// Checks the block's read and write regions (a write region indexed by
    /// a reduction iterator is reported later, if the block stores there)
    /// and that an init comes with a reduction iterator.
    fn check_block_regions(&mut self, blk: &Block, bspan: Span) {
        for rd in &blk.reads {
            self.check_region(rd, "read region", bspan);
        }
        let reduce: Vec<Var> = blk
            .iter_vars
            .iter()
            .filter(|iv| iv.kind == IterKind::Reduce)
            .map(|iv| iv.var.clone())
            .collect();
        for wr in &blk.writes {
            self.check_region(wr, "write region", bspan);
            let target = self.resolve(wr.buffer.id());
            self.top().declared_writes.insert(target);
            if !self.course_rules || reduce.is_empty() || self.top().local.contains(&target) {
                continue;
            }
            'ranges: for range in &wr.region {
                for e in [&range.min, &range.extent] {
                    if let Some(v) = vars_in(e)
                        .into_iter()
                        .find(|v| reduce.iter().any(|r| r == v))
                    {
                        let d = reduce_in_output(
                            &v,
                            &wr.buffer.name,
                            &blk.name,
                            pick(e.span(), bspan),
                            bspan,
                        );
                        self.top()
                            .pending_region_errors
                            .push((Pending::Reduce, target, d));
                        break 'ranges;
                    }
                }
            }
        }
        if let Some(init) = &blk.init {
            if reduce.is_empty() && self.course_rules {
                self.error(
                    Diagnostic::error(
                        format!(
                            "block `{}` has a `T.init()` but no reduction iterator",
                            blk.name
                        ),
                        pick(init.span(), bspan),
                    )
                    .with_label(bspan, format!("block `{}`", blk.name))
                    .with_note("`T.init()` initialises the output before the first step of a reduction; declare the reduction axis with `T.axis.reduce`"),
                );
            }
        }
    }

    // Called only while `block_realize` visits a block: after its
    // `enter_block` pushed the block's `BlockCtx`, before the
    // `Task::ExitBlock` it schedules pops it, so the stack is never empty
    // here.
    #[allow(clippy::expect_used)]
    fn top(&mut self) -> &mut BlockCtx {
        self.blocks.last_mut().expect("inside a block")
    }

    fn exit_block(&mut self) {
        let Some(ctx) = self.blocks.pop() else {
            return;
        };
        if ctx.nonopaque {
            self.depth = self.depth.saturating_sub(1);
        }
        for (kind, buf, d) in ctx.pending_region_errors {
            let covered = match kind {
                Pending::Reduce => ctx.reduce_store_errors.contains(&buf),
                Pending::Access => ctx.access_errors.contains(&buf),
            };
            if !covered {
                self.diags.push(d);
            }
        }
        if !ctx.root {
            for (buf, name, span) in &ctx.stored {
                if ctx.local.contains(buf) || ctx.declared_writes.contains(buf) {
                    continue;
                }
                self.diags.push(
                    Diagnostic::warning(
                        format!(
                            "block `{}` stores to buffer `{name}`, which is not in its `T.writes`",
                            ctx.name
                        ),
                        *span,
                    )
                    .with_label(ctx.span, format!("block `{}`", ctx.name))
                    .with_note("TVM accepts an explicit `T.writes` that does not match the body, but schedule primitives trust it: list every buffer the block stores to, or leave `T.writes` out to have it inferred"),
                );
            }
        }
        if let Some(parent) = self.blocks.last_mut() {
            parent
                .access_errors
                .extend(ctx.access_errors.iter().copied());
            for (buf, name, span) in ctx.stored {
                if !ctx.local.contains(&buf) && parent.stored_set.insert(buf) {
                    parent.stored.push((buf, name, span));
                }
            }
        }
        for b in ctx.bufs.iter().rev() {
            self.end_buf(*b);
        }
        for v in ctx.vars.iter().rev() {
            self.end_var(*v);
        }
    }

    /// The binding of `iv` must take exactly the values of its domain.
    fn check_binding(
        &mut self,
        iv: &IterVar,
        val: &Expr,
        cov: BindingCoverage,
        block: &str,
        bspan: Span,
    ) {
        let (Some(dmin), Some(dext)) = (iv.dom.min.as_int(), iv.dom.extent.as_int()) else {
            return;
        };
        let (dlo, dhi) = (dmin as i128, dmin as i128 + dext as i128);
        let vsp = pick(val.span(), bspan);
        let name = iv.var.name();
        let shown = render::expr(val);
        let d = match cov.coverage {
            Coverage::Unknown => return,
            Coverage::Interval { lo, hi } if (lo, hi) == (dlo, dhi) => return,
            // Part of the domain only: an error for the course, accepted by
            // TVM 0.27 (see [`ApiGeneration`]).
            Coverage::Interval { lo, hi } if lo >= dlo && hi <= dhi && !self.course_rules => {
                return
            }
            Coverage::Interval { lo, hi } if lo >= dlo && hi <= dhi => Diagnostic::error(
                format!(
                    "block iterator `{name}` has domain [{dlo}, {dhi}) but its binding `{shown}` only covers [{lo}, {hi})"
                ),
                vsp,
            )
            .with_note("the block would never run for the rest of its domain; make the loop extents match the iterator's domain"),
            Coverage::Interval { lo, hi } | Coverage::Within { lo, hi } => {
                if (lo >= dlo && hi <= dhi) || !cov.predicate_applied {
                    // Inside the domain but with gaps, or maybe masked by a
                    // `T.where` the analysis did not understand: undecided.
                    return;
                }
                Diagnostic::error(
                    format!(
                        "block iterator `{name}` has domain [{dlo}, {dhi}) but its binding `{shown}` takes values in [{lo}, {hi})"
                    ),
                    vsp,
                )
                .with_note("the binding leaves the iterator's domain; enlarge the domain, or guard the block with `T.where`")
            }
        };
        self.error(d.with_label(bspan, format!("in block `{block}`")));
    }
}

fn reduce_in_output(v: &Var, buffer: &str, block: &str, span: Span, bspan: Span) -> Diagnostic {
    Diagnostic::error(
        format!(
            "reduction iterator `{}` is used in an index of output buffer `{buffer}`",
            v.name()
        ),
        span,
    )
    .with_label(bspan, format!("in block `{block}`"))
    .with_note(format!(
        "`{}` is declared with `T.axis.reduce`: every step of the reduction must update the same output element, so outputs may only be indexed by spatial iterators",
        v.name()
    ))
}
