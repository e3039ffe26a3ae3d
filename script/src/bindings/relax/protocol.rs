//! The host-object protocol for graph objects, called from `host.rs`:
//! calls, attributes, methods and subscripts.

use super::*;

// ----------------------------------------------------------------------------
// Host-object protocol (called from `host.rs`)

pub fn call(it: &mut Interp, r: &RObj, a: Args) -> Res<Value> {
    match r {
        RObj::VmFunc(e, n) => {
            let (e, n) = (e.clone(), n.clone());
            vm_call(it, &e, &n, a)
        }
        RObj::VmTimer {
            exec,
            name,
            number,
            repeat,
        } => {
            let (e, n) = (exec.clone(), name.clone());
            vm_time(it, &e, &n, *number, *repeat, a)
        }
        RObj::ModulePass(p) => {
            let p = p.clone();
            run_pass(it, &p, a)
        }
        RObj::Pass(p) => {
            let p = p.clone();
            run_graph_pass(it, &p, a)
        }
        other => Err(PyErr::type_error(format!(
            "'{}' object is not callable",
            other.class_name().rsplit('.').next().unwrap_or("object")
        ))),
    }
}

pub fn get_attr(it: &mut Interp, r: &RObj, v: &Value, name: &str) -> Res<Value> {
    let method = || Ok(Value::BoundMethod(Rc::new((v.clone(), name.into()))));
    match (r, name) {
        (RObj::Var(var), "name_hint") => Ok(Value::str(var.name())),
        (RObj::Var(var), "struct_info" | "ty") => Ok(host(RObj::SInfo(var.sinfo().clone()))),
        (RObj::Expr(e), "struct_info" | "ty") => {
            let s = expr_sinfo(e, &compiler_core::graph::infer::NoGlobals)
                .map_err(|m| PyErr::new(ExcKind::TVMError, m))?;
            Ok(host(RObj::SInfo(s)))
        }
        (RObj::Expr(e), "op") => match e.kind() {
            ExprKind::Call(c) => match &c.callee {
                compiler_core::graph::Callee::Op(op) => {
                    let n = if matches!(op, Op::CallTir) {
                        "relax.call_tir".to_string()
                    } else {
                        op.name()
                    };
                    Ok(host(RObj::OpRef(n)))
                }
                compiler_core::graph::Callee::Global(g) => {
                    Ok(Value::Host(Rc::new(Obj::GlobalVar(g.name().to_string()))))
                }
            },
            _ => Err(PyErr::attribute_error("this expression is not a call")),
        },
        (RObj::Expr(e), "args") => match e.kind() {
            ExprKind::Call(c) => Ok(Value::tuple(
                c.args.iter().map(|x| wrap_expr(x.clone())).collect(),
            )),
            _ => Err(PyErr::attribute_error("this expression is not a call")),
        },
        (RObj::Expr(e), "data") => match e.kind() {
            ExprKind::Constant(a) => tensor_value(it, (**a).clone()),
            _ => Err(PyErr::attribute_error("only constants have data")),
        },
        (RObj::SInfo(StructInfo::Tensor(t)), "shape") => match &t.shape {
            Some(s) => Ok(host(RObj::Expr(Expr::shape(s.clone())))),
            None => Ok(Value::None),
        },
        (RObj::SInfo(StructInfo::Tensor(t)), "dtype") => Ok(Value::str(
            t.dtype.map(|d| d.to_string()).unwrap_or_default(),
        )),
        (RObj::SInfo(StructInfo::Tensor(t)), "ndim") => {
            Ok(Value::Int(t.ndim.map(|n| n as i64).unwrap_or(-1)))
        }
        (RObj::OpRef(n), "name") => Ok(Value::str(n.as_str())),
        (RObj::Func(f), "attrs") => {
            let mut d = crate::python::dict::Dict::new();
            for (k, x) in &f.attrs {
                d.insert(Value::str(k.as_str()), simple_attr(x))?;
            }
            Ok(it.new_dict(d))
        }
        (RObj::Func(f), "params") => Ok(Value::tuple(
            f.params
                .iter()
                .map(|p| host(RObj::Var(p.clone())))
                .collect(),
        )),
        (RObj::Func(f), "ret_struct_info" | "ret_ty") => Ok(host(RObj::SInfo(f.ret.clone()))),
        (RObj::Func(f), "body") => Ok(host(RObj::Seq(Rc::new(f.body.clone())))),
        // TVM's arrays print like Python tuples: `(x, y)`.
        (RObj::Seq(seq), "blocks") => Ok(Value::tuple(
            seq.blocks
                .iter()
                .map(|b| host(RObj::Block(Rc::new(b.clone()))))
                .collect(),
        )),
        (RObj::Seq(seq), "body") => Ok(wrap_expr(seq.body.clone())),
        (RObj::Block(b), "bindings") => Ok(Value::tuple(
            b.bindings
                .iter()
                .map(|x| host(RObj::Binding(Rc::new(x.clone()))))
                .collect(),
        )),
        (RObj::Binding(b), "var") => Ok(host(RObj::Var(b.var.clone()))),
        (RObj::Binding(b), "value") => Ok(wrap_expr(b.value.clone())),
        (RObj::Func(_), "show" | "script" | "with_attr" | "without_attr") => method(),
        (RObj::ModulePass(_), "transform_module") => method(),
        (RObj::Builder(_), _) => method(),
        // `vm.module.time_evaluator(...)` (book §4.6): the VM's runtime module
        // answers like the VM.
        (RObj::Vm(e), "module") => Ok(host(RObj::Vm(e.clone()))),
        (RObj::Vm(_), "time_evaluator" | "invoke_closure" | "set_input" | "invoke_stateful") => {
            method()
        }
        (RObj::Exec(_), "as_text" | "stats") => method(),
        _ => Err(PyErr::attribute_error(format!(
            "'{}' object has no attribute '{name}'",
            r.class_name().rsplit('.').next().unwrap_or("object")
        ))),
    }
}

pub(super) fn wrap_expr(e: Expr) -> Value {
    match e.kind() {
        ExprKind::Var(v) => host(RObj::Var(v.clone())),
        _ => host(RObj::Expr(e)),
    }
}

pub fn call_method(it: &mut Interp, r: &RObj, recv: &Value, name: &str, mut a: Args) -> Res<Value> {
    match r {
        RObj::Builder(_) => builder_method(it, recv, name, a),
        RObj::Vm(e) if name == "time_evaluator" => {
            let f = a.req(0, "func_name", name)?;
            let f = it.str_of(&f)?;
            let _dev = a.take(1, "dev");
            let number = a
                .take(2, "number")
                .and_then(|v| crate::python::ops::num_i64(&v))
                .unwrap_or(10)
                .max(1) as u64;
            let repeat = a
                .take(3, "repeat")
                .and_then(|v| crate::python::ops::num_i64(&v))
                .unwrap_or(1)
                .max(1) as u64;
            let _ = a.take_kw("min_repeat_ms");
            if e.module.get_graph(&f).is_none() {
                return Err(PyErr::attribute_error(format!(
                    "the VM has no function '{f}'"
                )));
            }
            Ok(host(RObj::VmTimer {
                exec: e.clone(),
                name: f,
                number,
                repeat,
            }))
        }
        RObj::Func(f) => match name {
            "show" | "script" => {
                a.done(name, 0)?;
                let text = func_print(f, &func_name(f));
                if name == "show" {
                    it.write(crate::Stream::Stdout, format!("{text}\n"));
                    Ok(Value::None)
                } else {
                    Ok(Value::str(text))
                }
            }
            "with_attr" => {
                let k = a.req(0, "attr_key", name)?;
                let v = a.req(1, "attr_value", name)?;
                let k = it.str_of(&k)?;
                let v = to_attr(it, &v)?;
                let mut g = (**f).clone();
                g.attrs.insert(k, v);
                Ok(func_value(&Rc::new(g)))
            }
            "without_attr" => {
                let k = a.req(0, "attr_key", name)?;
                let k = it.str_of(&k)?;
                let mut g = (**f).clone();
                g.attrs.remove(&k);
                Ok(func_value(&Rc::new(g)))
            }
            _ => Err(PyErr::attribute_error(format!(
                "'Function' object has no attribute '{name}'"
            ))),
        },
        RObj::Exec(e) if name == "as_text" || name == "stats" => {
            let names: Vec<&str> = e.module.names().collect();
            Ok(Value::str(format!(
                "VMExecutable for {} with functions: {}",
                e.target,
                names.join(", ")
            )))
        }
        _ => Err(PyErr::attribute_error(format!(
            "'{}' object has no attribute '{name}'",
            r.class_name().rsplit('.').next().unwrap_or("object")
        ))),
    }
}

pub fn get_item(it: &mut Interp, r: &RObj, idx: Value) -> Res<Value> {
    match r {
        RObj::Vm(e) => {
            let n = it.str_of(&idx)?;
            if e.module.get_graph(&n).is_none() {
                return Err(PyErr::attribute_error(format!(
                    "the VM has no function '{n}'"
                )));
            }
            Ok(host(RObj::VmFunc(e.clone(), n)))
        }
        RObj::Var(v) => {
            let i = crate::python::ops::num_i64(&idx)
                .ok_or_else(|| PyErr::type_error("tuple indices must be integers"))?;
            Ok(host(RObj::Expr(Expr::new(
                ExprKind::TupleGetItem(v.to_expr(), i.max(0) as usize),
                Default::default(),
            ))))
        }
        other => Err(PyErr::type_error(format!(
            "'{}' object is not subscriptable",
            other.class_name().rsplit('.').next().unwrap_or("object")
        ))),
    }
}
