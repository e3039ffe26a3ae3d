//! The printer against Apache TVM 0.27's own printing.
//!
//! Each case builds IR by hand, equivalent to a TVMScript program in
//! `tests/data/printer/<case>.py`; `<case>.tvm.txt` is TVM 0.27's `.script()`
//! of that program (regenerate with `gen_tvm.py` there). The 0.27 dialect
//! must match it byte for byte; the course dialects must match it after the
//! spelling changes (`T.sblock` → `T.block`, `tirx` → `tir`, …). Where Tessel
//! deliberately differs (symbolic shapes), `<case>.ours.txt` holds our form,
//! which `gen_tvm.py` checks TVM parses back into an equal module.

use crate::printer_support;

use compiler_core::ir::*;
use compiler_core::tvmscript::printer::*;
use printer_support::*;
use tessel_test_support::{assert_golden, expect};

fn tirx() -> PrintOptions {
    PrintOptions::new(Dialect::Tirx)
}
fn block_dialect() -> PrintOptions {
    PrintOptions::new(Dialect::Block)
}
fn sblock_dialect() -> PrintOptions {
    PrintOptions::new(Dialect::SBlock)
}

/// Asserts the three dialects of a module against TVM's printing.
fn check_module(m: &IRModule, tvm: &str) {
    assert_eq!(print_module(m, &tirx()), tvm);
    assert_eq!(
        print_module(m, &sblock_dialect()),
        tirx_to_sblock_dialect(tvm)
    );
    assert_eq!(
        print_module(m, &block_dialect()),
        tirx_to_block_dialect(tvm)
    );
}

/// Asserts the three dialects of a bare function against TVM's printing.
fn check_func(f: &PrimFunc, name: &str, tvm: &str) {
    let f = &public(f.clone(), name);
    assert_eq!(print_prim_func(f, name, &tirx()), tvm);
    assert_eq!(
        print_prim_func(f, name, &sblock_dialect()),
        tirx_to_sblock_dialect(tvm)
    );
    assert_eq!(
        print_prim_func(f, name, &block_dialect()),
        tirx_to_block_dialect(tvm)
    );
}

fn ix(vars: &[&Var]) -> Vec<Expr> {
    vars.iter().map(|v| e(v)).collect()
}

// ---------------------------------------------------------------- mm_relu

fn mm_relu() -> IRModule {
    let a = buf("A", "float32", &[128, 128]);
    let b = buf("B", "float32", &[128, 128]);
    let c = buf("C", "float32", &[128, 128]);
    let y = buf("Y", "float32", &[128, 128]);
    let (i, j, k) = (ivar("i"), ivar("j"), ivar("k"));
    let (vi, vj, vk) = (ivar("vi"), ivar("vj"), ivar("vk"));
    let y_block = block("Y")
        .spatial(&vi, 128, e(&i))
        .spatial(&vj, 128, e(&j))
        .reduce(&vk, 128, e(&k))
        .reads(vec![at(&a, ix(&[&vi, &vk])), at(&b, ix(&[&vk, &vj]))])
        .writes(vec![at(&y, ix(&[&vi, &vj]))])
        .init(store(&y, ix(&[&vi, &vj]), f32c(0.0)))
        .body(store(
            &y,
            ix(&[&vi, &vj]),
            add(
                load(&y, ix(&[&vi, &vj])),
                mul(load(&a, ix(&[&vi, &vk])), load(&b, ix(&[&vk, &vj]))),
            ),
        ));
    let nest1 = for_(
        &i,
        i32c(128),
        for_(&j, i32c(128), for_(&k, i32c(128), y_block)),
    );
    let (i, j) = (ivar("i"), ivar("j"));
    let (vi, vj) = (ivar("vi"), ivar("vj"));
    let c_block = block("C")
        .spatial(&vi, 128, e(&i))
        .spatial(&vj, 128, e(&j))
        .reads(vec![at(&y, ix(&[&vi, &vj]))])
        .writes(vec![at(&c, ix(&[&vi, &vj]))])
        .body(store(
            &c,
            ix(&[&vi, &vj]),
            max(load(&y, ix(&[&vi, &vj])), f32c(0.0)),
        ));
    let nest2 = for_(&i, i32c(128), for_(&j, i32c(128), c_block));
    let f = func(
        vec![Param::Buf(a), Param::Buf(b), Param::Buf(c)],
        root(vec![y], seq(vec![nest1, nest2])),
        noalias(Some("mm_relu")),
    );
    module(vec![("mm_relu", f)])
}

#[test]
fn mm_relu_matches_tvm() {
    let m = mm_relu();
    check_module(&m, include_str!("../data/printer/mm_relu.tvm.txt"));
    expect![[r#"
        # from tvm.script import ir as I
        # from tvm.script import tir as T

        @I.ir_module
        class Module:
            @T.prim_func
            def mm_relu(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128, 128), "float32"), C: T.Buffer((128, 128), "float32")):
                T.func_attr({"tir.noalias": True})
                # with T.block("root"):
                Y = T.alloc_buffer((128, 128))
                for i, j, k in T.grid(128, 128, 128):
                    with T.block("Y"):
                        vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                        T.reads(A[vi, vk], B[vk, vj])
                        T.writes(Y[vi, vj])
                        with T.init():
                            Y[vi, vj] = T.float32(0.0)
                        Y[vi, vj] = Y[vi, vj] + A[vi, vk] * B[vk, vj]
                for i, j in T.grid(128, 128):
                    with T.block("C"):
                        vi, vj = T.axis.remap("SS", [i, j])
                        T.reads(Y[vi, vj])
                        T.writes(C[vi, vj])
                        C[vi, vj] = T.max(Y[vi, vj], T.float32(0.0))"#]]
    .assert_eq(&print_module(&m, &block_dialect()));
}

// ------------------------------------------------------- split vector add

fn vector_add_body(nest: impl FnOnce(&Var, &Var, &Var, Stmt) -> Stmt) -> (Vec<Param>, Stmt) {
    let a = buf("A", "float32", &[128]);
    let b = buf("B", "float32", &[128]);
    let c = buf("C", "float32", &[128]);
    let (i0, i1, i2) = (ivar("i_0"), ivar("i_1"), ivar("i_2"));
    let vi = ivar("vi");
    let binding = add(add(mul(e(&i0), i32c(16)), mul(e(&i1), i32c(4))), e(&i2));
    let blk = block("C")
        .spatial(&vi, 128, binding)
        .reads(vec![at(&a, ix(&[&vi])), at(&b, ix(&[&vi]))])
        .writes(vec![at(&c, ix(&[&vi]))])
        .body(store(
            &c,
            ix(&[&vi]),
            add(load(&a, ix(&[&vi])), load(&b, ix(&[&vi]))),
        ));
    let body = nest(&i0, &i1, &i2, blk);
    (
        vec![Param::Buf(a), Param::Buf(b), Param::Buf(c)],
        root(vec![], body),
    )
}

#[test]
fn split_and_parallel_vector_add_match_tvm() {
    let (params, body) = vector_add_body(|i0, i1, i2, blk| {
        for_(i0, i32c(8), for_(i1, i32c(4), for_(i2, i32c(4), blk)))
    });
    let main = func(params, body, noalias(Some("main")));
    let (params, body) = vector_add_body(|i0, i1, i2, blk| {
        for_kind(
            i0,
            i32c(8),
            ForKind::Parallel,
            for_(i2, i32c(4), for_(i1, i32c(4), blk)),
        )
    });
    let par = func(params, body, noalias(None));
    // Inserted out of order: modules print sorted by name.
    let m = module(vec![("main", main), ("add_parallel", par)]);
    check_module(&m, include_str!("../data/printer/vector_add_split.tvm.txt"));
}

// ------------------------------------------------- thread binding, where

#[test]
fn thread_binding_and_where_match_tvm() {
    let a = buf("A", "float32", &[100]);
    let b = buf("B", "float32", &[100]);
    let (i0, i1, vi) = (ivar("i_0"), ivar("i_1"), ivar("vi"));
    let idx = add(mul(e(&i0), i32c(32)), e(&i1));
    let b_block = block("B")
        .spatial(&vi, 100, idx.clone())
        .predicate(lt(idx, i32c(100)))
        .reads(vec![at(&a, ix(&[&vi]))])
        .writes(vec![at(&b, ix(&[&vi]))])
        .body(store(&b, ix(&[&vi]), mul(load(&a, ix(&[&vi])), f32c(2.0))));
    let gpu = thread(
        &i0,
        i32c(4),
        "blockIdx.x",
        thread(&i1, i32c(32), "threadIdx.x", b_block),
    );
    let (j0, j1, vj) = (ivar("j_0"), ivar("j_1"), ivar("vj"));
    let c_block = block("C")
        .spatial(&vj, 100, add(mul(e(&j0), i32c(4)), e(&j1)))
        .reads(vec![at(&b, ix(&[&vj]))])
        .writes(vec![at(&a, ix(&[&vj]))])
        .body(store(&a, ix(&[&vj]), load(&b, ix(&[&vj]))));
    let cpu = for_kind(
        &j0,
        i32c(25),
        ForKind::Unrolled,
        for_kind(&j1, i32c(4), ForKind::Vectorized, c_block),
    );
    let f = func(
        vec![Param::Buf(a), Param::Buf(b)],
        root(vec![], seq(vec![gpu, cpu])),
        Default::default(),
    );
    check_func(&f, "scale", include_str!("../data/printer/gpu.tvm.txt"));
}

// ------------------------------------------------------------ int64 loops

#[test]
fn int64_loops_match_tvm() {
    let a = buf64("A", "float32", &[128, 64]);
    let b = buf64("B", "float32", &[128]);
    let (i, k, vi, vk) = (lvar("i"), lvar("k"), lvar("vi"), lvar("vk"));
    let sum = block("B")
        .iter(&vi, IterKind::Spatial, i64c(128), e(&i))
        .iter(&vk, IterKind::Reduce, i64c(64), e(&k))
        .reads(vec![at(&a, ix(&[&vi, &vk]))])
        .writes(vec![at(&b, ix(&[&vi]))])
        .init(store(&b, ix(&[&vi]), f32c(0.0)))
        .body(store(
            &b,
            ix(&[&vi]),
            add(load(&b, ix(&[&vi])), load(&a, ix(&[&vi, &vk]))),
        ));
    let nest = for_(&i, i64c(128), for_(&k, i64c(64), sum));
    let (i, vi) = (lvar("i"), lvar("vi"));
    let copy = block("C")
        .iter(
            &vi,
            IterKind::Spatial,
            i64c(128),
            add(mul(e(&i), i64c(16)), i64c(3)),
        )
        .reads(vec![region(
            &a,
            vec![point(e(&vi)), rng(i64c(0), i64c(64))],
        )])
        .writes(vec![at(&b, ix(&[&vi]))])
        .body(store(&b, ix(&[&vi]), load(&a, vec![e(&vi), i64c(0)])));
    let ranged = for_range(&i, i64c(2), i64c(6), ForKind::Serial, copy);
    let f = func(
        vec![Param::Buf(a), Param::Buf(b)],
        root(vec![], seq(vec![nest, ranged])),
        Default::default(),
    );
    check_func(
        &f,
        "row_sum",
        include_str!("../data/printer/int64_loop.tvm.txt"),
    );
}

// ------------------------------------------------------ non-trivial regions

#[test]
fn block_regions_attrs_allocs_match_tvm() {
    let a = buf("A", "float32", &[128, 128]);
    let b = buf("B", "float32", &[128, 128]);
    let s = scoped(buf("S", "float16", &[16, 16]), "shared");
    let d = scoped(buf("D", "float32", &[4]), "local");
    let ebuf = buf("E", "float32", &[16]);
    let (i0, i1, vi) = (ivar("i_0"), ivar("i_1"), ivar("vi"));
    let idx = add(mul(e(&i0), i32c(12)), e(&i1));
    let tile = block("tile")
        .spatial(&vi, 128, idx.clone())
        .predicate(lt(idx, i32c(128)))
        .reads(vec![
            region(&a, vec![point(e(&vi)), rng(i32c(0), i32c(128))]),
            region(&b, vec![rng(mul(e(&vi), i32c(4)), i32c(4)), point(e(&vi))]),
            region(&s, vec![rng(i32c(0), i32c(16)), rng(i32c(0), i32c(16))]),
        ])
        .writes(vec![region(&b, vec![point(e(&vi)), rng(e(&vi), i32c(8))])])
        .attr("meta_schedule.auto_tensorize", AttrValue::Str("dot".into()))
        .attr("k", AttrValue::Int(1))
        .alloc(&d)
        .match_buffer(
            &ebuf,
            region(&a, vec![point(e(&vi)), rng(i32c(0), i32c(16))]),
        )
        .init(store(&b, vec![e(&vi), i32c(0)], f32c(0.0)))
        .body(seq(vec![
            store(&d, vec![i32c(0)], load(&ebuf, vec![i32c(0)])),
            store(&b, vec![e(&vi), i32c(0)], load(&d, vec![i32c(0)])),
        ]));
    let body = root(vec![s], for_(&i0, i32c(11), for_(&i1, i32c(12), tile)));
    let f = func(vec![Param::Buf(a), Param::Buf(b)], body, Default::default());
    check_func(&f, "tiles", include_str!("../data/printer/regions.tvm.txt"));
}

// -------------------------------------------------------------- expressions

#[test]
fn expressions_match_tvm() {
    use compiler_core::ir::CmpOp::*;
    let a = buf("A", "float32", &[16]);
    let ib = buf("I", "int32", &[16]);
    let l = buf("L", "int64", &[16]);
    let h = buf("H", "float16", &[16]);
    let d = buf("D", "float64", &[16]);
    let bo = buf("Bo", "bool", &[16]);
    let u = buf("U", "uint8", &[16]);
    let n = ivar("n");
    let x = var("x", DataType::f32());
    let (ne, xe) = (e(&n), e(&x));
    let c = |v: i64| i32c(v);
    let f32_ = DataType::f32();
    let st = |b: &Buffer, i: i64, v: Expr| store(b, vec![c(i)], v);
    let ld = |b: &Buffer, i: i64| load(b, vec![c(i)]);
    let intr = |op: Intrinsic, args: Vec<Expr>| call(op, args, f32_);
    let body = seq(vec![
        st(&ib, 0, mul(add(ne.clone(), c(1)), c(2))),
        st(&ib, 1, add(mul(ne.clone(), c(2)), c(1))),
        st(&ib, 2, sub(ne.clone(), sub(c(1), ne.clone()))),
        st(&ib, 3, sub(sub(ne.clone(), c(1)), ne.clone())),
        st(&ib, 4, floormod(floordiv(ne.clone(), c(4)), c(3))),
        st(
            &ib,
            5,
            add(div(ne.clone(), c(4)), bin(BinOp::Mod, ne.clone(), c(3))),
        ),
        st(&ib, 6, add(min(ne.clone(), c(3)), max(ne.clone(), c(-3)))),
        st(&ib, 7, mul(ne.clone(), c(-1))),
        st(&ib, 8, Expr::select(gt(ne.clone(), c(0)), ne.clone(), c(0))),
        st(
            &ib,
            9,
            call(
                Intrinsic::IfThenElse,
                vec![
                    Expr::and(gt(ne.clone(), c(0)), lt(ne.clone(), c(5))),
                    c(1),
                    c(2),
                ],
                DataType::i32(),
            ),
        ),
        st(&ib, 10, add(c(1), c(2))),
        st(&ib, 11, mul(ne.clone(), c(1))),
        st(&ib, 12, floordiv(c(0), ne.clone())),
        st(
            &ib,
            13,
            add(
                floormod(ne.clone(), floormod(ne.clone(), c(3))),
                floordiv(floordiv(ne.clone(), c(3)), c(2)),
            ),
        ),
        st(&ib, 14, sub(c(0), ne.clone())),
        st(&ib, 15, sub(ne.clone(), c(0))),
        st(&l, 0, i64c(3)),
        st(&l, 1, mul(Expr::cast(DataType::i64(), ne.clone()), i64c(2))),
        st(
            &a,
            0,
            sub(
                add(div(xe.clone(), f32c(2.0)), mul(xe.clone(), xe.clone())),
                xe.clone(),
            ),
        ),
        st(
            &a,
            1,
            add(
                add(
                    add(
                        add(
                            intr(Intrinsic::Exp, vec![xe.clone()]),
                            intr(Intrinsic::Sqrt, vec![xe.clone()]),
                        ),
                        intr(Intrinsic::Tanh, vec![xe.clone()]),
                    ),
                    intr(Intrinsic::Sigmoid, vec![xe.clone()]),
                ),
                intr(Intrinsic::Log, vec![xe.clone()]),
            ),
        ),
        st(
            &a,
            2,
            add(
                intr(Intrinsic::Pow, vec![xe.clone(), f32c(2.0)]),
                intr(Intrinsic::Fabs, vec![xe.clone()]),
            ),
        ),
        st(
            &a,
            3,
            add(Expr::cast(f32_, ld(&ib, 0)), max(xe.clone(), f32c(0.0))),
        ),
        st(
            &a,
            4,
            sub(
                add(
                    sub(xe.clone(), sub(xe.clone(), xe.clone())),
                    add(xe.clone(), xe.clone()),
                ),
                div(
                    mul(xe.clone(), add(xe.clone(), xe.clone())),
                    mul(xe.clone(), xe.clone()),
                ),
            ),
        ),
        st(&a, 5, mul(f32c(0.1), xe.clone())),
        st(&a, 6, mul(f32c(1e-5), xe.clone())),
        st(&a, 7, mul(xe.clone(), f32c(1.0))),
        st(&a, 8, sub(f32c(0.0), xe.clone())),
        st(&a, 9, mul(f32c(f64::INFINITY), xe.clone())),
        st(&h, 0, Expr::float(1.5, DataType::float(16))),
        st(&d, 0, Expr::float(0.1, DataType::f64())),
        st(&bo, 0, boolc(true)),
        st(
            &bo,
            1,
            Expr::or(
                Expr::and(cmp(Eq, ne.clone(), c(1)), cmp(Ne, ne.clone(), c(2))),
                Expr::and(cmp(Le, ne.clone(), c(3)), cmp(Ge, ne.clone(), c(4))),
            ),
        ),
        st(
            &bo,
            2,
            Expr::and(
                Expr::or(lt(ne.clone(), c(1)), gt(ne.clone(), c(2))),
                lt(ne.clone(), c(1)),
            ),
        ),
        st(
            &bo,
            3,
            Expr::logical_not(Expr::or(lt(ne.clone(), c(1)), gt(ne.clone(), c(2)))),
        ),
        st(&bo, 4, lt(c(1), c(2))),
        st(&bo, 5, Expr::and(boolc(true), ld(&bo, 0))),
        st(&bo, 6, Expr::logical_not(ld(&bo, 0))),
        st(&bo, 7, cmp(Eq, ld(&bo, 1), lt(ne.clone(), c(1)))),
        st(&u, 0, Expr::int(255, DataType::uint(8))),
    ]);
    let f = func(
        vec![
            Param::Buf(a),
            Param::Buf(ib),
            Param::Buf(l),
            Param::Buf(h),
            Param::Buf(d),
            Param::Buf(bo),
            Param::Buf(u),
            Param::Scalar(n),
            Param::Scalar(x),
        ],
        body,
        Default::default(),
    );
    check_func(&f, "exprs", include_str!("../data/printer/exprs.tvm.txt"));
}

// --------------------------------------------------------------- statements

#[test]
fn statements_match_tvm() {
    let a = buf("A", "float32", &[32]);
    let bb = buf("B", "float32", &[8]);
    let n = ivar("n");
    let x = var("x", DataType::f32());
    let y = ivar("y");
    let (ne, xe) = (e(&n), e(&x));
    let body = seq(vec![
        if_(
            gt(ne.clone(), i32c(0)),
            store(&a, vec![i32c(0)], xe.clone()),
            None,
        ),
        if_(
            gt(ne.clone(), i32c(1)),
            store(&a, vec![i32c(0)], xe.clone()),
            Some(if_(
                gt(ne.clone(), i32c(3)),
                store(&a, vec![i32c(1)], xe.clone()),
                Some(store(&a, vec![i32c(2)], xe.clone())),
            )),
        ),
        evaluate(add(ne.clone(), i32c(1))),
        evaluate(extern_call(DataType::i32(), "g", vec![ne.clone()])),
        store(
            &a,
            vec![ramp(i32c(0), i32c(1), 4)],
            broadcast(xe.clone(), 4),
        ),
        store(
            &a,
            vec![ramp(ne.clone(), i32c(2), 4)],
            load(&a, vec![ramp(ne.clone(), i32c(1), 4)]),
        ),
        store(
            &a,
            vec![i32c(4)],
            extern_call(
                DataType::f32(),
                "myfn",
                vec![xe.clone(), i32c(1), str_expr("str")],
            ),
        ),
        allocate(
            &bb,
            seq(vec![
                store(&bb, vec![i32c(0)], xe.clone()),
                let_(
                    &y,
                    add(ne.clone(), i32c(1)),
                    store(&a, vec![e(&y)], load(&bb, vec![i32c(0)])),
                ),
            ]),
        ),
    ]);
    let f = func(
        vec![Param::Buf(a), Param::Scalar(n), Param::Scalar(x)],
        body,
        Default::default(),
    );
    check_func(&f, "stmts", include_str!("../data/printer/stmts.tvm.txt"));
}

// -------------------------------------------------------------------- loops

#[test]
fn loops_match_tvm() {
    let a = buf("A", "float32", &[128, 128]);
    let n = ivar("n");
    let one = || f32c(1.0);
    let st = |i: &Var, j: Expr, v: Expr| store(&a, vec![e(i), j], v);
    let mut out = Vec::new();
    let (i, j) = (ivar("i"), ivar("j"));
    out.push(for_range(
        &i,
        i32c(2),
        i32c(8),
        ForKind::Serial,
        for_(&j, i32c(4), st(&i, e(&j), one())),
    ));
    let (i, j) = (ivar("i"), ivar("j"));
    out.push(for_kind(
        &i,
        i32c(8),
        ForKind::Parallel,
        for_kind(&j, i32c(4), ForKind::Vectorized, st(&i, e(&j), one())),
    ));
    let (i, j) = (ivar("i"), ivar("j"));
    out.push(for_range(
        &i,
        i32c(2),
        i32c(6),
        ForKind::Parallel,
        for_kind(&j, i32c(4), ForKind::Unrolled, st(&i, e(&j), one())),
    ));
    let i = ivar("i");
    out.push(loop_full(
        &i,
        i32c(2),
        i32c(6),
        ForKind::ThreadBinding,
        Some("blockIdx.x"),
        Default::default(),
        st(&i, i32c(0), one()),
    ));
    let (i, j) = (ivar("i"), ivar("j"));
    let ann = attrs(vec![
        ("pragma_unroll", AttrValue::Int(1)),
        ("x", AttrValue::Str("str".into())),
        (
            "arr",
            AttrValue::Array(vec![AttrValue::Int(1), AttrValue::Int(2)]),
        ),
        ("f", AttrValue::Float(1.5)),
        ("b", AttrValue::Bool(true)),
        ("m", AttrValue::Map(attrs(vec![("k", AttrValue::Int(1))]))),
    ]);
    out.push(loop_full(
        &i,
        i32c(0),
        i32c(8),
        ForKind::Serial,
        None,
        ann,
        for_(&j, i32c(8), st(&i, e(&j), one())),
    ));
    let (i, j) = (ivar("i"), ivar("j"));
    out.push(for_(
        &i,
        i32c(8),
        loop_full(
            &j,
            i32c(0),
            i32c(8),
            ForKind::Serial,
            None,
            attrs(vec![("a", AttrValue::Int(1))]),
            st(&i, e(&j), one()),
        ),
    ));
    let (i, j) = (ivar("i"), ivar("j"));
    out.push(for_(
        &i,
        i32c(8),
        for_(
            &j,
            i32c(8),
            seq(vec![st(&i, e(&j), one()), st(&i, e(&j), f32c(2.0))]),
        ),
    ));
    let (i, j) = (ivar("i"), ivar("j"));
    out.push(for_(&i, i32c(8), for_(&j, e(&i), st(&i, e(&j), one()))));
    let i = ivar("i");
    out.push(for_range(
        &i,
        e(&n),
        i32c(4),
        ForKind::Serial,
        st(&i, i32c(0), one()),
    ));
    let i = ivar("i");
    out.push(for_range(
        &i,
        i32c(2),
        e(&n),
        ForKind::Serial,
        st(&i, i32c(0), one()),
    ));
    let f = func(
        vec![Param::Buf(a), Param::Scalar(n)],
        seq(out),
        Default::default(),
    );
    check_func(&f, "loops", include_str!("../data/printer/loops.tvm.txt"));
}

// -------------------------------------------------------------------- names

#[test]
fn name_collisions_match_tvm() {
    let a = buf("A", "float32", &[8, 8]);
    let ib = buf("I", "float32", &[8]);
    let zero = || f32c(0.0);
    let (i1, i2) = (ivar("i"), ivar("i"));
    let n1 = for_(
        &i1,
        i32c(8),
        for_(
            &i2,
            i32c(8),
            store(&a, vec![e(&i2), i32c(0)], load(&ib, ix(&[&i2]))),
        ),
    );
    let (i3, i4, i5) = (ivar("i"), ivar("i_1"), ivar("i"));
    let n2 = for_(
        &i3,
        i32c(8),
        for_(
            &i4,
            i32c(8),
            for_(&i5, i32c(8), store(&a, ix(&[&i5, &i4]), zero())),
        ),
    );
    let (i6, vi6) = (ivar("i"), ivar("i"));
    let b1 = block("b")
        .spatial(&vi6, 8, e(&i6))
        .writes(vec![at(&a, vec![e(&vi6), i32c(0)])])
        .body(store(&a, vec![e(&vi6), i32c(0)], zero()));
    let (v, vi) = (ivar("v"), ivar("vi"));
    let b2 = block("b")
        .spatial(&vi, 8, e(&v))
        .writes(vec![at(&a, vec![e(&vi), i32c(0)])])
        .body(store(&a, vec![e(&vi), i32c(0)], zero()));
    let body = root(
        vec![],
        seq(vec![n1, n2, for_(&i6, i32c(8), b1), for_(&v, i32c(8), b2)]),
    );
    let f = func(
        vec![Param::Buf(a), Param::Buf(ib)],
        body,
        Default::default(),
    );
    check_func(&f, "names", include_str!("../data/printer/names.tvm.txt"));
}

// --------------------------------------------------------- symbolic shapes

fn symbolic() -> IRModule {
    let f32_ = "float32";
    // linear0
    let (m, n) = (lvar("m"), lvar("n"));
    let one = || i64c(1);
    let xb = buf_e("X", f32_, vec![one(), e(&m)]);
    let wb = buf_e("W", f32_, vec![e(&n), e(&m)]);
    let bb = buf_e("B", f32_, vec![e(&n)]);
    let zb = buf_e("Z", f32_, vec![one(), e(&n)]);
    let yb = buf_e("Y", f32_, vec![one(), e(&n)]);
    let handle = |s: &str| var(s, DataType::handle());
    let (i, j, k) = (lvar("i"), lvar("j"), lvar("k"));
    let (vi, vj, vk) = (lvar("vi"), lvar("vj"), lvar("vk"));
    let y_block = block("Y")
        .iter(&vi, IterKind::Spatial, one(), e(&i))
        .iter(&vj, IterKind::Spatial, e(&n), e(&j))
        .iter(&vk, IterKind::Reduce, e(&m), e(&k))
        .reads(vec![at(&xb, ix(&[&vi, &vk])), at(&wb, ix(&[&vj, &vk]))])
        .writes(vec![at(&yb, ix(&[&vi, &vj]))])
        .init(store(&yb, ix(&[&vi, &vj]), f32c(0.0)))
        .body(store(
            &yb,
            ix(&[&vi, &vj]),
            add(
                load(&yb, ix(&[&vi, &vj])),
                mul(load(&xb, ix(&[&vi, &vk])), load(&wb, ix(&[&vj, &vk]))),
            ),
        ));
    let nest1 = for_(&i, one(), for_(&j, e(&n), for_(&k, e(&m), y_block)));
    let (i, j, vi, vj) = (lvar("i"), lvar("j"), lvar("vi"), lvar("vj"));
    let z_block = block("Z")
        .iter(&vi, IterKind::Spatial, one(), e(&i))
        .iter(&vj, IterKind::Spatial, e(&n), e(&j))
        .reads(vec![at(&yb, ix(&[&vi, &vj])), at(&bb, ix(&[&vj]))])
        .writes(vec![at(&zb, ix(&[&vi, &vj]))])
        .body(store(
            &zb,
            ix(&[&vi, &vj]),
            add(load(&yb, ix(&[&vi, &vj])), load(&bb, ix(&[&vj]))),
        ));
    let nest2 = for_(&i, one(), for_(&j, e(&n), z_block));
    let linear0 = func(
        vec![
            Param::Handle(handle("x"), xb),
            Param::Handle(handle("w"), wb),
            Param::Handle(handle("b"), bb),
            Param::Handle(handle("z"), zb),
        ],
        root(vec![yb], seq(vec![nest1, nest2])),
        Default::default(),
    );
    // relu0
    let n = lvar("n");
    let xb = buf_e("X", f32_, vec![one(), e(&n)]);
    let yb = buf_e("Y", f32_, vec![one(), e(&n)]);
    let (i, j, vi, vj) = (lvar("i"), lvar("j"), lvar("vi"), lvar("vj"));
    let y_block = block("Y")
        .iter(&vi, IterKind::Spatial, one(), e(&i))
        .iter(&vj, IterKind::Spatial, e(&n), e(&j))
        .reads(vec![at(&xb, ix(&[&vi, &vj]))])
        .writes(vec![at(&yb, ix(&[&vi, &vj]))])
        .body(store(
            &yb,
            ix(&[&vi, &vj]),
            max(load(&xb, ix(&[&vi, &vj])), f32c(0.0)),
        ));
    let relu0 = func(
        vec![
            Param::Handle(handle("x"), xb),
            Param::Handle(handle("y"), yb),
        ],
        root(vec![], for_(&i, one(), for_(&j, e(&n), y_block))),
        Default::default(),
    );
    module(vec![("linear0", linear0), ("relu0", relu0)])
}

#[test]
fn symbolic_shapes_print_as_match_buffer() {
    let m = symbolic();
    let ours_path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/printer/symbolic.ours.txt"
    );
    assert_golden(ours_path, &print_module(&m, &tirx()));
    let ours = &std::fs::read_to_string(ours_path).expect("golden");
    assert_eq!(
        print_module(&m, &sblock_dialect()),
        tirx_to_sblock_dialect(ours)
    );
    assert_eq!(
        print_module(&m, &block_dialect()),
        tirx_to_block_dialect(ours)
    );
    expect![[r#"
        # from tvm.script import ir as I
        # from tvm.script import tir as T

        @I.ir_module
        class Module:
            @T.prim_func
            def linear0(x: T.handle, w: T.handle, b: T.handle, z: T.handle):
                m = T.int64()
                X = T.match_buffer(x, (T.int64(1), m))
                n = T.int64()
                W = T.match_buffer(w, (n, m))
                B = T.match_buffer(b, (n,))
                Z = T.match_buffer(z, (T.int64(1), n))
                # with T.block("root"):
                Y = T.alloc_buffer((T.int64(1), n))
                for i, j, k in T.grid(T.int64(1), n, m):
                    with T.block("Y"):
                        vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                        T.reads(X[vi, vk], W[vj, vk])
                        T.writes(Y[vi, vj])
                        with T.init():
                            Y[vi, vj] = T.float32(0.0)
                        Y[vi, vj] = Y[vi, vj] + X[vi, vk] * W[vj, vk]
                for i, j in T.grid(T.int64(1), n):
                    with T.block("Z"):
                        vi, vj = T.axis.remap("SS", [i, j])
                        T.reads(Y[vi, vj], B[vj])
                        T.writes(Z[vi, vj])
                        Z[vi, vj] = Y[vi, vj] + B[vj]

            @T.prim_func
            def relu0(x: T.handle, y: T.handle):
                n = T.int64()
                X = T.match_buffer(x, (T.int64(1), n))
                Y = T.match_buffer(y, (T.int64(1), n))
                # with T.block("root"):
                for i, j in T.grid(T.int64(1), n):
                    with T.block("Y"):
                        vi, vj = T.axis.remap("SS", [i, j])
                        T.reads(X[vi, vj])
                        T.writes(Y[vi, vj])
                        Y[vi, vj] = T.max(X[vi, vj], T.float32(0.0))"#]]
    .assert_eq(&print_module(&m, &block_dialect()));
}
