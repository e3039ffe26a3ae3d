//! [`IRModule`]: the named functions of a program. It maps global names to
//! functions of either level, TensorIR [`PrimFunc`]s and graph-level
//! functions ([`Function`]): the course mixes `@T.prim_func` and
//! `@R.function` in one class, so the module is keyed by [`BaseFunc`].

use std::collections::BTreeMap;
use std::rc::Rc;

use crate::graph::Function;
use crate::tir::func::{AttrValue, PrimFunc};

/// Any function an [`IRModule`] can hold.
#[derive(Clone, Debug)]
pub enum BaseFunc {
    /// A TensorIR function (`@T.prim_func`).
    Prim(Rc<PrimFunc>),
    /// A graph-level function (`@R.function`), see [`crate::graph`].
    Graph(Rc<Function>),
}

impl BaseFunc {
    pub fn as_prim(&self) -> Option<&Rc<PrimFunc>> {
        match self {
            BaseFunc::Prim(f) => Some(f),
            BaseFunc::Graph(_) => None,
        }
    }
    pub fn as_graph(&self) -> Option<&Rc<Function>> {
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
    pub fn get_graph(&self, name: &str) -> Option<&Rc<Function>> {
        self.get(name).and_then(BaseFunc::as_graph)
    }
    /// The graph functions with their names.
    pub fn graph_funcs(&self) -> impl Iterator<Item = (&str, &Rc<Function>)> {
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
