//! Older TVM's TE schedules translated into TensorIR
//! (`compiler_core::te::schedule`): every schedule of the TE lesson (seed
//! 003), and the other legacy primitives, give a function that the
//! reference interpreter runs to the same bits as the unscheduled
//! `create_prim_func` on random inputs; misuse is an error, not a panic.

use std::collections::HashMap;

use compiler_core::eval::{random_inputs, run_prim_func, EvalOptions};
use compiler_core::ir::DataType;
use compiler_core::ir::{IRModule, IterVar};
use compiler_core::te::schedule::TeSchedule;
use compiler_core::te::{
    compute, create_prim_func, placeholder_const, reduce_axis_const, sum, BodyItem, ComputeBody,
    Tensor,
};

fn matmul(m: i64, k: i64, n: i64) -> (Tensor, Tensor, Tensor) {
    let f32 = DataType::f32();
    let a = placeholder_const(&[m, k], f32, "A").unwrap();
    let b = placeholder_const(&[k, n], f32, "B").unwrap();
    let kk = reduce_axis_const(0, k, "k").unwrap();
    let c = compute(
        &[m, n].map(|x| compiler_core::ir::Expr::int(x, DataType::i32())),
        "C",
        |ix| {
            let prod = compiler_core::te::op::mul(
                &a.index(&[ix[0].clone(), kk.var.to_expr()])?,
                &b.index(&[kk.var.to_expr(), ix[1].clone()])?,
            )?;
            Ok(ComputeBody(vec![BodyItem::Reduce(sum(
                &prod,
                std::slice::from_ref(&kk),
                None,
                None,
            )?)]))
        },
    )
    .unwrap();
    (a, b, c)
}

/// Runs the scheduled module and the unscheduled function on the same
/// random inputs; the outputs must be bit-identical.
fn same_as_unscheduled(s: &TeSchedule, args: &[Tensor]) {
    let plain = create_prim_func(args).unwrap();
    let module: IRModule = s.lower(args, "main").unwrap();
    let scheduled = module.get_prim("main").unwrap();
    let inputs = random_inputs(&plain, 7, &HashMap::new()).unwrap();
    let (mut want, mut got) = (inputs.clone(), inputs);
    let opts = EvalOptions::default();
    run_prim_func(&plain, &mut want, &opts).unwrap();
    run_prim_func(scheduled, &mut got, &opts).unwrap();
    for (w, g) in want.iter().zip(&got) {
        assert_eq!(w.to_le_bytes(), g.to_le_bytes(), "outputs differ");
    }
}

fn axes(c: &Tensor) -> (IterVar, IterVar, IterVar) {
    let op = c.op();
    (
        op.axis()[0].clone(),
        op.axis()[1].clone(),
        op.reduce_axis()[0].clone(),
    )
}

#[test]
fn the_lesson_schedules_compute_what_the_unscheduled_matmul_computes() {
    let (a, b, c) = matmul(64, 64, 64);
    let args = [a, b, c.clone()];
    let new = || TeSchedule::new(&[c.op().clone()]).unwrap();
    let st = |s: &TeSchedule| s.stage(c.op()).unwrap();
    let (i, j, k) = axes(&c);

    // Naive.
    same_as_unscheduled(&new(), &args);
    // Split i by 32.
    let mut s = new();
    s.split(st(&s), &i, Some(32), None).unwrap();
    same_as_unscheduled(&s, &args);
    // Split i, j, k and reorder.
    let mut s = new();
    let x = st(&s);
    let (io, ii) = s.split(x, &i, Some(32), None).unwrap();
    let (jo, ji) = s.split(x, &j, Some(32), None).unwrap();
    let (ko, ki) = s.split(x, &k, Some(4), None).unwrap();
    s.reorder(x, &[io.clone(), jo, ko, ii, ji.clone(), ki.clone()])
        .unwrap();
    same_as_unscheduled(&s, &args);
    // … then the optimized schedule's vectorize, parallel and unroll.
    let (_, jiv) = s.split(x, &ji, Some(8), None).unwrap();
    s.loop_kind("vectorize", x, &jiv).unwrap();
    s.loop_kind("parallel", x, &io).unwrap();
    s.loop_kind("unroll", x, &ki).unwrap();
    same_as_unscheduled(&s, &args);
    // Tile, and the sweep's tiles (64 covers the whole axis; 24 does not
    // divide 64 and needs a predicate).
    for f in [16, 24, 32, 64] {
        let mut s = new();
        s.tile(st(&s), &i, &j, f, f).unwrap();
        same_as_unscheduled(&s, &args);
    }
    // Split by nparts, then fuse.
    let mut s = new();
    let x = st(&s);
    let (io, ii) = s.split(x, &i, None, Some(4)).unwrap();
    let f = s.fuse(x, &[io, ii]).unwrap();
    s.loop_kind("parallel", x, &f).unwrap();
    same_as_unscheduled(&s, &args);
}

#[test]
fn the_add_relu_exercise_computes_the_same() {
    let f32 = DataType::f32();
    let a = placeholder_const(&[1000], f32, "A").unwrap();
    let b = placeholder_const(&[1000], f32, "B").unwrap();
    let c = compute(
        &[compiler_core::ir::Expr::int(1000, DataType::i32())],
        "C",
        |ix| {
            let s = compiler_core::te::op::add(&a.index(ix)?, &b.index(ix)?)?;
            let zero = compiler_core::te::op::const_float(0.0, f32)?;
            Ok(ComputeBody(vec![BodyItem::Expr(
                compiler_core::te::op::max(&s, &zero)?,
            )]))
        },
    )
    .unwrap();
    let mut s = TeSchedule::new(&[c.op().clone()]).unwrap();
    let x = s.stage(c.op()).unwrap();
    // 1000 is not a multiple of 8: the split needs a predicate.
    let (io, ii) = s.split(x, &c.op().axis()[0], Some(8), None).unwrap();
    s.loop_kind("vectorize", x, &ii).unwrap();
    s.loop_kind("parallel", x, &io).unwrap();
    same_as_unscheduled(&s, &[a, b, c]);
}

#[test]
fn misuse_is_an_error_and_changes_nothing() {
    let (a, b, c) = matmul(8, 8, 8);
    let mut s = TeSchedule::new(&[c.op().clone()]).unwrap();
    let x = s.stage(c.op()).unwrap();
    let (i, j, _) = axes(&c);
    let before = s.schedule().trace().instructions.len();
    let e = s.split(x, &i, Some(0), None).unwrap_err();
    assert!(e.message.contains("must be positive"), "{e}");
    let e = s.split(x, &i, Some(2), Some(2)).unwrap_err();
    assert!(e.message.contains("exactly one"), "{e}");
    let e = s.reorder(x, &[i.clone(), i.clone()]).unwrap_err();
    assert!(e.message.contains("listed twice"), "{e}");
    let e = s.tile(x, &j, &j, 2, 2).unwrap_err();
    assert!(e.message.contains("different axes"), "{e}");
    assert_eq!(s.schedule().trace().instructions.len(), before);
    let e = s.stage(a.op()).unwrap_err();
    assert!(e.message.contains("placeholder"), "{e}");
    // Arguments the schedule was not made with still get its loops.
    let m = s.lower(&[b.clone(), a.clone(), c.clone()], "f").unwrap();
    assert!(m.get_prim("f").is_some());
    let e = s.lower(&[a, c], "f").unwrap_err();
    assert!(
        e.message.contains("does not appear as a function argument"),
        "{e}"
    );
}

#[test]
fn compute_at_of_a_split_stage_gives_it_the_new_loops() {
    let f32 = DataType::f32();
    let a = placeholder_const(&[16, 16], f32, "A").unwrap();
    let shape = [16, 16].map(|x| compiler_core::ir::Expr::int(x, DataType::i32()));
    let b = compute(&shape, "B", |ix| {
        let two = compiler_core::te::op::const_float(2.0, f32)?;
        Ok(ComputeBody(vec![BodyItem::Expr(
            compiler_core::te::op::mul(&a.index(ix)?, &two)?,
        )]))
    })
    .unwrap();
    let c = compute(&shape, "C", |ix| {
        let one = compiler_core::te::op::const_float(1.0, f32)?;
        Ok(ComputeBody(vec![BodyItem::Expr(
            compiler_core::te::op::add(&b.index(ix)?, &one)?,
        )]))
    })
    .unwrap();
    let mut s = TeSchedule::new(&[c.op().clone()]).unwrap();
    let (sb, sc) = (s.stage(b.op()).unwrap(), s.stage(c.op()).unwrap());
    let bi = b.op().axis()[0].clone();
    s.split(sb, &bi, Some(4), None).unwrap();
    s.compute_at(sb, sc, &c.op().axis()[0]).unwrap();
    // B's split axes are gone; its loops under C's `i` are its axes now.
    let e = s.split(sb, &bi, Some(2), None).unwrap_err();
    assert!(e.message.contains("split into"), "{e}");
    let leaves = s.leaf_axes(sb);
    assert_eq!(leaves.len(), 2, "{leaves:?}");
    s.loop_kind("vectorize", sb, &leaves[1]).unwrap();
    same_as_unscheduled(&s, &[a, c]);
}
