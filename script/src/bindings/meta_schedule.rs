//! `tvm.meta_schedule` (also `tvm.s_tir.meta_schedule`): `tune_tir` (the
//! course's form and the older `config=ms.TuneConfig(…)` one),
//! `space_generator.ScheduleFn`, `tir_integration.compile_tir` and the
//! database's `query_schedule`, over the
//! `tessel-tune` crate. Candidates are built and timed by the session's
//! backend (wasm for `llvm …`, WGSL for `cuda`/`nvidia/…`/`webgpu`/`metal`);
//! progress goes to stderr in TVM's log wording; the database is read from
//! and written to `work_dir` through the host (a host that keeps no files
//! tunes from scratch each time).

use std::any::Any;
use std::cell::RefCell;
use std::rc::Rc;

use super::host::{tvm_obj, Obj, SchedObj};
use super::meta_schedule_names::{install_with, Entries};
use crate::python::error::{render_traceback, Exc, ExcKind, PyErr, Res};
use crate::python::host_object::HostObject;
use crate::python::interp::Interp;
use crate::python::ops::num_i64;
use crate::python::value::*;
use crate::Stream;
use compiler_core::schedule::Schedule;
use tessel_ir::printer::Dialect;
use tessel_ir::{BaseFunc, IRModule};
use tessel_tune::search::compile_tir as best_schedule;
use tessel_tune::{
    tune, Database, Runner, SearchConfig, SpaceGenerator, TuneError, TuneSession, TuneTarget,
    Workload,
};

const WORKLOADS_FILE: &str = "database_workload.json";
const RECORDS_FILE: &str = "database_tuning_record.json";

/// `ms.space_generator.ScheduleFn(f)`.
struct ScheduleFnObj {
    func: Value,
}

/// `ms.TuneConfig(…)`: the trial counts (other settings are accepted and
/// have no effect).
struct TuneConfigObj {
    max_trials_global: Option<i64>,
    num_trials_per_iter: Option<i64>,
}

/// The database `tune_tir` returns.
struct DatabaseObj {
    db: RefCell<Database>,
}

impl HostObject for ScheduleFnObj {
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn class_name(&self) -> Option<&'static str> {
        Some("tvm.meta_schedule.space_generator.ScheduleFn")
    }
    fn repr(&self, _it: &mut Interp) -> Res<String> {
        Ok("meta_schedule.ScheduleFn".into())
    }
}

impl HostObject for TuneConfigObj {
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn class_name(&self) -> Option<&'static str> {
        Some("tvm.meta_schedule.TuneConfig")
    }
    fn repr(&self, _it: &mut Interp) -> Res<String> {
        Ok("meta_schedule.TuneConfig".into())
    }
}

impl HostObject for DatabaseObj {
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn class_name(&self) -> Option<&'static str> {
        Some("tvm.meta_schedule.database.JSONDatabase")
    }
    fn repr(&self, _it: &mut Interp) -> Res<String> {
        Ok("meta_schedule.JSONDatabase".into())
    }
    fn length(&self) -> Option<i64> {
        Some(self.db.borrow().len() as i64)
    }
    fn get_attr(&self, _it: &mut Interp, this: &Value, name: &str) -> Res<Value> {
        match name {
            "query_schedule" => Ok(Value::BoundMethod(Rc::new((this.clone(), name.into())))),
            _ => Err(PyErr::attribute_error(format!(
                "'JSONDatabase' object has no attribute '{name}'"
            ))),
        }
    }
    fn call_method(&self, it: &mut Interp, _this: &Value, name: &str, a: Args) -> Res<Value> {
        match name {
            "__len__" => {
                a.done("__len__", 0)?;
                Ok(Value::Int(self.db.borrow().len() as i64))
            }
            "query_schedule" => query_schedule(it, &self.db.borrow(), a),
            _ => Err(PyErr::attribute_error(format!(
                "'JSONDatabase' object has no attribute '{name}'"
            ))),
        }
    }
}

/// Creates the modules and hangs them under `tvm` and `tvm.s_tir`.
pub fn install(it: &mut Interp) {
    install_with(
        it,
        Entries {
            schedule_fn,
            post_order_apply,
            tune_tir,
            compile_tir,
            tune_config,
        },
    );
}

fn schedule_fn(_it: &mut Interp, mut a: Args) -> Res<Value> {
    let func = a.req(0, "sch_fn", "ScheduleFn")?;
    a.done("ScheduleFn", 1)?;
    Ok(Value::Host(Rc::new(ScheduleFnObj { func })))
}

fn post_order_apply(_it: &mut Interp, a: Args) -> Res<Value> {
    // Rules and postprocessors are the target's defaults.
    let _ = a;
    Ok(Value::str("post-order-apply"))
}

fn tune_config(_it: &mut Interp, mut a: Args) -> Res<Value> {
    let max_trials_global = a.take_kw("max_trials_global").as_ref().and_then(num_i64);
    let num_trials_per_iter = a.take_kw("num_trials_per_iter").as_ref().and_then(num_i64);
    // TVM's other settings (strategy, max_trials_per_task, …) are accepted.
    a.kw.clear();
    a.done("TuneConfig", 0)?;
    Ok(Value::Host(Rc::new(TuneConfigObj {
        max_trials_global,
        num_trials_per_iter,
    })))
}

/// The module and its function from an `IRModule` or `PrimFunc` argument.
fn module_arg(v: &Value, what: &str) -> Res<IRModule> {
    if let Value::Host(o) = v {
        match tvm_obj(o) {
            Some(Obj::IRModule { module, .. }) => return Ok(module.borrow().clone()),
            Some(Obj::PrimFunc { func, .. }) => {
                let mut m = IRModule::new();
                m.insert("main".to_string(), BaseFunc::Prim(func.clone()));
                return Ok(m);
            }
            _ => {}
        }
    }
    Err(PyErr::type_error(format!(
        "{what}: `mod` must be an IRModule or a PrimFunc"
    )))
}

fn target_arg(it: &mut Interp, v: Option<Value>) -> Res<TuneTarget> {
    if matches!(v, None | Some(Value::None)) {
        return Err(PyErr::type_error(
            "tune_tir() missing required argument: 'target'",
        ));
    }
    let text = super::tvm::target_text(it, v)?;
    TuneTarget::parse(&text).map_err(tune_error)
}

fn tune_error(e: TuneError) -> Box<PyErr> {
    match e {
        TuneError::Config(m) => PyErr::value_error(m),
        other => PyErr::new(ExcKind::TVMError, other.to_string()),
    }
}

fn positive(v: Option<Value>, name: &str) -> Res<Option<usize>> {
    match v {
        None | Some(Value::None) => Ok(None),
        Some(v) => match num_i64(&v) {
            Some(n) if n > 0 => Ok(Some(n as usize)),
            Some(n) => Err(PyErr::value_error(format!(
                "{name} must be positive, got {n}"
            ))),
            None => Err(PyErr::type_error(format!("{name} must be an integer"))),
        },
    }
}

fn join(dir: &str, file: &str) -> String {
    format!("{}/{file}", dir.trim_end_matches('/'))
}

/// A Python exception as its traceback text.
fn error_text(it: &mut Interp, e: &PyErr) -> String {
    let value = match &e.exc {
        Exc::Obj(v) => v.clone(),
        Exc::Lazy { kind, args } => it.new_exception(*kind, args.clone()),
    };
    let kind = it.class_of(&value).display_name();
    let message = it.str_of(&value).unwrap_or_default();
    let entries: Vec<_> = e.tb.iter().rev().cloned().collect();
    render_traceback(&entries, &kind, &message).0
}

fn log(it: &mut Interp, line: &str) {
    it.write(Stream::Stderr, format!("[INFO] {line}\n"));
}

fn tune_tir(it: &mut Interp, mut a: Args) -> Res<Value> {
    let m = a.req(0, "mod", "tune_tir")?;
    let target = a.take(1, "target");
    let work_dir = a.take(2, "work_dir");
    let max_trials = a.take(3, "max_trials_global");
    let per_iter = a.take_kw("num_trials_per_iter");
    let space = a.take_kw("space");
    let config = a.take_kw("config");
    let seed = a.take_kw("seed");
    let _ = a.take_kw("task_name");
    // TVM's builder, runner, database, cost model, scheduler, strategy…:
    // Tessel has one of each.
    a.kw.clear();
    a.done("tune_tir", 4)?;
    let module = module_arg(&m, "tune_tir")?;
    let target = target_arg(it, target)?;
    let work_dir = match work_dir {
        Some(Value::Str(s)) => s.to_string(),
        None => {
            return Err(PyErr::type_error(
                "tune_tir() missing required argument: 'work_dir'",
            ))
        }
        Some(_) => return Err(PyErr::type_error("work_dir must be a string")),
    };
    let (mut max_trials, mut per_iter) = (
        positive(max_trials, "max_trials_global")?,
        positive(per_iter, "num_trials_per_iter")?,
    );
    if let Some(Value::Host(o)) = &config {
        let Some(c) = o.as_any().downcast_ref::<TuneConfigObj>() else {
            return Err(PyErr::type_error(
                "config must be a meta_schedule.TuneConfig",
            ));
        };
        max_trials = max_trials.or(positive(
            c.max_trials_global.map(Value::Int),
            "max_trials_global",
        )?);
        per_iter = per_iter.or(positive(
            c.num_trials_per_iter.map(Value::Int),
            "num_trials_per_iter",
        )?);
    }
    let Some(max_trials) = max_trials else {
        return Err(PyErr::type_error(
            "tune_tir() missing required argument: 'max_trials_global'",
        ));
    };
    let workload = Workload::new(module.clone()).map_err(tune_error)?;
    let mut config = SearchConfig::new(max_trials, per_iter.unwrap_or(64));
    if let Some(s) = seed.as_ref().and_then(num_i64) {
        config.seed = s as u64;
    }
    let host = it.host.clone();
    let backend = it.backend.clone();
    let database = match (
        host.read_text(&join(&work_dir, WORKLOADS_FILE)),
        host.read_text(&join(&work_dir, RECORDS_FILE)),
    ) {
        (Some(w), Some(r)) => Database::from_json(&w, &r).map_err(tune_error)?,
        _ => Database::new(),
    };
    log(it, &format!("Logging directory: {work_dir}/logs"));
    // The design spaces: the user's function runs here, raising into the log.
    let fatal: RefCell<Option<Box<PyErr>>> = RefCell::new(None);
    let session = {
        let space_value = space.unwrap_or(Value::str("post-order-apply"));
        let func = match &space_value {
            Value::Str(s) if &**s == "post-order-apply" => None,
            Value::Str(s) => {
                return Err(PyErr::value_error(format!(
                    "unknown space \"{s}\" (expected \"post-order-apply\" or a ScheduleFn)"
                )))
            }
            Value::Host(o) => match o.as_any().downcast_ref::<ScheduleFnObj>() {
                Some(f) => Some(f.func.clone()),
                None => {
                    return Err(PyErr::type_error(
                        "space must be \"post-order-apply\" or a ScheduleFn",
                    ))
                }
            },
            Value::Func(_) | Value::Builtin(_) | Value::BoundMethod(_) => Some(space_value.clone()),
            _ => {
                return Err(PyErr::type_error(
                    "space must be \"post-order-apply\" or a ScheduleFn",
                ))
            }
        };
        let mut generator = match func {
            None => SpaceGenerator::post_order_apply(&target),
            Some(func) => {
                let original = module.clone();
                let it_ref = &mut *it;
                let fatal = &fatal;
                SpaceGenerator::ScheduleFn(Box::new(move |sch: &mut Schedule| {
                    it_ref.next_id += 1;
                    let obj = Value::Host(Rc::new(Obj::Schedule(RefCell::new(SchedObj::new(
                        sch.clone(),
                        original.clone(),
                        Dialect::default(),
                        it_ref.next_id,
                    )))));
                    let result = match it_ref.call(&func, Args::new(vec![obj.clone()])) {
                        Ok(v) => v,
                        Err(e) => {
                            let text = error_text(it_ref, &e);
                            if e.fatal {
                                *fatal.borrow_mut() = Some(e);
                            }
                            return Err(text);
                        }
                    };
                    // The function schedules in place and usually returns it.
                    for v in [&result, &obj] {
                        if let Value::Host(o) = v {
                            if let Some(Obj::Schedule(s)) = tvm_obj(o) {
                                *sch = s.borrow().sch.clone();
                                return Ok(());
                            }
                        }
                    }
                    Ok(())
                }))
            }
        };
        let made = TuneSession::new(
            workload.clone(),
            target.clone(),
            &mut generator,
            database,
            config,
        );
        drop(generator);
        if let Some(e) = fatal.borrow_mut().take() {
            return Err(e);
        }
        made.map_err(tune_error)?
    };
    let mut session = session;
    let mut runner = Runner::new(&*backend, &*host, &workload, &target).map_err(tune_error)?;
    let mut lines = Vec::new();
    let report = tune(&mut session, &mut runner, &mut |l| {
        lines.push(l.to_string())
    });
    for l in &lines {
        log(it, l);
    }
    let db = session.into_database();
    // A host without files keeps nothing; tuning still returns its records.
    let _ = host
        .write_text(&join(&work_dir, WORKLOADS_FILE), &db.workloads_json())
        .and_then(|()| host.write_text(&join(&work_dir, RECORDS_FILE), &db.records_json()));
    report.map_err(tune_error)?;
    Ok(Value::Host(Rc::new(DatabaseObj {
        db: RefCell::new(db),
    })))
}

/// `database.query_schedule(mod, target, workload_name)`: the best record's
/// schedule for `mod` on `target`, or `None` when the database has none.
/// (The workload name only labels TVM's logs: records are found by the
/// module, as in TVM.)
fn query_schedule(it: &mut Interp, db: &Database, mut a: Args) -> Res<Value> {
    let m = a.req(0, "mod", "query_schedule")?;
    let target = a.take(1, "target");
    let workload_name = a.take(2, "workload_name");
    a.done("query_schedule", 3)?;
    match workload_name {
        Some(Value::Str(_)) => {}
        None | Some(Value::None) => {
            return Err(PyErr::type_error(
                "query_schedule() missing required argument: 'workload_name'",
            ))
        }
        Some(_) => return Err(PyErr::type_error("workload_name must be a string")),
    }
    let module = module_arg(&m, "query_schedule")?;
    let target = match target {
        None | Some(Value::None) => {
            return Err(PyErr::type_error(
                "query_schedule() missing required argument: 'target'",
            ))
        }
        t => target_arg(it, t)?,
    };
    schedule_from(it, db, module, &target)
}

/// The best schedule of `module` in `db` as a script's `tir.Schedule`.
fn schedule_from(
    it: &mut Interp,
    db: &Database,
    module: IRModule,
    target: &TuneTarget,
) -> Res<Value> {
    let workload = Workload::new(module.clone()).map_err(tune_error)?;
    let Some(sch) = best_schedule(db, &workload, target) else {
        return Ok(Value::None);
    };
    it.next_id += 1;
    Ok(Value::Host(Rc::new(Obj::Schedule(RefCell::new(
        SchedObj::new(sch, module, Dialect::default(), it.next_id),
    )))))
}

fn compile_tir(it: &mut Interp, mut a: Args) -> Res<Value> {
    let db = a.req(0, "database", "compile_tir")?;
    let m = a.req(1, "mod", "compile_tir")?;
    let target = a.take(2, "target");
    a.done("compile_tir", 3)?;
    let Value::Host(o) = &db else {
        return Err(PyErr::type_error(
            "compile_tir: `database` must be what tune_tir returned",
        ));
    };
    let Some(db) = o.as_any().downcast_ref::<DatabaseObj>() else {
        return Err(PyErr::type_error(
            "compile_tir: `database` must be what tune_tir returned",
        ));
    };
    let module = module_arg(&m, "compile_tir")?;
    let target = target_arg(it, target)?;
    let found = schedule_from(it, &db.db.borrow(), module, &target);
    found
}
