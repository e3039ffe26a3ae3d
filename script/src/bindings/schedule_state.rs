//! A schedule's state as TVM's tests inspect it: `sch.get_sref(...)` (a
//! `StmtSRef`: the statement, its parent block or loop, its place in a
//! sequence), `sch.state` (its module and `get_sref(stmt)`), the statements
//! those return (`For.loop_var`, `SBlock.name_hint`, `.body` down to a
//! sequence's items) and a trace's instructions and decisions.

use std::rc::Rc;

use super::host::{obj_of, Obj, SchedObj};
use crate::python::dict::Dict;
use crate::python::error::{ExcKind, PyErr, Res};
use crate::python::interp::Interp;
use crate::python::value::*;
use compiler_core::schedule::trace::Instruction;
use compiler_core::schedule::{tree, Rv, TraceDialect};
use tessel_ir::printer::{print_stmt, Dialect, PrintOptions};
use tessel_ir::{ForKind, Stmt, StmtKind};

/// `StmtSRef`: a block or loop of one schedule's current function, with the
/// blocks and loops above it (outermost first) as they were when asked.
#[derive(Clone)]
pub struct SRef {
    /// The schedule whose state this is (copies have their own srefs).
    pub sched: u64,
    pub node: Stmt,
    /// The blocks and loops above, outermost first, each with its own
    /// `seq_index`.
    pub ancestors: Vec<(Stmt, i64)>,
    /// The index in the enclosing sequence, -1 when not in one.
    pub seq_index: i64,
    pub dialect: Dialect,
}

impl SRef {
    /// TVM's `same_as`: one state keeps one sref per statement.
    pub fn same(&self, other: &SRef) -> bool {
        self.sched == other.sched && self.node.same_node(&other.node)
    }

    fn parent(&self) -> Option<SRef> {
        let ((node, seq_index), rest) = self.ancestors.split_last()?;
        Some(SRef {
            sched: self.sched,
            node: node.clone(),
            ancestors: rest.to_vec(),
            seq_index: *seq_index,
            dialect: self.dialect,
        })
    }
}

fn host(o: Obj) -> Value {
    Value::Host(Rc::new(o))
}

/// The TVM class of a statement as Python sees it. A block is held as its
/// realize; `as_block` says which of the two the value stands for.
fn stmt_class(node: &Stmt, as_block: bool) -> &'static str {
    match node.kind() {
        StmtKind::For(_) => "tvm.tirx.stmt.For",
        StmtKind::BlockRealize(_) if as_block => "tvm.s_tir.stmt.SBlock",
        StmtKind::BlockRealize(_) => "tvm.s_tir.stmt.SBlockRealize",
        StmtKind::Store { .. } => "tvm.tirx.stmt.BufferStore",
        StmtKind::Let { .. } => "tvm.tirx.stmt.LetStmt",
        StmtKind::If { .. } => "tvm.tirx.stmt.IfThenElse",
        StmtKind::Evaluate(_) => "tvm.tirx.stmt.Evaluate",
        StmtKind::Seq(_) => "tvm.tirx.stmt.SeqStmt",
        StmtKind::Allocate { .. } => "tvm.tirx.stmt.Allocate",
    }
}

/// A statement as a Python value (printed in `dialect`).
pub fn stmt_value(node: &Stmt, as_block: bool, dialect: Dialect) -> Value {
    let text = print_stmt(node, &PrintOptions::new(dialect));
    host(Obj::IRText {
        text: text.trim_end().to_string(),
        class: stmt_class(node, as_block),
        node: Some(node.clone()),
        dialect,
    })
}

fn for_kind_code(kind: ForKind) -> i64 {
    // TVM's `ForKind` enum values.
    match kind {
        ForKind::Serial => 0,
        ForKind::Parallel => 1,
        ForKind::Vectorized => 2,
        ForKind::Unrolled => 3,
        ForKind::ThreadBinding => 4,
    }
}

/// The fields of a statement value (`For.loop_var`, `SBlock.name_hint`,
/// `SeqStmt.seq`, …); `None` when the statement has no such field.
pub fn stmt_attr(
    it: &mut Interp,
    node: &Stmt,
    class: &str,
    name: &str,
    dialect: Dialect,
) -> Res<Option<Value>> {
    use super::te::expr_value;
    let as_block = class.ends_with(".SBlock");
    Ok(Some(match (node.kind(), name) {
        (StmtKind::For(f), "loop_var") => expr_value(f.loop_var.to_expr()),
        (StmtKind::For(f), "min") => expr_value(f.min.clone()),
        (StmtKind::For(f), "extent") => expr_value(f.extent.clone()),
        (StmtKind::For(f), "kind") => Value::Int(for_kind_code(f.kind)),
        (StmtKind::For(f), "body") => stmt_value(&f.body, false, dialect),
        (StmtKind::For(f), "annotations") => super::tvm::annotations_value(it, &f.annotations)?,
        (StmtKind::BlockRealize(r), "name_hint") if as_block => Value::str(r.block.name.as_str()),
        (StmtKind::BlockRealize(r), "body") if as_block => {
            stmt_value(&r.block.body, false, dialect)
        }
        (StmtKind::BlockRealize(r), "init") if as_block => match &r.block.init {
            Some(s) => stmt_value(s, false, dialect),
            None => Value::None,
        },
        (StmtKind::BlockRealize(r), "annotations") if as_block => {
            super::tvm::annotations_value(it, &r.block.annotations)?
        }
        (StmtKind::BlockRealize(_), "block") if !as_block => stmt_value(node, true, dialect),
        (StmtKind::BlockRealize(r), "iter_values") if !as_block => {
            let items = r.iter_values.iter().cloned().map(expr_value).collect();
            it.new_list(items)?
        }
        (StmtKind::BlockRealize(r), "predicate") if !as_block => expr_value(r.predicate.clone()),
        (StmtKind::Seq(items), "seq") => {
            let items = items
                .iter()
                .map(|s| stmt_value(s, false, dialect))
                .collect();
            it.new_list(items)?
        }
        (StmtKind::Let { body, .. }, "body") | (StmtKind::Allocate { body, .. }, "body") => {
            stmt_value(body, false, dialect)
        }
        (StmtKind::If { then, .. }, "then_case") => stmt_value(then, false, dialect),
        (StmtKind::If { otherwise, .. }, "else_case") => match otherwise {
            Some(s) => stmt_value(s, false, dialect),
            None => Value::None,
        },
        _ => return Ok(None),
    }))
}

/// `seq[i]` of a `SeqStmt` value.
pub fn stmt_item(node: &Stmt, idx: &Value, dialect: Dialect) -> Option<Res<Value>> {
    let StmtKind::Seq(items) = node.kind() else {
        return None;
    };
    let Value::Int(i) = idx else {
        return Some(Err(PyErr::type_error(format!(
            "SeqStmt indices must be integers, not {}",
            idx.type_name()
        ))));
    };
    let n = items.len() as i64;
    let at = if *i < 0 { i + n } else { *i };
    Some(match usize::try_from(at).ok().and_then(|k| items.get(k)) {
        Some(s) => Ok(stmt_value(s, false, dialect)),
        None => Err(PyErr::index_error("SeqStmt index out of range")),
    })
}

/// The number of statements in a `SeqStmt` value.
pub fn stmt_len(node: &Stmt) -> Option<i64> {
    match node.kind() {
        StmtKind::Seq(items) => Some(items.len() as i64),
        _ => None,
    }
}

/// The IndexError TVM raises for a handle its schedule does not know.
fn unknown_rv(rv: Rv, dialect: TraceDialect) -> Box<PyErr> {
    let class = match (rv, dialect) {
        (Rv::Block(_), TraceDialect::STir) => "SBlockRV: s_tir.SBlockRV",
        (Rv::Block(_), TraceDialect::Tir) => "BlockRV: tir.BlockRV",
        (Rv::Loop(_), TraceDialect::STir) => "LoopRV: s_tir.LoopRV",
        (Rv::Loop(_), TraceDialect::Tir) => "LoopRV: tir.LoopRV",
        (Rv::Expr(_), _) => {
            return PyErr::index_error(format!("Cannot find corresponding ExprRV: {}", rv.name()))
        }
    };
    PyErr::index_error(format!("Cannot find corresponding {class}"))
}

/// Refuses handles another schedule made (TVM's IndexError), looking
/// inside lists.
pub fn check_handles(it: &mut Interp, s: &SchedObj, v: &Value) -> Res<()> {
    match v {
        Value::List(_) | Value::Tuple(_) => {
            for x in it.items_of(v)? {
                check_handles(it, s, &x)?;
            }
            Ok(())
        }
        _ => match obj_of(v) {
            Some(Obj::Rv { rv, sched, .. }) if !s.knows(*sched, *rv) => {
                Err(unknown_rv(*rv, s.sch.dialect))
            }
            _ => Ok(()),
        },
    }
}

/// `sch.remove_rv(handle)`: later uses of the handle (in this schedule and
/// its later copies) are refused; the trace does not record it.
pub fn remove_rv(s: &mut SchedObj, v: &Value) -> Res<Value> {
    let Some(obj @ Obj::Rv { rv, sched, .. }) = obj_of(v) else {
        return Err(PyErr::type_error(format!(
            "In \"Schedule.remove_rv\", \"rand_var\" has wrong type. Expected \"Union[Expr, SBlockRV, LoopRV]\", but gets: \"{}\"",
            v.type_name()
        )));
    };
    if !s.knows(*sched, *rv) {
        let class = super::tvm::repr(obj);
        return Err(PyErr::index_error(format!(
            "Cannot find the object in the symbol table: {class}"
        )));
    }
    s.removed.push((*sched, *rv));
    // The schedule forgets it too, so no primitive can reach it.
    s.sch.remove_rv(*rv).map_err(super::tvm::schedule_error)?;
    Ok(Value::None)
}

/// The sref of `node`, found at `path` in the schedule's current function.
fn sref_at(s: &SchedObj, path: &tree::StmtPath) -> Res<Option<SRef>> {
    let Some(func) = s.sch.module().get_prim(s.sch.func_name()) else {
        return Ok(None);
    };
    let chain = tree::chain(&func.body, path);
    // Each statement's place: its index when its parent is a sequence.
    let mut placed: Vec<(Stmt, i64)> = Vec::with_capacity(chain.len());
    for (k, node) in chain.iter().enumerate() {
        let seq_index = match (k.checked_sub(1).map(|p| chain[p].kind()), k.checked_sub(1)) {
            (Some(StmtKind::Seq(_)), Some(p)) => path.0.get(p).map_or(-1, |&i| i as i64),
            _ => -1,
        };
        placed.push((node.clone(), seq_index));
    }
    let Some(((node, seq_index), above)) = placed.split_last() else {
        return Ok(None);
    };
    let ancestors = above
        .iter()
        .filter(|(a, _)| matches!(a.kind(), StmtKind::For(_) | StmtKind::BlockRealize(_)))
        .cloned()
        .collect();
    Ok(Some(SRef {
        sched: s.id,
        node: node.clone(),
        ancestors,
        seq_index: *seq_index,
        dialect: s.ir_dialect,
    }))
}

/// The path of a block or loop statement in `root`, by node identity.
fn find_node(root: &Stmt, target: &Stmt, path: &mut Vec<usize>) -> bool {
    if root.same_node(target) {
        return true;
    }
    for (i, c) in tree::children(root).iter().enumerate() {
        path.push(i);
        if find_node(c, target, path) {
            return true;
        }
        path.pop();
    }
    false
}

fn wrong_type(func: &str, v: &Value) -> Box<PyErr> {
    PyErr::type_error(format!(
        "In \"{func}\", \"rand_var_or_stmt\" has wrong type. Expected \"Union[SBlockRV, LoopRV, SBlock, For]\", but gets: \"{}\"",
        v.type_name()
    ))
}

/// A statement value's sref in this state, `None` when the state does not
/// hold it (TVM returns `None` too).
fn sref_of_stmt(s: &SchedObj, node: &Stmt) -> Res<Value> {
    let Some(func) = s.sch.module().get_prim(s.sch.func_name()) else {
        return Ok(Value::None);
    };
    let mut path = Vec::new();
    if !find_node(&func.body, node, &mut path) {
        return Ok(Value::None);
    }
    Ok(match sref_at(s, &tree::StmtPath(path))? {
        Some(r) => host(Obj::SRef(r)),
        None => Value::None,
    })
}

/// `sch.get_sref(block_or_loop)`: a handle of this schedule, or a block or
/// loop statement.
pub fn get_sref(it: &mut Interp, s: &SchedObj, arg: &Value) -> Res<Value> {
    match obj_of(arg) {
        Some(Obj::Rv { rv, .. }) if !matches!(rv, Rv::Expr(_)) => {
            check_handles(it, s, arg)?;
            let found = match rv {
                Rv::Block(i) => s
                    .sch
                    .resolve_block("get_sref", compiler_core::schedule::BlockRV(*i))
                    .map(|(p, _)| p),
                _ => s
                    .sch
                    .resolve_loop("get_sref", compiler_core::schedule::LoopRV(rv.index()))
                    .map(|(p, _)| p),
            };
            let path = found.map_err(|e| PyErr::new(ExcKind::ScheduleError, e.to_string()))?;
            match sref_at(s, &path)? {
                Some(r) => Ok(host(Obj::SRef(r))),
                None => Ok(Value::None),
            }
        }
        Some(Obj::IRText {
            node: Some(node),
            class,
            ..
        }) if class.ends_with(".For") || class.ends_with(".SBlock") => sref_of_stmt(s, node),
        _ => Err(wrong_type("Schedule.get_sref", arg)),
    }
}

/// `sch.state.get_sref(stmt)`: statements only, as TVM's FFI signature says.
pub fn state_get_sref(s: &SchedObj, arg: &Value) -> Res<Value> {
    match obj_of(arg) {
        Some(Obj::IRText {
            node: Some(node), ..
        }) => sref_of_stmt(s, node),
        _ => Err(PyErr::type_error(format!(
            "Mismatched type on argument #1 when calling: `s_tir.schedule.ScheduleStateGetSRef(0: s_tir.ScheduleState, 1: tirx.Stmt) -> Optional<s_tir.StmtSRef>`. Expected `tirx.Stmt` but got `{}`",
            arg.type_name()
        ))),
    }
}

/// The attributes of a `StmtSRef`.
pub fn sref_attr(r: &SRef, name: &str) -> Option<Value> {
    Some(match name {
        "stmt" => stmt_value(&r.node, true, r.dialect),
        "parent" => match r.parent() {
            Some(p) => host(Obj::SRef(p)),
            None => Value::None,
        },
        "seq_index" => Value::Int(r.seq_index),
        _ => return None,
    })
}

/// `repr` of a `StmtSRef`, as TVM prints it.
pub fn sref_repr(r: &SRef) -> String {
    format!("s_tir.StmtSRef(seq_index={})", r.seq_index)
}

/// `sch.trace` as an object that also holds its instructions.
pub fn trace_value(s: &SchedObj) -> Value {
    host(Obj::Trace {
        text: s.sch.trace().python(s.sch.dialect).trim_end().to_string(),
        owner: s.id,
        insts: Rc::new(s.sch.trace().instructions.clone()),
    })
}

fn instruction_value(owner: u64, index: usize, inst: &Instruction) -> Value {
    host(Obj::Instruction {
        owner,
        index,
        inst: inst.clone(),
    })
}

/// `trace.insts`: the instructions in order.
pub fn trace_insts(it: &mut Interp, owner: u64, insts: &[Instruction]) -> Res<Value> {
    let items = insts
        .iter()
        .enumerate()
        .map(|(i, inst)| instruction_value(owner, i, inst))
        .collect();
    it.new_list(items)
}

/// `trace.decisions`: each sampling instruction to its decision (an
/// integer, or a list for the primitives that decide several values).
pub fn trace_decisions(it: &mut Interp, owner: u64, insts: &[Instruction]) -> Res<Value> {
    let mut d = Dict::new();
    for (i, inst) in insts.iter().enumerate() {
        let Some(values) = &inst.decision else {
            continue;
        };
        let value = match values.as_slice() {
            [one] if !inst.decision_is_list() => Value::Int(*one),
            _ => {
                let items = values.iter().map(|v| Value::Int(*v)).collect();
                it.new_list(items)?
            }
        };
        d.insert(instruction_value(owner, i, inst), value)?;
    }
    Ok(it.new_dict(d))
}
