//! The trace: every primitive a schedule applied, with its arguments and
//! sampling decisions, printable as the Python function TVM prints
//! (`def apply_trace(sch): …`) and replayable on the original module.

use std::fmt::Write as _;

/// A random variable produced by the schedule: a block, a loop or a sampled
/// integer. The number is its position in the schedule's symbol table and
/// gives its printed name (`b0`, `l1`, `v4`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rv {
    Block(u32),
    Loop(u32),
    Expr(u32),
}

impl Rv {
    pub fn index(self) -> u32 {
        match self {
            Rv::Block(i) | Rv::Loop(i) | Rv::Expr(i) => i,
        }
    }
    /// The trace's name for this variable.
    pub fn name(self) -> String {
        match self {
            Rv::Block(i) => format!("b{i}"),
            Rv::Loop(i) => format!("l{i}"),
            Rv::Expr(i) => format!("v{i}"),
        }
    }
}

/// An argument of a recorded instruction.
#[derive(Clone, Debug, PartialEq)]
pub enum TraceArg {
    Rv(Rv),
    Int(i64),
    Float(f64),
    Bool(bool),
    Str(String),
    None,
    List(Vec<TraceArg>),
    /// Python source kept verbatim (an index-map lambda, a tensor intrinsic name).
    Source(String),
}

impl TraceArg {
    fn python(&self, out: &mut String) {
        match self {
            TraceArg::Rv(rv) => out.push_str(&rv.name()),
            TraceArg::Int(v) => {
                let _ = write!(out, "{v}");
            }
            TraceArg::Float(v) => {
                let _ = write!(out, "{v:?}");
            }
            TraceArg::Bool(b) => out.push_str(if *b { "True" } else { "False" }),
            TraceArg::Str(s) => {
                out.push('"');
                for c in s.chars() {
                    match c {
                        '"' => out.push_str("\\\""),
                        '\\' => out.push_str("\\\\"),
                        '\n' => out.push_str("\\n"),
                        c => out.push(c),
                    }
                }
                out.push('"');
            }
            TraceArg::None => out.push_str("None"),
            TraceArg::List(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    item.python(out);
                }
                out.push(']');
            }
            TraceArg::Source(s) => out.push_str(s),
        }
    }
}

/// The primitives whose result is a list of variables.
const LIST_OUTPUTS: &[&str] = &[
    "get_loops",
    "get_child_blocks",
    "get_producers",
    "get_consumers",
    "get_output_blocks",
    "sample_perfect_tile",
    "split",
];

/// One recorded primitive call.
#[derive(Clone, Debug, PartialEq)]
pub struct Instruction {
    /// The Python method name (`split`, `get_block`…).
    pub name: String,
    /// Keyword arguments in TVM's order; positional-only ones use an empty key.
    pub args: Vec<(String, TraceArg)>,
    pub outputs: Vec<Rv>,
    /// A sampling instruction's decision (the sampled values).
    pub decision: Option<Vec<i64>>,
}

impl Instruction {
    pub fn new(name: &str) -> Instruction {
        Instruction {
            name: name.to_string(),
            args: Vec::new(),
            outputs: Vec::new(),
            decision: None,
        }
    }
    pub fn arg(mut self, key: &str, value: TraceArg) -> Instruction {
        self.args.push((key.to_string(), value));
        self
    }
    pub fn outputs(mut self, outputs: Vec<Rv>) -> Instruction {
        self.outputs = outputs;
        self
    }
    pub fn get(&self, key: &str) -> Option<&TraceArg> {
        self.args.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// `l6, l7 = sch.split(loop=l2, factors=[v4, v5], …)`.
    pub fn python(&self) -> String {
        let mut out = String::new();
        if !self.outputs.is_empty() {
            let names: Vec<String> = self.outputs.iter().map(|r| r.name()).collect();
            out.push_str(&names.join(", "));
            // Primitives returning a list print a single output as `x,` (TVM's `OutputList`).
            if self.outputs.len() == 1 && LIST_OUTPUTS.contains(&self.name.as_str()) {
                out.push(',');
            }
            out.push_str(" = ");
        }
        out.push_str("sch.");
        out.push_str(&self.name);
        out.push('(');
        let mut first = true;
        for (k, v) in &self.args {
            if !first {
                out.push_str(", ");
            }
            first = false;
            if !k.is_empty() {
                out.push_str(k);
                out.push('=');
            }
            v.python(&mut out);
        }
        if let Some(d) = &self.decision {
            if !first {
                out.push_str(", ");
            }
            out.push_str("decision=");
            if d.len() == 1 && self.name != "sample_perfect_tile" {
                let _ = write!(out, "{}", d[0]);
            } else {
                TraceArg::List(d.iter().map(|v| TraceArg::Int(*v)).collect()).python(&mut out);
            }
        }
        out.push(')');
        out
    }
}

/// The API generation a trace prints in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum TraceDialect {
    /// `tvm.tir.Schedule`, `get_block` (the course book).
    #[default]
    Tir,
    /// `tvm.s_tir.Schedule`, `get_sblock` (TVM 0.27).
    STir,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Trace {
    pub instructions: Vec<Instruction>,
}

impl Trace {
    pub fn push(&mut self, inst: Instruction) {
        self.instructions.push(inst);
    }

    /// The trace as TVM prints it.
    pub fn python(&self, dialect: TraceDialect) -> String {
        let (module, get_block) = match dialect {
            TraceDialect::Tir => ("tir", "get_block"),
            TraceDialect::STir => ("s_tir", "get_sblock"),
        };
        let mut out = format!(
            "# from tvm import {module}\ndef apply_trace(sch: {module}.Schedule) -> None:\n"
        );
        if self.instructions.is_empty() {
            out.push_str("  pass\n");
        }
        for inst in &self.instructions {
            let mut line = inst.python();
            if inst.name == "get_block" {
                line = line.replacen("sch.get_block(", &format!("sch.{get_block}("), 1);
            }
            out.push_str("  ");
            out.push_str(&line);
            out.push('\n');
        }
        out
    }
}
