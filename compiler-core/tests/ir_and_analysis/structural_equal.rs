//! Structural equality with TVM's semantics (confirmed against TVM 0.27).

use crate::verify_support;

use std::collections::BTreeMap;

use compiler_core::analysis::structural_equal::{
    assert_structural_equal, expr_equal, prim_func_equal, stmt_equal, structural_equal,
    EqualOptions, Mismatch,
};
use compiler_core::ir::*;
use tessel_test_support::expect;
use verify_support::*;

fn err(r: Result<(), Mismatch>) -> String {
    match r {
        Ok(()) => "equal".to_string(),
        Err(m) => m.to_string(),
    }
}

#[test]
fn same_program_built_twice_is_equal() {
    let mut ir = Ir::new();
    let f = mm_relu(&mut ir, "Y", false);
    let g = mm_relu(&mut ir, "Y", false);
    assert_eq!(prim_func_equal(&f, &g), Ok(()));
    let m1 = IRModule::from_prim_func("mm_relu", f);
    let m2 = IRModule::from_prim_func("mm_relu", g);
    assert_eq!(structural_equal(&m1, &m2), Ok(()));
}

#[test]
fn block_names_are_ignored_like_tvm() {
    let mut ir = Ir::new();
    let f = mm_relu(&mut ir, "Y", false);
    let g = mm_relu(&mut ir, "renamed", false);
    assert_eq!(prim_func_equal(&f, &g), Ok(()));
    let opts = EqualOptions {
        compare_block_names: true,
        ..Default::default()
    };
    expect![[r#"at func.body.block("root").body[0].body.body.body.block("Y").name_hint: lhs `Y` vs rhs `renamed`: block names differ"#]]
    .assert_eq(&err(assert_structural_equal(&f, &g, opts)));
}

#[test]
fn swapped_indices_are_reported_at_the_load() {
    let mut ir = Ir::new();
    let f = IRModule::from_prim_func("main", mm_relu(&mut ir, "Y", false));
    let g = IRModule::from_prim_func("main", mm_relu(&mut ir, "Y", true));
    // Like TVM, the read regions are compared before the body.
    expect![[r#"at mod["main"].body.block("root").body[0].body.body.body.block("Y").reads[1].region[0].min: lhs `vi` vs rhs `vk`: lhs `vi` corresponds to rhs `vi`, not `vk`"#]]
    .assert_eq(&err(structural_equal(&f, &g)));

    // Without the regions, the body's load is the first difference.
    let strip = |f: &IRModule| {
        let p = f.get_prim("main").unwrap();
        let body = compiler_core::ir::mutate::Mutator::stmt(&mut StripRegions, &p.body);
        IRModule::from_prim_func("main", p.with_body(body))
    };
    expect![[r#"at mod["main"].body.block("root").body[0].body.body.body.block("Y").body.value.b.a: lhs `A[vi, vk]` vs rhs `A[vk, vi]`: indices[0]: lhs `vi` corresponds to rhs `vi`, not `vk`"#]]
    .assert_eq(&err(structural_equal(&strip(&f), &strip(&g))));
}

struct StripRegions;
impl compiler_core::ir::mutate::Mutator for StripRegions {
    fn stmt(&mut self, s: &Stmt) -> Stmt {
        let s = compiler_core::ir::mutate::walk_stmt(self, s);
        if let StmtKind::BlockRealize(r) = s.kind() {
            let mut r = r.clone();
            r.block.reads.clear();
            r.block.writes.clear();
            return Stmt::new(StmtKind::BlockRealize(r), s.span());
        }
        s
    }
}

/// `B[vi] = A[vi] + <c>` over `for i in range(128)`, with knobs.
struct Vec1 {
    kind: ForKind,
    tag: Option<&'static str>,
    loop_ann: Option<i64>,
    block_ann: Option<i64>,
    c: f64,
    iter_kind: IterKind,
    loop_dtype: DataType,
    with_init: bool,
}

impl Default for Vec1 {
    fn default() -> Self {
        Vec1 {
            kind: ForKind::Serial,
            tag: None,
            loop_ann: None,
            block_ann: None,
            c: 1.0,
            iter_kind: IterKind::Spatial,
            loop_dtype: DataType::i32(),
            with_init: false,
        }
    }
}

fn vec1(ir: &mut Ir, o: &Vec1) -> PrimFunc {
    let f32 = DataType::f32();
    let a = ir.buffer("A", &[128], f32);
    let b = ir.buffer("B", &[128], f32);
    let i = Var::new("i", o.loop_dtype);
    let vi = i32v("vi");
    let iv = ir.iter(&vi, 128, o.iter_kind);
    let ei = {
        let e = ir.v(&i);
        Expr::cast(DataType::i32(), e)
    };
    let x = ir.v(&vi);
    let ld = ir.load(&a, vec![x]);
    let c = ir.f32(o.c);
    let sum = ir.add(ld, c);
    let x = ir.v(&vi);
    let st = ir.store(&b, vec![x], sum);
    let mut blk = ir.block("C", vec![(iv, ei)], st);
    if let Some(v) = o.block_ann {
        blk.block()
            .annotations
            .insert("k".into(), AttrValue::Int(v));
    }
    if o.with_init {
        let x = ir.v(&vi);
        let z = ir.f32(0.0);
        blk.block().init = Some(ir.store(&b, vec![x], z));
    }
    let r = ir.realize(blk);
    let mut l = ir.for_kind(&i, 128, o.kind, r);
    if let StmtKind::For(f) = l.kind() {
        let mut f = f.clone();
        f.thread_tag = o.tag.map(String::from);
        if let Some(v) = o.loop_ann {
            f.annotations.insert("x".into(), AttrValue::Int(v));
        }
        l = Stmt::new(StmtKind::For(f), l.span());
    }
    ir.func(&[&a, &b], &[], l)
}

fn cmp_vec1(a: Vec1, b: Vec1) -> String {
    let mut ir = Ir::new();
    let f = vec1(&mut ir, &a);
    let g = vec1(&mut ir, &b);
    err(prim_func_equal(&f, &g))
}

#[test]
fn loop_and_block_fields_are_compared() {
    expect![[r#"at func.body.block("root").body.kind: lhs `for i in range(128)` vs rhs `for i in T.parallel(128)`: loop kinds differ: serial vs parallel"#]]
    .assert_eq(&cmp_vec1(
        Vec1::default(),
        Vec1 {
            kind: ForKind::Parallel,
            ..Default::default()
        },
    ));
    expect![[r#"at func.body.block("root").body.thread_tag: lhs `for i in T.thread_binding(128, thread="threadIdx.x")` vs rhs `for i in T.thread_binding(128, thread="threadIdx.y")`: thread tags differ"#]]
    .assert_eq(&cmp_vec1(
        Vec1 {
            kind: ForKind::ThreadBinding,
            tag: Some("threadIdx.x"),
            ..Default::default()
        },
        Vec1 {
            kind: ForKind::ThreadBinding,
            tag: Some("threadIdx.y"),
            ..Default::default()
        },
    ));
    expect![[r#"at func.body.block("root").body.annotations["x"]: lhs `<missing>` vs rhs `1`: key "x" is only in rhs"#]]
    .assert_eq(&cmp_vec1(
        Vec1::default(),
        Vec1 {
            loop_ann: Some(1),
            ..Default::default()
        },
    ));
    expect![[r#"at func.body.block("root").body.body.block("C").annotations["k"]: lhs `1` vs rhs `2`: values differ"#]]
    .assert_eq(&cmp_vec1(
        Vec1 {
            block_ann: Some(1),
            ..Default::default()
        },
        Vec1 {
            block_ann: Some(2),
            ..Default::default()
        },
    ));
    expect![[r#"at func.body.block("root").body.body.block("C").iter_vars[0].iter_type: lhs `vi = T.axis.spatial` vs rhs `vi = T.axis.reduce`: block iterator kinds differ"#]]
    .assert_eq(&cmp_vec1(
        Vec1::default(),
        Vec1 {
            iter_kind: IterKind::Reduce,
            ..Default::default()
        },
    ));
    expect![[r#"at func.body.block("root").body.loop_var: lhs `i` vs rhs `i`: dtype differs: int32 vs int64"#]]
    .assert_eq(&cmp_vec1(
        Vec1::default(),
        Vec1 {
            loop_dtype: DataType::i64(),
            ..Default::default()
        },
    ));
    expect![[r#"at func.body.block("root").body.body.block("C").init: lhs `with T.sblock("C"): no T.init()` vs rhs `B[vi] = T.float32(0.0)`: only one block has a T.init()"#]]
    .assert_eq(&cmp_vec1(
        Vec1::default(),
        Vec1 {
            with_init: true,
            ..Default::default()
        },
    ));
}

#[test]
fn floats_compare_exactly_but_nan_equals_nan() {
    expect![[r#"at func.body.block("root").body.body.block("C").body.value: lhs `A[vi] + T.float32(1.0)` vs rhs `A[vi] + T.float32(1.0000001)`: b: `T.float32(1.0)` vs `T.float32(1.0000001)`: values differ"#]]
    .assert_eq(&cmp_vec1(
        Vec1::default(),
        Vec1 {
            c: 1.0000001,
            ..Default::default()
        },
    ));
    // TVM: T.float32(0.0) equals T.float32(-0.0); NaN equals NaN.
    let z = Vec1 {
        c: 0.0,
        ..Default::default()
    };
    let nz = Vec1 {
        c: -0.0,
        ..Default::default()
    };
    assert_eq!(cmp_vec1(z, nz), "equal");
    let n1 = Vec1 {
        c: f64::NAN,
        ..Default::default()
    };
    let n2 = Vec1 {
        c: f64::NAN,
        ..Default::default()
    };
    assert_eq!(cmp_vec1(n1, n2), "equal");
}

#[test]
fn function_attrs_and_global_symbol_option() {
    let mut ir = Ir::new();
    let f = mm_relu(&mut ir, "Y", false);
    let mut g = mm_relu(&mut ir, "Y", false);
    g.attrs
        .insert("global_symbol".into(), AttrValue::Str("other".into()));
    expect![[r#"at func.attrs["global_symbol"]: lhs `"mm_relu"` vs rhs `"other"`: values differ"#]]
        .assert_eq(&err(prim_func_equal(&f, &g)));
    let opts = EqualOptions {
        ignore_global_symbol: true,
        ..Default::default()
    };
    assert_eq!(assert_structural_equal(&f, &g, opts), Ok(()));
    g.attrs.remove("tir.noalias");
    expect![[r#"at func.attrs["tir.noalias"]: lhs `True` vs rhs `<missing>`: key "tir.noalias" is only in lhs"#]]
        .assert_eq(&err(assert_structural_equal(&f, &g, opts)));
}

/// `f(a, b)` with `A = match_buffer(a, sa)`, `B = match_buffer(b, sb)` and `B[vi, vj] = A[vi, vj]`.
fn sym_copy(ir: &mut Ir, swap_a: bool, swap_b: bool) -> PrimFunc {
    let n = Var::new("n", DataType::i64());
    let m = Var::new("m", DataType::i64());
    let shape = |ir: &mut Ir, swap: bool| {
        if swap {
            vec![ir.v(&m), ir.v(&n)]
        } else {
            vec![ir.v(&n), ir.v(&m)]
        }
    };
    let sa = shape(ir, swap_a);
    let sb = shape(ir, swap_b);
    let a = ir.buffer_sym("A", sa, DataType::f32());
    let b = ir.buffer_sym("B", sb, DataType::f32());
    let x = ir.e(ExprKind::Int(0), DataType::i64());
    let ld = ir.load(&a, vec![x.clone(), x.clone()]);
    let st = ir.store(&b, vec![x.clone(), x], ld);
    ir.func(&[&a, &b], &[], st)
}

#[test]
fn symbolic_shape_vars_are_defined_in_order() {
    let mut ir = Ir::new();
    let f = sym_copy(&mut ir, false, false);
    let both = sym_copy(&mut ir, true, true);
    let one = sym_copy(&mut ir, false, true);
    // (n, m), (n, m) == (m, n), (m, n): the names are irrelevant.
    assert_eq!(prim_func_equal(&f, &both), Ok(()));
    expect!["at func.buffer_map[1].buffer.shape[0]: lhs `n` vs rhs `m`: lhs `n` corresponds to rhs `n`, not `m`"]
    .assert_eq(&err(prim_func_equal(&f, &one)));
}

#[test]
fn free_variables() {
    let mut ir = Ir::new();
    let x = i32v("x");
    let y = i32v("y");
    let one = ir.i(1);
    let (ex, ey) = (ir.v(&x), ir.v(&y));
    let x1 = ir.add(ex.clone(), one.clone());
    let y1 = ir.add(ey.clone(), one.clone());
    expect![[r#"at expr: lhs `x + 1` vs rhs `y + 1`: a: `x` vs `y`: free variables differ (they are not defined here; use map_free_vars to map them)"#]]
    .assert_eq(&err(expr_equal(&x1, &y1)));
    let map = EqualOptions {
        map_free_vars: true,
        ..Default::default()
    };
    assert_eq!(assert_structural_equal(&x1, &y1, map), Ok(()));
    // The same free variable equals itself without mapping.
    assert_eq!(expr_equal(&x1, &x1), Ok(()));
    let xx = ir.add(ex.clone(), ex.clone());
    let xy = ir.add(ex.clone(), ey.clone());
    expect!["at expr: lhs `x + x` vs rhs `x + y`: b: lhs `x` corresponds to rhs `x`, not `y`"]
        .assert_eq(&err(assert_structural_equal(&xx, &xy, map)));
    let yx = ir.add(ey, ex);
    assert_eq!(assert_structural_equal(&xy, &yx, map), Ok(()));
    // dtype of constants matters.
    let a = ir.i(1);
    let b = ir.i64(1);
    expect!["at expr: lhs `1` vs rhs `T.int64(1)`: dtype differs: int32 vs int64"]
        .assert_eq(&err(expr_equal(&a, &b)));
}

#[test]
fn modules_match_functions_by_name_in_any_order() {
    let mut ir = Ir::new();
    let mk = |ir: &mut Ir, first: &str, second: &str, c: f64| {
        let mut m = IRModule::new();
        let f1 = vec1(ir, &Vec1::default());
        let f2 = vec1(
            ir,
            &Vec1 {
                c,
                ..Default::default()
            },
        );
        if first == "main" {
            m.insert(first, BaseFunc::Prim(f1.into()));
            m.insert(second, BaseFunc::Prim(f2.into()));
        } else {
            m.insert(first, BaseFunc::Prim(f2.into()));
            m.insert(second, BaseFunc::Prim(f1.into()));
        }
        m
    };
    let a = mk(&mut ir, "main", "g", 2.0);
    let b = mk(&mut ir, "g", "main", 2.0);
    assert_eq!(structural_equal(&a, &b), Ok(()));
    let c = mk(&mut ir, "main", "h", 2.0);
    expect![[r#"at mod: lhs `["g", "main"]` vs rhs `["h", "main"]`: function "g" is only in lhs"#]]
        .assert_eq(&err(structural_equal(&a, &c)));
    let d = mk(&mut ir, "main", "g", 3.0);
    expect![[r#"at mod["g"].body.block("root").body.body.block("C").body.value: lhs `A[vi] + T.float32(2.0)` vs rhs `A[vi] + T.float32(3.0)`: b: `T.float32(2.0)` vs `T.float32(3.0)`: values differ"#]]
    .assert_eq(&err(structural_equal(&a, &d)));
}

#[test]
fn allocation_order_matters_through_uses() {
    // X, Y allocated in one order on the left and the other on the right:
    // definitions map X<->Y, so the first use shows the swap (as in TVM).
    let mut ir = Ir::new();
    let build = |ir: &mut Ir, swap: bool| {
        let f32 = DataType::f32();
        let a = ir.buffer("A", &[128], f32);
        let x = ir.buffer("X", &[128], f32);
        let y = ir.buffer("Y", &[128], f32);
        let z = ir.i(0);
        let ld = ir.load(&a, vec![z.clone()]);
        let s1 = ir.store(&x, vec![z.clone()], ld);
        let ld = ir.load(&x, vec![z.clone()]);
        let s2 = ir.store(&y, vec![z.clone()], ld);
        let body = ir.seq(vec![s1, s2]);
        if swap {
            ir.func(&[&a], &[&y, &x], body)
        } else {
            ir.func(&[&a], &[&x, &y], body)
        }
    };
    let f = build(&mut ir, false);
    let g = build(&mut ir, true);
    expect![[r#"at func.body.block("root").body[0]: lhs `X[0] = A[0]` vs rhs `X[0] = A[0]`: buffer: lhs buffer `X` corresponds to rhs `Y`, not `X`"#]]
    .assert_eq(&err(prim_func_equal(&f, &g)));
}

#[test]
fn buffer_fields_are_compared() {
    let mut ir = Ir::new();
    let build = |ir: &mut Ir, edit: &dyn Fn(&mut BufferNode)| {
        let a = ir.buffer("A", &[128], DataType::f32());
        let x = ir.buffer("X", &[128], DataType::f32()).derive(edit);
        let z = ir.i(0);
        let ld = ir.load(&a, vec![z.clone()]);
        let s = ir.store(&x, vec![z], ld);
        ir.func(&[&a], &[&x], s)
    };
    let base = build(&mut ir, &|_| {});
    type Edit = Box<dyn Fn(&mut BufferNode)>;
    let cases: Vec<(&str, Edit)> = vec![
        ("scope", Box::new(|n| n.scope = "shared".into())),
        ("align", Box::new(|n| n.align = 128)),
        ("offset_factor", Box::new(|n| n.offset_factor = 4)),
        ("strides", Box::new(|n| n.strides = vec![Expr::i32(1)])),
        ("elem_offset", Box::new(|n| n.elem_offset = Expr::i32(4))),
        ("dtype", Box::new(|n| n.dtype = DataType::float(16))),
        ("name (ignored)", Box::new(|n| n.name = "Other".into())),
    ];
    let mut out = String::new();
    for (what, edit) in cases {
        let g = build(&mut ir, &*edit);
        out.push_str(&format!("{what}: {}\n", err(prim_func_equal(&base, &g))));
    }
    expect![[r#"
        scope: at func.body.block("root").alloc_buffers[0].scope: lhs `global` vs rhs `shared`: buffer scope differs
        align: at func.body.block("root").alloc_buffers[0].align: lhs `64` vs rhs `128`: buffer alignment differs
        offset_factor: at func.body.block("root").alloc_buffers[0].offset_factor: lhs `1` vs rhs `4`: buffer offset_factor differs
        strides: at func.body.block("root").alloc_buffers[0].strides[0]: lhs `<missing>` vs rhs `1`: different number of strides: 0 vs 1
        elem_offset: at func.body.block("root").alloc_buffers[0].elem_offset: lhs `0` vs rhs `4`: values differ
        dtype: at func.body.block("root").alloc_buffers[0].dtype: lhs `X: T.Buffer((128,), "float32")` vs rhs `X: T.Buffer((128,), "float16")`: buffer dtype differs: float32 vs float16
        name (ignored): equal
    "#]]
    .assert_eq(&out);
}

#[test]
fn sequence_length_and_statement_kinds() {
    let mut ir = Ir::new();
    let a = ir.buffer("A", &[4], DataType::f32());
    let z = ir.i(0);
    let one = ir.f32(1.0);
    let s1 = ir.store(&a, vec![z.clone()], one.clone());
    let s2 = ir.store(&a, vec![z.clone()], one.clone());
    let ev = ir.s(StmtKind::Evaluate(z.clone()));
    let two = ir.seq(vec![s1.clone(), s2.clone()]);
    let three = ir.seq(vec![s1.clone(), s2.clone(), s1.clone()]);
    expect!["at stmt[2]: lhs `<missing>` vs rhs `A[0] = T.float32(1.0)`: different number of statements: 2 vs 3"]
        .assert_eq(&err(stmt_equal(&two, &three)));
    let other = ir.seq(vec![s1.clone(), ev]);
    expect!["at stmt[1]: lhs `A[0] = T.float32(1.0)` vs rhs `T.evaluate(0)`: statement kinds differ: buffer store vs evaluate"]
        .assert_eq(&err(stmt_equal(&two, &other)));
}

#[test]
fn mismatch_display_and_fields() {
    let mut ir = Ir::new();
    let a = ir.i(1);
    let b = ir.i(2);
    let m = expr_equal(&a, &b).unwrap_err();
    assert_eq!(m.path, "expr");
    assert_eq!(m.lhs, "1");
    assert_eq!(m.rhs, "2");
    assert_eq!(m.message, "values differ");
    assert_eq!(m.to_string(), "at expr: lhs `1` vs rhs `2`: values differ");
}

#[test]
fn annotations_with_nested_values() {
    let mut ir = Ir::new();
    let o1 = Vec1 {
        block_ann: Some(1),
        ..Default::default()
    };
    let mut f = vec1(&mut ir, &o1);
    let mut g = vec1(&mut ir, &o1);
    let nested = |x: i64| {
        let mut m = BTreeMap::new();
        m.insert(
            "inner".to_string(),
            AttrValue::Array(vec![AttrValue::Int(1), AttrValue::Int(x)]),
        );
        AttrValue::Map(m)
    };
    f.attrs.insert("meta".into(), nested(2));
    g.attrs.insert("meta".into(), nested(3));
    expect![[r#"at func.attrs["meta"]["inner"][1]: lhs `2` vs rhs `3`: values differ"#]]
        .assert_eq(&err(prim_func_equal(&f, &g)));
}

/// Deep IR is compared without recursion. (The trees are leaked at the end:
/// dropping a 200 000-deep `Rc` chain is itself recursive and not what is tested.)
#[test]
fn deep_ir_does_not_overflow_the_stack() {
    const DEPTH: usize = 200_000;
    let mut ir = Ir::new();
    let x = i32v("x");
    let y = i32v("y");
    let chain = |ir: &mut Ir, v: &Var| {
        let mut e = ir.v(v);
        for _ in 0..DEPTH {
            let one = ir.i(1);
            e = ir.add(e, one);
        }
        e
    };
    let a = chain(&mut ir, &x);
    let b = chain(&mut ir, &x);
    let c = chain(&mut ir, &y);
    assert_eq!(expr_equal(&a, &b), Ok(()));
    let m = expr_equal(&a, &c).unwrap_err();
    assert!(m.path.starts_with("expr.a.a.a"), "{}", m.path);
    assert!(m.path.contains("more)…"), "{}", m.path);
    assert_eq!((m.lhs.as_str(), m.rhs.as_str()), ("x + 1", "y + 1"));

    // Deeply nested loops.
    let buf = ir.buffer("A", &[1], DataType::f32());
    let nest = |ir: &mut Ir, c: f64| {
        let z = ir.i(0);
        let v = ir.f32(c);
        let mut s = ir.store(&buf, vec![z], v);
        for _ in 0..DEPTH / 2 {
            let i = i32v("i");
            s = ir.for_(&i, 2, s);
        }
        s
    };
    let s1 = nest(&mut ir, 1.0);
    let s2 = nest(&mut ir, 1.0);
    let s3 = nest(&mut ir, 2.0);
    assert_eq!(stmt_equal(&s1, &s2), Ok(()));
    let m = stmt_equal(&s1, &s3).unwrap_err();
    assert_eq!(m.lhs, "A[0] = T.float32(1.0)");
    std::mem::forget((a, b, c, s1, s2, s3));
}

mod prop {
    use super::*;
    use proptest::prelude::*;

    /// A random integer expression over `vars`, described by a list of choices.
    fn build(ir: &mut Ir, vars: &[Var], ops: &[(u8, i64)]) -> Expr {
        let mut stack: Vec<Expr> = Vec::new();
        for &(op, c) in ops {
            let e = match (op % 6, stack.len()) {
                (0, _) | (_, 0) => ir.v(&vars[(c.unsigned_abs() as usize) % vars.len()]),
                (1, _) => ir.i(c),
                (2, n) if n >= 2 => {
                    let b = stack.pop().unwrap();
                    let a = stack.pop().unwrap();
                    ir.add(a, b)
                }
                (3, n) if n >= 2 => {
                    let b = stack.pop().unwrap();
                    let a = stack.pop().unwrap();
                    ir.mul(a, b)
                }
                (4, _) => {
                    let a = stack.pop().unwrap();
                    let k = ir.i(c);
                    ir.bin(BinOp::FloorDiv, a, k)
                }
                _ => ir.i(c),
            };
            stack.push(e);
        }
        let mut e = stack.pop().unwrap_or_else(|| ir.i(0));
        while let Some(x) = stack.pop() {
            e = ir.add(x, e);
        }
        e
    }

    proptest! {
        /// Renaming every variable (fresh ones with other names) keeps expressions
        /// equal under map_free_vars; changing one constant breaks equality.
        #[test]
        fn renaming_preserves_equality(ops in proptest::collection::vec((0u8..6, -5i64..5), 1..40)) {
            let mut ir = Ir::new();
            let vs: Vec<Var> = (0..3).map(|k| i32v(&format!("v{k}"))).collect();
            let ws: Vec<Var> = (0..3).map(|k| i32v(&format!("w{k}"))).collect();
            let a = build(&mut ir, &vs, &ops);
            let b = build(&mut ir, &ws, &ops);
            let map = EqualOptions { map_free_vars: true, ..Default::default() };
            prop_assert_eq!(assert_structural_equal(&a, &b, map), Ok(()));
            prop_assert_eq!(expr_equal(&a, &a), Ok(()));
            let mut changed = ops.clone();
            changed.push((1, 7));
            let c = build(&mut ir, &ws, &changed);
            prop_assert!(assert_structural_equal(&a, &c, map).is_err());
        }
    }
}

/// Parses a one-function TVMScript program.
fn parse_func(src: &str) -> IRModule {
    compiler_core::tvmscript::builder::parse_script(src)
        .expect("test program parses")
        .to_module()
}

fn scale_program(first: &str, second: &str, b_shape: &str) -> String {
    format!(
        r#"from tvm.script import tir as T
@T.prim_func
def main(a: T.handle, b: T.handle):
    {first}
    {second}
    for i in range(16):
        with T.block("B"):
            vi = T.axis.spatial(16, i)
            B[vi] = A[vi] * T.float32(3)
"#,
        first = first,
        second = second,
    )
    .replace("SHAPE", b_shape)
}

#[test]
fn buffer_map_is_matched_by_parameter_like_tvm() {
    // TVM keys a function's buffer map by parameter: the order of the
    // `T.match_buffer` statements does not matter (TVM 0.27 agrees).
    let a_first = scale_program(
        "A = T.match_buffer(a, (16,))",
        "B = T.match_buffer(b, SHAPE)",
        "(16,)",
    );
    let b_first = scale_program(
        "B = T.match_buffer(b, SHAPE)",
        "A = T.match_buffer(a, (16,))",
        "(16,)",
    );
    let (x, y) = (parse_func(&a_first), parse_func(&b_first));
    assert_eq!(structural_equal(&x, &y), Ok(()));
    // The buffers still must match: a different shape for `b`'s buffer is
    // found whatever the statement order.
    let b_first_wider = scale_program(
        "B = T.match_buffer(b, SHAPE)",
        "A = T.match_buffer(a, (16,))",
        "(32,)",
    );
    let z = parse_func(&b_first_wider);
    let e = err(structural_equal(&x, &z));
    assert!(e.contains("shape"), "{e}");
}
