//! The interpreter's values.
//!
//! A [`Value`] is cheap to clone: scalars are inline, everything else is an
//! `Rc`. Mutable containers (lists, dicts, sets, arrays, instances) use
//! `RefCell`; the interpreter never holds a borrow across a call back into
//! Python code, so borrows cannot conflict (array views, which touch two
//! arrays, use `try_borrow` and degrade instead of panicking).

use std::cell::{Cell, Ref, RefCell, RefMut};
use std::collections::HashMap;
use std::fmt;
use std::rc::Rc;

use super::dict::Dict;
use super::error::{ExcKind, PyErr, Res};
use super::host_object::HostObject;
use super::interp::{CodeInfo, Env};
use super::source::Source;
use compiler_core::eval::NDArray;
use tessel_ir::DataType;
use tessel_syntax::ast;

/// A Python value.
#[derive(Clone)]
pub enum Value {
    None,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(Rc<str>),
    List(Rc<List>),
    Tuple(Rc<[Value]>),
    Dict(Rc<RefCell<Dict>>),
    Set(Rc<RefCell<Dict>>),
    Range(Rc<RangeObj>),
    Slice(Rc<SliceObj>),
    Func(Rc<Function>),
    /// A user function bound to an instance.
    Method(Rc<(Value, Value)>),
    Builtin(Rc<Builtin>),
    /// A method of a built-in or host object, looked up by name when called.
    BoundMethod(Rc<(Value, Rc<str>)>),
    Class(Rc<Class>),
    Instance(Rc<Instance>),
    Module(Rc<ModuleObj>),
    Iter(Rc<RefCell<IterState>>),
    /// A NumPy array.
    Array(Rc<ArrayObj>),
    /// A NumPy scalar (`np.float32(1.5)`, an element read from an array).
    NpScalar(NpScalar),
    /// A NumPy dtype object (`a.dtype`, `np.dtype("float32")`).
    NpDType(DataType),
    /// TVM objects and other host-provided values.
    Host(Rc<dyn HostObject>),
}

impl fmt::Debug for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::None => write!(f, "None"),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Int(i) => write!(f, "{i}"),
            Value::Float(x) => write!(f, "{x}"),
            Value::Str(s) => write!(f, "{s:?}"),
            other => write!(f, "<{}>", other.type_name()),
        }
    }
}

/// A NumPy scalar: a dtype and its value (integers and bools in `i`, floats in `f`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NpScalar {
    pub dtype: DataType,
    pub num: Num,
}

/// A number as NumPy stores it: integer (and bool) or float.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Num {
    I(i64),
    F(f64),
}

impl Num {
    pub fn as_f64(self) -> f64 {
        match self {
            Num::I(i) => i as f64,
            Num::F(f) => f,
        }
    }
    pub fn as_i64(self) -> i64 {
        match self {
            Num::I(i) => i,
            Num::F(f) => f as i64,
        }
    }
}

/// A list: shared and mutable. Its size is charged to the memory budget.
pub struct List {
    pub items: RefCell<Vec<Value>>,
    pub(crate) charge: Charge,
}

impl List {
    pub fn borrow(&self) -> Ref<'_, Vec<Value>> {
        self.items.borrow()
    }
    pub fn borrow_mut(&self) -> RefMut<'_, Vec<Value>> {
        self.items.borrow_mut()
    }
}

/// Bytes charged to the memory budget by one object, refunded when it is dropped.
pub(crate) struct Charge {
    pub(crate) tracker: Rc<MemTracker>,
    pub(crate) bytes: Cell<u64>,
}

impl Charge {
    pub(crate) fn new(tracker: &Rc<MemTracker>) -> Charge {
        Charge {
            tracker: tracker.clone(),
            bytes: Cell::new(0),
        }
    }
    /// Re-charges to `bytes` (grows or shrinks). Fails without charging when
    /// the budget would be exceeded.
    pub(crate) fn set(&self, bytes: u64) -> Res<()> {
        let old = self.bytes.get();
        if bytes > old {
            self.tracker.charge(bytes - old)?;
        } else {
            self.tracker.refund(old - bytes);
        }
        self.bytes.set(bytes);
        Ok(())
    }
}

impl Drop for Charge {
    fn drop(&mut self) {
        self.tracker.refund(self.bytes.get());
    }
}

/// The memory budget: approximate bytes held by lists, arrays and tensors.
pub struct MemTracker {
    pub(crate) used: Cell<u64>,
    pub(crate) limit: u64,
}

impl MemTracker {
    pub fn new(limit: u64) -> MemTracker {
        MemTracker {
            used: Cell::new(0),
            limit,
        }
    }
    /// Checks that `bytes` more would fit, without charging them.
    pub fn check(&self, bytes: u64) -> Res<()> {
        if self.used.get().saturating_add(bytes) > self.limit {
            return Err(PyErr::memory_budget(self.limit, bytes));
        }
        Ok(())
    }
    pub fn charge(&self, bytes: u64) -> Res<()> {
        self.check(bytes)?;
        self.used.set(self.used.get() + bytes);
        Ok(())
    }
    pub fn refund(&self, bytes: u64) {
        self.used.set(self.used.get().saturating_sub(bytes));
    }
    pub fn used(&self) -> u64 {
        self.used.get()
    }
}

/// Approximate size of one list slot.
pub const SLOT_BYTES: u64 = std::mem::size_of::<Value>() as u64;

/// A NumPy array (or a TVM tensor's storage): shared and mutable.
///
/// Basic indexing (`a[i]`, `a[1:3, 0]`) makes a *view*, as in NumPy: it
/// keeps the array it looks into (`base`, never itself a view) and the flat
/// offsets of its elements there. A view's own `data` is a copy refreshed
/// before every read; writes go through [`ArrayObj::update`], which also
/// stores into the base, so `a[i][j] = x` and `row = a[0]; row[:] = 0`
/// change `a`.
pub struct ArrayObj {
    pub data: RefCell<NDArray>,
    /// Held for its `Drop`, which refunds the memory budget.
    #[allow(dead_code)]
    pub(crate) charge: Charge,
    pub(crate) base: Option<(Rc<ArrayObj>, Rc<[usize]>)>,
}

impl ArrayObj {
    /// The elements (a view reads its base first).
    pub fn borrow(&self) -> Ref<'_, NDArray> {
        self.refresh();
        self.data.borrow()
    }

    fn refresh(&self) {
        let Some((base, offs)) = &self.base else {
            return;
        };
        let (Ok(src), Ok(mut dst)) = (base.data.try_borrow(), self.data.try_borrow_mut()) else {
            return;
        };
        for (i, &o) in offs.iter().enumerate() {
            if let Some(v) = src.data.load(o) {
                dst.data.store(i, v);
            }
        }
    }

    /// Changes the elements in place; a view stores the result into its base.
    pub fn update<R>(&self, f: impl FnOnce(&mut NDArray) -> R) -> R {
        self.refresh();
        let r = match self.data.try_borrow_mut() {
            Ok(mut d) => f(&mut d),
            Err(_) => {
                // Cannot happen (no borrow is held across calls); work on a
                // copy rather than panic.
                let mut copy = self.data.borrow().clone();
                f(&mut copy)
            }
        };
        if let Some((base, offs)) = &self.base {
            if let (Ok(src), Ok(mut dst)) = (self.data.try_borrow(), base.data.try_borrow_mut()) {
                for (i, &o) in offs.iter().enumerate() {
                    if let Some(v) = src.data.load(i) {
                        dst.data.store(o, v);
                    }
                }
            }
        }
        r
    }

    /// The array a view looks into, and where (`None` for a plain array).
    pub fn view_of(&self) -> Option<(&Rc<ArrayObj>, &[usize])> {
        self.base.as_ref().map(|(b, o)| (b, &o[..]))
    }
}

pub struct RangeObj {
    pub start: i64,
    pub stop: i64,
    pub step: i64,
}

impl RangeObj {
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    pub fn len(&self) -> i64 {
        let (start, stop, step) = (self.start as i128, self.stop as i128, self.step as i128);
        let n = if step > 0 && start < stop {
            (stop - start + step - 1) / step
        } else if step < 0 && start > stop {
            (start - stop - step - 1) / (-step)
        } else {
            0
        };
        n.min(i64::MAX as i128) as i64
    }
    pub fn get(&self, i: i64) -> i64 {
        self.start.wrapping_add(i.wrapping_mul(self.step))
    }
}

pub struct SliceObj {
    pub start: Value,
    pub stop: Value,
    pub step: Value,
}

/// How a user function was written.
pub enum FuncBody {
    Def(Rc<ast::FunctionDef>),
    Lambda(Rc<ast::Expr>),
}

/// A user-defined function or lambda.
pub struct Function {
    pub name: Rc<str>,
    pub qualname: Rc<str>,
    pub params: Rc<ast::Params>,
    pub body: FuncBody,
    pub code: Rc<CodeInfo>,
    /// Default values of `posonly + args` then `kwonly`, by parameter.
    pub defaults: Vec<Option<Value>>,
    pub closure: Option<Rc<Env>>,
    pub source: Rc<Source>,
    /// The `def` statement or the lambda expression.
    pub span: ast::Span,
    pub attrs: RefCell<HashMap<String, Value>>,
    /// The class whose body defined this function (for `super()`).
    pub owner: RefCell<Option<std::rc::Weak<Class>>>,
}

/// The signature of a built-in function: the interpreter and the arguments.
pub type BuiltinFn = fn(&mut super::interp::Interp, Args) -> Res<Value>;

/// A built-in function, or a host function with bound data.
pub struct Builtin {
    /// The qualified name (`print`, `numpy.zeros`, `tvm.build`).
    pub name: Rc<str>,
    pub f: BuiltinFn,
    /// Data the function was created with (e.g. the options of
    /// `T.prim_func(private=True)` or a `time_evaluator`'s function).
    pub data: Option<Value>,
}

/// Call arguments.
#[derive(Default)]
pub struct Args {
    pub pos: Vec<Value>,
    pub kw: Vec<(Rc<str>, Value)>,
    /// The builtin's own data ([`Builtin::data`]), if any.
    pub data: Option<Value>,
}

impl Args {
    pub fn new(pos: Vec<Value>) -> Args {
        Args {
            pos,
            kw: Vec::new(),
            data: None,
        }
    }
    /// Takes keyword `name`, else the positional argument at `index`.
    pub fn take(&mut self, index: usize, name: &str) -> Option<Value> {
        if let Some(i) = self.kw.iter().position(|(k, _)| &**k == name) {
            return Some(self.kw.remove(i).1);
        }
        self.pos.get(index).cloned()
    }
    /// Takes keyword `name` only.
    pub fn take_kw(&mut self, name: &str) -> Option<Value> {
        let i = self.kw.iter().position(|(k, _)| &**k == name)?;
        Some(self.kw.remove(i).1)
    }
    /// Like [`Args::take`], but missing is a `TypeError` naming `func`.
    pub fn req(&mut self, index: usize, name: &str, func: &str) -> Res<Value> {
        self.take(index, name).ok_or_else(|| {
            PyErr::new(
                ExcKind::TypeError,
                format!("{func}() missing required argument: '{name}'"),
            )
        })
    }
    /// Errors if keywords other than those already taken remain, or more
    /// than `max_pos` positional arguments were given.
    pub fn done(&self, func: &str, max_pos: usize) -> Res<()> {
        if let Some((k, _)) = self.kw.first() {
            return Err(PyErr::new(
                ExcKind::TypeError,
                format!("{func}() got an unexpected keyword argument '{k}'"),
            ));
        }
        if self.pos.len() > max_pos {
            return Err(PyErr::new(
                ExcKind::TypeError,
                format!(
                    "{func}() takes at most {max_pos} positional argument{} ({} given)",
                    if max_pos == 1 { "" } else { "s" },
                    self.pos.len()
                ),
            ));
        }
        Ok(())
    }
}

/// What a built-in class is, for `type()`, `isinstance` and construction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BuiltinType {
    Object,
    Type,
    NoneType,
    Bool,
    Int,
    Float,
    Str,
    List,
    Tuple,
    Dict,
    Set,
    Range,
    Slice,
    Function,
    BuiltinFunction,
    Method,
    Module,
    Iterator,
    Exception,
    /// `numpy.ndarray`.
    NdArray,
    /// `numpy.float32` and friends (the dtype is in the class's `dtype`).
    NpScalar,
    NpDType,
    /// Host classes, identified by name.
    Host,
}

/// A class: built-in or user-defined.
pub struct Class {
    pub name: String,
    /// `builtins`, `__main__`, `tvm.ir.module`, …
    pub module: String,
    pub bases: Vec<Rc<Class>>,
    /// Method resolution order, excluding the class itself.
    pub mro: Vec<Rc<Class>>,
    pub dict: RefCell<HashMap<String, Value>>,
    pub builtin: Option<BuiltinType>,
    /// A built-in exception class (user subclasses inherit through `mro`).
    pub exc: Option<ExcKind>,
    /// NumPy scalar classes: their dtype.
    pub dtype: Option<DataType>,
}

impl Class {
    /// `module.name`, or just `name` for built-ins and `__main__`.
    pub fn display_name(&self) -> String {
        if self.module == "builtins" || self.module == "__main__" || self.module.is_empty() {
            self.name.clone()
        } else {
            format!("{}.{}", self.module, self.name)
        }
    }
    /// `<class 'module.name'>`.
    pub fn repr(&self) -> String {
        if self.module == "builtins" || self.module.is_empty() {
            format!("<class '{}'>", self.name)
        } else {
            format!("<class '{}.{}'>", self.module, self.name)
        }
    }
    /// True if `self` is `other` or derives from it.
    pub fn is_subclass(self: &Rc<Class>, other: &Rc<Class>) -> bool {
        Rc::ptr_eq(self, other) || self.mro.iter().any(|c| Rc::ptr_eq(c, other))
    }
    /// Looks `name` up in the class and its bases.
    pub fn lookup(self: &Rc<Class>, name: &str) -> Option<Value> {
        if let Some(v) = self.dict.borrow().get(name) {
            return Some(v.clone());
        }
        for c in &self.mro {
            if let Some(v) = c.dict.borrow().get(name) {
                return Some(v.clone());
            }
        }
        None
    }
    /// The built-in exception kind this class is or derives from.
    pub fn exc_kind(&self) -> Option<ExcKind> {
        self.exc.or_else(|| self.mro.iter().find_map(|c| c.exc))
    }
}

/// An instance of a user class (including user exceptions).
pub struct Instance {
    pub class: Rc<Class>,
    pub dict: RefCell<HashMap<String, Value>>,
}

/// A module: a name and its attributes.
pub struct ModuleObj {
    pub name: String,
    pub attrs: RefCell<HashMap<String, Value>>,
    /// When set, a missing attribute is reported with this explanation
    /// (`tvm.te` until tensor expressions land).
    pub missing_note: Option<&'static str>,
}

/// A built-in module named `name` holding `attrs`.
pub fn module<K: Into<String>>(name: &str, attrs: impl IntoIterator<Item = (K, Value)>) -> Value {
    module_with_note(name, attrs, None)
}

/// [`module`] whose missing attributes are reported with `note`.
pub fn module_with_note<K: Into<String>>(
    name: &str,
    attrs: impl IntoIterator<Item = (K, Value)>,
    note: Option<&'static str>,
) -> Value {
    Value::Module(Rc::new(ModuleObj {
        name: name.to_string(),
        attrs: RefCell::new(attrs.into_iter().map(|(k, v)| (k.into(), v)).collect()),
        missing_note: note,
    }))
}

/// A live iterator.
pub enum IterState {
    Range {
        next: i64,
        stop: i64,
        step: i64,
    },
    /// Iterates a list by index (sees appends, like Python).
    List {
        list: Rc<List>,
        index: usize,
    },
    Seq {
        items: Rc<[Value]>,
        index: usize,
    },
    Chars {
        s: Rc<str>,
        pos: usize,
    },
    Enumerate {
        inner: Box<IterState>,
        count: i64,
    },
    Zip(Vec<IterState>),
    Map {
        func: Value,
        inner: Vec<IterState>,
    },
    Filter {
        func: Value,
        inner: Box<IterState>,
    },
    /// Rows of an array (`for row in a`).
    Rows {
        array: Rc<ArrayObj>,
        index: usize,
    },
    /// A Python iterator object (`iter(x)`), shared.
    Shared(Rc<RefCell<IterState>>),
    Done,
}

impl Value {
    /// The host object this value holds, if any.
    pub fn host(&self) -> Option<&Rc<dyn HostObject>> {
        match self {
            Value::Host(o) => Some(o),
            _ => None,
        }
    }

    pub fn str(s: impl Into<Rc<str>>) -> Value {
        Value::Str(s.into())
    }
    pub fn tuple(items: Vec<Value>) -> Value {
        Value::Tuple(items.into())
    }

    /// The Python type name (`int`, `list`, `IRModule`).
    pub fn type_name(&self) -> String {
        match self {
            Value::None => "NoneType".into(),
            Value::Bool(_) => "bool".into(),
            Value::Int(_) => "int".into(),
            Value::Float(_) => "float".into(),
            Value::Str(_) => "str".into(),
            Value::List(_) => "list".into(),
            Value::Tuple(_) => "tuple".into(),
            Value::Dict(_) => "dict".into(),
            Value::Set(_) => "set".into(),
            Value::Range(_) => "range".into(),
            Value::Slice(_) => "slice".into(),
            Value::Func(_) => "function".into(),
            Value::Method(_) => "method".into(),
            Value::Builtin(_) => "builtin_function_or_method".into(),
            Value::BoundMethod(_) => "builtin_function_or_method".into(),
            Value::Class(_) => "type".into(),
            Value::Instance(i) => i.class.name.clone(),
            Value::Module(_) => "module".into(),
            Value::Iter(_) => "iterator".into(),
            Value::Array(_) => "ndarray".into(),
            Value::NpScalar(s) => super::numpy::dtype_name(s.dtype).to_string(),
            Value::NpDType(_) => "dtype".into(),
            Value::Host(o) => o.type_name().to_string(),
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    /// Identity for `is` and for hashing objects by identity.
    pub fn identity(&self) -> Option<usize> {
        Some(match self {
            Value::List(r) => Rc::as_ptr(r) as *const u8 as usize,
            Value::Tuple(r) => Rc::as_ptr(r) as *const u8 as usize,
            Value::Dict(r) | Value::Set(r) => Rc::as_ptr(r) as *const u8 as usize,
            Value::Range(r) => Rc::as_ptr(r) as *const u8 as usize,
            Value::Slice(r) => Rc::as_ptr(r) as *const u8 as usize,
            Value::Func(r) => Rc::as_ptr(r) as *const u8 as usize,
            Value::Method(r) => Rc::as_ptr(r) as *const u8 as usize,
            Value::Builtin(r) => Rc::as_ptr(r) as *const u8 as usize,
            Value::BoundMethod(r) => Rc::as_ptr(r) as *const u8 as usize,
            Value::Class(r) => Rc::as_ptr(r) as *const u8 as usize,
            Value::Instance(r) => Rc::as_ptr(r) as *const u8 as usize,
            Value::Module(r) => Rc::as_ptr(r) as *const u8 as usize,
            Value::Iter(r) => Rc::as_ptr(r) as *const u8 as usize,
            Value::Array(r) => Rc::as_ptr(r) as *const u8 as usize,
            Value::Host(r) => Rc::as_ptr(r) as *const u8 as usize,
            Value::Str(r) => Rc::as_ptr(r) as *const u8 as usize,
            _ => return None,
        })
    }
}
