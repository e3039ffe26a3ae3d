//! DeadCodeElimination (`relax.transform.DeadCodeElimination(entry_functions)`)
//! and `remove_all_unused` (`relax.analysis.remove_all_unused`).
//!
//! - [`remove_all_unused`]: drops every binding whose variable is never
//!   used, repeatedly, as long as its value has no side effect: anything in
//!   a dataflow block, and outside one any operator call, or a call of a
//!   graph function known to be pure. Empty blocks disappear.
//! - [`dead_code_elimination`]: functions not reachable from the entry
//!   functions are removed (the entries are the given names, or every
//!   public function when none are given), and [`remove_all_unused`] runs on
//!   each remaining graph function; then unreachable functions are removed
//!   again (a removed binding may have been the last call of a function).

use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use tessel_tir::ir::{BaseFunc, IRModule};

use super::super::ir::{BindingBlock, Callee, Expr, ExprKind, Function, SeqExpr};
use super::{error, PassResult};

/// Whether evaluating `e` may have a side effect.
fn impure(e: &Expr, module: Option<&IRModule>) -> bool {
    match e.kind() {
        ExprKind::Call(c) => match &c.callee {
            Callee::Op(_) => false,
            Callee::Global(g) => match module.and_then(|m| m.get(g.name())) {
                Some(BaseFunc::Graph(f)) => !f.pure,
                _ => true,
            },
        },
        _ => false,
    }
}

/// `func` without its unused side-effect-free bindings. `module` (when
/// given) tells whether called graph functions are pure; without it a call
/// of a graph function outside a dataflow block is kept.
pub fn remove_all_unused(func: &Function, module: Option<&IRModule>) -> Function {
    let mut blocks: Vec<BindingBlock> = func.body.blocks.clone();
    loop {
        let mut used = HashSet::new();
        for b in blocks.iter().flat_map(|b| b.bindings.iter()) {
            b.value.for_each_var(&mut |v| {
                used.insert(v.id());
            });
        }
        func.body.body.for_each_var(&mut |v| {
            used.insert(v.id());
        });
        let mut changed = false;
        for block in &mut blocks {
            let before = block.bindings.len();
            let dataflow = block.dataflow;
            block
                .bindings
                .retain(|b| used.contains(&b.var.id()) || (!dataflow && impure(&b.value, module)));
            changed |= block.bindings.len() != before;
        }
        if !changed {
            break;
        }
    }
    blocks.retain(|b| !b.bindings.is_empty());
    Function {
        body: SeqExpr {
            blocks,
            body: func.body.body.clone(),
        },
        ..func.clone()
    }
}

/// The functions reachable from `entries` (through `call_tir` callees,
/// calls and global references).
fn reachable(module: &IRModule, entries: &[String]) -> HashSet<String> {
    let mut seen: HashSet<String> = HashSet::new();
    let mut stack: Vec<String> = entries.to_vec();
    while let Some(n) = stack.pop() {
        if !seen.insert(n.clone()) {
            continue;
        }
        if let Some(f) = module.get_graph(&n) {
            for g in f.globals() {
                stack.push(g.name().to_string());
            }
        }
    }
    seen
}

fn drop_unreachable(module: &IRModule, entries: &[String]) -> IRModule {
    let keep = reachable(module, entries);
    let mut out = module.clone();
    out.functions.retain(|(n, _)| keep.contains(n));
    out
}

/// Removes unreachable functions and unused bindings. `entry_functions`
/// empty means every public function (one with a `global_symbol`).
pub fn dead_code_elimination(module: &IRModule, entry_functions: &[&str]) -> PassResult<IRModule> {
    let mut entries: Vec<String> = Vec::new();
    for e in entry_functions {
        if module.get(e).is_none() {
            return Err(error(
                format!("DeadCodeElimination: the module has no function `{e}`"),
                Default::default(),
            ));
        }
        entries.push(e.to_string());
    }
    for (n, f) in &module.functions {
        let public = match f {
            BaseFunc::Graph(g) => !g.is_private(),
            BaseFunc::Prim(p) => p.attrs.contains_key("global_symbol"),
        };
        if public && !entries.contains(n) {
            entries.push(n.clone());
        }
    }
    let mut out = drop_unreachable(module, &entries);
    let snapshot = out.clone();
    let mut replaced: HashMap<String, BaseFunc> = HashMap::new();
    for (n, f) in snapshot.graph_funcs() {
        replaced.insert(
            n.to_string(),
            BaseFunc::Graph(Rc::new(remove_all_unused(f, Some(&snapshot)))),
        );
    }
    for (n, f) in &mut out.functions {
        if let Some(r) = replaced.remove(n) {
            *f = r;
        }
    }
    Ok(drop_unreachable(&out, &entries))
}
