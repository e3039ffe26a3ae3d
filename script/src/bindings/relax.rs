//! The graph layer (`tvm.relax`) as scripts see it: variables and struct
//! info, `relax.op.*` expressions, the `BlockBuilder`, `relax.build` and the
//! `VirtualMachine`, and `tvm.register_func` for `R.call_dps_packed`.
//!
//! Expressions are [`compiler_core::graph`] values wrapped in [`RObj`]; the builder
//! normalises them to A-normal form as TVM does (a nested call gets its own
//! binding) and infers struct info with [`compiler_core::graph::infer`]. The VM is
//! [`compiler_core::graph::vm::Vm`]: `call_tir` runs PrimFuncs through the script's
//! [`crate::Backend`] (the reference interpreter by default) and
//! `call_dps_packed` finds functions the script registered with
//! `tvm.register_func`, calling them with `tvm.runtime.Tensor` arguments.
//!
//! `bb.emit_te(f, *args)` / `bb.call_te(...)` run the TE function on
//! placeholders named after the graph variables (a constant argument is named
//! after its position, `A`, `B`, …), add the PrimFunc to the builder's module
//! (private, named after `f` or `primfunc_name_hint`, `name1`… when taken, a
//! structurally equal one reused) and give the `R.call_tir` (bound by
//! `emit_te`). `relax.transform.{BindParams, LegalizeOps,
//! AnnotateTIROpPattern, FuseOps, FuseTIR, DeadCodeElimination}` and
//! `tvm.transform.Sequential` are passes callable on modules, running
//! [`compiler_core::graph::transform`]; a pass error is a `TVMError` at the call.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use super::host::{tvm_obj, Device, Obj};
use crate::python::builtins::{builtin, builtin_with};
use crate::python::error::{ExcKind, PyErr, Res};
use crate::python::interp::Interp;
use crate::python::value::*;
use crate::{BuildOptions, Executable, Target};
use compiler_core::eval::NDArray;
use compiler_core::graph::infer::expr_sinfo;
use compiler_core::graph::vm::{Kernels, PackedRegistry, Value as VmValue, Vm};
use compiler_core::graph::{
    BinaryOp, Binding, BindingBlock, Conv2dAttrs, Expr, ExprKind, Function, Op, PrimExpr, SeqExpr,
    StructInfo, TensorInfo, Var,
};
use tessel_ir::printer::Dialect;
use tessel_ir::{AttrValue, BaseFunc, DataType, IRModule};

// One file per part of the bindings; they share this module's names.
mod block_builder;
mod constructors;
mod conversions;
mod functions;
mod module_tree;
mod ops;
mod passes;
mod protocol;
mod registries;
mod vm;
pub use self::functions::{construct, constructs, func_value};
pub use self::module_tree::install;
pub use self::protocol::{call, call_method, get_attr, get_item};
use self::{
    block_builder::*, constructors::*, conversions::*, functions::*, ops::*, passes::*,
    protocol::*, registries::*, vm::*,
};

/// Reference-interpreter steps per script step (as for `tvm.build`).
const IR_STEPS_PER_STEP: u64 = 8;
/// Where `tvm.register_func` keeps the script's functions.
const REGISTRY: &str = "tvm.__registered_funcs__";
/// Where symbolic dimensions named by strings (`R.Tensor(("n", 4))`) live.
const SYMBOLS: &str = "tvm.__relax_symbols__";

/// Graph-layer host objects.
pub enum RObj {
    /// `relax.Var` (a parameter) or a variable the builder bound.
    Var(Var),
    /// An expression not bound yet (`relax.op.add(x, y)`).
    Expr(Expr),
    /// `relax.TensorStructInfo(...)`, `R.Tensor(...)`.
    SInfo(StructInfo),
    /// `relax.BlockBuilder()`.
    Builder(RefCell<Builder>),
    /// `tvm.ir.Op.get("relax.add")`.
    OpRef(String),
    /// `relax.build(mod, target)`.
    Exec(Rc<RelaxExec>),
    /// `relax.VirtualMachine(ex, dev)`.
    Vm(Rc<RelaxExec>),
    /// `vm["main"]`.
    VmFunc(Rc<RelaxExec>, String),
    /// `vm.time_evaluator("main", dev, number, repeat)`.
    VmTimer {
        exec: Rc<RelaxExec>,
        name: String,
        number: u64,
        repeat: u64,
    },
    /// A graph function (`mod["main"]`, a mutator's result).
    Func(Rc<Function>),
    /// A function's body (`func.body`): binding blocks, then a result.
    Seq(Rc<SeqExpr>),
    /// One binding block of a body (`body.blocks[0]`).
    Block(Rc<BindingBlock>),
    /// One binding of a block (`block.bindings[0]`).
    Binding(Rc<Binding>),
    /// A mutator's bindings so far (for `lookup_binding`).
    MutState(RefCell<HashMap<tessel_ir::VarId, Expr>>),
    /// A module pass (`@tvm.ir.transform.module_pass`): the script's object.
    ModulePass(Value),
    /// A built-in pass (`relax.transform.FuseOps()`) or `tvm.transform.Sequential`.
    Pass(Rc<GraphPass>),
}

/// The graph passes scripts can create ([`compiler_core::graph::transform`]).
pub enum GraphPass {
    BindParams(String, HashMap<String, NDArray>),
    LegalizeOps,
    AnnotateTIROpPattern,
    FuseOps,
    FuseTIR,
    DeadCodeElimination(Vec<String>),
    Sequential(Vec<Value>),
}

impl GraphPass {
    fn name(&self) -> &'static str {
        match self {
            GraphPass::BindParams(..) => "BindParams",
            GraphPass::LegalizeOps => "LegalizeOps",
            GraphPass::AnnotateTIROpPattern => "AnnotateTIROpPattern",
            GraphPass::FuseOps => "FuseOps",
            GraphPass::FuseTIR => "FuseTIR",
            GraphPass::DeadCodeElimination(_) => "DeadCodeElimination",
            GraphPass::Sequential(_) => "sequential",
        }
    }
}

/// A built graph module: the module and its PrimFuncs built by the backend.
pub struct RelaxExec {
    pub module: IRModule,
    pub kernels: Option<Rc<dyn Executable>>,
    pub target: String,
}

/// The state of a `BlockBuilder`.
#[derive(Default)]
pub struct Builder {
    module: IRModule,
    func: Option<FuncFrame>,
}

struct FuncFrame {
    name: String,
    params: Option<Vec<Var>>,
    private: bool,
    pure: bool,
    blocks: Vec<BindingBlock>,
    cur: Vec<Binding>,
    in_dataflow: bool,
    names: HashMap<String, usize>,
    done: bool,
}

impl FuncFrame {
    fn fresh_name(&mut self, hint: &str) -> String {
        let n = self.names.entry(hint.to_string()).or_insert(0);
        let name = if *n == 0 {
            hint.to_string()
        } else {
            format!("{hint}{n}")
        };
        *n += 1;
        name
    }
    fn flush(&mut self) {
        if !self.cur.is_empty() {
            self.blocks.push(BindingBlock {
                bindings: std::mem::take(&mut self.cur),
                dataflow: self.in_dataflow,
            });
        }
    }
}

impl RObj {
    pub fn class_name(&self) -> &'static str {
        match self {
            RObj::Var(v) if v.is_dataflow() => "tvm.relax.expr.DataflowVar",
            RObj::Var(_) => "tvm.relax.expr.Var",
            RObj::Expr(e) => match e.kind() {
                ExprKind::Call(_) => "tvm.relax.expr.Call",
                ExprKind::Constant(_) => "tvm.relax.expr.Constant",
                ExprKind::Tuple(_) => "tvm.relax.expr.Tuple",
                ExprKind::Shape(_) => "tvm.relax.expr.ShapeExpr",
                _ => "tvm.relax.expr.Expr",
            },
            RObj::SInfo(StructInfo::Tensor(_)) => "tvm.relax.struct_info.TensorStructInfo",
            RObj::SInfo(StructInfo::Tuple(_)) => "tvm.relax.struct_info.TupleStructInfo",
            RObj::SInfo(StructInfo::Shape(_)) => "tvm.relax.struct_info.ShapeStructInfo",
            RObj::SInfo(_) => "tvm.relax.struct_info.StructInfo",
            RObj::Builder(_) => "tvm.relax.block_builder.BlockBuilder",
            RObj::OpRef(_) => "tvm.ir.op.Op",
            RObj::Exec(_) => "tvm.relax.vm_build.VMExecutable",
            RObj::Vm(_) => "tvm.runtime.vm.VirtualMachine",
            RObj::VmFunc(..) | RObj::VmTimer { .. } => "tvm_ffi.core.Function",
            RObj::Func(_) => "tvm.relax.expr.Function",
            RObj::Seq(_) => "tvm.relax.expr.SeqExpr",
            RObj::Block(b) if b.dataflow => "tvm.relax.expr.DataflowBlock",
            RObj::Block(_) => "tvm.relax.expr.BindingBlock",
            RObj::Binding(_) => "tvm.relax.expr.VarBinding",
            RObj::MutState(_) => "tvm.relax.expr_functor.MutatorState",
            RObj::ModulePass(_) => "tvm.ir.transform.ModulePass",
            RObj::Pass(p) if matches!(**p, GraphPass::Sequential(_)) => {
                "tvm.ir.transform.Sequential"
            }
            RObj::Pass(_) => "tvm.ir.transform.ModulePass",
        }
    }

    pub fn is_callable(&self) -> bool {
        matches!(
            self,
            RObj::VmFunc(..) | RObj::VmTimer { .. } | RObj::ModulePass(_) | RObj::Pass(_)
        )
    }

    pub fn repr(&self) -> String {
        match self {
            RObj::Var(v) => v.name().to_string(),
            RObj::Expr(e) => expr_text(e),
            RObj::SInfo(s) => s.describe(),
            RObj::Builder(_) => "<tvm.relax.block_builder.BlockBuilder object>".into(),
            RObj::OpRef(n) => format!("Op({n})"),
            RObj::Exec(_) => "<tvm.relax.vm_build.VMExecutable object>".into(),
            RObj::Vm(_) => "<tvm.runtime.vm.VirtualMachine object>".into(),
            RObj::VmFunc(_, n) | RObj::VmTimer { name: n, .. } => format!("<Function {n}>"),
            RObj::Func(f) => func_print(f, &func_name(f)),
            RObj::Seq(s) => expr_text(&s.body),
            RObj::Block(b) => tessel_ir::printer::print_graph_block(b),
            RObj::Binding(b) => tessel_ir::printer::print_graph_binding(b),
            RObj::MutState(_) => "<mutator state>".into(),
            RObj::ModulePass(_) => "<tvm.ir.transform.ModulePass>".into(),
            RObj::Pass(p) => format!("<tvm.ir.transform.ModulePass {}>", p.name()),
        }
    }

    pub fn eq(&self, other: &RObj) -> Option<bool> {
        Some(match (self, other) {
            (RObj::OpRef(a), RObj::OpRef(b)) => a == b,
            (RObj::Var(a), RObj::Var(b)) => a == b,
            _ => return None,
        })
    }
}

/// A short text of an expression (for `repr` and error messages).
fn expr_text(e: &Expr) -> String {
    match e.kind() {
        ExprKind::Var(v) => v.name().to_string(),
        ExprKind::Constant(a) => format!("R.const(<{} tensor {:?}>)", a.dtype(), a.shape()),
        ExprKind::Tuple(f) => {
            let parts: Vec<String> = f.iter().map(expr_text).collect();
            format!("({})", parts.join(", "))
        }
        ExprKind::TupleGetItem(t, i) => format!("{}[{i}]", expr_text(t)),
        ExprKind::Shape(v) => format!("R.shape({})", compiler_core::graph::op::shape_text(v)),
        ExprKind::PrimValue(_) => "R.prim_value(...)".into(),
        ExprKind::Str(s) => format!("R.str({s:?})"),
        ExprKind::GlobalVar(g) => format!("cls.{}", g.name()),
        ExprKind::ExternFunc(s) => format!("R.ExternFunc({s:?})"),
        ExprKind::Call(c) => {
            let callee = match &c.callee {
                compiler_core::graph::Callee::Op(op) => format!("R.{}", op.script_name()),
                compiler_core::graph::Callee::Global(g) => format!("cls.{}", g.name()),
            };
            // Inside a call an external function is its name
            // (`R.call_dps_packed("env.linear", ...)`).
            let parts: Vec<String> = c
                .args
                .iter()
                .map(|a| match a.kind() {
                    ExprKind::ExternFunc(s) => format!("{s:?}"),
                    _ => expr_text(a),
                })
                .collect();
            format!("{callee}({})", parts.join(", "))
        }
    }
}

fn host(o: RObj) -> Value {
    Value::Host(Rc::new(Obj::Relax(o)))
}

fn relax_obj(v: &Value) -> Option<&RObj> {
    match v {
        Value::Host(o) => match tvm_obj(o) {
            Some(Obj::Relax(r)) => Some(r),
            _ => None,
        },
        _ => None,
    }
}
