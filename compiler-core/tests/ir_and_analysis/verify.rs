//! The verifier on hand-built IR: each node has a distinct span, and every
//! test asserts where the diagnostic points as well as what it says.

use crate::verify_support;

use compiler_core::analysis::verify::{
    has_errors, verify_module, verify_prim_func, verify_prim_func_as, ApiGeneration,
};
use compiler_core::diag::Severity;
use compiler_core::ir::*;
use tessel_test_support::expect;
use verify_support::*;

fn f32() -> DataType {
    DataType::f32()
}

/// `for i in range(extent): with T.block("C"): vi = T.axis.spatial(dom, <binding>); B[vi] = A[vi]`
/// and the binding expression (to check spans against).
fn copy_1d(ir: &mut Ir, extent: i64, dom: i64) -> (PrimFunc, Expr) {
    let a = ir.buffer("A", &[128], f32());
    let b = ir.buffer("B", &[128], f32());
    let i = i32v("i");
    let vi = i32v("vi");
    let iv = ir.iter(&vi, dom, IterKind::Spatial);
    let bind = ir.v(&i);
    let x = ir.v(&vi);
    let ld = ir.load(&a, vec![x]);
    let x = ir.v(&vi);
    let st = ir.store(&b, vec![x], ld);
    let blk = ir.block("C", vec![(iv, bind.clone())], st);
    let r = ir.realize(blk);
    let l = ir.for_(&i, extent, r);
    (ir.func(&[&a, &b], &[], l), bind)
}

#[test]
fn the_seed_programs_shape_is_clean() {
    let mut ir = Ir::new();
    let f = mm_relu(&mut ir, "Y", false);
    assert_eq!(show(&verify_prim_func(&f, "mm_relu")), "");
    let (g, _) = copy_1d(&mut ir, 128, 128);
    let mut m = IRModule::from_prim_func("mm_relu", f);
    m.insert("copy", BaseFunc::Prim(g.into()));
    assert!(verify_module(&m).is_empty());
}

#[test]
fn binding_that_does_not_cover_the_domain() {
    // The seeds' example: `for i in range(127)` bound to `T.axis.spatial(128, i)`.
    let mut ir = Ir::new();
    let (f, bind) = copy_1d(&mut ir, 127, 128);
    let d = verify_prim_func(&f, "main");
    expect![[r#"
        error 70..75: block iterator `vi` has domain [0, 128) but its binding `i` only covers [0, 127)
          label 130..135: in block `C`
          note: the block would never run for the rest of its domain; make the loop extents match the iterator's domain
    "#]]
    .assert_eq(&show(&d));
    assert_eq!(d[0].span, bind.span());
    assert!(has_errors(&d));

    // Too long a loop: values outside the domain.
    let (f, bind) = copy_1d(&mut ir, 129, 128);
    let d = verify_prim_func(&f, "main");
    expect![[r#"
        error 260..265: block iterator `vi` has domain [0, 128) but its binding `i` takes values in [0, 129)
          label 320..325: in block `C`
          note: the binding leaves the iterator's domain; enlarge the domain, or guard the block with `T.where`
    "#]]
    .assert_eq(&show(&d));
    assert_eq!(d[0].span, bind.span());
}

#[test]
fn a_predicate_may_mask_an_overlong_binding() {
    let mut ir = Ir::new();
    let (f, _) = copy_1d(&mut ir, 129, 128);
    // Put `T.where(i < 128)` on the block.
    let i = match f.root_block().unwrap().body.kind() {
        StmtKind::For(l) => l.loop_var.clone(),
        _ => unreachable!(),
    };
    let body = compiler_core::ir::mutate::Mutator::stmt(&mut SetPredicate(i), &f.body);
    let f = f.with_body(body);
    assert_eq!(show(&verify_prim_func(&f, "main")), "");
}

struct SetPredicate(Var);
impl compiler_core::ir::mutate::Mutator for SetPredicate {
    fn stmt(&mut self, s: &Stmt) -> Stmt {
        let s = compiler_core::ir::mutate::walk_stmt(self, s);
        if let StmtKind::BlockRealize(r) = s.kind() {
            if r.block.name == "C" {
                let mut r = r.clone();
                r.predicate = Expr::cmp(CmpOp::Lt, self.0.to_expr(), Expr::i32(128));
                return Stmt::new(StmtKind::BlockRealize(r), s.span());
            }
        }
        s
    }
}

/// `for i0, i1, i2 in T.grid(e0, e1, e2): vi = T.axis.spatial(128, i0 * 16 + i1 * 4 + i2)`.
fn split3(ir: &mut Ir, e: [i64; 3]) -> (PrimFunc, Expr) {
    let a = ir.buffer("A", &[128], f32());
    let (i0, i1, i2) = (i32v("i_0"), i32v("i_1"), i32v("i_2"));
    let vi = i32v("vi");
    let iv = ir.iter(&vi, 128, IterKind::Spatial);
    let bind = {
        let (x0, x1, x2) = (ir.v(&i0), ir.v(&i1), ir.v(&i2));
        let (c16, c4) = (ir.i(16), ir.i(4));
        let t0 = ir.mul(x0, c16);
        let t1 = ir.mul(x1, c4);
        let s = ir.add(t0, t1);
        ir.add(s, x2)
    };
    let x = ir.v(&vi);
    let z = ir.f32(0.0);
    let st = ir.store(&a, vec![x], z);
    let blk = ir.block("C", vec![(iv, bind.clone())], st);
    let r = ir.realize(blk);
    let l = ir.grid(&[(&i0, e[0]), (&i1, e[1]), (&i2, e[2])], r);
    (ir.func(&[&a], &[], l), bind)
}

#[test]
fn mixed_radix_bindings() {
    let mut ir = Ir::new();
    let (f, _) = split3(&mut ir, [8, 4, 4]);
    assert_eq!(show(&verify_prim_func(&f, "main")), "");
    // 8 x 4 x 2 leaves gaps: not decided here (left to the iter-map analysis).
    let (f, _) = split3(&mut ir, [8, 4, 2]);
    assert_eq!(show(&verify_prim_func(&f, "main")), "");
    // 4 x 4 x 4 is gap-free but only reaches 64.
    let (f, bind) = split3(&mut ir, [4, 4, 4]);
    let d = verify_prim_func(&f, "main");
    expect![[r#"
        error 730..735: block iterator `vi` has domain [0, 128) but its binding `i_0 * 16 + i_1 * 4 + i_2` only covers [0, 64)
          label 780..785: in block `C`
          note: the block would never run for the rest of its domain; make the loop extents match the iterator's domain
    "#]]
    .assert_eq(&show(&d));
    assert_eq!(d[0].span, bind.span());
}

#[test]
fn outer_loop_variables_are_not_visible_inside_a_block() {
    // B[vi] = A[i] inside block "C" (TVM: "Loop iterator var i is defined
    // outside of any block, but is used inside the non-opaque current block "C"").
    let mut ir = Ir::new();
    let a = ir.buffer("A", &[128], f32());
    let b = ir.buffer("B", &[128], f32());
    let i = i32v("i");
    let vi = i32v("vi");
    let iv = ir.iter(&vi, 128, IterKind::Spatial);
    let bind = ir.v(&i);
    let bad = ir.v(&i);
    let ld = ir.load(&a, vec![bad.clone()]);
    let x = ir.v(&vi);
    let st = ir.store(&b, vec![x], ld);
    let blk = ir.block("C", vec![(iv, bind)], st);
    let r = ir.realize(blk);
    let l = ir.for_(&i, 128, r);
    let f = ir.func(&[&a, &b], &[], l.clone());
    let d = verify_prim_func(&f, "main");
    expect![[r#"
        error 80..85: loop variable `i` is defined outside of any block, but is used inside the non-opaque block `C`
          label 160..165: `i` is defined here
          note: a block with iterators only sees its own and outer blocks' iterators: bind the loop to an iterator (`vi = T.axis.spatial(..., i)`) and use that
    "#]]
    .assert_eq(&show(&d));
    assert_eq!(d[0].span, bad.span());
    assert_eq!(d[0].labels[0].0, l.span());
}

#[test]
fn loops_inside_an_outer_block_and_opaque_blocks() {
    let mut ir = Ir::new();
    let a = ir.buffer("A", &[128], f32());
    // with T.block("O"): vo = T.axis.spatial(1, 0)
    //   for j in range(128):
    //     with T.block("I"): vj = T.axis.spatial(128, j); A[vj + j] = 0   <- j is not visible
    //     with T.block("P"):  A[j] = vo                                  <- opaque: fine
    let vo = i32v("vo");
    let j = i32v("j");
    let vj = i32v("vj");
    let ivo = ir.iter(&vo, 1, IterKind::Spatial);
    let ivj = ir.iter(&vj, 128, IterKind::Spatial);
    let zero_i = ir.i(0);
    let bind_j = ir.v(&j);
    let bad = ir.v(&j);
    let x = ir.v(&vj);
    let idx = ir.add(x, bad.clone());
    let z = ir.f32(0.0);
    let st = ir.store(&a, vec![idx], z);
    let inner = ir.block("I", vec![(ivj, bind_j)], st);
    let inner = ir.realize(inner);
    let jj = ir.v(&j);
    let z = ir.f32(1.0);
    let st2 = ir.store(&a, vec![jj], z);
    let opaque = ir.block("P", vec![], st2);
    let opaque = ir.realize(opaque);
    let both = ir.seq(vec![inner, opaque]);
    let lj = ir.for_(&j, 128, both);
    let outer = ir.block("O", vec![(ivo, zero_i)], lj);
    let outer = ir.realize(outer);
    let f = ir.func(&[&a], &[], outer);
    expect![[r#"
        error 90..95: loop variable `j` is defined in block `O`, but is used inside the non-opaque block `I`
          label 240..245: `j` is defined here
          note: a block with iterators only sees its own and outer blocks' iterators: bind the loop to an iterator (`vj = T.axis.spatial(..., j)`) and use that
    "#]]
    .assert_eq(&show(&verify_prim_func(&f, "main")));
}

#[test]
fn undefined_and_out_of_scope_variables_and_buffers() {
    let mut ir = Ir::new();
    let a = ir.buffer("A", &[4], f32());
    let ghost = ir.buffer("G", &[4], f32());
    let n = i32v("n");
    let i = i32v("i");
    // for i in range(4): A[i] = G[n]
    let en = ir.v(&n);
    let ld = ir.load(&ghost, vec![en]);
    let ei = ir.v(&i);
    let st = ir.store(&a, vec![ei], ld);
    let l = ir.for_(&i, 4, st);
    // A[i] = 0 after the loop: i is out of scope.
    let ei2 = ir.v(&i);
    let z = ir.f32(0.0);
    let after = ir.store(&a, vec![ei2], z);
    let body = ir.seq(vec![l, after]);
    let f = ir.func(&[&a], &[], body);
    expect![[r#"
        error 50..55: variable `n` is not defined
          note: a variable must be a parameter, a symbolic shape variable, a loop variable, a block iterator or a let binding in scope
        error 60..65: buffer `G` is not defined
          note: a buffer must be a parameter buffer, allocated (`T.alloc_buffer`) or matched (`T.match_buffer`) in an enclosing scope
        error 120..125: variable `i` is used outside the scope of its definition
          label 110..115: `i` is defined here
    "#]]
    .assert_eq(&show(&verify_prim_func(&f, "main")));
}

#[test]
fn block_local_buffers_are_scoped_to_their_block() {
    let mut ir = Ir::new();
    let a = ir.buffer("A", &[4], f32());
    let t = ir.buffer("T", &[4], f32());
    let z = ir.i(0);
    let one = ir.f32(1.0);
    let st = ir.store(&t, vec![z.clone()], one);
    let mut c = ir.block("C", vec![], st);
    c.block().alloc_buffers = vec![t.clone()];
    let c = ir.realize(c);
    let ld = ir.load(&t, vec![z.clone()]);
    let st2 = ir.store(&a, vec![z], ld);
    let d = ir.block("D", vec![], st2);
    let d = ir.realize(d);
    let body = ir.seq(vec![c, d]);
    let f = ir.func(&[&a], &[], body);
    expect![[r#"
        error 100..105: buffer `T` is used outside the scope of its definition
          label 40..45: `T` is defined here
    "#]]
    .assert_eq(&show(&verify_prim_func(&f, "main")));
}

#[test]
fn dtype_mismatches() {
    let mut ir = Ir::new();
    let a = ir.buffer("A", &[4], f32());
    let i = i32v("i");
    let k = Var::new("k", DataType::i64());
    // for i in range(4): for k in range(T.int32(2)) (k is int64): if i: A[i + k] = T.float16(1)
    let ei = ir.v(&i);
    let ek = ir.v(&k);
    let sum = ir.add(ei, ek);
    let half = ir.e(ExprKind::Float(1.0), DataType::float(16));
    let st = ir.store(&a, vec![sum.clone()], half.clone());
    let cond = ir.v(&i);
    let iff = ir.s(StmtKind::If {
        cond: cond.clone(),
        then: st,
        otherwise: None,
    });
    // The inner loop with an int32 extent for an int64 variable.
    let min = ir.i64(0);
    let ext = ir.i(2);
    let lk = ir.s(StmtKind::For(For {
        loop_var: k.clone(),
        min,
        extent: ext.clone(),
        kind: ForKind::Serial,
        thread_tag: None,
        annotations: Default::default(),
        body: iff,
    }));
    let li = ir.for_(&i, 4, lk);
    let f = ir.func(&[&a], &[], li);
    let d = verify_prim_func(&f, "main");
    expect![[r#"
        error 50..55: operands of `+` have different dtypes: `i` is int32, `k` is int64
        error 60..65: cannot store a float16 value into buffer `A` of float32
        error 80..85: condition `i` of `if` has dtype int32, expected bool
        error 110..115: loop variable `k` is int64 but its extent `2` is int32
    "#]]
    .assert_eq(&show(&d));
    let at = |word: &str| d.iter().find(|x| x.message.contains(word)).unwrap().span;
    assert_eq!(at("extent"), ext.span());
    assert_eq!(at("operands"), sum.span());
    assert_eq!(at("store"), half.span());
    assert_eq!(at("condition"), cond.span());
}

#[test]
fn ranks_of_loads_stores_and_regions() {
    let mut ir = Ir::new();
    let a = ir.buffer("A", &[4, 4], f32());
    let vi = i32v("vi");
    let i = i32v("i");
    let iv = ir.iter(&vi, 4, IterKind::Spatial);
    let bind = ir.v(&i);
    let x = ir.v(&vi);
    let ld = ir.load(&a, vec![x.clone()]);
    let st = ir.store(&a, vec![x.clone()], ld.clone());
    let mut blk = ir.block("C", vec![(iv, bind)], st.clone());
    blk.block().writes = vec![region(&a, points(vec![x]))];
    let r = ir.realize(blk);
    let l = ir.for_(&i, 4, r);
    let f = ir.func(&[&a], &[], l);
    let d = verify_prim_func(&f, "main");
    expect![[r#"
        error 80..85: buffer `A` is 2-dimensional but is indexed with 1 index
        error 90..95: buffer `A` is 2-dimensional but is indexed with 1 index
    "#]]
    .assert_eq(&show(&d));
    assert!(d[0].span == ld.span() || d[1].span == ld.span());
    assert!(d[0].span == st.span() || d[1].span == st.span());
}

/// `for i, k: with T.block("S"): vi, vk = S, R; [T.init(): B[vi] = 0]; B[<out>] += A[vi, vk]`.
fn reduction(
    ir: &mut Ir,
    out_uses_k: bool,
    writes_use_k: bool,
    k_kind: IterKind,
    init: bool,
) -> (PrimFunc, Expr) {
    let a = ir.buffer("A", &[8, 8], f32());
    let b = ir.buffer("B", &[8], f32());
    let (i, k) = (i32v("i"), i32v("k"));
    let (vi, vk) = (i32v("vi"), i32v("vk"));
    let ivi = ir.iter(&vi, 8, IterKind::Spatial);
    let ivk = ir.iter(&vk, 8, k_kind);
    let (bi, bk) = (ir.v(&i), ir.v(&k));
    let out = if out_uses_k { ir.v(&vk) } else { ir.v(&vi) };
    let x = ir.v(&vi);
    let y = ir.v(&vk);
    let ld = ir.load(&a, vec![x, y]);
    let o2 = ir.v(&vi);
    let acc = ir.load(&b, vec![o2]);
    let sum = ir.add(acc, ld);
    let st = ir.store(&b, vec![out.clone()], sum);
    let mut blk = ir.block("S", vec![(ivi, bi), (ivk, bk)], st);
    if init {
        let x = ir.v(&vi);
        let z = ir.f32(0.0);
        blk.block().init = Some(ir.store(&b, vec![x], z));
    }
    let w = if writes_use_k { ir.v(&vk) } else { ir.v(&vi) };
    blk.block().writes = vec![region(&b, points(vec![w]))];
    let r = ir.realize(blk);
    let l = ir.grid(&[(&i, 8), (&k, 8)], r);
    (ir.func(&[&a, &b], &[], l), out)
}

#[test]
fn reduction_iterators_may_not_index_outputs() {
    let mut ir = Ir::new();
    let (f, _) = reduction(&mut ir, false, false, IterKind::Reduce, true);
    assert_eq!(show(&verify_prim_func(&f, "main")), "");

    let (f, out) = reduction(&mut ir, true, true, IterKind::Reduce, true);
    let d = verify_prim_func(&f, "main");
    expect![[r#"
        error 460..465: reduction iterator `vk` is used in an index of output buffer `B`
          label 550..555: in block `S`
          note: `vk` is declared with `T.axis.reduce`: every step of the reduction must update the same output element, so outputs may only be indexed by spatial iterators
    "#]]
    .assert_eq(&show(&d));
    assert_eq!(d[0].span, out.span());

    // Only the (explicit) write region is wrong.
    let (f, _) = reduction(&mut ir, false, true, IterKind::Reduce, true);
    expect![[r#"
        error 930..935: reduction iterator `vk` is used in an index of output buffer `B`
          label 890..895: in block `S`
          note: `vk` is declared with `T.axis.reduce`: every step of the reduction must update the same output element, so outputs may only be indexed by spatial iterators
    "#]]
    .assert_eq(&show(&verify_prim_func(&f, "main")));
}

#[test]
fn init_needs_a_reduction_iterator() {
    let mut ir = Ir::new();
    let (f, _) = reduction(&mut ir, false, false, IterKind::Spatial, true);
    let init_span = match f.root_block().unwrap().body.kind() {
        StmtKind::For(l) => match l.body.as_for().unwrap().body.kind() {
            StmtKind::BlockRealize(r) => r.block.init.as_ref().unwrap().span(),
            _ => unreachable!(),
        },
        _ => unreachable!(),
    };
    let d = verify_prim_func(&f, "main");
    expect![[r#"
        error 240..245: block `S` has a `T.init()` but no reduction iterator
          label 210..215: block `S`
          note: `T.init()` initialises the output before the first step of a reduction; declare the reduction axis with `T.axis.reduce`
    "#]]
    .assert_eq(&show(&d));
    assert_eq!(d[0].span, init_span);
}

#[test]
fn tvm027_generation_accepts_what_the_course_rejects() {
    // The course's rules (partial bindings, reduction iterators in output
    // indices, `T.init()` without a reduction) are errors for `T.block`
    // programs only; TVM 0.27's generation accepts them as TVM does.
    let mut ir = Ir::new();
    let (partial, _) = copy_1d(&mut ir, 127, 128);
    let mut ir = Ir::new();
    let (init, _) = reduction(&mut ir, false, false, IterKind::Spatial, true);
    let mut ir = Ir::new();
    let (reduce_out, _) = reduction(&mut ir, true, true, IterKind::Reduce, true);
    for f in [&partial, &init, &reduce_out] {
        assert!(has_errors(&verify_prim_func(f, "main")));
        assert!(has_errors(&verify_prim_func_as(
            f,
            "main",
            ApiGeneration::Block
        )));
        let d = verify_prim_func_as(f, "main", ApiGeneration::SBlock);
        assert_eq!(show(&d), "");
    }
    // A binding leaving the domain stays an error in both generations.
    let mut ir = Ir::new();
    let (over, _) = copy_1d(&mut ir, 256, 128);
    assert!(has_errors(&verify_prim_func_as(
        &over,
        "main",
        ApiGeneration::SBlock
    )));
}

#[test]
fn stores_missing_from_explicit_writes_are_warnings() {
    let mut ir = Ir::new();
    ir.infer_writes = false;
    let (f, _) = copy_1d(&mut ir, 128, 128);
    // Without inference, copy_1d's writes are empty: B is stored but not declared.
    let d = verify_prim_func(&f, "main");
    expect![[r#"
        warning 110..115: block `C` stores to buffer `B`, which is not in its `T.writes`
          label 130..135: block `C`
          note: TVM accepts an explicit `T.writes` that does not match the body, but schedule primitives trust it: list every buffer the block stores to, or leave `T.writes` out to have it inferred
    "#]]
    .assert_eq(&show(&d));
    assert_eq!(d[0].severity, Severity::Warning);
    assert!(!has_errors(&d));
}

#[test]
fn duplicate_block_names_are_warnings() {
    let mut ir = Ir::new();
    let a = ir.buffer("A", &[4], f32());
    let mk = |ir: &mut Ir| {
        let z = ir.i(0);
        let one = ir.f32(1.0);
        let st = ir.store(&a, vec![z], one);
        let b = ir.block("C", vec![], st);
        ir.realize(b)
    };
    let (c1, c2) = (mk(&mut ir), mk(&mut ir));
    let body = ir.seq(vec![c1, c2]);
    let f = ir.func(&[&a], &[], body);
    expect![[r#"
        warning 120..125: block name `C` is used more than once in `main`
          label 70..75: first used here
          note: TVM accepts this, but schedules cannot address the block: `sch.get_sblock("C")` fails with "Found 2 blocks with the name"
    "#]]
    .assert_eq(&show(&verify_prim_func(&f, "main")));
}

#[test]
fn variables_are_defined_once() {
    // The same loop variable object in two sibling loops (TVM: "multiple
    // definitions of variable i").
    let mut ir = Ir::new();
    let a = ir.buffer("A", &[4], f32());
    let i = i32v("i");
    let mk = |ir: &mut Ir| {
        let x = ir.v(&i);
        let one = ir.f32(1.0);
        let st = ir.store(&a, vec![x], one);
        ir.for_(&i, 4, st)
    };
    let (l1, l2) = (mk(&mut ir), mk(&mut ir));
    let body = ir.seq(vec![l1, l2]);
    let f = ir.func(&[&a], &[], body);
    expect![[r#"
        error 140..145: variable `i` is defined more than once
          label 80..85: `i` is first defined here
          note: every loop variable, block iterator, let binding and parameter must be a distinct variable (TVM: "multiple definitions of variable")
    "#]]
    .assert_eq(&show(&verify_prim_func(&f, "main")));
}

#[test]
fn symbolic_shapes_and_match_buffers() {
    // def f(a: T.handle): n = T.int64(); A = T.match_buffer(a, (n,))
    //   for i in range(n): with T.block("C"): vi = T.axis.spatial(n, i)
    //     A0 = T.match_buffer(A[vi:vi + 1], (1,), elem_offset=off)
    //     A0[0] = 1
    let mut ir = Ir::new();
    let n = Var::new("n", DataType::i64());
    let dim = ir.v(&n);
    let a = ir.buffer_sym("A", vec![dim], f32());
    let i = Var::new("i", DataType::i64());
    let vi = Var::new("vi", DataType::i64());
    let off = Var::new("off", DataType::i64());
    let ext = ir.v(&n);
    let min = ir.i64(0);
    let iv = IterVar {
        var: vi.clone(),
        dom: Range::new(min, ext),
        kind: IterKind::Spatial,
    };
    let bind = ir.v(&i);
    let one64 = ir.i64(1);
    let a0 = {
        let off_e = ir.v(&off);
        let span = ir.span();
        Buffer::new("A0", f32(), vec![one64.clone()]).derive(|b| {
            b.elem_offset = off_e;
            b.span = span;
        })
    };
    let z = ir.i64(0);
    let one = ir.f32(1.0);
    let st = ir.store(&a0, vec![z], one);
    let mut blk = ir.block("C", vec![(iv, bind)], st);
    let src = {
        let x = ir.v(&vi);
        region(&a, vec![Range::new(x, one64)])
    };
    blk.block().match_buffers = vec![MatchBufferRegion {
        buffer: a0.clone(),
        source: src.clone(),
    }];
    blk.block().writes = vec![src];
    let r = ir.realize(blk);
    let ext = ir.v(&n);
    let min = ir.i64(0);
    let l = ir.s(StmtKind::For(For {
        loop_var: i.clone(),
        min,
        extent: ext,
        kind: ForKind::Serial,
        thread_tag: None,
        annotations: Default::default(),
        body: r,
    }));
    let f = ir.func(&[&a], &[], l);
    assert_eq!(show(&verify_prim_func(&f, "main")), "");
}

#[test]
fn thread_tags_and_constants() {
    let mut ir = Ir::new();
    let a = ir.buffer("A", &[4], DataType::int(8));
    let i = i32v("i");
    let x = ir.v(&i);
    let big = ir.e(ExprKind::Int(300), DataType::int(8));
    let st = ir.store(&a, vec![x], big);
    let l = ir.for_kind(&i, 4, ForKind::ThreadBinding, st);
    let f = ir.func(&[&a], &[], l);
    expect![[r#"
        error 40..45: constant 300 does not fit in int8
        error 80..85: thread-bound loop `i` has no thread tag
    "#]]
    .assert_eq(&show(&verify_prim_func(&f, "main")));
}

/// Deep IR is verified without recursion (the trees are leaked: dropping a
/// 100 000-deep `Rc` chain is itself recursive and not what is tested).
#[test]
fn deep_ir_does_not_overflow_the_stack() {
    const DEPTH: usize = 100_000;
    let mut ir = Ir::new();
    ir.infer_writes = false;
    let a = ir.buffer("A", &[1], f32());
    let z = ir.i(0);
    let mut value = ir.f32(1.0);
    for _ in 0..DEPTH {
        let one = ir.f32(1.0);
        value = ir.add(value, one);
    }
    let mut s = ir.store(&a, vec![z], value);
    for _ in 0..DEPTH {
        let i = i32v("i");
        s = ir.for_(&i, 1, s);
    }
    // And nested blocks, each binding the loop around it.
    for k in 0..DEPTH / 10 {
        let i = i32v("i");
        let v = i32v("v");
        let iv = ir.iter(&v, 1, IterKind::Spatial);
        let bind = ir.v(&i);
        let b = ir.block(&format!("b{k}"), vec![(iv, bind)], s);
        let r = ir.realize(b);
        s = ir.for_(&i, 1, r);
    }
    let f = ir.func(&[&a], &[], s);
    let d = verify_prim_func(&f, "main");
    // Every block stores to A without declaring it: one warning each.
    assert_eq!(d.len(), DEPTH / 10);
    assert!(!has_errors(&d));
    std::mem::forget(f);
}

#[test]
fn a_wrong_region_alone_is_reported_at_the_region() {
    // Accesses are right; only the explicit `T.reads(A[vi])` of a 2-D buffer is wrong.
    let mut ir = Ir::new();
    let a = ir.buffer("A", &[4, 4], f32());
    let b = ir.buffer("B", &[4], f32());
    let vi = i32v("vi");
    let i = i32v("i");
    let iv = ir.iter(&vi, 4, IterKind::Spatial);
    let bind = ir.v(&i);
    let (x, y) = (ir.v(&vi), ir.v(&vi));
    let ld = ir.load(&a, vec![x, y]);
    let x = ir.v(&vi);
    let st = ir.store(&b, vec![x], ld);
    let mut blk = ir.block("C", vec![(iv, bind)], st);
    let bad = ir.v(&vi);
    blk.block().reads = vec![region(&a, points(vec![bad.clone()]))];
    let r = ir.realize(blk);
    let l = ir.for_(&i, 4, r);
    let f = ir.func(&[&a, &b], &[], l);
    let d = verify_prim_func(&f, "main");
    expect![[r#"
        error 160..165: read region `A[vi]` has 1 range but buffer `A` is 2-dimensional
    "#]]
    .assert_eq(&show(&d));
    assert_eq!(d[0].span, bad.span());
}

/// `for f in range(extent): vi = T.axis.spatial(128, f // 128); vj = T.axis.spatial(128, f % 128)`.
fn fused(ir: &mut Ir, extent: i64) -> (PrimFunc, Expr) {
    let a = ir.buffer("A", &[128, 128], f32());
    let f = i32v("f");
    let (vi, vj) = (i32v("vi"), i32v("vj"));
    let ivi = ir.iter(&vi, 128, IterKind::Spatial);
    let ivj = ir.iter(&vj, 128, IterKind::Spatial);
    let (x, y, c1, c2) = (ir.v(&f), ir.v(&f), ir.i(128), ir.i(128));
    let bi = ir.bin(BinOp::FloorDiv, x, c1);
    let bj = ir.bin(BinOp::FloorMod, y, c2);
    let idx = vec![ir.v(&vi), ir.v(&vj)];
    let z = ir.f32(0.0);
    let st = ir.store(&a, idx, z);
    let blk = ir.block("C", vec![(ivi, bi.clone()), (ivj, bj)], st);
    let r = ir.realize(blk);
    let l = ir.for_(&f, extent, r);
    (ir.func(&[&a], &[], l), bi)
}

#[test]
fn fused_bindings_use_the_iter_map_analysis() {
    let mut ir = Ir::new();
    let (f, _) = fused(&mut ir, 128 * 128);
    assert_eq!(show(&verify_prim_func(&f, "main")), "");
    let (f, bi) = fused(&mut ir, 128 * 127);
    let d = verify_prim_func(&f, "main");
    expect![[r#"
        error 370..375: block iterator `vi` has domain [0, 128) but its binding `f // 128` only covers [0, 127)
          label 440..445: in block `C`
          note: the block would never run for the rest of its domain; make the loop extents match the iterator's domain
    "#]].assert_eq(&show(&d));
    assert_eq!(d[0].span, bi.span());
}

/// `for i0, i1 in T.grid(32, 4): vi = T.axis.spatial(dom, i0 * 4 + i1); T.where(i0 * 4 + i1 < 127)`.
fn split_127(ir: &mut Ir, dom: i64) -> (PrimFunc, Expr) {
    let a = ir.buffer("A", &[128], f32());
    let (i0, i1) = (i32v("i_0"), i32v("i_1"));
    let vi = i32v("vi");
    let iv = ir.iter(&vi, dom, IterKind::Spatial);
    let fused = |ir: &mut Ir| {
        let (x, y, c) = (ir.v(&i0), ir.v(&i1), ir.i(4));
        let m = ir.mul(x, c);
        ir.add(m, y)
    };
    let bind = fused(ir);
    let lhs = fused(ir);
    let lim = ir.i(127);
    let pred = ir.cmp(CmpOp::Lt, lhs, lim);
    let x = ir.v(&vi);
    let z = ir.f32(0.0);
    let st = ir.store(&a, vec![x], z);
    let mut blk = ir.block("C", vec![(iv, bind.clone())], st);
    blk.realize.predicate = pred;
    let r = ir.realize(blk);
    let l = ir.grid(&[(&i0, 32), (&i1, 4)], r);
    (ir.func(&[&a], &[], l), bind)
}

#[test]
fn predicates_of_non_divisible_splits_are_understood() {
    let mut ir = Ir::new();
    let (f, _) = split_127(&mut ir, 127);
    assert_eq!(show(&verify_prim_func(&f, "main")), "");
    // With the predicate applied the binding reaches 127 values: too many for 126.
    let (f, bind) = split_127(&mut ir, 126);
    let d = verify_prim_func(&f, "main");
    expect![[r#"
        error 390..395: block iterator `vi` has domain [0, 126) but its binding `i_0 * 4 + i_1` takes values in [0, 127)
          label 510..515: in block `C`
          note: the binding leaves the iterator's domain; enlarge the domain, or guard the block with `T.where`
    "#]].assert_eq(&show(&d));
    assert_eq!(d[0].span, bind.span());
}
