//! The Analyzer API on hand-built expressions: folding per dtype, bounds,
//! proofs, interval evaluation.

use std::collections::HashMap;

use compiler_core::arith::{eval_bound, expr_deep_equal, Analyzer, NEG_INF, POS_INF};
use compiler_core::ir::{BinOp, CmpOp, DataType, Expr, Range, Var};

fn bin(op: BinOp, a: Expr, b: Expr) -> Expr {
    Expr::binary(op, a, b)
}

#[test]
fn constant_folding_wraps_per_dtype() {
    let ana = Analyzer::new();
    let max32 = Expr::i32(i32::MAX as i64);
    assert_eq!(
        ana.simplify(&bin(BinOp::Add, max32, Expr::i32(1))).as_int(),
        Some(i32::MIN as i64)
    );
    let i8t = DataType::int(8);
    let e = bin(BinOp::Mul, Expr::int(100, i8t), Expr::int(3, i8t));
    assert_eq!(ana.simplify(&e).as_int(), Some(44)); // 300 wraps to 44 in int8
    let u8t = DataType::uint(8);
    let e = bin(BinOp::Sub, Expr::int(1, u8t), Expr::int(2, u8t));
    assert_eq!(ana.simplify(&e).as_int(), Some(255));
    let e = bin(BinOp::Add, Expr::i64(i64::MAX), Expr::i64(1));
    assert_eq!(ana.simplify(&e).as_int(), Some(i64::MIN));
    // floordiv / floormod / truncdiv of negatives
    assert_eq!(
        ana.simplify(&bin(BinOp::FloorDiv, Expr::i32(-7), Expr::i32(2)))
            .as_int(),
        Some(-4)
    );
    assert_eq!(
        ana.simplify(&bin(BinOp::FloorMod, Expr::i32(-7), Expr::i32(2)))
            .as_int(),
        Some(1)
    );
    assert_eq!(
        ana.simplify(&bin(BinOp::Div, Expr::i32(-7), Expr::i32(2)))
            .as_int(),
        Some(-3)
    );
    // division by zero is left alone, never a panic
    let z = bin(BinOp::FloorDiv, Expr::i32(7), Expr::i32(0));
    assert!(ana.simplify(&z).as_int().is_none());
    let m = bin(BinOp::Mod, Expr::i64(i64::MIN), Expr::i64(-1));
    let _ = ana.simplify(&m);
    // floats
    let f = bin(BinOp::Add, Expr::f32(0.5), Expr::f32(0.25));
    assert!(matches!(ana.simplify(&f).kind(), compiler_core::ir::ExprKind::Float(v) if *v == 0.75));
    let x = Var::new("x", DataType::f32());
    let e = bin(BinOp::Mul, x.to_expr(), Expr::f32(1.0));
    assert!(ana.simplify(&e).as_var().is_some());
}

#[test]
fn overflowing_coefficients_are_left_alone() {
    let ana = Analyzer::new();
    let n = Var::new("n", DataType::i64());
    let big = Expr::i64(i64::MAX);
    let e = bin(BinOp::Mul, bin(BinOp::Mul, n.to_expr(), big.clone()), big);
    let _ = ana.simplify(&e); // must not panic
    let e = bin(
        BinOp::FloorDiv,
        bin(BinOp::Add, n.to_expr(), Expr::i64(i64::MIN)),
        Expr::i64(i64::MAX),
    );
    let _ = ana.simplify(&e);
}

#[test]
fn bounds_and_proofs() {
    let mut ana = Analyzer::new();
    let i = Var::new("i", DataType::i32());
    let j = Var::new("j", DataType::i32());
    let n = Var::new("n", DataType::i32());
    ana.bind_range(&i, 0, 8);
    ana.bind_range(&j, 0, 16);
    let e = bin(
        BinOp::Add,
        bin(BinOp::Mul, i.to_expr(), Expr::i32(16)),
        j.to_expr(),
    );
    assert_eq!(ana.const_int_bound(&e), Some((0, 127)));
    assert_eq!(
        ana.const_int_bound(&bin(BinOp::FloorMod, n.to_expr(), Expr::i32(4))),
        Some((0, 3))
    );
    assert_eq!(
        ana.const_int_bound(&n.to_expr()),
        Some((i32::MIN as i64, i32::MAX as i64))
    );
    let n64 = Var::new("n", DataType::i64());
    assert_eq!(
        ana.const_int_bound(&n64.to_expr()),
        Some((NEG_INF, POS_INF))
    );
    assert!(ana.can_prove(&Expr::cmp(CmpOp::Lt, e.clone(), Expr::i32(128))));
    assert!(!ana.can_prove(&Expr::cmp(CmpOp::Lt, e.clone(), Expr::i32(127))));
    let fused = bin(
        BinOp::Add,
        bin(
            BinOp::Mul,
            bin(BinOp::FloorDiv, e.clone(), Expr::i32(16)),
            Expr::i32(16),
        ),
        bin(BinOp::FloorMod, e.clone(), Expr::i32(16)),
    );
    assert!(ana.can_prove_equal(&fused, &e));
    assert!(!ana.can_prove_equal(&i.to_expr(), &j.to_expr()));
    assert!(ana.can_prove_ge(&e, 0));
    assert!(ana.can_prove_lt(&e, 128));
}

#[test]
fn unit_ranges_bind_the_value() {
    let mut ana = Analyzer::new();
    let i0 = Var::new("i_0", DataType::i32());
    let i1 = Var::new("i_1", DataType::i32());
    ana.bind(&i0, &Range::from_extent(Expr::i32(1)));
    ana.bind_range(&i1, 0, 32);
    let e = bin(
        BinOp::Add,
        bin(BinOp::Mul, i0.to_expr(), Expr::i32(32)),
        i1.to_expr(),
    );
    let s = ana.simplify(&e);
    assert_eq!(s.as_var(), Some(&i1));
}

#[test]
fn eval_bound_relaxes_inner_loops() {
    let vi = Var::new("vi", DataType::i32());
    let k = Var::new("k", DataType::i32());
    let mut dom = HashMap::new();
    dom.insert(k.id(), Range::from_extent(Expr::i32(4)));
    // vi * 4 + k, k in [0, 4)  →  [vi * 4, vi * 4 + 4)
    let e = bin(
        BinOp::Add,
        bin(BinOp::Mul, vi.to_expr(), Expr::i32(4)),
        k.to_expr(),
    );
    let r = eval_bound(&e, &dom).expect("affine");
    assert_eq!(r.extent.as_int(), Some(4));
    let ana = Analyzer::new();
    assert!(ana.can_prove_equal(&r.min, &bin(BinOp::Mul, vi.to_expr(), Expr::i32(4))));
    // k * -2 + 7 spans [1, 8)
    let e = bin(
        BinOp::Add,
        bin(BinOp::Mul, k.to_expr(), Expr::i32(-2)),
        Expr::i32(7),
    );
    let r = eval_bound(&e, &dom).expect("affine");
    assert_eq!((r.min.as_int(), r.extent.as_int()), (Some(1), Some(7)));
    // (vi * 4 + k) // 2 spans [vi * 2, vi * 2 + 2)
    let e = bin(
        BinOp::FloorDiv,
        bin(
            BinOp::Add,
            bin(BinOp::Mul, vi.to_expr(), Expr::i32(4)),
            k.to_expr(),
        ),
        Expr::i32(2),
    );
    let r = eval_bound(&e, &dom).expect("affine");
    assert_eq!(r.extent.as_int(), Some(2));
    // k % 3 wraps: the whole [0, 3)
    let e = bin(BinOp::FloorMod, k.to_expr(), Expr::i32(3));
    let r = eval_bound(&e, &dom).expect("bounded");
    assert_eq!((r.min.as_int(), r.extent.as_int()), (Some(0), Some(3)));
    // k * k is not affine in a relaxed variable
    assert!(eval_bound(&bin(BinOp::Mul, k.to_expr(), k.to_expr()), &dom).is_none());
}

/// `x < c1 && x % c2 < c3`, `c2` dividing `c1`: the last period before `c1`
/// ends at `c3`, so the first bound tightens (TVM 0.27 prints
/// `i < 16255 and i % 128 < 127`); otherwise it stays.
#[test]
fn a_bound_tightens_under_a_period_bound() {
    let ana = Analyzer::new();
    let i = Var::new("i", DataType::i32());
    let both = |c1: i64, c3: i64| {
        Expr::and(
            Expr::cmp(CmpOp::Lt, i.to_expr(), Expr::i32(c1)),
            Expr::cmp(
                CmpOp::Lt,
                bin(BinOp::FloorMod, i.to_expr(), Expr::i32(128)),
                Expr::i32(c3),
            ),
        )
    };
    for (given, want) in [
        (both(16256, 127), both(16255, 127)),
        (both(16256, 100), both(16228, 100)),
        (both(16250, 127), both(16250, 127)),
    ] {
        let got = ana.simplify(&given);
        assert!(expr_deep_equal(&got, &want), "{got:?}");
    }
}
