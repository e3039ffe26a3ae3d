//! Tensor intrinsics and `tensorize`.
//!
//! A [`TensorIntrin`] pairs a *description* PrimFunc (the computation, e.g.
//! a 16×16×16 matmul over `T.match_buffer`ed parameters) with an
//! *implementation* PrimFunc (what replaces it, e.g. `T.call_extern`).
//! Intrinsics live in a [`TensorIntrinTable`] owned by whoever runs the
//! schedule — the host, or one run of a script — never in global state: a
//! [`Schedule`] carries the table its `tensorize` calls look names up in
//! ([`Schedule::tensor_intrins_mut`], [`Schedule::set_tensor_intrins`]).

use std::collections::BTreeMap;
use std::fmt;
use std::rc::Rc;

use super::*;

/// `tvm.tir.TensorIntrin`: a description and an implementation.
#[derive(Clone, Debug)]
pub struct TensorIntrin {
    pub desc: Rc<PrimFunc>,
    pub implementation: Rc<PrimFunc>,
}

/// Why an intrinsic cannot be registered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IntrinError(pub String);

impl fmt::Display for IntrinError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for IntrinError {}

impl TensorIntrin {
    /// Checks what `tensorize` relies on: the same number of parameters,
    /// every parameter a handle bound to a buffer, and both bodies a block
    /// (the `with T.block("root")` holding the reads and writes).
    pub fn new(
        desc: Rc<PrimFunc>,
        implementation: Rc<PrimFunc>,
    ) -> std::result::Result<TensorIntrin, IntrinError> {
        if desc.params.len() != implementation.params.len() {
            return Err(IntrinError(format!(
                "the description has {} parameters but the implementation {}; they must match",
                desc.params.len(),
                implementation.params.len()
            )));
        }
        for (what, f) in [("description", &desc), ("implementation", &implementation)] {
            for p in &f.params {
                if !p.dtype().is_handle() || f.param_buffer(p).is_none() {
                    return Err(IntrinError(format!(
                        "parameter `{}` of the {what} must be a handle matched to a buffer (`T.match_buffer`)",
                        p.name()
                    )));
                }
            }
            if f.body.as_block_realize().is_none() {
                return Err(IntrinError(format!(
                    "the body of the {what} must be a block (`with T.block(\"root\"):` with `T.reads`/`T.writes`)"
                )));
            }
        }
        Ok(TensorIntrin {
            desc,
            implementation,
        })
    }
}

/// Named tensor intrinsics (`TensorIntrin.register`). Cheap to clone.
#[derive(Clone, Debug, Default)]
pub struct TensorIntrinTable {
    intrins: BTreeMap<String, TensorIntrin>,
}

impl TensorIntrinTable {
    pub fn new() -> TensorIntrinTable {
        TensorIntrinTable::default()
    }

    /// `TensorIntrin.register(name, desc, impl, override=False)`.
    pub fn register(
        &mut self,
        name: &str,
        desc: Rc<PrimFunc>,
        implementation: Rc<PrimFunc>,
        override_existing: bool,
    ) -> std::result::Result<(), IntrinError> {
        if !override_existing && self.intrins.contains_key(name) {
            return Err(IntrinError(format!(
                "TensorIntrin `{name}` has already been registered"
            )));
        }
        let intrin = TensorIntrin::new(desc, implementation)?;
        self.intrins.insert(name.to_string(), intrin);
        Ok(())
    }

    /// `TensorIntrin.get(name)`.
    pub fn get(&self, name: &str) -> Option<&TensorIntrin> {
        self.intrins.get(name)
    }

    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.intrins.keys().map(String::as_str)
    }
}

impl Schedule {
    /// The intrinsics `tensorize` can use.
    pub fn tensor_intrins(&self) -> &TensorIntrinTable {
        &self.intrins
    }
    pub fn tensor_intrins_mut(&mut self) -> &mut TensorIntrinTable {
        &mut self.intrins
    }
    /// Replaces the table (a script run passes its own before each call).
    pub fn set_tensor_intrins(&mut self, table: TensorIntrinTable) {
        self.intrins = table;
    }
}
