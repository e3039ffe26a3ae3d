//! placeholder
use std::collections::HashMap;
use crate::ir::{Expr, Range, VarId};
pub fn eval_bound(_e: &Expr, _dom: &HashMap<VarId, Range>) -> Option<Range> { None }
