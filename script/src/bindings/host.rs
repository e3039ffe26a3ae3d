//! TVM's objects (modules, functions, schedules, tensors, runtime modules,
//! tensor expressions, Relax values) as host objects of the Python core:
//! each kind answers attribute access, calls, printing and comparison here,
//! dispatching to [`super::tvm`], [`super::te`] and [`super::relax`]; and
//! [`TvmLibrary`], the package's classes, decorators and operators.

use std::any::Any;
use std::cell::RefCell;
use std::rc::Rc;

use super::tvm;
use crate::python::error::{PyErr, Res};
use crate::python::host_object::{DefinitionKind, HostLibrary, HostObject};
use crate::python::interp::Interp;
use crate::python::value::*;
use crate::Executable;
use compiler_core::schedule::trace::Instruction;
use compiler_core::schedule::{Rv, Schedule, TraceDialect};
use tessel_ir::printer::Dialect;
use tessel_ir::{IRModule, PrimFunc};
use tessel_syntax::ast::{self, BinOp, CmpOp, UnaryOp};

/// A TVM device (`tvm.cpu(0)`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Device {
    /// `cpu`, `cuda`, `metal`, `vulkan`, `opencl`, `rocm`, `webgpu`.
    pub kind: &'static str,
    pub index: i64,
}

impl Device {
    pub fn cpu() -> Device {
        Device {
            kind: "cpu",
            index: 0,
        }
    }
    /// DLPack device type code.
    pub fn type_code(&self) -> i64 {
        match self.kind {
            "cpu" => 1,
            "cuda" => 2,
            "opencl" => 4,
            "vulkan" => 7,
            "metal" => 8,
            "rocm" => 10,
            "webgpu" => 15,
            _ => 0,
        }
    }
}

/// A schedule and which API created it.
pub struct SchedObj {
    pub sch: Schedule,
    /// The module the schedule was created on (`Schedule` keeps only its
    /// current module): hosts replay the trace on it to show every step.
    pub original: IRModule,
    /// The dialect `sch.mod` prints in.
    pub ir_dialect: Dialect,
    pub id: u64,
    /// The schedules this one was copied from, nearest last, each with how
    /// many handles it had made by then: their older handles are valid here
    /// too (TVM's `copy` copies the symbol table), their later ones are not.
    pub lineage: Vec<(u64, usize)>,
    /// Handles given up with `remove_rv`, by the schedule that made them.
    pub removed: Vec<(u64, Rv)>,
}

impl SchedObj {
    /// A schedule object with no copy history.
    pub fn new(sch: Schedule, original: IRModule, ir_dialect: Dialect, id: u64) -> SchedObj {
        SchedObj {
            sch,
            original,
            ir_dialect,
            id,
            lineage: Vec::new(),
            removed: Vec::new(),
        }
    }

    /// Whether a handle made by schedule `maker` is one of this schedule's.
    pub fn knows(&self, maker: u64, rv: Rv) -> bool {
        if self.removed.contains(&(maker, rv)) {
            return false;
        }
        maker == self.id
            || self
                .lineage
                .iter()
                .any(|&(id, made)| id == maker && (rv.index() as usize) < made)
    }
}

/// A built runtime module.
pub struct RtModule {
    pub exec: Rc<dyn Executable>,
    pub entry: String,
    pub target: String,
    pub functions: Vec<String>,
    /// Other names functions answer to (a built PrimFunc's global symbol).
    pub aliases: Vec<(String, String)>,
    /// Made by `tvm.compile` (class `tvm.runtime.executable.Executable`).
    pub executable: bool,
}

/// TVM's objects as the Python core sees them ([`HostObject`]).
pub enum Obj {
    IRModule {
        module: RefCell<IRModule>,
        dialect: Dialect,
    },
    PrimFunc {
        func: Rc<PrimFunc>,
        dialect: Dialect,
    },
    GlobalVar(String),
    /// A function's attribute dictionary.
    Attrs(Vec<(String, Value)>),
    Schedule(RefCell<SchedObj>),
    /// A block, loop or sampled-value handle of a schedule.
    Rv {
        rv: Rv,
        dialect: TraceDialect,
        sched: u64,
    },
    /// A schedule's trace: its printed form, and its instructions with
    /// the schedule that made them (`trace.insts`, `trace.decisions`).
    Trace {
        text: String,
        owner: u64,
        insts: Rc<Vec<Instruction>>,
    },
    /// One instruction of a trace (`trace.insts[i]`): equal across `.trace`
    /// reads of the same schedule, as TVM's are the same object.
    Instruction {
        owner: u64,
        index: usize,
        inst: Instruction,
    },
    /// `sch.get_sref(...)`: a block or loop's place in a schedule's state
    /// (see [`super::schedule_state`]).
    SRef(super::schedule_state::SRef),
    /// `sch.state`: the schedule (a `Schedule` value) it belongs to.
    State(Value),
    /// A printed IR fragment (`sch.get(block)`) and the node it prints,
    /// which `same_as` compares.
    IRText {
        text: String,
        class: &'static str,
        node: Option<tessel_ir::Stmt>,
        /// How the node's parts print.
        dialect: Dialect,
    },
    Tensor {
        data: Rc<ArrayObj>,
        device: Device,
    },
    Device(Device),
    Target(compiler_core::target::Target),
    RtModule(Rc<RtModule>),
    PackedFunc {
        module: Rc<RtModule>,
        name: String,
    },
    TimeEvaluator {
        module: Rc<RtModule>,
        name: String,
        number: u64,
        repeat: u64,
    },
    BenchmarkResult(Vec<f64>),
    /// Tensor expressions (`tvm.te`): see [`super::te`].
    Te(super::te::TeObj),
    /// Graph-layer objects (`tvm.relax`), handled in [`super::relax`].
    Relax(super::relax::RObj),
}

/// The TVM object a value holds, if any.
pub fn obj_of(v: &Value) -> Option<&Obj> {
    tvm_obj(v.host()?)
}

/// The host object as a TVM object, if it is one (not one of the Python
/// core's own objects).
pub fn tvm_obj(o: &Rc<dyn HostObject>) -> Option<&Obj> {
    o.as_any().downcast_ref()
}

impl HostObject for Obj {
    fn as_any(&self) -> &dyn Any {
        self
    }

    fn class_name(&self) -> Option<&'static str> {
        Some(match self {
            Obj::IRModule { .. } => "tvm.ir.module.IRModule",
            // TVM 0.27's class, whichever dialect the function was written in.
            Obj::PrimFunc { .. } => "tvm.tirx.function.PrimFunc",
            Obj::GlobalVar(_) => "tvm.ir.expr.GlobalVar",
            Obj::Attrs(_) => "tvm.ir.attrs.DictAttrs",
            Obj::Schedule(s) => match s.borrow().sch.dialect {
                TraceDialect::STir => "tvm.s_tir.schedule.schedule.Schedule",
                TraceDialect::Tir => "tvm.tir.schedule.schedule.Schedule",
            },
            Obj::Rv { rv, dialect, .. } => match (rv, dialect) {
                (Rv::Block(_), TraceDialect::STir) => "tvm.s_tir.schedule.schedule.SBlockRV",
                (Rv::Block(_), TraceDialect::Tir) => "tvm.tir.schedule.schedule.BlockRV",
                (Rv::Loop(_), TraceDialect::STir) => "tvm.s_tir.schedule.schedule.LoopRV",
                (Rv::Loop(_), TraceDialect::Tir) => "tvm.tir.schedule.schedule.LoopRV",
                (Rv::Expr(_), _) => "tvm.ir.expr.Var",
            },
            Obj::Trace { .. } => "tvm.s_tir.schedule.trace.Trace",
            Obj::Instruction { .. } => "tvm.s_tir.schedule.instruction.Instruction",
            Obj::SRef(_) => "tvm.s_tir.sblock_scope.StmtSRef",
            Obj::State(_) => "tvm.s_tir.schedule.state.ScheduleState",
            Obj::IRText { class, .. } => class,
            Obj::Tensor { .. } => "tvm.runtime._tensor.Tensor",
            Obj::Device(_) => "tvm_ffi.core.Device",
            Obj::Target(_) => "tvm.target.target.Target",
            Obj::RtModule(m) if m.executable => "tvm.runtime.executable.Executable",
            Obj::RtModule(_) => "tvm.runtime.module.Module",
            Obj::PackedFunc { .. } => "tvm_ffi.core.Function",
            Obj::TimeEvaluator { .. } => "tvm_ffi.core.Function",
            Obj::BenchmarkResult(_) => "tvm.runtime.module.BenchmarkResult",
            Obj::Te(t) => super::te::class_name(t),
            Obj::Relax(r) => r.class_name(),
        })
    }

    fn is_callable(&self) -> bool {
        matches!(
            self,
            Obj::RtModule(_)
                | Obj::PackedFunc { .. }
                | Obj::TimeEvaluator { .. }
                | Obj::Te(super::te::TeObj::Tensor(_))
        ) || matches!(self, Obj::Relax(r) if r.is_callable())
    }

    /// Value identity for hashing (`GlobalVar`s are equal by name).
    fn hash_name(&self) -> Option<(&'static str, String)> {
        match self {
            Obj::GlobalVar(n) => Some(("GlobalVar", n.clone())),
            // `tvm.ir.Op.get("relax.add")` as a dict key (the book's op maps).
            Obj::Relax(super::relax::RObj::OpRef(n)) => Some(("Op", n.clone())),
            Obj::Device(d) => Some(("Device", format!("{}:{}", d.kind, d.index))),
            // `sch.get(...)` results are equal when they are the same node.
            Obj::IRText {
                node: Some(node), ..
            } => Some(("IRNode", node.node_id().to_string())),
            Obj::SRef(r) => Some(("StmtSRef", format!("{}:{}", r.sched, r.node.node_id()))),
            Obj::Instruction { owner, index, .. } => {
                Some(("Instruction", format!("{owner}:{index}")))
            }
            _ => None,
        }
    }

    fn equals(&self, other: &dyn HostObject) -> Option<bool> {
        let other = other.as_any().downcast_ref::<Obj>()?;
        Some(match (self, other) {
            (Obj::GlobalVar(x), Obj::GlobalVar(y)) => x == y,
            (Obj::Device(x), Obj::Device(y)) => x == y,
            (
                Obj::Rv {
                    rv: x, sched: s, ..
                },
                Obj::Rv {
                    rv: y, sched: t, ..
                },
            ) => x == y && s == t,
            (Obj::Relax(x), Obj::Relax(y)) => return x.eq(y),
            (Obj::SRef(x), Obj::SRef(y)) => x.same(y),
            (
                Obj::Instruction {
                    owner: o1,
                    index: i1,
                    ..
                },
                Obj::Instruction {
                    owner: o2,
                    index: i2,
                    ..
                },
            ) => o1 == o2 && i1 == i2,
            // TVM's `==` on IR nodes is `same_as`.
            (Obj::IRText { node: Some(x), .. }, Obj::IRText { node: Some(y), .. }) => {
                x.same_node(y)
            }
            _ => return None,
        })
    }

    fn to_int(&self) -> Option<i64> {
        match self {
            Obj::Device(d) => Some(d.index),
            Obj::Te(t) => super::te::const_int(t),
            _ => None,
        }
    }

    fn to_array(&self) -> Option<compiler_core::eval::NDArray> {
        match self {
            Obj::Tensor { data, .. } => Some(data.borrow().clone()),
            _ => None,
        }
    }

    fn length(&self) -> Option<i64> {
        Some(match self {
            Obj::IRModule { module, .. } => module.borrow().functions.len() as i64,
            Obj::Attrs(items) => items.len() as i64,
            Obj::IRText {
                node: Some(node), ..
            } => super::schedule_state::stmt_len(node)?,
            Obj::Tensor { data, .. } => *data.borrow().shape().first()? as i64,
            _ => return None,
        })
    }

    fn iter(&self, it: &mut Interp) -> Res<Option<Vec<Value>>> {
        Ok(match self {
            Obj::IRModule { module, .. } => Some(
                module
                    .borrow()
                    .functions
                    .iter()
                    .map(|(n, _)| Value::Host(Rc::new(Obj::GlobalVar(n.clone()))))
                    .collect(),
            ),
            Obj::Attrs(items) => Some(items.iter().map(|(k, _)| Value::str(k.as_str())).collect()),
            Obj::Tensor { data, .. } => {
                let v = Value::Array(data.clone());
                let mut out = Vec::new();
                let mut s = it.make_iter(&v)?;
                while let Some(x) = it.iter_next(&mut s)? {
                    out.push(x);
                }
                Some(out)
            }
            _ => None,
        })
    }

    fn contains(&self, _it: &mut Interp, item: &Value) -> Res<bool> {
        match self {
            Obj::IRModule { module, .. } => {
                let name = tvm::func_name_arg(item)?;
                Ok(module.borrow().get(&name).is_some())
            }
            Obj::Attrs(items) => Ok(items.iter().any(|(k, _)| Some(k.as_str()) == item.as_str())),
            _ => Err(PyErr::type_error(format!(
                "argument of type '{}' is not iterable",
                self.type_name()
            ))),
        }
    }

    fn str(&self, _it: &mut Interp) -> Res<Option<String>> {
        Ok(match self {
            Obj::Tensor { data, .. } => Some(crate::python::numpy::array_str(&data.borrow())),
            Obj::Device(d) => Some(format!("{}:{}", d.kind, d.index)),
            Obj::BenchmarkResult(r) => Some(tvm::benchmark_str(r)),
            _ => None,
        })
    }

    fn repr(&self, it: &mut Interp) -> Res<String> {
        Ok(match self {
            Obj::Attrs(items) => tvm::attrs_text(it, items)?,
            Obj::Te(t) => super::te::repr(t),
            Obj::Relax(r) => r.repr(),
            other => tvm::repr(other),
        })
    }

    fn call(&self, it: &mut Interp, args: Args) -> Res<Value> {
        match self {
            Obj::RtModule(m) => {
                let m = m.clone();
                let entry = m.entry.clone();
                tvm::call_packed(it, &m, &entry, args)
            }
            Obj::PackedFunc { module, name } => {
                let (m, n) = (module.clone(), name.clone());
                tvm::call_packed(it, &m, &n, args)
            }
            Obj::TimeEvaluator {
                module,
                name,
                number,
                repeat,
            } => {
                let (m, n) = (module.clone(), name.clone());
                tvm::time_evaluate(it, &m, &n, *number, *repeat, args)
            }
            Obj::Te(t) => super::te::call(it, t, args),
            Obj::Relax(r) => super::relax::call(it, r, args),
            _ => Err(PyErr::type_error(format!(
                "'{}' object is not callable",
                self.type_name()
            ))),
        }
    }

    fn get_attr(&self, it: &mut Interp, this: &Value, name: &str) -> Res<Value> {
        match self {
            Obj::Te(t) => super::te::get_attr(it, t, this, name),
            Obj::Relax(r) => super::relax::get_attr(it, r, this, name),
            _ => tvm::get_attr(it, self, this, name),
        }
    }

    fn get_item(&self, it: &mut Interp, idx: Value) -> Res<Value> {
        match self {
            Obj::Te(t) => super::te::get_item(it, t, idx),
            Obj::Relax(r) => super::relax::get_item(it, r, idx),
            _ => tvm::get_item(it, self, idx),
        }
    }

    fn set_item(&self, it: &mut Interp, idx: Value, v: Value) -> Res<()> {
        tvm::set_item(it, self, idx, v)
    }

    fn call_method(&self, it: &mut Interp, this: &Value, name: &str, a: Args) -> Res<Value> {
        match self {
            Obj::Te(t) => super::te::call_method(it, t, name, a),
            Obj::Relax(r) => super::relax::call_method(it, r, this, name, a),
            _ => tvm::call_method(it, self, this, name, a),
        }
    }
}

/// The `tvm` package's classes, decorators and operators
/// ([`HostLibrary`]).
pub struct TvmLibrary;

impl HostLibrary for TvmLibrary {
    fn is_source_decorator(&self, decorator: &Value, kind: DefinitionKind) -> bool {
        match kind {
            DefinitionKind::Function => tvm::is_prim_func_decorator(decorator),
            DefinitionKind::Class => tvm::is_ir_module_decorator(decorator),
        }
    }

    fn build_definition(&self, it: &mut Interp, stmt: &ast::Stmt) -> Res<Value> {
        tvm::build_tvmscript(it, stmt)
    }

    fn binary(&self, _it: &mut Interp, op: BinOp, l: &Value, r: &Value) -> Res<Option<Value>> {
        super::te::binary(op, l, r)
    }

    fn unary(&self, op: UnaryOp, v: &Value) -> Res<Option<Value>> {
        super::te::unary(op, v)
    }

    fn compare(&self, op: CmpOp, l: &Value, r: &Value) -> Res<Option<Value>> {
        super::te::compare(op, l, r)
    }

    fn truthy(&self, v: &Value) -> Option<Res<bool>> {
        super::te::truthy(v)
    }

    fn class_attr(&self, it: &mut Interp, c: &Rc<Class>, name: &str) -> Res<Option<Value>> {
        tvm::class_attr(it, c, name)
    }

    fn construct(&self, it: &mut Interp, c: &Rc<Class>, a: Args) -> Res<Value> {
        if super::relax::constructs(c) {
            return super::relax::construct(it, c, a);
        }
        tvm::construct(it, c, a)
    }
}
