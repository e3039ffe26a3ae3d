//! Registries kept in hidden modules of the run: functions registered with
//! `tvm.register_func` and the like.

use super::*;

// ----------------------------------------------------------------------------
// Registries kept in hidden modules of the run

pub(super) fn registry_module(it: &mut Interp, key: &str) -> Value {
    if let Some(m) = it.modules.get(key) {
        return m.clone();
    }
    let m = Value::Module(Rc::new(ModuleObj {
        name: key.to_string(),
        attrs: RefCell::new(HashMap::new()),
        missing_note: None,
    }));
    it.modules.insert(key.to_string(), m.clone());
    m
}

pub(super) fn registered(it: &mut Interp, name: &str) -> Option<Value> {
    match it.modules.get(REGISTRY)? {
        Value::Module(m) => m.attrs.borrow().get(name).cloned(),
        _ => None,
    }
}

/// `tvm.register_func(name, f=None, override=False)`: a decorator when `f`
/// is missing.
pub(super) fn register_func(it: &mut Interp, mut a: Args) -> Res<Value> {
    // The decorator's second stage carries the name in `data`.
    if let Some(Value::Tuple(d)) = a.data.clone() {
        let name = d[0].as_str().unwrap_or_default().to_string();
        let overr = matches!(d[1], Value::Bool(true));
        let f = a.req(0, "f", "register_func")?;
        return do_register(it, &name, f, overr);
    }
    let first = a.req(0, "func_name", "register_func")?;
    let f = a.take(1, "f");
    let overr = a
        .take(2, "override")
        .map(|v| matches!(v, Value::Bool(true)))
        .unwrap_or(false);
    a.done("register_func", 3)?;
    match (&first, f) {
        (Value::Str(name), Some(f)) if !matches!(f, Value::None) => do_register(it, name, f, overr),
        (Value::Str(name), _) => Ok(builtin_with(
            "tvm.register_func.<decorator>",
            register_func,
            Value::tuple(vec![Value::str(&**name), Value::Bool(overr)]),
        )),
        // `@tvm.register_func` on a function: registered under its own name.
        (f, _) => {
            let name = match f {
                Value::Func(func) => func.name.to_string(),
                _ => {
                    return Err(PyErr::type_error(
                        "register_func() takes a name or a function",
                    ))
                }
            };
            do_register(it, &name, f.clone(), overr)
        }
    }
}

pub(super) fn do_register(it: &mut Interp, name: &str, f: Value, overr: bool) -> Res<Value> {
    if registered(it, name).is_some() && !overr {
        return Err(PyErr::new(
            ExcKind::TVMError,
            format!(
                "Global Function `{name}` is already registered (pass override=True to replace it)"
            ),
        ));
    }
    let reg = registry_module(it, REGISTRY);
    if let Value::Module(m) = &reg {
        m.attrs.borrow_mut().insert(name.to_string(), f.clone());
    }
    Ok(f)
}

pub(super) fn get_global_func(it: &mut Interp, mut a: Args) -> Res<Value> {
    let name = a.req(0, "name", "get_global_func")?;
    let allow_missing = a
        .take(1, "allow_missing")
        .map(|v| matches!(v, Value::Bool(true)))
        .unwrap_or(false);
    let name = name.as_str().unwrap_or_default().to_string();
    match registered(it, &name) {
        Some(f) => Ok(f),
        None if allow_missing => Ok(Value::None),
        None => Err(PyErr::value_error(format!(
            "Cannot find global function {name}"
        ))),
    }
}
