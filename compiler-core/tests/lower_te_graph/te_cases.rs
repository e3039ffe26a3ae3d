//! The TE programs of `tests/data/te/*.txt`, written with Tessel's TE API.
//! Each function mirrors the Python under `### te` in its golden file.
#![allow(dead_code)]

use compiler_core::ir::{DataType, Intrinsic};
use compiler_core::te::{self, op, topi, ComputeOptions, FuncArg, Tensor};

use crate::te_support::*;

pub type Built = (Vec<FuncArg>, Option<DataType>);
pub type Builder = fn() -> Result<Built, te::TeError>;

fn args(ts: &[&Tensor]) -> Vec<FuncArg> {
    ts.iter().map(|t| FuncArg::from(*t)).collect()
}
fn plain(ts: &[&Tensor]) -> Built {
    (args(ts), None)
}
fn int64(ts: &[&Tensor]) -> Built {
    (args(ts), Some(DataType::i64()))
}

// ------------------------------------------------------------------ seeds

pub fn seed000_vector_add() -> Built {
    let a = ph("A", &[128]);
    let b = ph("B", &[128]);
    let c = compute(&shape(&[128]), &["i"], "C", |i| {
        at(&a, &[i[0].clone()]) + at(&b, &[i[0].clone()])
    });
    plain(&[&a, &b, &c])
}

fn matmul_case(m: i64, k_: i64, n: i64, names: [&str; 2], name: &str) -> Built {
    let k = rax(0, k_, "k");
    let a = ph("A", &[m, k_]);
    let b = ph("B", &[k_, n]);
    let c = compute(&shape(&[m, n]), &names, name, |ix| {
        sum(
            at(&a, &[ix[0].clone(), x(&k)]) * at(&b, &[x(&k), ix[1].clone()]),
            &[&k],
        )
    });
    plain(&[&a, &b, &c])
}

pub fn seed000_matmul() -> Built {
    matmul_case(1024, 1024, 1024, ["m", "n"], "C")
}

pub fn seed001_mm_relu() -> Built {
    let a = ph("A", &[128, 128]);
    let b = ph("B", &[128, 128]);
    let k = rax(0, 128, "k");
    let y = compute(&shape(&[128, 128]), &["i", "j"], "Y", |ix| {
        sum(
            at(&a, &[ix[0].clone(), x(&k)]) * at(&b, &[x(&k), ix[1].clone()]),
            &[&k],
        )
    });
    let c = compute(&shape(&[128, 128]), &["i", "j"], "C", |ix| {
        emax(at(&y, ix), 0)
    });
    plain(&[&a, &b, &c])
}

fn te_matmul(a: &Tensor, b: &Tensor) -> Tensor {
    let n = a.shape()[0].clone();
    let m = b.shape()[1].clone();
    let k = te::reduce_axis(&op::py_int(0), &a.shape()[1], "k").unwrap();
    compute(&[n, m], &["i", "j"], "matmul", |ix| {
        sum(
            at(a, &[ix[0].clone(), x(&k)]) * at(b, &[x(&k), ix[1].clone()]),
            &[&k],
        )
    })
}

fn te_relu(a: &Tensor) -> Tensor {
    compute_star(a.shape(), "relu", |ix| emax(at(a, ix), 0))
}

pub fn seed001_te_matmul() -> Built {
    let a = ph("A", &[128, 128]);
    let b = ph("B", &[128, 128]);
    let c = te_matmul(&a, &b);
    plain(&[&a, &b, &c])
}

pub fn seed001_relu_1d() -> Built {
    let x1 = ph("X1", &[10]);
    let y1 = te_relu(&x1);
    plain(&[&x1, &y1])
}

pub fn seed001_relu_2d() -> Built {
    let x2 = ph("X1", &[10, 20]);
    let y2 = te_relu(&x2);
    plain(&[&x2, &y2])
}

pub fn seed001_matmul_relu_fused() -> Built {
    let a = ph("A", &[128, 128]);
    let b = ph("B", &[128, 128]);
    let c = te_matmul(&a, &b);
    let d = te_relu(&c);
    plain(&[&a, &b, &d])
}

pub fn seed001_matmul_relu_all() -> Built {
    let a = ph("A", &[128, 128]);
    let b = ph("B", &[128, 128]);
    let c = te_matmul(&a, &b);
    let d = te_relu(&c);
    plain(&[&a, &b, &c, &d])
}

pub fn seed001_topi_dense() -> Built {
    let xx = ph_e("x", shape64(&[1, 784]), "float32");
    let w = ph_e("w", shape64(&[128, 784]), "float32");
    let y = topi::nn::dense(&xx, &w, None, None).unwrap();
    int64(&[&xx, &w, &y])
}

pub fn seed001_topi_add_bias() -> Built {
    let y = ph_e("lv", shape64(&[1, 128]), "float32");
    let b = ph_e("b", shape64(&[128]), "float32");
    let z = topi::add(&y, &b).unwrap().into_tensor().unwrap();
    int64(&[&y, &b, &z])
}

pub fn seed001_topi_matmul() -> Built {
    let xx = ph_e("x", shape64(&[3, 4]), "float32");
    let w = ph_e("w", shape64(&[4, 5]), "float32");
    let y = topi::nn::matmul(&xx, &w, None, None, false, false).unwrap();
    int64(&[&xx, &w, &y])
}

pub fn seed001_topi_relu() -> Built {
    let xx = ph_e("x", shape64(&[3, 4]), "float32");
    let y = topi::nn::relu(&xx).unwrap();
    int64(&[&xx, &y])
}

pub fn seed001_topi_transpose() -> Built {
    let xx = ph_e("x", shape64(&[3, 4]), "float32");
    let y = topi::transpose(&xx, None).unwrap();
    int64(&[&xx, &y])
}

pub fn seed003_matmul_1024() -> Built {
    matmul_case(1024, 1024, 1024, ["i", "j"], "C")
}

pub fn seed003_basics() -> Built {
    let a = ph("A", &[64, 64]);
    let b = compute(&shape(&[64, 64]), &["i", "j"], "B", |ix| at(&a, ix) * 2.0);
    let k = rax(0, 64, "k");
    let c = compute(&shape(&[64, 64]), &["i", "j"], "C", |ix| {
        sum(
            at(&a, &[ix[0].clone(), x(&k)]) * at(&b, &[x(&k), ix[1].clone()]),
            &[&k],
        )
    });
    plain(&[&a, &c])
}

/// Fails like TVM: the reduction is nested in an addition.
pub fn seed003_linear_relu_nested() -> Result<Built, te::TeError> {
    // `te.sum(...) + b[i]` cannot even be written with the Rust API (a
    // `Reduce` is not an `Expr`); the script interpreter reports TVM's
    // message when a reduction meets an operator.
    Err(te::TeError::new(te::NESTED_REDUCTION_ERROR))
}

pub fn seed003_linear_relu() -> Built {
    let w = ph("W", &[16, 8]);
    let xx = ph("X", &[8]);
    let b = ph("b", &[16]);
    let j = rax(0, 8, "j");
    let wx = compute(&shape(&[16]), &["i"], "wx", |ix| {
        sum(at(&w, &[ix[0].clone(), x(&j)]) * at(&xx, &[x(&j)]), &[&j])
    });
    let linear = compute(&shape(&[16]), &["i"], "compute", |ix| {
        at(&wx, ix) + at(&b, ix)
    });
    let y = compute(&shape(&[16]), &["i"], "compute", |ix| {
        emax(at(&linear, ix), 0.0)
    });
    plain(&[&w, &xx, &b, &y])
}

pub fn seed003_conv_padded() -> Built {
    let (batch, in_channel, in_h, in_w) = (1, 3, 224, 224);
    let (out_channel, kernel_h, kernel_w) = (64, 3, 3);
    let (pad_h, pad_w) = (1, 1);
    let out_h = in_h - kernel_h + 2 * pad_h + 1;
    let out_w = in_w - kernel_w + 2 * pad_w + 1;
    let data = ph("Data", &[batch, in_channel, in_h, in_w]);
    let weight = ph("Weight", &[out_channel, in_channel, kernel_h, kernel_w]);
    let padded = compute(
        &shape(&[batch, in_channel, in_h + 2 * pad_h, in_w + 2 * pad_w]),
        &["n", "c", "h", "w"],
        "PaddedData",
        |ix| {
            let (n, c, h, w) = (ix[0].clone(), ix[1].clone(), ix[2].clone(), ix[3].clone());
            let cond = op::all(&[
                h.clone().ge(pad_h).e(),
                h.clone().lt(in_h + pad_h).e(),
                w.clone().ge(pad_w).e(),
                w.clone().lt(in_w + pad_w).e(),
            ])
            .unwrap();
            let v = at(&data, &[n, c, h - pad_h, w - pad_w]);
            let zero = op::const_float(0.0, DataType::f32()).unwrap();
            X(op::if_then_else(&cond, &v.0, &zero).unwrap())
        },
    );
    let rc = rax(0, in_channel, "rc");
    let rh = rax(0, kernel_h, "rh");
    let rw = rax(0, kernel_w, "rw");
    let conv = compute(
        &shape(&[batch, out_channel, out_h, out_w]),
        &["n", "co", "h", "w"],
        "Conv",
        |ix| {
            let p = at(
                &padded,
                &[
                    ix[0].clone(),
                    x(&rc),
                    ix[2].clone() + &rh,
                    ix[3].clone() + &rw,
                ],
            );
            let k = at(&weight, &[ix[1].clone(), x(&rc), x(&rh), x(&rw)]);
            sum(p * k, &[&rc, &rh, &rw])
        },
    );
    plain(&[&data, &weight, &conv])
}

pub fn seed003_fused_add_relu() -> Built {
    let n = 1024 * 1024;
    let a = ph("A", &[n]);
    let b = ph("B", &[n]);
    let c = compute(&shape(&[n]), &["i"], "C", |ix| {
        emax(
            at(&a, ix) + at(&b, ix),
            op::const_float(0.0, DataType::f32()).unwrap(),
        )
    });
    plain(&[&a, &b, &c])
}

pub fn seed003_matmul_8() -> Built {
    matmul_case(8, 8, 8, ["i", "j"], "C")
}

// --------------------------------------------------------------- language

pub fn own_softmax_stages() -> Built {
    let xx = ph("x", &[4, 6]);
    let k1 = rax(0, 6, "k");
    let mx = compute(&shape(&[4]), &["i"], "mx", |ix| {
        rmax(at(&xx, &[ix[0].clone(), x(&k1)]), &[&k1])
    });
    let e = compute(&shape(&[4, 6]), &["i", "j"], "e", |ix| {
        X(op::math(Intrinsic::Exp, &(at(&xx, ix) - at(&mx, &ix[..1])).0).unwrap())
    });
    let k2 = rax(0, 6, "k");
    let s = compute(&shape(&[4]), &["i"], "s", |ix| {
        sum(at(&e, &[ix[0].clone(), x(&k2)]), &[&k2])
    });
    let y = compute(&shape(&[4, 6]), &["i", "j"], "y", |ix| {
        at(&e, ix) / at(&s, &ix[..1])
    });
    plain(&[&xx, &y])
}

pub fn own_varargs_3d() -> Built {
    let a = ph("A", &[2, 3, 4]);
    let b = compute_star(a.shape(), "compute", |ix| at(&a, ix) * 2 + 1);
    plain(&[&a, &b])
}

pub fn own_mixed_varargs() -> Built {
    let a = ph("A", &[2, 3, 4]);
    let (names, _) = te::compute_arg_names(3, &["n".to_string()], true, None).unwrap();
    let names: Vec<&str> = names.iter().map(|s| s.as_str()).collect();
    let b = compute(&shape(&[2, 3, 4]), &names, "B", |ix| {
        at(&a, ix) - at(&a, &[ix[0].clone(), x(0), x(0)])
    });
    plain(&[&a, &b])
}

pub fn own_symbolic() -> Built {
    let n = te::var("n", DataType::i32());
    let m = te::var("m", DataType::i32());
    let a = ph_e("A", vec![n.to_expr(), m.to_expr()], "float32");
    let b = compute(&[n.to_expr(), m.to_expr()], &["i", "j"], "B", |ix| {
        at(&a, ix) * 2.0
    });
    plain(&[&a, &b])
}

pub fn own_symbolic_param() -> Built {
    let n = te::var("n", DataType::i32());
    let a = ph_e("A", vec![n.to_expr()], "float32");
    let b = compute(&[n.to_expr()], &["i"], "B", |ix| at(&a, ix) + 1.0);
    (
        vec![FuncArg::from(&a), FuncArg::Var(n), FuncArg::from(&b)],
        None,
    )
}

pub fn own_symbolic_expr() -> Built {
    let n = te::var("n", DataType::i32());
    let a2 = ph_e("A2", vec![(x(&n) + 1).e()], "float32");
    let b2 = compute(&[(x(&n) + 1 - 1).e()], &["i"], "B2", |ix| {
        at(&a2, &[ix[0].clone() + 1])
    });
    plain(&[&a2, &b2])
}

pub fn own_int_ops() -> Built {
    let a = ph_t("Ai", &[8], "int32");
    let e = compute(&shape(&[8]), &["i"], "E", |ix| {
        let ai = at(&a, ix);
        -ai.clone() + ai.clone().floordiv(3) + ai.rem(4) + (ix[0].clone() + 0) * 1
    });
    plain(&[&a, &e])
}

pub fn own_int8_cast() -> Built {
    let a = ph_t("A", &[4, 4], "int8");
    let b = compute(&shape(&[4, 4]), &["i", "j"], "B", |ix| {
        at(&a, ix).astype("int32") * at(&a, &[ix[1].clone(), ix[0].clone()]).astype("int32")
    });
    plain(&[&a, &b])
}

pub fn own_f64() -> Built {
    let a = ph_t("A", &[8], "float64");
    let b = compute(&shape(&[8]), &["i"], "B", |ix| at(&a, ix) * 0.1 + 1);
    plain(&[&a, &b])
}

pub fn own_f16_promote() -> Built {
    let a = ph_t("A", &[8], "float16");
    let b = compute(&shape(&[8]), &["i"], "B", |ix| at(&a, ix) * 0.5 + 1);
    plain(&[&a, &b])
}

pub fn own_pad_any() -> Built {
    let a = ph("A", &[4, 5]);
    let p = compute(&shape(&[6, 7]), &["i", "j"], "P", |ix| {
        let (i, j) = (ix[0].clone(), ix[1].clone());
        let cond = op::any(&[
            i.clone().lt(1).e(),
            i.clone().ge(5).e(),
            j.clone().lt(1).e(),
            j.clone().ge(6).e(),
        ])
        .unwrap();
        let v = at(&a, &[i - 1, j - 1]);
        X(op::if_then_else(&cond, &op::py_float(0.0), &v.0).unwrap())
    });
    plain(&[&a, &p])
}

pub fn own_select() -> Built {
    let a = ph("A", &[4, 5]);
    let g = compute(&shape(&[4, 5]), &["i", "j"], "G", |ix| {
        let v = at(&a, ix);
        X(op::select(&v.clone().gt(0).0, &v.0, &(v.clone() * 0.5).0).unwrap())
    });
    plain(&[&a, &g])
}

pub fn own_bool_out() -> Built {
    let a = ph("A", &[4, 5]);
    let h = compute(&shape(&[4, 5]), &["i", "j"], "H", |ix| at(&a, ix).gt(0.0));
    plain(&[&a, &h])
}

pub fn own_index_simplify() -> Built {
    let a = ph("A", &[4, 5]);
    let i_ = compute(&shape(&[4, 5]), &["i", "j"], "I", |ix| {
        let f = ix[0].clone() * 5 + ix[1].clone();
        at(&a, &[f.clone().floordiv(5), f.rem(5)])
    });
    let j_ = compute(&shape(&[2, 5]), &["i", "j"], "J", |ix| {
        at(&i_, &[ix[0].clone() + 2 - 2, ix[1].clone() + 0])
    });
    plain(&[&a, &j_])
}

pub fn own_const_body() -> Built {
    let k = compute(&shape(&[4, 5]), &["i", "j"], "K", |_| x(3.0));
    let l = compute(&shape(&[4, 5]), &["i", "j"], "L", |ix| {
        ix[0].clone() + ix[1].clone() + at(&k, ix).astype("int32")
    });
    plain(&[&l])
}

pub fn own_intrinsics() -> Built {
    let a = ph("A", &[4, 5]);
    let b = compute(&shape(&[4, 5]), &["i", "j"], "B", |ix| {
        let m = |op_: Intrinsic, e: X| X(op::math(op_, &e.0).unwrap());
        let aij = at(&a, ix);
        let a00 = at(&a, &[x(0), x(0)]);
        let a01 = at(&a, &[x(0), x(1)]);
        m(
            Intrinsic::Sqrt,
            m(Intrinsic::Exp, aij.clone()) + m(Intrinsic::Log, a00),
        ) - m(Intrinsic::Tanh, aij.clone()) * m(Intrinsic::Sigmoid, a01)
            + X(op::abs(&aij.0).unwrap())
    });
    plain(&[&a, &b])
}

pub fn own_duplicate_names() -> Built {
    let a = ph("A", &[4, 5]);
    let c1 = compute(&shape(&[4, 5]), &["i", "j"], "C", |ix| at(&a, ix) + 1);
    let c2 = compute(&shape(&[4, 5]), &["i", "j"], "C", |ix| at(&c1, ix) * 2);
    plain(&[&a, &c2])
}

pub fn own_name_supply() -> Built {
    let a = ph("A", &[4]);
    let c1 = compute(&shape(&[4]), &["i"], "C_1", |ix| at(&a, ix) + 1);
    let c2 = compute(&shape(&[4]), &["i"], "C", |ix| at(&c1, ix) + 1);
    let c3 = compute(&shape(&[4]), &["i"], "C", |ix| at(&c2, ix) + 1);
    let c4 = compute(&shape(&[4]), &["i"], "C", |ix| at(&c3, ix) + 1);
    plain(&[&a, &c4])
}

fn multi() -> (Tensor, Tensor, Tensor) {
    let a = ph("A", &[4, 5]);
    let outs = te::compute_with(
        &shape(&[4, 5]),
        ComputeOptions::named("BC").with_names(&["i", "j"]),
        |ix| {
            let v = a.index(ix)?;
            Ok(vec![
                op::add(&v, &op::py_float(1.0))?,
                op::mul(&v, &op::py_float(2.0))?,
            ]
            .into())
        },
    )
    .unwrap();
    (a, outs[0].clone(), outs[1].clone())
}

pub fn own_multi_output() -> Built {
    let (a, b, c) = multi();
    plain(&[&a, &b, &c])
}

pub fn own_multi_output_partial() -> Built {
    let (a, _b, c) = multi();
    plain(&[&a, &c])
}

pub fn own_max_min_reduce() -> Built {
    let a = ph("A", &[4, 5]);
    let k = rax(0, 5, "k");
    let s = compute(&shape(&[4]), &["i"], "S", |ix| {
        rmax(at(&a, &[ix[0].clone(), x(&k)]), &[&k])
    });
    let k2 = rax(0, 5, "k");
    let s2 = compute(&shape(&[4]), &["i"], "S2", |ix| {
        rmin(at(&a, &[ix[0].clone(), x(&k2)]), &[&k2])
    });
    plain(&[&a, &s, &s2])
}

pub fn own_int_max_reduce() -> Built {
    let a = ph_t("A", &[4, 5], "int32");
    let k = rax(0, 5, "k");
    let s = compute(&shape(&[4]), &["i"], "S", |ix| {
        rmax(at(&a, &[ix[0].clone(), x(&k)]), &[&k])
    });
    plain(&[&a, &s])
}

pub fn own_reduce_nonzero_min() -> Built {
    let a = ph("A", &[4, 5]);
    let k = rax(1, 4, "k");
    let s = compute(&shape(&[4]), &["i"], "S", |ix| {
        sum(at(&a, &[ix[0].clone(), x(&k)]) * 2.0, &[&k])
    });
    plain(&[&a, &s])
}

pub fn own_scalar_reduce() -> Built {
    let a = ph("A", &[4, 5]);
    let k = rax(0, 4, "k");
    let l = rax(0, 5, "l");
    let s = compute(&[], &[], "S", |_| sum(at(&a, &[x(&k), x(&l)]), &[&k, &l]));
    plain(&[&a, &s])
}

pub fn own_scalar_copy() -> Built {
    let a = ph("A", &[4]);
    let s = compute(&[], &[], "S", |_| at(&a, &[x(2)]) * 3.0);
    plain(&[&a, &s])
}

pub fn own_where_dropped() -> Built {
    let a = ph("A", &[4, 5]);
    let k = rax(0, 5, "k");
    let s = compute(&shape(&[4]), &["i"], "S", |ix| {
        let cond = x(&k).gt(1);
        te::sum(
            &at(&a, &[ix[0].clone(), x(&k)]).0,
            std::slice::from_ref(&k),
            Some(&cond.0),
            None,
        )
        .unwrap()
    });
    plain(&[&a, &s])
}

pub fn own_attrs() -> Built {
    use compiler_core::ir::AttrValue;
    let a = ph("A", &[4, 5]);
    let opts = ComputeOptions::named("D")
        .with_names(&["i", "j"])
        .with_tag("elemwise")
        .with_attr("foo", AttrValue::Int(1))
        .with_attr("schedule_rule", AttrValue::Str("bar".into()));
    let d = te::compute_with(&shape(&[4, 5]), opts, |ix| {
        Ok(op::add(&a.index(ix)?, &op::py_float(1.0))?.into())
    })
    .unwrap()
    .remove(0);
    plain(&[&a, &d])
}

pub fn own_argmax() -> Built {
    use compiler_core::ir::Var;
    let m = ph("M", &[3, 4]);
    let i_ = ph_t("I", &[3, 4], "int32");
    let k = rax(0, 4, "k");
    let (ti, tf) = (DataType::i32(), DataType::f32());
    let xs = [Var::new("x_0", ti), Var::new("x_1", tf)];
    let ys = [Var::new("y_0", ti), Var::new("y_1", tf)];
    let cond = op::ge(&xs[1].to_expr(), &ys[1].to_expr()).unwrap();
    let r0 = op::select(&cond, &xs[0].to_expr(), &ys[0].to_expr()).unwrap();
    let r1 = op::select(&cond, &xs[1].to_expr(), &ys[1].to_expr()).unwrap();
    let comb = te::Combiner::new(
        xs.to_vec(),
        ys.to_vec(),
        vec![r0, r1],
        vec![op::const_int(-1, ti).unwrap(), op::min_value(tf).unwrap()],
    )
    .unwrap();
    let outs = te::compute_with(
        &shape(&[3]),
        ComputeOptions::named("T").with_names(&["i"]),
        |ix| {
            let src = vec![
                i_.index(&[ix[0].clone(), k.var.to_expr()])?,
                m.index(&[ix[0].clone(), k.var.to_expr()])?,
            ];
            Ok(te::comm_reduce(comb, src, std::slice::from_ref(&k), None, vec![])?.into())
        },
    )
    .unwrap();
    plain(&[&i_, &m, &outs[0], &outs[1]])
}

pub fn own_int64_shapes() -> Built {
    let a = ph_e("A", shape64(&[4, 5]), "float32");
    let b = compute(a.shape(), &["i", "j"], "B", |ix| at(&a, ix) + 1.0);
    plain(&[&a, &b])
}

pub fn own_override_iter_value() -> Built {
    let a = ph_t("A", &[4, 5], "int32");
    let b = compute(&shape(&[4, 5]), &["i", "j"], "B", |ix| {
        at(&a, ix) + ix[0].clone() * 5 + ix[1].clone()
    });
    int64(&[&a, &b])
}

pub fn own_override_pad() -> Built {
    let a = ph("A", &[4, 5]);
    let p = compute(&shape(&[6, 7]), &["i", "j"], "P", |ix| {
        let (i, j) = (ix[0].clone(), ix[1].clone());
        let cond = op::all(&[
            i.clone().ge(1).e(),
            i.clone().lt(5).e(),
            j.clone().ge(1).e(),
            j.clone().lt(6).e(),
        ])
        .unwrap();
        let v = at(&a, &[i - 1, j - 1]);
        X(op::if_then_else(&cond, &v.0, &op::py_float(0.0)).unwrap())
    });
    int64(&[&a, &p])
}

pub fn own_missing_placeholder() -> Built {
    let a = ph("A", &[4]);
    let c = compute(&shape(&[4]), &["i"], "C", |ix| at(&a, ix) + 1.0);
    plain(&[&c])
}

pub fn own_only_placeholders() -> Built {
    let p = ph_t("p", &[2, 3], "int8");
    let q = ph_t("q", &[4, 3], "int8");
    plain(&[&p, &q])
}

// ------------------------------------------------------------------- topi

fn t2(r: te::TeResult<topi::Operand>) -> Tensor {
    r.unwrap().into_tensor().unwrap()
}

pub fn topi_add() -> Built {
    let (a, b) = (ph("x", &[2, 3]), ph("y", &[3]));
    let c = t2(topi::add(&a, &b));
    plain(&[&a, &b, &c])
}

pub fn topi_add_scalar() -> Built {
    let a = ph("x", &[2, 3]);
    let c = t2(topi::add(&a, op::py_float(1.0)));
    plain(&[&a, &c])
}

pub fn topi_subtract_scalar_lhs() -> Built {
    let d = ph("d", &[4, 3]);
    let c = t2(topi::subtract(op::py_float(2.0), &d));
    plain(&[&d, &c])
}

pub fn topi_subtract() -> Built {
    let (a, b) = (ph("x", &[2, 3]), ph("y", &[3]));
    let c = t2(topi::subtract(&a, &b));
    plain(&[&a, &b, &c])
}

pub fn topi_multiply_bcast() -> Built {
    let (a, b) = (ph("a", &[4, 1, 3]), ph("b", &[5, 1]));
    let c = t2(topi::multiply(&a, &b));
    plain(&[&a, &b, &c])
}

pub fn topi_divide() -> Built {
    let (a, b) = (ph("x", &[2, 3]), ph("y", &[2, 1]));
    let c = t2(topi::divide(&a, &b));
    plain(&[&a, &b, &c])
}

pub fn topi_divide_int() -> Built {
    let (a, b) = (ph_t("x", &[2, 3], "int32"), ph_t("y", &[3], "int32"));
    let c = t2(topi::divide(&a, &b));
    plain(&[&a, &b, &c])
}

pub fn topi_multiply_symbolic() -> Built {
    let m = te::var("m", DataType::i32());
    let c = ph_e("c", vec![m.to_expr(), op::py_int(3)], "float32");
    let d = ph("d", &[4, 3]);
    let r = t2(topi::multiply(&c, &d));
    plain(&[&c, &d, &r])
}

pub fn topi_relu() -> Built {
    let a = ph("x", &[2, 3]);
    let r = topi::nn::relu(&a).unwrap();
    plain(&[&a, &r])
}

pub fn topi_relu_int() -> Built {
    let a = ph_t("x", &[5], "int32");
    let r = topi::nn::relu(&a).unwrap();
    plain(&[&a, &r])
}

pub fn topi_dense() -> Built {
    let (a, w) = (ph("x", &[2, 3]), ph("w", &[4, 3]));
    let r = topi::nn::dense(&a, &w, None, None).unwrap();
    plain(&[&a, &w, &r])
}

pub fn topi_dense_bias() -> Built {
    let (a, w, b) = (ph("x", &[2, 3]), ph("w", &[4, 3]), ph("b", &[4]));
    let r = topi::nn::dense(&a, &w, Some(&b), None).unwrap();
    plain(&[&a, &w, &b, &r])
}

pub fn topi_dense_int8() -> Built {
    let (p, q) = (ph_t("p", &[2, 3], "int8"), ph_t("q", &[4, 3], "int8"));
    let r = topi::nn::dense(&p, &q, None, Some(DataType::i32())).unwrap();
    plain(&[&p, &q, &r])
}

pub fn topi_nn_matmul() -> Built {
    let (a, w) = (ph("x", &[2, 3]), ph("w2", &[3, 4]));
    let r = topi::nn::matmul(&a, &w, None, None, false, false).unwrap();
    plain(&[&a, &w, &r])
}

pub fn topi_nn_matmul_tt() -> Built {
    let (a, w) = (ph("x", &[3, 2]), ph("w", &[4, 3]));
    let r = topi::nn::matmul(&a, &w, None, None, true, true).unwrap();
    plain(&[&a, &w, &r])
}

pub fn topi_nn_matmul_batch() -> Built {
    let (a, w) = (ph("x", &[2, 1, 3, 4]), ph("w", &[5, 4, 6]));
    let r = topi::nn::matmul(&a, &w, None, None, false, false).unwrap();
    plain(&[&a, &w, &r])
}

pub fn topi_matmul() -> Built {
    let (a, w) = (ph("x", &[2, 3]), ph("w2", &[3, 4]));
    let r = topi::matmul(&a, &w, false, false).unwrap();
    plain(&[&a, &w, &r])
}

pub fn topi_transpose() -> Built {
    let a = ph("a", &[4, 1, 3]);
    let r = topi::transpose(&a, None).unwrap();
    plain(&[&a, &r])
}

pub fn topi_transpose_axes() -> Built {
    let a = ph("a", &[4, 1, 3]);
    let r = topi::transpose(&a, Some(&[0, -1, 1])).unwrap();
    plain(&[&a, &r])
}

pub fn topi_reshape() -> Built {
    let a = ph("x", &[2, 3]);
    let r = topi::reshape(&a, &shape(&[3, 2])).unwrap();
    plain(&[&a, &r])
}

pub fn topi_reshape_3d() -> Built {
    let a = ph("x", &[2, 3, 4]);
    let r = topi::reshape(&a, &shape(&[6, 4])).unwrap();
    plain(&[&a, &r])
}

pub fn topi_softmax() -> Built {
    let a = ph("x", &[2, 3]);
    let r = topi::nn::softmax(&a, -1).unwrap();
    plain(&[&a, &r])
}

pub fn topi_softmax_axis0() -> Built {
    let a = ph("d", &[4, 3]);
    let r = topi::nn::softmax(&a, 0).unwrap();
    plain(&[&a, &r])
}

pub fn topi_sum() -> Built {
    let a = ph("x", &[2, 3]);
    let r = topi::sum(&a, Some(&[1]), false).unwrap();
    plain(&[&a, &r])
}

pub fn topi_sum_keepdims() -> Built {
    let a = ph("x", &[2, 3]);
    let r = topi::sum(&a, Some(&[1]), true).unwrap();
    plain(&[&a, &r])
}

pub fn topi_sum_all() -> Built {
    let a = ph("x", &[2, 3]);
    let r = topi::sum(&a, None, false).unwrap();
    plain(&[&a, &r])
}

pub fn topi_sum_neg_axis() -> Built {
    let a = ph("a", &[4, 1, 3]);
    let r = topi::sum(&a, Some(&[-1]), false).unwrap();
    plain(&[&a, &r])
}

pub fn topi_max() -> Built {
    let a = ph("x", &[2, 3]);
    let r = topi::max(&a, Some(&[0]), false).unwrap();
    plain(&[&a, &r])
}

pub fn topi_argmax() -> Built {
    let a = ph("x", &[3, 5]);
    let r = topi::argmax(&a, Some(&[1]), false).unwrap();
    plain(&[&a, &r])
}

pub fn topi_argmin_two_axes() -> Built {
    let a = ph("a", &[2, 3, 4]);
    let r = topi::argmin(&a, Some(&[1, 2]), true).unwrap();
    plain(&[&a, &r])
}

pub fn topi_max_keepdims() -> Built {
    let a = ph("a", &[4, 1, 3]);
    let r = topi::max(&a, Some(&[0, 2]), true).unwrap();
    plain(&[&a, &r])
}

pub fn topi_conv2d() -> Built {
    let (d, k) = (ph("data", &[1, 3, 8, 8]), ph("kernel", &[4, 3, 3, 3]));
    let r = topi::nn::conv2d_nchw(&d, &k, &[1], &[1], &[1], None).unwrap();
    plain(&[&d, &k, &r])
}

pub fn topi_conv2d_stride() -> Built {
    let (d, k) = (ph("data", &[1, 3, 8, 8]), ph("kernel", &[4, 3, 3, 3]));
    let r = topi::nn::conv2d_nchw(&d, &k, &[2], &[0], &[1], None).unwrap();
    plain(&[&d, &k, &r])
}

pub fn topi_conv2d_dilated() -> Built {
    let (d, k) = (ph("data", &[1, 3, 8, 8]), ph("kernel", &[4, 3, 3, 3]));
    let r = topi::nn::conv2d_nchw(&d, &k, &[1, 2], &[1, 0, 2, 1], &[2], None).unwrap();
    plain(&[&d, &k, &r])
}

pub fn topi_chain_override() -> Built {
    let (a, w, b) = (ph("x", &[2, 3]), ph("w", &[4, 3]), ph("b", &[4]));
    let d = topi::nn::dense(&a, &w, None, None).unwrap();
    let s = t2(topi::add(&d, &b));
    let r = topi::nn::relu(&s).unwrap();
    int64(&[&a, &w, &b, &r])
}

pub fn topi_override_mix() -> Built {
    let a = ph("x", &[2, 3]);
    let s = topi::nn::softmax(&a, -1).unwrap();
    let r = topi::reshape(&s, &shape(&[3, 2])).unwrap();
    let t = topi::sum(&r, Some(&[0]), false).unwrap();
    int64(&[&a, &t])
}

pub fn topi_symbolic_int64() -> Built {
    let n = te::var("n", DataType::i64());
    let a = ph_e("x", vec![n.to_expr(), i64c(3)], "float32");
    let b = ph_e("y", shape64(&[3]), "float32");
    let s = t2(topi::add(&a, &b));
    let r = topi::nn::relu(&s).unwrap();
    int64(&[&a, &b, &r])
}

pub fn topi_int64_no_override() -> Built {
    let a = ph_e("x", shape64(&[2, 3]), "float32");
    let w = ph_e("w", shape64(&[4, 3]), "float32");
    let d = topi::nn::dense(&a, &w, None, None).unwrap();
    let s = topi::sum(&d, Some(&[1]), false).unwrap();
    let sm = topi::nn::softmax(&a, -1).unwrap();
    let p = t2(topi::add(&sm, op::py_float(1.0)));
    plain(&[&a, &w, &p, &s])
}

/// Every case by name: `Ok` builds the program, `Err` is the error Tessel
/// reports while building it (for cases TVM rejects).
pub fn all() -> Vec<(&'static str, Builder)> {
    macro_rules! ok {
        ($($f:ident),* $(,)?) => {
            vec![$((stringify!($f), (|| Ok($f())) as Builder)),*]
        };
    }
    let mut v = ok![
        seed000_vector_add,
        seed000_matmul,
        seed001_mm_relu,
        seed001_te_matmul,
        seed001_relu_1d,
        seed001_relu_2d,
        seed001_matmul_relu_fused,
        seed001_matmul_relu_all,
        seed001_topi_dense,
        seed001_topi_add_bias,
        seed001_topi_matmul,
        seed001_topi_relu,
        seed001_topi_transpose,
        seed003_matmul_1024,
        seed003_basics,
        seed003_linear_relu,
        seed003_conv_padded,
        seed003_fused_add_relu,
        seed003_matmul_8,
        own_softmax_stages,
        own_varargs_3d,
        own_mixed_varargs,
        own_symbolic,
        own_symbolic_param,
        own_symbolic_expr,
        own_int_ops,
        own_int8_cast,
        own_f64,
        own_f16_promote,
        own_pad_any,
        own_select,
        own_bool_out,
        own_index_simplify,
        own_const_body,
        own_intrinsics,
        own_duplicate_names,
        own_name_supply,
        own_multi_output,
        own_multi_output_partial,
        own_max_min_reduce,
        own_int_max_reduce,
        own_reduce_nonzero_min,
        own_scalar_reduce,
        own_scalar_copy,
        own_where_dropped,
        own_attrs,
        own_argmax,
        own_int64_shapes,
        own_override_iter_value,
        own_override_pad,
        own_missing_placeholder,
        own_only_placeholders,
        topi_add,
        topi_add_scalar,
        topi_subtract_scalar_lhs,
        topi_subtract,
        topi_multiply_bcast,
        topi_divide,
        topi_divide_int,
        topi_multiply_symbolic,
        topi_relu,
        topi_relu_int,
        topi_dense,
        topi_dense_bias,
        topi_dense_int8,
        topi_nn_matmul,
        topi_nn_matmul_tt,
        topi_nn_matmul_batch,
        topi_matmul,
        topi_transpose,
        topi_transpose_axes,
        topi_reshape,
        topi_reshape_3d,
        topi_softmax,
        topi_softmax_axis0,
        topi_sum,
        topi_sum_keepdims,
        topi_sum_all,
        topi_sum_neg_axis,
        topi_max,
        topi_max_keepdims,
        topi_argmax,
        topi_argmin_two_axes,
        topi_conv2d,
        topi_conv2d_stride,
        topi_conv2d_dilated,
        topi_chain_override,
        topi_override_mix,
    ];
    v.push(("topi_symbolic_int64", || Ok(topi_symbolic_int64())));
    v.push(("topi_int64_no_override", || Ok(topi_int64_no_override())));
    v.push(("seed003_linear_relu_nested", seed003_linear_relu_nested));
    v
}
