//! placeholder
use crate::ir::{Expr, Range, Var};
pub struct IterMap; pub struct IterMark; pub struct IterSplit; pub struct IterSum; pub enum MarkSource {}
pub fn detect_iter_map(_b: &[Expr], _l: &[(Var, Range)], _p: &Expr) -> Result<IterMap, String> { Err(String::new()) }
