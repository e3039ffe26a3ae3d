//! More printing rules checked against TVM 0.27 (`tests/data/printer/`):
//! `T.axis.remap` grouping and buffer options.

use crate::printer_support;

use compiler_core::ir::*;
use compiler_core::tvmscript::printer::*;
use printer_support::*;

fn ix(vars: &[&Var]) -> Vec<Expr> {
    vars.iter().map(|v| e(v)).collect()
}

fn copy_block(name: &str, a: &Buffer, b: &Buffer, dst: Vec<Expr>, src: Vec<Expr>) -> BlockB {
    block(name).reads(vec![at(a, src)]).writes(vec![at(b, dst)])
}

#[test]
fn axis_remap_runs_match_tvm() {
    let a = buf("A", "float32", &[128, 128]);
    let b = buf("B", "float32", &[128, 128]);
    let copy = |dst: Vec<Expr>, src: Vec<Expr>| store(&b, dst, load(&a, src));
    let mut out = Vec::new();

    let (i, j, vi, vj) = (ivar("i"), ivar("j"), ivar("vi"), ivar("vj"));
    let blk = copy_block("a", &a, &b, ix(&[&vi, &vj]), ix(&[&vi, &vj]))
        .spatial(&vi, 128, e(&i))
        .spatial(&vj, 128, e(&j))
        .body(copy(ix(&[&vi, &vj]), ix(&[&vi, &vj])));
    out.push(for_(&i, i32c(128), for_(&j, i32c(128), blk)));

    let (i, j, vi, vj) = (ivar("i"), ivar("j"), ivar("vi"), ivar("vj"));
    let blk = copy_block("b_swapped", &a, &b, ix(&[&vi, &vj]), ix(&[&vi, &vj]))
        .spatial(&vj, 128, e(&j))
        .spatial(&vi, 128, e(&i))
        .body(copy(ix(&[&vi, &vj]), ix(&[&vi, &vj])));
    out.push(for_(&i, i32c(128), for_(&j, i32c(128), blk)));

    let (i, j, vi, vj, vk) = (ivar("i"), ivar("j"), ivar("vi"), ivar("vj"), ivar("vk"));
    let blk = copy_block("c_mixed", &a, &b, ix(&[&vi, &vj]), ix(&[&vi, &vk]))
        .spatial(&vi, 128, e(&i))
        .spatial(&vj, 128, mul(e(&j), i32c(2)))
        .reduce(&vk, 64, e(&j))
        .body(copy(ix(&[&vi, &vj]), ix(&[&vi, &vk])));
    out.push(for_(&i, i32c(128), for_(&j, i32c(64), blk)));

    let (i, j, vi, vj) = (ivar("i"), ivar("j"), ivar("vi"), ivar("vj"));
    let blk = copy_block("d_mismatch", &a, &b, ix(&[&vi, &vj]), ix(&[&vi, &vj]))
        .spatial(&vi, 256, e(&i))
        .spatial(&vj, 128, e(&j))
        .body(copy(ix(&[&vi, &vj]), ix(&[&vi, &vj])));
    out.push(for_(&i, i32c(128), for_(&j, i32c(128), blk)));

    let (i, vi, vj) = (ivar("i"), ivar("vi"), ivar("vj"));
    let blk = copy_block("e_dup", &a, &b, ix(&[&vi, &vj]), ix(&[&vi, &vj]))
        .spatial(&vi, 128, e(&i))
        .spatial(&vj, 128, e(&i))
        .body(copy(ix(&[&vi, &vj]), ix(&[&vi, &vj])));
    out.push(for_(&i, i32c(128), blk));

    let (i, vi) = (ivar("i"), ivar("vi"));
    let blk = copy_block(
        "f_min",
        &a,
        &b,
        vec![e(&vi), i32c(0)],
        vec![e(&vi), i32c(0)],
    )
    .iter_dom(&vi, IterKind::Spatial, rng(i32c(2), i32c(8)), e(&i))
    .body(copy(vec![e(&vi), i32c(0)], vec![e(&vi), i32c(0)]));
    out.push(for_range(&i, i32c(2), i32c(8), ForKind::Serial, blk));

    let (i, vi, vj) = (ivar("i"), ivar("vi"), ivar("vj"));
    let blk = copy_block("g_opaque", &a, &b, ix(&[&vi, &vj]), vec![e(&vi), i32c(0)])
        .iter(&vi, IterKind::Opaque, i32c(8), e(&i))
        .iter(&vj, IterKind::Scan, i32c(8), e(&i))
        .body(copy(ix(&[&vi, &vj]), vec![e(&vi), i32c(0)]));
    out.push(for_(&i, i32c(8), blk));

    let (i, vk, vi) = (ivar("i"), ivar("vk"), ivar("vi"));
    let blk = copy_block(
        "h_first_nonremap",
        &a,
        &b,
        ix(&[&vi, &vk]),
        vec![e(&vi), i32c(0)],
    )
    .spatial(&vk, 16, mul(e(&i), i32c(2)))
    .spatial(&vi, 8, e(&i))
    .body(copy(ix(&[&vi, &vk]), vec![e(&vi), i32c(0)]));
    out.push(for_(&i, i32c(8), blk));

    let i = ivar("i");
    let blk = copy_block(
        "h_noiter",
        &a,
        &b,
        vec![e(&i), i32c(0)],
        vec![e(&i), i32c(0)],
    )
    .body(copy(vec![e(&i), i32c(0)], vec![e(&i), i32c(0)]));
    out.push(for_(&i, i32c(8), blk));

    let vi = ivar("vi");
    let blk = copy_block(
        "i_const",
        &a,
        &b,
        vec![e(&vi), i32c(0)],
        vec![e(&vi), i32c(0)],
    )
    .spatial(&vi, 8, i32c(3))
    .body(copy(vec![e(&vi), i32c(0)], vec![e(&vi), i32c(0)]));
    out.push(blk);

    let f = func(
        vec![Param::Buf(a), Param::Buf(b)],
        root(vec![], seq(out)),
        Default::default(),
    );
    let f = public(f, "remap");
    let tvm = include_str!("../data/printer/remap.tvm.txt");
    assert_eq!(
        print_prim_func(&f, "remap", &PrintOptions::new(Dialect::Tirx)),
        tvm
    );
    assert_eq!(
        print_prim_func(&f, "remap", &PrintOptions::new(Dialect::Block)),
        tirx_to_block_dialect(tvm)
    );
}

fn buffers_func() -> PrimFunc {
    let a = scoped(buf("A", "float16", &[16, 16]), "shared");
    let b = buf("B", "float32", &[16, 16]).derive(|n| n.strides = vec![i32c(32), i32c(1)]);
    let c = buf("C", "float32", &[16]).derive(|n| {
        n.elem_offset = i32c(4);
        n.offset_factor = 4;
        n.align = 32;
    });
    let ebuf = buf("E", "float32", &[4, 4]).derive(|n| {
        n.scope = "local".into();
        n.align = 16;
    });
    // TVM's parser gives a match_buffer with `offset_factor` a fresh offset variable.
    let fbuf = buf("F", "float16", &[16]).derive(|n| {
        n.scope = "shared".into();
        n.elem_offset = ivar("F_elem_offset").to_expr();
    });
    let (i, vi) = (ivar("i"), ivar("vi"));
    let e00 = || vec![i32c(0), i32c(0)];
    let blk = block("b")
        .spatial(&vi, 16, e(&i))
        .reads(vec![
            at(&a, vec![e(&vi), i32c(0)]),
            at(&ebuf, e00()),
            at(&c, ix(&[&vi])),
        ])
        .writes(vec![at(&ebuf, e00()), at(&b, vec![e(&vi), i32c(0)])])
        .match_buffer(
            &fbuf,
            region(&a, vec![point(e(&vi)), rng(i32c(0), i32c(16))]),
        )
        .body(seq(vec![
            store(
                &ebuf,
                e00(),
                Expr::cast(DataType::f32(), load(&fbuf, vec![i32c(0)])),
            ),
            store(
                &b,
                vec![e(&vi), i32c(0)],
                add(load(&ebuf, e00()), load(&c, ix(&[&vi]))),
            ),
        ]));
    func(
        vec![Param::Buf(a), Param::Buf(b), Param::Buf(c)],
        root(vec![ebuf], for_(&i, i32c(16), blk)),
        Default::default(),
    )
}

#[test]
fn buffer_options_match_tvm() {
    let f = public(buffers_func(), "buffers");
    let tvm = include_str!("../data/printer/buffers.tvm.txt");
    assert_eq!(
        print_prim_func(&f, "buffers", &PrintOptions::new(Dialect::Tirx)),
        tvm
    );
    assert_eq!(
        print_prim_func(&f, "buffers", &PrintOptions::new(Dialect::Block)),
        tirx_to_block_dialect(tvm)
    );
}

#[test]
fn free_variables_are_declared_where_tvm_declares_them() {
    // tests/data/printer/odd.py: IR built with TVM's API, with a buffer and
    // variables used but never defined, and an expression let.
    let x = var("x", DataType::f32());
    let w = var("w", DataType::f32());
    let (n, m, k, i) = (ivar("n"), ivar("m"), ivar("k"), ivar("i"));
    let a = buf("A", "float32", &[8]);
    let let_expr = Expr::new(
        ExprKind::Let {
            var: w.clone(),
            value: mul(e(&x), e(&x)),
            body: add(e(&w), e(&w)),
        },
        DataType::f32(),
        Default::default(),
    );
    let body = seq(vec![
        store(&a, vec![i32c(0)], let_expr),
        evaluate(e(&n)),
        for_(
            &i,
            e(&k),
            seq(vec![evaluate(e(&m)), evaluate(add(e(&m), e(&i)))]),
        ),
        evaluate(e(&m)),
        evaluate(call(Intrinsic::Exp, vec![e(&x)], DataType::f32())),
        evaluate(call(
            Intrinsic::IfThenElse,
            vec![gt(e(&n), i32c(0)), e(&x), mul(e(&x), e(&x))],
            DataType::f32(),
        )),
        evaluate(i32c(0)),
    ]);
    let f = public(
        func(
            vec![Param::Scalar(x), Param::Scalar(n)],
            body,
            Default::default(),
        ),
        "odd",
    );
    // TVM declares `k`, used only by the loop's extent, inside the loop body
    // (after its use, which does not parse); we declare it before the loop.
    let tvm = include_str!("../data/printer/odd.tvm.txt").replace(
        "    m = T.int32()\n    for i in range(k):\n        k = T.int32()\n",
        "    k = T.int32()\n    m = T.int32()\n    for i in range(k):\n",
    );
    assert_eq!(
        print_prim_func(&f, "odd", &PrintOptions::new(Dialect::Tirx)),
        tvm
    );
}

#[test]
fn private_functions_have_no_global_symbol() {
    // TVM 0.27 prints `@T.prim_func(private=True, s_tir=True)` for
    // `helper` below and `@T.prim_func(private=True)` for a private
    // function written without `s_tir`.
    let a = buf("A", "float32", &[8]);
    let (i, vi) = (ivar("i"), ivar("vi"));
    let blk = block("b")
        .spatial(&vi, 8, e(&i))
        .writes(vec![at(&a, vec![e(&vi)])])
        .body(store(&a, vec![e(&vi)], f32c(0.0)));
    let helper = func(
        vec![Param::Buf(a)],
        root(vec![], for_(&i, i32c(8), blk)),
        Default::default(),
    );
    let tirx = print_prim_func(&helper, "helper", &PrintOptions::new(Dialect::Tirx));
    assert!(
        tirx.contains("\n@T.prim_func(private=True, s_tir=True)\ndef helper("),
        "{tirx}"
    );
    let course = print_prim_func(&helper, "helper", &PrintOptions::new(Dialect::Block));
    assert!(
        course.contains("\n@T.prim_func(private=True)\ndef helper("),
        "{course}"
    );
    let public = public(helper, "helper");
    let course = print_prim_func(&public, "helper", &PrintOptions::new(Dialect::Block));
    assert!(course.contains("\n@T.prim_func\ndef helper("), "{course}");
}
