//! Loop nests as plain data: every PrimFunc's loops and blocks as a tree
//! (the playground's loop-nest view) and as pre-order lists (the indices
//! requests name a loop by), with the floating-point operations of one call.
//! Computed from the IR, never from printed text; the CLI, the worker and
//! tests share it. The types derive serde so hosts can send them as they are.

use compiler_core::ir::{BinOp, Block, Expr, ExprKind, IRModule, PrimFunc, Stmt, StmtKind};
use compiler_core::tvmscript::printer::{print_module_located, Anchor, PrintOptions, StmtPart};
use serde::{Deserialize, Serialize};

/// A loop or block of the printed text, located by the printer (so a host
/// never scans printed text for loops).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct IrTarget {
    /// `loop` or `block`.
    pub kind: String,
    pub func: String,
    /// Pre-order loop index (loops, as [`FuncNest::loops`]) or block index.
    pub index: usize,
    /// The loop variable as printed, or the block's name.
    pub name: String,
    /// 0-based line of the text.
    pub line: usize,
    /// The characters of that line showing the name (0-based, end
    /// exclusive); loops only: a block's name is its line's string.
    pub columns: Option<(usize, usize)>,
}

/// Prints `module`, with the loop nest of each PrimFunc and where every
/// loop (its name) and block (its header line) is in the text: one walk of
/// each function serves both.
pub fn print_with_targets(
    module: &IRModule,
    opts: &PrintOptions,
) -> (String, Vec<FuncNest>, Vec<IrTarget>) {
    let mut anchors = Vec::new();
    let mut what = Vec::new();
    let mut nests = Vec::new();
    for (func, f) in module.prim_funcs() {
        let (nest, loops, blocks) = walk(func, f);
        nests.push(nest);
        for (index, stmt) in loops.into_iter().enumerate() {
            anchors.push(Anchor::Stmt(stmt, StmtPart::LoopName));
            what.push(("loop", func, index, None));
        }
        for (index, (stmt, name)) in blocks.into_iter().enumerate() {
            anchors.push(Anchor::Stmt(stmt, StmtPart::Header));
            what.push(("block", func, index, Some(name)));
        }
    }
    let located = print_module_located(module, opts, &anchors);
    let lines: Vec<&str> = located.text.lines().collect();
    let mut targets = Vec::new();
    for ((kind, func, index, block), range) in what.into_iter().zip(&located.ranges) {
        let Some(range) = range else { continue };
        let line = range.first_line.saturating_sub(1);
        let columns = if kind == "loop" { range.columns } else { None };
        let name = match (block, columns) {
            (Some(name), _) => name,
            (None, Some((from, to))) => lines
                .get(line)
                .map(|l| l.chars().skip(from).take(to - from).collect())
                .unwrap_or_default(),
            (None, None) => continue,
        };
        targets.push(IrTarget {
            kind: kind.to_string(),
            func: func.to_string(),
            index,
            name,
            line,
            columns,
        });
    }
    (located.text, nests, targets)
}

/// One function's loops and blocks, as a tree and as pre-order lists.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FuncNest {
    pub func: String,
    pub roots: Vec<NestNode>,
    /// Every loop of the function in pre-order (the printed text's order).
    pub loops: Vec<LoopInfo>,
    /// Every block with its enclosing loops (pre-order indices, outer first).
    pub blocks: Vec<BlockInfo>,
    /// Floating-point operations of one call, when every extent is constant.
    pub flops: Option<f64>,
}

/// A loop or a block in the tree.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct NestNode {
    /// `loop` or `block`.
    pub kind: String,
    pub name: String,
    /// Loop extent (when constant) or the block's iteration domain text.
    pub extent: Option<i64>,
    /// Loop kind (`serial`, `parallel`, `vectorized`, `unroll`, a thread tag)
    /// or for blocks `reduction` / `spatial`.
    pub detail: String,
    /// Pre-order loop index (loops) or block index (blocks).
    pub index: usize,
    pub children: Vec<NestNode>,
}

/// A loop in pre-order.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LoopInfo {
    pub name: String,
    pub extent: Option<i64>,
    pub detail: String,
    /// Blocks under this loop (names).
    pub blocks: Vec<String>,
}

/// A block in pre-order.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct BlockInfo {
    pub name: String,
    /// Pre-order indices of the loops around it, outer first (`get_loops`).
    pub loops: Vec<usize>,
    pub reduction: bool,
}

/// The loop nest of every PrimFunc of `module`, with its FLOP count.
pub fn module_nests(module: &IRModule) -> Vec<FuncNest> {
    module
        .prim_funcs()
        .map(|(name, f)| func_nest(name, f))
        .collect()
}

struct NestBuilder {
    nest: FuncNest,
    /// Loops enclosing the current point inside the current block scope.
    scope_loops: Vec<usize>,
    /// Extents of all enclosing loops (for FLOPs); `None` when symbolic.
    extents: Vec<Option<i64>>,
    flops: Option<f64>,
    /// The statements of `nest.loops` and `nest.blocks`, in order.
    loop_stmts: Vec<Stmt>,
    block_stmts: Vec<(Stmt, String)>,
}

fn func_nest(name: &str, f: &PrimFunc) -> FuncNest {
    walk(name, f).0
}

/// The nest of `f`, with its loop statements and block statements (and
/// names) in the nest's pre-order.
fn walk(name: &str, f: &PrimFunc) -> (FuncNest, Vec<Stmt>, Vec<(Stmt, String)>) {
    let mut b = NestBuilder {
        nest: FuncNest {
            func: name.to_string(),
            ..FuncNest::default()
        },
        scope_loops: vec![],
        extents: vec![],
        flops: Some(0.0),
        loop_stmts: vec![],
        block_stmts: vec![],
    };
    let roots = b.stmt(&f.body, true);
    b.nest.roots = roots;
    b.nest.flops = b.flops.filter(|f| *f > 0.0);
    (b.nest, b.loop_stmts, b.block_stmts)
}

fn float_ops(e: &Expr) -> u64 {
    let mut n = 0;
    e.walk(&mut |x| {
        let counts = match x.kind() {
            ExprKind::Binary(op, _, _) => {
                !matches!(op, BinOp::FloorDiv | BinOp::FloorMod | BinOp::Mod)
            }
            ExprKind::Call { .. } => true,
            _ => false,
        };
        if counts && x.dtype().is_float() {
            n += 1;
        }
    });
    n
}

impl NestBuilder {
    fn stmt(&mut self, s: &Stmt, top: bool) -> Vec<NestNode> {
        match s.kind() {
            StmtKind::For(f) => {
                let index = self.nest.loops.len();
                let extent = f.extent.as_int();
                let detail = match &f.thread_tag {
                    Some(tag) => tag.clone(),
                    None => f.kind.script_name().to_string(),
                };
                self.nest.loops.push(LoopInfo {
                    name: f.loop_var.name().to_string(),
                    extent,
                    detail: detail.clone(),
                    blocks: vec![],
                });
                self.loop_stmts.push(s.clone());
                self.scope_loops.push(index);
                self.extents.push(extent);
                let first_block = self.nest.blocks.len();
                let children = self.stmt(&f.body, false);
                self.extents.pop();
                self.scope_loops.pop();
                let names: Vec<String> = self.nest.blocks[first_block..]
                    .iter()
                    .map(|b| b.name.clone())
                    .collect();
                self.nest.loops[index].blocks = names;
                vec![NestNode {
                    kind: "loop".into(),
                    name: f.loop_var.name().to_string(),
                    extent,
                    detail,
                    index,
                    children,
                }]
            }
            StmtKind::BlockRealize(r) => {
                if top && r.block.name == "root" {
                    return self.block_body(&r.block, true);
                }
                let index = self.nest.blocks.len();
                let reduction = r.block.iter_vars.iter().any(|iv| iv.kind.letter() == 'R');
                self.block_stmts.push((s.clone(), r.block.name.clone()));
                self.nest.blocks.push(BlockInfo {
                    name: r.block.name.clone(),
                    loops: self.scope_loops.clone(),
                    reduction,
                });
                let saved = std::mem::take(&mut self.scope_loops);
                let children = self.block_body(&r.block, false);
                self.scope_loops = saved;
                vec![NestNode {
                    kind: "block".into(),
                    name: r.block.name.clone(),
                    extent: None,
                    detail: if reduction { "reduction" } else { "spatial" }.into(),
                    index,
                    children,
                }]
            }
            StmtKind::Store { value, .. } => {
                let ops = float_ops(value) as f64;
                if ops > 0.0 {
                    let trips: Option<f64> = self
                        .extents
                        .iter()
                        .try_fold(1.0, |acc, e| e.map(|e| acc * e as f64));
                    self.flops = match (self.flops, trips) {
                        (Some(f), Some(t)) => Some(f + ops * t),
                        _ => None,
                    };
                }
                vec![]
            }
            StmtKind::Seq(items) => items.iter().flat_map(|x| self.stmt(x, top)).collect(),
            StmtKind::Let { body, .. } | StmtKind::Allocate { body, .. } => self.stmt(body, top),
            StmtKind::If {
                then, otherwise, ..
            } => {
                let mut v = self.stmt(then, top);
                if let Some(o) = otherwise {
                    v.extend(self.stmt(o, top));
                }
                v
            }
            StmtKind::Evaluate(_) => vec![],
        }
    }

    fn block_body(&mut self, b: &Block, top: bool) -> Vec<NestNode> {
        // The init statement runs once per output element: no FLOPs worth counting.
        self.stmt(&b.body, top)
    }
}
