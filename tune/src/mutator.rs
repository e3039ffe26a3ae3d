//! Mutators: small changes to a candidate's decisions (TVM's `mutator`s).
//! Each returns a new design trace, or `None` when it has nothing to change;
//! the search replays the result, and a mutation that does not replay is
//! dropped.
//! - [`Mutator::TileSize`]: moves a factor between two tiles of one
//!   `sample_perfect_tile` (the product stays the loop's extent).
//! - [`Mutator::Unroll`]: another candidate of a `sample_categorical` (the
//!   unroll depth; a schedule function's own categorical choices too).
//! - [`Mutator::ComputeLocation`]: another `sample_compute_location` choice.
//! - [`Mutator::Parallel`]: another job count for the parallel annotation.

use compiler_core::ir::values::Rng;
use compiler_core::schedule::{Trace, TraceArg};

use crate::rules::ANN_PARALLEL;

/// One mutator (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mutator {
    TileSize,
    Unroll,
    ComputeLocation,
    Parallel,
}

/// TVM's mutators with their default probabilities (CPU: tile size 0.9,
/// compute location 0.05, unroll 0.03, parallel 0.02; GPU: tile size 0.9,
/// unroll 0.08).
pub fn default_mutators(gpu: bool) -> Vec<(Mutator, f64)> {
    if gpu {
        vec![(Mutator::TileSize, 0.9), (Mutator::Unroll, 0.08)]
    } else {
        vec![
            (Mutator::TileSize, 0.9),
            (Mutator::ComputeLocation, 0.05),
            (Mutator::Unroll, 0.03),
            (Mutator::Parallel, 0.02),
        ]
    }
}

fn int_arg(arg: Option<&TraceArg>) -> Option<i64> {
    match arg? {
        TraceArg::Int(v) => Some(*v),
        _ => None,
    }
}

fn pick<T: Copy>(rng: &mut Rng, items: &[T]) -> Option<T> {
    if items.is_empty() {
        None
    } else {
        Some(items[rng.range_i64(0, items.len() as i64) as usize])
    }
}

/// The smallest prime factor of `n` (> 1).
fn smallest_factor(n: i64) -> i64 {
    let mut f = 2;
    while f * f <= n {
        if n % f == 0 {
            return f;
        }
        f += 1;
    }
    n
}

impl Mutator {
    pub fn name(self) -> &'static str {
        match self {
            Mutator::TileSize => "MutateTileSize",
            Mutator::Unroll => "MutateUnroll",
            Mutator::ComputeLocation => "MutateComputeLocation",
            Mutator::Parallel => "MutateParallel",
        }
    }

    /// A mutated copy of `trace`, or `None` when nothing applies.
    pub fn apply(self, trace: &Trace, num_cores: i64, rng: &mut Rng) -> Option<Trace> {
        let mut out = trace.clone();
        let insts = &mut out.instructions;
        match self {
            Mutator::TileSize => {
                let sites: Vec<usize> = (0..insts.len())
                    .filter(|&i| {
                        insts[i].name == "sample_perfect_tile"
                            && insts[i]
                                .decision
                                .as_ref()
                                .is_some_and(|d| d.iter().any(|x| *x > 1))
                    })
                    .collect();
                let i = pick(rng, &sites)?;
                let max_innermost = int_arg(insts[i].get("max_innermost_factor")).unwrap_or(16);
                let d = insts[i].decision.as_mut()?;
                let from_choices: Vec<usize> = (0..d.len()).filter(|&k| d[k] > 1).collect();
                for _ in 0..8 {
                    let from = pick(rng, &from_choices)?;
                    let to = rng.range_i64(0, d.len() as i64) as usize;
                    if to == from {
                        continue;
                    }
                    // Move a random prime factor of the tile.
                    let mut rest = d[from];
                    let mut primes = Vec::new();
                    while rest > 1 {
                        let p = smallest_factor(rest);
                        primes.push(p);
                        rest /= p;
                    }
                    let f = pick(rng, &primes)?;
                    let last = d.len() - 1;
                    if to == last && max_innermost > 0 && d[to] * f > max_innermost {
                        continue;
                    }
                    d[from] /= f;
                    d[to] *= f;
                    return Some(out);
                }
                None
            }
            Mutator::Unroll => {
                let sites: Vec<usize> = (0..insts.len())
                    .filter(|&i| {
                        insts[i].name == "sample_categorical"
                            && matches!(insts[i].get("candidates"), Some(TraceArg::List(c)) if c.len() > 1)
                    })
                    .collect();
                let i = pick(rng, &sites)?;
                let n = match insts[i].get("candidates") {
                    Some(TraceArg::List(c)) => c.len() as i64,
                    _ => return None,
                };
                let current = insts[i]
                    .decision
                    .as_ref()
                    .and_then(|d| d.first().copied())
                    .unwrap_or(0);
                let next = (current + 1 + rng.range_i64(0, n - 1)) % n;
                insts[i].decision = Some(vec![next]);
                Some(out)
            }
            Mutator::ComputeLocation => {
                let sites: Vec<usize> = (0..insts.len())
                    .filter(|&i| insts[i].name == "sample_compute_location")
                    .collect();
                let i = pick(rng, &sites)?;
                let current = insts[i]
                    .decision
                    .as_ref()
                    .and_then(|d| d.first().copied())
                    .unwrap_or(-1);
                // The legal set depends on the program at that point: replay
                // rejects a choice out of range.
                let choices: Vec<i64> = (-1..=current.max(0) + 2)
                    .filter(|c| *c != current)
                    .collect();
                insts[i].decision = Some(vec![pick(rng, &choices)?]);
                Some(out)
            }
            Mutator::Parallel => {
                let sites: Vec<usize> = (0..insts.len())
                    .filter(|&i| {
                        insts[i].name == "annotate"
                            && matches!(insts[i].get("ann_key"), Some(TraceArg::Str(k)) if k == ANN_PARALLEL)
                            && int_arg(insts[i].get("ann_val")).is_some()
                    })
                    .collect();
                let i = pick(rng, &sites)?;
                let current = int_arg(insts[i].get("ann_val"))?;
                let choices: Vec<i64> = [1, 2, 4, 8, 16]
                    .iter()
                    .map(|k| k * num_cores.max(1))
                    .filter(|v| *v != current)
                    .collect();
                let v = pick(rng, &choices)?;
                for (k, a) in &mut insts[i].args {
                    if k == "ann_val" {
                        *a = TraceArg::Int(v);
                    }
                }
                Some(out)
            }
        }
    }
}
