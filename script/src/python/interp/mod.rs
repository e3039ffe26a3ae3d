//! The tree-walking evaluator: statements, expressions, scopes and calls.
//!
//! Scopes follow Python: a function's locals are the names it binds anywhere
//! in its body (found by [`CodeInfo::analyze`] when the `def` runs), so
//! reading one before assignment is an `UnboundLocalError`; other names are
//! looked up in enclosing functions (closures see later assignments, like
//! Python's cells), then the module globals, then the builtins.
//!
//! Control flow travels as `Err(Ctrl)` through statement execution; raised
//! exceptions carry the span of the innermost node that saw them and collect
//! one traceback entry per function they leave.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use super::dict::Dict;
use super::error::{Exc, ExcKind, PyErr, Res, TbEntry};
use super::host_object::{CoreObj, DefinitionKind, HostLibrary};
use super::source::Source;
use super::value::*;
use crate::{Backend, Host, Limits, Mime, OutputChunk, Stream};
use tessel_syntax::ast::{self, Expr, ExprKind, Stmt, StmtKind};
use tessel_syntax::diag::Span;

mod calls;
mod code_info;
mod exec;
mod expr;
mod iteration;
mod names;

use code_info::collect_target;

/// A subscript index evaluated by [`Interp::int_indices`].
enum IntIndex {
    /// Every item an integer (up to 8).
    Ints([i64; 8], usize),
    /// A tuple with other items.
    Other(Value),
    /// Not a plain tuple: evaluate it the general way.
    NotATuple,
}

/// Non-local control flow out of a statement.
pub enum Ctrl {
    Err(Box<PyErr>),
    Return(Value),
    Break,
    Continue,
}

impl From<Box<PyErr>> for Ctrl {
    fn from(e: Box<PyErr>) -> Ctrl {
        Ctrl::Err(e)
    }
}

pub type Flow = Result<(), Ctrl>;

/// Which names a function (or comprehension) binds, in slot order
/// (parameters first).
#[derive(Debug, Default)]
pub struct CodeInfo {
    pub locals: Vec<String>,
    pub globals: Vec<String>,
    pub nonlocals: Vec<String>,
    /// The body contains `yield`: calling the function runs it to the end
    /// and returns an iterator over what it yielded (generators are eager).
    pub generator: bool,
}

/// Name equality without a `memcmp` call (names are short; this is the
/// interpreter's hottest comparison).
#[inline]
pub(crate) fn same_name(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y)
}

/// FNV-1a: a fast hasher for the short string keys of namespaces.
#[derive(Default, Clone, Copy)]
pub struct Fnv(u64);

impl std::hash::Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        let mut h = if self.0 == 0 {
            0xcbf2_9ce4_8422_2325
        } else {
            self.0
        };
        for b in bytes {
            h ^= *b as u64;
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        self.0 = h;
    }
}

/// A namespace map (globals, builtins).
pub type NameMap<K> = HashMap<K, Value, std::hash::BuildHasherDefault<Fnv>>;

/// The local variables of one function activation (or comprehension).
pub struct Env {
    pub code: Rc<CodeInfo>,
    pub values: RefCell<Vec<Option<Value>>>,
    pub parent: Option<Rc<Env>>,
    /// A comprehension's scope: stores of other names go to the enclosing one.
    pub comprehension: bool,
}

/// The frame being executed.
#[derive(Clone)]
pub(crate) struct Frame {
    pub env: Option<Rc<Env>>,
    /// A class body's namespace.
    pub class_ns: Option<Rc<RefCell<HashMap<String, Value>>>>,
    pub source: Rc<Source>,
    /// The function being run (for `super()`).
    pub func: Option<Rc<Function>>,
}

/// The interpreter state: globals, imported modules, budgets, output.
/// Where output goes as it is produced (the UI streams it).
pub(crate) type OutputSink = Box<dyn FnMut(&OutputChunk)>;

pub struct Interp {
    pub(crate) globals: NameMap<String>,
    pub(crate) builtins: NameMap<&'static str>,
    pub(crate) types: super::builtins::Types,
    pub(crate) exc_classes: HashMap<ExcKind, Rc<Class>>,
    pub(crate) modules: HashMap<String, Value>,
    pub(crate) output: Vec<OutputChunk>,
    pub(crate) sink: Option<OutputSink>,
    pub(crate) limits: Limits,
    pub(crate) steps: u64,
    pub(crate) depth: u32,
    pub(crate) mem: Rc<MemTracker>,
    pub(crate) host: Rc<dyn Host>,
    pub(crate) backend: Rc<dyn Backend>,
    /// The host library's classes, decorators and operators (TVM's).
    pub(crate) library: Rc<dyn HostLibrary>,
    pub(crate) frame: Frame,
    /// Exceptions being handled, innermost last (for a bare `raise`): the
    /// exception, its traceback and its location in the raising frame.
    pub(crate) handling: Vec<(Value, Vec<TbEntry>, Option<Span>)>,
    pub(crate) next_cell: u32,
    pub(crate) code_cache: HashMap<(u32, u32), Rc<CodeInfo>>,
    pub(crate) def_cache: HashMap<(u32, u32), Rc<ast::FunctionDef>>,
    pub(crate) lambda_cache: HashMap<(u32, u32), (Rc<ast::Params>, Rc<Expr>)>,
    pub(crate) np_rng: super::numpy::random::Mt19937,
    /// Counter for host object ids (schedules, tensors).
    pub(crate) next_id: u64,
    /// Values yielded by the generator functions being run, innermost last.
    pub(crate) yields: Vec<Vec<Value>>,
    /// Bytes of output written by the current cell.
    pub(crate) out_bytes: u64,
    /// Tensor intrinsics registered by the session (`TensorIntrin.register`).
    pub(crate) intrins: compiler_core::schedule::TensorIntrinTable,
    /// The stack address when the cell started (see [`stack_addr`]).
    pub(crate) stack_base: usize,
    /// Deepest stack use seen in this cell, in bytes.
    pub(crate) stack_peak: usize,
}

/// An address on the current stack (the stack grows down on every target
/// Tessel runs on: x86-64, AArch64 and wasm32's shadow stack).
#[inline(always)]
pub(crate) fn stack_addr() -> usize {
    let marker = 0u8;
    std::hint::black_box(&marker) as *const u8 as usize
}

/// `true` if `e` ran out of budget (no handler may catch it).
fn catchable(e: &PyErr) -> bool {
    !e.fatal
}

impl Interp {
    // ------------------------------------------------------------------
    // Budgets

    #[inline]
    pub(crate) fn tick(&mut self) -> Res<()> {
        self.steps += 1;
        if self.steps > self.limits.steps {
            return Err(PyErr::step_budget(self.limits.steps));
        }
        Ok(())
    }

    /// Charges `n` steps of built-in work (array operations, IR execution).
    pub(crate) fn charge_steps(&mut self, n: u64) -> Res<()> {
        self.steps = self.steps.saturating_add(n);
        if self.steps > self.limits.steps {
            return Err(PyErr::step_budget(self.limits.steps));
        }
        Ok(())
    }

    /// Fails when a cell's output would pass an eighth of the memory budget
    /// (64 MiB by default): output is kept in memory for the host.
    pub(crate) fn check_output(&self, more: usize) -> Res<()> {
        let limit = self.limits.memory / 8;
        if self.out_bytes.saturating_add(more as u64) > limit {
            return Err(PyErr::new(
                ExcKind::MemoryError,
                format!(
                    "script printed more than {} in one cell",
                    super::error::human_bytes(limit)
                ),
            ));
        }
        Ok(())
    }

    /// Records yielded values (generators run eagerly to the end).
    fn collect_yield(&mut self, items: Vec<Value>) -> Res<()> {
        let n = items.len() as u64;
        let Some(top) = self.yields.last_mut() else {
            return Err(PyErr::new(ExcKind::SyntaxError, "'yield' outside function"));
        };
        top.extend(items);
        let len = top.len() as u64;
        if len.is_power_of_two() || n > 1 {
            self.check_alloc(len * SLOT_BYTES)?;
        }
        Ok(())
    }

    /// Fails with `RecursionError` before the native stack runs out.
    #[inline]
    pub(crate) fn check_stack(&mut self) -> Res<()> {
        let used = self.stack_base.abs_diff(stack_addr());
        if used > self.stack_peak {
            self.stack_peak = used;
        }
        if used as u64 > self.limits.stack_bytes {
            return Err(PyErr::new(
                ExcKind::RecursionError,
                format!(
                    "maximum recursion depth exceeded (the script used {} KiB of its {} KiB native stack)",
                    used / 1024,
                    self.limits.stack_bytes / 1024
                ),
            ));
        }
        Ok(())
    }

    pub(crate) fn steps_left(&self) -> u64 {
        self.limits.steps.saturating_sub(self.steps)
    }

    // ------------------------------------------------------------------
    // Output

    pub(crate) fn write(&mut self, stream: Stream, text: String) {
        self.write_as(stream, text, Mime::Plain)
    }

    fn write_as(&mut self, stream: Stream, text: String, mime: Mime) {
        if text.is_empty() {
            return;
        }
        self.out_bytes = self.out_bytes.saturating_add(text.len() as u64);
        // Merge consecutive writes to the same stream.
        let chunk = OutputChunk { stream, text, mime };
        if let Some(sink) = &mut self.sink {
            sink(&chunk);
        }
        if let Some(last) = self.output.last_mut() {
            if last.stream == chunk.stream && stream != Stream::Display {
                last.text.push_str(&chunk.text);
                return;
            }
        }
        self.output.push(chunk);
    }

    pub(crate) fn stdout(&mut self, text: String) {
        self.write(Stream::Stdout, text)
    }

    // ------------------------------------------------------------------
    // Allocation helpers

    pub(crate) fn new_list(&mut self, items: Vec<Value>) -> Res<Value> {
        let charge = Charge::new(&self.mem);
        charge.set(items.len() as u64 * SLOT_BYTES)?;
        Ok(Value::List(Rc::new(List {
            items: RefCell::new(items),
            charge,
        })))
    }

    /// Re-charges a list after it changed size.
    pub(crate) fn recharge(&mut self, list: &List) -> Res<()> {
        let n = list.items.borrow().len() as u64;
        list.charge.set(n * SLOT_BYTES)
    }

    pub(crate) fn new_array(&mut self, a: compiler_core::eval::NDArray) -> Res<Value> {
        let charge = Charge::new(&self.mem);
        charge.set(array_bytes(&a))?;
        Ok(Value::Array(Rc::new(ArrayObj {
            data: RefCell::new(a),
            charge,
            base: None,
        })))
    }

    pub(crate) fn array_obj(&mut self, a: compiler_core::eval::NDArray) -> Res<Rc<ArrayObj>> {
        let charge = Charge::new(&self.mem);
        charge.set(array_bytes(&a))?;
        Ok(Rc::new(ArrayObj {
            data: RefCell::new(a),
            charge,
            base: None,
        }))
    }

    /// A view of `base` (itself possibly a view) at the given flat offsets.
    pub(crate) fn new_view(
        &mut self,
        base: &Rc<ArrayObj>,
        offs: Vec<usize>,
        data: compiler_core::eval::NDArray,
    ) -> Res<Value> {
        let (root, offs): (Rc<ArrayObj>, Vec<usize>) = match base.view_of() {
            Some((root, parent)) => (
                root.clone(),
                offs.iter()
                    .map(|&o| parent.get(o).copied().unwrap_or(0))
                    .collect(),
            ),
            None => (base.clone(), offs),
        };
        let charge = Charge::new(&self.mem);
        charge.set(array_bytes(&data))?;
        Ok(Value::Array(Rc::new(ArrayObj {
            data: RefCell::new(data),
            charge,
            base: Some((root, offs.into())),
        })))
    }

    /// Checks that an allocation of `bytes` would fit in the memory budget.
    pub(crate) fn check_alloc(&self, bytes: u64) -> Res<()> {
        self.mem.check(bytes)
    }

    pub(crate) fn new_dict(&self, d: Dict) -> Value {
        Value::Dict(Rc::new(RefCell::new(d)))
    }
}

fn quote_list(names: &[String]) -> String {
    let q: Vec<String> = names.iter().map(|n| format!("'{n}'")).collect();
    match q.len() {
        0 => String::new(),
        1 => q[0].clone(),
        2 => format!("{} and {}", q[0], q[1]),
        _ => format!("{}, and {}", q[..q.len() - 1].join(", "), q[q.len() - 1]),
    }
}

pub(crate) fn array_bytes(a: &compiler_core::eval::NDArray) -> u64 {
    (a.len() as u64).saturating_mul(a.dtype().bytes().max(1) as u64)
}
