//! Whole programs through the interpreter: blocks, reductions, predicates,
//! allocations, symbolic shapes, and the runtime errors.

use crate::eval_support;

use std::collections::HashMap;
use std::time::Instant;

use compiler_core::eval::*;
use compiler_core::ir::*;
use eval_support::*;

fn run(f: &PrimFunc, args: &mut [NDArray]) -> Result<(), EvalError> {
    run_prim_func(f, args, &EvalOptions::default())
}

fn checked() -> EvalOptions {
    EvalOptions {
        check_regions: true,
        ..EvalOptions::default()
    }
}

fn vector_add(n: i64) -> PrimFunc {
    let a = buf("A", f32t(), &[n]);
    let b = buf("B", f32t(), &[n]);
    let c_ = buf("C", f32t(), &[n]);
    let i = var("i");
    let vi = var("vi");
    let mut blk = BlockSpec::new(
        "C",
        store(
            &c_,
            vec![v(&vi)],
            add(load(&a, vec![v(&vi)]), load(&b, vec![v(&vi)])),
        ),
    );
    blk.iters = vec![Iter(vi.clone(), n, IterKind::Spatial, v(&i))];
    blk.reads = vec![point(&a, vec![v(&vi)]), point(&b, vec![v(&vi)])];
    blk.writes = vec![point(&c_, vec![v(&vi)])];
    func(&[&a, &b, &c_], &[], root(vec![], for_(&i, n, blk.build())))
}

#[test]
fn vector_add_matches_rust_loop() {
    let f = vector_add(100);
    let mut args = random_inputs(&f, 1, &HashMap::new()).unwrap();
    assert_eq!(args.len(), 3);
    run_prim_func(&f, &mut args, &checked()).unwrap();
    let (a, b, c) = (&args[0], &args[1], &args[2]);
    let (a, b, c) = (
        a.as_f32_slice().unwrap(),
        b.as_f32_slice().unwrap(),
        c.as_f32_slice().unwrap(),
    );
    for i in 0..100 {
        assert_eq!(c[i], a[i] + b[i]);
    }
}

/// The course's `mm_relu`: `Y = A @ B` with `init` at `k == 0`, then `C = relu(Y)`.
fn mm_relu(n: i64) -> PrimFunc {
    let a = buf("A", f32t(), &[n, n]);
    let b = buf("B", f32t(), &[n, n]);
    let c_ = buf("C", f32t(), &[n, n]);
    let y = buf("Y", f32t(), &[n, n]);
    let (i, j, k) = (var("i"), var("j"), var("k"));
    let (vi, vj, vk) = (var("vi"), var("vj"), var("vk"));
    let yij = || vec![v(&vi), v(&vj)];
    let mut yb = BlockSpec::new(
        "Y",
        store(
            &y,
            yij(),
            add(
                load(&y, yij()),
                mul(
                    load(&a, vec![v(&vi), v(&vk)]),
                    load(&b, vec![v(&vk), v(&vj)]),
                ),
            ),
        ),
    );
    yb.iters = vec![
        Iter(vi.clone(), n, IterKind::Spatial, v(&i)),
        Iter(vj.clone(), n, IterKind::Spatial, v(&j)),
        Iter(vk.clone(), n, IterKind::Reduce, v(&k)),
    ];
    yb.reads = vec![
        point(&a, vec![v(&vi), v(&vk)]),
        point(&b, vec![v(&vk), v(&vj)]),
    ];
    yb.writes = vec![point(&y, yij())];
    yb.init = Some(store(&y, yij(), cf(0.0)));
    let y_loops = for_(&i, n, for_(&j, n, for_(&k, n, yb.build())));

    let (i2, j2) = (var("i"), var("j"));
    let (wi, wj) = (var("vi"), var("vj"));
    let wij = || vec![v(&wi), v(&wj)];
    let mut cb = BlockSpec::new("C", store(&c_, wij(), max(load(&y, wij()), cf(0.0))));
    cb.iters = vec![
        Iter(wi.clone(), n, IterKind::Spatial, v(&i2)),
        Iter(wj.clone(), n, IterKind::Spatial, v(&j2)),
    ];
    cb.reads = vec![point(&y, wij())];
    cb.writes = vec![point(&c_, wij())];
    let c_loops = for_(&i2, n, for_(&j2, n, cb.build()));
    func(
        &[&a, &b, &c_],
        &[],
        root(vec![y], seq(vec![y_loops, c_loops])),
    )
}

fn mm_relu_reference(a: &[f32], b: &[f32], n: usize) -> Vec<f32> {
    let mut c = vec![0f32; n * n];
    for i in 0..n {
        for j in 0..n {
            let mut acc = 0f32;
            for k in 0..n {
                acc += a[i * n + k] * b[k * n + j];
            }
            c[i * n + j] = if acc > 0.0 { acc } else { 0.0 };
        }
    }
    c
}

#[test]
fn mm_relu_128_is_bit_exact() {
    let f = mm_relu(128);
    let mut args = random_inputs(&f, 7, &HashMap::new()).unwrap();
    let compiled = CompiledFunc::new(&f).unwrap();
    let t = Instant::now();
    let stats = compiled.run(&mut args, &EvalOptions::default()).unwrap();
    eprintln!("mm_relu 128^3: {:?}, {} steps", t.elapsed(), stats.steps);
    let expected = mm_relu_reference(
        args[0].as_f32_slice().unwrap(),
        args[1].as_f32_slice().unwrap(),
        128,
    );
    assert_eq!(args[2].as_f32_slice().unwrap(), &expected[..]);
    // Loop iterations (i, j, k of Y; i, j of C) plus stores (init, update, relu).
    let n = 128u64;
    assert_eq!(
        stats.steps,
        (n + n * n + n * n * n) + (n + n * n) + (n * n + n * n * n + n * n)
    );
}

#[test]
fn mm_relu_passes_region_checks() {
    let f = mm_relu(16);
    let mut args = random_inputs(&f, 3, &HashMap::new()).unwrap();
    run_prim_func(&f, &mut args, &checked()).unwrap();
}

/// `S[i] = sum_k A[i, k]` with the reduction split as `vk = k0 * 4 + k1`; the
/// init also counts how often it ran, in `Cnt`.
fn split_reduction(reorder: bool) -> PrimFunc {
    let a = buf("A", f32t(), &[8, 16]);
    let s = buf("S", f32t(), &[8]);
    let cnt = buf("Cnt", i32t(), &[8]);
    let (i, k0, k1) = (var("i"), var("k0"), var("k1"));
    let (vi, vk) = (var("vi"), var("vk"));
    let mut blk = BlockSpec::new(
        "S",
        store(
            &s,
            vec![v(&vi)],
            add(load(&s, vec![v(&vi)]), load(&a, vec![v(&vi), v(&vk)])),
        ),
    );
    blk.iters = vec![
        Iter(vi.clone(), 8, IterKind::Spatial, v(&i)),
        Iter(
            vk.clone(),
            16,
            IterKind::Reduce,
            add(mul(v(&k0), c(4)), v(&k1)),
        ),
    ];
    blk.init = Some(seq(vec![
        store(&s, vec![v(&vi)], cf(0.0)),
        store(&cnt, vec![v(&vi)], add(load(&cnt, vec![v(&vi)]), c(1))),
    ]));
    blk.reads = vec![point(&a, vec![v(&vi), v(&vk)])];
    blk.writes = vec![point(&s, vec![v(&vi)]), point(&cnt, vec![v(&vi)])];
    let body = if reorder {
        for_(&k0, 4, for_(&i, 8, for_(&k1, 4, blk.build())))
    } else {
        for_(&i, 8, for_(&k0, 4, for_(&k1, 4, blk.build())))
    };
    func(&[&a, &s, &cnt], &[], root(vec![], body))
}

#[test]
fn init_runs_once_per_output_with_split_reduction() {
    for reorder in [false, true] {
        let f = split_reduction(reorder);
        let mut args = random_inputs(&f, 11, &HashMap::new()).unwrap();
        // Garbage in the output and a zeroed counter: init must reset S.
        args[1] = NDArray::from_f32(&[8], vec![99.0; 8]).unwrap();
        args[2] = NDArray::zeros(DataType::i32(), &[8]).unwrap();
        run_prim_func(&f, &mut args, &checked()).unwrap();
        assert_eq!(args[2].to_i64_vec(), vec![1; 8], "reorder={reorder}");
        let a = args[0].as_f32_slice().unwrap();
        for i in 0..8 {
            let mut acc = 0f32;
            for k in 0..16 {
                acc += a[i * 16 + k];
            }
            assert_eq!(args[1].as_f32_slice().unwrap()[i], acc);
        }
    }
}

/// `B[vi] = vi * 2` over 10 elements, with `i` split by 4 (3 × 4 = 12
/// iterations) and guarded by `T.where(i0 * 4 + i1 < 10)` when `guard`.
fn split_with_where(guard: bool) -> PrimFunc {
    let b = buf("B", f32t(), &[10]);
    let (i0, i1, vi) = (var("i0"), var("i1"), var("vi"));
    let fused = add(mul(v(&i0), c(4)), v(&i1));
    let body = store(&b, vec![v(&vi)], mul(Expr::cast(f32t(), v(&vi)), cf(2.0)))
        .with_span_for_test(sp(100, 120));
    let mut blk = BlockSpec::new("B", body);
    blk.iters = vec![Iter(vi.clone(), 10, IterKind::Spatial, fused.clone())];
    if guard {
        blk.predicate = Some(lt(fused, c(10)));
    }
    blk.writes = vec![point(&b, vec![v(&vi)])];
    func(
        &[&b],
        &[],
        root(vec![], for_(&i0, 3, for_(&i1, 4, blk.build()))),
    )
}

trait WithSpan {
    fn with_span_for_test(self, span: compiler_core::diag::Span) -> Stmt;
}
impl WithSpan for Stmt {
    fn with_span_for_test(self, span: compiler_core::diag::Span) -> Stmt {
        Stmt::new(self.kind().clone(), span)
    }
}

#[test]
fn where_predicate_guards_the_tail() {
    let f = split_with_where(true);
    let mut args = random_inputs(&f, 2, &HashMap::new()).unwrap();
    run_prim_func(&f, &mut args, &checked()).unwrap();
    let b = args[0].as_f32_slice().unwrap();
    for (i, &x) in b.iter().enumerate() {
        assert_eq!(x, i as f32 * 2.0);
    }
    // Without the predicate the tail stores out of bounds.
    let f = split_with_where(false);
    let mut args = random_inputs(&f, 2, &HashMap::new()).unwrap();
    let e = run(&f, &mut args).unwrap_err();
    assert_eq!(e.span, sp(100, 120));
    assert_eq!(
        e.message,
        "store to B[10] is out of bounds: buffer B has shape [10]"
    );
}

#[test]
fn block_alloc_buffer_is_fresh_and_zeroed_on_every_entry() {
    // for i: block "row" (alloc T[4]): for j: T[j] += A[vi, j]; for j: B[vi, j] = T[j]
    let a = buf("A", f32t(), &[3, 4]);
    let b = buf("B", f32t(), &[3, 4]);
    let t = buf("T", f32t(), &[4]);
    let (i, j, j2, vi) = (var("i"), var("j"), var("j"), var("vi"));
    let accumulate = for_(
        &j,
        4,
        store(
            &t,
            vec![v(&j)],
            add(load(&t, vec![v(&j)]), load(&a, vec![v(&vi), v(&j)])),
        ),
    );
    let copy = for_(
        &j2,
        4,
        store(&b, vec![v(&vi), v(&j2)], load(&t, vec![v(&j2)])),
    );
    let mut row = BlockSpec::new("row", seq(vec![accumulate, copy]));
    row.iters = vec![Iter(vi.clone(), 3, IterKind::Spatial, v(&i))];
    row.allocs = vec![t];
    row.reads = vec![BufferRegion {
        buffer: a.clone(),
        region: vec![Range::point(v(&vi)), Range::from_extent(c(4))],
    }];
    row.writes = vec![BufferRegion {
        buffer: b.clone(),
        region: vec![Range::point(v(&vi)), Range::from_extent(c(4))],
    }];
    let f = func(&[&a, &b], &[], root(vec![], for_(&i, 3, row.build())));
    let mut args = random_inputs(&f, 4, &HashMap::new()).unwrap();
    run_prim_func(&f, &mut args, &checked()).unwrap();
    assert_eq!(args[0].to_f64_vec(), args[1].to_f64_vec());
}

#[test]
fn region_check_catches_undeclared_access() {
    // The Y block of mm_relu with A's read region wrongly declared as A[vi, 0].
    let a = buf("A", f32t(), &[4, 4]);
    let y = buf("Y", f32t(), &[4]);
    let (i, k, vi, vk) = (var("i"), var("k"), var("vi"), var("vk"));
    let body = store(
        &y,
        vec![v(&vi)],
        add(load(&y, vec![v(&vi)]), load(&a, vec![v(&vi), v(&vk)])),
    );
    let mut blk = BlockSpec::new("Y", body);
    blk.iters = vec![
        Iter(vi.clone(), 4, IterKind::Spatial, v(&i)),
        Iter(vk.clone(), 4, IterKind::Reduce, v(&k)),
    ];
    blk.reads = vec![point(&a, vec![v(&vi), c(0)])];
    blk.writes = vec![point(&y, vec![v(&vi)])];
    let f = func(
        &[&a, &y],
        &[],
        root(vec![], for_(&i, 4, for_(&k, 4, blk.build()))),
    );
    let mut args = random_inputs(&f, 1, &HashMap::new()).unwrap();
    run(&f, &mut args).unwrap();
    let e = run_prim_func(&f, &mut args, &checked()).unwrap_err();
    assert!(e.message.contains("block Y"), "{}", e.message);
    assert!(e.message.contains("A[0, 1]"), "{}", e.message);
}

#[test]
fn out_of_bounds_load_reports_span_buffer_index_and_shape() {
    let a = buf("A", f32t(), &[4, 4]);
    let b = buf("B", f32t(), &[4]);
    let i = var("i");
    let bad = load(&a, vec![v(&i), add(v(&i), c(1))]).with_span(sp(5, 17));
    let f = func(&[&a, &b], &[], for_(&i, 4, store(&b, vec![v(&i)], bad)));
    let mut args = random_inputs(&f, 1, &HashMap::new()).unwrap();
    let e = run(&f, &mut args).unwrap_err();
    assert_eq!(e.span, sp(5, 17));
    assert_eq!(
        e.message,
        "load from A[3, 4] is out of bounds: buffer A has shape [4, 4]"
    );
    // The arguments come back intact after an error.
    assert_eq!(args[0].shape(), &[4, 4]);
    assert_eq!(args[0].len(), 16);
}

#[test]
fn step_budget_stops_long_runs() {
    let f = vector_add(1000);
    let mut args = random_inputs(&f, 1, &HashMap::new()).unwrap();
    let opts = EvalOptions {
        step_budget: Some(100),
        ..EvalOptions::default()
    };
    let e = run_prim_func(&f, &mut args, &opts).unwrap_err();
    assert_eq!(e.message, "step budget of 100 exceeded");
    let opts = EvalOptions {
        step_budget: Some(2000),
        ..EvalOptions::default()
    };
    run_prim_func(&f, &mut args, &opts).unwrap();
}

/// `B[i] = A[i] + 1` over `A, B: (n,)` with `n = T.int64()`.
fn symbolic_add() -> (PrimFunc, Var) {
    let n = var_t("n", DataType::i64());
    let a = buf_sym("A", f32t(), vec![v(&n)]);
    let b = buf_sym("B", f32t(), vec![v(&n)]);
    let i = var_t("i", DataType::i64());
    let body = for_e(
        &i,
        v(&n),
        store(&b, vec![v(&i)], add(load(&a, vec![v(&i)]), cf(1.0))),
    );
    (func(&[&a, &b], &[], body), n)
}

#[test]
fn symbolic_shapes_bind_from_arguments() {
    let (f, _) = symbolic_add();
    for n in [1usize, 7, 33] {
        let mut args = vec![
            NDArray::from_f32(&[n], (0..n).map(|x| x as f32).collect()).unwrap(),
            NDArray::zeros(DataType::f32(), &[n]).unwrap(),
        ];
        run(&f, &mut args).unwrap();
        assert_eq!(
            args[1].to_f64_vec(),
            (0..n).map(|x| x as f64 + 1.0).collect::<Vec<_>>()
        );
    }
    let inputs = random_inputs(&f, 0, &HashMap::from([("n".to_string(), 5)])).unwrap();
    assert_eq!(inputs[0].shape(), &[5]);
    assert_eq!(inputs[1].shape(), &[5]);
    let inputs = random_inputs(&f, 0, &HashMap::new()).unwrap();
    assert_eq!(inputs[0].shape(), &[16]);
}

#[test]
fn symbolic_shape_mismatch_is_an_error() {
    let (f, _) = symbolic_add();
    let mut args = vec![
        NDArray::zeros(DataType::f32(), &[7]).unwrap(),
        NDArray::zeros(DataType::f32(), &[8]).unwrap(),
    ];
    let e = run(&f, &mut args).unwrap_err();
    assert_eq!(e.message, "argument B, dimension 0: expected 7, got 8");
    let mut wrong_rank = vec![
        NDArray::zeros(DataType::f32(), &[7, 1]).unwrap(),
        NDArray::zeros(DataType::f32(), &[7]).unwrap(),
    ];
    assert!(run(&f, &mut wrong_rank)
        .unwrap_err()
        .message
        .contains("2 dimensions"));
    let mut wrong_dtype = vec![
        NDArray::zeros(DataType::f64(), &[7]).unwrap(),
        NDArray::zeros(DataType::f32(), &[7]).unwrap(),
    ];
    assert!(run(&f, &mut wrong_dtype)
        .unwrap_err()
        .message
        .contains("dtype float64"));
    assert!(run(&f, &mut wrong_dtype[..1])
        .unwrap_err()
        .message
        .contains("takes 2 arguments"));
}

#[test]
fn scalar_parameters_are_0d_arrays() {
    // B[i] = A[i] * alpha for i < n, n a scalar parameter also used in the shapes.
    let n = var_t("n", DataType::i32());
    let alpha = var_t("alpha", f32t());
    let a = buf_sym("A", f32t(), vec![v(&n)]);
    let b = buf_sym("B", f32t(), vec![v(&n)]);
    let i = var("i");
    let body = for_e(
        &i,
        v(&n),
        store(&b, vec![v(&i)], mul(load(&a, vec![v(&i)]), v(&alpha))),
    );
    let f = func(&[&a, &b], &[&n, &alpha], body);
    let mut args = random_inputs(
        &f,
        3,
        &HashMap::from([("n".to_string(), 6), ("alpha".to_string(), 3)]),
    )
    .unwrap();
    assert_eq!(args[0].shape(), &[6]);
    assert_eq!(args[2].get_i64(&[]), Some(6));
    run(&f, &mut args).unwrap();
    let (a, b) = (args[0].to_f64_vec(), args[1].to_f64_vec());
    for i in 0..6 {
        assert_eq!(b[i], a[i] * 3.0);
    }
    args[2] = NDArray::scalar_i64(DataType::i32(), 5).unwrap();
    assert!(run(&f, &mut args)
        .unwrap_err()
        .message
        .contains("expected 5, got 6"));
}

#[test]
fn undefined_variable_is_an_error_with_span() {
    let a = buf("A", f32t(), &[4]);
    let i = var("i");
    let stray = var("j");
    let f = func(
        &[&a],
        &[],
        for_(
            &i,
            4,
            store(
                &a,
                vec![v(&i)],
                Expr::cast(f32t(), v(&stray).with_span(sp(3, 4))),
            ),
        ),
    );
    let e = run(&f, &mut [NDArray::zeros(DataType::f32(), &[4]).unwrap()]).unwrap_err();
    assert_eq!(e.span, sp(3, 4));
    assert!(
        e.message.contains("variable j is not defined"),
        "{}",
        e.message
    );
}
