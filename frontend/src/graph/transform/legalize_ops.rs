//! LegalizeOps (`relax.transform.LegalizeOps()`): every high-level operator
//! call becomes `R.call_tir` of a PrimFunc built with TE/topi, as TVM 0.27
//! builds it (`bb.call_te`):
//!
//! - one placeholder per tensor argument, named after the argument variable
//!   (a variable passed twice gives two parameters, `lv2` and `lv2_1`); a
//!   scalar constant argument is folded into the computation;
//! - the PrimFunc is `create_prim_func(inputs + [output], int64 indices)`
//!   without `global_symbol` (private), named after the operator (`add`,
//!   `matmul`, `transpose`, `relu`, `softmax`, `conv2d`, `sum`, `mean`,
//!   `reshape`…; `add1`, `add2` for further distinct ones); a PrimFunc
//!   structurally equal to one already in the module is reused;
//! - the call's output struct info is the TE output's shape and dtype.
//!
//! `R.ewise_fma` has no legalization in TVM 0.27 and stays as it is (so do
//! `call_tir`, `call_dps_packed` and calls of graph functions). An operator
//! form TE cannot express here (1-D `matmul`, grouped or non-NCHW
//! `conv2d`, a shape that introduces new symbolic sizes) is an error at the
//! binding.

use std::rc::Rc;

use crate::te::{self, topi, FuncArg, TeResult, Tensor};
use tessel_tir::analysis::structural_equal::prim_func_equal;
use tessel_tir::ir::{BaseFunc, DataType, Expr as PrimExpr, IRModule, PrimFunc};

use super::super::ir::{
    Binding, BindingBlock, Callee, Expr, ExprKind, Function, SeqExpr, StructInfo,
};
use super::super::op::{BinaryOp, Op};
use super::{error, module_names, unique_global_name, PassResult};

/// An argument of the operator as TE sees it.
enum Arg {
    Tensor(Tensor),
    Scalar(PrimExpr),
}

impl Arg {
    fn tensor(&self) -> TeResult<&Tensor> {
        match self {
            Arg::Tensor(t) => Ok(t),
            Arg::Scalar(_) => Err(te::TeError::argument_type("expected a tensor argument")),
        }
    }
    fn operand(&self) -> topi::Operand {
        match self {
            Arg::Tensor(t) => topi::Operand::Tensor(t.clone()),
            Arg::Scalar(e) => topi::Operand::Scalar(e.clone()),
        }
    }
}

/// The name TVM gives the PrimFunc of an operator, when it legalizes it.
fn func_name(op: &Op) -> Option<&'static str> {
    Some(match op {
        Op::Binary(b) => b.name(),
        Op::Relu => "relu",
        Op::Matmul { .. } => "matmul",
        Op::PermuteDims { .. } => "transpose",
        Op::Reshape => "reshape",
        Op::Softmax { .. } => "softmax",
        Op::Conv2d(_) => "conv2d",
        Op::Sum { .. } => "sum",
        Op::Mean { .. } => "mean",
        Op::EwiseFma | Op::CallTir | Op::CallDpsPacked => return None,
    })
}

/// Legalizes every graph function of the module.
pub fn legalize_ops(module: &IRModule) -> PassResult<IRModule> {
    let mut out = module.clone();
    let graph: Vec<(String, Rc<Function>)> = module
        .graph_funcs()
        .map(|(n, f)| (n.to_string(), f.clone()))
        .collect();
    for (name, func) in graph {
        if let Some(new) = legalize_function(&func, &mut out)? {
            out.insert(name, BaseFunc::Graph(Rc::new(new)));
        }
    }
    Ok(out)
}

fn legalize_function(func: &Function, module: &mut IRModule) -> PassResult<Option<Function>> {
    let mut changed = false;
    let mut blocks = Vec::new();
    for block in &func.body.blocks {
        let mut bindings = Vec::new();
        for b in &block.bindings {
            let value = match legalize_binding(b, module)? {
                Some(v) => {
                    changed = true;
                    v
                }
                None => b.value.clone(),
            };
            bindings.push(Binding {
                var: b.var.clone(),
                value,
                span: b.span,
            });
        }
        blocks.push(BindingBlock {
            bindings,
            dataflow: block.dataflow,
        });
    }
    if !changed {
        return Ok(None);
    }
    Ok(Some(Function {
        body: SeqExpr {
            blocks,
            body: func.body.body.clone(),
        },
        ..func.clone()
    }))
}

fn legalize_binding(b: &Binding, module: &mut IRModule) -> PassResult<Option<Expr>> {
    let Some(call) = b.value.as_call() else {
        return Ok(None);
    };
    let Callee::Op(op) = &call.callee else {
        return Ok(None);
    };
    let Some(base) = func_name(op) else {
        return Ok(None);
    };
    let span = if b.value.span().is_empty() {
        b.span
    } else {
        b.value.span()
    };
    let fail = |msg: String| error(format!("LegalizeOps: R.{}: {msg}", op.script_name()), span);
    // The tensor arguments (the reshape target shape is an attribute here).
    let n_tensor_args = if matches!(op, Op::Reshape) {
        1
    } else {
        call.args.len()
    };
    let mut args = Vec::new();
    let mut rx_args = Vec::new();
    for a in call.args.iter().take(n_tensor_args) {
        match convert_arg(a, args.len()) {
            Ok(Arg::Scalar(e)) => args.push(Arg::Scalar(e)),
            Ok(Arg::Tensor(t)) => {
                args.push(Arg::Tensor(t));
                rx_args.push(a.clone());
            }
            Err(m) => return Err(fail(m)),
        }
    }
    let out = build(op, &args, b.var.sinfo()).map_err(|e| fail(e.message))?;
    let mut fargs: Vec<FuncArg> = args
        .iter()
        .filter_map(|a| match a {
            Arg::Tensor(t) => Some(FuncArg::Tensor(t.clone())),
            Arg::Scalar(_) => None,
        })
        .collect();
    // Sizes of the output must be defined by the inputs.
    let mut defined = std::collections::HashSet::new();
    for a in &args {
        if let Arg::Tensor(t) = a {
            for d in t.shape() {
                d.walk(&mut |x| {
                    if let Some(v) = x.as_var() {
                        defined.insert(v.id());
                    }
                });
            }
        }
    }
    let mut undefined = None;
    for d in out.shape() {
        d.walk(&mut |x| {
            if let Some(v) = x.as_var() {
                if !defined.contains(&v.id()) {
                    undefined = Some(v.name().to_string());
                }
            }
        });
    }
    if let Some(v) = undefined {
        return Err(fail(format!(
            "the output size `{v}` is not a size of an input; this is not supported"
        )));
    }
    fargs.push(FuncArg::Tensor(out.clone()));
    let mut prim =
        te::create_prim_func_with(&fargs, Some(DataType::i64())).map_err(|e| fail(e.message))?;
    prim.attrs.remove("global_symbol");
    let name = add_prim_func(module, base, prim);
    // Relax dimensions are int64 (TE may fold a size into an int32 constant).
    let dims = out
        .shape()
        .iter()
        .map(|d| d.as_int().map_or_else(|| d.clone(), PrimExpr::i64))
        .collect();
    let out_sinfo = StructInfo::tensor_of(dims, out.dtype());
    let mut e = Expr::call_tir(&name, rx_args, out_sinfo);
    e = e.with_span(span);
    Ok(Some(e))
}

/// Adds `prim` under a fresh name based on `base`, or returns the name of a
/// structurally equal PrimFunc already in the module.
fn add_prim_func(module: &mut IRModule, base: &str, prim: PrimFunc) -> String {
    for (n, f) in module.prim_funcs() {
        if prim_func_equal(f, &prim).is_ok() {
            return n.to_string();
        }
    }
    let name = unique_global_name(&module_names(module), base);
    module.insert(name.clone(), BaseFunc::Prim(Rc::new(prim)));
    name
}

/// A graph argument as a TE placeholder (tensors) or a folded scalar
/// (0-dimensional constants).
fn convert_arg(a: &Expr, index: usize) -> Result<Arg, String> {
    match a.kind() {
        ExprKind::Constant(arr) if arr.ndim() == 0 => {
            let dt = arr.dtype();
            let v = if dt.is_float() {
                te::op::const_float(arr.get_flat_f64(0).unwrap_or(0.0), dt)
            } else {
                te::op::const_int(arr.get_flat_i64(0).unwrap_or(0), dt)
            };
            v.map(Arg::Scalar).map_err(|e| e.message)
        }
        ExprKind::Constant(arr) => {
            let shape: Vec<PrimExpr> = arr
                .shape()
                .iter()
                .map(|&d| PrimExpr::i64(d as i64))
                .collect();
            // TVM names a constant argument's placeholder after its
            // position: `A`, `B`, …
            let name = char::from_u32('A' as u32 + (index % 26) as u32)
                .unwrap_or('A')
                .to_string();
            te::placeholder(&shape, arr.dtype(), &name)
                .map(Arg::Tensor)
                .map_err(|e| e.message)
        }
        ExprKind::Var(v) => {
            let t = v
                .sinfo()
                .as_tensor()
                .ok_or_else(|| format!("argument {index} (`{}`) is not a tensor", v.name()))?;
            let (Some(shape), Some(dt)) = (&t.shape, t.dtype) else {
                return Err(format!(
                    "argument {index} (`{}`) has an unknown shape or dtype ({})",
                    v.name(),
                    v.sinfo()
                ));
            };
            te::placeholder(shape, dt, v.name())
                .map(Arg::Tensor)
                .map_err(|e| e.message)
        }
        _ => Err(format!("argument {index} is not a variable or a constant")),
    }
}

fn build(op: &Op, args: &[Arg], out_sinfo: &StructInfo) -> TeResult<Tensor> {
    let arg = |i: usize| -> TeResult<&Arg> {
        args.get(i)
            .ok_or_else(|| te::TeError::new(format!("missing argument {i}")))
    };
    match op {
        Op::Binary(b) => {
            let (x, y) = (arg(0)?.operand(), arg(1)?.operand());
            let r = match b {
                BinaryOp::Add => topi::add(x, y),
                BinaryOp::Subtract => topi::subtract(x, y),
                BinaryOp::Multiply => topi::multiply(x, y),
                BinaryOp::Divide => topi::divide(x, y),
            }?;
            r.into_tensor()
        }
        Op::Relu => topi::nn::relu(arg(0)?.tensor()?),
        Op::Matmul { out_dtype } => matmul(arg(0)?.tensor()?, arg(1)?.tensor()?, *out_dtype),
        Op::PermuteDims { axes } => topi::transpose(arg(0)?.tensor()?, axes.as_deref()),
        Op::Reshape => {
            let shape = out_sinfo
                .as_tensor()
                .and_then(|t| t.shape.clone())
                .ok_or_else(|| te::TeError::new("the target shape is unknown"))?;
            topi::reshape(arg(0)?.tensor()?, &shape)
        }
        Op::Softmax { axis } => topi::nn::softmax(arg(0)?.tensor()?, *axis),
        Op::Conv2d(a) => {
            if a.groups != 1 {
                return Err(te::TeError::new("grouped convolution is not supported"));
            }
            if a.data_layout != "NCHW" || a.kernel_layout != "OIHW" || a.out_layout != "NCHW" {
                return Err(te::TeError::new(
                    "only the NCHW data / OIHW kernel layouts are supported",
                ));
            }
            topi::nn::conv2d_nchw(
                arg(0)?.tensor()?,
                arg(1)?.tensor()?,
                &a.strides,
                &a.padding,
                &a.dilation,
                a.out_dtype,
            )
        }
        Op::Sum { axis, keepdims } => topi::sum(arg(0)?.tensor()?, axis.as_deref(), *keepdims),
        Op::Mean { axis, keepdims } => {
            let x = arg(0)?.tensor()?;
            let n = x.ndim();
            let axes: Vec<usize> = match axis {
                None => (0..n).collect(),
                Some(v) => v
                    .iter()
                    .map(|&a| topi_axis(a, n))
                    .collect::<TeResult<Vec<_>>>()?,
            };
            let mut count: Option<PrimExpr> = None;
            for &a in &axes {
                let d = x.shape()[a].clone();
                count = Some(match count {
                    None => d,
                    Some(c) => te::op::mul(&c, &d)?,
                });
            }
            let count = count.unwrap_or_else(|| PrimExpr::i64(1));
            let count = match count.as_int() {
                Some(c) => te::op::const_float(c as f64, x.dtype())?,
                None => te::op::cast(x.dtype(), &count)?,
            };
            let s = topi::sum(x, axis.as_deref(), *keepdims)?;
            topi::divide(s, count)?.into_tensor()
        }
        Op::EwiseFma | Op::CallTir | Op::CallDpsPacked => {
            Err(te::TeError::new("this operator has no legalization"))
        }
    }
}

fn topi_axis(a: i64, n: usize) -> TeResult<usize> {
    let x = if a < 0 { a + n as i64 } else { a };
    if x < 0 || x >= n as i64 {
        return Err(te::TeError::new(format!(
            "axis {a} is out of range for {n} dimensions"
        )));
    }
    Ok(x as usize)
}

/// Relax's own matmul legalization: a stage named `matmul` over `i0, i1, …`
/// reducing `k`, batch dimensions broadcast numpy-style.
fn matmul(a: &Tensor, b: &Tensor, out_dtype: Option<DataType>) -> TeResult<Tensor> {
    let (ra, rb) = (a.ndim(), b.ndim());
    if ra < 2 || rb < 2 {
        return Err(te::TeError::new(
            "1-dimensional matmul operands are not supported",
        ));
    }
    let (sa, sb) = (a.shape().to_vec(), b.shape().to_vec());
    let nb = (ra - 2).max(rb - 2);
    let batch_of = |s: &[PrimExpr], r: usize, i: usize| -> Option<PrimExpr> {
        let off = nb - (r - 2);
        (i >= off).then(|| s[i - off].clone())
    };
    let mut shape = Vec::new();
    for i in 0..nb {
        let (x, y) = (batch_of(&sa, ra, i), batch_of(&sb, rb, i));
        shape.push(match (x, y) {
            (Some(x), Some(y)) => {
                if x.is_const_int(1) {
                    y
                } else {
                    x
                }
            }
            (Some(x), None) => x,
            (None, Some(y)) => y,
            (None, None) => PrimExpr::i64(1),
        });
    }
    shape.push(sa[ra - 2].clone());
    shape.push(sb[rb - 1].clone());
    let dtype = out_dtype.unwrap_or_else(|| a.dtype());
    let k = te::reduce_axis(&PrimExpr::i32(0), &sa[ra - 1], "k")?;
    let kv = k.var.to_expr();
    let (a2, b2) = (a.clone(), b.clone());
    let out_shape = shape.clone();
    te::compute(&out_shape, "matmul", move |ix| {
        let n = ix.len();
        let pick = |s: &[PrimExpr], r: usize| -> Vec<PrimExpr> {
            let off = nb - (r - 2);
            (0..r - 2)
                .map(|j| {
                    if s[j].is_const_int(1) && !shape[off + j].is_const_int(1) {
                        PrimExpr::i64(0)
                    } else {
                        ix[off + j].clone()
                    }
                })
                .collect()
        };
        let mut ia = pick(&sa, ra);
        ia.extend([ix[n - 2].clone(), kv.clone()]);
        let mut ib = pick(&sb, rb);
        ib.extend([kv.clone(), ix[n - 1].clone()]);
        let (mut x, mut y) = (a2.index(&ia)?, b2.index(&ib)?);
        if x.dtype() != dtype {
            x = te::op::cast(dtype, &x)?;
        }
        if y.dtype() != dtype {
            y = te::op::cast(dtype, &y)?;
        }
        Ok(te::sum(&te::op::mul(&x, &y)?, std::slice::from_ref(&k), None, None)?.into())
    })
}
