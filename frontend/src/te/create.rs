//! `te.create_prim_func`: a TE graph as a schedulable TensorIR function,
//! built the way TVM 0.27 builds it.
//!
//! - Operations are visited in post-DFS order from the arguments (each op's
//!   inputs first, in the order the body first loads them).
//! - A placeholder must be an argument; its buffer is named after it.
//! - A compute becomes one loop nest (loops named after its index and reduce
//!   variables, in that order, with simplified bounds) holding one block per
//!   output (one block for a reduction), named after the tensor (the op for
//!   a reduction), made unique `C`, `C_1`, … with `.` spelled `_`. Block
//!   iterators are `v_<name>`; the body is simplified; a reduction gets
//!   `T.init()` with the reducer's identity and `C = C + …` as its update
//!   (several reduced values go through `v_<buffer>` let-bindings first).
//!   TVM 0.27 drops a reduction's `where=` and `init=`; so does this.
//! - Computes that are not arguments are allocated in the root block, in
//!   the order they are built; every block's `T.reads`/`T.writes` are
//!   inferred as TVMScript's parser infers them.
//! - Parameters are in argument order: a handle `var_<tensor>` bound to a
//!   buffer named after the tensor, or the scalar variable itself.
//! - The function has `global_symbol = "main"` and `tir.noalias = True`;
//!   `layout_free_placeholders` compute attributes become the function's
//!   `layout_free_buffers` (parameter indices).
//! - `index_dtype` (`Some(int64)` is what Relax's `emit_te` / LegalizeOps
//!   pass) rewrites every index — shapes, loops, iterators, buffer indices —
//!   to that type, as TVM's `IndexDataTypeNormalizer` does.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use tessel_tir::analysis::regions::infer_access_regions;
use tessel_tir::arith::Analyzer;
use tessel_tir::ir::mutate::{substitute_expr, walk_expr, Mutator};
use tessel_tir::ir::{
    AttrValue, Block, BlockRealize, Buffer, BufferId, DataType, Expr, ExprKind, For, ForKind,
    IterKind, IterVar, PrimFunc, Range, Stmt, StmtKind, Var, VarId,
};

use super::tensor::{BodyItem, ComputeOp, OpAttr, OpKind, Operation, Tensor};
use super::{TeError, TeResult};

/// One argument of `create_prim_func`: a tensor (a buffer parameter) or a
/// scalar variable (a scalar parameter).
#[derive(Clone, Debug)]
pub enum FuncArg {
    Tensor(Tensor),
    Var(Var),
}

impl From<Tensor> for FuncArg {
    fn from(t: Tensor) -> FuncArg {
        FuncArg::Tensor(t)
    }
}
impl From<&Tensor> for FuncArg {
    fn from(t: &Tensor) -> FuncArg {
        FuncArg::Tensor(t.clone())
    }
}
impl From<Var> for FuncArg {
    fn from(v: Var) -> FuncArg {
        FuncArg::Var(v)
    }
}

/// `te.create_prim_func([A, B, C])`.
pub fn create_prim_func(args: &[Tensor]) -> TeResult<PrimFunc> {
    let args: Vec<FuncArg> = args.iter().map(FuncArg::from).collect();
    create_prim_func_with(&args, None)
}

/// `te.create_prim_func(args, index_dtype_override)`.
pub fn create_prim_func_with(
    args: &[FuncArg],
    index_dtype: Option<DataType>,
) -> TeResult<PrimFunc> {
    if let Some(dt) = index_dtype {
        if !dt.is_int() || dt.lanes != 1 {
            return Err(TeError::argument_type(format!(
                "index_dtype_override must be an integer type, found {dt}"
            )));
        }
    }
    let arg_tensors: Vec<Tensor> = args
        .iter()
        .filter_map(|a| match a {
            FuncArg::Tensor(t) => Some(t.clone()),
            FuncArg::Var(_) => None,
        })
        .collect();
    let order = post_dfs_order(&arg_tensors);
    let mut info = Info {
        args: arg_tensors,
        buffers: HashMap::new(),
        real: HashSet::new(),
        root_alloc: Vec::new(),
        names: NameSupply::default(),
        ana: Analyzer::new(),
        layout_free: Vec::new(),
    };
    let mut root_stmts = Vec::new();
    for op in &order {
        match &op.node().kind {
            OpKind::Placeholder => {
                for t in op.outputs() {
                    if !info.args.contains(&t) {
                        return Err(TeError::new(format!(
                            "The operation {} produces tensor {}, but this tensor does not \
                             appear as a function argument",
                            op.name(),
                            t.name()
                        )));
                    }
                    let b = decl_buffer(&t);
                    info.real.insert(b.id());
                    info.buffers.insert(t.proxy().id(), b);
                }
            }
            OpKind::Compute(c) => root_stmts.push(info.compute_stmt(op, c)?),
        }
    }

    let mut params = Vec::new();
    let mut buffer_map = Vec::new();
    let mut buffer_index: HashMap<BufferId, usize> = HashMap::new();
    for (i, a) in args.iter().enumerate() {
        match a {
            FuncArg::Tensor(t) => {
                let b =
                    info.buffers.get(&t.proxy().id()).cloned().ok_or_else(|| {
                        TeError::new(format!("tensor {} has no buffer", t.name()))
                    })?;
                // TVM names the handle after the tensor; `var_` keeps the
                // buffer its own name where a symbolic shape makes the
                // printer declare it with `T.match_buffer(var_A, ...)`.
                let p = Var::new(format!("var_{}", t.name()), DataType::handle());
                buffer_index.insert(b.id(), i);
                params.push(p.clone());
                buffer_map.push((p, b));
            }
            FuncArg::Var(v) => params.push(v.clone()),
        }
    }

    let mut attrs = BTreeMap::new();
    attrs.insert("global_symbol".to_string(), AttrValue::Str("main".into()));
    attrs.insert("tir.noalias".to_string(), AttrValue::Bool(true));

    // Layout-free placeholders: parameter indices on the function.
    let mut layout_free = BTreeSet::new();
    for t in &info.layout_free {
        if let Some(b) = info.buffers.get(&t.proxy().id()) {
            if let Some(i) = buffer_index.get(&b.id()) {
                layout_free.insert(*i as i64);
            }
        }
    }
    if !layout_free.is_empty() {
        attrs.insert(
            "layout_free_buffers".to_string(),
            AttrValue::Array(layout_free.into_iter().map(AttrValue::Int).collect()),
        );
    }

    let body = if root_stmts.is_empty() {
        Stmt::evaluate_zero()
    } else {
        let body = Stmt::seq(root_stmts);
        let block = Block {
            name: "root".into(),
            iter_vars: vec![],
            reads: vec![],
            writes: vec![],
            alloc_buffers: info.root_alloc.clone(),
            match_buffers: vec![],
            annotations: BTreeMap::new(),
            init: None,
            body,
            span: Default::default(),
        };
        Stmt::from_kind(StmtKind::BlockRealize(BlockRealize {
            iter_values: vec![],
            predicate: Expr::bool(true),
            block,
        }))
    };
    let func = PrimFunc {
        params,
        buffer_map,
        body,
        attrs,
        span: Default::default(),
    };
    match index_dtype {
        Some(dt) => Ok(super::index_dtype::normalize(&func, dt)),
        None => Ok(func),
    }
}

/// TVM's `PostDFSOrder` over the read graph, from the arguments' ops.
pub(crate) fn post_dfs_order(args: &[Tensor]) -> Vec<Operation> {
    let mut order = Vec::new();
    let mut visited: HashSet<*const super::tensor::OpNode> = HashSet::new();
    // Iterative DFS (deep graphs must not overflow the stack).
    for t in args {
        let root = t.op().clone();
        if visited.contains(&(root.node() as *const _)) {
            continue;
        }
        visited.insert(root.node() as *const _);
        let mut stack: Vec<(Operation, usize)> = vec![(root, 0)];
        while let Some((op, next)) = stack.pop() {
            let inputs = op.input_tensors();
            if next < inputs.len() {
                let child = inputs[next].op().clone();
                stack.push((op, next + 1));
                if visited.insert(child.node() as *const _) {
                    stack.push((child, 0));
                }
            } else {
                order.push(op);
            }
        }
    }
    order
}

/// TVM's `decl_buffer(shape, dtype, name)`: a global, compact buffer.
fn decl_buffer(t: &Tensor) -> Buffer {
    let shape = t.shape().to_vec();
    // A zero-dimensional buffer's offset is int64, as TVM's default.
    let elem_dt = if shape.is_empty() || shape.iter().any(|d| d.dtype() == DataType::i64()) {
        DataType::i64()
    } else {
        DataType::i32()
    };
    Buffer::new(t.name(), t.dtype(), shape).derive(|n| n.elem_offset = Expr::int(0, elem_dt))
}

/// Unique block names: `C`, then `C_1`, `C_2`, … skipping taken names.
#[derive(Default)]
struct NameSupply {
    counters: HashMap<String, usize>,
}

impl NameSupply {
    fn fresh(&mut self, name: &str) -> String {
        let name = name.replace('.', "_");
        let Some(&used) = self.counters.get(&name) else {
            self.counters.insert(name.clone(), 0);
            return name;
        };
        let mut c = used;
        loop {
            c += 1;
            let candidate = format!("{name}_{c}");
            if !self.counters.contains_key(&candidate) {
                self.counters.insert(name, c);
                self.counters.insert(candidate.clone(), 0);
                return candidate;
            }
        }
    }
}

struct Info {
    args: Vec<Tensor>,
    /// Proxy buffer → the function's buffer.
    buffers: HashMap<BufferId, Buffer>,
    /// The function's buffers.
    real: HashSet<BufferId>,
    root_alloc: Vec<Buffer>,
    names: NameSupply,
    ana: Analyzer,
    /// Tensors named by `layout_free_placeholders` compute attributes.
    layout_free: Vec<Tensor>,
}

/// Attributes TVM drops from blocks (`LayoutFreePlaceholdersNormalizer`).
const BLOCKED_ATTRS: [&str; 3] = [
    "const_matrix",
    "auto_scheduler_simplify_const_tensor",
    "workload",
];

impl Info {
    /// Proxy loads → the function's buffers.
    fn transform(&self, e: &Expr) -> TeResult<Expr> {
        let mut m = ProxyToBuffer {
            buffers: &self.buffers,
            real: &self.real,
            missing: None,
        };
        let r = m.expr(e);
        match m.missing {
            Some(name) => Err(TeError::new(format!(
                "tensor {name} is read before it is computed"
            ))),
            None => Ok(r),
        }
    }

    fn is_arg(&self, t: &Tensor) -> bool {
        self.args.contains(t)
    }

    /// TVM's `GenerateStmtFromCompute`: the loop nest of one compute.
    fn compute_stmt(&mut self, op: &Operation, c: &ComputeOp) -> TeResult<Stmt> {
        let axes: Vec<&IterVar> = c.axis.iter().chain(&c.reduce_axis).collect();
        let loop_vars: Vec<Var> = axes
            .iter()
            .map(|a| {
                let bits = a.dom.min.dtype().bits.max(a.dom.extent.dtype().bits);
                Var::new(a.var.name(), DataType::int(bits))
            })
            .collect();
        let bindings: Vec<Expr> = loop_vars.iter().map(Var::to_expr).collect();
        let mut blocks = Vec::new();
        match c.body.first() {
            Some(BodyItem::Reduce(_)) => {
                let tensors: Vec<Tensor> =
                    (0..op.num_outputs()).filter_map(|i| op.output(i)).collect();
                blocks.push(self.block(op, c, &tensors, &bindings, 0)?);
            }
            _ => {
                for (i, t) in op.outputs().enumerate() {
                    blocks.push(self.block(op, c, &[t], &bindings, i)?);
                }
            }
        }
        let mut body = Stmt::seq(blocks);
        for (a, v) in axes.iter().zip(&loop_vars).rev() {
            let min = promote_imm(&self.ana.simplify(&a.dom.min), v.dtype());
            let extent = promote_imm(&self.ana.simplify(&a.dom.extent), v.dtype());
            body = Stmt::from_kind(StmtKind::For(For {
                loop_var: v.clone(),
                min,
                extent,
                kind: ForKind::Serial,
                thread_tag: None,
                annotations: BTreeMap::new(),
                body,
            }));
        }
        Ok(body)
    }

    /// TVM's `GenerateBlockFromTensors`: one block of a compute.
    fn block(
        &mut self,
        op: &Operation,
        c: &ComputeOp,
        tensors: &[Tensor],
        bindings: &[Expr],
        body_index: usize,
    ) -> TeResult<Stmt> {
        let mut iter_vars = Vec::new();
        let mut var_map: HashMap<VarId, Expr> = HashMap::new();
        for a in c.axis.iter().chain(&c.reduce_axis) {
            let v = Var::new(format!("v_{}", a.var.name()), a.var.dtype());
            var_map.insert(a.var.id(), v.to_expr());
            iter_vars.push(IterVar {
                var: v,
                dom: Range::new(
                    self.ana.simplify(&a.dom.min),
                    self.ana.simplify(&a.dom.extent),
                ),
                kind: a.kind,
            });
        }
        let mut buffers = Vec::new();
        for t in tensors {
            let b = decl_buffer(t);
            self.real.insert(b.id());
            self.buffers.insert(t.proxy().id(), b.clone());
            if !self.is_arg(t) {
                self.root_alloc.push(b.clone());
            }
            buffers.push(b);
        }
        let indices: Vec<Expr> = c
            .axis
            .iter()
            .map(|a| var_map[&a.var.id()].clone())
            .collect();
        let remap = |this: &Info, e: &Expr| -> TeResult<Expr> {
            Ok(substitute_expr(&this.transform(e)?, &var_map))
        };

        let name;
        let mut init = None;
        let body;
        match &c.body[body_index] {
            BodyItem::Reduce(r) => {
                name = self.names.fresh(op.name());
                let n = buffers.len();
                let lhs: Vec<Expr> = buffers
                    .iter()
                    .map(|b| Expr::load(b, indices.clone()))
                    .collect();
                let mut rhs = Vec::new();
                for (i, l) in lhs.iter().enumerate() {
                    let r_i = self.ana.simplify(&remap(self, &r.source[i])?);
                    if r_i.dtype() != l.dtype() {
                        return Err(TeError::new(format!(
                            "reduction {}: value {i} has dtype {} but its buffer {}",
                            op.name(),
                            r_i.dtype(),
                            l.dtype()
                        )));
                    }
                    rhs.push(r_i);
                }
                let combined = r.combiner.apply(&lhs, &rhs);
                let mut init_stmts = Vec::new();
                let mut body_stmts = Vec::new();
                let mut temps = Vec::new();
                for (i, b) in buffers.iter().enumerate() {
                    let identity = remap(self, &r.combiner.identity[i])?;
                    init_stmts.push(store(b, identity, &indices));
                    let value = if n > 1 {
                        let t = Var::new(format!("v_{}", b.name), lhs[i].dtype());
                        temps.push(t.clone());
                        t.to_expr()
                    } else {
                        remap(self, &combined[i])?
                    };
                    body_stmts.push(store(b, value, &indices));
                }
                init = Some(Stmt::seq(init_stmts));
                let mut b = Stmt::seq(body_stmts);
                if n > 1 {
                    for i in (0..n).rev() {
                        let value = remap(self, &combined[i])?;
                        b = Stmt::from_kind(StmtKind::Let {
                            var: temps[i].clone(),
                            value,
                            body: b,
                        });
                    }
                }
                body = b;
            }
            BodyItem::Expr(e) => {
                name = self.names.fresh(&tensors[0].name());
                let value = self.ana.simplify(&remap(self, e)?);
                body = store(&buffers[0], value, &indices);
            }
        }

        let mut annotations = BTreeMap::new();
        for (k, v) in &op.node().attrs {
            if BLOCKED_ATTRS.contains(&k.as_str()) {
                continue;
            }
            match v {
                OpAttr::Value(v) => {
                    annotations.insert(k.clone(), v.clone());
                }
                OpAttr::Tensors(ts) if k == "layout_free_placeholders" => {
                    self.layout_free.extend(ts.iter().cloned());
                }
                OpAttr::Tensors(ts) => {
                    return Err(TeError::new(format!(
                        "compute attribute {k:?} holds tensors ({}); only \
                         layout_free_placeholders may",
                        ts.len()
                    )))
                }
            }
        }

        let mut bindings = bindings.to_vec();
        if iter_vars.is_empty() {
            iter_vars.push(IterVar {
                var: Var::new("vi", DataType::i32()),
                dom: Range::new(Expr::i32(0), Expr::i32(1)),
                kind: IterKind::Spatial,
            });
            bindings.push(Expr::i32(0));
        }
        let mut block = Block {
            name,
            iter_vars,
            reads: vec![],
            writes: vec![],
            alloc_buffers: vec![],
            match_buffers: vec![],
            annotations,
            init,
            body,
            span: Default::default(),
        };
        let (reads, writes) = infer_access_regions(&block);
        block.reads = reads;
        block.writes = writes;
        Ok(Stmt::from_kind(StmtKind::BlockRealize(BlockRealize {
            iter_values: bindings,
            predicate: Expr::bool(true),
            block,
        })))
    }
}

fn store(b: &Buffer, value: Expr, indices: &[Expr]) -> Stmt {
    Stmt::from_kind(StmtKind::Store {
        buffer: b.clone(),
        value,
        indices: indices.to_vec(),
    })
}

/// TVM's `For` constructor widens a narrower constant bound to the loop
/// variable's type.
fn promote_imm(e: &Expr, dtype: DataType) -> Expr {
    match e.kind() {
        ExprKind::Int(v) if e.dtype() != dtype && e.dtype().bits <= dtype.bits => {
            Expr::int(*v, dtype)
        }
        _ => e.clone(),
    }
}

struct ProxyToBuffer<'a> {
    buffers: &'a HashMap<BufferId, Buffer>,
    real: &'a HashSet<BufferId>,
    missing: Option<String>,
}

impl Mutator for ProxyToBuffer<'_> {
    fn expr(&mut self, e: &Expr) -> Expr {
        if let ExprKind::Load { buffer, .. } = e.kind() {
            if !self.buffers.contains_key(&buffer.id()) && !self.real.contains(&buffer.id()) {
                self.missing.get_or_insert_with(|| buffer.name.clone());
            }
        }
        walk_expr(self, e)
    }
    fn buffer(&mut self, b: &Buffer) -> Buffer {
        self.buffers
            .get(&b.id())
            .cloned()
            .unwrap_or_else(|| b.clone())
    }
}
