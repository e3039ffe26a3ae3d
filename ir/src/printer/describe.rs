//! Short descriptions of graph struct info and dimensions for error
//! messages (`R.Tensor((2, 3), dtype="float32")`, `n * 3`), and struct
//! info's `Display`: printing is the printer's job, so the graph IR's data
//! module does not depend on it.

use std::fmt;

use crate::graph::{PrimExpr, StructInfo};

impl StructInfo {
    /// A short description for error messages: `R.Tensor((2, 3), "float32")`.
    pub fn describe(&self) -> String {
        describe_sinfo(self)
    }
}

/// A dimension for error messages: `3`, `n`, `n * 3`.
pub fn describe_dim(e: &PrimExpr) -> String {
    super::relax_dim_text(e)
}

fn describe_sinfo(s: &StructInfo) -> String {
    fn dims(v: &[PrimExpr]) -> String {
        let parts: Vec<String> = v.iter().map(describe_dim).collect();
        if parts.len() == 1 {
            format!("({},)", parts[0])
        } else {
            format!("({})", parts.join(", "))
        }
    }
    match s {
        StructInfo::Object => "R.Object".into(),
        StructInfo::Prim(d) => format!("R.Prim({:?})", d.to_string()),
        StructInfo::Shape(sh) => match (&sh.values, sh.ndim) {
            (Some(v), _) => {
                let parts: Vec<String> = v.iter().map(describe_dim).collect();
                format!("R.Shape([{}])", parts.join(", "))
            }
            (None, Some(n)) => format!("R.Shape(ndim={n})"),
            (None, None) => "R.Shape".into(),
        },
        StructInfo::Tensor(t) => {
            let mut args = Vec::new();
            if let Some(shape) = &t.shape {
                args.push(dims(shape));
            }
            if let Some(d) = t.dtype {
                args.push(format!("dtype={:?}", d.to_string()));
            }
            if t.shape.is_none() {
                if let Some(n) = t.ndim {
                    args.push(format!("ndim={n}"));
                }
            }
            if args.is_empty() {
                "R.Tensor".into()
            } else {
                format!("R.Tensor({})", args.join(", "))
            }
        }
        StructInfo::Tuple(fields) => {
            let parts: Vec<String> = fields.iter().map(describe_sinfo).collect();
            if parts.is_empty() {
                "R.Tuple".into()
            } else {
                format!("R.Tuple({})", parts.join(", "))
            }
        }
        StructInfo::Func(_) => "R.Callable".into(),
    }
}

impl fmt::Display for StructInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&describe_sinfo(self))
    }
}
