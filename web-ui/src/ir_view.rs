//! The printed IR, split into highlighted lines whose loop and block names
//! are clickable, and what the UI needs to turn a click into schedule code.

use std::collections::HashMap;

#[cfg(test)]
use compiler_core::schedule::menu::MenuArg;
use compiler_core::schedule::menu::{self, MenuSite, MenuTarget};
use compiler_core::schedule::primitives;

use crate::protocol::{FuncNest, IrTarget, Step};

use crate::highlight;

/// A loop or block picked in the IR view or the loop-nest picture.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Selection {
    /// `index`: pre-order position among the function's loops.
    Loop {
        func: String,
        index: usize,
        name: String,
    },
    Block {
        func: String,
        name: String,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub struct Tok {
    pub class: &'static str,
    pub text: String,
    pub target: Option<Selection>,
}

#[derive(Clone, Debug, PartialEq, Default)]
pub struct IrText {
    pub lines: Vec<Vec<Tok>>,
    /// Printed loop names per function, in pre-order (the nests' order).
    pub loop_names: HashMap<String, Vec<String>>,
    /// Line of each selectable thing (for scrolling to it).
    pub line_of: Vec<(Selection, usize)>,
}

/// Highlights a step's printed IR and makes its loops and blocks
/// clickable where the printer located them (`Step::targets`): the text is
/// only highlighted, never searched for loops.
pub fn analyze(step: &Step) -> IrText {
    let mut out = IrText::default();
    for nest in &step.nests {
        out.loop_names.entry(nest.func.clone()).or_default();
    }
    let mut on_line: HashMap<usize, Vec<&IrTarget>> = HashMap::new();
    for t in &step.targets {
        on_line.entry(t.line).or_default().push(t);
        if t.kind == "loop" {
            let names = out.loop_names.entry(t.func.clone()).or_default();
            if names.len() <= t.index {
                names.resize(t.index + 1, String::new());
            }
            names[t.index] = t.name.clone();
        }
    }
    for (n, line) in step.ir.lines().enumerate() {
        let mut toks: Vec<Tok> = highlight::tokens(line)
            .into_iter()
            .map(|(class, text)| Tok {
                class,
                text,
                target: None,
            })
            .collect();
        for t in on_line.get(&n).into_iter().flatten() {
            let sel = match t.kind.as_str() {
                "loop" => Selection::Loop {
                    func: t.func.clone(),
                    index: t.index,
                    name: t.name.clone(),
                },
                _ => Selection::Block {
                    func: t.func.clone(),
                    name: t.name.clone(),
                },
            };
            let marked = match t.columns {
                Some((from, to)) => mark_columns(&mut toks, from, to, &sel),
                // A block's name is the string in its `with T.block(…)` line.
                None => match toks.iter_mut().find(|k| k.class == "tok-str") {
                    Some(k) => {
                        k.target = Some(sel.clone());
                        true
                    }
                    None => false,
                },
            };
            if marked {
                out.line_of.push((sel, n));
            }
        }
        out.lines.push(toks);
    }
    out
}

/// Makes characters `from..to` of a line one token targeting `sel`,
/// splitting the highlighter's tokens where they straddle the range.
fn mark_columns(toks: &mut Vec<Tok>, from: usize, to: usize, sel: &Selection) -> bool {
    let mut res = Vec::with_capacity(toks.len() + 2);
    let mut pos = 0;
    let mut marked = false;
    for t in toks.drain(..) {
        let len = t.text.chars().count();
        let (start, end) = (pos, pos + len);
        pos = end;
        if end <= from || start >= to || t.target.is_some() {
            res.push(t);
            continue;
        }
        let chars: Vec<char> = t.text.chars().collect();
        let (a, b) = (from.max(start) - start, to.min(end) - start);
        let piece = |range: std::ops::Range<usize>, target: Option<Selection>| Tok {
            class: t.class,
            text: chars[range].iter().collect(),
            target,
        };
        if a > 0 {
            res.push(piece(0..a, None));
        }
        res.push(piece(a..b, Some(sel.clone())));
        marked = true;
        if b < len {
            res.push(piece(b..len, None));
        }
    }
    *toks = res;
    marked
}

/// A `# --- schedule ---` section to append to, and lines to put there.
pub struct Edit {
    pub lines: Vec<String>,
}

/// Everything needed to write schedule code for a loop.
#[derive(Clone, Debug, PartialEq)]
pub struct LoopCtx {
    pub func: String,
    pub name: String,
    /// The block whose `get_loops` reaches this loop.
    pub block: String,
    /// Printed names of that block's loops (outer first) and our position.
    pub names: Vec<String>,
    pub pos: usize,
    pub reduction: bool,
    pub extent: Option<i64>,
    /// All blocks of the function (for compute_at and friends).
    pub all_blocks: Vec<String>,
    pub multi_func: bool,
}

pub fn loop_ctx(step: &Step, text: &IrText, func: &str, index: usize) -> Option<LoopCtx> {
    let nest: &FuncNest = step.nests.iter().find(|n| n.func == func)?;
    let info = nest.loops.get(index)?;
    let printed = text.loop_names.get(func)?;
    let block = nest
        .blocks
        .iter()
        .find(|b| info.blocks.contains(&b.name) && b.loops.contains(&index))?;
    let names: Vec<String> = block
        .loops
        .iter()
        .map(|&i| printed.get(i).cloned().unwrap_or_else(|| format!("l{i}")))
        .collect();
    let pos = block.loops.iter().position(|&i| i == index)?;
    Some(LoopCtx {
        func: func.to_string(),
        name: names[pos].clone(),
        block: block.name.clone(),
        names,
        pos,
        reduction: block.reduction,
        extent: info.extent,
        all_blocks: nest.blocks.iter().map(|b| b.name.clone()).collect(),
        multi_func: step.nests.len() > 1,
    })
}

/// `sch.get_block("Y")` (with `func_name` when the module has several functions).
pub fn get_block(name: &str, func: &str, multi_func: bool) -> String {
    menu::get_block_call(name, func, multi_func)
}

impl LoopCtx {
    /// `i, j, k = sch.get_loops(sch.get_block("Y"))`.
    pub fn loops_line(&self) -> String {
        let lhs = if self.names.len() == 1 {
            format!("({},)", self.names[0])
        } else {
            self.names.join(", ")
        };
        format!(
            "{lhs} = sch.get_loops({})",
            get_block(&self.block, &self.func, self.multi_func)
        )
    }

    /// The loop as the primitives' menu entries see it.
    pub fn menu_site(&self) -> MenuSite {
        MenuSite {
            func: self.func.clone(),
            multi_func: self.multi_func,
            block: self.block.clone(),
            all_blocks: self.all_blocks.clone(),
            loops: self.names.clone(),
            loop_pos: Some(self.pos),
            extent: self.extent,
            reduction: self.reduction,
        }
    }
}

/// A clicked block as the primitives' menu entries see it.
pub fn block_site(func: &str, block: &str, multi_func: bool) -> MenuSite {
    MenuSite {
        func: func.to_string(),
        multi_func,
        block: block.to_string(),
        ..MenuSite::default()
    }
}

/// The call a menu entry writes, if `prim` is offered on `target` there.
fn menu_call(prim: &str, target: MenuTarget, site: &MenuSite, arg: &str) -> Option<String> {
    let entry = primitives::menu_entry(prim)?;
    if entry.target != target {
        return None;
    }
    (entry.call)(site, arg)
}

/// The code a loop primitive appends. `arg` is the primitive's free-form
/// argument (split factors, reorder list, thread axis, block name…).
pub fn loop_primitive(c: &LoopCtx, prim: &str, arg: &str) -> Option<Edit> {
    let call = menu_call(prim, MenuTarget::Loop, &c.menu_site(), arg)?;
    Some(Edit {
        lines: vec![
            format!("# {prim} on loop {} (block \"{}\")", c.name, c.block),
            c.loops_line(),
            call,
        ],
    })
}

/// The code a block primitive appends.
pub fn block_primitive(
    func: &str,
    block: &str,
    multi_func: bool,
    prim: &str,
    arg: &str,
) -> Option<Edit> {
    let site = block_site(func, block, multi_func);
    let call = menu_call(prim, MenuTarget::Block, &site, arg)?;
    Some(Edit {
        lines: vec![format!("# {prim} on block \"{block}\""), call],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx(reduction: bool) -> LoopCtx {
        LoopCtx {
            func: "main".into(),
            name: "j".into(),
            block: "C".into(),
            names: vec!["i".into(), "j".into(), "k".into()],
            pos: 1,
            reduction,
            extent: Some(128),
            all_blocks: vec!["B".into(), "C".into()],
            multi_func: false,
        }
    }

    #[test]
    fn loop_menu_writes_the_calls() {
        let c = ctx(true);
        let call = |prim: &str, arg: &str| loop_primitive(&c, prim, arg).unwrap().lines[2].clone();
        assert_eq!(
            loop_primitive(&c, "split", "None, 4").unwrap().lines,
            vec![
                "# split on loop j (block \"C\")",
                "i, j, k = sch.get_loops(sch.get_block(\"C\"))",
                "j_0, j_1 = sch.split(j, factors=[None, 4])",
            ]
        );
        assert_eq!(call("fuse", ""), "j_k_fused = sch.fuse(j, k)");
        assert_eq!(call("reorder", " k, j "), "sch.reorder(k, j)");
        assert_eq!(call("vectorize", ""), "sch.vectorize(j)");
        assert_eq!(call("bind", "threadIdx.x"), "sch.bind(j, \"threadIdx.x\")");
        assert_eq!(
            call("compute_at", "B"),
            "sch.compute_at(sch.get_block(\"B\"), j)"
        );
        assert_eq!(
            call("decompose_reduction", ""),
            "C_init = sch.decompose_reduction(sch.get_block(\"C\"), j)"
        );
        assert_eq!(call("rfactor", "0"), "C_rf = sch.rfactor(j, factor_axis=0)");
        // Block primitives are not offered on loops, nor unknown names.
        assert!(loop_primitive(&c, "compute_inline", "").is_none());
        assert!(loop_primitive(&c, "nope", "").is_none());
    }

    #[test]
    fn loop_menu_follows_the_site() {
        let site = ctx(false).menu_site();
        let offered: Vec<&str> = primitives::menu_entries(MenuTarget::Loop)
            .filter(|(_, e)| e.offered(&site))
            .map(|(m, _)| m)
            .collect();
        assert_eq!(
            offered,
            [
                "split",
                "reorder",
                "fuse",
                "reverse_compute_at",
                "compute_at",
                "parallel",
                "vectorize",
                "unroll",
                "bind",
                "blockize"
            ]
        );
        let split = primitives::menu_entry("split").unwrap();
        let MenuArg::Text { default, .. } = split.arg else {
            panic!("split takes text")
        };
        assert_eq!(default(&site), "None, 4");
    }

    #[test]
    fn block_menu_writes_the_calls() {
        let edit = block_primitive("f", "B", true, "cache_read", "1, shared.dyn").unwrap();
        assert_eq!(
            edit.lines,
            vec![
                "# cache_read on block \"B\"",
                "B_shared_dyn = sch.cache_read(sch.get_block(\"B\", func_name=\"f\"), 1, \"shared.dyn\")",
            ]
        );
        let inline = block_primitive("f", "B", false, "compute_inline", "").unwrap();
        assert_eq!(inline.lines[1], "sch.compute_inline(sch.get_block(\"B\"))");
        assert!(block_primitive("f", "B", false, "split", "").is_none());
    }

    #[test]
    fn the_printers_targets_make_loops_and_blocks_clickable() {
        let src = "from tvm.script import tir as T\n\n@T.prim_func\ndef f(A: T.Buffer((4, 4), \"float32\")):\n    for i, j in T.grid(2, 2):\n        for k in T.parallel(4):\n            with T.block(\"Y\"):\n                vi, vj, vk = T.axis.remap(\"SSS\", [i, j, k])\n                A[vi * 2 + vj, vk] = T.float32(0)\n";
        let out = crate::engine::compile(&crate::engine::live(src));
        let step = &out.steps[0];
        let t = analyze(step);
        assert_eq!(t.loop_names["f"], vec!["i", "j", "k"]);
        let targets: Vec<(String, Selection)> = t
            .lines
            .iter()
            .flatten()
            .filter_map(|t| Some((t.text.clone(), t.target.clone()?)))
            .collect();
        let names: Vec<&str> = targets.iter().map(|(text, _)| text.as_str()).collect();
        assert_eq!(names, ["i", "j", "k", "\"Y\""]);
        assert_eq!(
            targets[2].1,
            Selection::Loop {
                func: "f".into(),
                index: 2,
                name: "k".into()
            }
        );
        assert_eq!(
            targets[3].1,
            Selection::Block {
                func: "f".into(),
                name: "Y".into()
            }
        );
        // Highlighting keeps every character of the text.
        let rebuilt: Vec<String> = t
            .lines
            .iter()
            .map(|l| l.iter().map(|t| t.text.as_str()).collect())
            .collect();
        assert_eq!(rebuilt.join("\n"), step.ir);
    }
}
