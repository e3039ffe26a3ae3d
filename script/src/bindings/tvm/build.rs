//! `tvm.build` through the [`crate::Backend`], runtime modules, packed calls
//! and `time_evaluator`.

use super::*;

/// The target's text from a string, dict (its kind) or Target object
/// (`llvm` when absent), not yet parsed.
pub(crate) fn target_text(it: &mut Interp, v: Option<Value>) -> Res<String> {
    Ok(match v {
        None | Some(Value::None) => "llvm".to_string(),
        Some(Value::Str(s)) => s.to_string(),
        Some(Value::Dict(d)) => match d.borrow().get_str("kind") {
            Some(Value::Str(k)) => k.to_string(),
            _ => return Err(PyErr::value_error("a target dict needs a \"kind\"")),
        },
        Some(Value::Host(o)) => match tvm_obj(&o) {
            Some(Obj::Target(t)) => t.text.clone(),
            _ => {
                return Err(PyErr::type_error(
                    "target must be a string, a dict or a tvm.target.Target",
                ))
            }
        },
        Some(other) => {
            return Err(PyErr::type_error(format!(
                "target must be a string, a dict or a tvm.target.Target, not {}",
                it.repr(&other)?
            )))
        }
    })
}

/// The target of a build, from a string, dict or Target object (`llvm`
/// when absent), parsed by [`Target::parse`]; a dict names a kind only.
pub(crate) fn target_arg(it: &mut Interp, v: Option<Value>) -> Res<Target> {
    let undefined =
        |kind: &str| PyErr::value_error(format!("Target kind \"{kind}\" is not defined"));
    match v {
        Some(Value::Host(o)) => match tvm_obj(&o) {
            Some(Obj::Target(t)) => Ok(t.clone()),
            _ => Err(PyErr::type_error(
                "target must be a string, a dict or a tvm.target.Target",
            )),
        },
        Some(Value::Dict(d)) => {
            let text = target_text(it, Some(Value::Dict(d)))?;
            TargetKind::from_name(&text)
                .map(Target::of_kind)
                .ok_or_else(|| undefined(&text))
        }
        v => {
            let text = target_text(it, v)?;
            Target::parse(&text).map_err(|e| PyErr::value_error(e.to_string()))
        }
    }
}

pub(super) fn tvm_build(it: &mut Interp, mut a: Args) -> Res<Value> {
    let m = a.req(0, "ir_mod", "build")?;
    let target = a.take(1, "target");
    let _ = a.take(2, "pipeline");
    let _ = a.take_kw("target_host");
    let _ = a.take_kw("name");
    a.done("build", 3)?;
    let (module, _) = module_arg(&m, "tvm.build")?;
    // A built PrimFunc also answers to its global symbol.
    let alias = match &m {
        Value::Host(o) => match tvm_obj(o) {
            Some(Obj::PrimFunc { func, .. }) => name_of(func).filter(|n| n != "main"),
            _ => None,
        },
        _ => None,
    };
    let target = target_arg(it, target)?;
    if module.prim_funcs().next().is_none() {
        return Err(PyErr::value_error("the module has no PrimFunc to build"));
    }
    it.charge_steps(1000)?;
    let exec = it
        .backend
        .build(&module, &target, &BuildOptions::default())
        .map_err(|e| PyErr::new(ExcKind::TVMError, e.to_string()))?;
    let functions: Vec<String> = module.names().map(str::to_string).collect();
    let aliases: Vec<(String, String)> =
        alias.into_iter().map(|a| (a, "main".to_string())).collect();
    let entry = if functions.iter().any(|f| f == "main") {
        "main".to_string()
    } else {
        functions.first().cloned().unwrap_or_default()
    };
    Ok(host(Obj::RtModule(Rc::new(RtModule {
        exec,
        entry,
        target: target.kind_name().to_string(),
        functions,
        aliases,
        executable: args_is_compile(&a),
    }))))
}

fn args_is_compile(a: &Args) -> bool {
    matches!(&a.data, Some(Value::Str(s)) if &**s == "compile")
}

/// Calls a built function with tensors (written back in place).
pub fn call_packed(it: &mut Interp, m: &Rc<RtModule>, name: &str, a: Args) -> Res<Value> {
    let (mut arrays, targets) = packed_args(&a)?;
    let budget = it.steps_left().saturating_mul(IR_STEPS_PER_STEP);
    let used = m
        .exec
        .run(name, &mut arrays, budget)
        .map_err(|e| PyErr::new(ExcKind::TVMError, e))?;
    it.charge_steps(used / IR_STEPS_PER_STEP)?;
    write_back(targets, arrays);
    Ok(Value::None)
}

type WriteBack = Vec<Option<Rc<ArrayObj>>>;

fn write_back(targets: WriteBack, arrays: Vec<NDArray>) {
    for (t, arr) in targets.into_iter().zip(arrays) {
        if let Some(t) = t {
            t.update(|d| *d = arr);
        }
    }
}

/// The arrays of a packed call, and the tensors to write them back to.
fn packed_args(a: &Args) -> Res<(Vec<NDArray>, WriteBack)> {
    if !a.kw.is_empty() {
        return Err(PyErr::type_error(
            "compiled functions take positional arguments only",
        ));
    }
    let mut arrays: Vec<NDArray> = Vec::with_capacity(a.pos.len());
    let mut targets: Vec<Option<Rc<ArrayObj>>> = Vec::with_capacity(a.pos.len());
    for (i, v) in a.pos.iter().enumerate() {
        match v {
            Value::Host(o) => match tvm_obj(o) {
                Some(Obj::Tensor { data, .. }) => {
                    arrays.push(data.borrow().clone());
                    targets.push(Some(data.clone()));
                }
                _ => {
                    return Err(PyErr::type_error(format!(
                        "argument {i}: expected a tvm.runtime.Tensor, got {}",
                        o.type_name()
                    )))
                }
            },
            Value::Array(data) => {
                arrays.push(data.borrow().clone());
                targets.push(Some(data.clone()));
            }
            Value::Int(x) => {
                arrays.push(
                    NDArray::scalar_i64(tessel_ir::DataType::i64(), *x)
                        .map_err(PyErr::value_error)?,
                );
                targets.push(None);
            }
            Value::Bool(x) => {
                arrays.push(
                    NDArray::scalar_i64(tessel_ir::DataType::bool(), *x as i64)
                        .map_err(PyErr::value_error)?,
                );
                targets.push(None);
            }
            Value::Float(x) => {
                arrays.push(
                    NDArray::scalar_f64(tessel_ir::DataType::f64(), *x)
                        .map_err(PyErr::value_error)?,
                );
                targets.push(None);
            }
            Value::NpScalar(s) => {
                let arr = match s.num {
                    Num::F(f) => NDArray::scalar_f64(s.dtype, f),
                    Num::I(i) => NDArray::scalar_i64(s.dtype, i),
                };
                arrays.push(arr.map_err(PyErr::value_error)?);
                targets.push(None);
            }
            other => {
                return Err(PyErr::type_error(format!(
                    "argument {i}: expected a tvm.runtime.Tensor, got {}",
                    other.type_name()
                )))
            }
        }
    }
    Ok((arrays, targets))
}

pub fn time_evaluate(
    it: &mut Interp,
    m: &Rc<RtModule>,
    name: &str,
    number: u64,
    repeat: u64,
    a: Args,
) -> Res<Value> {
    // A backend with its own timer (compiled wasm, GPU timestamps).
    let (mut arrays, targets) = packed_args(&a)?;
    let clock = it.host.clone();
    if let Some(r) = m
        .exec
        .time(name, &mut arrays, number.max(1), repeat.max(1), &*clock)
    {
        let results = r.map_err(|e| PyErr::new(ExcKind::TVMError, e))?;
        it.charge_steps(number.max(1).saturating_mul(repeat.max(1)))?;
        write_back(targets, arrays);
        return Ok(host(Obj::BenchmarkResult(results)));
    }
    let mut results = Vec::with_capacity(repeat as usize);
    for _ in 0..repeat.max(1) {
        let t0 = it.host.now_seconds();
        for _ in 0..number.max(1) {
            let args = Args {
                pos: a.pos.clone(),
                kw: Vec::new(),
                data: None,
            };
            call_packed(it, m, name, args)?;
        }
        let t1 = it.host.now_seconds();
        results.push((t1 - t0).max(0.0) / number.max(1) as f64);
    }
    Ok(host(Obj::BenchmarkResult(results)))
}

/// A device module of a build (`rt_mod.imported_modules[i]`): its source
/// only; its functions are called through the host module.
pub(super) struct DeviceModule(pub(super) crate::SourceModule);

impl crate::Executable for DeviceModule {
    fn function_names(&self) -> Vec<String> {
        Vec::new()
    }
    fn run(&self, name: &str, _args: &mut [NDArray], _budget: u64) -> Result<u64, String> {
        Err(format!(
            "`{name}`: call functions through the host module, not an imported {} module",
            self.0.type_key
        ))
    }
    fn source(&self, _fmt: &str) -> Result<Option<String>, String> {
        Ok(Some(self.0.source.clone()))
    }
}

pub(super) fn rt_function(m: &Rc<RtModule>, name: &str) -> Res<Value> {
    let resolved = match m.aliases.iter().find(|(a, _)| a == name) {
        Some((_, target)) => target.clone(),
        None => name.to_string(),
    };
    if !m.functions.contains(&resolved) {
        return Err(PyErr::attribute_error(format!(
            "Module has no function '{name}'"
        )));
    }
    Ok(host(Obj::PackedFunc {
        module: m.clone(),
        name: resolved,
    }))
}
