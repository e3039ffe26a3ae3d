//! The values schedule methods take and return by name ([`SchedValue`]):
//! what trace replay, schedule scripts and the primitives' argument binding
//! share.

use std::collections::HashMap;

use super::{Rv, TraceArg};

/// A value passed to or returned from a schedule method.
#[derive(Clone, Debug, PartialEq)]
pub enum SchedValue {
    Rv(Rv),
    Int(i64),
    Float(f64),
    Bool(bool),
    Str(String),
    None,
    List(Vec<SchedValue>),
    /// Python source of an argument Tessel keeps as text (an index-map lambda).
    Source(String),
}

impl SchedValue {
    pub fn to_trace(&self) -> TraceArg {
        match self {
            SchedValue::Rv(r) => TraceArg::Rv(*r),
            SchedValue::Int(v) => TraceArg::Int(*v),
            SchedValue::Float(v) => TraceArg::Float(*v),
            SchedValue::Bool(v) => TraceArg::Bool(*v),
            SchedValue::Str(s) => TraceArg::Str(s.clone()),
            SchedValue::None => TraceArg::None,
            SchedValue::List(v) => TraceArg::List(v.iter().map(|x| x.to_trace()).collect()),
            SchedValue::Source(s) => TraceArg::Source(s.clone()),
        }
    }
    /// A recorded argument as a value.
    pub fn of_trace(t: &TraceArg) -> SchedValue {
        SchedValue::from_trace(t, &HashMap::new())
    }

    /// A recorded argument as a value, its variables renamed by `rvs`.
    pub(crate) fn from_trace(t: &TraceArg, rvs: &HashMap<Rv, Rv>) -> SchedValue {
        match t {
            TraceArg::Rv(r) => SchedValue::Rv(*rvs.get(r).unwrap_or(r)),
            TraceArg::Int(v) => SchedValue::Int(*v),
            TraceArg::Float(v) => SchedValue::Float(*v),
            TraceArg::Bool(v) => SchedValue::Bool(*v),
            TraceArg::Str(s) => SchedValue::Str(s.clone()),
            TraceArg::None => SchedValue::None,
            TraceArg::List(v) => {
                SchedValue::List(v.iter().map(|x| SchedValue::from_trace(x, rvs)).collect())
            }
            TraceArg::Source(s) => SchedValue::Source(s.clone()),
        }
    }
}
