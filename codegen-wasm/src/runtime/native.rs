//! The body both native runtimes share: wasmi deliberately mirrors
//! wasmtime's embedding API, so one text serves both. `native_runtime!`
//! expands in the engine's module, which supplies the few calls whose
//! signatures differ (`define_memory`, `instantiate`, `host_error`,
//! `HostResult`, `f32_val`, `f64_val`) and the imports.

macro_rules! native_runtime {
    ($(#[$doc:meta])* $name:ident, $engine:ident) => {
struct Loaded {
    store: Store<()>,
    memory: Memory,
    instance: Instance,
    funcs: HashMap<String, Func>,
    kernels: Vec<KernelInfo>,
    plan: MemoryPlan,
}

$(#[$doc])*
pub struct $name {
    engine: Engine,
    loaded: Option<Loaded>,
    /// Sub-ranges `tessel.parallel_for` splits a task into (run in reverse
    /// order on this thread, as workers would in any order).
    chunks: u32,
}

impl Default for $name {
    fn default() -> Self {
        Self::new()
    }
}

impl $name {
    pub fn new() -> $name {
        $name {
            engine: Engine::default(),
            loaded: None,
            chunks: 1,
        }
    }

    /// Splits every host-launched parallel task into `n` sub-ranges.
    pub fn with_parallel_chunks(mut self, n: u32) -> Self {
        self.chunks = n.max(1);
        self
    }

    /// Instantiates raw module bytes with the Tessel ABI (memory import,
    /// math imports, stack globals): used for modules not built by this crate
    /// (the rustc-compiled reference kernels of the benchmark).
    pub fn load_bytes(
        &mut self,
        bytes: &[u8],
        kernels: Vec<KernelInfo>,
        tasks: Vec<TaskInfo>,
        plan: MemoryPlan,
    ) -> Result<f64> {
        let t0 = Instant::now();
        let module =
            Module::new(&self.engine, bytes).map_err(|e| err(format!("compile: {e:#}")))?;
        let compile = t0.elapsed().as_secs_f64();
        let mut store = Store::new(&self.engine, ());
        let memory = Memory::new(
            &mut store,
            MemoryType::new(plan.initial_pages() as u32, None),
        )
        .map_err(|e| err(format!("memory: {e:#}")))?;
        let mut linker: Linker<()> = Linker::new(&self.engine);
        define_memory(&mut linker, &mut store, memory)?;
        for m in MathFn::ALL {
            let r = if m.arity() == 2 {
                linker.func_wrap(crate::math::MATH_MODULE, m.name(), move |a: f64, b: f64| {
                    m.eval(a, b)
                })
            } else {
                linker.func_wrap(crate::math::MATH_MODULE, m.name(), move |a: f64| {
                    m.eval(a, 0.0)
                })
            };
            r.map_err(|e| err(format!("{e:#}")))?;
        }
        let chunks = self.chunks as i64;
        linker
            .func_wrap(
                LAUNCH_MODULE,
                LAUNCH_NAME,
                move |mut caller: $engine::Caller<'_, ()>,
                      task: i32,
                      begin: i64,
                      end: i64,
                      closure: i32|
                      -> HostResult {
                    let t = tasks
                        .get(task as usize)
                        .ok_or_else(|| host_error(format!("no parallel task {task}")))?;
                    let f = caller
                        .get_export(&t.export)
                        .and_then(|e| e.into_func())
                        .ok_or_else(|| host_error(format!("no export {}", t.export)))?;
                    let wide = t.index_dtype.bits > 32;
                    for (b, e) in super::split_range(begin, end, chunks).into_iter().rev() {
                        let args = if wide {
                            [Val::I64(b), Val::I64(e), Val::I32(closure)]
                        } else {
                            [Val::I32(b as i32), Val::I32(e as i32), Val::I32(closure)]
                        };
                        f.call(&mut caller, &args, &mut [])?;
                    }
                    Ok(())
                },
            )
            .map_err(|e| err(format!("{e:#}")))?;
        let instance = instantiate(&linker, &mut store, &module)?;
        for (name, v) in [
            (STACK_POINTER, plan.stack_base),
            (STACK_LIMIT, plan.stack_limit),
        ] {
            if let Some(g) = instance.get_global(&mut store, name) {
                g.set(&mut store, Val::I32(v as i32))
                    .map_err(|e| err(format!("{e:#}")))?;
            }
        }
        self.loaded = Some(Loaded {
            store,
            memory,
            instance,
            funcs: HashMap::new(),
            kernels,
            plan,
        });
        Ok(compile)
    }

    fn loaded(&mut self) -> Result<&mut Loaded> {
        self.loaded.as_mut().ok_or_else(|| err("no module loaded"))
    }

    fn func(&mut self, name: &str) -> Result<Func> {
        let l = self.loaded()?;
        if let Some(f) = l.funcs.get(name) {
            return Ok(*f);
        }
        let f = l
            .instance
            .get_func(&mut l.store, name)
            .ok_or_else(|| err(format!("the module exports no function {name}")))?;
        l.funcs.insert(name.to_string(), f);
        Ok(f)
    }

    /// Calls an export with raw wasm values.
    pub fn call_raw(&mut self, name: &str, args: &[Value]) -> Result<()> {
        let f = self.func(name)?;
        let vals: Vec<Val> = args
            .iter()
            .map(|v| match *v {
                Value::I32(x) => Val::I32(x),
                Value::I64(x) => Val::I64(x),
                Value::F32(x) => f32_val(x),
                Value::F64(x) => f64_val(x),
            })
            .collect();
        let l = self.loaded()?;
        f.call(&mut l.store, &vals, &mut [])
            .map_err(|e| err(format!("{name} trapped: {e:#}")))
    }

    fn args(&mut self, kernel: &str, args: &[Arg]) -> Result<Vec<Value>> {
        let l = self.loaded()?;
        let info = l
            .kernels
            .iter()
            .find(|k| k.name == kernel)
            .ok_or_else(|| err(format!("no kernel {kernel}")))?;
        kernel_args(info, args)
    }
}

impl Runtime for $name {
    fn load(&mut self, module: &WasmModule) -> Result<f64> {
        self.load_bytes(
            module.bytes(),
            module.kernels.clone(),
            module.tasks.clone(),
            MemoryPlan::for_module(module),
        )
    }

    fn alloc(&mut self, dtype: DataType, shape: &[usize]) -> Result<Tensor> {
        let l = self.loaded()?;
        let bytes = shape.iter().product::<usize>() as u64 * dtype.bytes() as u64;
        let (addr, pages) = l.plan.alloc(bytes)?;
        let have = l.memory.size(&l.store);
        if pages > have {
            l.memory
                .grow(&mut l.store, pages - have)
                .map_err(|e| err(format!("growing the memory: {e:#}")))?;
        }
        Ok(Tensor {
            addr,
            dtype,
            shape: shape.to_vec(),
        })
    }

    fn free_all(&mut self) {
        if let Some(l) = self.loaded.as_mut() {
            l.plan.free_all();
        }
    }

    fn copy_in(&mut self, t: &Tensor, data: &NDArray) -> Result<()> {
        let bytes = tensor_bytes(t, data)?;
        let l = self.loaded()?;
        l.memory
            .write(&mut l.store, t.addr as usize, &bytes)
            .map_err(|e| err(format!("copy_in: {e}")))
    }

    fn copy_out(&mut self, t: &Tensor) -> Result<NDArray> {
        let l = self.loaded()?;
        let mut bytes = vec![0u8; t.bytes()];
        l.memory
            .read(&l.store, t.addr as usize, &mut bytes)
            .map_err(|e| err(format!("copy_out: {e}")))?;
        array_from(t, &bytes)
    }

    fn call(&mut self, kernel: &str, args: &[Arg]) -> Result<()> {
        let vals = self.args(kernel, args)?;
        self.call_raw(kernel, &vals)
    }

    fn time(&mut self, kernel: &str, args: &[Arg], repeat: u32) -> Result<Timing> {
        let vals = self.args(kernel, args)?;
        self.call_raw(kernel, &vals)?;
        let mut total = 0.0;
        let mut min = f64::INFINITY;
        for _ in 0..repeat.max(1) {
            let t0 = Instant::now();
            self.call_raw(kernel, &vals)?;
            let dt = t0.elapsed().as_secs_f64();
            total += dt;
            min = min.min(dt);
        }
        Ok(Timing {
            mean: total / repeat.max(1) as f64,
            min,
            runs: repeat.max(1),
        })
    }
}
    };
}

pub(super) use native_runtime;
