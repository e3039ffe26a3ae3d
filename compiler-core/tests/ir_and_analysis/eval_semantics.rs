//! Exact scalar and statement semantics: wraparound, division flavours,
//! float rounding per dtype, intrinsics, casts, vectors, lowered forms.

use crate::eval_support;

use compiler_core::eval::*;
use compiler_core::ir::*;
use eval_support::*;

fn run(f: &PrimFunc, args: &mut [NDArray]) -> Result<(), EvalError> {
    run_prim_func(f, args, &EvalOptions::default())
}

/// `Out[i] = body(X[i], Y[i])` for `i < n`.
fn elementwise(
    n: i64,
    in_t: DataType,
    out_t: DataType,
    body: impl Fn(Expr, Expr) -> Expr,
) -> PrimFunc {
    let x = buf("X", in_t, &[n]);
    let y = buf("Y", in_t, &[n]);
    let out = buf("Out", out_t, &[n]);
    let i = var("i");
    let value = body(load(&x, vec![v(&i)]), load(&y, vec![v(&i)]));
    func(
        &[&x, &y, &out],
        &[],
        for_(&i, n, store(&out, vec![v(&i)], value)),
    )
}

/// Runs an elementwise function on integer inputs, returning the outputs.
fn ints(
    dt: DataType,
    out_t: DataType,
    xs: &[i64],
    ys: &[i64],
    body: impl Fn(Expr, Expr) -> Expr,
) -> Vec<i64> {
    let n = xs.len();
    let f = elementwise(n as i64, dt, out_t, body);
    let mut args = vec![
        NDArray::from_i64(dt, &[n], xs).unwrap(),
        NDArray::from_i64(dt, &[n], ys).unwrap(),
        NDArray::zeros(out_t, &[n]).unwrap(),
    ];
    run(&f, &mut args).unwrap();
    args[2].to_i64_vec()
}

/// Runs an elementwise function on float inputs, returning the outputs.
fn floats(
    dt: DataType,
    out_t: DataType,
    xs: &[f64],
    ys: &[f64],
    body: impl Fn(Expr, Expr) -> Expr,
) -> Vec<f64> {
    let n = xs.len();
    let f = elementwise(n as i64, dt, out_t, body);
    let mut args = vec![
        NDArray::from_f64_as(dt, &[n], xs).unwrap(),
        NDArray::from_f64_as(dt, &[n], ys).unwrap(),
        NDArray::zeros(out_t, &[n]).unwrap(),
    ];
    run(&f, &mut args).unwrap();
    args[2].to_f64_vec()
}

#[test]
fn integer_arithmetic_wraps_at_the_dtype_width() {
    let i32_ = DataType::i32();
    assert_eq!(
        ints(
            i32_,
            i32_,
            &[1, 2, -5, 65536],
            &[2147483647, 2147483647, -2147483648, 65536],
            add
        ),
        vec![-2147483648, -2147483647, 2147483643, 131072]
    );
    assert_eq!(ints(i32_, i32_, &[65536], &[65536], mul), vec![0]);
    let i8_ = DataType::int(8);
    assert_eq!(ints(i8_, i8_, &[127, -128], &[1, 1], add), vec![-128, -127]);
    let u8_ = DataType::uint(8);
    assert_eq!(ints(u8_, u8_, &[0, 200], &[1, 100], sub), vec![255, 100]);
    let i64_ = DataType::i64();
    assert_eq!(ints(i64_, i64_, &[i64::MAX], &[1], add), vec![i64::MIN]);
    let u64_ = DataType::uint(64);
    // uint64 compares and divides unsigned: (2^64 - 1) / 2 and max.
    assert_eq!(
        ints(u64_, u64_, &[-1, -1], &[2, 3], |a, b| bin(BinOp::Div, a, b)),
        vec![i64::MAX, 6148914691236517205]
    );
    assert_eq!(ints(u64_, u64_, &[-1], &[3], max), vec![-1]);
}

#[test]
fn division_flavours_on_negatives() {
    let i32_ = DataType::i32();
    let xs: Vec<i64> = vec![-7, -7, 7, 7, -6, 0, -1];
    let ys: Vec<i64> = vec![2, -2, -2, 2, 3, -5, 4];
    let f = |op| ints(i32_, i32_, &xs, &ys, move |a, b| bin(op, a, b));
    // C truncation.
    assert_eq!(f(BinOp::Div), vec![-3, 3, -3, 3, -2, 0, 0]);
    assert_eq!(f(BinOp::Mod), vec![-1, -1, 1, 1, 0, 0, -1]);
    // Python floor.
    assert_eq!(f(BinOp::FloorDiv), vec![-4, 3, -4, 3, -2, 0, -1]);
    assert_eq!(f(BinOp::FloorMod), vec![1, -1, -1, 1, 0, 0, 3]);
    // Floats: floor(a / b) and a - floor(a / b) * b.
    let f32_ = f32t();
    assert_eq!(
        floats(f32_, f32_, &[-7.5, 7.5], &[2.0, -2.0], |a, b| bin(
            BinOp::FloorDiv,
            a,
            b
        )),
        vec![-4.0, -4.0]
    );
    assert_eq!(
        floats(f32_, f32_, &[-7.5, 7.5], &[2.0, -2.0], |a, b| bin(
            BinOp::FloorMod,
            a,
            b
        )),
        vec![0.5, -0.5]
    );
    assert_eq!(
        floats(f32_, f32_, &[-7.5], &[2.0], |a, b| bin(BinOp::Mod, a, b)),
        vec![-1.5]
    );
}

#[test]
fn integer_division_by_zero_is_an_error_with_span() {
    let i32_ = DataType::i32();
    let f = elementwise(2, i32_, i32_, |a, b| {
        bin(BinOp::FloorDiv, a, b).with_span(sp(40, 45))
    });
    let mut args = vec![
        NDArray::from_i64(i32_, &[2], &[1, 2]).unwrap(),
        NDArray::from_i64(i32_, &[2], &[1, 0]).unwrap(),
        NDArray::zeros(i32_, &[2]).unwrap(),
    ];
    let e = run(&f, &mut args).unwrap_err();
    assert_eq!(
        (e.message.as_str(), e.span),
        ("division by zero", sp(40, 45))
    );
    // Float division by zero is IEEE.
    let r = floats(f32t(), f32t(), &[1.0, -1.0], &[0.0, 0.0], |a, b| {
        bin(BinOp::Div, a, b)
    });
    assert_eq!(r, vec![f64::INFINITY, f64::NEG_INFINITY]);
}

/// `S[0] = S[0] + x` repeated `n` times, in dtype `dt`.
fn repeated_sum(dt: DataType, x: f64, n: i64) -> f64 {
    let s = buf("S", dt, &[1]);
    let i = var("i");
    let body = store(&s, vec![c(0)], add(load(&s, vec![c(0)]), cft(x, dt)));
    let f = func(&[&s], &[], for_(&i, n, body));
    let mut args = vec![NDArray::zeros(dt, &[1]).unwrap()];
    run(&f, &mut args).unwrap();
    args[0].get_f64(&[0]).unwrap()
}

#[test]
fn float32_rounds_every_operation() {
    let got = repeated_sum(f32t(), 0.1, 10_000);
    let mut expected = 0f32;
    for _ in 0..10_000 {
        expected += 0.1f32;
    }
    assert_eq!(got, expected as f64);
    assert_eq!(got, 999.9028930664062); // NumPy float32 loop
                                        // Summing in f64 and rounding once would give exactly 1000.
    let f64_then_round = (0..10_000).map(|_| 0.1f32 as f64).sum::<f64>() as f32;
    assert_eq!(f64_then_round, 1000.0);
    assert_ne!(got, 1000.0);
    // float64 is plain f64.
    let mut e64 = 0f64;
    for _ in 0..10_000 {
        e64 += 0.1;
    }
    assert_eq!(repeated_sum(DataType::f64(), 0.1, 10_000), e64);
}

#[test]
fn float16_rounds_every_operation() {
    let f16 = DataType::float(16);
    // Adding 0.1 stalls at 256, where half the spacing (0.125) exceeds it.
    assert_eq!(repeated_sum(f16, 0.1, 10_000), 256.0);
    let r = floats(f16, f16, &[0.1, 1.0, 60000.0], &[3.0, 3.0, 2.0], mul);
    assert_eq!(r, vec![0.2998046875, 3.0, f64::INFINITY]);
    let d = floats(f16, f16, &[1.0], &[3.0], |a, b| bin(BinOp::Div, a, b));
    assert_eq!(d, vec![0.333251953125]);
    // Casting float32 → float16 rounds to nearest even.
    let c16 = floats(
        f32t(),
        f16,
        &[0.1, 65519.0, 65520.0, 1e-8],
        &[0.0; 4],
        |a, _| Expr::cast(f16, a),
    );
    assert_eq!(c16, vec![0.0999755859375, 65504.0, f64::INFINITY, 0.0]);
}

#[test]
fn erf_matches_high_precision_values() {
    // mpmath at 200 bits, rounded to f64.
    let known = [
        (1e-10, 1.1283791670955126e-10),
        (0.1, 0.1124629160182849),
        (0.5, 0.5204998778130465),
        (1.0, 0.8427007929497149),
        (2.0, 0.9953222650189527),
        (3.0, 0.9999779095030014),
        (3.5, 0.9999992569016276),
        (5.0, 0.9999999999984626),
        (-0.75, -0.7111556336535151),
        (7.0, 1.0),
    ];
    for (x, want) in known {
        assert_eq!(erf(x), want, "erf({x})");
    }
    assert!(erf(f64::NAN).is_nan());
    assert_eq!(erf(f64::NEG_INFINITY), -1.0);
    // Through the IR: float64 exact, float32 the f64 value rounded.
    let xs: Vec<f64> = known.iter().map(|k| k.0).collect();
    let r64 = floats(DataType::f64(), DataType::f64(), &xs, &xs, |a, _| {
        call(Intrinsic::Erf, vec![a], DataType::f64())
    });
    assert_eq!(r64, known.iter().map(|k| k.1).collect::<Vec<_>>());
    let r32 = floats(f32t(), f32t(), &[0.5, 1.0, 5.0], &[0.0; 3], |a, _| {
        call(Intrinsic::Erf, vec![a], f32t())
    });
    assert_eq!(r32, vec![0.5204998850822449, 0.8427007794380188, 1.0]);
}

#[test]
fn math_intrinsics() {
    let f32_ = f32t();
    let un = |op: Intrinsic, xs: &[f64]| {
        floats(f32_, f32_, xs, xs, |a, _| call(op.clone(), vec![a], f32_))
    };
    assert_eq!(
        un(Intrinsic::Round, &[2.5, 3.5, -0.5, -2.5, 0.4]),
        vec![2.0, 4.0, -0.0, -2.0, 0.0]
    );
    assert_eq!(un(Intrinsic::Trunc, &[-2.7, 2.7]), vec![-2.0, 2.0]);
    assert_eq!(un(Intrinsic::Floor, &[-2.5]), vec![-3.0]);
    assert_eq!(un(Intrinsic::Ceil, &[-2.5]), vec![-2.0]);
    assert_eq!(un(Intrinsic::Fabs, &[-2.5]), vec![2.5]);
    assert_eq!(un(Intrinsic::Sqrt, &[2.0]), vec![2f32.sqrt() as f64]);
    assert_eq!(un(Intrinsic::Rsqrt, &[4.0]), vec![0.5]);
    assert_eq!(un(Intrinsic::Sigmoid, &[0.0]), vec![0.5]);
    assert_eq!(
        un(Intrinsic::Exp, &[1.0]),
        vec![std::f64::consts::E as f32 as f64]
    );
    assert_eq!(un(Intrinsic::Tanh, &[1.0]), vec![1f64.tanh() as f32 as f64]);
    assert!(un(Intrinsic::Log, &[-1.0])[0].is_nan());
    let p = floats(f32_, f32_, &[2.0, 9.0], &[10.0, 0.5], |a, b| {
        call(Intrinsic::Pow, vec![a, b], f32_)
    });
    assert_eq!(p, vec![1024.0, 3.0]);
    // Min/Max as `a < b ? a : b`: a NaN second operand wins.
    let m = floats(
        f32_,
        f32_,
        &[1.0, f64::NAN, 1.0],
        &[2.0, 1.0, f64::NAN],
        |a, b| bin(BinOp::Min, a, b),
    );
    assert_eq!(m[0], 1.0);
    assert_eq!(m[1], 1.0);
    assert!(m[2].is_nan());
}

#[test]
fn casts_follow_rust_as() {
    let i32_ = DataType::i32();
    let f32_ = f32t();
    let to_int = floats(
        f32_,
        i32_,
        &[-2.7, 2.7, 1e10, -1e10, f64::NAN],
        &[0.0; 5],
        |a, _| Expr::cast(i32_, a),
    );
    assert_eq!(to_int, vec![-2.0, 2.0, 2147483647.0, -2147483648.0, 0.0]);
    // int → float32 rounds once, to nearest even.
    let to_f = ints(i32_, f32_, &[16777217, 16777219], &[0, 0], |a, _| {
        Expr::cast(f32_, a)
    });
    assert_eq!(to_f, vec![16777216, 16777220]);
    let to_u8 = ints(i32_, DataType::uint(8), &[300, -1], &[0, 0], |a, _| {
        Expr::cast(DataType::uint(8), a)
    });
    assert_eq!(to_u8, vec![44, 255]);
    let to_bool = floats(
        f32_,
        DataType::bool(),
        &[0.0, 0.5, -0.0],
        &[0.0; 3],
        |a, _| Expr::cast(DataType::bool(), a),
    );
    assert_eq!(to_bool, vec![0.0, 1.0, 0.0]);
}

#[test]
fn select_evaluates_both_sides_if_then_else_only_one() {
    // Out[i] = cond(i < 4, A[i], 0) over i < 6 with A of length 4.
    let a = buf("A", f32t(), &[4]);
    let out = buf("Out", f32t(), &[6]);
    let i = var("i");
    let make = |select: bool| {
        let (cond, then, other) = (
            lt(v(&i), c(4)),
            load(&a, vec![v(&i)]).with_span(sp(9, 13)),
            cf(0.0),
        );
        let value = if select {
            Expr::select(cond, then, other)
        } else {
            call(Intrinsic::IfThenElse, vec![cond, then, other], f32t())
        };
        func(
            &[&a, &out],
            &[],
            for_(&i, 6, store(&out, vec![v(&i)], value)),
        )
    };
    let data = || {
        vec![
            NDArray::from_f32(&[4], vec![1.0, 2.0, 3.0, 4.0]).unwrap(),
            NDArray::zeros(f32t(), &[6]).unwrap(),
        ]
    };
    let mut args = data();
    run(&make(false), &mut args).unwrap();
    assert_eq!(args[1].to_f64_vec(), vec![1.0, 2.0, 3.0, 4.0, 0.0, 0.0]);
    let e = run(&make(true), &mut data()).unwrap_err();
    assert_eq!(e.span, sp(9, 13));
    assert!(e.message.contains("A[4]"), "{}", e.message);
}

#[test]
fn let_if_and_comparisons() {
    // Out[i] = let t = X[i] * 2 in (if t > Y[i] then t else -t), via If statements.
    let x = buf("X", f32t(), &[3]);
    let y = buf("Y", f32t(), &[3]);
    let out = buf("Out", f32t(), &[3]);
    let i = var("i");
    let t = var_t("t", f32t());
    let body = Stmt::from_kind(StmtKind::Let {
        var: t.clone(),
        value: mul(load(&x, vec![v(&i)]), cf(2.0)),
        body: Stmt::from_kind(StmtKind::If {
            cond: Expr::cmp(CmpOp::Gt, v(&t), load(&y, vec![v(&i)])),
            then: store(&out, vec![v(&i)], v(&t)),
            otherwise: Some(store(&out, vec![v(&i)], sub(cf(0.0), v(&t)))),
        }),
    });
    let f = func(&[&x, &y, &out], &[], for_(&i, 3, body));
    let mut args = vec![
        NDArray::from_f32(&[3], vec![1.0, 2.0, 3.0]).unwrap(),
        NDArray::from_f32(&[3], vec![0.0, 5.0, 6.0]).unwrap(),
        NDArray::zeros(f32t(), &[3]).unwrap(),
    ];
    run(&f, &mut args).unwrap();
    assert_eq!(args[2].to_f64_vec(), vec![2.0, -4.0, -6.0]);
    // Expression-level let.
    let u = var_t("u", f32t());
    let r = floats(f32t(), f32t(), &[3.0], &[4.0], |a, b| {
        Expr::new(
            ExprKind::Let {
                var: u.clone(),
                value: add(a, b),
                body: mul(v(&u), v(&u)),
            },
            f32t(),
            Default::default(),
        )
    });
    assert_eq!(r, vec![49.0]);
}

fn ramp(base: Expr, stride: i64, lanes: u16) -> Expr {
    Expr::new(
        ExprKind::Ramp {
            base,
            stride: c(stride),
        },
        DataType::i32().with_lanes(lanes),
        Default::default(),
    )
}

fn vload(b: &Buffer, index: Expr) -> Expr {
    let lanes = index.dtype().lanes;
    Expr::new(
        ExprKind::Load {
            buffer: b.clone(),
            indices: vec![index],
        },
        b.dtype.with_lanes(lanes),
        Default::default(),
    )
}

#[test]
fn vector_ramp_broadcast_loads_and_stores() {
    // for i0 in range(2): B[ramp(i0*4, 1, 4)] = A[ramp(i0*4, 1, 4)] * broadcast(2) + broadcast(1)
    let a = buf("A", f32t(), &[8]);
    let b = buf("B", f32t(), &[8]);
    let i0 = var("i0");
    let vt = f32t().with_lanes(4);
    let bc = |x: f64| Expr::new(ExprKind::Broadcast(cf(x)), vt, Default::default());
    let base = mul(v(&i0), c(4));
    let value = Expr::binary(
        BinOp::Add,
        Expr::binary(BinOp::Mul, vload(&a, ramp(base.clone(), 1, 4)), bc(2.0)),
        bc(1.0),
    );
    let f = func(
        &[&a, &b],
        &[],
        for_(&i0, 2, store(&b, vec![ramp(base, 1, 4)], value)),
    );
    let mut args = vec![
        NDArray::from_f32(&[8], (0..8).map(|x| x as f32).collect()).unwrap(),
        NDArray::zeros(f32t(), &[8]).unwrap(),
    ];
    run(&f, &mut args).unwrap();
    assert_eq!(
        args[1].to_f64_vec(),
        (0..8).map(|x| x as f64 * 2.0 + 1.0).collect::<Vec<_>>()
    );

    // Overlapping vector copy A[1:5] = A[0:4] reads all lanes first.
    let f = func(
        &[&a],
        &[],
        store(&a, vec![ramp(c(1), 1, 4)], vload(&a, ramp(c(0), 1, 4))),
    );
    let mut args = vec![NDArray::from_f32(&[8], (0..8).map(|x| x as f32).collect()).unwrap()];
    run(&f, &mut args).unwrap();
    assert_eq!(
        args[0].to_f64_vec(),
        vec![0.0, 0.0, 1.0, 2.0, 3.0, 5.0, 6.0, 7.0]
    );

    // A vector access out of bounds names the lane.
    let f = func(
        &[&a, &b],
        &[],
        store(&b, vec![ramp(c(6), 1, 4)], vload(&a, ramp(c(0), 1, 4))),
    );
    let mut args = vec![
        NDArray::zeros(f32t(), &[8]).unwrap(),
        NDArray::zeros(f32t(), &[8]).unwrap(),
    ];
    let e = run(&f, &mut args).unwrap_err();
    assert_eq!(
        e.message,
        "store to B[8] (lane 2) is out of bounds: buffer B has shape [8]"
    );
}

#[test]
fn allocate_and_flattened_views_of_parameters() {
    // Lowered style: A_flat = T.Buffer((16,), data=A.data); an Allocate'd
    // scratch buffer; Out_flat[i] = A_flat[i] + tmp[i % 4] where tmp[j] = j.
    let a = buf("A", f32t(), &[4, 4]);
    let out = buf("Out", f32t(), &[4, 4]);
    let flat = |b: &Buffer| {
        b.derive(|n| {
            n.shape = vec![c(16)];
            n.data = b.data.clone();
        })
    };
    let (a_flat, out_flat) = (flat(&a), flat(&out));
    let tmp = buf("tmp", f32t(), &[4]);
    let (i, j) = (var("i"), var("j"));
    let fill = for_(&j, 4, store(&tmp, vec![v(&j)], Expr::cast(f32t(), v(&j))));
    let compute = for_(
        &i,
        16,
        store(
            &out_flat,
            vec![v(&i)],
            add(
                load(&a_flat, vec![v(&i)]),
                load(&tmp, vec![bin(BinOp::FloorMod, v(&i), c(4))]),
            ),
        ),
    );
    let body = Stmt::from_kind(StmtKind::Allocate {
        buffer: tmp,
        body: seq(vec![fill, compute]),
    });
    let f = func(&[&a, &out], &[], body);
    let mut args = vec![
        NDArray::from_f32(&[4, 4], (0..16).map(|x| x as f32 * 10.0).collect()).unwrap(),
        NDArray::zeros(f32t(), &[4, 4]).unwrap(),
    ];
    run(&f, &mut args).unwrap();
    let expected: Vec<f64> = (0..16).map(|x| x as f64 * 10.0 + (x % 4) as f64).collect();
    assert_eq!(args[1].to_f64_vec(), expected);
}

#[test]
fn match_buffer_views_a_region() {
    // for i: block (vi): Sub = match_buffer(A[vi, 2:5]); for j in 3: Sub[j] = vi * 10 + j
    let a = buf("A", f32t(), &[3, 6]);
    let sub = buf("Sub", f32t(), &[3]);
    let (i, j, vi) = (var("i"), var("j"), var("vi"));
    let value = Expr::cast(f32t(), add(mul(v(&vi), c(10)), v(&j)));
    let mut blk = BlockSpec::new("fill", for_(&j, 3, store(&sub, vec![v(&j)], value)));
    blk.iters = vec![Iter(vi.clone(), 3, IterKind::Spatial, v(&i))];
    let region = BufferRegion {
        buffer: a.clone(),
        region: vec![Range::point(v(&vi)), Range::new(c(2), c(3))],
    };
    blk.writes = vec![region.clone()];
    let mut stmt = blk.build();
    if let StmtKind::BlockRealize(r) = stmt.kind() {
        let mut r = r.clone();
        r.block.match_buffers = vec![MatchBufferRegion {
            buffer: sub,
            source: region,
        }];
        stmt = Stmt::from_kind(StmtKind::BlockRealize(r));
    }
    let f = func(&[&a], &[], root(vec![], for_(&i, 3, stmt)));
    let mut args = vec![NDArray::zeros(f32t(), &[3, 6]).unwrap()];
    run_prim_func(
        &f,
        &mut args,
        &EvalOptions {
            check_regions: true,
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(
        args[0].to_f64_vec(),
        vec![
            0.0, 0.0, 0.0, 1.0, 2.0, 0.0, //
            0.0, 0.0, 10.0, 11.0, 12.0, 0.0, //
            0.0, 0.0, 20.0, 21.0, 22.0, 0.0,
        ]
    );
}

#[test]
fn ill_typed_ir_is_rejected_before_running() {
    let f = elementwise(2, f32t(), f32t(), |a, _| add(a, c(1)).with_span(sp(1, 2)));
    let e = CompiledFunc::new(&f).unwrap_err();
    assert_eq!(e.span, sp(1, 2));
    assert!(e.message.contains("int32"), "{}", e.message);
    // Wrong number of indices.
    let a = buf("A", f32t(), &[2, 2]);
    let f = func(&[&a], &[], store(&a, vec![c(0)], cf(1.0)));
    assert!(CompiledFunc::new(&f)
        .unwrap_err()
        .message
        .contains("indexed with 1"));
    // A 4-lane load whose index has 2 lanes.
    let b = buf("B", f32t(), &[8]);
    let bad = Expr::new(
        ExprKind::Load {
            buffer: b.clone(),
            indices: vec![ramp(c(0), 1, 2)],
        },
        f32t().with_lanes(4),
        Default::default(),
    );
    let f = func(&[&b], &[], store(&b, vec![ramp(c(0), 1, 4)], bad));
    assert!(CompiledFunc::new(&f)
        .unwrap_err()
        .message
        .contains("index with 2 lanes"));
    // A buffer that is nowhere defined.
    let ghost = buf("Ghost", f32t(), &[2]);
    let f = func(&[&a], &[], store(&ghost, vec![c(0)], cf(1.0)));
    assert!(CompiledFunc::new(&f).unwrap_err().message.contains("Ghost"));
}
