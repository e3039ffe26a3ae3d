//! `detect_iter_map` on the bindings schedule primitives produce.

use compiler_core::arith::detect_iter_map;
use compiler_core::ir::{BinOp, CmpOp, DataType, Expr, Range, Var};

fn lp(name: &str, ext: i64) -> (Var, Range) {
    (
        Var::new(name, DataType::i32()),
        Range::from_extent(Expr::i32(ext)),
    )
}
fn v(l: &(Var, Range)) -> Expr {
    l.0.to_expr()
}
fn c(x: i64) -> Expr {
    Expr::i32(x)
}
fn add(a: Expr, b: Expr) -> Expr {
    Expr::binary(BinOp::Add, a, b)
}
fn mul(a: Expr, b: Expr) -> Expr {
    Expr::binary(BinOp::Mul, a, b)
}
fn fdiv(a: Expr, b: i64) -> Expr {
    Expr::binary(BinOp::FloorDiv, a, c(b))
}
fn fmod(a: Expr, b: i64) -> Expr {
    Expr::binary(BinOp::FloorMod, a, c(b))
}
fn t() -> Expr {
    Expr::bool(true)
}

#[test]
fn split_loops_form_one_iterator() {
    let loops = [lp("i_0", 8), lp("i_1", 4), lp("i_2", 4)];
    let b = add(
        add(mul(v(&loops[0]), c(16)), mul(v(&loops[1]), c(4))),
        v(&loops[2]),
    );
    let m = detect_iter_map(&[b], &loops, &t()).expect("affine");
    assert_eq!(m.indices[0].extent, 128);
    assert_eq!(m.indices[0].args.len(), 3);
    assert_eq!(m.indices[0].args[0].scale, 16);
    assert_eq!(m.vars_of(0).len(), 3);
}

#[test]
fn fused_loop_splits_back() {
    let loops = [lp("i_j_fused", 16384)];
    let f = v(&loops[0]);
    let m = detect_iter_map(&[fdiv(f.clone(), 128), fmod(f, 128)], &loops, &t()).expect("affine");
    assert_eq!(m.indices[0].extent, 128);
    assert_eq!(m.indices[1].extent, 128);
    assert_eq!(m.indices[0].args[0].lower_factor, 128);
}

#[test]
fn fuse_then_split() {
    let loops = [lp("f_0", 512), lp("f_1", 32)];
    let fused = add(mul(v(&loops[0]), c(32)), v(&loops[1]));
    let m = detect_iter_map(&[fdiv(fused.clone(), 128), fmod(fused, 128)], &loops, &t())
        .expect("affine");
    assert_eq!((m.indices[0].extent, m.indices[1].extent), (128, 128));
    // One fused mark shared by both bindings.
    assert_eq!(m.marks.len(), 3);
}

#[test]
fn reordered_loops_are_fine() {
    let loops = [lp("j", 16), lp("i", 8)];
    let m = detect_iter_map(&[v(&loops[1]), v(&loops[0])], &loops, &t()).expect("affine");
    assert_eq!((m.indices[0].extent, m.indices[1].extent), (8, 16));
}

#[test]
fn short_loop_gives_short_binding() {
    // for i in range(127): vi = T.axis.spatial(128, i) — the verifier compares 127 with 128.
    let loops = [lp("i", 127)];
    let m = detect_iter_map(&[v(&loops[0])], &loops, &t()).expect("affine");
    assert_eq!(m.indices[0].extent, 127);
}

#[test]
fn predicate_bounds_the_fused_binding() {
    let loops = [lp("i_0", 3), lp("i_1", 4)];
    let b = add(mul(v(&loops[0]), c(4)), v(&loops[1]));
    let pred = Expr::cmp(CmpOp::Lt, b.clone(), c(10));
    let m = detect_iter_map(&[b], &loops, &pred).expect("affine");
    assert_eq!(m.indices[0].extent, 10);
}

#[test]
fn non_bijective_bindings_are_rejected() {
    let loops = [lp("i", 8), lp("j", 4)];
    for (bindings, why) in [
        (vec![v(&loops[0]), v(&loops[0])], "i used twice"),
        (vec![mul(v(&loops[0]), c(2))], "strided"),
        (vec![fdiv(v(&loops[0]), 2)], "half of i unused"),
        (vec![add(v(&loops[0]), v(&loops[1]))], "overlapping sum"),
        (vec![mul(v(&loops[0]), v(&loops[1]))], "not affine"),
        (
            vec![fdiv(v(&loops[0]), 3), fmod(v(&loops[0]), 3)],
            "not divisible",
        ),
    ] {
        assert!(detect_iter_map(&bindings, &loops, &t()).is_err(), "{why}");
    }
}

#[test]
fn unit_loops_are_constants() {
    let loops = [lp("i_0", 1), lp("i_1", 32)];
    let b = add(mul(v(&loops[0]), c(32)), v(&loops[1]));
    let m = detect_iter_map(&[b], &loops, &t()).expect("affine");
    assert_eq!(m.indices[0].extent, 32);
    assert_eq!(m.indices[0].args.len(), 1);
}
