//! The buffer regions one iteration of a loop touches, as the compiler's
//! region analysis computes them: every block under the loop, its read and
//! write regions with the loops strictly inside the chosen one relaxed to
//! their whole range. Printed symbolically (`A[i, 0:128]`) and, for one
//! concrete iteration (the loops outside at their minimum, the chosen loop
//! at `at`), as `(min, extent)` per dimension.
//!
//! The playground's "Regions" view and the memory-access pictures
//! (the `memory_access` module) are checked against this.

use std::collections::HashMap;

use compiler_core::analysis::regions::infer_access_regions;
use compiler_core::arith::int_set::eval_bound_with;
use compiler_core::arith::Analyzer;
use compiler_core::ir::mutate::substitute_expr;
use compiler_core::ir::{BinOp, BufferRegion, Expr, PrimFunc, Range, Stmt, StmtKind, Var, VarId};
use compiler_core::tvmscript::printer::print_expr;

/// The regions of one iteration of a loop.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LoopRegions {
    pub loop_name: String,
    /// The loop's extent, when constant.
    pub extent: Option<i64>,
    /// The iteration drawn (`at` clamped into the loop's range).
    pub at: i64,
    /// One entry per block and region, reads before writes.
    pub regions: Vec<LoopRegion>,
}

/// One block's read or write region.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LoopRegion {
    pub block: String,
    pub buffer: String,
    /// `read` or `write`.
    pub access: String,
    /// The buffer's shape (empty when symbolic).
    pub shape: Vec<i64>,
    /// Symbolic region (`A[i, 0:128]`).
    pub text: String,
    /// The region at the drawn iteration, `(min, extent)` per dimension,
    /// when constant.
    pub concrete: Option<Vec<(i64, i64)>>,
}

/// The regions one iteration of loop number `loop_index` (pre-order among
/// `func`'s loops) touches, at iteration `at` of that loop with the loops
/// outside it at their minimum.
pub fn loop_regions(func: &PrimFunc, loop_index: usize, at: i64) -> Result<LoopRegions, String> {
    let mut finder = RegionFinder {
        target: loop_index,
        count: 0,
        outer: vec![],
        at,
        found: None,
    };
    finder.find(&func.body);
    finder
        .found
        .ok_or_else(|| format!("no loop number {loop_index} in this function"))
}

struct RegionFinder {
    target: usize,
    count: usize,
    /// Loops enclosing the walk (var, min, extent).
    outer: Vec<(Var, Expr, Expr)>,
    at: i64,
    found: Option<LoopRegions>,
}

impl RegionFinder {
    fn find(&mut self, s: &Stmt) {
        if self.found.is_some() {
            return;
        }
        match s.kind() {
            StmtKind::For(f) => {
                let index = self.count;
                self.count += 1;
                if index == self.target {
                    self.found = Some(self.collect(f));
                    return;
                }
                self.outer
                    .push((f.loop_var.clone(), f.min.clone(), f.extent.clone()));
                self.find(&f.body);
                self.outer.pop();
            }
            _ => s.for_each_child(|c| self.find(c)),
        }
    }

    /// At the chosen loop: every block inside, its regions with the loops
    /// strictly inside relaxed.
    fn collect(&self, f: &compiler_core::ir::For) -> LoopRegions {
        let mut ana = Analyzer::new();
        // The concrete iteration: outer loops at their minimum, the chosen loop at `at`.
        let mut point: HashMap<VarId, Expr> = HashMap::new();
        for (v, min, ext) in &self.outer {
            if let (Some(m), Some(e)) = (min.as_int(), ext.as_int()) {
                ana.bind_range(v, m, e);
                point.insert(v.id(), Expr::int(m, v.dtype()));
            }
        }
        if let (Some(m), Some(e)) = (f.min.as_int(), f.extent.as_int()) {
            ana.bind_range(&f.loop_var, m, e);
        }
        let min = f.min.as_int().unwrap_or(0);
        let at = self
            .at
            .clamp(min, min + f.extent.as_int().unwrap_or(1).max(1) - 1);
        point.insert(f.loop_var.id(), Expr::int(at, f.loop_var.dtype()));
        let mut out = LoopRegions {
            loop_name: f.loop_var.name().to_string(),
            extent: f.extent.as_int(),
            at,
            regions: vec![],
        };
        let mut walker = InnerWalk {
            dom: HashMap::new(),
            subst: HashMap::new(),
            ana: &ana,
            point: &point,
            out: &mut out.regions,
        };
        walker.walk(&f.body);
        out
    }
}

struct InnerWalk<'a> {
    dom: HashMap<VarId, Range>,
    subst: HashMap<VarId, Expr>,
    ana: &'a Analyzer,
    point: &'a HashMap<VarId, Expr>,
    out: &'a mut Vec<LoopRegion>,
}

impl InnerWalk<'_> {
    fn walk(&mut self, s: &Stmt) {
        match s.kind() {
            StmtKind::For(f) => {
                let min = substitute_expr(&f.min, &self.subst);
                let ext = substitute_expr(&f.extent, &self.subst);
                self.dom.insert(f.loop_var.id(), Range::new(min, ext));
                self.walk(&f.body);
                self.dom.remove(&f.loop_var.id());
            }
            StmtKind::BlockRealize(r) => {
                let saved = self.subst.clone();
                for (iv, value) in r.block.iter_vars.iter().zip(&r.iter_values) {
                    let v = substitute_expr(value, &self.subst);
                    self.subst.insert(iv.var.id(), v);
                }
                let (reads, writes) = if r.block.reads.is_empty() && r.block.writes.is_empty() {
                    infer_access_regions(&r.block)
                } else {
                    (r.block.reads.clone(), r.block.writes.clone())
                };
                for (access, list) in [("read", &reads), ("write", &writes)] {
                    for region in list.iter() {
                        self.region(&r.block.name, access, region);
                    }
                }
                self.walk(&r.block.body);
                self.subst = saved;
            }
            _ => s.for_each_child(|c| self.walk(c)),
        }
    }

    fn region(&mut self, block: &str, access: &str, region: &BufferRegion) {
        let mut dims = Vec::new();
        let mut concrete = Some(Vec::new());
        for r in &region.region {
            let lo = substitute_expr(&r.min, &self.subst);
            let hi = Expr::binary(
                BinOp::Sub,
                Expr::binary(
                    BinOp::Add,
                    lo.clone(),
                    substitute_expr(&r.extent, &self.subst),
                ),
                Expr::int(1, lo.dtype()),
            );
            let (Some(lo_r), Some(hi_r)) = (
                eval_bound_with(self.ana, &lo, &self.dom),
                eval_bound_with(self.ana, &hi, &self.dom),
            ) else {
                dims.push("?".to_string());
                concrete = None;
                continue;
            };
            let min = lo_r.min.clone();
            let extent = self.ana.simplify(&Expr::binary(
                BinOp::Sub,
                Expr::binary(BinOp::Add, hi_r.min.clone(), hi_r.extent.clone()),
                min.clone(),
            ));
            dims.push(if extent.is_const_int(1) {
                print_expr(&min)
            } else {
                let end = self
                    .ana
                    .simplify(&Expr::binary(BinOp::Add, min.clone(), extent.clone()));
                format!("{}:{}", print_expr(&min), print_expr(&end))
            });
            let cmin = self
                .ana
                .simplify(&substitute_expr(&min, self.point))
                .as_int();
            let cext = self
                .ana
                .simplify(&substitute_expr(&extent, self.point))
                .as_int();
            match (cmin, cext, concrete.as_mut()) {
                (Some(m), Some(e), Some(c)) => c.push((m, e)),
                _ => concrete = None,
            }
        }
        let buffer = &region.buffer;
        self.out.push(LoopRegion {
            block: block.to_string(),
            buffer: buffer.name.clone(),
            access: access.into(),
            shape: buffer.const_shape().unwrap_or_default(),
            text: format!("{}[{}]", buffer.name, dims.join(", ")),
            concrete,
        });
    }
}
