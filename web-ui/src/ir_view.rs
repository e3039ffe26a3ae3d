//! The printed IR, split into highlighted lines whose loop and block names
//! are clickable, and what the UI needs to turn a click into schedule code.

use std::collections::HashMap;

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
    if multi_func {
        format!("sch.get_block(\"{name}\", func_name=\"{func}\")")
    } else {
        format!("sch.get_block(\"{name}\")")
    }
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

    pub fn block_ref(&self, name: &str) -> String {
        get_block(name, &self.func, self.multi_func)
    }
}

/// Thread axes offered by `bind`.
pub const THREAD_AXES: &[&str] = &[
    "blockIdx.x",
    "blockIdx.y",
    "threadIdx.x",
    "threadIdx.y",
    "threadIdx.z",
    "vthread.x",
];

/// The code a loop primitive appends. `arg` is the primitive's free-form
/// argument (split factors, reorder list, thread axis, block name…).
pub fn loop_primitive(c: &LoopCtx, prim: &str, arg: &str) -> Option<Edit> {
    let l = &c.name;
    let call = match prim {
        "split" => {
            let n = arg
                .split(',')
                .filter(|s| !s.trim().is_empty())
                .count()
                .max(1);
            let outs: Vec<String> = (0..n).map(|k| format!("{l}_{k}")).collect();
            format!(
                "{} = sch.split({l}, factors=[{}])",
                outs.join(", "),
                arg.trim()
            )
        }
        "fuse" => {
            let next = c.names.get(c.pos + 1)?;
            format!("{l}_{next}_fused = sch.fuse({l}, {next})")
        }
        "reorder" => format!("sch.reorder({})", arg.trim()),
        "parallel" | "vectorize" | "unroll" | "blockize" => format!("sch.{prim}({l})"),
        "bind" => format!("sch.bind({l}, \"{}\")", arg.trim()),
        "compute_at" | "reverse_compute_at" => {
            format!("sch.{prim}({}, {l})", c.block_ref(arg.trim()))
        }
        "decompose_reduction" => format!(
            "{}_init = sch.decompose_reduction({}, {l})",
            c.block,
            c.block_ref(&c.block)
        ),
        "rfactor" => format!(
            "{}_rf = sch.rfactor({l}, factor_axis={})",
            c.block,
            arg.trim()
        ),
        _ => return None,
    };
    Some(Edit {
        lines: vec![
            format!("# {prim} on loop {l} (block \"{}\")", c.block),
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
    let b = get_block(block, func, multi_func);
    let call = match prim {
        "compute_inline" | "reverse_compute_inline" => format!("sch.{prim}({b})"),
        "cache_read" | "cache_write" => {
            let (index, scope) = arg.split_once(',').unwrap_or(("0", "local"));
            format!(
                "{block}_{} = sch.{prim}({b}, {}, \"{}\")",
                scope.trim().replace('.', "_"),
                index.trim(),
                scope.trim()
            )
        }
        _ => return None,
    };
    Some(Edit {
        lines: vec![format!("# {prim} on block \"{block}\""), call],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

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
