//! `relax.op.*`: operator calls as graph expressions.

use super::*;

// ----------------------------------------------------------------------------
// relax.op.*

/// One builder for every operator; the operator's name is the data.
pub(super) fn op_call(it: &mut Interp, mut a: Args) -> Res<Value> {
    let name = a
        .data
        .as_ref()
        .and_then(|d| d.as_str().map(str::to_string))
        .unwrap_or_default();
    let f = name.as_str();
    let arg = |a: &mut Args, it: &mut Interp, i: usize, n: &str| -> Res<Expr> {
        let v = a.req(i, n, f)?;
        to_expr(it, &v)
    };
    let binary = |b| Op::Binary(b);
    let e = match f {
        "add" | "subtract" | "multiply" | "divide" => {
            let x = arg(&mut a, it, 0, "x1")?;
            let y = arg(&mut a, it, 1, "x2")?;
            a.done(f, 2)?;
            let b = match f {
                "add" => BinaryOp::Add,
                "subtract" => BinaryOp::Subtract,
                "multiply" => BinaryOp::Multiply,
                _ => BinaryOp::Divide,
            };
            Expr::op(binary(b), vec![x, y])
        }
        "nn.relu" => {
            let x = arg(&mut a, it, 0, "data")?;
            a.done(f, 1)?;
            Expr::op(Op::Relu, vec![x])
        }
        "matmul" => {
            let x = arg(&mut a, it, 0, "x1")?;
            let y = arg(&mut a, it, 1, "x2")?;
            let out_dtype = dtype_opt(it, a.take(2, "out_dtype"))?;
            a.done(f, 3)?;
            Expr::op(Op::Matmul { out_dtype }, vec![x, y])
        }
        "permute_dims" => {
            let x = arg(&mut a, it, 0, "x")?;
            let axes = to_axes(it, a.take(1, "axes"))?;
            a.done(f, 2)?;
            Expr::op(Op::PermuteDims { axes }, vec![x])
        }
        "linear" => {
            let x = arg(&mut a, it, 0, "data")?;
            let w = arg(&mut a, it, 1, "weight")?;
            let b = match a.take(2, "bias") {
                None | Some(Value::None) => None,
                Some(v) => Some(to_expr(it, &v)?),
            };
            let out_dtype = dtype_opt(it, a.take(3, "out_dtype"))?;
            a.done(f, 4)?;
            compiler_core::graph::op::linear(x, w, b, out_dtype)
        }
        "ewise_fma" => {
            let x = arg(&mut a, it, 0, "x1")?;
            let y = arg(&mut a, it, 1, "x2")?;
            let z = arg(&mut a, it, 2, "x3")?;
            a.done(f, 3)?;
            Expr::op(Op::EwiseFma, vec![x, y, z])
        }
        "reshape" => {
            let x = arg(&mut a, it, 0, "x")?;
            let s = a.req(1, "shape", f)?;
            a.done(f, 2)?;
            let dims = to_dims(it, &s)?;
            Expr::op(Op::Reshape, vec![x, Expr::shape(dims)])
        }
        "nn.softmax" => {
            let x = arg(&mut a, it, 0, "data")?;
            let axis = a
                .take(1, "axis")
                .and_then(|v| crate::python::ops::num_i64(&v))
                .unwrap_or(-1);
            a.done(f, 2)?;
            Expr::op(Op::Softmax { axis }, vec![x])
        }
        "sum" | "mean" => {
            let x = arg(&mut a, it, 0, "x")?;
            let axis = to_axes(it, a.take(1, "axis"))?;
            let keepdims = a
                .take(2, "keepdims")
                .map(|v| matches!(v, Value::Bool(true)))
                .unwrap_or(false);
            a.done(f, 3)?;
            if f == "sum" {
                Expr::op(Op::Sum { axis, keepdims }, vec![x])
            } else {
                Expr::op(Op::Mean { axis, keepdims }, vec![x])
            }
        }
        "nn.conv2d" => {
            let x = arg(&mut a, it, 0, "data")?;
            let w = arg(&mut a, it, 1, "weight")?;
            let mut attrs = Conv2dAttrs::default();
            let pair = |it: &mut Interp, v: Option<Value>, d: [i64; 2]| -> Res<[i64; 2]> {
                Ok(match to_axes(it, v)? {
                    None => d,
                    Some(v) if v.len() == 1 => [v[0], v[0]],
                    Some(v) if v.len() == 2 => [v[0], v[1]],
                    Some(v) => {
                        return Err(PyErr::value_error(format!(
                            "conv2d expects 1 or 2 values, got {v:?}"
                        )))
                    }
                })
            };
            attrs.strides = pair(it, a.take(2, "strides"), [1, 1])?;
            attrs.padding = match to_axes(it, a.take(3, "padding"))? {
                None => [0; 4],
                Some(v) if v.len() == 1 => [v[0]; 4],
                Some(v) if v.len() == 2 => [v[0], v[1], v[0], v[1]],
                Some(v) if v.len() == 4 => [v[0], v[1], v[2], v[3]],
                Some(v) => {
                    return Err(PyErr::value_error(format!(
                        "conv2d padding takes 1, 2 or 4 values, got {v:?}"
                    )))
                }
            };
            attrs.dilation = pair(it, a.take(4, "dilation"), [1, 1])?;
            if let Some(g) = a
                .take(5, "groups")
                .and_then(|v| crate::python::ops::num_i64(&v))
            {
                attrs.groups = g;
            }
            for (i, key) in ["data_layout", "kernel_layout", "out_layout"]
                .iter()
                .enumerate()
            {
                if let Some(v) = a.take(6 + i, key) {
                    let s = it.str_of(&v)?;
                    match i {
                        0 => attrs.data_layout = s,
                        1 => attrs.kernel_layout = s,
                        _ => attrs.out_layout = s,
                    }
                }
            }
            attrs.out_dtype = dtype_opt(it, a.take(9, "out_dtype"))?;
            a.done(f, 10)?;
            Expr::op(Op::Conv2d(attrs), vec![x, w])
        }
        "call_tir" | "call_dps_packed" => {
            let callee = a.req(0, "gvar", f)?;
            let args = a.req(1, "args", f)?;
            let out = a
                .take(2, "out_sinfo")
                .ok_or_else(|| PyErr::type_error(format!("{f}() needs out_sinfo")))?;
            let tir_vars = a.take(3, "tir_vars");
            a.done(f, 4)?;
            let name = match (&callee, relax_obj(&callee)) {
                (Value::Str(s), _) => s.to_string(),
                (Value::Host(o), _) if matches!(tvm_obj(o), Some(Obj::GlobalVar(_))) => {
                    let Some(Obj::GlobalVar(n)) = tvm_obj(o) else {
                        unreachable!()
                    };
                    n.clone()
                }
                _ => {
                    return Err(PyErr::type_error(format!(
                        "{f}() takes a GlobalVar or a function name, not {}",
                        callee.type_name()
                    )))
                }
            };
            let args = match to_expr(it, &args)? {
                e if matches!(e.kind(), ExprKind::Tuple(_)) => e,
                e => Expr::tuple(vec![e]),
            };
            let ExprKind::Tuple(items) = args.kind().clone() else {
                unreachable!()
            };
            let out = match to_sinfo(it, &out)? {
                StructInfo::Tuple(v) if v.len() == 1 => v[0].clone(),
                s => s,
            };
            let mut e = if f == "call_tir" {
                Expr::call_tir(&name, items, out)
            } else {
                Expr::call_dps_packed(&name, items, out)
            };
            if let Some(tv) = tir_vars.filter(|v| !matches!(v, Value::None)) {
                let dims = to_dims(it, &tv)?;
                if let ExprKind::Call(c) = e.kind() {
                    let mut c = c.clone();
                    c.args.push(Expr::shape(dims));
                    e = Expr::call(c);
                }
            }
            e
        }
        _ => {
            return Err(PyErr::attribute_error(format!(
                "relax.op.{f} is not supported by Tessel"
            )))
        }
    };
    Ok(host(RObj::Expr(e)))
}
