//! FuseOps (`relax.transform.FuseOps()`): groups `R.call_tir` bindings of
//! each dataflow block into private graph functions marked
//! `{"Primitive": True}`, following TVM's operator-pattern fusion (run
//! [`super::annotate_tir_op_pattern`] first; a PrimFunc without
//! `op_pattern` is opaque and never fused).
//!
//! The algorithm is TVM's: a post-dominator tree over the block's data-flow
//! graph (a value used after the block, or by a non-`call_tir` binding, has
//! no post-dominator); then, in binding order,
//! - phase 0: an out-element-wise-fusable node (matmul, conv2d) fuses with
//!   its post-dominator when every node on the way is element-wise or
//!   broadcast and the path's pattern is element-wise;
//! - every phase: an element-wise/broadcast node fuses into its
//!   post-dominator when the path is at most injective and ends in an
//!   injective, reduction or out-element-wise-fusable node;
//! - phase 1: an injective node fuses through injective nodes.
//!
//! A group of two or more bindings becomes `fused_<callee>_<callee>…`
//! (`fused_matmul_add_relu`): parameters are the values the group uses from
//! outside, in order of first use; its body is one dataflow block with the
//! group's bindings; the caller's group is replaced by one call at the
//! position of the group's first binding (later when a value it needs comes
//! later); its last binding is its only output. A group of two or more
//! bindings whose result is unused is dropped (TVM emits only used outputs).

use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use tessel_tir::ir::{AttrValue, BaseFunc, IRModule, VarId};

use super::super::ir::{
    Binding, BindingBlock, Call, Callee, Expr, ExprKind, Function, GlobalVar, SeqExpr, Var,
};
use super::op_pattern::{pattern_of, OpPattern};
use super::{as_call_tir, module_names, unique_global_name, PassResult};

/// Fuses operators in every graph function that is not itself primitive.
pub fn fuse_ops(module: &IRModule) -> PassResult<IRModule> {
    let mut out = module.clone();
    let graph: Vec<(String, Rc<Function>)> = module
        .graph_funcs()
        .filter(|(_, f)| !f.attrs.contains_key("Primitive"))
        .map(|(n, f)| (n.to_string(), f.clone()))
        .collect();
    for (name, func) in graph {
        if let Some(new) = fuse_function(&func, &mut out) {
            out.insert(name, BaseFunc::Graph(Rc::new(new)));
        }
    }
    Ok(out)
}

struct Graph {
    pattern: Vec<OpPattern>,
    /// Consumers with the pattern of the edge (the consumer's).
    outputs: Vec<Vec<(usize, OpPattern)>>,
    extern_ref: Vec<bool>,
}

struct DomTree {
    parent: Vec<Option<usize>>,
    depth: Vec<usize>,
    pattern: Vec<OpPattern>,
}

fn post_dominators(g: &Graph) -> DomTree {
    let n = g.pattern.len();
    let mut t = DomTree {
        parent: vec![None; n],
        depth: vec![0; n],
        pattern: vec![OpPattern::Opaque; n],
    };
    for i in (0..n).rev() {
        if g.extern_ref[i] || g.outputs[i].is_empty() {
            t.depth[i] = 1;
            continue;
        }
        let mut pat = OpPattern::ElemWise;
        let mut parent: Option<usize> = None;
        let mut first = true;
        for &(c, e) in &g.outputs[i] {
            pat = pat.max(e);
            parent = if first {
                Some(c)
            } else {
                parent.and_then(|p| lca(&t, p, c, &mut pat))
            };
            first = false;
        }
        t.parent[i] = parent;
        t.depth[i] = parent.map_or(1, |p| t.depth[p] + 1);
        t.pattern[i] = pat;
    }
    t
}

fn lca(t: &DomTree, mut a: usize, mut b: usize, pat: &mut OpPattern) -> Option<usize> {
    while a != b {
        if t.depth[a] < t.depth[b] {
            *pat = (*pat).max(t.pattern[b]);
            b = t.parent[b]?;
        } else if t.depth[a] > t.depth[b] {
            *pat = (*pat).max(t.pattern[a]);
            a = t.parent[a]?;
        } else {
            *pat = (*pat).max(t.pattern[a]).max(t.pattern[b]);
            a = t.parent[a]?;
            b = t.parent[b]?;
        }
    }
    Some(a)
}

struct Groups {
    parent: Vec<usize>,
    pattern: Vec<OpPattern>,
    anchor: Vec<bool>,
}

impl Groups {
    fn root(&self, mut i: usize) -> usize {
        while self.parent[i] != i {
            i = self.parent[i];
        }
        i
    }
    fn merge(&mut self, child: usize, parent: usize) {
        let (c, p) = (self.root(child), self.root(parent));
        if c == p {
            return;
        }
        self.parent[c] = p;
        if self.anchor[c] {
            self.anchor[p] = true;
            self.pattern[p] = self.pattern[c].max(self.pattern[p]);
        }
    }
}

fn check_path(
    g: &Graph,
    groups: &Groups,
    src: usize,
    sink: usize,
    fcond: &dyn Fn(OpPattern, bool) -> bool,
) -> bool {
    let mut visited = HashSet::new();
    fn go(
        g: &Graph,
        groups: &Groups,
        n: usize,
        sink: usize,
        fcond: &dyn Fn(OpPattern, bool) -> bool,
        visited: &mut HashSet<usize>,
    ) -> bool {
        if !visited.insert(n) {
            return true;
        }
        if !fcond(groups.pattern[groups.root(n)], n == sink) {
            return false;
        }
        if n == sink {
            return true;
        }
        g.outputs[n]
            .iter()
            .all(|&(c, _)| go(g, groups, c, sink, fcond, visited))
    }
    g.outputs[src]
        .iter()
        .all(|&(c, _)| go(g, groups, c, sink, fcond, &mut visited))
}

fn commit(g: &Graph, groups: &mut Groups, src: usize, sink: usize) {
    let target = groups.root(sink);
    let mut visited = HashSet::new();
    let mut stack = vec![src];
    while let Some(n) = stack.pop() {
        if n == sink || !visited.insert(n) {
            continue;
        }
        groups.merge(n, target);
        for &(c, _) in &g.outputs[n] {
            stack.push(c);
        }
    }
}

/// The groups of the block's bindings (each binding's group root).
fn partition(g: &Graph) -> Vec<usize> {
    let n = g.pattern.len();
    let dom = post_dominators(g);
    let mut groups = Groups {
        parent: (0..n).collect(),
        pattern: g.pattern.clone(),
        anchor: g
            .pattern
            .iter()
            .map(|p| *p == OpPattern::OutEWiseFusable)
            .collect(),
    };
    for phase in 0..2 {
        for i in 0..n {
            let root = groups.root(i);
            let gp = groups.pattern[root];
            if gp == OpPattern::Opaque {
                continue;
            }
            let Some(dp) = dom.parent[i] else { continue };
            if groups.root(dp) == root {
                continue;
            }
            let dpat = dom.pattern[i];
            if gp == OpPattern::OutEWiseFusable {
                if phase != 0 {
                    continue;
                }
                if dpat == OpPattern::ElemWise {
                    let f = |k: OpPattern, _: bool| k <= OpPattern::Broadcast;
                    if check_path(g, &groups, i, dp, &f) {
                        commit(g, &mut groups, i, dp);
                    }
                }
            } else if gp <= OpPattern::Broadcast {
                if dpat <= OpPattern::Injective || dpat == OpPattern::CommReduce {
                    let f = |k: OpPattern, sink: bool| {
                        if sink {
                            k <= OpPattern::OutEWiseFusable
                        } else {
                            k <= OpPattern::Injective
                        }
                    };
                    if check_path(g, &groups, i, dp, &f) {
                        commit(g, &mut groups, i, dp);
                    }
                }
            } else if gp == OpPattern::Injective {
                if phase != 1 {
                    continue;
                }
                if dpat <= OpPattern::Injective {
                    let f = |k: OpPattern, _: bool| k <= OpPattern::Injective;
                    if check_path(g, &groups, i, dp, &f) {
                        commit(g, &mut groups, i, dp);
                    }
                }
            }
        }
    }
    (0..n).map(|i| groups.root(i)).collect()
}

fn fuse_function(func: &Function, module: &mut IRModule) -> Option<Function> {
    // Variables used outside their own dataflow block.
    let mut changed = false;
    let mut blocks = Vec::new();
    for (bi, block) in func.body.blocks.iter().enumerate() {
        if !block.dataflow {
            blocks.push(block.clone());
            continue;
        }
        let mut outside: HashSet<VarId> = HashSet::new();
        for (bj, other) in func.body.blocks.iter().enumerate() {
            if bj != bi {
                for b in &other.bindings {
                    b.value.for_each_var(&mut |v| {
                        outside.insert(v.id());
                    });
                }
            }
        }
        func.body.body.for_each_var(&mut |v| {
            outside.insert(v.id());
        });
        match fuse_block(block, &outside, module) {
            Some(b) => {
                changed = true;
                blocks.push(b);
            }
            None => blocks.push(block.clone()),
        }
    }
    changed.then(|| Function {
        body: SeqExpr {
            blocks,
            body: func.body.body.clone(),
        },
        ..func.clone()
    })
}

fn fuse_block(
    block: &BindingBlock,
    outside: &HashSet<VarId>,
    module: &mut IRModule,
) -> Option<BindingBlock> {
    let bs = &block.bindings;
    let n = bs.len();
    let index: HashMap<VarId, usize> = bs
        .iter()
        .enumerate()
        .map(|(i, b)| (b.var.id(), i))
        .collect();
    let mut g = Graph {
        pattern: Vec::with_capacity(n),
        outputs: vec![Vec::new(); n],
        extern_ref: vec![false; n],
    };
    let mut callee: Vec<Option<String>> = Vec::with_capacity(n);
    for b in bs {
        let p = match as_call_tir(&b.value) {
            Some((name, _, _)) => {
                callee.push(Some(name.to_string()));
                module
                    .get_prim(name)
                    .map_or(OpPattern::Opaque, |f| pattern_of(f))
            }
            None => {
                callee.push(None);
                OpPattern::Opaque
            }
        };
        g.pattern.push(p);
    }
    for (j, b) in bs.iter().enumerate() {
        let mut seen = HashSet::new();
        b.value.for_each_var(&mut |v| {
            if let Some(&i) = index.get(&v.id()) {
                if seen.insert(i) {
                    g.outputs[i].push((j, g.pattern[j]));
                }
            }
        });
    }
    for (i, b) in bs.iter().enumerate() {
        g.extern_ref[i] = !b.var.is_dataflow() || outside.contains(&b.var.id());
    }
    let roots = partition(&g);
    let mut members: HashMap<usize, Vec<usize>> = HashMap::new();
    for (i, &r) in roots.iter().enumerate() {
        members.entry(r).or_default().push(i);
    }
    // Groups to turn into functions: two or more bindings whose only value
    // used outside the group is the last one's.
    let mut fused_at: HashMap<usize, Expr> = HashMap::new();
    let mut removed: HashSet<usize> = HashSet::new();
    let mut group_list: Vec<Vec<usize>> = members.into_values().filter(|m| m.len() > 1).collect();
    tessel_ir::sort::ascending(&mut group_list);
    for m in group_list {
        let Some(&last) = m.last() else {
            continue;
        };
        let inner: HashSet<usize> = m.iter().copied().collect();
        let single_output = m.iter().all(|&i| {
            i == last || (!g.extern_ref[i] && g.outputs[i].iter().all(|(c, _)| inner.contains(c)))
        });
        if !single_output {
            continue;
        }
        // A group whose result nothing uses is dropped whole, as TVM does
        // (it emits a group's call only for used outputs).
        if g.outputs[last].is_empty() && !g.extern_ref[last] {
            removed.extend(m.iter().copied());
            continue;
        }
        let names: Vec<&str> = m.iter().filter_map(|&i| callee[i].as_deref()).collect();
        let base = format!("fused_{}", names.join("_"));
        let name = unique_global_name(&module_names(module), &base);
        let Some((func, args)) = make_function(bs, &m) else {
            continue;
        };
        module.insert(name.clone(), BaseFunc::Graph(Rc::new(func)));
        let call = Expr::call(Call {
            callee: Callee::Global(GlobalVar::new(&name)),
            args,
            sinfo_args: Vec::new(),
        })
        .with_span(bs[last].value.span());
        fused_at.insert(last, call);
        removed.extend(m.iter().copied().filter(|&i| i != last));
    }
    if fused_at.is_empty() && removed.is_empty() {
        return None;
    }
    // Units in the new block: each remaining binding, the fused call
    // standing for its whole group. A unit goes where its first binding
    // was, later when a value it needs comes later (TVM's order).
    let mut units: Vec<(usize, Binding, Vec<usize>)> = Vec::new();
    let mut unit_of: HashMap<usize, usize> = HashMap::new();
    // TVM emits a fused call into a fresh dataflow variable named `lv` (the
    // printer tells equal names apart: `lv_1`); outputs keep their variable.
    let mut renamed: HashMap<tessel_tir::ir::VarId, Expr> = HashMap::new();
    for (i, b) in bs.iter().enumerate() {
        if removed.contains(&i) {
            continue;
        }
        let (binding, group) = match fused_at.remove(&i) {
            Some(call) => {
                let var = if b.var.is_dataflow() && b.var.name() != "lv" {
                    let v = Var::with("lv", b.var.sinfo().clone(), true, b.var.span());
                    renamed.insert(b.var.id(), v.to_expr());
                    v
                } else {
                    b.var.clone()
                };
                (
                    Binding {
                        var,
                        value: call,
                        span: b.span,
                    },
                    roots
                        .iter()
                        .enumerate()
                        .filter(|(_, &r)| r == roots[i])
                        .map(|(j, _)| j)
                        .collect::<Vec<_>>(),
                )
            }
            None => (b.clone(), vec![i]),
        };
        // `group` holds `i` itself, so its minimum is at most `i`.
        let first = group.iter().copied().min().unwrap_or(i);
        for &j in &group {
            unit_of.insert(j, units.len());
        }
        units.push((first, binding, group));
    }
    let deps: Vec<HashSet<usize>> = units
        .iter()
        .enumerate()
        .map(|(u, (_, _, group))| {
            let mut d = HashSet::new();
            for &j in group {
                bs[j].value.for_each_var(&mut |v| {
                    if let Some(&k) = index.get(&v.id()) {
                        let du = unit_of[&k];
                        if du != u {
                            d.insert(du);
                        }
                    }
                });
            }
            d
        })
        .collect();
    let mut emitted = vec![false; units.len()];
    let mut bindings = Vec::new();
    while bindings.len() < units.len() {
        let next = (0..units.len())
            .filter(|&u| !emitted[u] && deps[u].iter().all(|&d| emitted[d]))
            .min_by_key(|&u| units[u].0)?;
        emitted[next] = true;
        let mut binding = units[next].1.clone();
        binding.value = super::substitute(&binding.value, &renamed);
        bindings.push(binding);
    }
    Some(BindingBlock {
        bindings,
        dataflow: true,
    })
}

/// The primitive function of a group, and the arguments to call it with
/// (`None` for an empty group).
fn make_function(bs: &[Binding], members: &[usize]) -> Option<(Function, Vec<Expr>)> {
    let defined: HashSet<VarId> = members.iter().map(|&i| bs[i].var.id()).collect();
    let mut params: Vec<Var> = Vec::new();
    let mut args: Vec<Expr> = Vec::new();
    let mut map: HashMap<VarId, Expr> = HashMap::new();
    let &last = members.last()?;
    let mut bindings = Vec::new();
    let mut lifted = 0;
    for &i in members {
        let b = &bs[i];
        b.value.for_each_var(&mut |v| {
            if !defined.contains(&v.id()) && !map.contains_key(&v.id()) {
                let p = Var::with(v.name(), v.sinfo().clone(), false, v.span());
                map.insert(v.id(), p.to_expr());
                params.push(p);
                args.push(v.to_expr());
            }
        });
        // Tensor constants become parameters too (`param_0`, …), passed by
        // the caller, as TVM lifts them.
        let value = lift_constants(&b.value, &mut |c: &Expr| {
            let p = Var::new(format!("param_{lifted}"), constant_sinfo(c));
            lifted += 1;
            params.push(p.clone());
            args.push(c.clone());
            p.to_expr()
        });
        let value = super::substitute(&value, &map);
        let var = if i == last {
            Var::new("gv", b.var.sinfo().clone())
        } else {
            Var::dataflow(b.var.name(), b.var.sinfo().clone())
        };
        map.insert(b.var.id(), var.to_expr());
        bindings.push(Binding::new(var, value));
    }
    let out = bindings.last()?.var.clone();
    let mut attrs = std::collections::BTreeMap::new();
    attrs.insert("Primitive".to_string(), AttrValue::Bool(true));
    let f = Function {
        params,
        body: SeqExpr {
            blocks: vec![BindingBlock {
                bindings,
                dataflow: true,
            }],
            body: out.to_expr(),
        },
        ret: out.sinfo().clone(),
        attrs,
        pure: true,
        span: Default::default(),
    };
    Some((f, args))
}

fn constant_sinfo(c: &Expr) -> super::super::ir::StructInfo {
    match c.kind() {
        ExprKind::Constant(a) => {
            let shape: Vec<i64> = a.shape().iter().map(|&d| d as i64).collect();
            super::super::ir::StructInfo::tensor(&shape, a.dtype())
        }
        _ => super::super::ir::StructInfo::Object,
    }
}

/// A `call_tir` whose tensor-constant arguments are replaced by `lift(c)`.
fn lift_constants(e: &Expr, lift: &mut dyn FnMut(&Expr) -> Expr) -> Expr {
    let Some(c) = e.as_call() else {
        return e.clone();
    };
    if as_call_tir(e).is_none() || c.args.len() < 2 {
        return e.clone();
    }
    let ExprKind::Tuple(fields) = c.args[1].kind() else {
        return e.clone();
    };
    if !fields
        .iter()
        .any(|f| matches!(f.kind(), ExprKind::Constant(_)))
    {
        return e.clone();
    }
    let fields: Vec<Expr> = fields
        .iter()
        .map(|f| match f.kind() {
            ExprKind::Constant(_) => lift(f),
            _ => f.clone(),
        })
        .collect();
    let mut args = c.args.clone();
    args[1] = Expr::new(ExprKind::Tuple(fields), c.args[1].span());
    Expr::new(
        ExprKind::Call(Call {
            callee: c.callee.clone(),
            args,
            sinfo_args: c.sinfo_args.clone(),
        }),
        e.span(),
    )
}
