//! The seam between the Python core and the libraries a host installs.
//!
//! The core knows plain Python data and its own helper objects
//! ([`CoreObj`]). Everything else — TVM's modules, schedules, tensors, tensor
//! expressions — is a [`HostObject`] behind `Value::Host`, and answers
//! attribute access, calls, printing and comparison itself. Operations that
//! involve a library's classes or two operands of any kind go through the
//! interpreter's [`HostLibrary`].

use std::any::Any;
use std::cell::RefCell;
use std::rc::Rc;

use super::error::{PyErr, Res};
use super::interp::Interp;
use super::value::{Args, Class, Value};
use crate::Mime;
use compiler_core::eval::NDArray;
use tessel_syntax::ast::{self, BinOp, CmpOp, UnaryOp};

/// An object provided by a host library (or by the core itself, see
/// [`CoreObj`]). Defaults answer like a Python object without the protocol.
pub trait HostObject: Any {
    /// For downcasting to the library's own type.
    fn as_any(&self) -> &dyn Any;

    /// The qualified class name `type()` reports (`tvm.ir.module.IRModule`).
    fn class_name(&self) -> Option<&'static str>;

    /// The unqualified class name error messages use.
    fn type_name(&self) -> &'static str {
        match self.class_name() {
            Some(n) => n.rsplit('.').next().unwrap_or(n),
            None => "object",
        }
    }

    fn is_callable(&self) -> bool {
        false
    }

    /// What IPython shows for the object as a cell's last expression, when
    /// it differs from `repr`.
    fn display_text(&self) -> Option<String> {
        None
    }

    /// Value identity for hashing, for objects usable as dict keys.
    fn hash_name(&self) -> Option<(&'static str, String)> {
        None
    }

    /// `==` between two host objects; `None` falls back to identity.
    fn equals(&self, other: &dyn HostObject) -> Option<bool> {
        let _ = other;
        None
    }

    /// `int(x)`.
    fn to_int(&self) -> Option<i64> {
        None
    }

    /// The array inside, for NumPy functions given the object.
    fn to_array(&self) -> Option<NDArray> {
        None
    }

    /// `len(x)`.
    fn length(&self) -> Option<i64> {
        None
    }

    /// The items of `for x in obj`; `None` when not iterable.
    fn iter(&self, it: &mut Interp) -> Res<Option<Vec<Value>>> {
        let _ = it;
        Ok(None)
    }

    /// `item in obj`.
    fn contains(&self, it: &mut Interp, item: &Value) -> Res<bool> {
        let _ = (it, item);
        Err(PyErr::type_error(format!(
            "argument of type '{}' is not iterable",
            self.type_name()
        )))
    }

    /// `str(x)`; `None` uses `repr`.
    fn str(&self, it: &mut Interp) -> Res<Option<String>> {
        let _ = it;
        Ok(None)
    }

    fn repr(&self, it: &mut Interp) -> Res<String>;

    /// `obj(*args)`.
    fn call(&self, it: &mut Interp, args: Args) -> Res<Value> {
        let _ = (it, args);
        Err(PyErr::type_error(format!(
            "'{}' object is not callable",
            self.type_name()
        )))
    }

    /// `obj.name`; `this` is the value holding `self`.
    fn get_attr(&self, it: &mut Interp, this: &Value, name: &str) -> Res<Value> {
        let _ = (it, this);
        Err(no_attribute(self.type_name(), name))
    }

    /// `obj.name = v`.
    fn set_attr(&self, it: &mut Interp, name: &str, v: Value) -> Res<()> {
        let _ = (it, v);
        Err(PyErr::attribute_error(format!(
            "'{}' object attribute '{name}' is read-only",
            self.type_name()
        )))
    }

    /// `obj[idx]`.
    fn get_item(&self, it: &mut Interp, idx: Value) -> Res<Value> {
        let _ = (it, idx);
        Err(PyErr::type_error(format!(
            "'{}' object is not subscriptable",
            self.type_name()
        )))
    }

    /// `obj[idx] = v`.
    fn set_item(&self, it: &mut Interp, idx: Value, v: Value) -> Res<()> {
        let _ = (it, idx, v);
        Err(PyErr::type_error(format!(
            "'{}' object does not support item assignment",
            self.type_name()
        )))
    }

    /// `obj.name(*args)`; `this` is the value holding `self`.
    fn call_method(&self, it: &mut Interp, this: &Value, name: &str, args: Args) -> Res<Value> {
        let _ = (it, this, args);
        Err(no_attribute(self.type_name(), name))
    }
}

fn no_attribute(type_name: &str, name: &str) -> Box<PyErr> {
    PyErr::attribute_error(format!("'{type_name}' object has no attribute '{name}'"))
}

/// A decorator kind that takes the decorated definition's source rather
/// than the evaluated function or class (TVMScript's `@T.prim_func`,
/// `@I.ir_module`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DefinitionKind {
    Function,
    Class,
}

/// What a host library adds to the interpreter beyond its objects: its
/// classes, source decorators, and operators whose operands may be of any
/// kind. The interpreter holds one ([`Interp::library`]).
pub trait HostLibrary {
    /// Whether `decorator` builds the decorated definition from its source.
    fn is_source_decorator(&self, decorator: &Value, kind: DefinitionKind) -> bool;

    /// Builds the value a source decorator gives for the definition `stmt`.
    fn build_definition(&self, it: &mut Interp, stmt: &ast::Stmt) -> Res<Value>;

    /// `l op r` when either operand is a library value; `None` otherwise.
    fn binary(&self, it: &mut Interp, op: BinOp, l: &Value, r: &Value) -> Res<Option<Value>>;

    /// `op v` for a library value; `None` otherwise.
    fn unary(&self, op: UnaryOp, v: &Value) -> Res<Option<Value>>;

    /// `l op r` comparisons building library values (tensor expressions).
    fn compare(&self, op: CmpOp, l: &Value, r: &Value) -> Res<Option<Value>>;

    /// `bool(v)` for library values that define it.
    fn truthy(&self, v: &Value) -> Option<Res<bool>>;

    /// Attributes of the library's classes (`IRModule.from_expr`).
    fn class_attr(&self, it: &mut Interp, class: &Rc<Class>, name: &str) -> Res<Option<Value>>;

    /// Constructs an instance of one of the library's classes.
    fn construct(&self, it: &mut Interp, class: &Rc<Class>, args: Args) -> Res<Value>;
}

/// The core's own objects that are not plain data.
pub enum CoreObj {
    Ellipsis,
    NotImplemented,
    /// `object()`.
    PlainObject,
    StaticMethod(Value),
    ClassMethod(Value),
    Property {
        getter: Value,
        setter: RefCell<Option<Value>>,
    },
    Super {
        class: Rc<Class>,
        obj: Value,
    },
    /// `dict.keys()` and friends (a snapshot).
    DictView(&'static str, Vec<Value>),
    /// `sys.stdout` (false) / `sys.stderr` (true).
    StdStream(bool),
    /// IPython rich-display objects (`Code`, `HTML`, `Markdown`), by the
    /// kind of output they display as.
    Display {
        mime: Mime,
        text: String,
    },
}

impl CoreObj {
    /// The value holding a new core object.
    pub fn value(self) -> Value {
        Value::Host(Rc::new(self))
    }
}

/// The core object inside a value, if it holds one.
pub fn core_obj(v: &Value) -> Option<&CoreObj> {
    match v {
        Value::Host(o) => o.as_any().downcast_ref(),
        _ => None,
    }
}

impl CoreObj {
    /// `is` between two core singletons (`...`, `NotImplemented`).
    pub fn same_singleton(&self, other: &CoreObj) -> bool {
        matches!(
            (self, other),
            (CoreObj::Ellipsis, CoreObj::Ellipsis)
                | (CoreObj::NotImplemented, CoreObj::NotImplemented)
        )
    }
}

impl HostObject for CoreObj {
    fn as_any(&self) -> &dyn Any {
        self
    }

    fn class_name(&self) -> Option<&'static str> {
        Some(match self {
            CoreObj::Ellipsis => "builtins.ellipsis",
            CoreObj::NotImplemented => "builtins.NotImplementedType",
            CoreObj::PlainObject => "builtins.object",
            CoreObj::StaticMethod(_) => "builtins.staticmethod",
            CoreObj::ClassMethod(_) => "builtins.classmethod",
            CoreObj::Property { .. } => "builtins.property",
            CoreObj::Super { .. } => "builtins.super",
            CoreObj::DictView(k, _) => match *k {
                "dict_keys" => "builtins.dict_keys",
                "dict_values" => "builtins.dict_values",
                _ => "builtins.dict_items",
            },
            CoreObj::StdStream(_) => "_io.TextIOWrapper",
            CoreObj::Display { mime, .. } => match mime {
                Mime::Code { .. } => "IPython.core.display.Code",
                Mime::Html => "IPython.core.display.HTML",
                Mime::Markdown | Mime::Plain => "IPython.core.display.Markdown",
            },
        })
    }

    fn is_callable(&self) -> bool {
        matches!(self, CoreObj::StaticMethod(_) | CoreObj::ClassMethod(_))
    }

    fn display_text(&self) -> Option<String> {
        match self {
            CoreObj::Display { text, .. } => Some(text.trim_end_matches('\n').to_string()),
            _ => None,
        }
    }

    fn hash_name(&self) -> Option<(&'static str, String)> {
        match self {
            CoreObj::Ellipsis => Some(("Ellipsis", String::new())),
            CoreObj::NotImplemented => Some(("NotImplemented", String::new())),
            _ => None,
        }
    }

    fn equals(&self, other: &dyn HostObject) -> Option<bool> {
        let other = other.as_any().downcast_ref::<CoreObj>()?;
        self.same_singleton(other).then_some(true)
    }

    fn length(&self) -> Option<i64> {
        match self {
            CoreObj::DictView(_, items) => Some(items.len() as i64),
            _ => None,
        }
    }

    fn iter(&self, _it: &mut Interp) -> Res<Option<Vec<Value>>> {
        Ok(match self {
            CoreObj::DictView(_, items) => Some(items.clone()),
            _ => None,
        })
    }

    fn contains(&self, it: &mut Interp, item: &Value) -> Res<bool> {
        match self {
            CoreObj::DictView(_, items) => {
                for x in items.clone() {
                    if it.values_eq(&x, item)? {
                        return Ok(true);
                    }
                }
                Ok(false)
            }
            _ => Err(PyErr::type_error(format!(
                "argument of type '{}' is not iterable",
                self.type_name()
            ))),
        }
    }

    fn str(&self, _it: &mut Interp) -> Res<Option<String>> {
        Ok(match self {
            CoreObj::Display { text, .. } => Some(text.clone()),
            _ => None,
        })
    }

    fn repr(&self, it: &mut Interp) -> Res<String> {
        Ok(match self {
            CoreObj::Ellipsis => "Ellipsis".into(),
            CoreObj::NotImplemented => "NotImplemented".into(),
            CoreObj::PlainObject => "<object object>".into(),
            CoreObj::StaticMethod(_) => "<staticmethod object>".into(),
            CoreObj::ClassMethod(_) => "<classmethod object>".into(),
            CoreObj::Property { .. } => "<property object>".into(),
            CoreObj::Super { class, .. } => {
                format!("<super: <class '{}'>, <{} object>>", class.name, class.name)
            }
            CoreObj::DictView(kind, items) => {
                let items = items.clone();
                let inner = it.repr(&Value::List(Rc::new(super::value::List {
                    items: RefCell::new(items),
                    charge: super::value::Charge::new(&it.mem),
                })))?;
                format!("{kind}({inner})")
            }
            CoreObj::StdStream(err) => {
                let name = if *err { "<stderr>" } else { "<stdout>" };
                format!("<_io.TextIOWrapper name='{name}' mode='w' encoding='utf-8'>")
            }
            CoreObj::Display { .. } => format!(
                "<{} object>",
                self.class_name()
                    .unwrap_or("IPython.core.display.DisplayObject")
            ),
        })
    }

    fn call(&self, it: &mut Interp, args: Args) -> Res<Value> {
        match self {
            CoreObj::StaticMethod(f) => {
                let f = f.clone();
                it.call(&f, args)
            }
            _ => Err(PyErr::type_error(format!(
                "'{}' object is not callable",
                self.type_name()
            ))),
        }
    }

    fn get_attr(&self, _it: &mut Interp, this: &Value, name: &str) -> Res<Value> {
        match self {
            CoreObj::Display { text, .. } if name == "data" => Ok(Value::str(text.as_str())),
            CoreObj::Property { getter, .. } => match name {
                "setter" => Ok(Value::BoundMethod(Rc::new((this.clone(), name.into())))),
                "fget" => Ok(getter.clone()),
                _ => Err(no_attribute("property", name)),
            },
            CoreObj::StdStream(_) if matches!(name, "write" | "flush") => {
                Ok(Value::BoundMethod(Rc::new((this.clone(), name.into()))))
            }
            _ => Err(no_attribute(self.type_name(), name)),
        }
    }

    fn set_attr(&self, _it: &mut Interp, name: &str, v: Value) -> Res<()> {
        match self {
            CoreObj::Property { setter, .. } if name == "setter" => {
                *setter.borrow_mut() = Some(v);
                Ok(())
            }
            _ => Err(PyErr::attribute_error(format!(
                "'{}' object attribute '{name}' is read-only",
                self.type_name()
            ))),
        }
    }

    fn call_method(&self, it: &mut Interp, _this: &Value, name: &str, a: Args) -> Res<Value> {
        match self {
            CoreObj::StdStream(err) => match name {
                "write" => {
                    let s = a.pos.first().cloned().unwrap_or(Value::str(""));
                    let s = it.str_of(&s)?;
                    let n = s.chars().count() as i64;
                    let stream = if *err {
                        crate::Stream::Stderr
                    } else {
                        crate::Stream::Stdout
                    };
                    it.write(stream, s);
                    Ok(Value::Int(n))
                }
                "flush" => Ok(Value::None),
                _ => Err(no_attribute("TextIOWrapper", name)),
            },
            CoreObj::Property { setter, getter } if name == "setter" => {
                let f = a
                    .pos
                    .first()
                    .cloned()
                    .ok_or_else(|| PyErr::type_error("setter() takes a function"))?;
                *setter.borrow_mut() = Some(f);
                Ok(CoreObj::Property {
                    getter: getter.clone(),
                    setter: RefCell::new(setter.borrow().clone()),
                }
                .value())
            }
            _ => Err(no_attribute(self.type_name(), name)),
        }
    }
}
