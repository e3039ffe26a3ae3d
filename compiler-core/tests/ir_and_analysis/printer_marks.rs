//! Fragments (`print_expr`, `print_stmt`) and marked statements, for
//! diagnostics and schedule error messages.

use crate::printer_support;

use compiler_core::ir::*;
use compiler_core::tvmscript::printer::*;
use printer_support::*;
use tessel_test_support::expect;

struct VecAdd {
    func: PrimFunc,
    outer: Stmt,
    middle: Stmt,
    block: Stmt,
    store: Stmt,
    i1: Var,
}

/// The split vector add: `for i_0, i_1, i_2 in T.grid(8, 4, 4)`.
fn vec_add() -> VecAdd {
    let a = buf("A", "float32", &[128]);
    let c = buf("C", "float32", &[128]);
    let (i0, i1, i2, vi) = (ivar("i_0"), ivar("i_1"), ivar("i_2"), ivar("vi"));
    let store = store(&c, vec![e(&vi)], add(load(&a, vec![e(&vi)]), f32c(1.0)));
    let blk = block("C")
        .spatial(
            &vi,
            128,
            add(add(mul(e(&i0), i32c(16)), mul(e(&i1), i32c(4))), e(&i2)),
        )
        .reads(vec![at(&a, vec![e(&vi)])])
        .writes(vec![at(&c, vec![e(&vi)])])
        .body(store.clone());
    let inner = for_(&i2, i32c(4), blk.clone());
    let middle = for_(&i1, i32c(4), inner);
    let outer = for_(&i0, i32c(8), middle.clone());
    let func = public(
        func(
            vec![Param::Buf(a), Param::Buf(c)],
            root(vec![], outer.clone()),
            Default::default(),
        ),
        "main",
    );
    VecAdd {
        func,
        outer,
        middle,
        block: blk,
        store,
        i1,
    }
}

fn tir(opts: PrintOptions) -> PrintOptions {
    opts.without_header()
}

#[test]
fn print_expr_names_distinct_variables_apart() {
    let (i0, i1, i2) = (ivar("i_0"), ivar("i_1"), ivar("i_2"));
    let x = add(add(mul(e(&i0), i32c(16)), mul(e(&i1), i32c(4))), e(&i2));
    assert_eq!(print_expr(&x), "i_0 * 16 + i_1 * 4 + i_2");
    let (a, b) = (ivar("i"), ivar("i"));
    assert_eq!(print_expr(&sub(e(&a), e(&b))), "i - i_1");
    let y = max(
        load(&buf("Y", "float32", &[4, 4]), vec![e(&a), e(&a)]),
        f32c(0.0),
    );
    assert_eq!(print_expr(&y), "T.max(Y[i, i], T.float32(0.0))");
    assert_eq!(
        print_expr(&Expr::cast(DataType::f32(), e(&a))),
        "T.Cast(\"float32\", i)"
    );
}

#[test]
fn print_stmt_fragments() {
    let v = vec_add();
    // A block alone: its bindings name loop variables it cannot see.
    expect![[r#"
        with T.block("C"):
            vi = T.axis.spatial(128, i_0 * 16 + i_1 * 4 + i_2)
            T.reads(A[vi])
            T.writes(C[vi])
            C[vi] = A[vi] + T.float32(1.0)"#]]
    .assert_eq(&print_stmt(&v.block, &PrintOptions::default()));
    expect![[r#"
        for i_1, i_2 in T.grid(4, 4):
            with T.sblock("C"):
                vi = T.axis.spatial(128, i_0 * 16 + i_1 * 4 + i_2)
                T.reads(A[vi])
                T.writes(C[vi])
                C[vi] = A[vi] + T.float32(1.0)"#]]
    .assert_eq(&print_stmt(&v.middle, &PrintOptions::new(Dialect::Tirx)));
    assert_eq!(
        print_stmt(&v.store, &PrintOptions::default()),
        "C[vi] = A[vi] + T.float32(1.0)"
    );
}

#[test]
fn print_region_and_range() {
    let a = buf("A", "float32", &[128, 128]);
    let vi = ivar("vi");
    let r = region(
        &a,
        vec![rng(mul(e(&vi), i32c(4)), i32c(4)), rng(i32c(0), i32c(128))],
    );
    assert_eq!(print_buffer_region(&r), "A[vi * 4:vi * 4 + 4, 0:128]");
    assert_eq!(print_range(&point(e(&vi))), "vi");
}

#[test]
fn mark_a_block_with_a_comment() {
    let v = vec_add();
    let opts = tir(PrintOptions::default()).with_mark(Mark::stmt(&v.block));
    expect![[r#"
        @T.prim_func
        def main(A: T.Buffer((128,), "float32"), C: T.Buffer((128,), "float32")):
            # with T.block("root"):
            for i_0, i_1, i_2 in T.grid(8, 4, 4):
                with T.block("C"):  # <-- here
                    vi = T.axis.spatial(128, i_0 * 16 + i_1 * 4 + i_2)
                    T.reads(A[vi])
                    T.writes(C[vi])
                    C[vi] = A[vi] + T.float32(1.0)"#]]
    .assert_eq(&print_prim_func(&v.func, "main", &opts));
    // The same by name, with a label.
    let opts = tir(PrintOptions::default())
        .with_mark(Mark::block("C").with_label("block `C` is not a reduction block"));
    let text = print_prim_func(&v.func, "main", &opts);
    assert!(text.contains("with T.block(\"C\"):  # <-- block `C` is not a reduction block\n"));
}

#[test]
fn mark_a_loop_inside_a_grid_with_carets() {
    let v = vec_add();
    let print = |mark: Mark| {
        let opts = tir(PrintOptions::default()).with_mark(mark.underline().with_label("this loop"));
        print_prim_func(&v.func, "main", &opts)
    };
    let by_node = print(Mark::stmt(&v.middle));
    assert_eq!(by_node, print(Mark::loop_var(&v.i1)));
    expect![[r#"
        @T.prim_func
        def main(A: T.Buffer((128,), "float32"), C: T.Buffer((128,), "float32")):
            # with T.block("root"):
            for i_0, i_1, i_2 in T.grid(8, 4, 4):
                     ^^^ this loop
                with T.block("C"):
                    vi = T.axis.spatial(128, i_0 * 16 + i_1 * 4 + i_2)
                    T.reads(A[vi])
                    T.writes(C[vi])
                    C[vi] = A[vi] + T.float32(1.0)"#]]
    .assert_eq(&by_node);
    // The first loop of a grid: carets under its variable.
    let opts = PrintOptions::default().with_mark(Mark::stmt(&v.outer).underline().with_label(""));
    let text = print_stmt(&v.outer, &opts);
    assert!(
        text.starts_with("for i_0, i_1, i_2 in T.grid(8, 4, 4):\n    ^^^\n"),
        "{text}"
    );
    // A fragment from the middle loop folds the rest of the nest.
    let opts = PrintOptions::default().with_mark(Mark::stmt(&v.middle).underline().with_label(""));
    let text = print_stmt(&v.middle, &opts);
    assert!(
        text.starts_with("for i_1, i_2 in T.grid(4, 4):\n    ^^^\n"),
        "{text}"
    );
    // A loop on its own line: carets under the whole line.
    let a = buf("A", "float32", &[4]);
    let j = ivar("j");
    let lp = for_kind(
        &j,
        i32c(4),
        ForKind::Parallel,
        store(&a, vec![e(&j)], f32c(0.0)),
    );
    let opts = PrintOptions::default().with_mark(
        Mark::stmt(&lp)
            .underline()
            .with_label("not a reduction loop"),
    );
    expect![[r#"
        for j in T.parallel(4):
        ^^^^^^^^^^^^^^^^^^^^^^^ not a reduction loop
            A[j] = T.float32(0.0)"#]]
    .assert_eq(&print_stmt(&lp, &opts));
}

#[test]
fn mark_by_predicate_and_several_marks() {
    let v = vec_add();
    let opts = tir(PrintOptions::default())
        .with_mark(Mark::predicate(|s| matches!(s.kind(), StmtKind::Store { .. })).underline())
        .with_mark(Mark::stmt(&v.outer).with_label("outer"));
    expect![[r#"
        @T.prim_func
        def main(A: T.Buffer((128,), "float32"), C: T.Buffer((128,), "float32")):
            # with T.block("root"):
            for i_0, i_1, i_2 in T.grid(8, 4, 4):  # <-- outer
                with T.block("C"):
                    vi = T.axis.spatial(128, i_0 * 16 + i_1 * 4 + i_2)
                    T.reads(A[vi])
                    T.writes(C[vi])
                    C[vi] = A[vi] + T.float32(1.0)
                    ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^ here"#]]
    .assert_eq(&print_prim_func(&v.func, "main", &opts));
}

#[test]
fn mark_the_root_block_and_a_sequence() {
    let v = vec_add();
    let opts = tir(PrintOptions::default()).with_mark(Mark::stmt(&v.func.body));
    let text = print_prim_func(&v.func, "main", &opts);
    assert!(
        text.contains("    # with T.block(\"root\"):  # <-- here\n"),
        "{text}"
    );

    let a = buf("A", "float32", &[4]);
    let s1 = store(&a, vec![i32c(0)], f32c(1.0));
    let s2 = store(&a, vec![i32c(1)], f32c(2.0));
    let both = seq(vec![s1, s2]);
    let opts = PrintOptions::default().with_mark(Mark::stmt(&both));
    expect![[r#"
        A[0] = T.float32(1.0)  # <-- here
        A[1] = T.float32(2.0)"#]]
    .assert_eq(&print_stmt(&both, &opts));
}
