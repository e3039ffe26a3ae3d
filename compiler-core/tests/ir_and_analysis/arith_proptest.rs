//! Simplification must preserve value: random integer expressions over a few
//! variables with small ranges, evaluated by brute force before and after.

use proptest::prelude::*;

use compiler_core::arith::Analyzer;
use compiler_core::ir::{BinOp, CmpOp, DataType, Expr, ExprKind, Var};

/// (min, extent) of each variable.
const RANGES: [(i64, i64); 4] = [(0, 6), (0, 5), (-3, 7), (0, 16)];

#[derive(Clone, Debug)]
enum E {
    Var(usize),
    Const(i64),
    Bin(BinOp, Box<E>, Box<E>),
    /// Division/modulo by a non-zero constant.
    DivC(BinOp, Box<E>, i64),
    Cmp(CmpOp, Box<E>, Box<E>),
    And(Box<E>, Box<E>),
    Or(Box<E>, Box<E>),
    Not(Box<E>),
    Select(Box<E>, Box<E>, Box<E>),
}

fn int_expr() -> impl Strategy<Value = E> {
    let leaf = prop_oneof![
        3 => (0..RANGES.len()).prop_map(E::Var),
        1 => (-20i64..20).prop_map(E::Const),
    ];
    leaf.prop_recursive(5, 40, 3, |inner| {
        let cond = (
            prop_oneof![
                Just(CmpOp::Lt),
                Just(CmpOp::Le),
                Just(CmpOp::Gt),
                Just(CmpOp::Ge),
                Just(CmpOp::Eq),
                Just(CmpOp::Ne)
            ],
            inner.clone(),
            inner.clone(),
        )
            .prop_map(|(op, a, b)| E::Cmp(op, Box::new(a), Box::new(b)));
        prop_oneof![
            4 => (
                prop_oneof![Just(BinOp::Add), Just(BinOp::Sub), Just(BinOp::Mul), Just(BinOp::Min), Just(BinOp::Max)],
                inner.clone(),
                inner.clone()
            )
                .prop_map(|(op, a, b)| E::Bin(op, Box::new(a), Box::new(b))),
            2 => (inner.clone(), prop_oneof![Just(1i64), Just(2), Just(3), Just(4), Just(8), Just(16), Just(-2), Just(-4), Just(6)])
                .prop_map(|(a, c)| E::Bin(BinOp::Mul, Box::new(a), Box::new(E::Const(c)))),
            3 => (
                prop_oneof![Just(BinOp::FloorDiv), Just(BinOp::FloorMod), Just(BinOp::Div), Just(BinOp::Mod)],
                inner.clone(),
                prop_oneof![Just(1i64), Just(2), Just(3), Just(4), Just(8), Just(16), Just(6), Just(-4)]
            )
                .prop_map(|(op, a, c)| E::DivC(op, Box::new(a), c)),
            1 => (cond.clone(), inner.clone(), inner.clone())
                .prop_map(|(c, a, b)| E::Select(Box::new(c), Box::new(a), Box::new(b))),
        ]
    })
}

fn bool_expr() -> impl Strategy<Value = E> {
    let cmp = (
        prop_oneof![
            Just(CmpOp::Lt),
            Just(CmpOp::Le),
            Just(CmpOp::Gt),
            Just(CmpOp::Ge),
            Just(CmpOp::Eq),
            Just(CmpOp::Ne)
        ],
        int_expr(),
        int_expr(),
    )
        .prop_map(|(op, a, b)| E::Cmp(op, Box::new(a), Box::new(b)));
    cmp.prop_recursive(2, 8, 2, |inner| {
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(|(a, b)| E::And(Box::new(a), Box::new(b))),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| E::Or(Box::new(a), Box::new(b))),
            inner.prop_map(|a| E::Not(Box::new(a))),
        ]
    })
}

fn build(e: &E, vars: &[Var]) -> Expr {
    match e {
        E::Var(i) => vars[*i].to_expr(),
        E::Const(c) => Expr::i32(*c),
        E::Bin(op, a, b) => Expr::binary(*op, build(a, vars), build(b, vars)),
        E::DivC(op, a, c) => Expr::binary(*op, build(a, vars), Expr::i32(*c)),
        E::Cmp(op, a, b) => Expr::cmp(*op, build(a, vars), build(b, vars)),
        E::And(a, b) => Expr::and(build(a, vars), build(b, vars)),
        E::Or(a, b) => Expr::or(build(a, vars), build(b, vars)),
        E::Not(a) => Expr::logical_not(build(a, vars)),
        E::Select(c, a, b) => Expr::select(build(c, vars), build(a, vars), build(b, vars)),
    }
}

fn wrap32(v: i64) -> i64 {
    v as i32 as i64
}

/// Evaluates an int32/bool expression; `None` on division by zero.
fn eval(e: &Expr, env: &[(Var, i64)]) -> Option<i64> {
    Some(match e.kind() {
        ExprKind::Int(v) => *v,
        ExprKind::Var(v) => env
            .iter()
            .find(|(x, _)| x == v)
            .map(|(_, val)| *val)
            .expect("bound var"),
        ExprKind::Binary(op, a, b) => {
            let (x, y) = (eval(a, env)?, eval(b, env)?);
            let r = match op {
                BinOp::Add => x + y,
                BinOp::Sub => x - y,
                BinOp::Mul => x * y,
                BinOp::Min => x.min(y),
                BinOp::Max => x.max(y),
                BinOp::Div => {
                    if y == 0 {
                        return None;
                    }
                    x / y
                }
                BinOp::Mod => {
                    if y == 0 {
                        return None;
                    }
                    x % y
                }
                BinOp::FloorDiv => {
                    if y == 0 {
                        return None;
                    }
                    x.div_euclid(y) - if y < 0 && x.rem_euclid(y) != 0 { 1 } else { 0 }
                }
                BinOp::FloorMod => {
                    if y == 0 {
                        return None;
                    }
                    let q = x.div_euclid(y) - if y < 0 && x.rem_euclid(y) != 0 { 1 } else { 0 };
                    x - q * y
                }
            };
            wrap32(r)
        }
        ExprKind::Cmp(op, a, b) => {
            let (x, y) = (eval(a, env)?, eval(b, env)?);
            (match op {
                CmpOp::Lt => x < y,
                CmpOp::Le => x <= y,
                CmpOp::Gt => x > y,
                CmpOp::Ge => x >= y,
                CmpOp::Eq => x == y,
                CmpOp::Ne => x != y,
            }) as i64
        }
        ExprKind::And(a, b) => ((eval(a, env)? != 0) && (eval(b, env)? != 0)) as i64,
        ExprKind::Or(a, b) => ((eval(a, env)? != 0) || (eval(b, env)? != 0)) as i64,
        ExprKind::Not(a) => (eval(a, env)? == 0) as i64,
        ExprKind::Select {
            cond,
            then,
            otherwise,
        } => {
            let c = eval(cond, env)?;
            let t = eval(then, env)?;
            let o = eval(otherwise, env)?;
            if c != 0 {
                t
            } else {
                o
            }
        }
        other => panic!("unexpected node {other:?}"),
    })
}

fn for_all_assignments(vars: &[Var], f: &mut impl FnMut(&[(Var, i64)])) {
    let mut env: Vec<(Var, i64)> = vars
        .iter()
        .zip(RANGES)
        .map(|(v, r)| (v.clone(), r.0))
        .collect();
    loop {
        f(&env);
        let mut i = 0;
        loop {
            if i == env.len() {
                return;
            }
            env[i].1 += 1;
            if env[i].1 < RANGES[i].0 + RANGES[i].1 {
                break;
            }
            env[i].1 = RANGES[i].0;
            i += 1;
        }
    }
}

fn check(e: &E) -> Result<(), TestCaseError> {
    let vars: Vec<Var> = ["a", "b", "c", "d"]
        .iter()
        .map(|n| Var::new(*n, DataType::i32()))
        .collect();
    let mut ana = Analyzer::new();
    for (v, (min, ext)) in vars.iter().zip(RANGES) {
        ana.bind_range(v, min, ext);
    }
    let expr = build(e, &vars);
    let simplified = ana.simplify(&expr);
    let mut failure = None;
    for_all_assignments(&vars, &mut |env| {
        if failure.is_some() {
            return;
        }
        let before = eval(&expr, env);
        if let Some(before) = before {
            let after = eval(&simplified, env);
            if after != Some(before) {
                let vals: Vec<String> = env
                    .iter()
                    .map(|(v, x)| format!("{}={x}", v.name()))
                    .collect();
                failure = Some(format!(
                    "{expr:?}\n  simplified to {simplified:?}\n  at {}: {before} vs {after:?}",
                    vals.join(", ")
                ));
            }
        }
    });
    match failure {
        Some(f) => Err(TestCaseError::fail(f)),
        None => Ok(()),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 500, failure_persistence: None, .. ProptestConfig::default() })]

    #[test]
    fn simplify_preserves_integer_values(e in int_expr()) {
        check(&e)?;
    }

    #[test]
    fn simplify_preserves_conditions(e in bool_expr()) {
        check(&e)?;
    }
}
