//! Struct-info (shape and dtype) inference of the built-in graph operators.
//! The operators themselves are IR data ([`tessel_ir::graph::op`],
//! re-exported here).
//!
//! Inference follows TVM 0.27's rules (checked with the oracle, see
//! `tools/tvm_oracle/README.md`): numpy broadcasting for the element-wise
//! binary operators, where a dimension that is neither provably equal nor
//! 1 on one side makes the result shape unknown (rank only) unless both are
//! different constants (an error); `matmul` with numpy's 1-D promotion and
//! batch broadcasting; reductions and `permute_dims` with negative axes;
//! `reshape` requiring equal element counts.

pub use tessel_ir::graph::op::*;

use tessel_tir::arith::Analyzer;
use tessel_tir::ir::{BinOp, DataType};

use super::ir::{PrimExpr, StructInfo, TensorInfo};
use tessel_tir::ir::printer::describe_dim;

// ---------------------------------------------------------------------------
// Inference

/// An inference failure: a message in TVM's spirit.
pub type InferResult = Result<StructInfo, String>;

fn tensor_arg<'a>(op: &Op, args: &'a [StructInfo], i: usize) -> Result<&'a TensorInfo, String> {
    match args.get(i) {
        Some(StructInfo::Tensor(t)) => Ok(t),
        Some(other) => Err(format!(
            "R.{} expects argument {} to be a tensor, but it is {}",
            op.script_name(),
            i + 1,
            other.describe()
        )),
        None => Err(format!(
            "R.{} expects {} arguments",
            op.script_name(),
            op.arity().unwrap_or(0)
        )),
    }
}

/// Whether two dimensions are provably equal.
pub fn prove_equal(a: &PrimExpr, b: &PrimExpr) -> bool {
    if let (Some(x), Some(y)) = (a.as_int(), b.as_int()) {
        return x == y;
    }
    Analyzer::new().can_prove_equal(a, b)
}

/// Whether two dimensions are provably different (two different constants).
fn provably_different(a: &PrimExpr, b: &PrimExpr) -> bool {
    if let (Some(x), Some(y)) = (a.as_int(), b.as_int()) {
        return x != y;
    }
    let d = Analyzer::new().simplify(&PrimExpr::binary(BinOp::Sub, a.clone(), b.clone()));
    matches!(d.as_int(), Some(v) if v != 0)
}

fn simplify(e: &PrimExpr) -> PrimExpr {
    if e.as_int().is_some() {
        return e.clone();
    }
    Analyzer::new().simplify(e)
}

fn i64c(v: i64) -> PrimExpr {
    PrimExpr::i64(v)
}

/// Normalises an axis against `ndim` (negative counts from the end).
fn normalize_axis(op: &Op, axis: i64, ndim: usize) -> Result<usize, String> {
    let n = ndim as i64;
    if axis < -n || axis >= n {
        return Err(format!(
            "R.{}: the input axis {axis} is out of range. The input tensor has {ndim} dimensions, so axis should be in range [{}, {ndim})",
            op.script_name(),
            -n
        ));
    }
    Ok(if axis < 0 {
        (axis + n) as usize
    } else {
        axis as usize
    })
}

fn normalize_axes(op: &Op, axes: &[i64], ndim: usize) -> Result<Vec<usize>, String> {
    let mut out = Vec::with_capacity(axes.len());
    for &a in axes {
        let x = normalize_axis(op, a, ndim)?;
        if out.contains(&x) {
            return Err(format!(
                "R.{}: the input axes are required to be non-repetitive, but there are multiple given axes referring to axis {x}",
                op.script_name()
            ));
        }
        out.push(x);
    }
    Ok(out)
}

/// The common dtype of two operands (unknown if either is unknown).
fn binary_dtype(op: &Op, a: &TensorInfo, b: &TensorInfo) -> Result<Option<DataType>, String> {
    match (a.dtype, b.dtype) {
        (Some(x), Some(y)) if x != y => Err(format!(
            "binary operators must have the same datatype for both operands, but R.{} gets {} on the left ({}) and {} on the right ({})",
            op.script_name(),
            x,
            StructInfo::Tensor(a.clone()).describe(),
            y,
            StructInfo::Tensor(b.clone()).describe()
        )),
        (Some(x), Some(_)) => Ok(Some(x)),
        _ => Ok(None),
    }
}

/// Numpy broadcasting of two shapes. `Ok(None)` when a pair of dimensions can
/// neither be proven equal nor be 1 (the result's shape is then unknown).
pub fn broadcast_shapes(
    op_name: &str,
    a: &[PrimExpr],
    b: &[PrimExpr],
) -> Result<Option<Vec<PrimExpr>>, String> {
    let n = a.len().max(b.len());
    let mut out = Vec::with_capacity(n);
    // From the last dimension, as TVM reports the first mismatch.
    for i in (0..n).rev() {
        let da = if i + a.len() >= n {
            a.get(i + a.len() - n)
        } else {
            None
        };
        let db = if i + b.len() >= n {
            b.get(i + b.len() - n)
        } else {
            None
        };
        let d = match (da, db) {
            (Some(x), None) => x.clone(),
            (None, Some(y)) => y.clone(),
            (Some(x), Some(y)) => {
                if x.is_const_int(1) {
                    y.clone()
                } else if y.is_const_int(1) || prove_equal(x, y) {
                    x.clone()
                } else if provably_different(x, y) {
                    return Err(format!(
                        "{op_name}: the first input shape at dim {} is {} and the second input shape at dim {} is {}, which are not broadcastable",
                        i + a.len() - n,
                        describe_dim(x),
                        i + b.len() - n,
                        describe_dim(y)
                    ));
                } else {
                    return Ok(None);
                }
            }
            (None, None) => return Ok(None),
        };
        out.push(d);
    }
    out.reverse();
    Ok(Some(out))
}

fn infer_binary(op: &Op, args: &[StructInfo]) -> InferResult {
    let a = tensor_arg(op, args, 0)?;
    let b = tensor_arg(op, args, 1)?;
    let dtype = binary_dtype(op, a, b)?;
    let ndim = match (a.ndim, b.ndim) {
        (Some(x), Some(y)) => Some(x.max(y)),
        _ => None,
    };
    if let (Some(sa), Some(sb)) = (&a.shape, &b.shape) {
        if let Some(shape) = broadcast_shapes(&format!("R.{}", op.script_name()), sa, sb)? {
            return Ok(StructInfo::Tensor(TensorInfo::new(shape, dtype)));
        }
    }
    Ok(StructInfo::Tensor(TensorInfo::with_ndim(ndim, dtype)))
}

fn infer_matmul(op: &Op, out_dtype: Option<DataType>, args: &[StructInfo]) -> InferResult {
    let a = tensor_arg(op, args, 0)?;
    let b = tensor_arg(op, args, 1)?;
    let dtype = match out_dtype {
        Some(d) => Some(d),
        None => binary_dtype(op, a, b)?,
    };
    let (Some(na), Some(nb)) = (a.ndim, b.ndim) else {
        return Ok(StructInfo::Tensor(TensorInfo::with_ndim(None, dtype)));
    };
    if na == 0 || nb == 0 {
        return Err("R.matmul requires both inputs to have at least 1 dimension".into());
    }
    let prepend = na == 1;
    let append = nb == 1;
    let out_ndim = (na + usize::from(prepend)).max(nb + usize::from(append))
        - usize::from(prepend)
        - usize::from(append);
    let (Some(sa), Some(sb)) = (&a.shape, &b.shape) else {
        return Ok(StructInfo::Tensor(TensorInfo::with_ndim(
            Some(out_ndim),
            dtype,
        )));
    };
    let ka = &sa[na - 1];
    let kb = if append { &sb[0] } else { &sb[nb - 2] };
    if provably_different(ka, kb) {
        return Err(format!(
            "R.matmul requires the reduction length of the operands to be equal, but the left operand has shape {} and the right operand {}: the reduction dimensions {} and {} are not equal",
            shape_text(sa),
            shape_text(sb),
            describe_dim(ka),
            describe_dim(kb)
        ));
    }
    let batch_a = if na >= 2 { &sa[..na - 2] } else { &sa[..0] };
    let batch_b = if nb >= 2 { &sb[..nb - 2] } else { &sb[..0] };
    let Some(mut shape) = broadcast_shapes("R.matmul", batch_a, batch_b)? else {
        return Ok(StructInfo::Tensor(TensorInfo::with_ndim(
            Some(out_ndim),
            dtype,
        )));
    };
    if !prepend {
        shape.push(sa[na - 2].clone());
    }
    if !append {
        shape.push(sb[nb - 1].clone());
    }
    Ok(StructInfo::Tensor(TensorInfo::new(shape, dtype)))
}

/// `R.shape([2, 3])` text for messages.
pub fn shape_text(s: &[PrimExpr]) -> String {
    let parts: Vec<String> = s.iter().map(describe_dim).collect();
    format!("R.shape([{}])", parts.join(", "))
}

/// The permutation `permute_dims` applies (axis `i` of the result is axis
/// `perm[i]` of the input).
pub fn permutation(op: &Op, axes: &Option<Vec<i64>>, ndim: usize) -> Result<Vec<usize>, String> {
    match axes {
        None => Ok((0..ndim).rev().collect()),
        Some(axes) => {
            if axes.len() != ndim {
                return Err(format!(
                    "R.permute_dims expects the number of axes to equal the rank of the input tensor, but the tensor has {ndim} dimensions and {} axes are given",
                    axes.len()
                ));
            }
            normalize_axes(op, axes, ndim)
        }
    }
}

/// The axes a reduction reduces (all for `None`), normalised and sorted.
pub fn reduce_axes(op: &Op, axis: &Option<Vec<i64>>, ndim: usize) -> Result<Vec<usize>, String> {
    let mut v = match axis {
        None => (0..ndim).collect(),
        Some(a) => normalize_axes(op, a, ndim)?,
    };
    tessel_ir::sort::ascending(&mut v);
    Ok(v)
}

fn product(dims: &[PrimExpr]) -> PrimExpr {
    let mut p = i64c(1);
    for d in dims {
        p = if p.is_const_int(1) {
            d.clone()
        } else {
            PrimExpr::binary(BinOp::Mul, p, d.clone())
        };
    }
    simplify(&p)
}

/// The output size of a convolution along one axis.
fn conv_out(size: &PrimExpr, kernel: &PrimExpr, pad: i64, dilation: i64, stride: i64) -> PrimExpr {
    // (size + pad - dilation * (kernel - 1) - 1) // stride + 1
    let eff = PrimExpr::binary(
        BinOp::Add,
        PrimExpr::binary(
            BinOp::Mul,
            i64c(dilation),
            PrimExpr::binary(BinOp::Sub, kernel.clone(), i64c(1)),
        ),
        i64c(1),
    );
    let num = PrimExpr::binary(
        BinOp::Sub,
        PrimExpr::binary(BinOp::Add, size.clone(), i64c(pad)),
        eff,
    );
    simplify(&PrimExpr::binary(
        BinOp::Add,
        PrimExpr::binary(BinOp::FloorDiv, num, i64c(stride.max(1))),
        i64c(1),
    ))
}

fn infer_conv2d(op: &Op, attrs: &Conv2dAttrs, args: &[StructInfo]) -> InferResult {
    let data = tensor_arg(op, args, 0)?;
    let weight = tensor_arg(op, args, 1)?;
    for (what, layout) in [
        ("data_layout", &attrs.data_layout),
        ("kernel_layout", &attrs.kernel_layout),
        ("out_layout", &attrs.out_layout),
    ] {
        let expected = if what == "kernel_layout" {
            "OIHW"
        } else {
            "NCHW"
        };
        if layout != expected {
            return Err(format!(
                "R.nn.conv2d: only {what}=\"{expected}\" is supported, not \"{layout}\""
            ));
        }
    }
    if attrs.strides.iter().any(|&s| s <= 0) || attrs.dilation.iter().any(|&d| d <= 0) {
        return Err("R.nn.conv2d: strides and dilation must be positive".into());
    }
    if attrs.padding.iter().any(|&p| p < 0) {
        return Err("R.nn.conv2d: padding must not be negative".into());
    }
    if attrs.groups <= 0 {
        return Err("R.nn.conv2d: groups must be positive".into());
    }
    for (t, layout) in [(data, "NCHW"), (weight, "OIHW")] {
        if let Some(n) = t.ndim {
            if n != 4 {
                return Err(format!(
                    "R.nn.conv2d: layout {layout} requires the input to be a 4-dim tensor, but it has {n} dimensions"
                ));
            }
        }
    }
    let dtype = match attrs.out_dtype {
        Some(d) => Some(d),
        None => binary_dtype(op, data, weight)?,
    };
    let (Some(ds), Some(ws)) = (&data.shape, &weight.shape) else {
        return Ok(StructInfo::Tensor(TensorInfo::with_ndim(Some(4), dtype)));
    };
    let (n, c, h, w) = (&ds[0], &ds[1], &ds[2], &ds[3]);
    let (o, i, kh, kw) = (&ws[0], &ws[1], &ws[2], &ws[3]);
    let groups = i64c(attrs.groups);
    let expected_c = simplify(&PrimExpr::binary(BinOp::Mul, i.clone(), groups.clone()));
    if provably_different(c, &expected_c) {
        return Err(format!(
            "R.nn.conv2d: the channel size of the data should equal the product of the input channel size of the weight and the number of groups, but the data channel size is {} while the weight input channel size and number of groups are {} and {}",
            describe_dim(c),
            describe_dim(i),
            attrs.groups
        ));
    }
    if let Some(ov) = o.as_int() {
        if ov % attrs.groups != 0 {
            return Err(format!(
                "R.nn.conv2d: the number of output channels {ov} is not divisible by groups {}",
                attrs.groups
            ));
        }
    }
    let [sh, sw] = attrs.strides;
    let [pt, pl, pb, pr] = attrs.padding;
    let [dh, dw] = attrs.dilation;
    let oh = conv_out(h, kh, pt + pb, dh, sh);
    let ow = conv_out(w, kw, pl + pr, dw, sw);
    for (dim, what) in [(&oh, "height"), (&ow, "width")] {
        if let Some(v) = dim.as_int() {
            if v <= 0 {
                return Err(format!(
                    "R.nn.conv2d: the output {what} would be {v}: the kernel does not fit the padded input"
                ));
            }
        }
    }
    Ok(StructInfo::Tensor(TensorInfo::new(
        vec![n.clone(), o.clone(), oh, ow],
        dtype,
    )))
}

/// Infers the struct info of a call of a built-in operator from the struct
/// info of its arguments.
pub fn infer_op(op: &Op, args: &[StructInfo], sinfo_args: &[StructInfo]) -> InferResult {
    if let Some(n) = op.arity() {
        if args.len() != n {
            return Err(format!(
                "R.{} takes {n} argument{}, but {} were given",
                op.script_name(),
                if n == 1 { "" } else { "s" },
                args.len()
            ));
        }
    }
    match op {
        Op::Binary(_) => infer_binary(op, args),
        Op::Relu => Ok(StructInfo::Tensor(tensor_arg(op, args, 0)?.clone())),
        Op::Softmax { axis } => {
            let x = tensor_arg(op, args, 0)?;
            if let Some(d) = x.dtype {
                if !d.is_float() {
                    return Err(format!(
                        "R.nn.softmax requires the input tensor to have a float dtype, but the given input dtype is {d}"
                    ));
                }
            }
            if let Some(n) = x.ndim {
                normalize_axis(op, *axis, n)?;
            }
            Ok(StructInfo::Tensor(x.clone()))
        }
        Op::Matmul { out_dtype } => infer_matmul(op, *out_dtype, args),
        Op::PermuteDims { axes } => {
            let x = tensor_arg(op, args, 0)?;
            let Some(n) = x.ndim else {
                if let Some(a) = axes {
                    return Ok(StructInfo::Tensor(TensorInfo::with_ndim(
                        Some(a.len()),
                        x.dtype,
                    )));
                }
                return Ok(StructInfo::Tensor(x.clone()));
            };
            let perm = permutation(op, axes, n)?;
            match &x.shape {
                Some(s) => Ok(StructInfo::Tensor(TensorInfo::new(
                    perm.iter().map(|&p| s[p].clone()).collect(),
                    x.dtype,
                ))),
                None => Ok(StructInfo::Tensor(TensorInfo::with_ndim(Some(n), x.dtype))),
            }
        }
        Op::EwiseFma => {
            let a = tensor_arg(op, args, 0)?;
            let b = tensor_arg(op, args, 1)?;
            let c = tensor_arg(op, args, 2)?;
            if let (Some(x), Some(y), Some(z)) = (a.ndim, b.ndim, c.ndim) {
                if x != y || y != z {
                    return Err(
                        "the 3 arguments of R.ewise_fma must have the same number of dimensions"
                            .into(),
                    );
                }
            }
            let mut dtype = binary_dtype(op, a, b)?;
            if dtype.is_some() {
                dtype = binary_dtype(op, a, c)?;
            }
            if let (Some(sa), Some(sb), Some(sc)) = (&a.shape, &b.shape, &c.shape) {
                for (i, ((x, y), z)) in sa.iter().zip(sb).zip(sc).enumerate() {
                    if provably_different(x, y) || provably_different(x, z) {
                        return Err(format!(
                            "the 3 arguments of R.ewise_fma must have the same shape, but they differ at dim {i}: {}, {} and {}",
                            describe_dim(x),
                            describe_dim(y),
                            describe_dim(z)
                        ));
                    }
                }
                return Ok(StructInfo::Tensor(TensorInfo::new(sa.clone(), dtype)));
            }
            Ok(StructInfo::Tensor(TensorInfo::with_ndim(a.ndim, dtype)))
        }
        Op::Reshape => {
            let x = tensor_arg(op, args, 0)?;
            let new = match args.get(1) {
                Some(StructInfo::Shape(s)) => s,
                Some(other) => {
                    return Err(format!(
                        "R.reshape expects the new shape to be a shape, but it is {}",
                        other.describe()
                    ))
                }
                None => return Err("R.reshape takes 2 arguments".into()),
            };
            let Some(values) = &new.values else {
                return Ok(StructInfo::Tensor(TensorInfo::with_ndim(new.ndim, x.dtype)));
            };
            if let Some(old) = &x.shape {
                let (po, pn) = (product(old), product(values));
                if !prove_equal(&po, &pn) {
                    return Err(format!(
                        "R.reshape expects the new shape to be convertible from the old shape, but the old shape is {}, with product {}, while the new shape is {}, with product {}",
                        shape_text(old),
                        describe_dim(&po),
                        shape_text(values),
                        describe_dim(&pn)
                    ));
                }
            }
            Ok(StructInfo::Tensor(TensorInfo::new(values.clone(), x.dtype)))
        }
        Op::Conv2d(attrs) => infer_conv2d(op, attrs, args),
        Op::Sum { axis, keepdims } | Op::Mean { axis, keepdims } => {
            let x = tensor_arg(op, args, 0)?;
            let Some(n) = x.ndim else {
                return Ok(StructInfo::Tensor(TensorInfo::with_ndim(None, x.dtype)));
            };
            let axes = reduce_axes(op, axis, n)?;
            let out_ndim = if *keepdims { n } else { n - axes.len() };
            match &x.shape {
                Some(s) => {
                    let mut out = Vec::new();
                    for (i, d) in s.iter().enumerate() {
                        if axes.contains(&i) {
                            if *keepdims {
                                out.push(i64c(1));
                            }
                        } else {
                            out.push(d.clone());
                        }
                    }
                    Ok(StructInfo::Tensor(TensorInfo::new(out, x.dtype)))
                }
                None => Ok(StructInfo::Tensor(TensorInfo::with_ndim(
                    Some(out_ndim),
                    x.dtype,
                ))),
            }
        }
        Op::CallTir | Op::CallDpsPacked => {
            if args.len() < 2 || args.len() > 3 {
                return Err(format!(
                    "R.{} takes the function, a tuple of arguments and the output struct info",
                    op.script_name()
                ));
            }
            if !matches!(args.get(1), Some(StructInfo::Tuple(_))) {
                return Err(format!(
                    "R.{} expects its arguments as a tuple",
                    op.script_name()
                ));
            }
            match sinfo_args {
                [out] => {
                    check_dps_output(op, out)?;
                    Ok(out.clone())
                }
                _ => Err(format!(
                    "R.{} needs exactly one output struct info (`out_sinfo=`)",
                    op.script_name()
                )),
            }
        }
    }
}

/// The output of a destination-passing call must be a tensor or a tuple of
/// tensors with known shape.
fn check_dps_output(op: &Op, out: &StructInfo) -> Result<(), String> {
    let check = |t: &StructInfo| match t {
        StructInfo::Tensor(ti) if ti.shape.is_some() => Ok(()),
        other => Err(format!(
            "R.{}: the output must be a tensor of known shape (or a list of them), not {}",
            op.script_name(),
            other.describe()
        )),
    };
    match out {
        StructInfo::Tuple(fields) => fields.iter().try_for_each(check),
        t => check(t),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::ir::{Callee, Expr};
    use tessel_tir::ir::Var;

    fn dims(v: &[i64]) -> Vec<PrimExpr> {
        v.iter().map(|&d| PrimExpr::i64(d)).collect()
    }

    #[test]
    fn broadcasting() {
        let r = broadcast_shapes("add", &dims(&[7, 1, 3]), &dims(&[2, 1])).expect("ok");
        let got: Vec<i64> = r
            .expect("known")
            .iter()
            .filter_map(|d| d.as_int())
            .collect();
        assert_eq!(got, vec![7, 2, 3]);
        let n = Var::new("n", DataType::i64());
        let r = broadcast_shapes("add", &[n.to_expr(), PrimExpr::i64(3)], &dims(&[2, 3]));
        assert!(matches!(r, Ok(None)), "n vs 2 is unknown");
        let r = broadcast_shapes("add", &[n.to_expr()], &[n.to_expr()]).expect("ok");
        assert!(r.is_some());
        let err = broadcast_shapes("R.add", &dims(&[2, 3]), &dims(&[4, 5])).expect_err("mismatch");
        assert!(err.contains("dim 1 is 3"), "{err}");
    }

    #[test]
    fn linear_is_permute_matmul_add() {
        let x = Expr::global("x");
        let e = linear(x.clone(), x.clone(), Some(x), None);
        let Some(add) = e.as_call() else {
            panic!("a call")
        };
        assert!(matches!(add.callee, Callee::Op(Op::Binary(BinaryOp::Add))));
        let Some(mm) = add.args[0].as_call() else {
            panic!("matmul")
        };
        assert!(matches!(mm.callee, Callee::Op(Op::Matmul { .. })));
    }

    #[test]
    fn every_op_name_is_known() {
        for name in OP_NAMES {
            assert!(
                [
                    Op::Binary(BinaryOp::Add),
                    Op::Binary(BinaryOp::Subtract),
                    Op::Binary(BinaryOp::Multiply),
                    Op::Binary(BinaryOp::Divide),
                    Op::Relu,
                    Op::Matmul { out_dtype: None },
                    Op::PermuteDims { axes: None },
                    Op::EwiseFma,
                    Op::Reshape,
                    Op::Softmax { axis: -1 },
                    Op::Conv2d(Conv2dAttrs::default()),
                    Op::Sum {
                        axis: None,
                        keepdims: false
                    },
                    Op::Mean {
                        axis: None,
                        keepdims: false
                    },
                    Op::CallTir,
                    Op::CallDpsPacked,
                ]
                .iter()
                .any(|o| o.script_name() == *name),
                "{name}"
            );
        }
    }
}
