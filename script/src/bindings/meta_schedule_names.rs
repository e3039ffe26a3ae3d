//! The names of `tvm.meta_schedule` (and `tvm.s_tir.meta_schedule`):
//! `tune_tir`, `TuneConfig`, `space_generator.ScheduleFn` /
//! `PostOrderApply`, `tir_integration.compile_tir`, installed over the
//! functions a build provides. With the `meta-schedule` feature they are
//! the tuner's ([`super::meta_schedule`]); without it (the playground's
//! first-load worker, which leaves the tuner out) every one of them asks the
//! host for its code generators through `tvm.build`'s backend, which a host
//! that defers them answers by running the script again where they are,
//! and raises otherwise.

use crate::python::builtins::builtin;
use crate::python::error::{ExcKind, PyErr, Res};
use crate::python::interp::Interp;
use crate::python::value::*;

/// The functions behind `tvm.meta_schedule`'s names.
pub(crate) struct Entries {
    pub schedule_fn: fn(&mut Interp, Args) -> Res<Value>,
    pub post_order_apply: fn(&mut Interp, Args) -> Res<Value>,
    pub tune_tir: fn(&mut Interp, Args) -> Res<Value>,
    pub compile_tir: fn(&mut Interp, Args) -> Res<Value>,
    pub tune_config: fn(&mut Interp, Args) -> Res<Value>,
}

/// Installs `tvm.meta_schedule` (and `tvm.s_tir.meta_schedule`) over `e`.
pub(crate) fn install_with(it: &mut Interp, e: Entries) {
    let Entries {
        schedule_fn,
        post_order_apply,
        tune_tir,
        compile_tir,
        tune_config,
    } = e;
    let space_generator = module(
        "tvm.meta_schedule.space_generator",
        vec![
            (
                "ScheduleFn",
                builtin("tvm.meta_schedule.space_generator.ScheduleFn", schedule_fn),
            ),
            (
                "PostOrderApply",
                builtin(
                    "tvm.meta_schedule.space_generator.PostOrderApply",
                    post_order_apply,
                ),
            ),
        ],
    );
    let tir_integration = module(
        "tvm.meta_schedule.tir_integration",
        vec![
            ("tune_tir", builtin("tvm.meta_schedule.tune_tir", tune_tir)),
            (
                "compile_tir",
                builtin("tvm.meta_schedule.tir_integration.compile_tir", compile_tir),
            ),
        ],
    );
    let ms = module(
        "tvm.meta_schedule",
        vec![
            ("tune_tir", builtin("tvm.meta_schedule.tune_tir", tune_tir)),
            (
                "TuneConfig",
                builtin("tvm.meta_schedule.TuneConfig", tune_config),
            ),
            ("space_generator", space_generator.clone()),
            ("tir_integration", tir_integration.clone()),
        ],
    );
    for parent in ["tvm", "tvm.s_tir"] {
        if let Some(Value::Module(m)) = it.modules.get(parent) {
            m.attrs
                .borrow_mut()
                .insert("meta_schedule".into(), ms.clone());
        }
    }
    for prefix in ["tvm.meta_schedule", "tvm.s_tir.meta_schedule"] {
        it.modules.insert(prefix.to_string(), ms.clone());
        it.modules
            .insert(format!("{prefix}.space_generator"), space_generator.clone());
        it.modules
            .insert(format!("{prefix}.tir_integration"), tir_integration.clone());
    }
}

/// `tvm.meta_schedule` in a build without the tuner.
#[cfg(not(feature = "meta-schedule"))]
pub fn install_unavailable(it: &mut Interp) {
    install_with(
        it,
        Entries {
            schedule_fn: unavailable,
            post_order_apply: unavailable,
            tune_tir: unavailable,
            compile_tir: unavailable,
            tune_config: unavailable,
        },
    );
}

#[cfg_attr(feature = "meta-schedule", allow(dead_code))]
fn unavailable(it: &mut Interp, _a: Args) -> Res<Value> {
    // A host that builds CPU code elsewhere learns here that the script
    // needs it (the empty module builds nothing).
    let _ = it
        .backend
        .ensure_loaded(compiler_core::target::Target::llvm().kind);
    Err(PyErr::new(
        ExcKind::RuntimeError,
        "tvm.meta_schedule is not part of this build of Tessel (the auto-tuner is left out)"
            .to_string(),
    ))
}

#[cfg(all(test, not(feature = "meta-schedule")))]
mod tests {
    use std::cell::Cell;
    use std::rc::Rc;

    use compiler_core::target::{
        Backend, BuildError, BuildOptions, Executable, NoClock, Target, TargetKind,
    };
    use tessel_ir::IRModule;

    use crate::{Interpreter, Limits};

    /// A backend that records that a CPU build was asked for (what the
    /// playground's first-load worker does before moving a script on).
    struct Deferred(Rc<Cell<bool>>);

    impl Backend for Deferred {
        fn build(
            &self,
            _m: &IRModule,
            t: &Target,
            _o: &BuildOptions,
        ) -> Result<Rc<dyn Executable>, BuildError> {
            self.0.set(true);
            Err(BuildError::BackendNotLoaded { kind: t.kind })
        }

        fn ensure_loaded(&self, kind: TargetKind) -> Result<(), BuildError> {
            self.0.set(true);
            Err(BuildError::BackendNotLoaded { kind })
        }
    }

    #[test]
    fn without_the_tuner_tune_tir_asks_for_the_code_generators_and_raises() {
        let asked = Rc::new(Cell::new(false));
        let mut interp = Interpreter::with_host(
            Limits::default(),
            Rc::new(NoClock),
            Rc::new(Deferred(asked.clone())),
        );
        interp
            .run_cell(
                "from tvm import meta_schedule as ms\n\
                 try:\n    ms.tune_tir(mod=None, target='llvm', max_trials_global=1)\n\
                 except RuntimeError as e:\n    print('raised:', e)\n",
                "cell",
            )
            .unwrap_or_else(|e| panic!("{e:?}"));
        assert!(asked.get(), "the backend was not asked");
        let text = interp.take_output_text();
        assert!(
            text.contains("raised: tvm.meta_schedule is not part of this build"),
            "{text}"
        );
    }
}
