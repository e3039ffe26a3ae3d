//! The body both native runtimes share: wasmi deliberately mirrors
//! wasmtime's embedding API, so one text serves both. `native_runtime!`
//! expands in the engine's module, which supplies the few calls whose
//! signatures differ (`new_engine`, the `HostMemory` calls, `instantiate`,
//! `host_error`, `HostResult`, `f32_val`, `f64_val`, `start_pool`) and the
//! imports.
//!
//! Parallel tasks launched through `tessel.parallel_for` are split into
//! static chunks ([`super::split_range`]): the calling thread runs the
//! first, a [`ChunkPool`] (wasmtime, when the module imports a shared
//! memory) runs the others on its threads, each over its own instance of
//! the module and its own stack; without a pool every chunk runs on the
//! calling thread.

use std::sync::mpsc::Sender;

/// One sub-range of a parallel task, for a pool thread. (Only wasmtime has
/// pools: a wasmi-only build never reads one.)
#[cfg_attr(not(feature = "native"), allow(dead_code))]
pub(super) struct Chunk {
    /// The task's export, `__task_<kernel>_<id>`.
    pub export: String,
    /// `begin`/`end` are `i64` in the task's signature (else `i32`).
    pub wide: bool,
    pub begin: i64,
    pub end: i64,
    pub closure: i32,
}

/// Threads that run chunks of parallel tasks over the module's shared
/// memory, each with its own instance.
pub(super) trait ChunkPool: Send + Sync {
    /// Threads besides the calling one.
    fn workers(&self) -> usize;
    /// Runs `chunk` on worker `worker`; the result (or the trap's message)
    /// goes to `done`.
    fn submit(
        &self,
        worker: usize,
        chunk: Chunk,
        done: Sender<std::result::Result<(), String>>,
    ) -> std::result::Result<(), String>;
}

/// How long the calling thread waits for a pool thread's chunk before the
/// run fails (natively a runaway kernel cannot be interrupted; this bounds
/// a lost or dead worker).
pub(super) const CHUNK_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(600);

macro_rules! native_runtime {
    ($(#[$doc:meta])* $name:ident, $engine:ident) => {
/// The arguments of a parallel task body over `[begin, end)` (`i64`
/// bounds when `wide`).
fn task_args(wide: bool, begin: i64, end: i64, closure: i32) -> [Val; 3] {
    if wide {
        [Val::I64(begin), Val::I64(end), Val::I32(closure)]
    } else {
        [Val::I32(begin as i32), Val::I32(end as i32), Val::I32(closure)]
    }
}

struct Loaded {
    store: Store<()>,
    memory: HostMemory,
    instance: Instance,
    funcs: HashMap<String, Func>,
    kernels: Vec<KernelInfo>,
    plan: MemoryPlan,
    /// Threads parallel tasks run on (1 without a pool).
    threads: u32,
    /// What the launches of the current call did.
    launches: std::sync::Arc<std::sync::Mutex<super::LaunchStats>>,
}

$(#[$doc])*
pub struct $name {
    engine: Engine,
    loaded: Option<Loaded>,
    /// Sub-ranges `tessel.parallel_for` splits a task into, at least one per
    /// thread (on one thread they run in reverse order, as workers could).
    chunks: u32,
    /// Threads (the calling one included) for modules that import a shared
    /// memory.
    threads: u32,
}

impl Default for $name {
    fn default() -> Self {
        Self::new()
    }
}

impl $name {
    pub fn new() -> $name {
        $name {
            engine: new_engine(),
            loaded: None,
            chunks: 1,
            threads: default_threads(),
        }
    }

    /// Runs parallel tasks of shared-memory modules on `n` threads (the
    /// calling one included); 1 runs them inline.
    pub fn with_threads(mut self, n: u32) -> Self {
        self.threads = n.max(1);
        self
    }

    /// Links the imports every instance of a module needs besides the
    /// memory and `tessel.parallel_for`: the math functions.
    fn link_math(linker: &mut Linker<()>) -> Result<()> {
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
        Ok(())
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
        let shared = imports_shared_memory(&module);
        let threads = if shared { self.threads } else { 1 };
        // The heap starts after every thread's stack.
        let heap = plan.heap_start.max(plan.thread_stack(threads).0);
        let plan = MemoryPlan {
            heap_start: heap,
            heap_top: heap,
            ..plan
        };
        let mut store = Store::new(&self.engine, ());
        let memory = new_memory(&self.engine, &mut store, plan.initial_pages(), shared)?;
        let mut linker: Linker<()> = Linker::new(&self.engine);
        define_memory(&mut linker, &mut store, &memory)?;
        Self::link_math(&mut linker)?;
        let pool = if threads > 1 && !tasks.is_empty() {
            start_pool(&self.engine, &module, &memory, &plan, threads, &tasks)?
        } else {
            None
        };
        let threads = pool.as_ref().map_or(1, |p| p.workers() as u32 + 1);
        let chunks = i64::from(self.chunks.max(threads));
        let launches = std::sync::Arc::new(std::sync::Mutex::new(super::LaunchStats::default()));
        let stats = launches.clone();
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
                    let args = |b: i64, e: i64| task_args(wide, b, e, closure);
                    let ranges = super::split_range(begin, end, chunks);
                    let mut used = 1;
                    match &pool {
                        Some(pool) if ranges.len() > 1 => {
                            // Chunk k runs on thread k % threads; thread 0 is
                            // this one.
                            let (tx, rx) = std::sync::mpsc::channel();
                            let mut sent = 0;
                            let mut own = Vec::new();
                            for (k, &(b, e)) in ranges.iter().enumerate() {
                                let thread = k % (pool.workers() + 1);
                                if thread == 0 {
                                    own.push((b, e));
                                    continue;
                                }
                                used = used.max(thread + 1);
                                let chunk = super::native::Chunk {
                                    export: t.export.clone(),
                                    wide,
                                    begin: b,
                                    end: e,
                                    closure,
                                };
                                pool.submit(thread - 1, chunk, tx.clone()).map_err(host_error)?;
                                sent += 1;
                            }
                            let mut first_error = None;
                            for (b, e) in own {
                                if let Err(trap) = f.call(&mut caller, &args(b, e), &mut []) {
                                    first_error = Some(format!("{trap:#}"));
                                    break;
                                }
                            }
                            // Every chunk sent is waited for, so no worker
                            // still writes the memory when this returns.
                            for _ in 0..sent {
                                match rx.recv_timeout(super::native::CHUNK_TIMEOUT) {
                                    Ok(Ok(())) => {}
                                    Ok(Err(m)) => {
                                        first_error.get_or_insert(m);
                                    }
                                    Err(_) => {
                                        first_error.get_or_insert(format!(
                                            "a worker thread did not finish its chunk of {} within {} s",
                                            t.export,
                                            super::native::CHUNK_TIMEOUT.as_secs()
                                        ));
                                        break;
                                    }
                                }
                            }
                            if let Some(m) = first_error {
                                return Err(host_error(m));
                            }
                        }
                        _ => {
                            for &(b, e) in ranges.iter().rev() {
                                f.call(&mut caller, &args(b, e), &mut [])?;
                            }
                        }
                    }
                    if let Ok(mut s) = stats.lock() {
                        s.launches += 1;
                        s.chunks += ranges.len() as u32;
                        s.threads = s.threads.max(used as u32);
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
            threads,
            launches,
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
        if let Ok(mut s) = l.launches.lock() {
            *s = super::LaunchStats::default();
        }
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
        let have = memory_pages(&l.memory, &l.store);
        if pages > have {
            grow_memory(&l.memory, &mut l.store, pages - have)?;
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
        write_memory(&l.memory, &mut l.store, t.addr as usize, &bytes)
    }

    fn copy_out(&mut self, t: &Tensor) -> Result<NDArray> {
        let l = self.loaded()?;
        let mut bytes = vec![0u8; t.bytes()];
        read_memory(&l.memory, &l.store, t.addr as usize, &mut bytes)?;
        array_from(t, &bytes)
    }

    fn call(&mut self, kernel: &str, args: &[Arg]) -> Result<()> {
        let vals = self.args(kernel, args)?;
        self.call_raw(kernel, &vals)
    }

    fn threading(&self) -> super::Threading {
        match &self.loaded {
            Some(l) if l.threads > 1 => super::Threading::pool(l.threads),
            Some(_) if self.threads > 1 => super::Threading::single(
                "the module does not import a shared memory, so its parallel loops run on the calling thread",
            ),
            _ if self.threads > 1 && threads_supported() => super::Threading::pool(self.threads),
            _ if self.threads > 1 => super::Threading::single(
                "this engine runs parallel loops on one thread",
            ),
            _ => super::Threading::single("one thread was asked for"),
        }
    }

    fn last_launches(&self) -> super::LaunchStats {
        self.loaded
            .as_ref()
            .and_then(|l| l.launches.lock().ok().map(|s| *s))
            .unwrap_or_default()
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
