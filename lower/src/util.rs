//! Small expression builders shared by the passes: they coerce integer
//! dtypes and fold the trivial cases so the lowered IR stays readable.

use tessel_tir::ir::{BinOp, Buffer, DataType, Expr, ExprKind, Stmt, StmtKind, Var};

/// `e` converted to `dtype` (constants re-typed rather than cast).
pub fn cast(e: &Expr, dtype: DataType) -> Expr {
    if e.dtype() == dtype {
        return e.clone();
    }
    if let Some(v) = e.as_int() {
        if dtype.is_integer() && dtype.is_scalar() {
            return Expr::int(v, dtype);
        }
    }
    Expr::cast(dtype, e.clone())
}

/// The wider of two integer dtypes (int64 wins).
pub fn wider(a: DataType, b: DataType) -> DataType {
    if a.bits >= b.bits {
        a
    } else {
        b
    }
}

pub fn add(a: &Expr, b: &Expr) -> Expr {
    let dt = wider(a.dtype(), b.dtype());
    if a.is_const_int(0) {
        return cast(b, dt);
    }
    if b.is_const_int(0) {
        return cast(a, dt);
    }
    Expr::binary(BinOp::Add, cast(a, dt), cast(b, dt))
}

pub fn sub(a: &Expr, b: &Expr) -> Expr {
    let dt = wider(a.dtype(), b.dtype());
    if b.is_const_int(0) {
        return cast(a, dt);
    }
    Expr::binary(BinOp::Sub, cast(a, dt), cast(b, dt))
}

pub fn mul(a: &Expr, b: &Expr) -> Expr {
    let dt = wider(a.dtype(), b.dtype());
    if a.is_const_int(1) {
        return cast(b, dt);
    }
    if b.is_const_int(1) {
        return cast(a, dt);
    }
    if a.is_const_int(0) || b.is_const_int(0) {
        return Expr::int(0, dt);
    }
    Expr::binary(BinOp::Mul, cast(a, dt), cast(b, dt))
}

/// Whether any load or store in `s` touches a buffer with data pointer `data`.
pub fn stmt_touches(s: &Stmt, data: &Var) -> bool {
    let mut found = false;
    s.walk(&mut |x| {
        if found {
            return;
        }
        if let StmtKind::Store { buffer, .. } = x.kind() {
            if &buffer.data == data {
                found = true;
            }
        }
        if let StmtKind::Allocate { buffer, .. } = x.kind() {
            if &buffer.data == data {
                found = true;
            }
        }
        x.for_each_expr(|e| {
            if expr_touches(e, data) {
                found = true;
            }
        });
        if let StmtKind::BlockRealize(r) = x.kind() {
            let b = &r.block;
            let regions = b.reads.iter().chain(&b.writes);
            if regions.into_iter().any(|r| &r.buffer.data == data)
                || b.match_buffers
                    .iter()
                    .any(|m| &m.source.buffer.data == data)
            {
                found = true;
            }
        }
    });
    found
}

/// Whether a load in `e` reads a buffer with data pointer `data` (or `e`
/// uses the pointer itself).
pub fn expr_touches(e: &Expr, data: &Var) -> bool {
    let mut found = false;
    e.walk(&mut |x| match x.kind() {
        ExprKind::Load { buffer, .. } if &buffer.data == data => found = true,
        ExprKind::Var(v) if v == data => found = true,
        _ => {}
    });
    found
}

/// The element count of a compact buffer of `shape`, in `dtype`.
pub fn product(shape: &[Expr], dtype: DataType) -> Expr {
    let mut acc = Expr::int(1, dtype);
    for d in shape {
        acc = mul(&acc, d);
    }
    acc
}

/// Row-major strides of `buffer` (its declared strides when it has them).
pub fn strides_of(buffer: &Buffer, dtype: DataType) -> Vec<Expr> {
    if buffer.strides.len() == buffer.shape.len() && !buffer.strides.is_empty() {
        return buffer.strides.iter().map(|s| cast(s, dtype)).collect();
    }
    let n = buffer.shape.len();
    let mut out = vec![Expr::int(1, dtype); n];
    let mut acc = Expr::int(1, dtype);
    for d in (0..n).rev() {
        out[d] = acc.clone();
        acc = mul(&acc, &cast(&buffer.shape[d], dtype));
    }
    out
}
