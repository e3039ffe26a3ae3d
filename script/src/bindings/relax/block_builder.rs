//! `relax.BlockBuilder`: functions, dataflow blocks, `emit`, `emit_te`,
//! `call_te` and the module it builds.

use super::*;

// ----------------------------------------------------------------------------
// BlockBuilder

pub(super) fn builder_new(_it: &mut Interp, mut a: Args) -> Res<Value> {
    let m = a.take(0, "mod");
    let module = match m {
        Some(Value::Host(o)) => match tvm_obj(&o) {
            Some(Obj::IRModule { module, .. }) => module.borrow().clone(),
            _ => IRModule::new(),
        },
        _ => IRModule::new(),
    };
    Ok(host(RObj::Builder(RefCell::new(Builder {
        module,
        func: None,
    }))))
}

pub(super) fn bb_of(v: &Value) -> Res<&RefCell<Builder>> {
    match relax_obj(v) {
        Some(RObj::Builder(b)) => Ok(b),
        _ => Err(PyErr::type_error("expected a BlockBuilder")),
    }
}

/// A `with` scope: an instance whose `__enter__`/`__exit__` are builtins
/// carrying the builder and the scope's kind.
pub(super) fn scope(it: &mut Interp, bb: &Value, kind: &str) -> Value {
    let class = it
        .types
        .host_class("tvm.relax.block_builder.BlockBuilderScope");
    let data = Value::tuple(vec![bb.clone(), Value::str(kind)]);
    let mut dict = HashMap::new();
    dict.insert(
        "__enter__".to_string(),
        builtin_with("BlockBuilder.__enter__", scope_enter, data.clone()),
    );
    dict.insert(
        "__exit__".to_string(),
        builtin_with("BlockBuilder.__exit__", scope_exit, data),
    );
    Value::Instance(Rc::new(Instance {
        class,
        dict: RefCell::new(dict),
    }))
}

pub(super) fn scope_data(a: &Args) -> Res<(Value, String)> {
    match &a.data {
        Some(Value::Tuple(d)) if d.len() == 2 => {
            Ok((d[0].clone(), d[1].as_str().unwrap_or_default().to_string()))
        }
        _ => Err(PyErr::type_error("not a BlockBuilder scope")),
    }
}

pub(super) fn scope_enter(_it: &mut Interp, a: Args) -> Res<Value> {
    let (bbv, kind) = scope_data(&a)?;
    let bb = bb_of(&bbv)?;
    let mut b = bb.borrow_mut();
    if kind == "dataflow" {
        let Some(f) = b.func.as_mut() else {
            return Err(PyErr::value_error(
                "bb.dataflow() must be inside `with bb.function(...)`",
            ));
        };
        if f.in_dataflow {
            return Err(PyErr::value_error("dataflow blocks cannot nest"));
        }
        f.flush();
        f.in_dataflow = true;
    }
    Ok(Value::None)
}

pub(super) fn scope_exit(_it: &mut Interp, a: Args) -> Res<Value> {
    let (bbv, kind) = scope_data(&a)?;
    let failing = !matches!(a.pos.first(), None | Some(Value::None));
    let bb = bb_of(&bbv)?;
    let mut b = bb.borrow_mut();
    if kind == "dataflow" {
        if let Some(f) = b.func.as_mut() {
            f.flush();
            f.in_dataflow = false;
        }
        return Ok(Value::Bool(false));
    }
    let f = b.func.take();
    if failing {
        return Ok(Value::Bool(false));
    }
    match f {
        Some(f) if f.done => Ok(Value::Bool(false)),
        Some(f) => Err(PyErr::value_error(format!(
            "function `{}` was not finished: call bb.emit_func_output(...) inside `with bb.function(...)`",
            f.name
        ))),
        None => Ok(Value::Bool(false)),
    }
}

pub(super) fn flag(v: Option<Value>) -> Option<bool> {
    v.map(|v| matches!(v, Value::Bool(true)))
}

pub(super) fn params_arg(it: &mut Interp, v: Option<Value>) -> Res<Option<Vec<Var>>> {
    match v {
        None | Some(Value::None) => Ok(None),
        Some(v) => {
            let items = match relax_obj(&v) {
                Some(RObj::Var(_)) => vec![v.clone()],
                _ => it.items_of(&v)?,
            };
            let mut out = Vec::new();
            for x in items {
                match relax_obj(&x) {
                    Some(RObj::Var(var)) => out.push(var.clone()),
                    _ => {
                        return Err(PyErr::type_error(format!(
                            "function parameters must be relax.Var, not {}",
                            x.type_name()
                        )))
                    }
                }
            }
            Ok(Some(out))
        }
    }
}

/// Binds `e` (normalising nested calls first) in the current block.
pub(super) fn emit_expr(b: &mut Builder, e: Expr, hint: Option<&str>, output: bool) -> Res<Var> {
    let e = normalize_args(b, e)?;
    let sinfo = expr_sinfo(&e, &b.module).map_err(|m| PyErr::new(ExcKind::TVMError, m))?;
    let Some(f) = b.func.as_mut() else {
        return Err(PyErr::value_error(
            "bb.emit must be inside `with bb.function(...)`",
        ));
    };
    // A dataflow variable may not escape its block.
    let mut escaped = None;
    e.for_each_var(&mut |v| {
        if v.is_dataflow() && !f.in_dataflow {
            escaped = Some(v.name().to_string());
        }
    });
    if let Some(n) = escaped {
        return Err(PyErr::value_error(format!(
            "the dataflow variable `{n}` is used outside its dataflow block (emit it with bb.emit_output)"
        )));
    }
    let dataflow = f.in_dataflow && !output;
    let default = if dataflow { "lv" } else { "gv" };
    let name = f.fresh_name(hint.filter(|h| !h.is_empty()).unwrap_or(default));
    let var = Var::with(name, sinfo, dataflow, Default::default());
    f.cur.push(Binding::new(var.clone(), e));
    Ok(var)
}

/// The arguments of a call that are themselves calls get their own bindings.
pub(super) fn normalize_args(b: &mut Builder, e: Expr) -> Res<Expr> {
    match e.kind() {
        ExprKind::Call(c) => {
            let mut c = c.clone();
            for a in c.args.iter_mut() {
                *a = leaf(b, a.clone())?;
            }
            Ok(Expr::call(c))
        }
        ExprKind::Tuple(fields) => {
            let mut out = Vec::with_capacity(fields.len());
            for x in fields {
                out.push(leaf(b, x.clone())?);
            }
            Ok(Expr::tuple(out))
        }
        _ => Ok(e),
    }
}

pub(super) fn leaf(b: &mut Builder, e: Expr) -> Res<Expr> {
    match e.kind() {
        ExprKind::Call(_) => Ok(emit_expr(b, e, None, false)?.to_expr()),
        ExprKind::Tuple(_) => normalize_args(b, e),
        _ => Ok(e),
    }
}

pub(super) fn builder_method(it: &mut Interp, bbv: &Value, name: &str, mut a: Args) -> Res<Value> {
    let bb = bb_of(bbv)?;
    match name {
        "function" => begin_function(it, bbv, bb, a),
        "dataflow" => {
            a.done("dataflow", 0)?;
            Ok(scope(it, bbv, "dataflow"))
        }
        "emit" | "emit_output" | "emit_normalized" => {
            let v = a.req(0, "expr", name)?;
            let hint = a.take(1, "name_hint");
            a.done(name, 2)?;
            let hint = match hint {
                Some(h) if !matches!(h, Value::None) => Some(it.str_of(&h)?),
                _ => None,
            };
            let e = to_expr(it, &v)?;
            let output = name == "emit_output";
            let mut b = bb.borrow_mut();
            if output && !b.func.as_ref().map(|f| f.in_dataflow).unwrap_or(false) {
                return Err(PyErr::value_error(
                    "bb.emit_output must be called inside a dataflow block (`with bb.dataflow():`)",
                ));
            }
            let var = emit_expr(&mut b, e, hint.as_deref(), output)?;
            Ok(host(RObj::Var(var)))
        }
        "emit_func_output" => emit_func_output(it, bb, a),
        "get" | "finalize" | "add_func" | "update_func" => builder_module_method(it, bb, name, a),
        "emit_te" | "call_te" => {
            let e = te_call_expr(it, bb, name, a)?;
            if name == "call_te" {
                return Ok(host(RObj::Expr(e)));
            }
            let mut b = bb.borrow_mut();
            let var = emit_expr(&mut b, e, None, false)?;
            Ok(host(RObj::Var(var)))
        }
        "normalize" => {
            let v = a.req(0, "expr", name)?;
            Ok(v)
        }
        _ => Err(PyErr::attribute_error(format!(
            "'BlockBuilder' object has no attribute '{name}'"
        ))),
    }
}

/// `bb.function(name, params, attrs, pure, private)`: opens a function scope.
fn begin_function(it: &mut Interp, bbv: &Value, bb: &RefCell<Builder>, mut a: Args) -> Res<Value> {
    let fname = a.req(0, "name", "function")?;
    let fname = it.str_of(&fname)?;
    let params = params_arg(it, a.take(1, "params"))?;
    let _attrs = a.take(2, "attrs");
    let pure = flag(a.take(3, "pure")).unwrap_or(true);
    let private = flag(a.take(4, "private")).unwrap_or(false);
    a.done("function", 5)?;
    let mut b = bb.borrow_mut();
    if b.func.is_some() {
        return Err(PyErr::value_error(
            "bb.function scopes cannot nest: finish the current function first",
        ));
    }
    let mut names = HashMap::new();
    for p in params.iter().flatten() {
        names.insert(p.name().to_string(), 1);
    }
    b.func = Some(FuncFrame {
        name: fname,
        params,
        private,
        pure,
        blocks: Vec::new(),
        cur: Vec::new(),
        in_dataflow: false,
        names,
        done: false,
    });
    drop(b);
    Ok(scope(it, bbv, "function"))
}

/// `bb.emit_func_output(output, params)`: closes the current function and
/// adds it to the module.
fn emit_func_output(it: &mut Interp, bb: &RefCell<Builder>, mut a: Args) -> Res<Value> {
    let name = "emit_func_output";
    let out = a.req(0, "output", name)?;
    let params = params_arg(it, a.take(1, "params"))?;
    a.done(name, 2)?;
    let e = to_expr(it, &out)?;
    let mut b = bb.borrow_mut();
    {
        let Some(f) = b.func.as_mut() else {
            return Err(PyErr::value_error(
                "bb.emit_func_output must be inside `with bb.function(...)`",
            ));
        };
        if f.in_dataflow {
            return Err(PyErr::value_error(
                "bb.emit_func_output must be called outside the dataflow block",
            ));
        }
        if f.done {
            return Err(PyErr::value_error(
                "bb.emit_func_output was already called for this function",
            ));
        }
        if let Some(p) = params {
            if f.params.is_some() {
                return Err(PyErr::value_error(
                    "the parameters were given to bb.function already",
                ));
            }
            f.params = Some(p);
        }
    }
    let body = match e.kind() {
        ExprKind::Call(_) => emit_expr(&mut b, e, None, false)?.to_expr(),
        _ => normalize_args(&mut b, e)?,
    };
    let ret = expr_sinfo(&body, &b.module).map_err(|m| PyErr::new(ExcKind::TVMError, m))?;
    let Some(f) = b.func.as_mut() else {
        return Err(PyErr::value_error("no function"));
    };
    let mut escaped = None;
    body.for_each_var(&mut |v| {
        if v.is_dataflow() {
            escaped = Some(v.name().to_string());
        }
    });
    if let Some(n) = escaped {
        return Err(PyErr::value_error(format!(
            "the function returns the dataflow variable `{n}`: emit it with bb.emit_output first"
        )));
    }
    let Some(params) = f.params.clone() else {
        return Err(PyErr::value_error(format!(
            "function `{}` has no parameters: pass params= to bb.function or bb.emit_func_output",
            f.name
        )));
    };
    f.flush();
    f.done = true;
    let mut attrs = std::collections::BTreeMap::new();
    if !f.private {
        attrs.insert("global_symbol".to_string(), AttrValue::Str(f.name.clone()));
    }
    let func = Function {
        params,
        body: SeqExpr {
            blocks: std::mem::take(&mut f.blocks),
            body,
        },
        ret,
        attrs,
        pure: f.pure,
        span: Default::default(),
    };
    let fname = f.name.clone();
    b.module.insert(fname, BaseFunc::Graph(Rc::new(func)));
    Ok(Value::None)
}

/// `bb.get()`/`bb.finalize()`, `bb.add_func` and `bb.update_func`: the module
/// being built.
fn builder_module_method(
    it: &mut Interp,
    bb: &RefCell<Builder>,
    name: &str,
    mut a: Args,
) -> Res<Value> {
    match name {
        "get" | "finalize" => {
            a.done(name, 0)?;
            let b = bb.borrow();
            Ok(Value::Host(Rc::new(Obj::IRModule {
                module: RefCell::new(b.module.clone()),
                dialect: Dialect::Tirx,
            })))
        }
        "add_func" => {
            let f = a.req(0, "func", name)?;
            let fname = a.req(1, "func_name", name)?;
            a.done(name, 2)?;
            let fname = it.str_of(&fname)?;
            let func = match &f {
                Value::Host(o) => match tvm_obj(o) {
                    Some(Obj::PrimFunc { func, .. }) => BaseFunc::Prim(func.clone()),
                    Some(Obj::Relax(RObj::Func(g))) => BaseFunc::Graph(g.clone()),
                    _ => {
                        return Err(PyErr::type_error(format!(
                            "add_func() takes a PrimFunc, not {}",
                            o.type_name()
                        )))
                    }
                },
                other => {
                    return Err(PyErr::type_error(format!(
                        "add_func() takes a PrimFunc, not {}",
                        other.type_name()
                    )))
                }
            };
            bb.borrow_mut().module.insert(fname.clone(), func);
            Ok(Value::Host(Rc::new(Obj::GlobalVar(fname))))
        }
        "update_func" => {
            let gv = a.req(0, "gv", name)?;
            let f = a.req(1, "updated_func", name)?;
            a.done(name, 2)?;
            let gname = crate::bindings::tvm::func_name_arg(&gv)?;
            let func = match &f {
                Value::Host(o) => match tvm_obj(o) {
                    Some(Obj::PrimFunc { func, .. }) => BaseFunc::Prim(func.clone()),
                    Some(Obj::Relax(RObj::Func(g))) => BaseFunc::Graph(g.clone()),
                    _ => return Err(PyErr::type_error("update_func() takes a function")),
                },
                _ => return Err(PyErr::type_error("update_func() takes a function")),
            };
            bb.borrow_mut().module.insert(gname, func);
            Ok(Value::None)
        }
        _ => Err(PyErr::attribute_error(format!(
            "'BlockBuilder' object has no attribute '{name}'"
        ))),
    }
}

/// A graph argument of `emit_te` as what the TE function receives: tensors
/// become placeholders named after the variable (kept in `map` with their
/// graph expression), tuples and lists convert item by item, anything else
/// (numbers, strings) passes through.
pub(super) fn te_arg(
    it: &mut Interp,
    v: &Value,
    index: usize,
    map: &mut Vec<(compiler_core::te::Tensor, Expr)>,
) -> Res<Value> {
    if let Some(r) = relax_obj(v) {
        // TVM names the placeholder of an expression that is not a variable
        // after the argument's position (`A`, `B`, …).
        let (e, name) = match r {
            RObj::Var(var) => (var.to_expr(), var.name().to_string()),
            RObj::Expr(e) => (
                e.clone(),
                char::from_u32('A' as u32 + (index % 26) as u32)
                    .unwrap_or('A')
                    .to_string(),
            ),
            _ => return Ok(v.clone()),
        };
        if let Some((t, _)) = map.iter().find(|(_, x)| same_expr(x, &e)) {
            return Ok(crate::bindings::te::tensor_value(t.clone()));
        }
        let info = match &e.kind() {
            ExprKind::Var(var) => var.sinfo().clone(),
            ExprKind::Constant(arr) => StructInfo::tensor_of(
                arr.shape()
                    .iter()
                    .map(|&d| PrimExpr::i64(d as i64))
                    .collect(),
                arr.dtype(),
            ),
            _ => StructInfo::Tensor(TensorInfo::with_ndim(None, None)),
        };
        let StructInfo::Tensor(ti) = info else {
            return Err(PyErr::type_error(format!(
                "emit_te: argument `{name}` is not a tensor (only tensors, numbers and lists of them convert to tensor expressions)"
            )));
        };
        let (Some(shape), Some(dtype)) = (ti.shape.clone(), ti.dtype) else {
            return Err(PyErr::value_error(format!(
                "emit_te: argument `{name}` needs a known shape and dtype"
            )));
        };
        let t = compiler_core::te::placeholder(&shape, dtype, &name)
            .map_err(|e| PyErr::value_error(e.message))?;
        map.push((t.clone(), e));
        return Ok(crate::bindings::te::tensor_value(t));
    }
    match v {
        Value::Tuple(_) | Value::List(_) => {
            let items = it.items_of(v)?;
            let mut out = Vec::with_capacity(items.len());
            for x in &items {
                out.push(te_arg(it, x, index, map)?);
            }
            Ok(Value::tuple(out))
        }
        Value::Host(o) if matches!(tvm_obj(o), Some(Obj::Tensor { .. })) => Err(PyErr::type_error(
            "emit_te: pass tensors as Relax expressions (relax.const(...)), not runtime tensors",
        )),
        other => Ok(other.clone()),
    }
}

pub(super) fn same_expr(a: &Expr, b: &Expr) -> bool {
    match (a.kind(), b.kind()) {
        (ExprKind::Var(x), ExprKind::Var(y)) => x.id() == y.id(),
        _ => false,
    }
}

/// `bb.emit_te(f, *args, **kwargs)` / `bb.call_te(...)`: runs the TE function
/// on placeholders for the graph arguments, adds the PrimFunc it makes to the
/// builder's module (private, named after `f` or `primfunc_name_hint`, reusing
/// a structurally equal one as TVM does) and returns the `R.call_tir`.
pub(super) fn te_call_expr(
    it: &mut Interp,
    bb: &RefCell<Builder>,
    what: &str,
    mut a: Args,
) -> Res<Expr> {
    if a.pos.is_empty() {
        return Err(PyErr::type_error(format!(
            "{what}() missing 1 required positional argument: 'func'"
        )));
    }
    let f = a.pos.remove(0);
    let hint = a.take_kw("primfunc_name_hint");
    let _ = a.take_kw("name_hint");
    let _ = a.take_kw("primfunc_attrs");
    let mut map = Vec::new();
    let mut pos = Vec::with_capacity(a.pos.len());
    for (i, v) in a.pos.iter().enumerate() {
        pos.push(te_arg(it, v, i, &mut map)?);
    }
    let mut kw = Vec::with_capacity(a.kw.len());
    for (i, (k, v)) in a.kw.iter().enumerate() {
        kw.push((k.clone(), te_arg(it, v, a.pos.len() + i, &mut map)?));
    }
    let base = match hint {
        Some(Value::Str(s)) => s.to_string(),
        _ => match it.get_attr(&f, "__name__")? {
            Value::Str(s) => s.to_string(),
            _ => "te_func".to_string(),
        },
    };
    let call = crate::bindings::te::call_te_function(
        it,
        &f,
        Args {
            pos,
            kw,
            data: None,
        },
        Some(DataType::i64()),
    )?;
    let mut func = call.func;
    func.attrs.remove("global_symbol");
    let mut args = Vec::with_capacity(call.inputs.len());
    for t in &call.inputs {
        let Some((_, e)) = map.iter().find(|(x, _)| x == t) else {
            return Err(PyErr::value_error(format!(
                "{what}: tensor `{}` is not an argument of the call",
                t.name()
            )));
        };
        args.push(e.clone());
    }
    let outs: Vec<StructInfo> = call
        .outputs
        .iter()
        .map(|t| {
            let dims = t
                .shape()
                .iter()
                .map(|d| d.as_int().map_or_else(|| d.clone(), PrimExpr::i64))
                .collect();
            StructInfo::tensor_of(dims, t.dtype())
        })
        .collect();
    let out = if outs.len() == 1 {
        outs[0].clone()
    } else {
        StructInfo::Tuple(outs)
    };
    let n_params = func.params.len();
    if n_params != call.inputs.len() + call.outputs.len() {
        return Err(PyErr::new(
            ExcKind::NotImplementedError,
            format!("{what}: tensor expressions with symbolic sizes not bound by an input are not supported yet"),
        ));
    }
    let mut b = bb.borrow_mut();
    let name = 'found: {
        for (n, g) in b.module.prim_funcs() {
            if compiler_core::analysis::structural_equal::prim_func_equal(g, &func).is_ok() {
                break 'found n.to_string();
            }
        }
        let taken: std::collections::HashSet<String> =
            b.module.names().map(str::to_string).collect();
        let name = if taken.contains(&base) {
            (1..)
                .map(|i| format!("{base}{i}"))
                .find(|n| !taken.contains(n))
                .unwrap_or(base)
        } else {
            base
        };
        b.module.insert(name.clone(), BaseFunc::Prim(Rc::new(func)));
        name
    };
    Ok(Expr::call_tir(&name, args, out))
}
