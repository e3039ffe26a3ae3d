//! The TE API on its own: TVM's operator typing and folding (expected
//! strings are TVM 0.27's printing of the same Python expressions), the
//! errors TVM raises, and no panics on odd input.

use compiler_core::ir::{DataType, Expr, Intrinsic, Var};
use compiler_core::te::{self, op, topi, ComputeOptions};
use compiler_core::tvmscript::printer::print_expr;

fn p(e: te::TeResult<Expr>) -> String {
    match e {
        Ok(e) => print_expr(&e),
        Err(e) => format!("error: {}", e.message),
    }
}

fn i() -> Expr {
    Var::new("i", DataType::i32()).to_expr()
}
fn xf() -> Expr {
    Var::new("x", DataType::f32()).to_expr()
}
fn int(v: i64) -> Expr {
    op::py_int(v)
}
fn fl(v: f64) -> Expr {
    op::py_float(v)
}

#[test]
fn operators_type_and_fold_like_tvm() {
    let (i, x) = (i(), xf());
    let cases: Vec<(String, &str)> = vec![
        (p(op::neg(&i)), "i * -1"),
        (p(op::neg(&x)), "x * T.float32(-1.0)"),
        (p(op::abs(&i)), "T.Select(i >= 0, i, 0 - i)"),
        (p(op::abs(&x)), "T.fabs(x)"),
        (p(op::mul(&x, &fl(0.0))), "T.float32(0.0)"),
        (p(op::truediv(&x, &fl(1.0))), "x"),
        (p(op::add(&int(0), &x)), "x"),
        (p(op::math(Intrinsic::Exp, &i)), "T.exp(i)"),
        (p(op::math(Intrinsic::Floor, &i)), "i"),
        (
            p(op::all(&[op::gt(&i, &int(0)).unwrap(), op::py_bool(true)])),
            "i > 0",
        ),
        (
            p(op::any(&[op::gt(&i, &int(0)).unwrap(), op::py_bool(false)])),
            "i > 0",
        ),
        (p(op::if_then_else(&op::py_bool(true), &x, &int(1))), "x"),
        (
            p(op::if_then_else(&op::gt(&i, &int(0)).unwrap(), &int(1), &x)),
            "T.if_then_else(i > 0, T.float32(1.0), x)",
        ),
        (p(op::power(&x, &int(2))), "T.pow(x, T.float32(2.0))"),
        (p(op::math(Intrinsic::Sigmoid, &x)), "T.sigmoid(x)"),
        (p(op::truediv(&x, &fl(0.0))), "error: Divide by zero"),
        (p(op::floordiv(&i, &int(0))), "error: Divide by zero"),
        (p(op::max(&int(1), &fl(2.5))), "T.float32(2.5)"),
        (
            p(op::add(
                &op::const_float(0.1, DataType::f32()).unwrap(),
                &op::const_float(0.2, DataType::f32()).unwrap(),
            )),
            "T.float32(0.30000001192092896)",
        ),
        (
            p(op::cast(
                DataType::i32(),
                &op::const_float(2.7, DataType::f32()).unwrap(),
            )),
            "2",
        ),
        (
            p(op::cast(
                DataType::i32(),
                &op::const_float(-2.7, DataType::f32()).unwrap(),
            )),
            "-2",
        ),
        (
            p(op::add(&i, &int(3_000_000_000))),
            "T.Cast(\"int64\", i) + T.int64(3000000000)",
        ),
        (
            p(op::add(
                &op::const_float(1.5, DataType::f64()).unwrap(),
                &int(1),
            )),
            "T.float64(2.5)",
        ),
        (
            p(op::add(
                &Var::new("u", DataType::uint(8)).to_expr(),
                &int(1),
            )),
            "T.Cast(\"int32\", u) + 1",
        ),
        (
            p(op::select(&op::gt(&i, &int(0)).unwrap(), &x, &fl(1.0))),
            "T.Select(i > 0, x, T.float32(1.0))",
        ),
        (p(op::floordiv(&int(-7), &int(2))), "-4"),
        (p(op::floormod(&int(-7), &int(2))), "1"),
        (p(op::truncdiv(&int(-7), &int(2))), "-3"),
        (
            p(op::add(&Var::new("l", DataType::i64()).to_expr(), &i)),
            "l + T.Cast(\"int64\", i)",
        ),
        (
            p(op::mul(
                &Var::new("h", DataType::float(16)).to_expr(),
                &int(2),
            )),
            "h * T.float16(2.0)",
        ),
        (p(op::gt(&x, &int(1))), "x > T.float32(1.0)"),
    ];
    for (got, want) in cases {
        assert_eq!(got, want);
    }
    // Integer `/` and float `//` are refused, as in TVM.
    assert!(p(op::truediv(&i, &int(2))).contains("multiple types of integer divisions"));
    assert!(p(op::floordiv(&x, &fl(2.0))).starts_with("error"));
    assert!(p(op::floormod(&x, &fl(2.0))).starts_with("error"));
}

#[test]
fn extremes_of_types() {
    let v = |e: te::TeResult<Expr>| print_expr(&e.unwrap());
    assert_eq!(
        v(op::min_value(DataType::f32())),
        "T.float32(-340282346638528859811704183484516925440.0)"
    );
    assert_eq!(v(op::max_value(DataType::float(16))), "T.float16(65504.0)");
    assert_eq!(v(op::min_value(DataType::int(8))), "T.int8(-128)");
    assert_eq!(v(op::min_value(DataType::uint(8))), "T.uint8(0)");
    assert_eq!(v(op::min_value(DataType::i32())), "-2147483648");
}

#[test]
fn compute_arg_names_follow_python() {
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    let names =
        |ndim, params: &[&str], var: bool| te::compute_arg_names(ndim, &s(params), var, None);
    assert_eq!(names(2, &[], false).unwrap(), (s(&["i0", "i1"]), 2));
    assert_eq!(names(3, &[], true).unwrap(), (s(&["i0", "i1", "i2"]), 3));
    assert_eq!(names(3, &["i"], true).unwrap(), (s(&["i", "i0", "i1"]), 3));
    assert_eq!(names(2, &["i", "j"], false).unwrap(), (s(&["i", "j"]), 2));
    // Fewer parameters than dimensions: the extra dimensions are dropped.
    assert_eq!(names(2, &["i"], false).unwrap(), (s(&["i"]), 1));
    assert!(names(1, &["i", "j"], false).is_err());
    assert!(names(1, &["i", "j"], true).is_err());
    let v = s(&["nn", "ff"]);
    assert_eq!(
        te::compute_arg_names(2, &[], true, Some(&v)).unwrap(),
        (v.clone(), 2)
    );
    assert!(te::compute_arg_names(3, &[], true, Some(&v)).is_err());
}

#[test]
fn tensors_report_tvm_errors() {
    let a = te::placeholder_const(&[4, 5], DataType::f32(), "A").unwrap();
    assert_eq!(
        a.index(&[int(0)]).unwrap_err().message,
        "Need to provide 2 index in tensor but 1 was provided"
    );
    assert!(a.index(&[fl(0.0), int(0)]).is_err());
    assert_eq!(a.name(), "A");
    assert_eq!(a.ndim(), 2);
    assert!(te::placeholder_const(&[-1], DataType::f32(), "B").is_err());
    assert!(te::placeholder(&[fl(2.0)], DataType::f32(), "B").is_err());
    // A reduction mixed with a plain value in one body.
    let k = te::reduce_axis_const(0, 5, "k").unwrap();
    let r = te::compute_with(&[int(4)], ComputeOptions::named("S"), |ix| {
        let s = te::sum(
            &a.index(&[ix[0].clone(), k.var.to_expr()])?,
            std::slice::from_ref(&k),
            None,
            None,
        )?;
        Ok(te::ComputeBody(vec![
            te::BodyItem::Reduce(s),
            te::BodyItem::Expr(fl(1.0)),
        ]))
    });
    assert_eq!(r.unwrap_err().message, te::NESTED_REDUCTION_ERROR);
    // Reducing over a spatial axis.
    let r = te::compute_with(&[int(4)], ComputeOptions::named("S"), |ix| {
        let spatial = compiler_core::ir::IterVar {
            var: Var::new("j", DataType::i32()),
            dom: compiler_core::ir::Range::new(int(0), int(5)),
            kind: compiler_core::ir::IterKind::Spatial,
        };
        Ok(te::sum(&a.index(&[ix[0].clone(), int(0)])?, &[spatial], None, None)?.into())
    });
    assert!(r.unwrap_err().message.contains("not a reduce axis"));
    // A boolean where= only.
    assert!(te::sum(&fl(1.0), std::slice::from_ref(&k), Some(&fl(1.0)), None).is_err());
}

#[test]
fn topi_reports_errors() {
    let t = |shape: &[i64]| te::placeholder_const(shape, DataType::f32(), "x").unwrap();
    let e = topi::add(t(&[2, 3]), t(&[4])).unwrap_err();
    assert!(
        e.message
            .starts_with("Incompatible broadcast dims: 3 and 4"),
        "{}",
        e.message
    );
    assert!(topi::transpose(&t(&[2, 3]), Some(&[0, 0])).is_err());
    assert!(topi::transpose(&t(&[2, 3]), Some(&[0, 2])).is_err());
    assert!(topi::sum(&t(&[]), None, false).is_err());
    assert!(topi::sum(&t(&[2]), Some(&[3]), false).is_err());
    assert!(topi::reshape(&t(&[2, 3]), &[int(-1)]).is_err());
    assert!(topi::nn::dense(&t(&[2, 3]), &t(&[4, 5]), None, None).is_err());
    assert!(topi::nn::matmul(&t(&[3]), &t(&[3, 4]), None, None, false, false).is_err());
    assert!(topi::nn::softmax(&t(&[2, 3]), 2).is_err());
    assert!(
        topi::nn::conv2d_nchw(&t(&[1, 3, 2, 2]), &t(&[4, 3, 3, 3]), &[1], &[0], &[1], None)
            .is_err()
    );
    assert!(
        topi::nn::conv2d_nchw(&t(&[1, 3, 8, 8]), &t(&[4, 2, 3, 3]), &[1], &[0], &[1], None)
            .is_err()
    );
    // Both scalars: an expression, as TVM returns.
    match topi::add(int(1), int(2)).unwrap() {
        topi::Operand::Scalar(e) => assert_eq!(print_expr(&e), "3"),
        topi::Operand::Tensor(_) => panic!("expected a scalar"),
    }
}

/// A small deterministic generator (no dependency).
struct Lcg(u64);
impl Lcg {
    fn next(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % n.max(1)
    }
}

/// Random operator chains on random (also empty, size-1, symbolic) shapes:
/// every call returns `Ok` or `Err`, and every `Ok` graph makes a function.
#[test]
fn random_topi_chains_never_panic() {
    let mut g = Lcg(7);
    let n = Var::new("n", DataType::i32());
    for _ in 0..300 {
        let rank = g.next(4) as usize;
        let dim = |g: &mut Lcg| match g.next(6) {
            0 => n.to_expr(),
            1 => int(0),
            2 => int(1),
            3 => Expr::i64(3),
            _ => int(g.next(5) as i64 + 1),
        };
        let shape: Vec<Expr> = (0..rank).map(|_| dim(&mut g)).collect();
        let shape2: Vec<Expr> = (0..g.next(4) as usize).map(|_| dim(&mut g)).collect();
        let dt = [DataType::f32(), DataType::i32(), DataType::int(8)][g.next(3) as usize];
        let Ok(a) = te::placeholder(&shape, dt, "a") else {
            continue;
        };
        let Ok(b) = te::placeholder(&shape2, dt, "b") else {
            continue;
        };
        let axis = g.next(5) as i64 - 2;
        let results: Vec<te::TeResult<te::Tensor>> = vec![
            topi::add(&a, &b).and_then(|o| o.into_tensor()),
            topi::divide(&a, &b).and_then(|o| o.into_tensor()),
            topi::transpose(&a, None),
            topi::transpose(&a, Some(&[axis, 0])),
            topi::reshape(&a, &shape2),
            topi::sum(&a, Some(&[axis]), g.next(2) == 0),
            topi::max(&a, None, false),
            topi::nn::relu(&a),
            topi::nn::softmax(&a, axis),
            topi::nn::dense(&a, &b, None, None),
            topi::nn::matmul(&a, &b, Some(&a), None, g.next(2) == 0, g.next(2) == 0),
            topi::matmul(&a, &b, false, true),
            topi::nn::conv2d_nchw(&a, &b, &[1], &[axis], &[1], None),
            topi::nn::pad(&a, &[1, 0], None, None, "p"),
        ];
        for r in results.into_iter().flatten() {
            let args = [
                te::FuncArg::from(&a),
                te::FuncArg::from(&b),
                te::FuncArg::from(&r),
            ];
            let _ = te::create_prim_func_with(&args, None);
            let _ = te::create_prim_func_with(&args, Some(DataType::i64()));
            let _ = te::create_prim_func(std::slice::from_ref(&r));
        }
    }
}
