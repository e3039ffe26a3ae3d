//! Functions and modules.
//!
//! An [`IRModule`] maps global names to functions of either level: TensorIR
//! [`PrimFunc`]s and graph-level functions ([`crate::graph::Function`]; the
//! course mixes `@T.prim_func` and `@R.function` in one class, so the module
//! is keyed by [`BaseFunc`]: a PrimFunc or a graph function).

use std::collections::BTreeMap;
use std::rc::Rc;

use super::buffer::Buffer;
use super::expr::{Expr, Var};
use super::stmt::{Block, BlockRealize, Stmt, StmtKind};
use tessel_syntax::diag::Span;

/// A value in a function attribute or annotation dictionary.
#[derive(Clone, Debug)]
pub enum AttrValue {
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    Expr(Expr),
    Array(Vec<AttrValue>),
    Map(BTreeMap<String, AttrValue>),
}

/// A TensorIR function.
#[derive(Clone, Debug)]
pub struct PrimFunc {
    /// Parameters in order: handles (with an entry in `buffer_map`) or scalars.
    pub params: Vec<Var>,
    /// The buffer each handle parameter is matched to, in parameter order.
    pub buffer_map: Vec<(Var, Buffer)>,
    /// Usually the root block realize (`# with T.block("root"):`).
    pub body: Stmt,
    /// `T.func_attr({...})`, sorted by key.
    pub attrs: BTreeMap<String, AttrValue>,
    pub span: Span,
}

impl PrimFunc {
    /// The buffer bound to a parameter, if it is a handle with a buffer.
    pub fn param_buffer(&self, param: &Var) -> Option<&Buffer> {
        self.buffer_map
            .iter()
            .find(|(v, _)| v == param)
            .map(|(_, b)| b)
    }
    /// The buffers of the parameters, in order.
    pub fn param_buffers(&self) -> impl Iterator<Item = &Buffer> {
        self.buffer_map.iter().map(|(_, b)| b)
    }
    /// The root block, when the body is one (functions with blocks).
    pub fn root_block(&self) -> Option<&Block> {
        match self.body.kind() {
            StmtKind::BlockRealize(BlockRealize { block, .. }) if block.iter_vars.is_empty() => {
                Some(block)
            }
            _ => None,
        }
    }
    /// The same function with another body.
    pub fn with_body(&self, body: Stmt) -> PrimFunc {
        PrimFunc {
            body,
            ..self.clone()
        }
    }
}

/// Any function an [`IRModule`] can hold.
#[derive(Clone, Debug)]
pub enum BaseFunc {
    /// A TensorIR function (`@T.prim_func`).
    Prim(Rc<PrimFunc>),
    /// A graph-level function (`@R.function`), see [`crate::graph`].
    Graph(Rc<crate::graph::Function>),
}

impl BaseFunc {
    pub fn as_prim(&self) -> Option<&Rc<PrimFunc>> {
        match self {
            BaseFunc::Prim(f) => Some(f),
            BaseFunc::Graph(_) => None,
        }
    }
    pub fn as_graph(&self) -> Option<&Rc<crate::graph::Function>> {
        match self {
            BaseFunc::Graph(f) => Some(f),
            BaseFunc::Prim(_) => None,
        }
    }
}

/// A collection of named functions, in insertion order.
#[derive(Clone, Debug, Default)]
pub struct IRModule {
    pub functions: Vec<(String, BaseFunc)>,
    /// Module attributes (`I.module_attrs`), rarely used.
    pub attrs: BTreeMap<String, AttrValue>,
}

impl IRModule {
    pub fn new() -> IRModule {
        IRModule::default()
    }
    /// A module holding one PrimFunc under `name`.
    pub fn from_prim_func(name: impl Into<String>, func: PrimFunc) -> IRModule {
        let mut m = IRModule::new();
        m.insert(name, BaseFunc::Prim(Rc::new(func)));
        m
    }
    pub fn get(&self, name: &str) -> Option<&BaseFunc> {
        self.functions
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, f)| f)
    }
    pub fn get_prim(&self, name: &str) -> Option<&Rc<PrimFunc>> {
        self.get(name).and_then(BaseFunc::as_prim)
    }
    /// Adds or replaces a function (a replaced one keeps its position).
    pub fn insert(&mut self, name: impl Into<String>, func: BaseFunc) {
        let name = name.into();
        match self.functions.iter_mut().find(|(n, _)| *n == name) {
            Some(slot) => slot.1 = func,
            None => self.functions.push((name, func)),
        }
    }
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.functions.iter().map(|(n, _)| n.as_str())
    }
    pub fn get_graph(&self, name: &str) -> Option<&Rc<crate::graph::Function>> {
        self.get(name).and_then(BaseFunc::as_graph)
    }
    /// The graph functions with their names.
    pub fn graph_funcs(&self) -> impl Iterator<Item = (&str, &Rc<crate::graph::Function>)> {
        self.functions
            .iter()
            .filter_map(|(n, f)| f.as_graph().map(|g| (n.as_str(), g)))
    }
    /// The PrimFuncs with their names.
    pub fn prim_funcs(&self) -> impl Iterator<Item = (&str, &Rc<PrimFunc>)> {
        self.functions
            .iter()
            .filter_map(|(n, f)| f.as_prim().map(|p| (n.as_str(), p)))
    }
}
