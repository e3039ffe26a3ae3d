//! Design spaces: where the search draws candidates from. A design space is
//! a trace with sampling instructions; a candidate is that trace replayed
//! on the original module with fresh decisions (or with mutated ones).
//! - [`SpaceGenerator::ScheduleFn`]: the user's stochastic schedule function
//!   (`ms.space_generator.ScheduleFn(f)`), run once to record its trace.
//! - [`SpaceGenerator::PostOrderApply`]: the default space: every rule
//!   applied to every block, consumers first (TVM's `PostOrderApply`), root
//!   rules once at the end. A rule that yields several schedules (the
//!   write-cache variants of tiling) multiplies the spaces.

use compiler_core::schedule::{Schedule, Trace};

use crate::error::TuneError;
use crate::rules::{block_names, current_func, default_rules, ScheduleRule};
use crate::target::TuneTarget;
use crate::workload::Workload;

/// A stochastic schedule function supplied by the caller (the script
/// interpreter wraps a Python function): it schedules `sch` in place, with
/// `sample_*` calls for its choices, and returns a message (a traceback) on
/// failure.
pub type ScheduleFn<'a> = Box<dyn FnMut(&mut Schedule) -> Result<(), String> + 'a>;

/// Where design spaces come from.
pub enum SpaceGenerator<'a> {
    ScheduleFn(ScheduleFn<'a>),
    PostOrderApply(Vec<ScheduleRule>),
}

impl<'a> SpaceGenerator<'a> {
    /// The default space for `target` (TVM's `"post-order-apply"`).
    pub fn post_order_apply(target: &TuneTarget) -> SpaceGenerator<'a> {
        SpaceGenerator::PostOrderApply(default_rules(target))
    }

    /// The design spaces of `workload`, as traces (with the decisions of the
    /// first sampling, which replays ignore unless asked to keep them).
    pub fn generate(
        &mut self,
        workload: &Workload,
        target: &TuneTarget,
        seed: u64,
    ) -> Result<Vec<Trace>, TuneError> {
        let fresh = || {
            Schedule::with_seed(workload.module.clone(), seed)
                .map_err(|e| TuneError::Workload(e.to_string()))
        };
        match self {
            SpaceGenerator::ScheduleFn(f) => {
                let mut sch = fresh()?;
                f(&mut sch).map_err(TuneError::Space)?;
                Ok(vec![sch.trace().clone()])
            }
            SpaceGenerator::PostOrderApply(rules) => {
                let sch = fresh()?;
                let func = current_func(&sch)
                    .ok_or_else(|| TuneError::Workload("the module has no PrimFunc".into()))?;
                let mut states = vec![sch];
                let mut first_failure: Option<String> = None;
                for block in block_names(&func).iter().rev() {
                    for rule in rules.iter().filter(|r| !r.is_root_rule()) {
                        states = expand(states, rule, block, target, &mut first_failure);
                    }
                }
                for rule in rules.iter().filter(|r| r.is_root_rule()) {
                    states = expand(states, rule, "root", target, &mut first_failure);
                }
                if states.is_empty() {
                    return Err(TuneError::Space(
                        first_failure.unwrap_or_else(|| "no rule applied".into()),
                    ));
                }
                Ok(states.iter().map(|s| s.trace().clone()).collect())
            }
        }
    }
}

/// Applies `rule` to `block` in every state; a state whose rule fails is
/// dropped (its message kept when it is the first).
fn expand(
    states: Vec<Schedule>,
    rule: &ScheduleRule,
    block: &str,
    target: &TuneTarget,
    first_failure: &mut Option<String>,
) -> Vec<Schedule> {
    let mut next = Vec::new();
    for s in states {
        match rule.apply(&s, block, target) {
            Ok(mut out) => next.append(&mut out),
            Err(e) => {
                first_failure
                    .get_or_insert_with(|| format!("{} on block `{block}`: {e}", rule.name()));
            }
        }
    }
    next
}
