//! TensorIR functions ([`PrimFunc`]) and attribute values. The module that
//! holds them beside graph functions, `IRModule`, is one layer up.

use std::collections::BTreeMap;

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
