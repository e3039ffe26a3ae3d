//! Sampling: `sample_perfect_tile`, `sample_partitioned_tile`,
//! `sample_categorical`.
//!
//! Sampled values are recorded as decisions in the trace, so replaying a
//! trace reproduces them exactly (or re-samples them when asked).

use super::primitives::{param, Args, ParamType as T, Primitive, Returns};
use super::replay::SchedValue;
use super::tree;
use super::*;

pub(super) const SAMPLE_PERFECT_TILE: Primitive = Primitive {
    method: "sample_perfect_tile",
    aliases: &[],
    kind: "SamplePerfectTile",
    params: &[
        param("loop", T::Loop),
        param("n", T::Int).attr(),
        param("max_innermost_factor", T::Int).or_int(16).attr(),
        param("decision", T::OptInts).decision(),
    ],
    returns: Returns::List,
    traced: true,
    apply: |sch, args| {
        let n = args.int("n")?;
        if n <= 0 {
            return Err(args.err(ScheduleErrorKind::InvalidArgument, "n must be positive"));
        }
        let decision = args.opt_ints("decision")?;
        let (values, factors) = sch.sample_perfect_tile_concrete(
            args.loop_rv("loop")?,
            n as usize,
            args.int("max_innermost_factor")?,
            decision.as_deref(),
        )?;
        args.set_decision(factors);
        Ok(SchedValue::rv_list(&values))
    },
    menu: None,
};

pub(super) const SAMPLE_PARTITIONED_TILE: Primitive = Primitive {
    method: "sample_partitioned_tile",
    aliases: &[],
    kind: "SamplePartitionedTile",
    params: &[
        param("loop", T::Loop),
        param("n", T::Int).attr(),
        param("partition_pos", T::Int).or_int(0).attr(),
        param("innerpart_factor", T::Int).or_int(1).attr(),
        param("decision", T::OptInts).decision(),
    ],
    returns: Returns::List,
    traced: true,
    apply: |sch, args| {
        let decision = args.opt_ints("decision")?;
        let (values, factors) = sch.sample_partitioned_tile_concrete(
            args.loop_rv("loop")?,
            args.int("n")?,
            args.int("partition_pos")?,
            args.int("innerpart_factor")?,
            decision.as_deref(),
        )?;
        args.set_decision(factors);
        Ok(SchedValue::rv_list(&values))
    },
    menu: None,
};

pub(super) const SAMPLE_CATEGORICAL: Primitive = Primitive {
    method: "sample_categorical",
    aliases: &[],
    kind: "SampleCategorical",
    params: &[
        param("candidates", T::Ints).attr(),
        param("probs", T::Floats).attr(),
        param("decision", T::OptInt).decision(),
    ],
    returns: Returns::One,
    traced: true,
    apply: |sch, args| {
        let (value, index) = sch.sample_categorical_concrete(
            &args.ints("candidates")?,
            &args.floats("probs")?,
            args.opt_int("decision")?,
        )?;
        args.set_decision(vec![index]);
        Ok(value.into())
    },
    menu: None,
};

pub(super) const SAMPLE_COMPUTE_LOCATION: Primitive = Primitive {
    method: "sample_compute_location",
    aliases: &[],
    kind: "SampleComputeLocation",
    params: &[
        param("block", T::Block),
        param("decision", T::OptInt).decision(),
    ],
    returns: Returns::One,
    traced: true,
    apply: |sch, args| {
        let (location, choice) =
            sch.sample_compute_location_concrete(args.block("block")?, args.opt_int("decision")?)?;
        args.set_decision(vec![choice]);
        Ok(location.into())
    },
    menu: None,
};

impl Schedule {
    /// `sch.sample_perfect_tile(loop, n=2, max_innermost_factor=16)`: `n`
    /// factors whose product is exactly the loop's extent, the innermost at
    /// most `max_innermost_factor` (when positive). `decision` fixes the
    /// result (it must be a valid tiling). A loop of symbolic extent gives
    /// `[None, 1, …, 1]` (decision `[-1, 1, …, 1]`, printed `_, v1, … =`):
    /// the first factor has no value ([`Schedule::is_absent`]) and `split`
    /// infers it.
    pub fn sample_perfect_tile(
        &mut self,
        loop_rv: LoopRV,
        n: usize,
        max_innermost_factor: i64,
        decision: Option<&[i64]>,
    ) -> Result<Vec<ExprRV>> {
        let mut args = Args::typed(
            &SAMPLE_PERFECT_TILE,
            vec![
                loop_rv.into(),
                SchedValue::Int(n as i64),
                max_innermost_factor.into(),
            ],
        );
        if let Some(d) = decision {
            let d = d.iter().map(|x| SchedValue::Int(*x)).collect();
            args.record_as("decision", SchedValue::List(d))?;
        }
        self.apply_traced(&SAMPLE_PERFECT_TILE, args)?.into_exprs()
    }

    /// `sch.sample_categorical(candidates, probs)`: one candidate, drawn with
    /// the given probabilities (or fixed by `decision`, an index).
    pub fn sample_categorical(
        &mut self,
        candidates: &[i64],
        probs: &[f64],
        decision: Option<i64>,
    ) -> Result<ExprRV> {
        let mut args = Args::typed(
            &SAMPLE_CATEGORICAL,
            vec![
                SchedValue::List(candidates.iter().map(|c| SchedValue::Int(*c)).collect()),
                SchedValue::List(probs.iter().map(|p| SchedValue::Float(*p)).collect()),
            ],
        );
        if let Some(d) = decision {
            args.record_as("decision", d.into())?;
        }
        self.apply_traced(&SAMPLE_CATEGORICAL, args)?.into_expr()
    }

    /// `sch.sample_compute_location(block, decision=None)`: a place to
    /// `compute_at` the block — a loop of its first consumer where that is
    /// legal (decision `k`: the consumer's `k`-th loop, TVM's candidates), the
    /// root (`-1`: stay where it is) or inline (`-2`: `compute_at` then
    /// inlines it; only offered when the block can be inlined). Drawn
    /// uniformly unless `decision` fixes it.
    pub fn sample_compute_location(
        &mut self,
        block_rv: BlockRV,
        decision: Option<i64>,
    ) -> Result<LoopRV> {
        let mut args = Args::typed(&SAMPLE_COMPUTE_LOCATION, vec![block_rv.into()]);
        if let Some(d) = decision {
            args.record_as("decision", d.into())?;
        }
        self.apply_traced(&SAMPLE_COMPUTE_LOCATION, args)?
            .into_loop()
    }

    /// Returns the sampled values and the decision (the factors).
    fn sample_perfect_tile_concrete(
        &mut self,
        loop_rv: LoopRV,
        n: usize,
        max_innermost_factor: i64,
        decision: Option<&[i64]>,
    ) -> Result<(Vec<ExprRV>, Vec<i64>)> {
        const P: &str = "sample_perfect_tile";
        let (_, node) = self.resolve_loop(P, loop_rv)?;
        if n == 0 {
            return Err(ScheduleError::invalid_argument(P, "n must be at least 1"));
        }
        let Some(extent) = node.extent.as_int() else {
            // A loop of symbolic extent is tiled trivially, whatever the
            // decision: the outer factor is left for `split` to infer (TVM's
            // decision -1, `None` in Python), the others are 1.
            let mut factors = vec![1; n];
            factors[0] = -1;
            let mut rvs = vec![self.new_absent_expr_rv()];
            for _ in 1..n {
                rvs.push(self.new_expr_rv(1));
            }
            return Ok((rvs, factors));
        };
        let factors = match decision {
            Some(d) => {
                let product: i64 = d.iter().product();
                if d.len() != n || product != extent || d.iter().any(|f| *f <= 0) {
                    return Err(ScheduleError::invalid_argument(
                        P,
                        format!("decision {d:?} is not a perfect tiling of extent {extent} into {n} factors"),
                    ));
                }
                if max_innermost_factor > 0 && d[n - 1] > max_innermost_factor {
                    return Err(ScheduleError::invalid_argument(
                        P,
                        format!("decision {d:?}: innermost factor exceeds {max_innermost_factor}"),
                    ));
                }
                d.to_vec()
            }
            None => self.random_perfect_tile(extent, n, max_innermost_factor),
        };
        let rvs: Vec<ExprRV> = factors.iter().map(|f| self.new_expr_rv(*f)).collect();
        Ok((rvs, factors))
    }

    /// `sch.sample_partitioned_tile(loop, n, partition_pos=0,
    /// innerpart_factor=1, decision=None)`: `n` factors of the loop's extent
    /// whose tail from `partition_pos` on multiplies to a multiple of
    /// `innerpart_factor`. As in TVM 0.27, a decision is repaired rather than
    /// refused: one whose tail misses the factor becomes
    /// `[extent / innerpart_factor, 1, …, innerpart_factor (at partition_pos), …, 1]`,
    /// one that is not a perfect tiling is fixed from the innermost factor
    /// out; a non-constant extent, or one `innerpart_factor` does not
    /// divide, gives `[-1, 1, …, 1]` (which no split accepts).
    pub fn sample_partitioned_tile(
        &mut self,
        loop_rv: LoopRV,
        n: i64,
        partition_pos: i64,
        innerpart_factor: i64,
        decision: Option<&[i64]>,
    ) -> Result<Vec<ExprRV>> {
        let mut values = vec![
            loop_rv.into(),
            n.into(),
            partition_pos.into(),
            innerpart_factor.into(),
        ];
        if let Some(d) = decision {
            values.push(SchedValue::List(d.iter().map(|&x| x.into()).collect()));
        }
        let args = Args::typed(&SAMPLE_PARTITIONED_TILE, values);
        self.apply_traced(&SAMPLE_PARTITIONED_TILE, args)?
            .into_exprs()
    }

    fn sample_partitioned_tile_concrete(
        &mut self,
        loop_rv: LoopRV,
        n: i64,
        partition_pos: i64,
        innerpart_factor: i64,
        decision: Option<&[i64]>,
    ) -> Result<(Vec<ExprRV>, Vec<i64>)> {
        const P: &str = "sample_partitioned_tile";
        let (path, node) = self.resolve_loop(P, loop_rv)?;
        if n < 1 || (n < 2 && (partition_pos != 0 || innerpart_factor != 1)) {
            return Err(ScheduleError::invalid_argument(
                P,
                format!("ValueError: Cannot tile a loop into {n} splits"),
            ));
        }
        if partition_pos < 0 || partition_pos >= n || innerpart_factor < 1 {
            return Err(ScheduleError::invalid_argument(
                P,
                format!(
                    "partition_pos must be in [0, {n}) and innerpart_factor at least 1; got {partition_pos} and {innerpart_factor}"
                ),
            )
            .at(path));
        }
        let n = n as usize;
        let pos = partition_pos as usize;
        let tail_ok = |t: &[i64]| {
            t[pos.min(t.len())..]
                .iter()
                .fold(1i64, |a, &b| a.saturating_mul(b))
                % innerpart_factor
                == 0
        };
        let factors = match node.extent.as_int() {
            Some(extent) if extent % innerpart_factor == 0 => match decision {
                Some(d) => {
                    if d.len() != n || d.iter().any(|&f| f <= 0) {
                        return Err(ScheduleError::invalid_argument(
                            P,
                            format!("decision {d:?} is not a list of {n} positive factors"),
                        ));
                    }
                    if !tail_ok(d) {
                        let mut t = vec![1; n];
                        t[0] = extent / innerpart_factor;
                        t[pos] = innerpart_factor;
                        t
                    } else {
                        let mut t = d.to_vec();
                        let mut len = extent;
                        for i in (1..t.len()).rev() {
                            if len % t[i] != 0 {
                                t[i] = len;
                            }
                            len /= t[i];
                        }
                        t[0] = len;
                        t
                    }
                }
                None if pos == 0 && innerpart_factor == 1 => self.random_perfect_tile(extent, n, 0),
                None => {
                    // Sample perfect tilings until one's tail has the factor
                    // (TVM's rule); the fallback is the repaired default.
                    let mut found = None;
                    for _ in 0..4096 {
                        let t = self.random_perfect_tile(extent, n, 0);
                        if tail_ok(&t) {
                            found = Some(t);
                            break;
                        }
                    }
                    found.unwrap_or_else(|| {
                        let mut t = vec![1; n];
                        t[0] = extent / innerpart_factor;
                        t[pos] = innerpart_factor;
                        t
                    })
                }
            },
            _ => {
                let mut t = vec![1; n];
                t[0] = -1;
                t
            }
        };
        let rvs: Vec<ExprRV> = factors.iter().map(|f| self.new_expr_rv(*f)).collect();
        Ok((rvs, factors))
    }

    fn random_perfect_tile(&mut self, extent: i64, n: usize, max_innermost: i64) -> Vec<i64> {
        let divisors: Vec<i64> = (1..=extent).filter(|d| extent % d == 0).collect();
        // Innermost first, within the limit; then the others at random among
        // the divisors of what is left; the outermost takes the remainder.
        let inner_choices: Vec<i64> = divisors
            .iter()
            .copied()
            .filter(|d| max_innermost <= 0 || *d <= max_innermost)
            .collect();
        let mut rest = extent;
        let mut factors = vec![1i64; n];
        if n == 1 {
            return vec![extent];
        }
        let pick = |s: &mut Schedule, options: &[i64]| -> i64 {
            if options.is_empty() {
                1
            } else {
                options[(s.next_random() % options.len() as u64) as usize]
            }
        };
        let inner = pick(self, &inner_choices);
        factors[n - 1] = inner;
        rest /= inner;
        for i in (1..n - 1).rev() {
            let options: Vec<i64> = (1..=rest).filter(|d| rest % d == 0).collect();
            let f = pick(self, &options);
            factors[i] = f;
            rest /= f;
        }
        factors[0] = rest;
        factors
    }

    /// Returns the sampled value and the decision (the candidate's index).
    fn sample_categorical_concrete(
        &mut self,
        candidates: &[i64],
        probs: &[f64],
        decision: Option<i64>,
    ) -> Result<(ExprRV, i64)> {
        const P: &str = "sample_categorical";
        if candidates.is_empty() || candidates.len() != probs.len() {
            return Err(ScheduleError::invalid_argument(
                P,
                "candidates and probs must be non-empty and of equal length",
            ));
        }
        if probs.iter().any(|p| !p.is_finite() || *p < 0.0) {
            return Err(ScheduleError::invalid_argument(
                P,
                "probabilities must be finite and non-negative",
            ));
        }
        let index = match decision {
            Some(d) if d >= 0 && (d as usize) < candidates.len() => d as usize,
            Some(d) => {
                return Err(ScheduleError::invalid_argument(
                    P,
                    format!("decision {d} is out of range"),
                ))
            }
            None => {
                let total: f64 = probs.iter().sum();
                let r = (self.next_random() >> 11) as f64 / (1u64 << 53) as f64 * total;
                let mut acc = 0.0;
                let mut chosen = candidates.len() - 1;
                for (i, p) in probs.iter().enumerate() {
                    acc += p;
                    if r < acc {
                        chosen = i;
                        break;
                    }
                }
                chosen
            }
        };
        Ok((self.new_expr_rv(candidates[index]), index as i64))
    }
}

impl Schedule {
    /// Returns the location and the decision.
    fn sample_compute_location_concrete(
        &mut self,
        block_rv: BlockRV,
        decision: Option<i64>,
    ) -> Result<(LoopRV, i64)> {
        const P: &str = "sample_compute_location";
        let (block_path, _) = self.resolve_block(P, block_rv)?;
        let body = self.body(P)?;
        // TVM's CollectComputeLocation: inline (-2) when possible, root
        // (-1), then loops of the first consumer (decision = their position).
        let mut options: Vec<(i64, Option<Var>)> = Vec::new();
        if self.clone().compute_inline_concrete(block_rv).is_ok() {
            options.push((-2, None));
        }
        options.push((-1, None));
        for (i, var) in self.compute_location_loops(&body, &block_path, block_rv)? {
            options.push((i as i64, Some(var)));
        }
        let pick = match decision {
            // A recorded decision stays if it is still a candidate, else
            // the candidate before it (TVM's rule), else the root.
            Some(d) => options.iter().rposition(|(i, _)| *i <= d),
            None => Some((self.next_random() % options.len() as u64) as usize),
        };
        let (choice, var) = pick.map_or((-1, None), |k| options[k].clone());
        let rv = match (choice, var) {
            (_, Some(v)) => self.new_loop_rv(&v),
            (-2, None) => self.new_special_loop_rv(SpecialLoop::Inline),
            _ => self.new_special_loop_rv(SpecialLoop::Root),
        };
        Ok((rv, choice))
    }

    /// The loops of the block's first consumer, up to the lowest one above
    /// all consumers, where `compute_at` may put the block: unit loops are
    /// skipped, and the walk stops at a data-parallel loop after a reduction
    /// one or a reduction loop below the last data-parallel one.
    fn compute_location_loops(
        &self,
        body: &Stmt,
        block_path: &StmtPath,
        block_rv: BlockRV,
    ) -> Result<Vec<(usize, Var)>> {
        const P: &str = "sample_compute_location";
        let scope = super::scope::Scope::of_block(P, body, block_path)?;
        let Some(bi) = scope.blocks.iter().position(|(p, _)| p == block_path) else {
            return Ok(vec![]);
        };
        let consumers: Vec<&StmtPath> = scope
            .consumers(bi)
            .into_iter()
            .map(|c| &scope.blocks[c].0)
            .collect();
        let Some(first) = consumers.first() else {
            return Ok(vec![]);
        };
        // The lowest loop or block above every consumer.
        let n = (0..first.0.len())
            .take_while(|&k| consumers.iter().all(|c| c.0.get(k) == first.0.get(k)))
            .count()
            .min(first.0.len() - 1);
        let chain = tree::chain(body, first);
        let Some(depth) = (0..=n).rev().find(|&d| {
            matches!(
                chain[d].kind(),
                StmtKind::For(_) | StmtKind::BlockRealize(_)
            )
        }) else {
            return Ok(vec![]);
        };
        let loops = super::query::enclosing_loops(body, first);
        let Some(lca_pos) = loops.iter().position(|(p, _)| p.0.len() == depth) else {
            return Ok(vec![]);
        };
        let kinds: Vec<Option<IterKind>> = loops[..=lca_pos]
            .iter()
            .map(|(_, l)| loop_kind(l))
            .collect();
        let last_spatial = kinds.iter().rposition(|k| *k == Some(IterKind::Spatial));
        let mut out = Vec::new();
        let mut seen_reduce = false;
        for (i, (_, l)) in loops[..=lca_pos].iter().enumerate() {
            if l.extent.is_const_int(1) {
                continue;
            }
            if kinds[i] == Some(IterKind::Spatial) {
                if seen_reduce {
                    break;
                }
            } else {
                seen_reduce = true;
                if last_spatial.is_none_or(|j| i > j) {
                    break;
                }
            }
            let mut trial = self.clone();
            let rv = trial.new_loop_rv(&l.loop_var);
            if trial
                .compute_at_concrete(true, block_rv, rv, true, -1)
                .is_ok()
            {
                out.push((i, l.loop_var.clone()));
            }
        }
        Ok(out)
    }
}

/// TVM's `GetLoopIterType`: spatial when only spatial iterators of the
/// blocks below use the loop, reduce when only reduction ones do, `None`
/// (opaque) for a mix or other kinds.
fn loop_kind(l: &For) -> Option<IterKind> {
    let (mut spatial, mut reduce, mut other) = (false, false, false);
    fn visit(s: &Stmt, v: &Var, flags: &mut (&mut bool, &mut bool, &mut bool)) {
        if let StmtKind::BlockRealize(r) = s.kind() {
            for (iv, e) in r.block.iter_vars.iter().zip(&r.iter_values) {
                if e.uses_var(v) {
                    match iv.kind {
                        IterKind::Spatial => *flags.0 = true,
                        IterKind::Reduce => *flags.1 = true,
                        _ => *flags.2 = true,
                    }
                }
            }
            return;
        }
        for c in tree::children(s) {
            visit(&c, v, flags);
        }
    }
    visit(
        &l.body,
        &l.loop_var,
        &mut (&mut spatial, &mut reduce, &mut other),
    );
    match (spatial, reduce, other) {
        (_, _, true) | (true, true, _) => None,
        (_, true, _) => Some(IterKind::Reduce),
        _ => Some(IterKind::Spatial),
    }
}
