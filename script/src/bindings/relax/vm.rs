//! `relax.build` and the `VirtualMachine`: kernels through the script's
//! backend, packed functions from the run's registry.

use super::*;

// ----------------------------------------------------------------------------
// relax.build and the VM

pub(super) fn relax_build(it: &mut Interp, mut a: Args) -> Res<Value> {
    let m = a.req(0, "mod", "build")?;
    let target = a.take(1, "target");
    let _ = a.take_kw("params");
    let _ = a.take_kw("exec_mode");
    let _ = a.take_kw("relax_pipeline");
    let _ = a.take_kw("tir_pipeline");
    a.done("build", 2)?;
    let module = match &m {
        Value::Host(o) => match tvm_obj(o) {
            Some(Obj::IRModule { module, .. }) => module.borrow().clone(),
            _ => {
                return Err(PyErr::type_error(format!(
                    "relax.build takes an IRModule, not {}",
                    o.type_name()
                )))
            }
        },
        other => {
            return Err(PyErr::type_error(format!(
                "relax.build takes an IRModule, not {}",
                other.type_name()
            )))
        }
    };
    if module.graph_funcs().next().is_none() {
        return Err(PyErr::value_error(
            "the module has no Relax function to build (use tvm.build for PrimFuncs)",
        ));
    }
    let target = target_spec(it, target)?;
    it.charge_steps(1000)?;
    let kernels = if module.prim_funcs().next().is_some() {
        let mut prims = IRModule::new();
        for (n, f) in module.prim_funcs() {
            prims.insert(n.to_string(), BaseFunc::Prim(f.clone()));
        }
        Some(
            it.backend
                .build(&prims, &target, &BuildOptions::default())
                .map_err(|e| PyErr::new(ExcKind::TVMError, e.to_string()))?,
        )
    } else {
        None
    };
    Ok(host(RObj::Exec(Rc::new(RelaxExec {
        module,
        kernels,
        target: target.kind_name().to_string(),
    }))))
}

/// `relax.build`'s target: a string or `tvm.target.Target` (`llvm` when
/// absent).
pub(super) fn target_spec(it: &mut Interp, v: Option<Value>) -> Res<Target> {
    let text = match &v {
        None | Some(Value::None) => return Ok(Target::llvm()),
        Some(Value::Str(s)) => s.to_string(),
        Some(Value::Host(o)) => match tvm_obj(o) {
            Some(Obj::Target(t)) => return Ok(t.clone()),
            _ => {
                return Err(PyErr::type_error(format!(
                    "target must be a string or tvm.target.Target, not {}",
                    o.type_name()
                )))
            }
        },
        Some(other) => it.str_of(other)?,
    };
    Target::parse(&text).map_err(|e| PyErr::value_error(e.to_string()))
}

pub(super) fn vm_new(_it: &mut Interp, mut a: Args) -> Res<Value> {
    let ex = a.req(0, "rt_mod", "VirtualMachine")?;
    let _dev = a.take(1, "device");
    let _ = a.take_kw("memory_cfg");
    let _ = a.take_kw("profile");
    match relax_obj(&ex) {
        Some(RObj::Exec(e)) => Ok(host(RObj::Vm(e.clone()))),
        _ => Err(PyErr::type_error(format!(
            "VirtualMachine takes the result of relax.build, not {}",
            ex.type_name()
        ))),
    }
}

/// The VM's backend seam for a script: PrimFuncs through the built kernels,
/// extern functions through `tvm.register_func`.
struct ScriptKernels<'a> {
    it: &'a mut Interp,
    exec: Option<Rc<dyn Executable>>,
    err: Option<Box<PyErr>>,
}

impl Kernels for ScriptKernels<'_> {
    fn call_prim_func(&mut self, name: &str, args: &mut [NDArray]) -> Result<(), String> {
        let Some(exec) = self.exec.clone() else {
            return Err(format!("`{name}` was not built"));
        };
        let budget = self.it.steps_left().saturating_mul(IR_STEPS_PER_STEP);
        let used = exec.run(name, args, budget)?;
        if let Err(e) = self.it.charge_steps(used / IR_STEPS_PER_STEP) {
            self.err = Some(e);
            return Err("the step budget is exhausted".into());
        }
        Ok(())
    }

    fn call_extern(&mut self, name: &str, args: &mut [NDArray]) -> Option<Result<(), String>> {
        let f = registered(self.it, name)?;
        Some(self.call_script(&f, args))
    }
}

impl ScriptKernels<'_> {
    fn call_script(&mut self, f: &Value, args: &mut [NDArray]) -> Result<(), String> {
        let mut objs = Vec::with_capacity(args.len());
        let mut vals = Vec::with_capacity(args.len());
        for a in args.iter() {
            match self.it.array_obj(a.clone()) {
                Ok(o) => {
                    objs.push(o.clone());
                    vals.push(Value::Host(Rc::new(Obj::Tensor {
                        data: o,
                        device: Device::cpu(),
                    })));
                }
                Err(e) => {
                    self.err = Some(e);
                    return Err("out of memory".into());
                }
            }
        }
        if let Err(e) = self.it.call(f, Args::new(vals)) {
            self.err = Some(e);
            return Err("the registered function raised an exception".into());
        }
        for (a, o) in args.iter_mut().zip(objs) {
            let new = o.borrow().clone();
            if new.shape() != a.shape() || new.dtype() != a.dtype() {
                return Err(format!(
                    "the function changed an argument's shape or dtype ({:?} {} → {:?} {})",
                    a.shape(),
                    a.dtype(),
                    new.shape(),
                    new.dtype()
                ));
            }
            *a = new;
        }
        Ok(())
    }
}

pub(super) fn vm_call(it: &mut Interp, exec: &Rc<RelaxExec>, name: &str, a: Args) -> Res<Value> {
    if !a.kw.is_empty() {
        return Err(PyErr::type_error(
            "VM functions take positional arguments only",
        ));
    }
    let mut args = Vec::with_capacity(a.pos.len());
    for v in &a.pos {
        args.push(to_vm(it, v)?);
    }
    it.charge_steps(100)?;
    let registry = PackedRegistry::new();
    let mut k = ScriptKernels {
        it,
        exec: exec.kernels.clone(),
        err: None,
    };
    let r = Vm::new(&exec.module, &registry, &mut k).call(name, args);
    let err = k.err.take();
    match r {
        Ok(v) => from_vm(it, v),
        Err(e) => Err(match err {
            Some(pe) => pe,
            None => PyErr::new(ExcKind::TVMError, e.message),
        }),
    }
}

pub(super) fn vm_time(
    it: &mut Interp,
    exec: &Rc<RelaxExec>,
    name: &str,
    number: u64,
    repeat: u64,
    a: Args,
) -> Res<Value> {
    let mut results = Vec::with_capacity(repeat as usize);
    for _ in 0..repeat.max(1) {
        let t0 = it.host.now_seconds();
        for _ in 0..number.max(1) {
            vm_call(it, exec, name, Args::new(a.pos.clone()))?;
        }
        let t1 = it.host.now_seconds();
        results.push((t1 - t0).max(0.0) / number.max(1) as f64);
    }
    Ok(Value::Host(Rc::new(Obj::BenchmarkResult(results))))
}
