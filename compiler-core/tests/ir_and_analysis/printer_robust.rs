//! The printer takes any IR a transformation may produce: odd IR prints as
//! something sensible, and nothing panics.

use crate::printer_support;

use compiler_core::ir::*;
use compiler_core::tvmscript::printer::*;
use printer_support::*;
use proptest::prelude::*;
use tessel_test_support::expect;

fn all_dialects(f: &PrimFunc) -> Vec<String> {
    [Dialect::Block, Dialect::SBlock, Dialect::Tirx]
        .into_iter()
        .map(|d| print_prim_func(f, "f", &PrintOptions::new(d)))
        .collect()
}

#[test]
fn odd_names_stay_valid_identifiers() {
    let a = buf("T", "float32", &[4]);
    let names = ["", "for", "1x", "a.b", "I", "i", "i"];
    let vars: Vec<Var> = names.iter().map(|n| ivar(n)).collect();
    let sum = vars
        .iter()
        .skip(1)
        .fold(e(&vars[0]), |acc, v| add(acc, e(v)));
    let body = vars
        .iter()
        .rev()
        .fold(store(&a, vec![sum], f32c(0.0)), |body, v| {
            for_kind(v, i32c(2), ForKind::Parallel, body)
        });
    let f = func(vec![Param::Buf(a)], body, Default::default());
    expect![[r##"
        # from tvm.script import tir as T

        @T.prim_func(private=True)
        def f(T_1: T.Buffer((4,), "float32")):
            for v in T.parallel(2):
                for for_1 in T.parallel(2):
                    for _1x in T.parallel(2):
                        for a_b in T.parallel(2):
                            for I_1 in T.parallel(2):
                                for i in T.parallel(2):
                                    for i_1 in T.parallel(2):
                                        T_1[v + for_1 + _1x + a_b + I_1 + i + i_1] = T.float32(0.0)"##]]
    .assert_eq(&print_prim_func(&f, "f", &PrintOptions::default()));
}

#[test]
fn malformed_blocks_and_loops() {
    let a = buf("A", "float32", &[8]);
    let (i, vi, vj) = (ivar("i"), ivar("vi"), ivar("vj"));
    // Two iterators, one binding; a thread loop without a thread tag; the
    // same loop variable bound twice; an empty sequence; a shared node.
    let mut blk = block("B").spatial(&vi, 8, e(&i)).spatial(&vj, 8, e(&i));
    blk.iter_values.pop();
    let blk = blk
        .init(seq(vec![]))
        .body(store(&a, vec![e(&vi)], f32c(1.0)));
    let inner = for_(&i, i32c(8), blk);
    let tagless = loop_full(
        &i,
        i32c(0),
        i32c(8),
        ForKind::ThreadBinding,
        None,
        Default::default(),
        inner,
    );
    let shared = store(&a, vec![i32c(0)], f32c(2.0));
    let body = root(vec![], seq(vec![tagless, shared.clone(), shared]));
    let f = func(vec![Param::Buf(a)], body, Default::default());
    expect![[r##"
        # from tvm.script import tir as T

        @T.prim_func(private=True)
        def f(A: T.Buffer((8,), "float32")):
            # with T.block("root"):
            for i in T.thread_binding(8, thread=""):
                for i_1 in range(8):
                    with T.block("B"):
                        vi = T.axis.spatial(8, i_1)
                        vj = T.axis.spatial(8)
                        T.reads()
                        T.writes()
                        with T.init():
                            T.evaluate(0)
                        A[vi] = T.float32(1.0)
            A[0] = T.float32(2.0)
            A[0] = T.float32(2.0)"##]]
    .assert_eq(&print_prim_func(&f, "f", &PrintOptions::default()));
}

#[test]
fn odd_buffers() {
    // 0-d buffer, a buffer aliasing another's data, an offset variable, a
    // handle in the buffer map that is not a parameter, a symbolic stride.
    let s = buf_e("S", "float32", vec![]);
    let a = buf("A", "float32", &[16]);
    let alias = a.derive(|n| {
        n.name = "A_view".into();
        n.shape = vec![i32c(4), i32c(4)];
    });
    let alias = Buffer::from_node(BufferNode {
        data: a.data.clone(),
        ..(*alias).clone()
    });
    let off = ivar("off");
    let n = ivar("n");
    let strided = buf("B", "float32", &[4, 4]).derive(|b| {
        b.strides = vec![e(&n), i32c(1)];
        b.elem_offset = e(&off);
    });
    let stray = buf("Z", "float32", &[2]);
    let body = seq(vec![
        store(&s, vec![], load(&alias, vec![i32c(1), i32c(2)])),
        store(
            &strided,
            vec![i32c(0), i32c(0)],
            load(&stray, vec![i32c(1)]),
        ),
    ]);
    let mut f = func(
        vec![
            Param::Buf(s),
            Param::Buf(a),
            Param::Scalar(n.clone()),
            Param::Buf(strided),
        ],
        allocate(&alias, body),
        Default::default(),
    );
    f.buffer_map.push((var("z", DataType::handle()), stray));
    expect![[r##"
        # from tvm.script import tir as T

        @T.prim_func(private=True)
        def f(S: T.Buffer((), "float32"), A: T.Buffer((16,), "float32"), n: T.int32, B: T.Buffer((4, 4), "float32", strides=(n, 1), offset_factor=1)):
            A_view = T.alloc_buffer((4, 4), data=A.data)
            S[()] = A_view[1, 2]
            Z = T.Buffer((2,))
            B[0, 0] = Z[1]"##]]
    .assert_eq(&print_prim_func(&f, "f", &PrintOptions::default()));
}

#[test]
fn odd_expressions() {
    let n = ivar("n");
    let big = Expr::int(i64::MAX, DataType::i64());
    let cases = vec![
        div(i32c(1), i32c(0)),
        add(big.clone(), Expr::i64(1)),
        Expr::int(-1, DataType::uint(64)),
        Expr::float(f64::NAN, DataType::f32()),
        Expr::int(3, DataType::i32().with_lanes(4)),
        Expr::float(0.5, DataType::f32().with_lanes(2)),
        Expr::cast(DataType::float(16).with_lanes(4), broadcast(e(&n), 4)),
        call(
            Intrinsic::Other("tvm_warp_shuffle".into()),
            vec![e(&n), str_expr("a\"b\n")],
            DataType::i32(),
        ),
        Expr::logical_not(Expr::and(boolc(true), boolc(false))),
        Expr::select(boolc(true), e(&n), e(&n)),
        ramp(e(&n), e(&n), 4),
        load(&buf("A", "float32", &[4]), vec![]),
    ];
    let printed: Vec<String> = cases.iter().map(print_expr).collect();
    expect![[r#"
        [
            "T.Div(1, 0)",
            "T.Add(T.int64(9223372036854775807), T.int64(1))",
            "T.uint64(18446744073709551615)",
            "T.float32(\"nan\")",
            "T.int32x4(3)",
            "T.float32x2(0.5)",
            "T.Cast(\"float16x4\", T.Broadcast(n, 4))",
            "T.tvm_warp_shuffle(n, \"a\\\"b\\n\")",
            "not T.And(T.bool(True), T.bool(False))",
            "T.Select(T.bool(True), n, n)",
            "T.Ramp(n, n, 4)",
            "A[()]",
        ]
    "#]]
    .assert_debug_eq(&printed);
}

#[test]
fn empty_and_attribute_only_modules() {
    let m = IRModule::new();
    expect![[r#"
        # from tvm.script import ir as I

        @I.ir_module
        class Module:
            pass"#]]
    .assert_eq(&print_module(&m, &PrintOptions::new(Dialect::Tirx)));
    let mut m = IRModule::new();
    m.attrs.insert("x".into(), AttrValue::Int(1));
    m.attrs.insert("a".into(), AttrValue::Str("s".into()));
    let f = func(
        vec![Param::Scalar(ivar("x"))],
        evaluate(e(&ivar("y"))),
        Default::default(),
    );
    m.insert("B", BaseFunc::Prim(std::rc::Rc::new(f)));
    // As TVM 0.27 prints `I.module_attrs({"x": 1, "a": "s"})` in a module.
    expect![[r##"
        # from tvm.script import ir as I
        # from tvm.script import tir as T

        @I.ir_module
        class Module:
            I.module_attrs({"a": "s", "x": 1})
            @T.prim_func(private=True)
            def B(x: T.int32):
                y = T.int32()
                T.evaluate(y)"##]]
    .assert_eq(&print_module(&m, &PrintOptions::default()));
}

// ---------------------------------------------------------------- proptest

fn leaf(vars: Vec<Var>) -> impl Strategy<Value = Expr> {
    prop_oneof![
        (-3i64..300).prop_map(i32c),
        (-3i64..3).prop_map(i64c),
        prop::num::f64::ANY.prop_map(f32c),
        any::<bool>().prop_map(boolc),
        prop::sample::select(vars).prop_map(|v| e(&v)),
    ]
}

fn expr_strategy(vars: Vec<Var>) -> impl Strategy<Value = Expr> {
    let a = buf("A", "float32", &[8, 8]);
    leaf(vars).prop_recursive(5, 48, 3, move |inner| {
        let a = a.clone();
        prop_oneof![
            (0usize..9, inner.clone(), inner.clone()).prop_map(|(k, x, y)| {
                let op = [
                    BinOp::Add,
                    BinOp::Sub,
                    BinOp::Mul,
                    BinOp::Div,
                    BinOp::Mod,
                    BinOp::FloorDiv,
                    BinOp::FloorMod,
                    BinOp::Min,
                    BinOp::Max,
                ][k];
                bin(op, x, y)
            }),
            (0usize..6, inner.clone(), inner.clone()).prop_map(|(k, x, y)| {
                let op = [
                    CmpOp::Eq,
                    CmpOp::Ne,
                    CmpOp::Lt,
                    CmpOp::Le,
                    CmpOp::Gt,
                    CmpOp::Ge,
                ][k];
                cmp(op, x, y)
            }),
            (inner.clone(), inner.clone()).prop_map(|(x, y)| Expr::and(x, y)),
            (inner.clone(), inner.clone()).prop_map(|(x, y)| Expr::or(x, y)),
            inner.clone().prop_map(Expr::logical_not),
            (inner.clone(), inner.clone(), inner.clone())
                .prop_map(|(c, x, y)| Expr::select(c, x, y)),
            inner.clone().prop_map(|x| Expr::cast(DataType::f32(), x)),
            (inner.clone(), inner.clone()).prop_map(move |(x, y)| load(&a, vec![x, y])),
            inner
                .clone()
                .prop_map(|x| call(Intrinsic::Exp, vec![x], DataType::f32())),
        ]
    })
}

fn balanced(s: &str) -> bool {
    let mut depth = 0i64;
    let mut in_str = false;
    let mut escaped = false;
    for c in s.chars() {
        if in_str {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_str = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_str = true,
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            _ => {}
        }
        if depth < 0 {
            return false;
        }
    }
    depth == 0 && !in_str
}

proptest! {
    #[test]
    fn random_ir_prints_without_panicking(
        (value, index, cond) in {
            let vars = vec![ivar("i"), ivar("i"), ivar("n")];
            (expr_strategy(vars.clone()), expr_strategy(vars.clone()), expr_strategy(vars))
        },
        kind in 0usize..5,
        marked in any::<bool>(),
    ) {
        let a = buf("A", "float32", &[8, 8]);
        let i = ivar("i");
        let kinds = [ForKind::Serial, ForKind::Parallel, ForKind::Vectorized, ForKind::Unrolled, ForKind::ThreadBinding];
        let st = store(&a, vec![index.clone(), e(&i)], value.clone());
        let body = if_(cond.clone(), st.clone(), Some(evaluate(value.clone())));
        let lp = loop_full(&i, index.clone(), cond.clone(), kinds[kind], Some("threadIdx.x"), Default::default(), body);
        let blk = block("b").iter(&ivar("vi"), IterKind::Reduce, index.clone(), value.clone())
            .predicate(cond.clone())
            .reads(vec![region(&a, vec![rng(index.clone(), value.clone()), point(cond.clone())])])
            .body(lp.clone());
        let f = func(vec![Param::Buf(a)], root(vec![], seq(vec![blk, st])), Default::default());
        let mut opts = PrintOptions::new(Dialect::Tirx);
        if marked {
            opts = opts.with_mark(Mark::stmt(&lp).underline());
        }
        let text = print_prim_func(&f, "f", &opts);
        prop_assert!(balanced(&text), "{}", text);
        for t in all_dialects(&f) {
            prop_assert!(balanced(&t));
        }
        let x = print_expr(&value);
        prop_assert!(balanced(&x), "{}", x);
    }
}
