//! The cost model: scores candidates before they are measured, so the
//! search measures the promising ones. Random during warm-up (too few
//! measurements to learn from), then gradient-boosted regression trees
//! fitted to the measured candidates' [`crate::features`] (target: the
//! candidate's throughput relative to the best measured, failures 0 — the
//! normalisation TVM's XGBoost model uses).
//!
//! The trees are written here (see `Cargo.toml` for why no crate): squared
//! loss, depth-limited trees grown greedily on exact thresholds, shrinkage.
//! The data sets are small (hundreds of rows, a dozen features), so exact
//! split search is cheap and fully deterministic.

use compiler_core::ir::values::Rng;

use crate::features::NUM_FEATURES;

/// The boosting settings.
#[derive(Clone, Debug)]
pub struct BoostConfig {
    pub rounds: usize,
    pub max_depth: usize,
    pub learning_rate: f64,
    pub min_leaf: usize,
    /// Measurements before the model replaces random scores.
    pub warmup: usize,
}

impl Default for BoostConfig {
    fn default() -> Self {
        // TVM's XGBModel waits for 100 samples; scaled to a browser's budget.
        BoostConfig {
            rounds: 40,
            max_depth: 3,
            learning_rate: 0.3,
            min_leaf: 2,
            warmup: 16,
        }
    }
}

#[derive(Clone, Debug)]
enum Node {
    Leaf(f64),
    Split {
        feature: usize,
        threshold: f64,
        left: Box<Node>,
        right: Box<Node>,
    },
}

impl Node {
    fn predict(&self, x: &[f64; NUM_FEATURES]) -> f64 {
        match self {
            Node::Leaf(v) => *v,
            Node::Split {
                feature,
                threshold,
                left,
                right,
            } => {
                if x[*feature] <= *threshold {
                    left.predict(x)
                } else {
                    right.predict(x)
                }
            }
        }
    }
}

/// A fitted ensemble.
#[derive(Clone, Debug)]
pub struct BoostedTrees {
    base: f64,
    trees: Vec<Node>,
    learning_rate: f64,
}

impl BoostedTrees {
    /// Fits `rounds` trees to `(x, y)`.
    pub fn fit(x: &[[f64; NUM_FEATURES]], y: &[f64], cfg: &BoostConfig) -> BoostedTrees {
        let base = if y.is_empty() {
            0.0
        } else {
            y.iter().sum::<f64>() / y.len() as f64
        };
        let mut pred = vec![base; y.len()];
        let mut trees = Vec::new();
        let all: Vec<usize> = (0..y.len()).collect();
        for _ in 0..cfg.rounds {
            let residual: Vec<f64> = y.iter().zip(&pred).map(|(t, p)| t - p).collect();
            let tree = grow(x, &residual, &all, cfg.max_depth, cfg.min_leaf);
            for (i, p) in pred.iter_mut().enumerate() {
                *p += cfg.learning_rate * tree.predict(&x[i]);
            }
            trees.push(tree);
        }
        BoostedTrees {
            base,
            trees,
            learning_rate: cfg.learning_rate,
        }
    }

    pub fn predict(&self, x: &[f64; NUM_FEATURES]) -> f64 {
        self.base
            + self
                .trees
                .iter()
                .map(|t| self.learning_rate * t.predict(x))
                .sum::<f64>()
    }
}

fn mean(r: &[f64], rows: &[usize]) -> f64 {
    if rows.is_empty() {
        0.0
    } else {
        rows.iter().map(|&i| r[i]).sum::<f64>() / rows.len() as f64
    }
}

/// One tree by greedy variance reduction.
fn grow(
    x: &[[f64; NUM_FEATURES]],
    r: &[f64],
    rows: &[usize],
    depth: usize,
    min_leaf: usize,
) -> Node {
    if depth == 0 || rows.len() < 2 * min_leaf {
        return Node::Leaf(mean(r, rows));
    }
    let total: f64 = rows.iter().map(|&i| r[i]).sum();
    let n = rows.len() as f64;
    let mut best: Option<(f64, usize, f64)> = None;
    // `f` indexes a column of every row, not one array.
    #[allow(clippy::needless_range_loop)]
    for f in 0..NUM_FEATURES {
        let mut sorted = rows.to_vec();
        sorted.sort_by(|&a, &b| x[a][f].total_cmp(&x[b][f]));
        let mut left_sum = 0.0;
        for k in 0..sorted.len() - 1 {
            left_sum += r[sorted[k]];
            let (lv, rv) = (x[sorted[k]][f], x[sorted[k + 1]][f]);
            let left_n = (k + 1) as f64;
            if lv == rv || k + 1 < min_leaf || sorted.len() - (k + 1) < min_leaf {
                continue;
            }
            // Variance reduction up to a constant: sum²/n on each side.
            let gain = left_sum * left_sum / left_n + (total - left_sum).powi(2) / (n - left_n)
                - total * total / n;
            if best.is_none_or(|(g, _, _)| gain > g + 1e-12) {
                best = Some((gain, f, (lv + rv) / 2.0));
            }
        }
    }
    match best {
        Some((gain, feature, threshold)) if gain > 1e-12 => {
            let (l, rr): (Vec<usize>, Vec<usize>) =
                rows.iter().partition(|&&i| x[i][feature] <= threshold);
            Node::Split {
                feature,
                threshold,
                left: Box::new(grow(x, r, &l, depth - 1, min_leaf)),
                right: Box::new(grow(x, r, &rr, depth - 1, min_leaf)),
            }
        }
        _ => Node::Leaf(mean(r, rows)),
    }
}

/// Scores candidates: random until warm, then the fitted trees.
pub struct CostModel {
    cfg: BoostConfig,
    xs: Vec<[f64; NUM_FEATURES]>,
    /// Measured seconds per row (`None`: failed).
    times: Vec<Option<f64>>,
    model: Option<BoostedTrees>,
    rng: Rng,
}

impl CostModel {
    pub fn new(cfg: BoostConfig, seed: u64) -> CostModel {
        CostModel {
            cfg,
            xs: Vec::new(),
            times: Vec::new(),
            model: None,
            rng: Rng::new(seed),
        }
    }

    /// Whether scores come from the learned model.
    pub fn is_trained(&self) -> bool {
        self.model.is_some()
    }

    /// Adds measurements and refits once past warm-up.
    pub fn update(&mut self, rows: impl IntoIterator<Item = ([f64; NUM_FEATURES], Option<f64>)>) {
        for (x, t) in rows {
            self.xs.push(x);
            self.times.push(t);
        }
        if self.xs.len() < self.cfg.warmup {
            return;
        }
        let best = self
            .times
            .iter()
            .flatten()
            .copied()
            .fold(f64::INFINITY, f64::min);
        let y: Vec<f64> = self
            .times
            .iter()
            .map(|t| match t {
                Some(t) if *t > 0.0 && best.is_finite() => best / t,
                _ => 0.0,
            })
            .collect();
        self.model = Some(BoostedTrees::fit(&self.xs, &y, &self.cfg));
    }

    /// A score per candidate (higher is predicted faster).
    pub fn predict(&mut self, xs: &[[f64; NUM_FEATURES]]) -> Vec<f64> {
        match &self.model {
            Some(m) => xs.iter().map(|x| m.predict(x)).collect(),
            None => xs.iter().map(|_| self.rng.next_f64()).collect(),
        }
    }
}
