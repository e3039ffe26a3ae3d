//! FuseTIR (`relax.transform.FuseTIR()`): every primitive graph function
//! (`{"Primitive": True}`, made by [`super::fuse_ops`]) becomes ONE PrimFunc
//! of the same name, and its callers call that with `R.call_tir`.
//!
//! The fused PrimFunc, as TVM 0.27 builds it:
//! - parameters: one buffer per graph parameter (named after it), then the
//!   output buffer;
//! - the bodies of the called PrimFuncs one after the other in the root
//!   block, their parameter buffers replaced by the fused function's; the
//!   result of each call is a buffer named `<output>_intermediate`
//!   (allocated in the root block, except the last, which is the output
//!   parameter); buffers the callees allocate are allocated in the root block
//!   too; loop and block variables are fresh (a PrimFunc called twice gives
//!   two independent copies); a block name used twice gets `_1`, `_2`;
//! - attributes: `tir.noalias` only (private, no `op_pattern`).
//!
//! In the callers, `y = fused(x…)` becomes `y = R.call_tir(fused, (x…),
//! out_sinfo)`, and `gv = y` right after it (the dataflow output alias) is
//! folded into `gv = R.call_tir(...)`. PrimFuncs only the primitive functions
//! called disappear with them; then, as TVM's FuseTIR does, dead code is
//! eliminated (unused bindings, functions no public function reaches).

use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use tessel_tir::arith::expr_deep_equal;
use tessel_tir::ir::mutate::{walk_expr, walk_stmt, Mutator};
use tessel_tir::ir::{
    AttrValue, BaseFunc, Block, BlockRealize, Buffer, BufferId, BufferRegion, DataType,
    Expr as PrimExpr, ExprKind as PrimKind, IRModule, IterVar, PrimFunc, Stmt, StmtKind,
    Var as TirVar, VarId,
};

use super::super::ir::{Binding, BindingBlock, Callee, Expr, ExprKind, Function, SeqExpr};
use super::{as_call_tir, error, use_counts, PassResult};

/// Fuses every primitive graph function of the module into a PrimFunc.
pub fn fuse_tir(module: &IRModule) -> PassResult<IRModule> {
    let primitives: Vec<(String, Rc<Function>)> = module
        .graph_funcs()
        .filter(|(_, f)| f.attrs.contains_key("Primitive"))
        .map(|(n, f)| (n.to_string(), f.clone()))
        .collect();
    let mut out = module.clone();
    let mut inner_callees: HashSet<String> = HashSet::new();
    let mut rets = HashMap::new();
    for (name, f) in &primitives {
        let prim = fuse_function(f, module)?;
        for g in f.globals() {
            inner_callees.insert(g.name().to_string());
        }
        rets.insert(name.clone(), f.ret.clone());
        out.insert(name.clone(), BaseFunc::Prim(Rc::new(prim)));
    }
    // Rewrite the callers.
    let callers: Vec<(String, Rc<Function>)> = out
        .graph_funcs()
        .map(|(n, f)| (n.to_string(), f.clone()))
        .collect();
    for (name, f) in callers {
        if let Some(new) = rewrite_caller(&f, &rets) {
            out.insert(name, BaseFunc::Graph(Rc::new(new)));
        }
    }
    // Drop the PrimFuncs nothing calls any more.
    let mut used: HashSet<String> = HashSet::new();
    for (_, f) in out.graph_funcs() {
        for g in f.globals() {
            used.insert(g.name().to_string());
        }
    }
    out.functions
        .retain(|(n, _)| !inner_callees.contains(n) || used.contains(n));
    // TVM's FuseTIR ends with DeadCodeElimination over the public functions.
    super::dead_code_elimination(&out, &[])
}

fn rewrite_caller(
    f: &Function,
    rets: &HashMap<String, super::super::ir::StructInfo>,
) -> Option<Function> {
    let mut changed = false;
    let uses = use_counts(f);
    let mut blocks = Vec::new();
    for block in &f.body.blocks {
        let mut bindings: Vec<Binding> = Vec::new();
        let mut fused_vars: HashSet<VarId> = HashSet::new();
        for b in &block.bindings {
            if let Some(c) = b.value.as_call() {
                if let Callee::Global(g) = &c.callee {
                    if let Some(ret) = rets.get(g.name()) {
                        changed = true;
                        let call = Expr::call_tir(g.name(), c.args.clone(), ret.clone())
                            .with_span(b.value.span());
                        fused_vars.insert(b.var.id());
                        bindings.push(Binding {
                            var: b.var.clone(),
                            value: call,
                            span: b.span,
                        });
                        continue;
                    }
                }
            }
            // `gv = y` right after `y = fused(...)`, y used only here.
            if let ExprKind::Var(y) = b.value.kind() {
                if block.dataflow
                    && y.is_dataflow()
                    && fused_vars.contains(&y.id())
                    && uses.get(&y.id()) == Some(&1)
                {
                    if let Some(last) = bindings.last_mut() {
                        if last.var == *y {
                            last.var = b.var.clone();
                            continue;
                        }
                    }
                }
            }
            bindings.push(b.clone());
        }
        blocks.push(BindingBlock {
            bindings,
            dataflow: block.dataflow,
        });
    }
    changed.then(|| Function {
        body: SeqExpr {
            blocks,
            body: f.body.body.clone(),
        },
        ..f.clone()
    })
}

/// Replaces buffers and variables, giving loop and block variables fresh
/// copies.
struct Rewriter {
    buffers: HashMap<BufferId, Buffer>,
    vars: HashMap<VarId, PrimExpr>,
}

impl Mutator for Rewriter {
    fn expr(&mut self, e: &PrimExpr) -> PrimExpr {
        if let PrimKind::Var(v) = e.kind() {
            return self.vars.get(&v.id()).cloned().unwrap_or_else(|| e.clone());
        }
        walk_expr(self, e)
    }
    fn stmt(&mut self, s: &Stmt) -> Stmt {
        match s.kind() {
            StmtKind::For(l) => {
                let nv = l.loop_var.fresh_copy();
                self.vars.insert(l.loop_var.id(), nv.to_expr());
                let out = walk_stmt(self, s);
                if let StmtKind::For(nl) = out.kind() {
                    let mut nl = nl.clone();
                    nl.loop_var = nv;
                    return Stmt::new(StmtKind::For(nl), s.span());
                }
                out
            }
            StmtKind::BlockRealize(r) => {
                let mut ivs = Vec::new();
                for iv in &r.block.iter_vars {
                    let nv = iv.var.fresh_copy();
                    self.vars.insert(iv.var.id(), nv.to_expr());
                    ivs.push(nv);
                }
                let out = walk_stmt(self, s);
                if let StmtKind::BlockRealize(nr) = out.kind() {
                    let mut nr = nr.clone();
                    // Two inputs that became one buffer: one region.
                    dedup_regions(&mut nr.block.reads);
                    dedup_regions(&mut nr.block.writes);
                    nr.block.iter_vars = nr
                        .block
                        .iter_vars
                        .iter()
                        .zip(ivs)
                        .map(|(iv, v)| IterVar {
                            var: v,
                            dom: iv.dom.clone(),
                            kind: iv.kind,
                        })
                        .collect();
                    return Stmt::new(StmtKind::BlockRealize(nr), s.span());
                }
                out
            }
            _ => walk_stmt(self, s),
        }
    }
    fn buffer(&mut self, b: &Buffer) -> Buffer {
        self.buffers
            .get(&b.id())
            .cloned()
            .unwrap_or_else(|| b.clone())
    }
}

fn dedup_regions(regions: &mut Vec<BufferRegion>) {
    let mut out: Vec<BufferRegion> = Vec::new();
    for r in regions.drain(..) {
        let dup = out.iter().any(|o| {
            o.buffer.id() == r.buffer.id()
                && o.region.len() == r.region.len()
                && o.region.iter().zip(&r.region).all(|(a, b)| {
                    expr_deep_equal(&a.min, &b.min) && expr_deep_equal(&a.extent, &b.extent)
                })
        });
        if !dup {
            out.push(r);
        }
    }
    *regions = out;
}

/// Renames blocks whose name is already taken (`T_add` → `T_add_1`).
fn dedup_block_names(s: &Stmt, taken: &mut HashSet<String>) -> Stmt {
    struct Names<'a>(&'a mut HashSet<String>);
    impl Mutator for Names<'_> {
        fn stmt(&mut self, s: &Stmt) -> Stmt {
            let out = walk_stmt(self, s);
            if let StmtKind::BlockRealize(r) = out.kind() {
                let base = r.block.name.clone();
                let mut name = base.clone();
                let mut i = 1;
                while self.0.contains(&name) {
                    name = format!("{base}_{i}");
                    i += 1;
                }
                self.0.insert(name.clone());
                if name != base {
                    let mut nr = r.clone();
                    nr.block.name = name;
                    return Stmt::new(StmtKind::BlockRealize(nr), s.span());
                }
            }
            out
        }
    }
    Names(taken).stmt(s)
}

fn fuse_function(f: &Function, module: &IRModule) -> PassResult<PrimFunc> {
    let mut params = Vec::new();
    let mut buffer_map = Vec::new();
    let mut value_buffer: HashMap<VarId, Buffer> = HashMap::new();
    for p in &f.params {
        let t = p.sinfo().as_tensor();
        let (Some(shape), Some(dt)) = (t.and_then(|t| t.shape.clone()), t.and_then(|t| t.dtype))
        else {
            return Err(error(
                format!(
                    "FuseTIR: parameter `{}` of `{}` must be a tensor of known shape and dtype",
                    p.name(),
                    p.name()
                ),
                p.span(),
            ));
        };
        let index_dtype = shape.first().map_or(DataType::i64(), |d| d.dtype());
        let buf = Buffer::new(p.name(), dt, shape).derive(|n| {
            n.elem_offset = PrimExpr::int(0, index_dtype);
        });
        let h = TirVar::new(p.name(), DataType::handle());
        params.push(h.clone());
        buffer_map.push((h, buf.clone()));
        value_buffer.insert(p.id(), buf);
    }
    let bindings: Vec<&Binding> = f.body.bindings().collect();
    let out_var = f.body.body.as_var().cloned();
    let mut allocs: Vec<Buffer> = Vec::new();
    let mut stmts: Vec<Stmt> = Vec::new();
    let mut block_names: HashSet<String> = HashSet::new();
    let mut out_buffer: Option<Buffer> = None;
    for b in &bindings {
        let Some((callee, args, _)) = as_call_tir(&b.value) else {
            return Err(error(
                "FuseTIR: a primitive function may only contain `R.call_tir` bindings",
                b.span,
            ));
        };
        let Some(inner) = module.get_prim(callee) else {
            return Err(error(
                format!("FuseTIR: `{callee}` is not a PrimFunc of the module"),
                b.span,
            ));
        };
        if inner.params.len() != args.len() + 1 || inner.buffer_map.len() != inner.params.len() {
            return Err(error(
                format!("FuseTIR: `{callee}` must take one buffer per argument and one output"),
                b.span,
            ));
        }
        let mut rw = Rewriter {
            buffers: HashMap::new(),
            vars: HashMap::new(),
        };
        for (k, a) in args.iter().enumerate() {
            let Some(buf) = a.as_var().and_then(|v| value_buffer.get(&v.id())) else {
                return Err(error(
                    format!("FuseTIR: argument {k} of `{callee}` is not a tensor of the function"),
                    b.span,
                ));
            };
            let Some(inner_buf) = inner.param_buffer(&inner.params[k]) else {
                return Err(error(
                    format!("FuseTIR: parameter {k} of `{callee}` is not a buffer"),
                    b.span,
                ));
            };
            bind_shape(&mut rw, inner_buf, buf);
            rw.buffers.insert(inner_buf.id(), buf.clone());
        }
        let Some(inner_out) = inner.param_buffer(&inner.params[args.len()]) else {
            return Err(error(
                format!("FuseTIR: the output parameter of `{callee}` is not a buffer"),
                b.span,
            ));
        };
        let shape: Vec<PrimExpr> = inner_out.shape.iter().map(|d| rw.expr(d)).collect();
        let ob = inner_out.derive(|n| {
            n.name = format!("{}_intermediate", n.name);
            n.shape = shape;
        });
        rw.buffers.insert(inner_out.id(), ob.clone());
        value_buffer.insert(b.var.id(), ob.clone());
        let (body, inner_allocs) = match inner.body.kind() {
            StmtKind::BlockRealize(r) if r.block.name == "root" => {
                (r.block.body.clone(), r.block.alloc_buffers.clone())
            }
            _ => (inner.body.clone(), Vec::new()),
        };
        for a in inner_allocs {
            let shape: Vec<PrimExpr> = a.shape.iter().map(|d| rw.expr(d)).collect();
            let na = a.derive(|n| n.shape = shape);
            rw.buffers.insert(a.id(), na.clone());
            allocs.push(na);
        }
        let body = rw.stmt(&body);
        stmts.push(dedup_block_names(&body, &mut block_names));
        if out_var.as_ref() == Some(&b.var) {
            out_buffer = Some(ob);
        } else {
            allocs.push(ob);
        }
    }
    let Some(out_buffer) = out_buffer else {
        return Err(error(
            "FuseTIR: a primitive function must return the result of its last `R.call_tir`",
            f.span,
        ));
    };
    let h = TirVar::new(&out_buffer.name, DataType::handle());
    params.push(h.clone());
    buffer_map.push((h, out_buffer));
    let block = Block {
        name: "root".into(),
        iter_vars: vec![],
        reads: vec![],
        writes: vec![],
        alloc_buffers: allocs,
        match_buffers: vec![],
        annotations: Default::default(),
        init: None,
        body: Stmt::seq(stmts),
        span: Default::default(),
    };
    let mut attrs = std::collections::BTreeMap::new();
    attrs.insert("tir.noalias".to_string(), AttrValue::Bool(true));
    Ok(PrimFunc {
        params,
        buffer_map,
        body: Stmt::from_kind(StmtKind::BlockRealize(BlockRealize {
            iter_values: vec![],
            predicate: PrimExpr::bool(true),
            block,
        })),
        attrs,
        span: f.span,
    })
}

/// Maps the symbolic sizes of an inner buffer to the outer buffer's sizes.
fn bind_shape(rw: &mut Rewriter, inner: &Buffer, outer: &Buffer) {
    for (i, o) in inner.shape.iter().zip(&outer.shape) {
        if let Some(v) = i.as_var() {
            rw.vars.entry(v.id()).or_insert_with(|| o.clone());
        }
    }
}
