//! Reference implementations of the built-in graph operators on
//! [`NDArray`]s: the ground truth the VM uses when an operator has not been
//! legalized to a PrimFunc, and that legalized code is checked against.
//!
//! Semantics are NumPy's (broadcasting, `matmul` promotion of 1-D operands)
//! with the element type's arithmetic: every float operation is rounded to
//! the dtype (so `float32` results match a float32 TensorIR loop that
//! accumulates in the same order: `matmul`, `sum` and `conv2d` accumulate
//! sequentially from 0), integers wrap at their width. `mean` of integers
//! divides with truncation, integer `divide` truncates (division by zero is
//! an error), `softmax` subtracts the maximum first.

use std::fmt;

use tessel_tir::eval::{round_to_f16, NDArray};
use tessel_tir::ir::values::NDArrayError;
use tessel_tir::ir::DataType;

use super::op::{permutation, reduce_axes, BinaryOp, Conv2dAttrs, Op};

/// Why a reference operator could not run. Displays as the message the VM
/// and the script interpreter report; the VM adds the call's span.
#[derive(Clone, Debug, PartialEq)]
pub enum OpError {
    /// Making, reshaping or writing an array failed.
    Array(NDArrayError),
    /// An array beyond [`MAX_ALLOC_BYTES`].
    TooLarge {
        shape: Vec<usize>,
        dtype: DataType,
    },
    NotBroadcastable {
        a: Vec<usize>,
        b: Vec<usize>,
    },
    /// `R.<op>` got operands of different element types.
    DtypeMismatch {
        op: String,
        a: DataType,
        b: DataType,
    },
    /// `R.matmul`'s contracted dimensions differ.
    ReductionMismatch {
        a: usize,
        b: usize,
        a_shape: Vec<usize>,
        b_shape: Vec<usize>,
    },
    /// `R.nn.conv2d`: data channels ≠ weight input channels × groups.
    ChannelMismatch {
        data: usize,
        weight: usize,
        groups: usize,
    },
    /// `R.<op>` was called with fewer arguments than it takes (1-based).
    MissingArgument {
        op: String,
        index: usize,
    },
    /// `call_tir` and `call_dps_packed` are the VM's, not an operator's.
    NotReference {
        op: String,
    },
    /// A destination-passing result does not fit its output buffer.
    OutputMismatch {
        what: String,
        result: (DataType, Vec<usize>),
        output: (DataType, Vec<usize>),
    },
    /// Any other unsupported input, with its message.
    Invalid(String),
}

impl fmt::Display for OpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OpError::Array(e) => e.fmt(f),
            OpError::TooLarge { shape, dtype } => write!(
                f,
                "an array of shape {shape:?} and dtype {dtype} is larger than the {} MiB limit",
                MAX_ALLOC_BYTES >> 20
            ),
            OpError::NotBroadcastable { a, b } => {
                write!(f, "shapes {a:?} and {b:?} are not broadcastable")
            }
            OpError::DtypeMismatch { op, a, b } => {
                write!(f, "R.{op}: operands have different dtypes {a} and {b}")
            }
            OpError::ReductionMismatch {
                a,
                b,
                a_shape,
                b_shape,
            } => write!(
                f,
                "R.matmul: the reduction dimensions {a} and {b} differ (shapes {a_shape:?} and {b_shape:?})"
            ),
            OpError::ChannelMismatch {
                data,
                weight,
                groups,
            } => write!(
                f,
                "R.nn.conv2d: {data} data channels do not match {weight} weight input channels × {groups} groups"
            ),
            OpError::MissingArgument { op, index } => {
                write!(f, "R.{op}: missing argument {index}")
            }
            OpError::NotReference { op } => {
                write!(f, "R.{op} is not evaluated by the reference operators")
            }
            OpError::OutputMismatch {
                what,
                result,
                output,
            } => write!(
                f,
                "{what}: the result is {}{:?} but the output buffer is {}{:?}",
                result.0, result.1, output.0, output.1
            ),
            OpError::Invalid(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for OpError {}

impl From<NDArrayError> for OpError {
    fn from(e: NDArrayError) -> OpError {
        OpError::Array(e)
    }
}

impl From<String> for OpError {
    fn from(message: String) -> OpError {
        OpError::Invalid(message)
    }
}

impl From<&str> for OpError {
    fn from(message: &str) -> OpError {
        OpError::Invalid(message.to_string())
    }
}

/// Callers that report plain text keep using `?`.
impl From<OpError> for String {
    fn from(e: OpError) -> String {
        e.to_string()
    }
}

/// Largest array the VM allocates (outputs of calls and operators), in bytes.
pub const MAX_ALLOC_BYTES: usize = 1 << 30;

/// A zeroed array, refusing sizes beyond [`MAX_ALLOC_BYTES`].
pub fn zeros(dtype: DataType, shape: &[usize]) -> Result<NDArray, OpError> {
    let n = numel(shape)?;
    let bytes = n.checked_mul(dtype.bytes().max(1));
    if bytes.is_none_or(|b| b > MAX_ALLOC_BYTES) {
        return Err(OpError::TooLarge {
            shape: shape.to_vec(),
            dtype,
        });
    }
    Ok(NDArray::zeros(dtype, shape)?)
}

/// Row-major strides of a shape.
fn strides(shape: &[usize]) -> Vec<usize> {
    let mut s = vec![1usize; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        s[i] = s[i + 1].saturating_mul(shape[i + 1]);
    }
    s
}

fn numel(shape: &[usize]) -> Result<usize, OpError> {
    shape
        .iter()
        .try_fold(1usize, |a, &d| a.checked_mul(d))
        .ok_or_else(|| {
            OpError::Array(NDArrayError::TooManyElements {
                shape: shape.to_vec(),
            })
        })
}

/// Rounds an `f64` result to `dtype`'s precision.
fn round(dtype: DataType, v: f64) -> f64 {
    match dtype.bits {
        16 => round_to_f16(v),
        32 => v as f32 as f64,
        _ => v,
    }
}

/// Numpy broadcasting of two concrete shapes.
pub fn broadcast(a: &[usize], b: &[usize]) -> Result<Vec<usize>, OpError> {
    let n = a.len().max(b.len());
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let da = if i + a.len() >= n {
            a[i + a.len() - n]
        } else {
            1
        };
        let db = if i + b.len() >= n {
            b[i + b.len() - n]
        } else {
            1
        };
        out.push(if da == db || db == 1 {
            da
        } else if da == 1 {
            db
        } else {
            return Err(OpError::NotBroadcastable {
                a: a.to_vec(),
                b: b.to_vec(),
            });
        });
    }
    Ok(out)
}

/// For each element of `out_shape`, the flat index into an array of `shape`
/// broadcast to it.
fn broadcast_index(shape: &[usize], out_shape: &[usize]) -> Result<Vec<usize>, OpError> {
    let total = numel(out_shape)?;
    let st = strides(shape);
    let off = out_shape.len() - shape.len();
    let mut idx = vec![0usize; out_shape.len()];
    let mut out = Vec::with_capacity(total);
    for _ in 0..total {
        let mut flat = 0;
        for (k, &i) in idx.iter().enumerate().skip(off) {
            let d = shape[k - off];
            if d != 1 {
                flat += i * st[k - off];
            }
        }
        out.push(flat);
        // Increment the multi-index.
        for k in (0..idx.len()).rev() {
            idx[k] += 1;
            if idx[k] < out_shape[k] {
                break;
            }
            idx[k] = 0;
        }
    }
    Ok(out)
}

fn binary(op: BinaryOp, a: &NDArray, b: &NDArray) -> Result<NDArray, OpError> {
    if a.dtype() != b.dtype() {
        return Err(OpError::DtypeMismatch {
            op: op.name().to_string(),
            a: a.dtype(),
            b: b.dtype(),
        });
    }
    let dtype = a.dtype();
    let shape = broadcast(a.shape(), b.shape())?;
    let ia = broadcast_index(a.shape(), &shape)?;
    let ib = broadcast_index(b.shape(), &shape)?;
    let mut out = zeros(dtype, &shape)?;
    if dtype.is_float() {
        let (x, y) = (a.to_f64_vec(), b.to_f64_vec());
        for (k, (&i, &j)) in ia.iter().zip(&ib).enumerate() {
            let (p, q) = (x[i], y[j]);
            let v = match op {
                BinaryOp::Add => p + q,
                BinaryOp::Subtract => p - q,
                BinaryOp::Multiply => p * q,
                BinaryOp::Divide => p / q,
            };
            out.set_flat_f64(k, round(dtype, v))?;
        }
    } else {
        let (x, y) = (a.to_i64_vec(), b.to_i64_vec());
        for (k, (&i, &j)) in ia.iter().zip(&ib).enumerate() {
            let (p, q) = (x[i], y[j]);
            let v = match op {
                BinaryOp::Add => p.wrapping_add(q),
                BinaryOp::Subtract => p.wrapping_sub(q),
                BinaryOp::Multiply => p.wrapping_mul(q),
                BinaryOp::Divide => {
                    if q == 0 {
                        return Err("R.divide: integer division by zero".into());
                    }
                    p.wrapping_div(q)
                }
            };
            out.set_flat_i64(k, v)?;
        }
    }
    Ok(out)
}

fn relu(x: &NDArray) -> Result<NDArray, OpError> {
    let mut out = zeros(x.dtype(), x.shape())?;
    if x.dtype().is_float() {
        for (i, v) in x.to_f64_vec().into_iter().enumerate() {
            out.set_flat_f64(i, if v > 0.0 { v } else { 0.0 })?;
        }
    } else {
        for (i, v) in x.to_i64_vec().into_iter().enumerate() {
            out.set_flat_i64(i, v.max(0))?;
        }
    }
    Ok(out)
}

fn ewise_fma(a: &NDArray, b: &NDArray, c: &NDArray) -> Result<NDArray, OpError> {
    let ab = binary(BinaryOp::Multiply, a, b)?;
    binary(BinaryOp::Add, &ab, c)
}

/// `a` cast to `dtype` (for `out_dtype`).
fn cast(a: &NDArray, dtype: DataType) -> Result<NDArray, OpError> {
    if a.dtype() == dtype {
        return Ok(a.clone());
    }
    if a.dtype().is_float() {
        Ok(NDArray::from_f64_as(dtype, a.shape(), &a.to_f64_vec())?)
    } else {
        Ok(NDArray::from_i64(dtype, a.shape(), &a.to_i64_vec())?)
    }
}

fn matmul(a: &NDArray, b: &NDArray, out_dtype: Option<DataType>) -> Result<NDArray, OpError> {
    let dtype = out_dtype.unwrap_or(a.dtype());
    if out_dtype.is_none() && a.dtype() != b.dtype() {
        return Err(OpError::DtypeMismatch {
            op: "matmul".to_string(),
            a: a.dtype(),
            b: b.dtype(),
        });
    }
    let (a, b) = (cast(a, dtype)?, cast(b, dtype)?);
    if a.ndim() == 0 || b.ndim() == 0 {
        return Err("R.matmul needs operands of at least 1 dimension".into());
    }
    let mut sa = a.shape().to_vec();
    let mut sb = b.shape().to_vec();
    let prepend = sa.len() == 1;
    let append = sb.len() == 1;
    if prepend {
        sa.insert(0, 1);
    }
    if append {
        sb.push(1);
    }
    let (m, k) = (sa[sa.len() - 2], sa[sa.len() - 1]);
    let (k2, n) = (sb[sb.len() - 2], sb[sb.len() - 1]);
    if k != k2 {
        return Err(OpError::ReductionMismatch {
            a: k,
            b: k2,
            a_shape: a.shape().to_vec(),
            b_shape: b.shape().to_vec(),
        });
    }
    let batch = broadcast(&sa[..sa.len() - 2], &sb[..sb.len() - 2])?;
    // Batch indices into each operand.
    let ba = broadcast_index(&sa[..sa.len() - 2], &batch)?;
    let bb = broadcast_index(&sb[..sb.len() - 2], &batch)?;
    let mut out_shape = batch.clone();
    out_shape.push(m);
    out_shape.push(n);
    let mut out = zeros(dtype, &out_shape)?;
    let (mk, kn, mn) = (m * k, k * n, m * n);
    if dtype.is_float() {
        let (x, y) = (a.to_f64_vec(), b.to_f64_vec());
        for (bi, (&ia, &ib)) in ba.iter().zip(&bb).enumerate() {
            for i in 0..m {
                for j in 0..n {
                    let mut acc = 0.0;
                    for kk in 0..k {
                        let p = x[ia * mk + i * k + kk];
                        let q = y[ib * kn + kk * n + j];
                        acc = round(dtype, acc + round(dtype, p * q));
                    }
                    out.set_flat_f64(bi * mn + i * n + j, acc)?;
                }
            }
        }
    } else {
        let (x, y) = (a.to_i64_vec(), b.to_i64_vec());
        for (bi, (&ia, &ib)) in ba.iter().zip(&bb).enumerate() {
            for i in 0..m {
                for j in 0..n {
                    let mut acc: i64 = 0;
                    for kk in 0..k {
                        let p = x[ia * mk + i * k + kk];
                        let q = y[ib * kn + kk * n + j];
                        acc = acc.wrapping_add(p.wrapping_mul(q));
                    }
                    out.set_flat_i64(bi * mn + i * n + j, acc)?;
                }
            }
        }
    }
    let mut final_shape = batch;
    if !prepend {
        final_shape.push(m);
    }
    if !append {
        final_shape.push(n);
    }
    Ok(out.reshape(&final_shape)?)
}

fn permute(op: &Op, x: &NDArray, axes: &Option<Vec<i64>>) -> Result<NDArray, OpError> {
    let perm = permutation(op, axes, x.ndim())?;
    let in_shape = x.shape();
    let out_shape: Vec<usize> = perm.iter().map(|&p| in_shape[p]).collect();
    let st = strides(in_shape);
    let total = numel(&out_shape)?;
    let mut out = zeros(x.dtype(), &out_shape)?;
    let mut idx = vec![0usize; out_shape.len()];
    let float = x.dtype().is_float();
    let (xf, xi) = if float {
        (x.to_f64_vec(), Vec::new())
    } else {
        (Vec::new(), x.to_i64_vec())
    };
    for k in 0..total {
        let src: usize = idx.iter().zip(&perm).map(|(&i, &p)| i * st[p]).sum();
        if float {
            out.set_flat_f64(k, xf[src])?;
        } else {
            out.set_flat_i64(k, xi[src])?;
        }
        for d in (0..idx.len()).rev() {
            idx[d] += 1;
            if idx[d] < out_shape[d] {
                break;
            }
            idx[d] = 0;
        }
    }
    Ok(out)
}

/// Reduction over `axes` (sum, or mean when `mean`).
fn reduce(
    op: &Op,
    x: &NDArray,
    axis: &Option<Vec<i64>>,
    keepdims: bool,
    mean: bool,
) -> Result<NDArray, OpError> {
    let axes = reduce_axes(op, axis, x.ndim())?;
    let shape = x.shape();
    let kept: Vec<usize> = shape
        .iter()
        .enumerate()
        .map(|(i, &d)| if axes.contains(&i) { 1 } else { d })
        .collect();
    let out_kept = zeros(x.dtype(), &kept)?;
    let count: usize = axes.iter().map(|&a| shape[a]).product();
    let st_out = strides(&kept);
    let total = numel(shape)?;
    let float = x.dtype().is_float();
    let dtype = x.dtype();
    let mut accf = vec![0.0f64; out_kept.len()];
    let mut acci = vec![0i64; out_kept.len()];
    let (xf, xi) = if float {
        (x.to_f64_vec(), Vec::new())
    } else {
        (Vec::new(), x.to_i64_vec())
    };
    let mut idx = vec![0usize; shape.len()];
    for flat in 0..total {
        let mut o = 0;
        for (d, &i) in idx.iter().enumerate() {
            if !axes.contains(&d) {
                o += i * st_out[d];
            }
        }
        if float {
            accf[o] = round(dtype, accf[o] + xf[flat]);
        } else {
            acci[o] = acci[o].wrapping_add(xi[flat]);
        }
        for d in (0..idx.len()).rev() {
            idx[d] += 1;
            if idx[d] < shape[d] {
                break;
            }
            idx[d] = 0;
        }
    }
    let mut out = out_kept;
    for k in 0..out.len() {
        if float {
            let v = if mean {
                round(dtype, accf[k] / count as f64)
            } else {
                accf[k]
            };
            out.set_flat_f64(k, v)?;
        } else {
            let v = if mean {
                if count == 0 {
                    return Err("R.mean over an empty axis".into());
                }
                acci[k] / count as i64
            } else {
                acci[k]
            };
            out.set_flat_i64(k, v)?;
        }
    }
    if keepdims {
        Ok(out)
    } else {
        let s: Vec<usize> = shape
            .iter()
            .enumerate()
            .filter(|(i, _)| !axes.contains(i))
            .map(|(_, &d)| d)
            .collect();
        Ok(out.reshape(&s)?)
    }
}

fn softmax(op: &Op, x: &NDArray, axis: i64) -> Result<NDArray, OpError> {
    let dtype = x.dtype();
    if !dtype.is_float() {
        return Err("R.nn.softmax needs a float tensor".into());
    }
    let ax = reduce_axes(op, &Some(vec![axis]), x.ndim())?;
    let Some(&a) = ax.first() else {
        return Err("R.nn.softmax needs an axis".into());
    };
    let shape = x.shape();
    let st = strides(shape);
    let len = shape[a];
    let step = st[a];
    let v = x.to_f64_vec();
    let mut out = zeros(dtype, shape)?;
    let outer: usize = shape[..a].iter().product();
    let inner: usize = shape[a + 1..].iter().product();
    for o in 0..outer {
        for i in 0..inner {
            let base = o * len * inner + i;
            let mut m = f64::NEG_INFINITY;
            for k in 0..len {
                let p = v[base + k * step];
                if p > m {
                    m = p;
                }
            }
            let mut sum = 0.0;
            let mut e = vec![0.0; len];
            for (k, slot) in e.iter_mut().enumerate() {
                *slot = round(dtype, (round(dtype, v[base + k * step] - m)).exp());
                sum = round(dtype, sum + *slot);
            }
            for (k, ek) in e.iter().enumerate() {
                out.set_flat_f64(base + k * step, round(dtype, ek / sum))?;
            }
        }
    }
    Ok(out)
}

fn conv2d(data: &NDArray, weight: &NDArray, attrs: &Conv2dAttrs) -> Result<NDArray, OpError> {
    if attrs.data_layout != "NCHW" || attrs.kernel_layout != "OIHW" || attrs.out_layout != "NCHW" {
        return Err("R.nn.conv2d: only the NCHW / OIHW layouts are implemented".into());
    }
    let dtype = attrs.out_dtype.unwrap_or(data.dtype());
    let (data, weight) = (cast(data, dtype)?, cast(weight, dtype)?);
    let (&[n, c, h, w], &[o, ci, kh, kw]) = (data.shape(), weight.shape()) else {
        return Err("R.nn.conv2d needs 4-D data and weight".into());
    };
    let g = usize::try_from(attrs.groups).map_err(|_| "bad groups".to_string())?;
    if g == 0 || ci * g != c || o % g != 0 {
        return Err(OpError::ChannelMismatch {
            data: c,
            weight: ci,
            groups: g,
        });
    }
    let to_u = |v: i64| usize::try_from(v).map_err(|_| "negative conv2d attribute".to_string());
    let [sh, sw] = [to_u(attrs.strides[0])?, to_u(attrs.strides[1])?];
    let [pt, pl, pb, pr] = [
        to_u(attrs.padding[0])?,
        to_u(attrs.padding[1])?,
        to_u(attrs.padding[2])?,
        to_u(attrs.padding[3])?,
    ];
    let [dh, dw] = [to_u(attrs.dilation[0])?, to_u(attrs.dilation[1])?];
    if sh == 0 || sw == 0 || dh == 0 || dw == 0 {
        return Err("R.nn.conv2d: strides and dilation must be positive".into());
    }
    let eh = dh * (kh.max(1) - 1) + 1;
    let ew = dw * (kw.max(1) - 1) + 1;
    if h + pt + pb < eh || w + pl + pr < ew || kh == 0 || kw == 0 {
        return Err("R.nn.conv2d: the kernel does not fit the padded input".into());
    }
    let oh = (h + pt + pb - eh) / sh + 1;
    let ow = (w + pl + pr - ew) / sw + 1;
    let mut out = zeros(dtype, &[n, o, oh, ow])?;
    let x = data.to_f64_vec();
    let wt = weight.to_f64_vec();
    let float = dtype.is_float();
    let opg = o / g;
    for b in 0..n {
        for oc in 0..o {
            let grp = oc / opg;
            for y in 0..oh {
                for xx in 0..ow {
                    let mut acc = 0.0f64;
                    let mut acci = 0i64;
                    for icl in 0..ci {
                        let ic = grp * ci + icl;
                        for ky in 0..kh {
                            let iy = (y * sh + ky * dh) as isize - pt as isize;
                            if iy < 0 || iy as usize >= h {
                                continue;
                            }
                            for kx in 0..kw {
                                let ix = (xx * sw + kx * dw) as isize - pl as isize;
                                if ix < 0 || ix as usize >= w {
                                    continue;
                                }
                                let p = x[((b * c + ic) * h + iy as usize) * w + ix as usize];
                                let q = wt[((oc * ci + icl) * kh + ky) * kw + kx];
                                if float {
                                    acc = round(dtype, acc + round(dtype, p * q));
                                } else {
                                    acci = acci.wrapping_add((p as i64).wrapping_mul(q as i64));
                                }
                            }
                        }
                    }
                    let k = ((b * o + oc) * oh + y) * ow + xx;
                    if float {
                        out.set_flat_f64(k, acc)?;
                    } else {
                        out.set_flat_i64(k, acci)?;
                    }
                }
            }
        }
    }
    Ok(out)
}

/// Evaluates a built-in operator (not `call_tir`/`call_dps_packed`) on
/// tensors. `shape` is the new shape of `reshape`.
pub fn eval_op(op: &Op, args: &[NDArray], shape: Option<&[usize]>) -> Result<NDArray, OpError> {
    let arg = |i: usize| {
        args.get(i).ok_or_else(|| OpError::MissingArgument {
            op: op.script_name().to_string(),
            index: i + 1,
        })
    };
    match op {
        Op::Binary(b) => binary(*b, arg(0)?, arg(1)?),
        Op::Relu => relu(arg(0)?),
        Op::Matmul { out_dtype } => matmul(arg(0)?, arg(1)?, *out_dtype),
        Op::PermuteDims { axes } => permute(op, arg(0)?, axes),
        Op::EwiseFma => ewise_fma(arg(0)?, arg(1)?, arg(2)?),
        Op::Reshape => {
            let s = shape.ok_or("R.reshape: missing the new shape")?;
            Ok(arg(0)?.reshape(s)?)
        }
        Op::Softmax { axis } => softmax(op, arg(0)?, *axis),
        Op::Conv2d(attrs) => conv2d(arg(0)?, arg(1)?, attrs),
        Op::Sum { axis, keepdims } => reduce(op, arg(0)?, axis, *keepdims, false),
        Op::Mean { axis, keepdims } => reduce(op, arg(0)?, axis, *keepdims, true),
        Op::CallTir | Op::CallDpsPacked => Err(OpError::NotReference {
            op: op.script_name().to_string(),
        }),
    }
}

/// `x @ w.T + b`, the course's `env.linear` (destination-passing: writes `out`).
pub fn linear_into(
    x: &NDArray,
    w: &NDArray,
    b: &NDArray,
    out: &mut NDArray,
) -> Result<(), OpError> {
    let wt = permute(&Op::PermuteDims { axes: None }, w, &None)?;
    let mm = matmul(x, &wt, None)?;
    let r = binary(BinaryOp::Add, &mm, b)?;
    store_into(&r, out, "env.linear")
}

/// `max(x, 0)`, the course's `env.relu` (destination-passing).
pub fn relu_into(x: &NDArray, out: &mut NDArray) -> Result<(), OpError> {
    let r = relu(x)?;
    store_into(&r, out, "env.relu")
}

/// Copies a result into a destination of the same dtype and shape.
pub fn store_into(r: &NDArray, out: &mut NDArray, what: &str) -> Result<(), OpError> {
    if r.dtype() != out.dtype() || r.shape() != out.shape() {
        return Err(OpError::OutputMismatch {
            what: what.to_string(),
            result: (r.dtype(), r.shape().to_vec()),
            output: (out.dtype(), out.shape().to_vec()),
        });
    }
    *out = r.clone();
    Ok(())
}
