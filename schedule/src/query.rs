//! Query primitives: finding blocks and loops, and the dataflow between blocks.

use super::primitives::{param, Args, ParamType as T, Primitive, Returns};
use super::replay::SchedValue;
use super::tree::{self, StmtPath};
use super::*;

pub(super) const GET_BLOCK: Primitive = Primitive {
    method: "get_block",
    aliases: &["get_sblock"],
    kind: "GetSBlock",
    params: &[
        param("name", T::Str).attr(),
        param("func_name", T::OptStr).or_none().attr(),
    ],
    returns: Returns::One,
    traced: true,
    apply: |sch, args| {
        let name = args.string("name")?;
        let func = args.opt_string("func_name")?;
        let rv = sch.get_block_concrete(&name, func.as_deref())?;
        // The trace names the function even when the call did not.
        args.record_as("func_name", SchedValue::Str(sch.func_name.clone()))?;
        Ok(rv.into())
    },
    menu: None,
};

pub(super) const GET_LOOPS: Primitive = Primitive {
    method: "get_loops",
    aliases: &[],
    kind: "GetLoops",
    params: &[param("block", T::Block)],
    returns: Returns::List,
    traced: true,
    apply: |sch, args| {
        let loops = sch.get_loops_concrete(args.block("block")?)?;
        Ok(SchedValue::rv_list(&loops))
    },
    menu: None,
};

pub(super) const GET_CHILD_BLOCKS: Primitive = Primitive {
    method: "get_child_blocks",
    aliases: &[],
    kind: "GetChildBlocks",
    // TVM prints this argument positionally: `sch.get_child_blocks(b0)`.
    params: &[param("block_or_loop", T::BlockOrLoop).printed_positionally()],
    returns: Returns::List,
    traced: true,
    apply: |sch, args| {
        let blocks = sch.get_child_blocks_concrete(args.rv("block_or_loop")?)?;
        Ok(SchedValue::rv_list(&blocks))
    },
    menu: None,
};

pub(super) const GET_PRODUCERS: Primitive = Primitive {
    method: "get_producers",
    aliases: &[],
    kind: "GetProducers",
    params: &[param("block", T::Block)],
    returns: Returns::List,
    traced: true,
    apply: |sch, args| {
        let blocks = sch.dataflow_neighbours("get_producers", args.block("block")?, true)?;
        Ok(SchedValue::rv_list(&blocks))
    },
    menu: None,
};

pub(super) const GET_CONSUMERS: Primitive = Primitive {
    method: "get_consumers",
    aliases: &[],
    kind: "GetConsumers",
    params: &[param("block", T::Block)],
    returns: Returns::List,
    traced: true,
    apply: |sch, args| {
        let blocks = sch.dataflow_neighbours("get_consumers", args.block("block")?, false)?;
        Ok(SchedValue::rv_list(&blocks))
    },
    menu: None,
};

pub(super) const GET_OUTPUT_BLOCKS: Primitive = Primitive {
    method: "get_output_blocks",
    aliases: &[],
    kind: "GetOutputBlocks",
    params: &[param("block", T::Block)],
    returns: Returns::List,
    traced: true,
    apply: |sch, args| {
        let blocks = sch.get_output_blocks_concrete(args.block("block")?)?;
        Ok(SchedValue::rv_list(&blocks))
    },
    menu: None,
};

/// Tessel's own kind: TVM does not trace `work_on`, and neither does Tessel
/// (the `get_block` that follows names the function), but a trace read from
/// JSON may hold one.
pub(super) const WORK_ON: Primitive = Primitive {
    method: "work_on",
    aliases: &[],
    kind: "WorkOn",
    params: &[param("func_name", T::Str).attr()],
    returns: Returns::Nothing,
    traced: false,
    apply: |sch, args| {
        sch.work_on(&args.string("func_name")?)?;
        Ok(SchedValue::None)
    },
    menu: None,
};

/// `sch.enter_postproc()`: marks where a design space's schedule ends and
/// its postprocessors begin. It changes nothing; TVM records it so a replayed
/// trace knows which part of it the postprocessors wrote.
pub(super) const ENTER_POSTPROC: Primitive = Primitive {
    method: "enter_postproc",
    aliases: &[],
    kind: "EnterPostproc",
    params: &[],
    returns: Returns::Nothing,
    traced: true,
    apply: |_, _| Ok(SchedValue::None),
    menu: None,
};

impl Schedule {
    /// `sch.enter_postproc()`: see [`ENTER_POSTPROC`].
    pub fn enter_postproc(&mut self) -> Result<()> {
        self.apply_traced(&ENTER_POSTPROC, Args::typed(&ENTER_POSTPROC, vec![]))?;
        Ok(())
    }

    /// `sch.get_block("C", func_name="main")` (also spelled `get_sblock`).
    pub fn get_block(&mut self, name: &str, func_name: Option<&str>) -> Result<BlockRV> {
        let func_name = func_name.map_or(SchedValue::None, SchedValue::from);
        self.apply_traced(
            &GET_BLOCK,
            Args::typed(&GET_BLOCK, vec![name.into(), func_name]),
        )?
        .into_block()
    }

    /// The loops above a block, outermost first, up to the enclosing block.
    pub fn get_loops(&mut self, block: BlockRV) -> Result<Vec<LoopRV>> {
        self.apply_traced(&GET_LOOPS, Args::typed(&GET_LOOPS, vec![block.into()]))?
            .into_loops()
    }

    /// The blocks directly under a block or loop (not inside nested blocks).
    pub fn get_child_blocks(&mut self, parent: Rv) -> Result<Vec<BlockRV>> {
        self.apply_traced(
            &GET_CHILD_BLOCKS,
            Args::typed(&GET_CHILD_BLOCKS, vec![parent.into()]),
        )?
        .into_blocks()
    }

    /// Blocks in the same scope that write a buffer this block reads.
    pub fn get_producers(&mut self, block: BlockRV) -> Result<Vec<BlockRV>> {
        self.apply_traced(
            &GET_PRODUCERS,
            Args::typed(&GET_PRODUCERS, vec![block.into()]),
        )?
        .into_blocks()
    }

    /// Blocks in the same scope that read a buffer this block writes.
    pub fn get_consumers(&mut self, block: BlockRV) -> Result<Vec<BlockRV>> {
        self.apply_traced(
            &GET_CONSUMERS,
            Args::typed(&GET_CONSUMERS, vec![block.into()]),
        )?
        .into_blocks()
    }

    /// Blocks under a scope block that write a buffer of the function's
    /// parameters (the outputs).
    pub fn get_output_blocks(&mut self, scope: BlockRV) -> Result<Vec<BlockRV>> {
        self.apply_traced(
            &GET_OUTPUT_BLOCKS,
            Args::typed(&GET_OUTPUT_BLOCKS, vec![scope.into()]),
        )?
        .into_blocks()
    }

    fn get_block_concrete(&mut self, name: &str, func_name: Option<&str>) -> Result<BlockRV> {
        if let Some(f) = func_name {
            if self.module.get_prim(f).is_none() {
                return Err(ScheduleError::not_found(
                    "get_block",
                    format!("the module has no PrimFunc named `{f}`"),
                ));
            }
            self.func_name = f.to_string();
        }
        let body = self.body("get_block")?;
        let found = tree::find_blocks(&body, name);
        match found.len() {
            1 => {}
            0 => {
                return Err(ScheduleError::not_found(
                    "get_block",
                    format!("no block named `{name}` in function `{}`", self.func_name),
                ))
            }
            n => {
                return Err(ScheduleError::block_structure(
                    "get_block",
                    format!("{n} blocks are named `{name}`; the name must be unique"),
                ))
            }
        }
        Ok(self.new_block_rv(name))
    }

    fn get_loops_concrete(&mut self, block: BlockRV) -> Result<Vec<LoopRV>> {
        let (path, _) = self.resolve_block("get_loops", block)?;
        let body = self.body("get_loops")?;
        let loops = enclosing_loops(&body, &path);
        let rvs: Vec<LoopRV> = loops
            .iter()
            .map(|(_, f)| self.new_loop_rv(&f.loop_var))
            .collect();
        Ok(rvs)
    }

    fn get_child_blocks_concrete(&mut self, parent: Rv) -> Result<Vec<BlockRV>> {
        let body = self.body("get_child_blocks")?;
        let root = match parent {
            Rv::Block(b) => {
                let (path, _) = self.resolve_block("get_child_blocks", BlockRV(b))?;
                path
            }
            Rv::Loop(l) => self.resolve_loop("get_child_blocks", LoopRV(l))?.0,
            Rv::Expr(_) => {
                return Err(ScheduleError::argument_type(
                    "get_child_blocks",
                    "expected a block or a loop",
                ))
            }
        };
        let names = child_block_names(&body, &root);
        Ok(names.iter().map(|n| self.new_block_rv(n)).collect())
    }

    /// TVM's `GetOutputBlocks`: every block under the scope, nested ones
    /// too (in pre-order), that writes a buffer its own scope block neither
    /// allocates nor matches.
    fn get_output_blocks_concrete(&mut self, scope: BlockRV) -> Result<Vec<BlockRV>> {
        fn local_buffers(b: &Block) -> Vec<Buffer> {
            let matched = b.match_buffers.iter().map(|m| m.buffer.clone());
            b.alloc_buffers.iter().cloned().chain(matched).collect()
        }
        fn go(s: &Stmt, scope_local: &[Buffer], out: &mut Vec<String>) {
            match s.kind() {
                StmtKind::BlockRealize(r) => {
                    let b = &r.block;
                    if b.writes.iter().any(|w| !scope_local.contains(&w.buffer)) {
                        out.push(b.name.clone());
                    }
                    let local = local_buffers(b);
                    if let Some(init) = &b.init {
                        go(init, &local, out);
                    }
                    go(&b.body, &local, out);
                }
                _ => {
                    for c in tree::children(s) {
                        go(&c, scope_local, out);
                    }
                }
            }
        }
        let (_, realize) = self.resolve_block("get_output_blocks", scope)?;
        let mut names = Vec::new();
        go(
            &realize.block.body,
            &local_buffers(&realize.block),
            &mut names,
        );
        Ok(names.iter().map(|n| self.new_block_rv(n)).collect())
    }

    fn dataflow_neighbours(
        &mut self,
        primitive: &str,
        block: BlockRV,
        producers: bool,
    ) -> Result<Vec<BlockRV>> {
        let (path, realize) = self.resolve_block(primitive, block)?;
        let body = self.body(primitive)?;
        let scope = enclosing_block_path(&body, &path).unwrap_or_default();
        let mut names = Vec::new();
        for other in scope_blocks(&body, &scope) {
            if other.block.name == realize.block.name {
                continue;
            }
            let linked = if producers {
                other
                    .block
                    .writes
                    .iter()
                    .any(|w| realize.block.reads.iter().any(|r| r.buffer == w.buffer))
            } else {
                other
                    .block
                    .reads
                    .iter()
                    .any(|r| realize.block.writes.iter().any(|w| w.buffer == r.buffer))
            };
            if linked {
                names.push(other.block.name.clone());
            }
        }
        Ok(names.iter().map(|n| self.new_block_rv(n)).collect())
    }
}

/// The loops on the path to `path` below the nearest enclosing block,
/// outermost first, with their paths.
pub(crate) fn enclosing_loops(body: &Stmt, path: &StmtPath) -> Vec<(StmtPath, For)> {
    let chain = tree::chain(body, path);
    let mut out = Vec::new();
    // chain[k] is at path prefix of length k; the last element is the block itself.
    for (depth, s) in chain.iter().enumerate().take(chain.len().saturating_sub(1)) {
        match s.kind() {
            StmtKind::For(f) => out.push((StmtPath(path.0[..depth].to_vec()), f.clone())),
            StmtKind::BlockRealize(_) => out.clear(),
            _ => {}
        }
    }
    out
}

/// The path of the nearest block strictly above `path`.
pub(crate) fn enclosing_block_path(body: &Stmt, path: &StmtPath) -> Option<StmtPath> {
    let chain = tree::chain(body, path);
    (0..chain.len().saturating_sub(1))
        .rev()
        .find(|&d| matches!(chain[d].kind(), StmtKind::BlockRealize(_)))
        .map(|d| StmtPath(path.0[..d].to_vec()))
}

/// Names of the blocks directly under the statement at `root` (pre-order),
/// not looking inside those blocks.
pub(crate) fn child_block_names(body: &Stmt, root: &StmtPath) -> Vec<String> {
    scope_blocks(body, root)
        .into_iter()
        .map(|r| r.block.name)
        .collect()
}

/// The block realizes directly under the statement at `root`.
pub(crate) fn scope_blocks(body: &Stmt, root: &StmtPath) -> Vec<BlockRealize> {
    fn go(s: &Stmt, out: &mut Vec<BlockRealize>) {
        match s.kind() {
            StmtKind::BlockRealize(r) => out.push(r.clone()),
            _ => {
                for c in tree::children(s) {
                    go(&c, out);
                }
            }
        }
    }
    let Some(start) = tree::get(body, root) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    match start.kind() {
        // Looking under a block: its body, not the block itself.
        StmtKind::BlockRealize(r) => go(&r.block.body, &mut out),
        _ => {
            for c in tree::children(&start) {
                go(&c, &mut out);
            }
        }
    }
    out
}
