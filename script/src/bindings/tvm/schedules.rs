//! `tir.Schedule` objects: construction, every primitive through
//! [`Schedule::call`], and conversion of arguments and results between
//! Python values and schedule values.

use super::*;

pub(in super::super) fn schedule_error(e: ScheduleError) -> Box<PyErr> {
    PyErr::new(ExcKind::ScheduleError, e.to_string())
}

/// A refused call as the Python exception TVM raises: argument mistakes
/// are `TypeError`s (TVM's type checker), stale handles and an unchosen
/// function `ValueError`s, everything else a `ScheduleError`.
fn call_error(method: &str, e: ScheduleError) -> Box<PyErr> {
    match e.kind {
        ScheduleErrorKind::ArgumentType => {
            PyErr::type_error(format!("{method}(): {}", e.message))
        }
        ScheduleErrorKind::NoFunctionChosen => PyErr::value_error(format!(
            "`{method}` does not know which function to be working on. Please specify the function name explicitly, or call `work_on` to specify the function before using `{method}`."
        )),
        ScheduleErrorKind::StaleHandle(HandleKind::Loop) => {
            PyErr::value_error("The loop no longer exists in the IRModule")
        }
        ScheduleErrorKind::StaleHandle(HandleKind::Block) => {
            PyErr::value_error("The block no longer exists in the IRModule")
        }
        _ => schedule_error(e),
    }
}

pub(super) fn new_schedule(it: &mut Interp, mut a: Args, dialect: TraceDialect) -> Res<Value> {
    let m = a.req(0, "mod", "Schedule")?;
    let seed = a.take(1, "seed");
    let debug_mask = a.take(2, "debug_mask");
    let _ = a.take(3, "error_render_level");
    let _ = a.take(4, "enable_check");
    a.done("Schedule", 5)?;
    let (module, ir_dialect) = module_arg(&m, "Schedule")?;
    let seed = match seed.as_ref().and_then(num_i64) {
        Some(s) if s >= 0 => s as u64,
        // TVM draws a random seed for every unseeded schedule; Tessel draws
        // the next one of a per-session sequence, so runs are reproducible
        // but each schedule samples differently.
        _ => {
            let mut z = (it.next_id + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z ^ (z >> 31)
        }
    };
    let mut sch = Schedule::with_seed(module.clone(), seed).map_err(schedule_error)?;
    sch.dialect = dialect;
    sch.ir_dialect = ir_dialect;
    // TVM's ScheduleDebugMask: "all", or bit 2 (VERIFY_CACHED_FLAGS).
    sch.verify_cached_flags = match &debug_mask {
        Some(Value::Str(s)) => &**s == "all",
        Some(v) => num_i64(v).is_some_and(|m| m & 2 != 0),
        None => false,
    };
    it.next_id += 1;
    it.charge_steps(100)?;
    Ok(host(Obj::Schedule(RefCell::new(SchedObj::new(
        sch, module, ir_dialect, it.next_id,
    )))))
}

fn to_sched(it: &mut Interp, v: &Value) -> Res<SchedValue> {
    Ok(match v {
        Value::None => SchedValue::None,
        Value::Bool(b) => SchedValue::Bool(*b),
        Value::Int(i) => SchedValue::Int(*i),
        Value::Float(f) => SchedValue::Float(*f),
        Value::Str(s) => SchedValue::Str(s.to_string()),
        Value::NpScalar(s) => match s.num {
            Num::I(i) => SchedValue::Int(i),
            Num::F(f) => SchedValue::Float(f),
        },
        Value::List(_) | Value::Tuple(_) => {
            let items = it.items_of(v)?;
            let mut out = Vec::with_capacity(items.len());
            for x in &items {
                out.push(to_sched(it, x)?);
            }
            SchedValue::List(out)
        }
        Value::Func(f) => SchedValue::Source(f.source.slice(f.span).to_string()),
        // A dictionary (an annotation value) travels as its Python literal.
        Value::Dict(_) => {
            let mut text = String::new();
            literal_source(it, v, 0, &mut text)?;
            SchedValue::Source(text)
        }
        Value::Host(o) => match tvm_obj(o) {
            Some(Obj::Rv { rv, .. }) => SchedValue::Rv(*rv),
            // An integer constant (`tvm.tirx.IntImm`, `te.const`) is its value.
            Some(Obj::Te(super::super::te::TeObj::Expr(e))) if e.as_int().is_some() => {
                SchedValue::Int(e.as_int().unwrap_or_default())
            }
            _ => {
                return Err(PyErr::type_error(format!(
                    "cannot pass a '{}' to a schedule primitive",
                    o.type_name()
                )))
            }
        },
        other => {
            return Err(PyErr::type_error(format!(
                "cannot pass a '{}' to a schedule primitive",
                other.type_name()
            )))
        }
    })
}

/// The Python literal of a value made of dictionaries, lists, strings and
/// numbers, which the primitives read back (`annotate`'s dictionaries).
fn literal_source(it: &mut Interp, v: &Value, depth: u32, out: &mut String) -> Res<()> {
    use std::fmt::Write;
    if depth > 64 {
        return Err(PyErr::value_error(
            "a schedule primitive argument is nested too deeply",
        ));
    }
    match v {
        Value::None => out.push_str("None"),
        Value::Bool(b) => out.push_str(if *b { "True" } else { "False" }),
        Value::Int(i) => {
            let _ = write!(out, "{i}");
        }
        Value::Float(f) if f.is_finite() => {
            let _ = write!(out, "{f:?}");
        }
        Value::Str(s) => {
            let _ = write!(out, "{:?}", s.as_ref() as &str);
        }
        Value::List(_) | Value::Tuple(_) => {
            out.push('[');
            for (i, x) in it.items_of(v)?.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                literal_source(it, x, depth + 1, out)?;
            }
            out.push(']');
        }
        Value::Dict(d) => {
            out.push('{');
            let items = d.borrow().items();
            for (i, (k, x)) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                literal_source(it, k, depth + 1, out)?;
                out.push_str(": ");
                literal_source(it, x, depth + 1, out)?;
            }
            out.push('}');
        }
        other => {
            return Err(PyErr::type_error(format!(
                "cannot pass a '{}' inside a dict to a schedule primitive",
                other.type_name()
            )))
        }
    }
    Ok(())
}

/// A primitive's result with each sampled factor that has no value
/// (`sample_perfect_tile` of a symbolic loop) replaced by `None`.
fn absent_as_none(sch: &Schedule, v: SchedValue) -> SchedValue {
    match v {
        SchedValue::Rv(Rv::Expr(i)) if sch.is_absent(compiler_core::schedule::ExprRV(i)) => {
            SchedValue::None
        }
        SchedValue::List(items) => {
            SchedValue::List(items.into_iter().map(|x| absent_as_none(sch, x)).collect())
        }
        other => other,
    }
}

fn from_sched(it: &mut Interp, v: SchedValue, dialect: TraceDialect, sched: u64) -> Res<Value> {
    Ok(match v {
        SchedValue::Rv(rv) => host(Obj::Rv { rv, dialect, sched }),
        SchedValue::Int(i) => Value::Int(i),
        SchedValue::Float(f) => Value::Float(f),
        SchedValue::Bool(b) => Value::Bool(b),
        SchedValue::Str(s) => Value::str(s),
        SchedValue::None => Value::None,
        SchedValue::List(items) => {
            let mut out = Vec::with_capacity(items.len());
            for x in items {
                out.push(from_sched(it, x, dialect, sched)?);
            }
            it.new_list(out)?
        }
        SchedValue::Source(s) => Value::str(s),
    })
}

pub(super) fn schedule_method(it: &mut Interp, o: &Obj, name: &str, mut a: Args) -> Res<Value> {
    let Obj::Schedule(cell) = o else {
        return Err(PyErr::type_error("not a schedule"));
    };
    match name {
        "copy" => {
            let (sch, original, ir_dialect, lineage, removed) = {
                let s = cell.borrow();
                let mut lineage = s.lineage.clone();
                lineage.push((s.id, s.sch.rv_count()));
                (
                    s.sch.clone(),
                    s.original.clone(),
                    s.ir_dialect,
                    lineage,
                    s.removed.clone(),
                )
            };
            it.next_id += 1;
            let mut copy = SchedObj::new(sch, original, ir_dialect, it.next_id);
            copy.lineage = lineage;
            copy.removed = removed;
            return Ok(host(Obj::Schedule(RefCell::new(copy))));
        }
        "get" => {
            let v = a
                .pos
                .first()
                .cloned()
                .ok_or_else(|| PyErr::type_error("get() takes a random variable"))?;
            let Value::Host(h) = &v else {
                return Err(PyErr::type_error("get() takes a random variable"));
            };
            let Some(Obj::Rv { rv, .. }) = tvm_obj(h) else {
                return Err(PyErr::type_error("get() takes a random variable"));
            };
            let s = cell.borrow();
            super::super::schedule_state::check_handles(it, &s, &v)?;
            return match rv {
                Rv::Expr(i) => Ok(Value::Int(
                    s.sch
                        .get_value(compiler_core::schedule::ExprRV(*i))
                        .map_err(schedule_error)?,
                )),
                Rv::Block(_) | Rv::Loop(_) => {
                    let node = s.sch.node_of("get", *rv).map_err(schedule_error)?;
                    let text = print_stmt(&node, &PrintOptions::new(s.ir_dialect));
                    let class = if matches!(rv, Rv::Block(_)) {
                        "tvm.s_tir.stmt.SBlock"
                    } else {
                        "tvm.tirx.stmt.For"
                    };
                    Ok(host(Obj::IRText {
                        text: text.trim_end().to_string(),
                        class,
                        node: Some(node),
                        dialect: s.ir_dialect,
                    }))
                }
            };
        }
        "fork_seed" => return Ok(Value::Int((cell.borrow_mut().sch.fork_seed() >> 33) as i64)),
        "seed" => {
            let s = a.pos.first().and_then(num_i64).unwrap_or(0);
            cell.borrow_mut().sch.seed(s as u64);
            return Ok(Value::None);
        }
        "show" => {
            let text = {
                let s = cell.borrow();
                print_mod(s.sch.module(), s.ir_dialect)
            };
            it.stdout(format!("{}\n", text.trim_end()));
            return Ok(Value::None);
        }
        "remove_rv" => {
            let v = a.req(0, "rand_var", "remove_rv")?;
            a.done("remove_rv", 1)?;
            let mut s = cell.borrow_mut();
            return super::super::schedule_state::remove_rv(&mut s, &v);
        }
        "get_sref" => {
            a.done("get_sref", 1)?;
            let v = a.pos.first().cloned().ok_or_else(|| {
                PyErr::type_error(
                    "get_sref() missing 1 required positional argument: 'rand_var_or_stmt'",
                )
            })?;
            let s = cell.borrow();
            return super::super::schedule_state::get_sref(it, &s, &v);
        }
        _ => {}
    }
    {
        let s = cell.borrow();
        for v in a.pos.iter().chain(a.kw.iter().map(|(_, v)| v)) {
            super::super::schedule_state::check_handles(it, &s, v)?;
        }
    }
    let mut positional = Vec::with_capacity(a.pos.len());
    for (k, v) in a.pos.iter().enumerate() {
        positional.push(match typed_pad_value(name, k == 3, v) {
            Some(text) => SchedValue::Source(text),
            None => to_sched(it, v)?,
        });
    }
    let mut keywords = Vec::with_capacity(a.kw.len());
    for (k, v) in &a.kw {
        keywords.push((
            k.to_string(),
            match typed_pad_value(name, &**k == "pad_value", v) {
                Some(text) => SchedValue::Source(text),
                None => to_sched(it, v)?,
            },
        ));
    }
    it.charge_steps(100)?;
    let (result, dialect, id) = {
        let mut s = cell.borrow_mut();
        if name == "tensorize" {
            s.sch.set_tensor_intrins(it.intrins.clone());
        }
        // A tile factor left to infer is Python's `None`.
        let r = s
            .sch
            .call(name, positional, keywords)
            .map(|out| absent_as_none(&s.sch, out));
        (r, s.sch.dialect, s.id)
    };
    let out = match result {
        Ok(out) => out,
        Err(e) => {
            if e.is_left_out() {
                // A host whose full build is elsewhere (the playground's
                // first-load worker) learns here that the script needs it,
                // as from `tvm.build`, and runs the script again there.
                let _ = it.backend.ensure_loaded(Target::llvm().kind);
            }
            return Err(call_error(name, e));
        }
    };
    from_sched(it, out, dialect, id)
}

/// `transform_layout`'s `pad_value` given as a typed constant
/// (`tvm.tirx.IntImm("int8", 0)`) keeps its type, which TVM checks against
/// the buffer's: passed as its TVMScript text (`T.int8(0)`).
fn typed_pad_value(method: &str, is_pad_value: bool, v: &Value) -> Option<String> {
    if method != "transform_layout" || !is_pad_value {
        return None;
    }
    let Value::Host(o) = v else { return None };
    match tvm_obj(o) {
        Some(Obj::Te(super::super::te::TeObj::Expr(e))) => match e.kind() {
            tessel_ir::ExprKind::Int(i) => Some(format!("T.{}({i})", e.dtype())),
            tessel_ir::ExprKind::Float(f) => Some(format!("T.{}({f:?})", e.dtype())),
            _ => None,
        },
        _ => None,
    }
}

/// TVM's `same_as`: whether two values hold the same IR object, not merely
/// equal ones. Functions and the statements `sch.get` returns compare by
/// node; other objects only by the Python object itself. Tessel may wrap one
/// TVM object in several, and rebuilds the statements around a rewritten
/// part where TVM keeps unchanged nodes, so this can say no where TVM says
/// yes, never the reverse.
pub(super) fn same_object(o: &Obj, recv: &Value, other: &Value) -> bool {
    match (o, obj_of(other)) {
        (Obj::PrimFunc { func: a, .. }, Some(Obj::PrimFunc { func: b, .. })) => Rc::ptr_eq(a, b),
        (Obj::IRText { node: Some(a), .. }, Some(Obj::IRText { node: Some(b), .. })) => {
            a.same_node(b)
        }
        (Obj::SRef(a), Some(Obj::SRef(b))) => a.same(b),
        _ => recv.identity().is_some() && recv.identity() == other.identity(),
    }
}
