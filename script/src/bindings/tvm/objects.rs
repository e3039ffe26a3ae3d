//! Attribute access, method calls and indexing on TVM objects: modules,
//! functions, statements, schedules, runtime modules and tensors.

use super::*;

/// `v.name`, where `v` holds the TVM object `o`.
pub fn get_attr(it: &mut Interp, o: &Obj, v: &Value, name: &str) -> Res<Value> {
    if name == "same_as" {
        return bound_method(v, name);
    }
    match o {
        Obj::IRModule { .. } | Obj::PrimFunc { .. } | Obj::GlobalVar(_) | Obj::Attrs(_) => {
            ir_object_attr(it, o, v, name)
        }
        Obj::Schedule(_) | Obj::Trace { .. } | Obj::SRef(_) | Obj::State(_) => {
            schedule_object_attr(it, o, v, name)
        }
        Obj::Tensor { .. }
        | Obj::Device(_)
        | Obj::Target(_)
        | Obj::RtModule(_)
        | Obj::BenchmarkResult(_) => runtime_object_attr(it, o, v, name),
        Obj::IRText {
            node: Some(node),
            class,
            dialect,
            ..
        } => {
            let dialect = *dialect;
            match super::super::schedule_state::stmt_attr(it, node, class, name, dialect)? {
                Some(v) => Ok(v),
                None => no_attr(o, name),
            }
        }
        _ => no_attr(o, name),
    }
}

/// `recv.name` as a method bound to its receiver, called later.
fn bound_method(v: &Value, name: &str) -> Res<Value> {
    Ok(Value::BoundMethod(Rc::new((v.clone(), name.into()))))
}

/// The `AttributeError` for an attribute `o` does not have.
fn no_attr(o: &Obj, name: &str) -> Res<Value> {
    Err(PyErr::attribute_error(format!(
        "'{}' object has no attribute '{name}'",
        o.type_name()
    )))
}

/// Attributes of IR objects: modules, functions, global vars and attribute dictionaries.
fn ir_object_attr(it: &mut Interp, o: &Obj, v: &Value, name: &str) -> Res<Value> {
    match o {
        Obj::IRModule { module, dialect } => match name {
            "script" | "show" | "get_global_var" | "get_global_vars" | "update_func"
            | "with_attr" | "astext" => bound_method(v, name),
            "functions" => {
                let items: Vec<(String, Rc<PrimFunc>)> = module
                    .borrow()
                    .prim_funcs()
                    .map(|(n, f)| (n.to_string(), f.clone()))
                    .collect();
                let mut d = Dict::new();
                for (n, f) in items {
                    d.insert(
                        host(Obj::GlobalVar(n)),
                        host(Obj::PrimFunc {
                            func: f,
                            dialect: *dialect,
                        }),
                    )?;
                }
                let graphs: Vec<_> = module
                    .borrow()
                    .graph_funcs()
                    .map(|(n, f)| (n.to_string(), f.clone()))
                    .collect();
                for (n, f) in graphs {
                    d.insert(host(Obj::GlobalVar(n)), super::super::relax::func_value(&f))?;
                }
                Ok(it.new_dict(d))
            }
            "attrs" => {
                let attrs = module.borrow().attrs.clone();
                let mut items = Vec::new();
                for (k, a) in &attrs {
                    items.push((k.clone(), attr_to_value(it, a)?));
                }
                Ok(host(Obj::Attrs(items)))
            }
            _ => no_attr(o, name),
        },
        Obj::PrimFunc { func, dialect } => match name {
            "script" | "show" | "with_attr" | "without_attr" | "astext" => bound_method(v, name),
            "body" => Ok(super::super::schedule_state::stmt_value(
                &func.body, false, *dialect,
            )),
            "attrs" => {
                let mut items = Vec::new();
                for (k, a) in &func.attrs {
                    items.push((k.clone(), attr_to_value(it, a)?));
                }
                Ok(host(Obj::Attrs(items)))
            }
            // TVM 0.27's parameters are variables typed by their buffer:
            // a handle's `.ty` has the buffer's shape and dtype.
            "params" => {
                let params: Vec<Value> = func
                    .params
                    .iter()
                    .map(|p| match func.param_buffer(p) {
                        Some(b) => compiler_core::te::placeholder(&b.shape, b.dtype, &b.name)
                            .map(super::super::te::tensor_value)
                            .unwrap_or_else(|_| Value::str(p.name().to_string())),
                        None => super::super::te::expr_value(p.to_expr()),
                    })
                    .collect();
                it.new_list(params)
            }
            _ => no_attr(o, name),
        },
        Obj::GlobalVar(n) => match name {
            "name_hint" => Ok(Value::str(n.as_str())),
            _ => no_attr(o, name),
        },
        Obj::Attrs(items) => match name {
            "keys" | "values" | "items" | "get" => bound_method(v, name),
            _ => match items.iter().find(|(k, _)| k == name) {
                Some((_, v)) => Ok(v.clone()),
                None => no_attr(o, name),
            },
        },
        _ => no_attr(o, name),
    }
}

/// Attributes of schedules, their traces, srefs and states.
fn schedule_object_attr(it: &mut Interp, o: &Obj, v: &Value, name: &str) -> Res<Value> {
    match o {
        Obj::Schedule(s) => match name {
            "mod" => {
                let s = s.borrow();
                Ok(host(Obj::IRModule {
                    module: RefCell::new(s.sch.module().clone()),
                    dialect: s.ir_dialect,
                }))
            }
            "trace" => Ok(super::super::schedule_state::trace_value(&s.borrow())),
            "state" => Ok(host(Obj::State(v.clone()))),
            "func_working_on" => {
                let n = s.borrow().sch.func_name().to_string();
                Ok(host(Obj::GlobalVar(n)))
            }
            _ => bound_method(v, name),
        },
        Obj::Trace { owner, insts, .. } => match name {
            "show" | "as_python" => bound_method(v, name),
            "insts" => super::super::schedule_state::trace_insts(it, *owner, insts),
            "decisions" => super::super::schedule_state::trace_decisions(it, *owner, insts),
            _ => no_attr(o, name),
        },
        Obj::SRef(r) => {
            super::super::schedule_state::sref_attr(r, name).map_or_else(|| no_attr(o, name), Ok)
        }
        Obj::State(sch) => match (name, obj_of(sch)) {
            ("mod", Some(o @ Obj::Schedule(_))) => get_attr(it, o, sch, "mod"),
            ("get_sref", _) => bound_method(v, name),
            _ => no_attr(o, name),
        },
        _ => no_attr(o, name),
    }
}

/// Attributes of runtime objects: tensors, devices, targets, modules and timings.
fn runtime_object_attr(it: &mut Interp, o: &Obj, v: &Value, name: &str) -> Res<Value> {
    match o {
        Obj::Tensor { data, device } => match name {
            "shape" => Ok(crate::python::numpy::shape_value(data.borrow().shape())),
            "dtype" => Ok(Value::NpDType(data.borrow().dtype())),
            "device" => Ok(host(Obj::Device(*device))),
            "ndim" => Ok(Value::Int(data.borrow().ndim() as i64)),
            "numpy" | "asnumpy" | "copyfrom" | "copyto" => bound_method(v, name),
            _ => no_attr(o, name),
        },
        Obj::Device(d) => match name {
            "type" => Ok(Value::str(d.kind)),
            "index" => Ok(Value::Int(d.index)),
            "exist" => Ok(Value::Bool(it.host.device_exists(d.kind))),
            "sync" | "dlpack_device_type" => bound_method(v, name),
            _ => no_attr(o, name),
        },
        Obj::Target(t) => match name {
            "kind" => Ok(Value::str(t.kind_name())),
            "keys" => {
                let keys: Vec<Value> = match t.kind_name() {
                    "cuda" => vec![Value::str("cuda"), Value::str("gpu")],
                    _ if t.is_gpu() => vec![Value::str("gpu")],
                    _ => vec![Value::str("cpu")],
                };
                it.new_list(keys)
            }
            _ => no_attr(o, name),
        },
        Obj::RtModule(m) => match name {
            "entry_name" => Ok(Value::str(m.entry.as_str())),
            "time_evaluator"
            | "get_function"
            | "implements_function"
            | "export_library"
            | "get_source"
            | "inspect_source" => bound_method(v, name),
            "type_key" | "kind" => Ok(Value::str(if m.target == "llvm" {
                "llvm"
            } else {
                m.target.as_str()
            })),
            "imported_modules" | "imports" => {
                let mods: Vec<Value> = m
                    .exec
                    .imported_modules()
                    .into_iter()
                    .map(|sm| {
                        host(Obj::RtModule(Rc::new(RtModule {
                            target: sm.type_key.clone(),
                            exec: Rc::new(DeviceModule(sm)),
                            entry: String::new(),
                            functions: Vec::new(),
                            aliases: Vec::new(),
                            executable: false,
                        })))
                    })
                    .collect();
                it.new_list(mods)
            }
            _ => no_attr(o, name),
        },
        Obj::BenchmarkResult(r) => {
            let s = stats(r);
            match name {
                "mean" => Ok(Value::Float(s.mean)),
                "median" => Ok(Value::Float(s.median)),
                "min" => Ok(Value::Float(s.min)),
                "max" => Ok(Value::Float(s.max)),
                "std" => Ok(Value::Float(s.std)),
                "results" => {
                    let v: Vec<Value> = r.iter().map(|x| Value::Float(*x)).collect();
                    it.new_list(v)
                }
                _ => no_attr(o, name),
            }
        }
        _ => no_attr(o, name),
    }
}

/// `recv.name(args)`, where `recv` holds the TVM object `o`.
pub fn call_method(it: &mut Interp, o: &Obj, recv: &Value, name: &str, mut a: Args) -> Res<Value> {
    if name == "same_as" {
        let other = a.req(0, "other", "same_as")?;
        a.done("same_as", 1)?;
        return Ok(Value::Bool(same_object(o, recv, &other)));
    }
    match o {
        Obj::Schedule(_) => schedule_method(it, o, name, a),
        Obj::Tensor { .. } => tensor_method(it, o, recv, name, a),
        Obj::IRModule { .. } | Obj::PrimFunc { .. } | Obj::Attrs(_) => {
            ir_object_method(it, o, name, a)
        }
        Obj::State(_) | Obj::Trace { .. } => schedule_object_method(it, o, name, a),
        Obj::Device(_) | Obj::RtModule(_) => runtime_object_method(it, o, name, a),
        _ => {
            let f = get_attr(it, o, recv, name)?;
            it.call(&f, a)
        }
    }
}

/// Methods of IR objects: modules, functions and attribute dictionaries.
fn ir_object_method(it: &mut Interp, o: &Obj, name: &str, mut a: Args) -> Res<Value> {
    match o {
        Obj::IRModule { module, dialect } => match name {
            "script" | "astext" => Ok(Value::str(script_text(o).unwrap_or_default().trim_end())),
            "show" => {
                let t = script_text(o).unwrap_or_default();
                it.stdout(format!("{}\n", t.trim_end()));
                Ok(Value::None)
            }
            "get_global_var" => {
                let n = a.req(0, "name", "get_global_var")?;
                let n = func_name_arg(&n)?;
                if module.borrow().get(&n).is_none() {
                    return Err(PyErr::value_error(format!(
                        "Cannot find global var \"{n}\" in the Module"
                    )));
                }
                Ok(host(Obj::GlobalVar(n)))
            }
            "get_global_vars" => {
                // An FFI array, which prints like a tuple.
                let names: Vec<Value> = module
                    .borrow()
                    .names()
                    .map(|n| host(Obj::GlobalVar(n.to_string())))
                    .collect();
                Ok(Value::tuple(names))
            }
            "update_func" => {
                let gv = a.req(0, "gv", "update_func")?;
                let f = a.req(1, "func", "update_func")?;
                let n = func_name_arg(&gv)?;
                let (func, _) = module_func_arg(&f, "update_func")?;
                module.borrow_mut().insert(n, func);
                Ok(Value::None)
            }
            "with_attr" => {
                let k = a.req(0, "attr_key", "with_attr")?;
                let v = a.req(1, "attr_value", "with_attr")?;
                let key = k
                    .as_str()
                    .ok_or_else(|| PyErr::type_error("attribute key must be a string"))?
                    .to_string();
                let mut m = module.borrow().clone();
                m.attrs.insert(key, attr_value(it, &v)?);
                Ok(host(Obj::IRModule {
                    module: RefCell::new(m),
                    dialect: *dialect,
                }))
            }
            _ => Err(PyErr::attribute_error(format!(
                "'IRModule' object has no attribute '{name}'"
            ))),
        },
        Obj::PrimFunc { func, dialect } => match name {
            "script" | "astext" => Ok(Value::str(script_text(o).unwrap_or_default().trim_end())),
            "show" => {
                let t = script_text(o).unwrap_or_default();
                it.stdout(format!("{}\n", t.trim_end()));
                Ok(Value::None)
            }
            "with_attr" => {
                let mut f = (**func).clone();
                match a.pos.as_slice() {
                    [Value::Dict(d)] => {
                        for (k, v) in d.borrow().items() {
                            let key = k
                                .as_str()
                                .ok_or_else(|| PyErr::type_error("attribute key must be a string"))?
                                .to_string();
                            f.attrs.insert(key, attr_value(it, &v)?);
                        }
                    }
                    [k, v] => {
                        let key = k
                            .as_str()
                            .ok_or_else(|| PyErr::type_error("attribute key must be a string"))?
                            .to_string();
                        f.attrs.insert(key, attr_value(it, v)?);
                    }
                    _ => {
                        return Err(PyErr::type_error(
                            "with_attr() takes a key and a value, or a dict",
                        ))
                    }
                }
                Ok(host(Obj::PrimFunc {
                    func: Rc::new(f),
                    dialect: *dialect,
                }))
            }
            "without_attr" => {
                let k = a.req(0, "attr_key", "without_attr")?;
                let mut f = (**func).clone();
                if let Some(k) = k.as_str() {
                    f.attrs.remove(k);
                }
                Ok(host(Obj::PrimFunc {
                    func: Rc::new(f),
                    dialect: *dialect,
                }))
            }
            _ => Err(PyErr::attribute_error(format!(
                "'PrimFunc' object has no attribute '{name}'"
            ))),
        },
        Obj::Attrs(items) => match name {
            "keys" => {
                let v: Vec<Value> = items.iter().map(|(k, _)| Value::str(k.as_str())).collect();
                Ok(CoreObj::DictView("dict_keys", v).value())
            }
            "values" => Ok(Value::Host(Rc::new(CoreObj::DictView(
                "dict_values",
                items.iter().map(|(_, v)| v.clone()).collect(),
            )))),
            "items" => Ok(Value::Host(Rc::new(CoreObj::DictView(
                "dict_items",
                items
                    .iter()
                    .map(|(k, v)| Value::tuple(vec![Value::str(k.as_str()), v.clone()]))
                    .collect(),
            )))),
            "get" => {
                let k = a.req(0, "key", "get")?;
                let d = a.take(1, "default").unwrap_or(Value::None);
                Ok(items
                    .iter()
                    .find(|(x, _)| Some(x.as_str()) == k.as_str())
                    .map(|(_, v)| v.clone())
                    .unwrap_or(d))
            }
            _ => Err(PyErr::attribute_error(format!(
                "'DictAttrs' object has no attribute '{name}'"
            ))),
        },
        _ => no_attr(o, name),
    }
}

/// Methods of schedule states and traces.
fn schedule_object_method(it: &mut Interp, o: &Obj, name: &str, mut a: Args) -> Res<Value> {
    match o {
        Obj::State(sch) => match (name, obj_of(sch)) {
            ("get_sref", Some(Obj::Schedule(s))) => {
                let arg = a.req(0, "stmt", "get_sref")?;
                a.done("get_sref", 1)?;
                let s = s.borrow();
                super::super::schedule_state::state_get_sref(&s, &arg)
            }
            _ => Err(PyErr::attribute_error(format!(
                "'ScheduleState' object has no attribute '{name}'"
            ))),
        },
        Obj::Trace { text, .. } => match name {
            "show" => {
                it.stdout(format!("{text}\n"));
                Ok(Value::None)
            }
            "as_python" => {
                let lines: Vec<Value> = text
                    .lines()
                    .skip(2)
                    .map(|l| Value::str(l.trim_start()))
                    .collect();
                it.new_list(lines)
            }
            _ => Err(PyErr::attribute_error(format!(
                "'Trace' object has no attribute '{name}'"
            ))),
        },
        _ => no_attr(o, name),
    }
}

/// Methods of runtime objects: devices and modules.
fn runtime_object_method(it: &mut Interp, o: &Obj, name: &str, mut a: Args) -> Res<Value> {
    match o {
        Obj::Device(d) => match name {
            "sync" => Ok(Value::None),
            "dlpack_device_type" => Ok(Value::Int(d.type_code())),
            _ => Err(PyErr::attribute_error(format!(
                "'Device' object has no attribute '{name}'"
            ))),
        },
        Obj::RtModule(m) => match name {
            "time_evaluator" => {
                let fname = a.req(0, "func_name", "time_evaluator")?;
                let fname = fname
                    .as_str()
                    .ok_or_else(|| PyErr::type_error("func_name must be a string"))?
                    .to_string();
                let fname = match m.aliases.iter().find(|(x, _)| *x == fname) {
                    Some((_, t)) => t.clone(),
                    None => fname,
                };
                let dev = a.take(1, "dev");
                let _ = device_arg(it, dev)?;
                let number = a
                    .take(2, "number")
                    .and_then(|v| num_i64(&v))
                    .unwrap_or(10)
                    .max(1) as u64;
                let repeat = a
                    .take(3, "repeat")
                    .and_then(|v| num_i64(&v))
                    .unwrap_or(1)
                    .max(1) as u64;
                let _ = a.take(4, "min_repeat_ms");
                let _ = a.take_kw("cooldown_interval_ms");
                let _ = a.take_kw("repeats_to_cooldown");
                let _ = a.take_kw("f_preproc");
                if number.saturating_mul(repeat) > 1_000_000 {
                    return Err(PyErr::value_error(
                        "time_evaluator: number * repeat is too large",
                    ));
                }
                rt_function(m, &fname)?;
                Ok(host(Obj::TimeEvaluator {
                    module: m.clone(),
                    name: fname,
                    number,
                    repeat,
                }))
            }
            "get_function" => {
                let n = a.req(0, "name", "get_function")?;
                rt_function(m, n.as_str().unwrap_or(""))
            }
            "implements_function" => {
                let n = a.req(0, "name", "implements_function")?;
                Ok(Value::Bool(
                    rt_function(m, n.as_str().unwrap_or("")).is_ok(),
                ))
            }
            "get_source" | "inspect_source" => {
                let fmt = a.take(0, "fmt").or_else(|| a.take_kw("format"));
                a.done(name, 1)?;
                let fmt = match &fmt {
                    None => String::new(),
                    Some(v) => v
                        .as_str()
                        .ok_or_else(|| PyErr::type_error("fmt must be a string"))?
                        .to_string(),
                };
                match m.exec.source(&fmt) {
                    Ok(Some(text)) => Ok(Value::str(text.as_str())),
                    Ok(None) => Err(PyErr::new(
                        ExcKind::TVMError,
                        "this module was built by the reference interpreter, which generates no \
                         source (build with a code-generating backend, e.g. `tessel run \
                         --backend native`)",
                    )),
                    Err(e) => Err(PyErr::new(ExcKind::TVMError, e)),
                }
            }
            "export_library" => Err(PyErr::new(
                ExcKind::PermissionError,
                "export_library is not available in Tessel's sandbox (no file system)",
            )),
            _ => Err(PyErr::attribute_error(format!(
                "'Module' object has no attribute '{name}'"
            ))),
        },
        _ => no_attr(o, name),
    }
}

pub fn get_item(it: &mut Interp, o: &Obj, idx: Value) -> Res<Value> {
    match o {
        Obj::IRModule { module, dialect } => {
            let n = func_name_arg(&idx)?;
            match module.borrow().get(&n) {
                Some(BaseFunc::Prim(f)) => Ok(host(Obj::PrimFunc {
                    func: f.clone(),
                    dialect: *dialect,
                })),
                Some(BaseFunc::Graph(f)) => Ok(super::super::relax::func_value(f)),
                None => Err(PyErr::value_error(format!(
                    "Cannot find global var \"{n}\" in the Module"
                ))),
            }
        }
        Obj::RtModule(m) => {
            let n = idx
                .as_str()
                .ok_or_else(|| PyErr::type_error("function name must be a string"))?;
            rt_function(m, n)
        }
        Obj::Attrs(items) => {
            let k = idx.as_str().unwrap_or("");
            items
                .iter()
                .find(|(x, _)| x == k)
                .map(|(_, v)| v.clone())
                .ok_or_else(|| PyErr::key_error(idx.clone()))
        }
        Obj::Tensor { data, .. } => crate::python::numpy::get_item(it, data, &idx),
        Obj::IRText {
            node: Some(node),
            dialect,
            ..
        } if super::super::schedule_state::stmt_len(node).is_some() => {
            let dialect = *dialect;
            super::super::schedule_state::stmt_item(node, &idx, dialect)
                .unwrap_or_else(|| Err(PyErr::type_error("'SeqStmt' object is not subscriptable")))
        }
        _ => Err(PyErr::type_error(format!(
            "'{}' object is not subscriptable",
            o.type_name()
        ))),
    }
}

pub fn set_item(it: &mut Interp, o: &Obj, idx: Value, v: Value) -> Res<()> {
    match o {
        Obj::IRModule { module, .. } => {
            let n = func_name_arg(&idx)?;
            let (func, _) = module_func_arg(&v, "IRModule item assignment")?;
            module.borrow_mut().insert(n, func);
            Ok(())
        }
        Obj::Tensor { data, .. } => crate::python::numpy::set_item(it, data, &idx, &v),
        _ => Err(PyErr::type_error(format!(
            "'{}' object does not support item assignment",
            o.type_name()
        ))),
    }
}
