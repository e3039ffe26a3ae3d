//! Graph functions as values, expression mutators written in Python, and
//! module passes.

use super::*;

// ----------------------------------------------------------------------------
// Graph functions as values, expression mutators, module passes

/// A graph function as a script value (`mod["main"]`).
pub fn func_value(f: &Rc<Function>) -> Value {
    host(RObj::Func(f.clone()))
}

pub(super) fn func_arg(v: &Value, what: &str) -> Res<Rc<Function>> {
    match relax_obj(v) {
        Some(RObj::Func(f)) => Ok(f.clone()),
        _ => Err(PyErr::type_error(format!(
            "{what} takes a relax.Function, not {}",
            v.type_name()
        ))),
    }
}

pub(super) fn simple_attr(v: &AttrValue) -> Value {
    match v {
        AttrValue::Bool(b) => Value::Bool(*b),
        AttrValue::Int(i) => Value::Int(*i),
        AttrValue::Float(f) => Value::Float(*f),
        AttrValue::Str(s) => Value::str(s.as_str()),
        other => Value::str(format!("{other:?}")),
    }
}

pub(super) fn to_attr(it: &mut Interp, v: &Value) -> Res<AttrValue> {
    Ok(match v {
        Value::Bool(b) => AttrValue::Bool(*b),
        Value::Int(i) => AttrValue::Int(*i),
        Value::Float(f) => AttrValue::Float(*f),
        Value::Str(s) => AttrValue::Str(s.to_string()),
        other => AttrValue::Str(it.str_of(other)?),
    })
}

pub(super) fn func_print(f: &Function, name: &str) -> String {
    let opts = tessel_ir::printer::PrintOptions::new(Dialect::Tirx);
    tessel_ir::printer::print_graph_func(f, name, &opts)
}

pub(super) fn func_name(f: &Function) -> String {
    match f.attrs.get("global_symbol") {
        Some(AttrValue::Str(s)) => s.clone(),
        _ => "main".to_string(),
    }
}

/// `relax.Call(op, args, attrs=None, sinfo_args=None)`.
pub(super) fn make_call(it: &mut Interp, mut a: Args) -> Res<Value> {
    let op = a.req(0, "op", "Call")?;
    let args = a.req(1, "args", "Call")?;
    let _attrs = a.take(2, "attrs");
    let sinfo_args = a.take(3, "sinfo_args");
    a.done("Call", 4)?;
    let items = it.items_of(&args)?;
    let mut exprs = Vec::with_capacity(items.len());
    for x in &items {
        exprs.push(to_expr(it, x)?);
    }
    let sinfo_args = match sinfo_args {
        None | Some(Value::None) => Vec::new(),
        Some(v) => {
            let items = it.items_of(&v)?;
            let mut out = Vec::new();
            for x in &items {
                out.push(to_sinfo(it, x)?);
            }
            out
        }
    };
    let callee = match (&op, relax_obj(&op)) {
        (_, Some(RObj::OpRef(n))) => {
            let op = match n.as_str() {
                "relax.add" => Op::Binary(BinaryOp::Add),
                "relax.subtract" => Op::Binary(BinaryOp::Subtract),
                "relax.multiply" => Op::Binary(BinaryOp::Multiply),
                "relax.divide" => Op::Binary(BinaryOp::Divide),
                "relax.nn.relu" => Op::Relu,
                "relax.matmul" => Op::Matmul { out_dtype: None },
                "relax.permute_dims" => Op::PermuteDims { axes: None },
                "relax.ewise_fma" => Op::EwiseFma,
                "relax.reshape" => Op::Reshape,
                "relax.nn.softmax" => Op::Softmax { axis: -1 },
                "relax.sum" => Op::Sum {
                    axis: None,
                    keepdims: false,
                },
                "relax.mean" => Op::Mean {
                    axis: None,
                    keepdims: false,
                },
                "relax.call_tir" => Op::CallTir,
                "relax.call_dps_packed" => Op::CallDpsPacked,
                other => {
                    return Err(PyErr::value_error(format!(
                        "relax.Call of `{other}` is not supported by Tessel"
                    )))
                }
            };
            compiler_core::graph::Callee::Op(op)
        }
        (Value::Host(o), _) if matches!(tvm_obj(o), Some(Obj::GlobalVar(_))) => {
            let Some(Obj::GlobalVar(n)) = tvm_obj(o) else {
                return Err(PyErr::type_error("not a GlobalVar"));
            };
            compiler_core::graph::Callee::Global(compiler_core::graph::GlobalVar::new(n))
        }
        _ => {
            return Err(PyErr::type_error(format!(
                "relax.Call takes an Op or a GlobalVar, not {}",
                op.type_name()
            )))
        }
    };
    Ok(host(RObj::Expr(Expr::call(compiler_core::graph::Call {
        callee,
        args: exprs,
        sinfo_args,
    }))))
}

const CONSTRUCTIBLE: &[&str] = &[
    "tvm.relax.expr.Call",
    "tvm.relax.expr.Var",
    "tvm.relax.expr_functor.PyExprMutator",
];

/// Whether [`construct`] creates instances of this host class.
pub fn constructs(c: &Class) -> bool {
    CONSTRUCTIBLE.contains(&c.display_name().as_str())
}

/// Host-class construction (`relax.Call(...)`, `relax.Var(...)`).
pub fn construct(it: &mut Interp, c: &Class, a: Args) -> Res<Value> {
    match c.display_name().as_str() {
        "tvm.relax.expr.Call" => make_call(it, a),
        "tvm.relax.expr.Var" => relax_var(it, a),
        _ => Err(PyErr::type_error(
            "create a PyExprMutator by subclassing it under @relax.expr_functor.mutator",
        )),
    }
}

/// `relax.analysis.remove_all_unused(func)`: drops the dataflow bindings
/// nothing uses (every operator here is pure).
pub(super) fn remove_all_unused(_it: &mut Interp, mut a: Args) -> Res<Value> {
    let f = a.req(0, "func", "remove_all_unused")?;
    let f = func_arg(&f, "remove_all_unused")?;
    Ok(func_value(&Rc::new(dce(&f))))
}

pub(super) fn dce(f: &Function) -> Function {
    let mut used: std::collections::HashSet<tessel_ir::VarId> = Default::default();
    f.body.body.for_each_var(&mut |v| {
        used.insert(v.id());
    });
    let mut blocks = f.body.blocks.clone();
    for block in blocks.iter_mut().rev() {
        let mut kept = Vec::with_capacity(block.bindings.len());
        for b in block.bindings.iter().rev() {
            let keep = !block.dataflow || !b.var.is_dataflow() || used.contains(&b.var.id());
            if keep {
                b.value.for_each_var(&mut |v| {
                    used.insert(v.id());
                });
                kept.push(b.clone());
            }
        }
        kept.reverse();
        block.bindings = kept;
    }
    blocks.retain(|b| !b.bindings.is_empty());
    Function {
        body: SeqExpr {
            blocks,
            body: f.body.body.clone(),
        },
        ..f.clone()
    }
}

/// Replaces variables by their new versions.
pub(super) fn remap(e: &Expr, map: &HashMap<tessel_ir::VarId, Var>) -> Expr {
    match e.kind() {
        ExprKind::Var(v) => match map.get(&v.id()) {
            Some(n) => n.to_expr(),
            None => e.clone(),
        },
        ExprKind::Tuple(fields) => Expr::tuple(fields.iter().map(|x| remap(x, map)).collect()),
        ExprKind::TupleGetItem(t, i) => {
            Expr::new(ExprKind::TupleGetItem(remap(t, map), *i), e.span())
        }
        ExprKind::Call(c) => {
            let mut c = c.clone();
            c.args = c.args.iter().map(|x| remap(x, map)).collect();
            Expr::new(ExprKind::Call(c), e.span())
        }
        _ => e.clone(),
    }
}

/// `@relax.expr_functor.mutator`: the class is returned wrapped so that
/// constructing it also sets up the mutator's state (`builder_`,
/// `visit_expr`, `lookup_binding`, `visit_expr_post_order`).
pub(super) fn mutator_decorator(_it: &mut Interp, mut a: Args) -> Res<Value> {
    let cls = a.req(0, "cls", "mutator")?;
    if !matches!(cls, Value::Class(_)) {
        return Err(PyErr::type_error(
            "@relax.expr_functor.mutator decorates a class",
        ));
    }
    Ok(builtin_with(
        "tvm.relax.expr_functor.mutator.<class>",
        mutator_new,
        cls,
    ))
}

pub(super) fn mutator_new(it: &mut Interp, a: Args) -> Res<Value> {
    let Some(cls) = a.data.clone() else {
        return Err(PyErr::type_error("no class"));
    };
    let inst = it.call(
        &cls,
        Args {
            pos: a.pos.clone(),
            kw: a.kw.clone(),
            data: None,
        },
    )?;
    let Value::Instance(i) = &inst else {
        return Err(PyErr::type_error(
            "the mutator class did not create an instance",
        ));
    };
    let builder = host(RObj::Builder(RefCell::new(Builder::default())));
    let state = host(RObj::MutState(RefCell::new(HashMap::new())));
    let data = Value::tuple(vec![inst.clone(), builder.clone(), state]);
    let mut d = i.dict.borrow_mut();
    d.entry("builder_".into()).or_insert(builder);
    for (n, f) in [
        ("visit_expr", mutator_visit_expr as BuiltinFn),
        ("visit_expr_post_order", mutator_post_order as BuiltinFn),
        ("lookup_binding", mutator_lookup as BuiltinFn),
    ] {
        d.insert(
            n.to_string(),
            builtin_with(&format!("PyExprMutator.{n}"), f, data.clone()),
        );
    }
    drop(d);
    Ok(inst)
}

pub(super) fn mut_data(a: &Args) -> Res<(Value, Value, Value)> {
    match &a.data {
        Some(Value::Tuple(d)) if d.len() == 3 => Ok((d[0].clone(), d[1].clone(), d[2].clone())),
        _ => Err(PyErr::type_error("not a mutator")),
    }
}

pub(super) fn mutator_post_order(_it: &mut Interp, mut a: Args) -> Res<Value> {
    // Arguments are leaves (variables) already remapped by visit_expr.
    a.req(0, "expr", "visit_expr_post_order")
}

pub(super) fn mutator_lookup(_it: &mut Interp, mut a: Args) -> Res<Value> {
    let (_, _, state) = mut_data(&a)?;
    let v = a.req(0, "var", "lookup_binding")?;
    let Some(RObj::MutState(m)) = relax_obj(&state) else {
        return Ok(Value::None);
    };
    Ok(match relax_obj(&v) {
        Some(RObj::Var(var)) => match m.borrow().get(&var.id()) {
            Some(e) => wrap_expr(e.clone()),
            None => Value::None,
        },
        _ => Value::None,
    })
}

/// Rewrites a function binding by binding: each call goes through the
/// script's `visit_call_` (its arguments already rewritten); the result is
/// normalised and re-bound, keeping the variable when its struct info is
/// unchanged (as TVM's ExprMutator does).
pub(super) fn mutator_visit_expr(it: &mut Interp, mut a: Args) -> Res<Value> {
    let (inst, builder, state) = mut_data(&a)?;
    let f = a.req(0, "expr", "visit_expr")?;
    let f = func_arg(&f, "visit_expr")?;
    let Some(RObj::MutState(bindings)) = relax_obj(&state) else {
        return Err(PyErr::type_error("not a mutator"));
    };
    let visit_call = it.get_attr(&inst, "visit_call_").ok();
    let bb = bb_of(&builder)?;
    let mut map: HashMap<tessel_ir::VarId, Var> = HashMap::new();
    let mut blocks = Vec::new();
    for block in &f.body.blocks {
        {
            let mut b = bb.borrow_mut();
            let mut names = HashMap::new();
            for p in &f.params {
                names.insert(p.name().to_string(), 1);
            }
            for x in f.body.bindings() {
                names.insert(x.var.name().to_string(), 1);
            }
            b.func = Some(FuncFrame {
                name: func_name(&f),
                params: Some(f.params.clone()),
                private: false,
                pure: f.pure,
                blocks: Vec::new(),
                cur: Vec::new(),
                in_dataflow: block.dataflow,
                names,
                done: false,
            });
        }
        for binding in &block.bindings {
            let value = remap(&binding.value, &map);
            let new_value = match (value.kind(), &visit_call) {
                (ExprKind::Call(_), Some(vc)) => {
                    let r = it.call(vc, Args::new(vec![wrap_expr(value.clone())]))?;
                    to_expr(it, &r)?
                }
                _ => value,
            };
            let mut b = bb.borrow_mut();
            let new_value = normalize_args(&mut b, new_value)?;
            let sinfo =
                expr_sinfo(&new_value, &b.module).map_err(|m| PyErr::new(ExcKind::TVMError, m))?;
            let var = if tessel_ir::graph::sinfo_equal(&sinfo, binding.var.sinfo()) {
                binding.var.clone()
            } else {
                let v = Var::with(
                    binding.var.name(),
                    sinfo,
                    binding.var.is_dataflow(),
                    binding.var.span(),
                );
                map.insert(binding.var.id(), v.clone());
                v
            };
            bindings.borrow_mut().insert(var.id(), new_value.clone());
            if let Some(fr) = b.func.as_mut() {
                fr.cur.push(Binding {
                    var,
                    value: new_value,
                    span: binding.span,
                });
            }
        }
        let mut b = bb.borrow_mut();
        if let Some(mut fr) = b.func.take() {
            fr.flush();
            blocks.extend(fr.blocks);
        }
    }
    let body = remap(&f.body.body, &map);
    let ret = {
        let b = bb.borrow();
        expr_sinfo(&body, &b.module).map_err(|m| PyErr::new(ExcKind::TVMError, m))?
    };
    Ok(func_value(&Rc::new(Function {
        params: f.params.clone(),
        body: SeqExpr { blocks, body },
        ret,
        attrs: f.attrs.clone(),
        pure: f.pure,
        span: f.span,
    })))
}

/// `@tvm.ir.transform.module_pass(opt_level=..., name=...)`.
pub(super) fn module_pass(_it: &mut Interp, mut a: Args) -> Res<Value> {
    let first = a.take(0, "pass_func");
    let name = a.take_kw("name").unwrap_or(Value::None);
    let _ = a.take_kw("opt_level");
    let _ = a.take_kw("required");
    let _ = a.take_kw("traceable");
    match first {
        Some(Value::Class(_)) | Some(Value::Func(_)) => pass_decorate(
            _it,
            Args {
                pos: vec![first.unwrap_or(Value::None)],
                kw: Vec::new(),
                data: Some(name),
            },
        ),
        _ => Ok(builtin_with(
            "tvm.ir.transform.module_pass.<decorator>",
            pass_decorate,
            name,
        )),
    }
}

pub(super) fn pass_decorate(_it: &mut Interp, mut a: Args) -> Res<Value> {
    let target = a.req(0, "pass_func", "module_pass")?;
    match &target {
        // A function `(mod, ctx) -> mod` is the pass itself.
        Value::Func(_) => Ok(host(RObj::ModulePass(target.clone()))),
        // A class: calling it creates the pass.
        Value::Class(_) => Ok(builtin_with(
            "tvm.ir.transform.module_pass.<class>",
            pass_class_new,
            target.clone(),
        )),
        other => Err(PyErr::type_error(format!(
            "module_pass decorates a function or a class, not {}",
            other.type_name()
        ))),
    }
}

pub(super) fn pass_class_new(it: &mut Interp, a: Args) -> Res<Value> {
    let Some(cls) = a.data.clone() else {
        return Err(PyErr::type_error("no class"));
    };
    let inst = it.call(
        &cls,
        Args {
            pos: a.pos.clone(),
            kw: a.kw.clone(),
            data: None,
        },
    )?;
    Ok(host(RObj::ModulePass(inst)))
}

pub(super) fn run_pass(it: &mut Interp, p: &Value, a: Args) -> Res<Value> {
    let m = a
        .pos
        .first()
        .cloned()
        .ok_or_else(|| PyErr::type_error("a pass takes an IRModule"))?;
    let r = match p {
        Value::Func(_) => it.call(p, Args::new(vec![m, Value::None]))?,
        _ => {
            let f = it.get_attr(p, "transform_module")?;
            it.call(&f, Args::new(vec![m, Value::None]))?
        }
    };
    Ok(r)
}
