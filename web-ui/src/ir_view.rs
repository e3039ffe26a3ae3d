//! The printed IR, split into highlighted lines whose loop and block names
//! are clickable, and what the UI needs to turn a click into schedule code.

use std::collections::HashMap;

#[cfg(test)]
use compiler_core::schedule::menu::MenuArg;
use compiler_core::schedule::menu::{self, MenuSite, MenuTarget};
use compiler_core::schedule::primitives;

use crate::protocol::{FuncNest, Step};

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

/// Highlights `ir` and finds the loops and blocks in it.
pub fn analyze(ir: &str) -> IrText {
    let mut out = IrText::default();
    let mut func = String::new();
    for (n, line) in ir.lines().enumerate() {
        let trimmed = line.trim_start();
        if let Some(rest) = trimmed.strip_prefix("def ") {
            func = rest.split('(').next().unwrap_or("").trim().to_string();
            out.loop_names.entry(func.clone()).or_default();
        }
        let mut toks: Vec<Tok> = highlight::tokens(line)
            .into_iter()
            .map(|(class, text)| Tok {
                class,
                text,
                target: None,
            })
            .collect();
        if trimmed.starts_with("for ") {
            // Names between `for` and `in`.
            let mut inside = false;
            for t in toks.iter_mut() {
                if t.class == "tok-kw" && t.text == "for" {
                    inside = true;
                } else if t.class == "tok-kw" && t.text == "in" {
                    break;
                } else if inside && t.class.is_empty() && is_ident(&t.text) {
                    let names = out.loop_names.entry(func.clone()).or_default();
                    let sel = Selection::Loop {
                        func: func.clone(),
                        index: names.len(),
                        name: t.text.clone(),
                    };
                    names.push(t.text.clone());
                    out.line_of.push((sel.clone(), n));
                    t.target = Some(sel);
                }
            }
            // Identifiers are split from the separators already, except when
            // the highlighter merged `i, j` into one plain run: split those.
            if toks.iter().all(|t| t.target.is_none()) {
                toks = split_loop_names(toks, &func, &mut out, n);
            }
        } else if trimmed.starts_with("with T.block(") || trimmed.starts_with("with T.sblock(") {
            if let Some(t) = toks.iter_mut().find(|t| t.class == "tok-str") {
                let name = t.text.trim_matches('"').trim_matches('\'').to_string();
                let sel = Selection::Block {
                    func: func.clone(),
                    name,
                };
                out.line_of.push((sel.clone(), n));
                t.target = Some(sel);
            }
        }
        out.lines.push(toks);
    }
    out
}

fn is_ident(s: &str) -> bool {
    !s.is_empty()
        && s.chars().all(|c| c.is_alphanumeric() || c == '_')
        && !s.starts_with(|c: char| c.is_ascii_digit())
}

/// The highlighter merges plain text (`i, j`): split a `for` line's plain
/// runs into names and separators.
fn split_loop_names(toks: Vec<Tok>, func: &str, out: &mut IrText, line: usize) -> Vec<Tok> {
    let mut res = Vec::new();
    let mut inside = false;
    let mut done = false;
    for t in toks {
        if t.class == "tok-kw" && t.text == "for" && !done {
            inside = true;
            res.push(t);
            continue;
        }
        if t.class == "tok-kw" && t.text == "in" {
            inside = false;
            done = true;
        }
        if inside && t.class.is_empty() {
            let mut word = String::new();
            let flush = |word: &mut String, res: &mut Vec<Tok>, out: &mut IrText| {
                if word.is_empty() {
                    return;
                }
                let names = out.loop_names.entry(func.to_string()).or_default();
                let sel = Selection::Loop {
                    func: func.to_string(),
                    index: names.len(),
                    name: word.clone(),
                };
                names.push(word.clone());
                out.line_of.push((sel.clone(), line));
                res.push(Tok {
                    class: "",
                    text: std::mem::take(word),
                    target: Some(sel),
                });
            };
            for c in t.text.chars() {
                if c.is_alphanumeric() || c == '_' {
                    word.push(c);
                } else {
                    flush(&mut word, &mut res, out);
                    res.push(Tok {
                        class: "",
                        text: c.to_string(),
                        target: None,
                    });
                }
            }
            flush(&mut word, &mut res, out);
        } else {
            res.push(t);
        }
    }
    res
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
    fn finds_loops_and_blocks() {
        let ir = "    def f(A: T.Buffer((4,), \"float32\")):\n        for i, j in T.grid(2, 2):\n            for k in range(4):\n                with T.block(\"Y\"):\n";
        let t = analyze(ir);
        assert_eq!(t.loop_names["f"], vec!["i", "j", "k"]);
        let targets: Vec<_> = t
            .lines
            .iter()
            .flatten()
            .filter_map(|t| t.target.clone())
            .collect();
        assert_eq!(targets.len(), 4);
        assert_eq!(
            targets[3],
            Selection::Block {
                func: "f".into(),
                name: "Y".into()
            }
        );
    }
}
