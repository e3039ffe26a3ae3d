//! The CPU backend's threads in the browser: a pool of sub-workers
//! (`static/tessel-pool.js`, whose header describes the protocol) that run
//! the chunks of a kernel's parallel loops over the module's shared
//! `WebAssembly.Memory`, while the calling worker runs chunk 0 and waits.
//!
//! A nested worker does not start while its parent is blocked, so the full
//! worker spawns the pool when it starts ([`start`]) and every request waits
//! ([`ready`], asynchronously) until each thread reported it started. A
//! thread that traps fails the run with the trap's message; one that does
//! not answer within [`ANSWER_MS`] fails it too, and the pool is rebuilt for
//! the next run.

/// Most threads a parallel loop is split among (the calling one included).
pub const MAX_THREADS: u32 = 8;
/// How long a pool thread may take to start, load a module or finish a chunk.
pub const ANSWER_MS: f64 = 60_000.0;

/// Threads the pool has (the calling worker included), or why there is one:
/// only a cross-origin isolated page can share memory between workers.
pub fn pool_threads(
    isolated: bool,
    shared_buffers: bool,
    hardware_concurrency: Option<f64>,
) -> Result<u32, String> {
    if !shared_buffers {
        return Err("one thread: this browser has no SharedArrayBuffer".into());
    }
    if !isolated {
        return Err("one thread: the page is not cross-origin isolated (COOP/COEP headers), so workers cannot share memory".into());
    }
    let cores = hardware_concurrency.unwrap_or(1.0).max(1.0) as u32;
    match cores.min(MAX_THREADS) {
        1 => Err("one thread: the browser reports one core".into()),
        n => Ok(n),
    }
}

#[cfg(target_arch = "wasm32")]
pub use browser::*;

#[cfg(target_arch = "wasm32")]
mod browser {
    use std::cell::{Cell, RefCell};
    use std::rc::Rc;

    use codegen_wasm::runtime::{split_range, LaunchStats, MemoryPlan, Threading};
    use js_sys::{
        Array, Atomics, Float64Array, Function, Int32Array, Object, Reflect, WebAssembly,
    };
    use wasm_bindgen::prelude::*;
    use wasm_bindgen::JsCast;
    use web_sys::Worker;

    use super::{pool_threads, ANSWER_MS};

    // Control words (Int32 indices), as in static/tessel-pool.js.
    const GEN: u32 = 0;
    const CMD: u32 = 1;
    const TASK: u32 = 2;
    const CLOSURE: u32 = 3;
    const DONE: u32 = 4;
    const READY: u32 = 5;
    const ERROR: u32 = 6;
    const ERROR_LEN: u32 = 7;
    const BEGIN_F64: u32 = 4;
    const END_F64: u32 = 5;
    const ERROR_TEXT: u32 = 64;
    const CONTROL_BYTES: u32 = 1024;
    const JOB: i32 = 1;
    const RETURN: i32 = 2;

    fn now() -> f64 {
        perf_now()
    }

    /// A JS exception as text.
    pub fn js_err(e: &JsValue) -> String {
        if let Some(err) = e.dyn_ref::<js_sys::Error>() {
            return format!(
                "{}: {}",
                String::from(err.name()),
                String::from(err.message())
            );
        }
        e.as_string().unwrap_or_else(|| format!("{e:?}"))
    }

    /// `performance.now()` of the current global (window or worker), in ms.
    pub fn perf_now() -> f64 {
        Reflect::get(&js_sys::global(), &"performance".into())
            .ok()
            .and_then(|p| {
                let now: Function = Reflect::get(&p, &"now".into()).ok()?.dyn_into().ok()?;
                now.call0(&p).ok()?.as_f64()
            })
            .unwrap_or(0.0)
    }

    /// `globalThis[key]` (undefined when absent).
    pub(crate) fn global(key: &str) -> JsValue {
        Reflect::get(&js_sys::global(), &key.into()).unwrap_or(JsValue::UNDEFINED)
    }

    fn set(obj: &JsValue, key: &str, value: &JsValue) {
        let _ = Reflect::set(obj, &JsValue::from_str(key), value);
    }

    /// The sub-workers and their control block.
    struct Pool {
        workers: Vec<Worker>,
        started: Rc<Cell<u32>>,
        failed: Rc<RefCell<Option<String>>>,
        words: Int32Array,
        floats: Float64Array,
        control: JsValue,
        threads: u32,
        since: f64,
        _handlers: Vec<Closure<dyn FnMut(web_sys::MessageEvent)>>,
        _error_handlers: Vec<Closure<dyn FnMut(web_sys::ErrorEvent)>>,
    }

    impl Drop for Pool {
        fn drop(&mut self) {
            for w in &self.workers {
                w.terminate();
            }
        }
    }

    enum State {
        /// One thread, and why.
        Single(String),
        Starting(Rc<Pool>),
        Ready(Rc<Pool>),
        /// A run failed on the pool: rebuilt before the next.
        Broken,
    }

    thread_local! {
        static STATE: RefCell<State> = RefCell::new(State::Single(
            "one thread: the worker pool was not started".into(),
        ));
    }

    /// Spawns the pool where the page can share memory (call when the
    /// worker starts: nested workers do not start while it is blocked).
    pub fn start() {
        let isolated = global("crossOriginIsolated").as_bool().unwrap_or(false);
        let sab = !global("SharedArrayBuffer").is_undefined();
        let cores = Reflect::get(&global("navigator"), &"hardwareConcurrency".into())
            .ok()
            .and_then(|v| v.as_f64());
        let state = match pool_threads(isolated, sab, cores) {
            Ok(n) => match spawn(n) {
                Ok(p) => State::Starting(Rc::new(p)),
                Err(m) => {
                    State::Single(format!("one thread: the worker pool failed to start: {m}"))
                }
            },
            Err(m) => State::Single(m),
        };
        STATE.with(|s| *s.borrow_mut() = state);
    }

    fn spawn(threads: u32) -> Result<Pool, String> {
        let control = js_sys::SharedArrayBuffer::new(CONTROL_BYTES);
        let started = Rc::new(Cell::new(0));
        let failed = Rc::new(RefCell::new(None));
        let mut workers = Vec::new();
        let mut handlers = Vec::new();
        let mut error_handlers = Vec::new();
        for k in 1..threads {
            let w = Worker::new("tessel-pool.js").map_err(|e| js_err(&e))?;
            let count = started.clone();
            let on_message = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(
                move |ev: web_sys::MessageEvent| {
                    let kind = Reflect::get(&ev.data(), &"type".into())
                        .ok()
                        .and_then(|t| t.as_string());
                    if kind.as_deref() == Some("started") {
                        count.set(count.get() + 1);
                    }
                },
            );
            let fail = failed.clone();
            let on_error =
                Closure::<dyn FnMut(web_sys::ErrorEvent)>::new(move |ev: web_sys::ErrorEvent| {
                    *fail.borrow_mut() = Some(format!("pool thread {k} failed: {}", ev.message()));
                });
            w.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
            w.set_onerror(Some(on_error.as_ref().unchecked_ref()));
            workers.push(w);
            handlers.push(on_message);
            error_handlers.push(on_error);
        }
        Ok(Pool {
            workers,
            started,
            failed,
            words: Int32Array::new(&control),
            floats: Float64Array::new(&control),
            control: control.into(),
            threads,
            since: now(),
            _handlers: handlers,
            _error_handlers: error_handlers,
        })
    }

    /// Resolves after `ms` milliseconds (`setTimeout`), without blocking.
    pub(crate) async fn sleep_ms(ms: i32) {
        let p = js_sys::Promise::new(&mut |resolve, _| {
            let set_timeout: Option<Function> = global("setTimeout").dyn_into().ok();
            if let Some(f) = set_timeout {
                let _ = f.call2(&JsValue::UNDEFINED, &resolve, &JsValue::from(ms));
            }
        });
        let _ = wasm_bindgen_futures::JsFuture::from(p).await;
    }

    enum Next {
        Done,
        Restart,
        Wait,
        Promote,
        Fail(String),
    }

    /// Waits until the pool has started (or failed to); rebuilds a pool
    /// that a failed run left broken.
    pub async fn ready() {
        loop {
            let next = STATE.with(|s| match &*s.borrow() {
                State::Broken => Next::Restart,
                State::Starting(p) => {
                    if let Some(m) = p.failed.borrow().clone() {
                        Next::Fail(m)
                    } else if p.started.get() + 1 >= p.threads {
                        Next::Promote
                    } else if now() - p.since > ANSWER_MS {
                        Next::Fail("its threads did not start within 60 s".into())
                    } else {
                        Next::Wait
                    }
                }
                _ => Next::Done,
            });
            match next {
                Next::Done => return,
                Next::Restart => start(),
                Next::Wait => sleep_ms(5).await,
                Next::Promote => STATE.with(|s| {
                    let mut s = s.borrow_mut();
                    if let State::Starting(p) = &*s {
                        *s = State::Ready(p.clone());
                    }
                }),
                Next::Fail(m) => STATE.with(|s| {
                    *s.borrow_mut() =
                        State::Single(format!("one thread: the worker pool failed to start: {m}"))
                }),
            }
        }
    }

    /// How the runtime runs parallel loops now.
    pub fn threading() -> Threading {
        STATE.with(|s| match &*s.borrow() {
            State::Ready(p) => Threading::pool(p.threads),
            State::Single(m) => Threading::single(m.clone()),
            State::Starting(_) => {
                Threading::single("one thread: the worker pool is still starting")
            }
            State::Broken => Threading::single("one thread: the worker pool is restarting"),
        })
    }

    fn ready_pool() -> Option<Rc<Pool>> {
        STATE.with(|s| match &*s.borrow() {
            State::Ready(p) => Some(p.clone()),
            _ => None,
        })
    }

    fn mark_broken() {
        STATE.with(|s| *s.borrow_mut() = State::Broken);
    }

    /// One task export of the calling thread's instance.
    pub struct LocalTask {
        pub func: Function,
        pub i64_bounds: bool,
    }

    impl LocalTask {
        fn run(&self, begin: i64, end: i64, closure: i32) -> Result<(), String> {
            let (b, e): (JsValue, JsValue) = if self.i64_bounds {
                (
                    js_sys::BigInt::from(begin).into(),
                    js_sys::BigInt::from(end).into(),
                )
            } else {
                (JsValue::from(begin as i32), JsValue::from(end as i32))
            };
            self.func
                .call3(&JsValue::UNDEFINED, &b, &e, &JsValue::from(closure))
                .map(|_| ())
                .map_err(|e| js_err(&e))
        }
    }

    /// What `tessel.parallel_for` of one loaded module runs on.
    pub struct Launcher {
        pool: Option<Rc<Pool>>,
        pub tasks: RefCell<Vec<LocalTask>>,
        loaded: Cell<bool>,
        busy: Cell<bool>,
        pub stats: Cell<LaunchStats>,
    }

    impl Launcher {
        /// Hands the module to the pool's threads (each with its stack of
        /// `plan`) when the pool is ready and `shared`; else launches run
        /// on the calling thread.
        pub fn new(
            module: &WebAssembly::Module,
            memory: &WebAssembly::Memory,
            plan: &MemoryPlan,
            tasks: &[codegen_wasm::TaskInfo],
            shared: bool,
        ) -> Launcher {
            let pool = ready_pool().filter(|_| shared && !tasks.is_empty());
            if let Some(p) = &pool {
                // Threads still waiting for jobs of the previous module go
                // back to their event loop, where the new one reaches them.
                Atomics::store(&p.words, CMD, RETURN).ok();
                Atomics::add(&p.words, GEN, 1).ok();
                Atomics::notify(&p.words, GEN).ok();
                Atomics::store(&p.words, READY, 0).ok();
                Atomics::store(&p.words, ERROR, 0).ok();
                let task_list = Array::new();
                for t in tasks {
                    let o = Object::new();
                    set(&o, "export", &t.export.as_str().into());
                    set(&o, "wide", &JsValue::from(t.index_dtype.bits == 64));
                    task_list.push(&o);
                }
                for (i, w) in p.workers.iter().enumerate() {
                    let k = i as u32 + 1;
                    let (sp, limit) = plan.thread_stack(k);
                    let msg = Object::new();
                    set(&msg, "type", &"load".into());
                    set(&msg, "module", module);
                    set(&msg, "memory", memory);
                    set(&msg, "control", &p.control);
                    set(&msg, "thread", &JsValue::from(k));
                    set(&msg, "threads", &JsValue::from(p.threads));
                    set(
                        &msg,
                        "stack",
                        &Array::of2(&(sp as f64).into(), &(limit as f64).into()),
                    );
                    set(&msg, "tasks", &task_list);
                    let _ = w.post_message(&msg);
                }
            }
            Launcher {
                pool,
                tasks: RefCell::new(Vec::new()),
                loaded: Cell::new(false),
                busy: Cell::new(false),
                stats: Cell::new(LaunchStats::default()),
            }
        }

        /// Threads a launch is split among.
        pub fn threads(&self) -> u32 {
            self.pool.as_ref().map_or(1, |p| p.threads)
        }

        fn count(&self, chunks: u32) {
            let mut s = self.stats.get();
            s.launches += 1;
            s.chunks += chunks;
            s.threads = s.threads.max(chunks.min(self.threads()).max(1));
            self.stats.set(s);
        }

        /// `tessel.parallel_for(task, begin, end, closure)`.
        pub fn launch(&self, task: i32, begin: i64, end: i64, closure: i32) -> Result<(), String> {
            let tasks = self.tasks.borrow();
            let local = tasks
                .get(task as usize)
                .ok_or_else(|| format!("tessel.parallel_for: no task {task}"))?;
            let chunks = split_range(begin, end, i64::from(self.threads()));
            let pool = match &self.pool {
                Some(p) if !self.busy.get() && chunks.len() > 1 => p.clone(),
                // One thread, one chunk, or a launch from inside a task:
                // the whole range here.
                _ => {
                    if end > begin {
                        local.run(begin, end, closure)?;
                    }
                    self.count(u32::from(end > begin));
                    return Ok(());
                }
            };
            self.busy.set(true);
            let r = self.launch_on(&pool, local, task, begin, end, closure, &chunks);
            self.busy.set(false);
            if r.is_ok() {
                self.count(chunks.len() as u32);
            }
            r
        }

        #[allow(clippy::too_many_arguments)]
        fn launch_on(
            &self,
            pool: &Pool,
            local: &LocalTask,
            task: i32,
            begin: i64,
            end: i64,
            closure: i32,
            chunks: &[(i64, i64)],
        ) -> Result<(), String> {
            let others = pool.threads as i32 - 1;
            let w = &pool.words;
            if !self.loaded.get() {
                wait_until(w, READY, others, "load the module")?;
                self.loaded.set(true);
                check_error(w)?;
            }
            Atomics::store(w, TASK, task).ok();
            Atomics::store(w, CLOSURE, closure).ok();
            pool.floats.set_index(BEGIN_F64, begin as f64);
            pool.floats.set_index(END_F64, end as f64);
            Atomics::store(w, DONE, 0).ok();
            Atomics::store(w, CMD, JOB).ok();
            Atomics::add(w, GEN, 1).ok();
            Atomics::notify(w, GEN).ok();
            let mine = local.run(chunks[0].0, chunks[0].1, closure);
            wait_until(w, DONE, others, "finish its chunk")?;
            mine?;
            check_error(w)
        }
    }

    /// Waits (blocking, as workers may) until word `at` reaches `want`; a
    /// thread that does not answer in time breaks the pool.
    fn wait_until(w: &Int32Array, at: u32, want: i32, what: &str) -> Result<(), String> {
        let deadline = now() + ANSWER_MS;
        loop {
            let have = Atomics::load(w, at).unwrap_or(want);
            if have >= want {
                return Ok(());
            }
            let left = deadline - now();
            if left <= 0.0 {
                mark_broken();
                return Err(format!(
                    "a pool thread did not {what} within 60 s; the pool restarts for the next run"
                ));
            }
            if let Err(e) = Atomics::wait_with_timeout(w, at, have, left) {
                mark_broken();
                return Err(format!("waiting for the pool: {}", js_err(&e)));
            }
        }
    }

    fn check_error(w: &Int32Array) -> Result<(), String> {
        if Atomics::load(w, ERROR).unwrap_or(0) == 0 {
            return Ok(());
        }
        let len = Atomics::load(w, ERROR_LEN).unwrap_or(0).max(0) as u32;
        // Copied out: TextDecoder refuses views of shared memory.
        let view =
            js_sys::Uint8Array::new_with_byte_offset_and_length(&w.buffer(), ERROR_TEXT, len);
        let text = String::from_utf8_lossy(&view.to_vec()).into_owned();
        Err(if text.is_empty() {
            "a pool thread failed".into()
        } else {
            text
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pool_size_follows_cores_up_to_the_cap() {
        assert_eq!(pool_threads(true, true, Some(4.0)), Ok(4));
        assert_eq!(pool_threads(true, true, Some(64.0)), Ok(MAX_THREADS));
        assert!(pool_threads(true, true, Some(1.0))
            .unwrap_err()
            .contains("one core"));
        assert!(pool_threads(true, true, None).is_err());
    }

    #[test]
    fn no_pool_without_isolation_or_shared_buffers() {
        let e = pool_threads(false, true, Some(8.0)).unwrap_err();
        assert!(e.contains("cross-origin isolated"), "{e}");
        let e = pool_threads(true, false, Some(8.0)).unwrap_err();
        assert!(e.contains("SharedArrayBuffer"), "{e}");
    }
}
