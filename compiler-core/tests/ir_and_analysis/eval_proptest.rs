//! Random expression trees: the interpreter against independent reference
//! evaluators (integers in i128 then wrapped; floats in native f32/f64).

use crate::eval_support;

use compiler_core::eval::*;
use compiler_core::ir::*;
use eval_support::*;
use proptest::prelude::*;

#[derive(Clone, Debug)]
enum T {
    X,
    Y,
    Lit(i64),
    Bin(BinOp, Box<T>, Box<T>),
}

const OPS: [BinOp; 9] = [
    BinOp::Add,
    BinOp::Sub,
    BinOp::Mul,
    BinOp::Div,
    BinOp::Mod,
    BinOp::FloorDiv,
    BinOp::FloorMod,
    BinOp::Min,
    BinOp::Max,
];

fn tree(lit: impl Strategy<Value = i64> + Clone + 'static) -> impl Strategy<Value = T> {
    let leaf = prop_oneof![Just(T::X), Just(T::Y), lit.prop_map(T::Lit)];
    leaf.prop_recursive(4, 24, 2, |inner| {
        (0..OPS.len(), inner.clone(), inner)
            .prop_map(|(o, a, b)| T::Bin(OPS[o], Box::new(a), Box::new(b)))
    })
}

fn to_ir(t: &T, x: &Expr, y: &Expr, dt: DataType) -> Expr {
    match t {
        T::X => x.clone(),
        T::Y => y.clone(),
        T::Lit(v) => Expr::int(*v, dt),
        T::Bin(op, a, b) => Expr::binary(*op, to_ir(a, x, y, dt), to_ir(b, x, y, dt)),
    }
}

fn wrap(v: i128, bits: u32, signed: bool) -> i128 {
    let m = 1i128 << bits;
    let u = v.rem_euclid(m);
    if signed && u >= m / 2 {
        u - m
    } else {
        u
    }
}

/// Reference semantics: exact i128 arithmetic, wrapped after every operation.
fn reference(t: &T, x: i128, y: i128, bits: u32, signed: bool) -> Option<i128> {
    Some(match t {
        T::X => x,
        T::Y => y,
        T::Lit(v) => wrap(*v as i128, bits, signed),
        T::Bin(op, a, b) => {
            let a = reference(a, x, y, bits, signed)?;
            let b = reference(b, x, y, bits, signed)?;
            let r = match op {
                BinOp::Add => a + b,
                BinOp::Sub => a - b,
                BinOp::Mul => a.wrapping_mul(b), // exact modulo 2^128, hence modulo 2^bits
                BinOp::Min => a.min(b),
                BinOp::Max => a.max(b),
                _ if b == 0 => return None,
                BinOp::Div => a / b,
                BinOp::Mod => a % b,
                BinOp::FloorMod => ((a % b) + b) % b,
                BinOp::FloorDiv => (a - ((a % b) + b) % b) / b,
            };
            wrap(r, bits, signed)
        }
    })
}

/// `Out[0] = expr(X[0], Y[0])` in dtype `dt`, run on `x`, `y`.
fn interpret(t: &T, dt: DataType, x: i64, y: i64) -> Result<i64, EvalError> {
    let bx = buf("X", dt, &[1]);
    let by = buf("Y", dt, &[1]);
    let out = buf("Out", dt, &[1]);
    let e = to_ir(t, &load(&bx, vec![c(0)]), &load(&by, vec![c(0)]), dt);
    let f = func(&[&bx, &by, &out], &[], store(&out, vec![c(0)], e));
    let mut args = vec![
        NDArray::from_i64(dt, &[1], &[x]).unwrap(),
        NDArray::from_i64(dt, &[1], &[y]).unwrap(),
        NDArray::zeros(dt, &[1]).unwrap(),
    ];
    run_prim_func(&f, &mut args, &EvalOptions::default())?;
    Ok(args[2].get_i64(&[0]).unwrap())
}

fn check_int(t: &T, dt: DataType, x: i64, y: i64) -> Result<(), TestCaseError> {
    let bits = dt.bits as u32;
    let signed = dt.is_int();
    let (xw, yw) = (wrap(x as i128, bits, signed), wrap(y as i128, bits, signed));
    let want = reference(t, xw, yw, bits, signed);
    let got = interpret(t, dt, x, y);
    match (want, got) {
        (Some(w), Ok(g)) => {
            // uint64 values come back as their bit pattern in an i64.
            prop_assert_eq!(
                wrap(g as i128, bits, signed),
                w,
                "{:?} x={} y={} {}",
                t,
                x,
                y,
                dt
            )
        }
        (None, Err(e)) => prop_assert!(e.message.contains("by zero"), "{}", e.message),
        (w, g) => prop_assert!(
            false,
            "{:?} x={} y={} {}: want {:?}, got {:?}",
            t,
            x,
            y,
            dt,
            w,
            g
        ),
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn int32_trees(t in tree(-20i64..20), x in -100i64..100, y in -100i64..100) {
        check_int(&t, DataType::i32(), x, y)?;
    }

    #[test]
    fn int32_trees_near_overflow(t in tree(prop_oneof![Just(i32::MIN as i64), Just(i32::MAX as i64), Just(-1i64), -3i64..3]),
                                 x in any::<i32>(), y in any::<i32>()) {
        check_int(&t, DataType::i32(), x as i64, y as i64)?;
    }

    #[test]
    fn narrow_and_unsigned_trees(t in tree(-300i64..300), x in any::<i64>(), y in any::<i64>(), k in 0usize..6) {
        let dt = [DataType::int(8), DataType::int(16), DataType::uint(8), DataType::uint(16), DataType::uint(32), DataType::uint(64)][k];
        check_int(&t, dt, x, y)?;
    }

    #[test]
    fn int64_trees(t in tree(any::<i64>()), x in any::<i64>(), y in any::<i64>()) {
        check_int(&t, DataType::i64(), x, y)?;
    }

    #[test]
    fn float32_trees_round_every_operation(t in tree(-4i64..5), x in -1e3f32..1e3, y in -1e3f32..1e3) {
        // Same tree in native f32; literals are small integers.
        fn f32_ref(t: &T, x: f32, y: f32) -> f32 {
            match t {
                T::X => x,
                T::Y => y,
                T::Lit(v) => *v as f32,
                T::Bin(op, a, b) => {
                    let (a, b) = (f32_ref(a, x, y), f32_ref(b, x, y));
                    match op {
                        BinOp::Add => a + b,
                        BinOp::Sub => a - b,
                        BinOp::Mul => a * b,
                        BinOp::Div => a / b,
                        BinOp::Mod => a % b,
                        BinOp::FloorDiv => (a / b).floor(),
                        BinOp::FloorMod => a - (a / b).floor() * b,
                        BinOp::Min => if a < b { a } else { b },
                        BinOp::Max => if a > b { a } else { b },
                    }
                }
            }
        }
        let dt = DataType::f32();
        let bx = buf("X", dt, &[1]);
        let by = buf("Y", dt, &[1]);
        let out = buf("Out", dt, &[1]);
        let lit_tree = |t: &T| -> Expr {
            fn go(t: &T, x: &Expr, y: &Expr) -> Expr {
                match t {
                    T::X => x.clone(),
                    T::Y => y.clone(),
                    T::Lit(v) => Expr::f32(*v as f64),
                    T::Bin(op, a, b) => Expr::binary(*op, go(a, x, y), go(b, x, y)),
                }
            }
            go(t, &load(&bx, vec![c(0)]), &load(&by, vec![c(0)]))
        };
        let f = func(&[&bx, &by, &out], &[], store(&out, vec![c(0)], lit_tree(&t)));
        let mut args = vec![
            NDArray::from_f32(&[1], vec![x]).unwrap(),
            NDArray::from_f32(&[1], vec![y]).unwrap(),
            NDArray::zeros(dt, &[1]).unwrap(),
        ];
        run_prim_func(&f, &mut args, &EvalOptions::default()).unwrap();
        let got = args[2].as_f32_slice().unwrap()[0];
        let want = f32_ref(&t, x, y);
        prop_assert!(got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
            "{:?} x={} y={}: got {} want {}", t, x, y, got, want);
    }

    #[test]
    fn f16_rounding_matches_bit_conversion(bits in any::<u16>(), x in any::<f32>()) {
        // Rounding is idempotent on halves and agrees with the bit encoder.
        let h = f16_bits_to_f64(bits);
        if !h.is_nan() {
            prop_assert_eq!(round_to_f16(h), h);
        }
        let r = round_to_f16(x as f64);
        if !r.is_nan() {
            prop_assert_eq!(f16_bits_to_f64(f64_to_f16_bits(x as f64)), r);
            // Nearest: no half lies strictly closer to x.
            let b = f64_to_f16_bits(x as f64);
            for nb in [b.wrapping_add(1), b.wrapping_sub(1)] {
                let n = f16_bits_to_f64(nb);
                if n.is_finite() && r.is_finite() && (n.is_sign_negative() == r.is_sign_negative()) {
                    prop_assert!((n - x as f64).abs() >= (r - x as f64).abs(), "x={} r={} n={}", x, r, n);
                }
            }
        }
    }
}
