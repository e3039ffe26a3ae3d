//! Evolutionary search (TVM's `EvolutionarySearch`), driven step by step by
//! a [`TuneSession`]: `next_batch` proposes candidates, the host measures
//! them (now or asynchronously), `report` records the results.
//!
//! One batch: an initial population of the best measured records and fresh
//! samples of the design spaces; a few generations in which parents chosen
//! by predicted score are mutated (or kept); then the best-predicted
//! unmeasured candidates, a share `eps_greedy` of the batch drawn at random
//! instead. Every random choice comes from one generator seeded by
//! [`SearchConfig::seed`]: a fixed seed gives the same search.

use std::collections::{BTreeMap, HashSet};

use compiler_core::ir::values::Rng;
use compiler_core::ir::IRModule;
use compiler_core::schedule::{Schedule, Trace};

use crate::cost_model::{BoostConfig, CostModel};
use crate::database::{Database, TuningRecord};
use crate::error::TuneError;
use crate::features::{self, NUM_FEATURES};
use crate::mutator::{default_mutators, Mutator};
use crate::postproc::{default_postprocs, Postproc};
use crate::runner::MeasureResult;
use crate::space::SpaceGenerator;
use crate::target::TuneTarget;
use crate::workload::{structural_hash, Workload};

/// Search settings: TVM's defaults scaled to a browser's budget (TVM's in
/// brackets).
#[derive(Clone, Debug)]
pub struct SearchConfig {
    /// Measurements in all (`max_trials_global`).
    pub max_trials_global: usize,
    /// Measurements per batch (`num_trials_per_iter`, 64).
    pub num_trials_per_iter: usize,
    /// Candidates per generation (2048 → 64).
    pub population_size: usize,
    /// Share of the initial population taken from measured records (0.2).
    pub init_measured_ratio: f64,
    /// Generations per batch (4 → 3).
    pub genetic_num_iters: usize,
    /// Chance a child is a mutation rather than its parent (0.85).
    pub genetic_mutate_prob: f64,
    /// Mutation attempts per child before keeping the parent (10 → 4).
    pub genetic_max_fail_count: usize,
    /// Share of each batch picked at random (0.05).
    pub eps_greedy: f64,
    pub seed: u64,
    pub cost_model: BoostConfig,
}

/// Fresh samples tried per population slot before a batch gives up on
/// finding valid ones (TVM's search retries its 2048-sample population up
/// to five times; 64 × 64 tries a like number).
const MAX_SAMPLE_ROUNDS: usize = 64;

impl SearchConfig {
    /// The defaults for a given trial budget.
    pub fn new(max_trials_global: usize, num_trials_per_iter: usize) -> SearchConfig {
        SearchConfig {
            max_trials_global,
            num_trials_per_iter,
            population_size: 64,
            init_measured_ratio: 0.2,
            genetic_num_iters: 3,
            genetic_mutate_prob: 0.85,
            genetic_max_fail_count: 4,
            eps_greedy: 0.05,
            seed: 42,
            cost_model: BoostConfig::default(),
        }
    }
}

/// A program proposed for measurement.
#[derive(Clone, Debug)]
pub struct Candidate {
    /// The design trace with its decisions (what the database stores).
    pub design_trace: Trace,
    /// The schedule after the postprocessors (its trace includes theirs).
    pub schedule: Schedule,
    /// The cost model's score when proposed.
    pub predicted: f64,
    features: [f64; NUM_FEATURES],
    key: u64,
}

impl Candidate {
    pub fn module(&self) -> &IRModule {
        self.schedule.module()
    }
}

/// Replays `design` on the workload (fresh decisions when `resample`) and
/// postprocesses; `Err((postproc, message))` names the step that failed
/// (`None`: the replay).
pub fn materialize(
    workload: &Workload,
    target: &TuneTarget,
    postprocs: &[Postproc],
    design: &Trace,
    resample: bool,
    seed: u64,
) -> Result<(Trace, Schedule), (Option<Postproc>, String)> {
    let mut sch =
        Schedule::with_seed(workload.module.clone(), seed).map_err(|e| (None, e.to_string()))?;
    sch.replay(design, resample)
        .map_err(|e| (None, e.to_string()))?;
    let design_trace = sch.trace().clone();
    for p in postprocs {
        p.apply(&mut sch, target).map_err(|e| (Some(*p), e))?;
    }
    Ok((design_trace, sch))
}

/// The best record of `workload` on `target` as a schedule (TVM's
/// `compile_tir`): its trace replayed and postprocessed.
pub fn compile_tir(
    database: &Database,
    workload: &Workload,
    target: &TuneTarget,
) -> Option<Schedule> {
    let best = database.query_best(workload.hash, &target.spec.text)?;
    materialize(
        workload,
        target,
        &default_postprocs(target),
        &best.trace,
        false,
        0,
    )
    .ok()
    .map(|(_, s)| s)
}

/// A search in progress.
pub struct TuneSession {
    workload: Workload,
    target: TuneTarget,
    config: SearchConfig,
    spaces: Vec<Trace>,
    postprocs: Vec<Postproc>,
    mutators: Vec<(Mutator, f64)>,
    cost_model: CostModel,
    rng: Rng,
    database: Database,
    measured: HashSet<u64>,
    pending: Vec<Candidate>,
    trials: usize,
    /// Candidates each postprocessor rejected.
    pub postproc_failures: BTreeMap<&'static str, usize>,
    /// Samples whose replay failed (a schedule function that raised).
    pub replay_failures: usize,
    first_failure: Option<String>,
}

impl TuneSession {
    /// Generates the design spaces and takes the database's records of this
    /// workload and target as already measured (and as training data).
    pub fn new(
        workload: Workload,
        target: TuneTarget,
        space: &mut SpaceGenerator,
        mut database: Database,
        config: SearchConfig,
    ) -> Result<TuneSession, TuneError> {
        if config.max_trials_global == 0 {
            return Err(TuneError::Config(
                "max_trials_global must be positive".into(),
            ));
        }
        if config.num_trials_per_iter == 0 {
            return Err(TuneError::Config(
                "num_trials_per_iter must be positive".into(),
            ));
        }
        let spaces = space.generate(&workload, &target, config.seed)?;
        database.commit_workload(&workload);
        let postprocs = default_postprocs(&target);
        let mut session = TuneSession {
            mutators: default_mutators(target.is_gpu()),
            cost_model: CostModel::new(config.cost_model.clone(), config.seed ^ 0xc057),
            rng: Rng::new(config.seed),
            measured: HashSet::new(),
            pending: Vec::new(),
            trials: 0,
            postproc_failures: BTreeMap::new(),
            replay_failures: 0,
            first_failure: None,
            workload,
            target,
            config,
            spaces,
            postprocs,
            database,
        };
        let old: Vec<TuningRecord> = session
            .database
            .records_for(session.workload.hash, &session.target.spec.text)
            .cloned()
            .collect();
        let mut rows = Vec::new();
        for r in old {
            if let Some(c) = session.candidate(&r.trace, false) {
                session.measured.insert(c.key);
                rows.push((c.features, r.run_secs.as_ref().map(|_| r.mean_seconds())));
            }
        }
        session.cost_model.update(rows);
        Ok(session)
    }

    /// The design spaces, as traces.
    pub fn design_spaces(&self) -> &[Trace] {
        &self.spaces
    }

    /// Measurements reported so far in this session.
    pub fn trials(&self) -> usize {
        self.trials
    }

    pub fn config(&self) -> &SearchConfig {
        &self.config
    }

    pub fn workload(&self) -> &Workload {
        &self.workload
    }

    pub fn target(&self) -> &TuneTarget {
        &self.target
    }

    pub fn database(&self) -> &Database {
        &self.database
    }

    pub fn into_database(self) -> Database {
        self.database
    }

    /// The fastest record so far (this session's or an earlier one's).
    pub fn best(&self) -> Option<&TuningRecord> {
        self.database
            .query_best(self.workload.hash, &self.target.spec.text)
    }

    /// The first failure seen while sampling (for the error when nothing
    /// could be measured).
    pub fn first_failure(&self) -> Option<&str> {
        self.first_failure.as_deref()
    }

    /// Whether the cost model has left warm-up.
    pub fn model_trained(&self) -> bool {
        self.cost_model.is_trained()
    }

    fn candidate(&mut self, design: &Trace, resample: bool) -> Option<Candidate> {
        let seed = self.rng.next_u64();
        match materialize(
            &self.workload,
            &self.target,
            &self.postprocs,
            design,
            resample,
            seed,
        ) {
            Ok((design_trace, schedule)) => {
                let func = schedule
                    .module()
                    .get_prim(&self.workload.func_name)?
                    .clone();
                let Some(features) = features::extract(&func, self.target.is_gpu()) else {
                    self.first_failure
                        .get_or_insert_with(|| "the candidate does not lower".into());
                    return None;
                };
                Some(Candidate {
                    key: structural_hash(schedule.module()),
                    design_trace,
                    schedule,
                    predicted: 0.0,
                    features,
                })
            }
            Err((p, message)) => {
                match p {
                    Some(p) => *self.postproc_failures.entry(p.name()).or_default() += 1,
                    None => self.replay_failures += 1,
                }
                self.first_failure.get_or_insert(message);
                None
            }
        }
    }

    fn sample_fresh(&mut self) -> Option<Candidate> {
        if self.spaces.is_empty() {
            return None;
        }
        let i = self.rng.range_i64(0, self.spaces.len() as i64) as usize;
        let space = self.spaces[i].clone();
        self.candidate(&space, true)
    }

    fn mutate(&mut self, parent: &Candidate) -> Option<Candidate> {
        let total: f64 = self.mutators.iter().map(|(_, p)| p).sum();
        for _ in 0..self.config.genetic_max_fail_count {
            let mut x = self.rng.next_f64() * total;
            let mut chosen = self.mutators[0].0;
            for (m, p) in &self.mutators {
                if x < *p {
                    chosen = *m;
                    break;
                }
                x -= p;
            }
            let Some(trace) =
                chosen.apply(&parent.design_trace, self.target.num_cores, &mut self.rng)
            else {
                continue;
            };
            if let Some(c) = self.candidate(&trace, false) {
                return Some(c);
            }
        }
        None
    }

    fn score(&mut self, pop: &mut [Candidate]) {
        let xs: Vec<[f64; NUM_FEATURES]> = pop.iter().map(|c| c.features).collect();
        for (c, s) in pop.iter_mut().zip(self.cost_model.predict(&xs)) {
            c.predicted = s;
        }
    }

    /// The next candidates to measure (empty when the budget is spent or
    /// nothing new can be found). Call [`TuneSession::report`] with their
    /// results, in order, before asking again.
    pub fn next_batch(&mut self) -> Vec<Candidate> {
        let left = self.config.max_trials_global.saturating_sub(self.trials);
        let batch = left.min(self.config.num_trials_per_iter);
        if batch == 0 {
            return Vec::new();
        }
        let pop_size = self.config.population_size.max(batch);
        // The initial population: the best measured, then fresh samples.
        let mut pop: Vec<Candidate> = Vec::new();
        let n_measured = (pop_size as f64 * self.config.init_measured_ratio) as usize;
        let best: Vec<Trace> = self
            .database
            .top_k(self.workload.hash, &self.target.spec.text, n_measured)
            .into_iter()
            .map(|r| r.trace.clone())
            .collect();
        for t in &best {
            if let Some(c) = self.candidate(t, false) {
                pop.push(c);
            }
        }
        let mut random_unmeasured = Vec::new();
        let mut attempts = 0;
        // Where few samples pass the postprocessors (a GPU's thread and
        // memory limits on a large workload), keep sampling until a batch
        // is found: a sample costs a schedule replay, a measurement far more.
        let attempts_for = |found: usize| {
            if found < batch {
                pop_size * MAX_SAMPLE_ROUNDS
            } else {
                pop_size * 4
            }
        };
        while pop.len() < pop_size && attempts < attempts_for(pop.len()) {
            attempts += 1;
            if let Some(c) = self.sample_fresh() {
                if !self.measured.contains(&c.key) {
                    random_unmeasured.push(c.clone());
                }
                pop.push(c);
            }
        }
        if pop.is_empty() {
            return Vec::new();
        }
        // Generations; every unmeasured candidate seen is kept with its score.
        let mut seen: Vec<Candidate> = Vec::new();
        let mut seen_keys: HashSet<u64> = HashSet::new();
        for generation in 0..=self.config.genetic_num_iters {
            self.score(&mut pop);
            for c in &pop {
                if !self.measured.contains(&c.key) && seen_keys.insert(c.key) {
                    seen.push(c.clone());
                }
            }
            if generation == self.config.genetic_num_iters {
                break;
            }
            let min = pop
                .iter()
                .map(|c| c.predicted)
                .fold(f64::INFINITY, f64::min);
            let weights: Vec<f64> = pop.iter().map(|c| c.predicted - min + 1e-6).collect();
            let total: f64 = weights.iter().sum();
            let mut next = Vec::with_capacity(pop.len());
            for _ in 0..pop.len() {
                let mut x = self.rng.next_f64() * total;
                let mut parent = pop.len() - 1;
                for (i, w) in weights.iter().enumerate() {
                    if x < *w {
                        parent = i;
                        break;
                    }
                    x -= w;
                }
                let parent = pop[parent].clone();
                let child = if self.rng.next_f64() < self.config.genetic_mutate_prob {
                    self.mutate(&parent)
                } else {
                    None
                };
                next.push(child.unwrap_or(parent));
            }
            pop = next;
        }
        // Best predicted first; stable on ties, so the order is reproducible.
        seen.sort_by(|a, b| b.predicted.total_cmp(&a.predicted));
        let n_random = ((batch as f64) * self.config.eps_greedy).round() as usize;
        let mut out: Vec<Candidate> = Vec::new();
        let mut taken: HashSet<u64> = HashSet::new();
        for c in random_unmeasured.into_iter().take(n_random) {
            if taken.insert(c.key) {
                out.push(c);
            }
        }
        for c in seen {
            if out.len() >= batch {
                break;
            }
            if taken.insert(c.key) {
                out.push(c);
            }
        }
        out.truncate(batch);
        self.pending = out.clone();
        out
    }

    /// Records the measurements of the last batch (same order).
    pub fn report(&mut self, results: &[MeasureResult]) {
        let pending = std::mem::take(&mut self.pending);
        let mut rows = Vec::new();
        for (c, r) in pending.into_iter().zip(results) {
            self.trials += 1;
            self.measured.insert(c.key);
            let secs = match r {
                MeasureResult::Ok(v) => Some(v.clone()),
                MeasureResult::Failed(m) => {
                    self.first_failure.get_or_insert_with(|| m.clone());
                    None
                }
            };
            rows.push((c.features, r.mean_seconds()));
            self.database.commit_record(TuningRecord {
                workload_hash: self.workload.hash,
                target: self.target.spec.text.clone(),
                trace: c.design_trace,
                run_secs: secs,
            });
        }
        self.cost_model.update(rows);
    }
}
