//! Built-in graph passes: `relax.transform.*` and `tvm.transform.Sequential`
//! over compiler-core's implementations.

use super::*;

// ----------------------------------------------------------------------------
// Built-in graph passes

/// `relax.transform.FuseOps()` and the others: the pass's name is the builtin's data.
pub(super) fn pass_new(it: &mut Interp, mut a: Args) -> Res<Value> {
    let which = match &a.data {
        Some(Value::Str(s)) => s.to_string(),
        _ => return Err(PyErr::type_error("no pass")),
    };
    let p = match which.as_str() {
        "BindParams" => {
            let fname = a.req(0, "func_name", "BindParams")?;
            let fname = it.str_of(&fname)?;
            let params = a.req(1, "params", "BindParams")?;
            a.done("BindParams", 2)?;
            let Value::Dict(d) = &params else {
                return Err(PyErr::type_error(format!(
                    "BindParams: params must be a dict of name -> tensor, not {}",
                    params.type_name()
                )));
            };
            let items = d.borrow().items();
            let mut map = HashMap::new();
            for (k, v) in items {
                let k = match (&k, relax_obj(&k)) {
                    (Value::Str(s), _) => s.to_string(),
                    (_, Some(RObj::Var(var))) => var.name().to_string(),
                    _ => {
                        return Err(PyErr::type_error(format!(
                            "BindParams: parameter keys must be names or relax.Var, not {}",
                            k.type_name()
                        )))
                    }
                };
                map.insert(k, to_array(it, &v)?);
            }
            GraphPass::BindParams(fname, map)
        }
        "DeadCodeElimination" => {
            let entries = a.take(0, "entry_functions");
            a.done("DeadCodeElimination", 1)?;
            let names = match entries {
                None | Some(Value::None) => vec!["main".to_string()],
                Some(v) => {
                    let mut out = Vec::new();
                    for x in it.items_of(&v)? {
                        out.push(it.str_of(&x)?);
                    }
                    out
                }
            };
            GraphPass::DeadCodeElimination(names)
        }
        other => {
            a.done(other, 0)?;
            match other {
                "LegalizeOps" => GraphPass::LegalizeOps,
                "AnnotateTIROpPattern" => GraphPass::AnnotateTIROpPattern,
                "FuseOps" => GraphPass::FuseOps,
                "FuseTIR" => GraphPass::FuseTIR,
                _ => return Err(PyErr::attribute_error(format!("no pass {other}"))),
            }
        }
    };
    Ok(host(RObj::Pass(Rc::new(p))))
}

/// `tvm.transform.Sequential([p1, p2, ...])`.
pub(super) fn sequential_new(it: &mut Interp, mut a: Args) -> Res<Value> {
    let passes = a.req(0, "passes", "Sequential")?;
    let _ = a.take(1, "opt_level");
    let _ = a.take(2, "name");
    let _ = a.take_kw("required");
    let _ = a.take_kw("traceable");
    a.done("Sequential", 3)?;
    let items = it.items_of(&passes)?;
    for p in &items {
        let ok = matches!(relax_obj(p), Some(RObj::Pass(_) | RObj::ModulePass(_)));
        if !ok {
            return Err(PyErr::type_error(format!(
                "Sequential takes a list of passes, found {}",
                p.type_name()
            )));
        }
    }
    Ok(host(RObj::Pass(Rc::new(GraphPass::Sequential(items)))))
}

pub(super) fn run_graph_pass(it: &mut Interp, p: &GraphPass, mut a: Args) -> Res<Value> {
    let m = a.req(0, "mod", p.name())?;
    let _ = a.take(1, "ctx");
    if let GraphPass::Sequential(items) = p {
        let mut cur = m;
        for q in items {
            cur = it.call(q, Args::new(vec![cur]))?;
        }
        return Ok(cur);
    }
    let (module, dialect) = match &m {
        Value::Host(o) => match tvm_obj(o) {
            Some(Obj::IRModule { module, dialect }) => (module.borrow().clone(), *dialect),
            _ => {
                return Err(PyErr::type_error(format!(
                    "{}: expected an IRModule, got {}",
                    p.name(),
                    o.type_name()
                )))
            }
        },
        other => {
            return Err(PyErr::type_error(format!(
                "{}: expected an IRModule, got {}",
                p.name(),
                other.type_name()
            )))
        }
    };
    use compiler_core::graph::transform as t;
    let r = match p {
        GraphPass::BindParams(f, params) => t::bind_params(&module, f, params),
        GraphPass::LegalizeOps => t::legalize_ops(&module),
        GraphPass::AnnotateTIROpPattern => Ok(t::annotate_tir_op_pattern(&module)),
        GraphPass::FuseOps => t::fuse_ops(&module),
        GraphPass::FuseTIR => t::fuse_tir(&module),
        GraphPass::DeadCodeElimination(names) => {
            let names: Vec<&str> = names.iter().map(String::as_str).collect();
            t::dead_code_elimination(&module, &names)
        }
        GraphPass::Sequential(_) => unreachable!(),
    };
    let out = r.map_err(|d| PyErr::new(ExcKind::TVMError, d.message))?;
    Ok(Value::Host(Rc::new(Obj::IRModule {
        module: RefCell::new(out),
        dialect,
    })))
}
