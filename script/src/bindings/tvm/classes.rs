//! Class attributes and constructors of the `tvm.*` classes: `IRModule`,
//! `TensorIntrin` and friends.

use super::*;

fn irmodule_from_dict(it: &mut Interp, funcs: Option<Value>) -> Res<Value> {
    let mut module = IRModule::new();
    let mut dialect = None;
    if let Some(Value::Dict(d)) = &funcs {
        for (k, v) in d.borrow().items() {
            let name = func_name_arg(&k)?;
            let (func, d) = module_func_arg(&v, "IRModule")?;
            if let Some(d) = d {
                dialect.get_or_insert(d);
            }
            module.insert(name, func);
        }
    } else if let Some(v) = funcs {
        if !matches!(v, Value::None) {
            return Err(PyErr::type_error(format!(
                "IRModule expects a dict of functions, got {}",
                it.repr(&v)?
            )));
        }
    }
    Ok(host(Obj::IRModule {
        module: RefCell::new(module),
        dialect: dialect.unwrap_or_default(),
    }))
}

fn irmodule_from_expr(it: &mut Interp, mut a: Args) -> Res<Value> {
    let f = a.req(0, "expr", "from_expr")?;
    // A graph function goes in under its global symbol, or as `main`.
    if let Some(Obj::Relax(super::super::relax::RObj::Func(g))) = obj_of(&f) {
        let name = match g.attrs.get("global_symbol") {
            Some(AttrValue::Str(s)) => s.clone(),
            _ => "main".to_string(),
        };
        let mut out = IRModule::new();
        out.insert(name, BaseFunc::Graph(g.clone()));
        return Ok(host(Obj::IRModule {
            module: RefCell::new(out),
            dialect: Dialect::default(),
        }));
    }
    let (m, dialect) = module_arg(&f, "IRModule.from_expr")?;
    let mut out = IRModule::new();
    if let Some((_, func)) = m.prim_funcs().next() {
        // Named by its global symbol, like TVM.
        let name = name_of(func).unwrap_or_else(|| "main".into());
        out.insert(name, BaseFunc::Prim(func.clone()));
    }
    let _ = it;
    Ok(host(Obj::IRModule {
        module: RefCell::new(out),
        dialect,
    }))
}

pub fn class_attr(_it: &mut Interp, c: &Rc<Class>, name: &str) -> Res<Option<Value>> {
    Ok(match (c.display_name().as_str(), name) {
        ("tvm.ir.module.IRModule", "from_expr") => Some(builtin(
            "tvm.ir.module.IRModule.from_expr",
            irmodule_from_expr,
        )),
        ("tvm.s_tir.schedule.TensorIntrin", "register") => {
            Some(builtin("tvm.s_tir.TensorIntrin.register", intrin_register))
        }
        ("tvm.s_tir.schedule.TensorIntrin", "get") => {
            Some(builtin("tvm.s_tir.TensorIntrin.get", intrin_get))
        }
        // The debug checks a schedule may run (an IntFlag in TVM); Tessel
        // always checks what its primitives check, and with
        // VERIFY_CACHED_FLAGS refuses what TVM's re-check would.
        ("tvm.s_tir.schedule.state.ScheduleDebugMask", "VERIFY_SREF_TREE") => Some(Value::Int(1)),
        ("tvm.s_tir.schedule.state.ScheduleDebugMask", "VERIFY_CACHED_FLAGS") => {
            Some(Value::Int(2))
        }
        _ => None,
    })
}

fn prim_func_arg(v: &Value, what: &str) -> Res<Rc<PrimFunc>> {
    match v {
        Value::Host(o) => match tvm_obj(o) {
            Some(Obj::PrimFunc { func, .. }) => Ok(func.clone()),
            _ => Err(PyErr::type_error(format!("{what} must be a PrimFunc"))),
        },
        _ => Err(PyErr::type_error(format!("{what} must be a PrimFunc"))),
    }
}

/// `TensorIntrin.register(name, desc, impl, override=False)`.
fn intrin_register(it: &mut Interp, mut a: Args) -> Res<Value> {
    let name = a.req(0, "name", "register")?;
    let name = name
        .as_str()
        .ok_or_else(|| PyErr::type_error("the intrinsic's name must be a string"))?
        .to_string();
    let desc = a.req(1, "desc", "register")?;
    let desc = prim_func_arg(&desc, "desc")?;
    let imp = a.req(2, "impl", "register")?;
    let imp = prim_func_arg(&imp, "impl")?;
    let over = match a.take(3, "override") {
        Some(v) => it.truthy(&v)?,
        None => false,
    };
    it.intrins
        .register(&name, desc, imp, over)
        .map_err(|e| PyErr::value_error(e.to_string()))?;
    Ok(Value::None)
}

/// `TensorIntrin.get(name, allow_missing=False)`: the description and implementation.
fn intrin_get(it: &mut Interp, mut a: Args) -> Res<Value> {
    let name = a.req(0, "name", "get")?;
    let name = name.as_str().unwrap_or("").to_string();
    let allow_missing = match a.take(1, "allow_missing") {
        Some(v) => it.truthy(&v)?,
        None => false,
    };
    match it.intrins.get(&name) {
        Some(i) => Ok(Value::tuple(vec![
            host(Obj::PrimFunc {
                func: i.desc.clone(),
                dialect: Dialect::default(),
            }),
            host(Obj::PrimFunc {
                func: i.implementation.clone(),
                dialect: Dialect::default(),
            }),
        ])),
        None if allow_missing => Ok(Value::None),
        None => Err(PyErr::value_error(format!(
            "TensorIntrin `{name}` is not registered"
        ))),
    }
}

pub fn construct(it: &mut Interp, c: &Rc<Class>, mut a: Args) -> Res<Value> {
    match c.display_name().as_str() {
        "tvm.ir.module.IRModule" => {
            let funcs = a.take(0, "functions");
            let _ = a.take(1, "attrs");
            irmodule_from_dict(it, funcs)
        }
        "tvm.s_tir.schedule.schedule.Schedule" => new_schedule(it, a, TraceDialect::STir),
        "tvm.tir.schedule.schedule.Schedule" => new_schedule(it, a, TraceDialect::Tir),
        "tvm.target.target.Target" => {
            let t = a.req(0, "target", "Target")?;
            let mut target = target_arg(it, Some(t))?;
            if let Some(h) = a.take_kw("host").filter(|h| !matches!(h, Value::None)) {
                target = target.with_host(target_arg(it, Some(h))?);
            }
            Ok(host(Obj::Target(target)))
        }
        other => Err(PyErr::type_error(format!(
            "cannot create '{other}' objects directly"
        ))),
    }
}
