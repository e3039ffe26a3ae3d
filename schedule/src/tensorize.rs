//! Tensor intrinsics and `tensorize`.
//!
//! A [`TensorIntrin`] pairs a *description* PrimFunc (the computation, e.g.
//! a 16×16×16 matmul over `T.match_buffer`ed parameters) with an
//! *implementation* PrimFunc (what replaces it, e.g. `T.call_extern`).
//! Intrinsics live in a [`TensorIntrinTable`] owned by whoever runs the
//! schedule — the host, or one run of a script — never in global state: a
//! [`Schedule`] carries the table its `tensorize` calls look names up in
//! ([`Schedule::tensor_intrins_mut`], [`Schedule::set_tensor_intrins`]).

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::rc::Rc;

use super::primitives::{param, Args, ParamType as T, Primitive, Returns};
use super::replay::SchedValue;
use super::*;
use tessel_tir::arith::Analyzer;
use tessel_tir::ir::mutate::{walk_expr, walk_stmt, Mutator};
use tessel_tir::ir::printer::print_expr;

/// `tvm.tir.TensorIntrin`: a description and an implementation.
#[derive(Clone, Debug)]
pub struct TensorIntrin {
    pub desc: Rc<PrimFunc>,
    pub implementation: Rc<PrimFunc>,
}

/// Why an intrinsic cannot be registered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IntrinError(pub String);

impl fmt::Display for IntrinError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for IntrinError {}

impl TensorIntrin {
    /// Checks what `tensorize` relies on: the same number of parameters,
    /// every parameter a handle bound to a buffer, and both bodies a block
    /// (the `with T.block("root")` holding the reads and writes).
    pub fn new(
        desc: Rc<PrimFunc>,
        implementation: Rc<PrimFunc>,
    ) -> std::result::Result<TensorIntrin, IntrinError> {
        if desc.params.len() != implementation.params.len() {
            return Err(IntrinError(format!(
                "the description has {} parameters but the implementation {}; they must match",
                desc.params.len(),
                implementation.params.len()
            )));
        }
        for (what, f) in [("description", &desc), ("implementation", &implementation)] {
            for p in &f.params {
                if !p.dtype().is_handle() || f.param_buffer(p).is_none() {
                    return Err(IntrinError(format!(
                        "parameter `{}` of the {what} must be a handle matched to a buffer (`T.match_buffer`)",
                        p.name()
                    )));
                }
            }
            if f.body.as_block_realize().is_none() {
                return Err(IntrinError(format!(
                    "the body of the {what} must be a block (`with T.block(\"root\"):` with `T.reads`/`T.writes`)"
                )));
            }
        }
        Ok(TensorIntrin {
            desc,
            implementation,
        })
    }
}

/// Named tensor intrinsics (`TensorIntrin.register`). Cheap to clone.
#[derive(Clone, Debug, Default)]
pub struct TensorIntrinTable {
    intrins: BTreeMap<String, TensorIntrin>,
}

impl TensorIntrinTable {
    pub fn new() -> TensorIntrinTable {
        TensorIntrinTable::default()
    }

    /// `TensorIntrin.register(name, desc, impl, override=False)`.
    pub fn register(
        &mut self,
        name: &str,
        desc: Rc<PrimFunc>,
        implementation: Rc<PrimFunc>,
        override_existing: bool,
    ) -> std::result::Result<(), IntrinError> {
        if !override_existing && self.intrins.contains_key(name) {
            return Err(IntrinError(format!(
                "TensorIntrin `{name}` has already been registered"
            )));
        }
        let intrin = TensorIntrin::new(desc, implementation)?;
        self.intrins.insert(name.to_string(), intrin);
        Ok(())
    }

    /// `TensorIntrin.get(name)`.
    pub fn get(&self, name: &str) -> Option<&TensorIntrin> {
        self.intrins.get(name)
    }

    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.intrins.keys().map(String::as_str)
    }
}

impl Schedule {
    /// The intrinsics `tensorize` can use.
    pub fn tensor_intrins(&self) -> &TensorIntrinTable {
        &self.intrins
    }
    pub fn tensor_intrins_mut(&mut self) -> &mut TensorIntrinTable {
        &mut self.intrins
    }
    /// Replaces the table (a script run passes its own before each call).
    pub fn set_tensor_intrins(&mut self, table: TensorIntrinTable) {
        self.intrins = table;
    }
}

/// The trace records only the intrinsic's name: replaying needs the same table.
pub(super) const TENSORIZE: Primitive = Primitive {
    method: "tensorize",
    aliases: &[],
    kind: "Tensorize",
    params: &[
        param("block_or_loop", T::BlockLoopOrName),
        param("tensor_intrin", T::Str).attr(),
        param("preserve_unit_iters", T::Bool).or_bool(true).attr(),
    ],
    returns: Returns::Nothing,
    traced: true,
    apply: |sch, args| {
        sch.tensorize_concrete(
            args.rv("block_or_loop")?,
            &args.string("tensor_intrin")?,
            args.bool("preserve_unit_iters")?,
        )?;
        Ok(SchedValue::None)
    },
    menu: None,
};

impl Schedule {
    /// `sch.tensorize(block_or_loop, tensor_intrin, preserve_unit_iters=True)`:
    /// replaces the computation of a block (or of the subtree under a loop,
    /// blockized first) by the implementation of a registered intrinsic.
    ///
    /// As TVM: the block must match the intrinsic's description structurally
    /// — same loops, blocks, stores and expressions, variables and buffers
    /// mapped one to one (a buffer to the description's parameter of the same
    /// dtype and scope), the block's regions having the description's
    /// extents, the order of reads and writes included. Then the block's body
    /// becomes the implementation's, and each implementation parameter is
    /// bound to the matched region of the block's buffer by a
    /// `T.match_buffer` in the block. The block keeps its name, iterators,
    /// reads and writes.
    pub fn tensorize(
        &mut self,
        target: Rv,
        intrin_name: &str,
        preserve_unit_iters: bool,
    ) -> Result<()> {
        let args = vec![
            target.into(),
            intrin_name.into(),
            preserve_unit_iters.into(),
        ];
        self.apply_traced(&TENSORIZE, Args::typed(&TENSORIZE, args))?;
        Ok(())
    }

    fn tensorize_concrete(
        &mut self,
        target: Rv,
        intrin_name: &str,
        preserve_unit_iters: bool,
    ) -> Result<()> {
        const P: &str = "tensorize";
        let Some(intrin) = self.intrins.get(intrin_name).cloned() else {
            let known: Vec<&str> = self.intrins.names().collect();
            return Err(ScheduleError::not_found(
                P,
                if known.is_empty() {
                    format!("no tensor intrinsic named `{intrin_name}` is registered (none are)")
                } else {
                    format!(
                        "no tensor intrinsic named `{intrin_name}` is registered (known: {})",
                        known.join(", ")
                    )
                },
            ));
        };
        let (path, realize) = match target {
            Rv::Block(b) => self.resolve_block(P, BlockRV(b))?,
            Rv::Loop(l) => {
                let (path, _) = self.resolve_loop(P, LoopRV(l))?;
                let body = self.body(P)?;
                let outer = super::blockize::blockize_loop(P, &body, &path, preserve_unit_iters)?;
                (path, outer)
            }
            Rv::Expr(_) => {
                return Err(ScheduleError::argument_type(
                    P,
                    "expected a block or a loop",
                ))
            }
        };
        let new = apply_intrin(&realize, &intrin, intrin_name)
            .map_err(|m| ScheduleError::invalid_argument(P, m).at(path.clone()))?;
        self.replace_at(P, &path, Stmt::from_kind(StmtKind::BlockRealize(new)))
    }
}

/// TVM's `Tensorize` from the pattern match on: the block realize with the
/// implementation in place, or why the description does not match.
fn apply_intrin(
    realize: &BlockRealize,
    intrin: &TensorIntrin,
    name: &str,
) -> std::result::Result<BlockRealize, String> {
    let block = &realize.block;
    let (desc, imp) = (&intrin.desc, &intrin.implementation);
    // Index types: TVM converts the implementation to the block's; Tessel
    // does not convert yet, so they must agree.
    let index_bits = block
        .reads
        .iter()
        .chain(&block.writes)
        .flat_map(|r| r.region.iter().map(|x| x.min.dtype().bits))
        .max();
    let impl_bits = imp.body.as_block_realize().and_then(|r| {
        r.block
            .reads
            .iter()
            .chain(&r.block.writes)
            .flat_map(|x| x.region.iter().map(|y| y.min.dtype().bits))
            .max()
    });
    if let (Some(a), Some(b)) = (index_bits, impl_bits) {
        if a != b {
            return Err(format!(
                "block `{}` indexes with {a}-bit integers but intrinsic `{name}` with {b}-bit ones; Tessel does not convert index types yet",
                block.name
            ));
        }
    }
    // Step 2: the structural match.
    let mut cmp = Comparator::default();
    let lhs = Stmt::from_kind(StmtKind::BlockRealize(realize.clone()));
    if !cmp.stmt(&lhs, &desc.body) {
        let why = if cmp.errors.is_empty() {
            "the structures differ".to_string()
        } else {
            cmp.errors.join("; ")
        };
        return Err(format!(
            "block `{}` does not match the description of tensor intrinsic `{name}`: {why}",
            block.name
        ));
    }
    // Step 3: a fresh copy of the implementation, and the mappings.
    let Some(impl_root) = imp.body.as_block_realize() else {
        return Err(format!("the implementation of `{name}` has no root block"));
    };
    let mut renew = Renew::default();
    let mut match_buffers = Vec::new();
    let mut impl_region: Vec<(Buffer, Vec<Range>)> = Vec::new();
    for r in impl_root.block.reads.iter().chain(&impl_root.block.writes) {
        let b = renew.buf(&r.buffer);
        if !impl_region.iter().any(|(x, _)| *x == b) {
            let region = r
                .region
                .iter()
                .map(|x| Range::new(renew.expr(&x.min), renew.expr(&x.extent)))
                .collect();
            impl_region.push((b, region));
        }
    }
    for (dp, ip) in desc.params.iter().zip(&imp.params) {
        let (Some(db), Some(ib)) = (desc.param_buffer(dp), imp.param_buffer(ip)) else {
            return Err(format!(
                "every parameter of `{name}` must be matched to a buffer"
            ));
        };
        let ib = renew.buf(ib);
        let Some(cur) = cmp.rhs_buffer_map.get(&db.id()).cloned() else {
            return Err(format!(
                "the description of `{name}` never accesses its parameter buffer `{}`",
                db.name
            ));
        };
        let Some((_, old_region)) = impl_region.iter().find(|(b, _)| *b == ib) else {
            return Err(format!(
                "the implementation of `{name}` does not list `{}` among its root block's reads or writes",
                ib.name
            ));
        };
        let Some(base) = cmp.buffer_indices.get(&cur.id()) else {
            return Err(format!("internal: no base indices for `{}`", cur.name));
        };
        let Some(offset) = base.len().checked_sub(old_region.len()) else {
            return Err(format!(
                "the implementation's `{}` has more dimensions than `{}`",
                ib.name, cur.name
            ));
        };
        let mut region: Vec<Range> = base[..offset]
            .iter()
            .map(|m| Range::point(m.clone()))
            .collect();
        for (m, r) in base[offset..].iter().zip(old_region) {
            region.push(Range::new(
                m.clone(),
                Expr::cast(m.dtype(), r.extent.clone()),
            ));
        }
        match_buffers.push(MatchBufferRegion {
            buffer: ib,
            source: BufferRegion {
                buffer: cur,
                region,
            },
        });
    }
    // Step 5: the implementation's body in the block.
    let mut new = realize.clone();
    new.block.body = renew.stmt(&impl_root.block.body);
    new.block.match_buffers = match_buffers;
    for (k, v) in &impl_root.block.annotations {
        new.block
            .annotations
            .entry(k.clone())
            .or_insert_with(|| v.clone());
    }
    Ok(new)
}

/// A copy of IR with every variable and buffer given a fresh identity,
/// consistently (TVM's `DeepCopy` of the implementation: each tensorize
/// gets its own buffers and stride variables).
#[derive(Default)]
struct Renew {
    vars: HashMap<VarId, Var>,
    bufs: HashMap<BufferId, Buffer>,
}

impl Renew {
    fn var(&mut self, v: &Var) -> Var {
        self.vars
            .entry(v.id())
            .or_insert_with(|| v.fresh_copy())
            .clone()
    }
    fn buf(&mut self, b: &Buffer) -> Buffer {
        if let Some(n) = self.bufs.get(&b.id()) {
            return n.clone();
        }
        let data = self.var(&b.data);
        let shape: Vec<Expr> = b.shape.iter().map(|e| self.expr(e)).collect();
        let strides: Vec<Expr> = b.strides.iter().map(|e| self.expr(e)).collect();
        let elem_offset = self.expr(&b.elem_offset);
        let nb = b.derive(|n| {
            n.data = data;
            n.shape = shape;
            n.strides = strides;
            n.elem_offset = elem_offset;
        });
        self.bufs.insert(b.id(), nb.clone());
        nb
    }
}

impl Mutator for Renew {
    fn expr(&mut self, e: &Expr) -> Expr {
        match e.kind() {
            ExprKind::Var(v) => Expr::new(ExprKind::Var(self.var(v)), e.dtype(), e.span()),
            ExprKind::Let { var, .. } => {
                let nv = self.var(var);
                let out = walk_expr(self, e);
                match out.kind() {
                    ExprKind::Let { value, body, .. } => Expr::new(
                        ExprKind::Let {
                            var: nv,
                            value: value.clone(),
                            body: body.clone(),
                        },
                        e.dtype(),
                        e.span(),
                    ),
                    _ => out,
                }
            }
            _ => walk_expr(self, e),
        }
    }
    fn buffer(&mut self, b: &Buffer) -> Buffer {
        self.buf(b)
    }
    fn stmt(&mut self, s: &Stmt) -> Stmt {
        let out = walk_stmt(self, s);
        let kind = match out.kind() {
            StmtKind::For(f) => StmtKind::For(For {
                loop_var: self.var(&f.loop_var),
                ..f.clone()
            }),
            StmtKind::Let { var, value, body } => StmtKind::Let {
                var: self.var(var),
                value: value.clone(),
                body: body.clone(),
            },
            StmtKind::BlockRealize(r) => {
                let mut r = r.clone();
                for iv in &mut r.block.iter_vars {
                    iv.var = self.var(&iv.var);
                }
                StmtKind::BlockRealize(r)
            }
            _ => return out,
        };
        Stmt::new(kind, out.span())
    }
}

/// TVM's `TensorizeComparator`: the block (left) against the description
/// (right). Variables and buffers of the right are mapped to the left's on
/// first sight; indices are compared relative to the base the top block's
/// regions set for each buffer.
#[derive(Default)]
struct Comparator {
    /// Left variable → right variable.
    equal_map: HashMap<VarId, Var>,
    /// Knows left variables as their right counterparts.
    ana: Analyzer,
    /// Right (description) buffer → left buffer.
    rhs_buffer_map: HashMap<BufferId, Buffer>,
    /// Left buffer → the minimum of each dimension of its top-level region.
    buffer_indices: HashMap<BufferId, Vec<Expr>>,
    /// Whether the visit is still at the top block (whose iterators and
    /// bindings are not compared).
    past_scope: bool,
    /// Loops paired so far (left name, right name), for messages.
    loop_pairs: Vec<(String, String)>,
    /// The block being compared, for messages.
    current_block: String,
    errors: Vec<String>,
}

fn kind_name(s: &Stmt) -> &'static str {
    match s.kind() {
        StmtKind::For(_) => "a loop",
        StmtKind::BlockRealize(_) => "a block",
        StmtKind::Store { .. } => "a store",
        StmtKind::Let { .. } => "a let",
        StmtKind::If { .. } => "an if",
        StmtKind::Evaluate(_) => "an evaluation",
        StmtKind::Seq(_) => "a sequence",
        StmtKind::Allocate { .. } => "an allocation",
    }
}

fn index_mismatch(
    block: &str,
    l: &Expr,
    lb: &Buffer,
    base: &Expr,
    r: &Expr,
    rb: &Buffer,
) -> String {
    format!(
        "block `{block}` indexes `{}` with `{}` (relative to the tile at `{}`) where the description indexes `{}` with `{}`",
        lb.name,
        print_expr(l),
        print_expr(base),
        rb.name,
        print_expr(r)
    )
}

impl Comparator {
    fn fail(&mut self, msg: String) -> bool {
        self.errors.push(msg);
        false
    }

    fn stmt(&mut self, l: &Stmt, r: &Stmt) -> bool {
        if l.same_node(r) {
            return true;
        }
        match (l.kind(), r.kind()) {
            (StmtKind::For(a), StmtKind::For(b)) => {
                self.loop_pairs
                    .push((a.loop_var.name().to_string(), b.loop_var.name().to_string()));
                if !self.def_equal(&a.loop_var, &b.loop_var) {
                    return self.fail(format!(
                        "loop `{}` corresponds to `{}`, already matched elsewhere",
                        a.loop_var.name(),
                        b.loop_var.name()
                    ));
                }
                if !self.expr(&a.min, &b.min) || !self.expr(&a.extent, &b.extent) {
                    return self.fail(format!(
                        "loop `{}` ranges over [{}, {} + {}) but the description's `{}` over [{}, {} + {})",
                        a.loop_var.name(),
                        print_expr(&a.min),
                        print_expr(&a.min),
                        print_expr(&a.extent),
                        b.loop_var.name(),
                        print_expr(&b.min),
                        print_expr(&b.min),
                        print_expr(&b.extent)
                    ));
                }
                if a.kind != b.kind || a.thread_tag != b.thread_tag {
                    return self.fail(format!(
                        "loop `{}` is {} but the description's `{}` is {}",
                        a.loop_var.name(),
                        super::loops::kind_phrase(a),
                        b.loop_var.name(),
                        super::loops::kind_phrase(b)
                    ));
                }
                if !self.annotations(&a.annotations, &b.annotations) {
                    return self.fail(format!(
                        "the annotations of loop `{}` differ from the description's",
                        a.loop_var.name()
                    ));
                }
                self.stmt(&a.body, &b.body)
            }
            (StmtKind::Seq(a), StmtKind::Seq(b)) => {
                if a.len() != b.len() {
                    return self.fail(format!(
                        "a sequence of {} statements where the description has {}",
                        a.len(),
                        b.len()
                    ));
                }
                a.iter().zip(b).all(|(x, y)| self.stmt(x, y))
            }
            (
                StmtKind::Store {
                    buffer: lb,
                    value: lv,
                    indices: li,
                },
                StmtKind::Store {
                    buffer: rb,
                    value: rv,
                    indices: ri,
                },
            ) => {
                if !self.buffer_access(lb, li, rb, ri) {
                    return false;
                }
                if !self.expr(lv, rv) {
                    return self.fail(format!(
                        "the value stored into `{}` differs: `{}` vs the description's `{}`",
                        lb.name,
                        print_expr(lv),
                        print_expr(rv)
                    ));
                }
                true
            }
            (StmtKind::BlockRealize(a), StmtKind::BlockRealize(b)) => {
                if self.past_scope {
                    if a.iter_values.len() != b.iter_values.len() {
                        return self.fail(format!(
                            "block `{}` has {} iterators, the description's block `{}` {}",
                            a.block.name,
                            a.iter_values.len(),
                            b.block.name,
                            b.iter_values.len()
                        ));
                    }
                    for (i, (x, y)) in a.iter_values.iter().zip(&b.iter_values).enumerate() {
                        if !self.expr(x, y) {
                            let pairs: Vec<String> = self
                                .loop_pairs
                                .iter()
                                .map(|(l, r)| format!("`{l}`-`{r}`"))
                                .collect();
                            let name = |blk: &Block| {
                                blk.iter_vars
                                    .get(i)
                                    .map(|iv| iv.var.name().to_string())
                                    .unwrap_or_default()
                            };
                            return self.fail(format!(
                                "block `{}` binds `{}` to `{}` where the description's block `{}` binds `{}` to `{}` (loops pair up in nesting order: {})",
                                a.block.name,
                                name(&a.block),
                                print_expr(x),
                                b.block.name,
                                name(&b.block),
                                print_expr(y),
                                pairs.join(", ")
                            ));
                        }
                    }
                }
                if !self.expr(&a.predicate, &b.predicate) {
                    return self.fail(format!(
                        "block `{}` has the predicate `{}`, the description `{}`",
                        a.block.name,
                        print_expr(&a.predicate),
                        print_expr(&b.predicate)
                    ));
                }
                self.block(&a.block, &b.block)
            }
            (StmtKind::Evaluate(a), StmtKind::Evaluate(b)) => self.expr(a, b),
            (
                StmtKind::If {
                    cond: c1,
                    then: t1,
                    otherwise: o1,
                },
                StmtKind::If {
                    cond: c2,
                    then: t2,
                    otherwise: o2,
                },
            ) => {
                if !self.expr(c1, c2) {
                    return self.fail(format!(
                        "the condition `{}` differs from the description's `{}`",
                        print_expr(c1),
                        print_expr(c2)
                    ));
                }
                if !self.stmt(t1, t2) {
                    return false;
                }
                match (o1, o2) {
                    (Some(x), Some(y)) => self.stmt(x, y),
                    (None, None) => true,
                    _ => self.fail("an `else` branch is present on one side only".into()),
                }
            }
            (
                StmtKind::Let {
                    var: v1,
                    value: x1,
                    body: b1,
                },
                StmtKind::Let {
                    var: v2,
                    value: x2,
                    body: b2,
                },
            ) => self.def_equal(v1, v2) && self.expr(x1, x2) && self.stmt(b1, b2),
            _ => self.fail(format!(
                "{} where the description has {}",
                kind_name(l),
                kind_name(r)
            )),
        }
    }

    fn block(&mut self, l: &Block, r: &Block) -> bool {
        self.current_block = l.name.clone();
        for iv in &l.iter_vars {
            self.ana.bind(&iv.var, &iv.dom);
        }
        if self.past_scope {
            if l.iter_vars.len() != r.iter_vars.len() {
                return self.fail(format!(
                    "block `{}` has {} iterators, the description's block `{}` {}",
                    l.name,
                    l.iter_vars.len(),
                    r.name,
                    r.iter_vars.len()
                ));
            }
            for (a, b) in l.iter_vars.iter().zip(&r.iter_vars) {
                if !self.def_equal(&a.var, &b.var) || a.kind != b.kind {
                    return self.fail(format!(
                        "iterator `{}` ({}) of block `{}` does not correspond to `{}` ({}) of the description",
                        a.var.name(),
                        a.kind.axis_name(),
                        l.name,
                        b.var.name(),
                        b.kind.axis_name()
                    ));
                }
            }
            if l.alloc_buffers.len() != r.alloc_buffers.len()
                || !l
                    .alloc_buffers
                    .iter()
                    .zip(&r.alloc_buffers)
                    .all(|(a, b)| self.buffer(a, b))
            {
                return self.fail(format!(
                    "the allocations of block `{}` differ from the description's",
                    l.name
                ));
            }
        }
        for (what, a, b) in [
            ("writes", &l.writes, &r.writes),
            ("reads", &l.reads, &r.reads),
        ] {
            if a.len() != b.len() {
                let list = |v: &Vec<BufferRegion>| {
                    v.iter()
                        .map(|x| x.buffer.name.clone())
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                return self.fail(format!(
                    "block `{}` {what} {} regions ({}) but the description {} ({})",
                    l.name,
                    a.len(),
                    list(a),
                    b.len(),
                    list(b)
                ));
            }
            for (x, y) in a.iter().zip(b.iter()) {
                if !self.buffer_region(x, y) {
                    return self.fail(format!(
                        "the {what} of block `{}` do not match the description's (in order)",
                        l.name
                    ));
                }
            }
        }
        self.past_scope = true;
        self.stmt(&l.body, &r.body)
    }

    fn annotations(&mut self, a: &Annotations, b: &Annotations) -> bool {
        if a.len() != b.len() {
            return false;
        }
        a.iter().zip(b.iter()).all(|((k1, v1), (k2, v2))| {
            k1 == k2
                && match (v1, v2) {
                    (AttrValue::Expr(x), AttrValue::Expr(y)) => self.expr(x, y),
                    _ => format!("{v1:?}") == format!("{v2:?}"),
                }
        })
    }

    fn def_equal(&mut self, l: &Var, r: &Var) -> bool {
        if l == r {
            return true;
        }
        if let Some(m) = self.equal_map.get(&l.id()) {
            return m == r;
        }
        self.equal_map.insert(l.id(), r.clone());
        self.ana.bind_value(l, &Expr::cast(l.dtype(), r.to_expr()));
        true
    }

    fn buffer(&mut self, l: &Buffer, r: &Buffer) -> bool {
        if l == r {
            return true;
        }
        if let Some(m) = self.rhs_buffer_map.get(&r.id()) {
            if m == l {
                return true;
            }
            let m = m.name.clone();
            return self.fail(format!(
                "`{}` is accessed where the description accesses `{}`, already matched to `{m}`",
                l.name, r.name
            ));
        }
        if l.dtype != r.dtype || l.scope != r.scope {
            return self.fail(format!(
                "buffer `{}` ({}, scope \"{}\") cannot play the description's `{}` ({}, scope \"{}\")",
                l.name, l.dtype, l.scope, r.name, r.dtype, r.scope
            ));
        }
        if !self.def_equal(&l.data, &r.data) {
            return self.fail(format!(
                "buffer `{}` corresponds to two buffers of the description",
                l.name
            ));
        }
        self.rhs_buffer_map.insert(r.id(), l.clone());
        true
    }

    fn buffer_region(&mut self, l: &BufferRegion, r: &BufferRegion) -> bool {
        if !self.buffer(&l.buffer, &r.buffer) {
            return false;
        }
        let Some(offset) = l.region.len().checked_sub(r.region.len()) else {
            return self.fail(format!(
                "`{}` has fewer dimensions than the description's `{}`",
                l.buffer.name, r.buffer.name
            ));
        };
        match self.buffer_indices.get(&l.buffer.id()).cloned() {
            None => {
                if self.past_scope {
                    return self.fail(format!(
                        "`{}` is accessed but is not among the block's reads and writes",
                        l.buffer.name
                    ));
                }
                let mut base: Vec<Expr> =
                    l.region[..offset].iter().map(|x| x.min.clone()).collect();
                for (x, y) in l.region[offset..].iter().zip(&r.region) {
                    base.push(x.min.clone());
                    if !self.ana.can_prove_equal(&x.extent, &y.extent) {
                        return self.fail(format!(
                            "the region of `{}` has extent {} where the description's `{}` has {}",
                            l.buffer.name,
                            print_expr(&x.extent),
                            r.buffer.name,
                            print_expr(&y.extent)
                        ));
                    }
                }
                self.buffer_indices.insert(l.buffer.id(), base);
            }
            Some(base) => {
                if l.region[..offset].iter().any(|x| !x.extent.is_const_int(1)) {
                    return self.fail(format!(
                        "the leading dimensions of `{}` must be accessed one element at a time",
                        l.buffer.name
                    ));
                }
                for (i, (x, y)) in l.region[offset..].iter().zip(&r.region).enumerate() {
                    let Some(b) = base.get(i + offset) else {
                        return false;
                    };
                    if !self.ana.can_prove_equal(&x.extent, &y.extent) {
                        return self.fail(format!(
                            "block `{}` accesses {} elements of `{}` along dimension {} where the description's `{}` accesses {}",
                            self.current_block,
                            print_expr(&x.extent),
                            l.buffer.name,
                            i + offset,
                            r.buffer.name,
                            print_expr(&y.extent)
                        ));
                    }
                    let rel = Expr::binary(BinOp::Sub, x.min.clone(), b.clone());
                    if !self.ana.can_prove_equal(&rel, &y.min) {
                        let msg = index_mismatch(
                            &self.current_block,
                            &x.min,
                            &l.buffer,
                            b,
                            &y.min,
                            &r.buffer,
                        );
                        return self.fail(msg);
                    }
                }
            }
        }
        true
    }

    fn buffer_access(&mut self, lb: &Buffer, li: &[Expr], rb: &Buffer, ri: &[Expr]) -> bool {
        if !self.buffer(lb, rb) {
            return false;
        }
        let Some(offset) = li.len().checked_sub(ri.len()) else {
            return self.fail(format!(
                "`{}` is indexed with fewer indices than the description's `{}`",
                lb.name, rb.name
            ));
        };
        let Some(base) = self.buffer_indices.get(&lb.id()).cloned() else {
            return self.fail(format!(
                "`{}` is accessed but the block does not list it among its reads and writes",
                lb.name
            ));
        };
        for (i, r) in ri.iter().enumerate() {
            let (Some(l), Some(b)) = (li.get(i + offset), base.get(i + offset)) else {
                return false;
            };
            let rel = Expr::binary(BinOp::Sub, l.clone(), b.clone());
            if !self.ana.can_prove_equal(&rel, r) {
                let msg = index_mismatch(&self.current_block, l, lb, b, r, rb);
                return self.fail(msg);
            }
        }
        true
    }

    fn expr(&mut self, l: &Expr, r: &Expr) -> bool {
        if l.same_node(r) {
            return true;
        }
        if l.dtype().kind != r.dtype().kind {
            return false;
        }
        match (l.kind(), r.kind()) {
            (ExprKind::Binary(o1, a1, b1), ExprKind::Binary(o2, a2, b2)) => {
                o1 == o2 && self.expr(a1, a2) && self.expr(b1, b2)
            }
            (ExprKind::Cmp(o1, a1, b1), ExprKind::Cmp(o2, a2, b2)) => {
                o1 == o2 && self.expr(a1, a2) && self.expr(b1, b2)
            }
            (ExprKind::And(a1, b1), ExprKind::And(a2, b2))
            | (ExprKind::Or(a1, b1), ExprKind::Or(a2, b2)) => {
                self.expr(a1, a2) && self.expr(b1, b2)
            }
            (ExprKind::Not(a), ExprKind::Not(b)) | (ExprKind::Cast(a), ExprKind::Cast(b)) => {
                self.expr(a, b)
            }
            (ExprKind::Int(a), ExprKind::Int(b)) => a == b,
            (ExprKind::Float(a), ExprKind::Float(b)) => a == b,
            (ExprKind::Str(a), ExprKind::Str(b)) => a == b,
            (ExprKind::Var(a), ExprKind::Var(b)) => {
                a == b || self.equal_map.get(&a.id()).is_some_and(|m| m == b)
            }
            (
                ExprKind::Load {
                    buffer: lb,
                    indices: li,
                },
                ExprKind::Load {
                    buffer: rb,
                    indices: ri,
                },
            ) => self.buffer_access(lb, li, rb, ri),
            (
                ExprKind::Select {
                    cond: c1,
                    then: t1,
                    otherwise: o1,
                },
                ExprKind::Select {
                    cond: c2,
                    then: t2,
                    otherwise: o2,
                },
            ) => self.expr(c1, c2) && self.expr(t1, t2) && self.expr(o1, o2),
            (ExprKind::Call { op: p1, args: a1 }, ExprKind::Call { op: p2, args: a2 }) => {
                p1 == p2 && a1.len() == a2.len() && a1.iter().zip(a2).all(|(x, y)| self.expr(x, y))
            }
            _ => false,
        }
    }
}
