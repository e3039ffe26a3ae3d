//! The trace: every primitive a schedule applied, with its arguments and
//! sampling decisions, printable as the Python function TVM prints
//! (`def apply_trace(sch): …`) and replayable on the original module.

use std::fmt::Write as _;

use super::json::Json;
use super::primitives::{self, Enc, InTrace, Primitive, Returns};

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

    /// The declaration of the primitive this instruction calls.
    fn primitive(&self) -> Option<&'static Primitive> {
        primitives::by_method(&self.name)
    }

    /// Whether the decision is written as a list even with one value.
    pub fn decision_is_list(&self) -> bool {
        self.primitive().is_some_and(|p| p.decision_is_list())
    }

    /// `l6, l7 = sch.split(loop=l2, factors=[v4, v5], …)`.
    pub fn python(&self) -> String {
        let mut out = String::new();
        if !self.outputs.is_empty() {
            // A tile factor left to infer (decision -1) prints as `_`, as in TVM.
            let absent = |k: usize| {
                self.name == "sample_perfect_tile"
                    && self.decision.as_ref().and_then(|d| d.get(k)) == Some(&-1)
            };
            let names: Vec<String> = self
                .outputs
                .iter()
                .enumerate()
                .map(|(k, r)| if absent(k) { "_".to_string() } else { r.name() })
                .collect();
            out.push_str(&names.join(", "));
            // Primitives returning a list print a single output as `x,` (TVM's `OutputList`).
            if self.outputs.len() == 1
                && self.primitive().is_some_and(|p| p.returns == Returns::List)
            {
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
            if d.len() == 1 && !self.decision_is_list() {
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

// ----- JSON (TVM's `Trace.as_json()` shape) -------------------------------------------

fn arg_to_json(a: &TraceArg, enc: Enc) -> Json {
    match a {
        TraceArg::Rv(r) => Json::Str(r.name()),
        TraceArg::Int(v) => Json::Int(*v),
        TraceArg::Float(v) => Json::Float(*v),
        TraceArg::Bool(b) if enc == Enc::BoolAsInt => Json::Int(*b as i64),
        TraceArg::Bool(b) => Json::Bool(*b),
        TraceArg::Str(s) | TraceArg::Source(s) => Json::Str(s.clone()),
        TraceArg::None => Json::Str("None".into()),
        TraceArg::List(v) => Json::Array(v.iter().map(|x| arg_to_json(x, enc)).collect()),
    }
}

/// `("read", 0)` as `(index, kind)`, kind `0` for read and `1` for write.
fn index_and_kind(a: &TraceArg) -> Option<(i64, i64)> {
    let TraceArg::Source(s) = a else { return None };
    let inner = s.trim().strip_prefix('(')?.strip_suffix(')')?;
    let (k, i) = inner.split_once(',')?;
    let kind = match k.trim().trim_matches('"') {
        "read" => 0,
        "write" => 1,
        _ => return None,
    };
    Some((i.trim().parse().ok()?, kind))
}

/// `b0`, `l1`, `v4` back to variables.
fn parse_rv(s: &str) -> Option<Rv> {
    let mut chars = s.chars();
    let kind = chars.next()?;
    let rest = chars.as_str();
    if rest.is_empty() || !rest.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let n: u32 = rest.parse().ok()?;
    match kind {
        'b' => Some(Rv::Block(n)),
        'l' => Some(Rv::Loop(n)),
        'v' => Some(Rv::Expr(n)),
        _ => None,
    }
}

fn json_to_input(j: &Json, depth: usize) -> Result<TraceArg, String> {
    if depth > super::json::MAX_DEPTH {
        return Err("nested too deeply".into());
    }
    Ok(match j {
        Json::Null => TraceArg::None,
        Json::Str(s) if s == "None" => TraceArg::None,
        Json::Str(s) => parse_rv(s)
            .map(TraceArg::Rv)
            .unwrap_or_else(|| TraceArg::Str(s.clone())),
        Json::Bool(b) => TraceArg::Bool(*b),
        Json::Int(v) => TraceArg::Int(*v),
        Json::Float(v) => TraceArg::Float(*v),
        Json::Array(v) => TraceArg::List(
            v.iter()
                .map(|x| json_to_input(x, depth + 1))
                .collect::<Result<_, _>>()?,
        ),
        Json::Object(_) => return Err("an object is not an instruction argument".into()),
    })
}

fn json_to_attr(j: &Json, enc: Enc, depth: usize) -> Result<TraceArg, String> {
    if depth > super::json::MAX_DEPTH {
        return Err("nested too deeply".into());
    }
    Ok(match j {
        Json::Null => TraceArg::None,
        Json::Str(s) => TraceArg::Str(s.clone()),
        Json::Bool(b) => TraceArg::Bool(*b),
        Json::Int(v) if enc == Enc::BoolAsInt => TraceArg::Bool(*v != 0),
        Json::Int(v) => TraceArg::Int(*v),
        Json::Float(v) => TraceArg::Float(*v),
        Json::Array(v) => TraceArg::List(
            v.iter()
                .map(|x| json_to_attr(x, enc, depth + 1))
                .collect::<Result<_, _>>()?,
        ),
        Json::Object(_) => return Err("an object is not an instruction attribute".into()),
    })
}

/// `SamplePerfectTile` → `sample_perfect_tile`, for kinds Tessel does not know.
fn snake_case(kind: &str) -> String {
    let mut out = String::new();
    for (i, c) in kind.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

fn camel_case(method: &str) -> String {
    method
        .split('_')
        .map(|w| {
            let mut c = w.chars();
            match c.next() {
                Some(f) => f.to_ascii_uppercase().to_string() + c.as_str(),
                None => String::new(),
            }
        })
        .collect()
}

impl Instruction {
    /// `[kind, inputs, attrs, outputs]`.
    fn to_json(&self) -> Json {
        let outputs = Json::Array(self.outputs.iter().map(|r| Json::Str(r.name())).collect());
        let Some(prim) = self.primitive() else {
            // Unknown to the table: variables are inputs, the rest attributes.
            let (mut inputs, mut attrs) = (Vec::new(), Vec::new());
            for (_, v) in &self.args {
                match v {
                    TraceArg::Rv(_) => inputs.push(arg_to_json(v, Enc::Plain)),
                    _ => attrs.push(arg_to_json(v, Enc::Plain)),
                }
            }
            return Json::Array(vec![
                Json::Str(camel_case(&self.name)),
                Json::Array(inputs),
                Json::Array(attrs),
                outputs,
            ]);
        };
        let (mut inputs, mut attrs) = (Vec::new(), Vec::new());
        for p in prim.params {
            let given = self.get(p.name);
            match p.in_trace {
                InTrace::Input => inputs.push(
                    given
                        .map(|v| arg_to_json(v, Enc::Plain))
                        .unwrap_or(Json::Str("None".into())),
                ),
                InTrace::PositionalInput => inputs.extend(
                    self.args
                        .iter()
                        .filter(|(k, _)| k.is_empty())
                        .map(|(_, v)| arg_to_json(v, Enc::Plain)),
                ),
                InTrace::SpreadInput => {
                    if let Some(TraceArg::List(items)) = given {
                        inputs.extend(items.iter().map(|x| arg_to_json(x, Enc::Plain)));
                    }
                }
                InTrace::ListInput => inputs.push(
                    given
                        .map(|v| arg_to_json(v, Enc::Plain))
                        .unwrap_or(Json::Array(vec![])),
                ),
                InTrace::Attr(Enc::IndexAndKind) => {
                    let (index, kind) = given.and_then(index_and_kind).unwrap_or((0, 0));
                    attrs.push(Json::Int(index));
                    attrs.push(Json::Int(kind));
                }
                InTrace::Attr(enc) => {
                    attrs.push(given.map(|v| arg_to_json(v, enc)).unwrap_or(Json::Null))
                }
                InTrace::Decision | InTrace::NotRecorded => {}
            }
        }
        Json::Array(vec![
            Json::Str(prim.kind.into()),
            Json::Array(inputs),
            Json::Array(attrs),
            outputs,
        ])
    }

    fn from_json(j: &Json) -> Result<Instruction, String> {
        let parts = j.as_array().ok_or("an instruction is a list")?;
        let [kind, inputs, attrs, outputs] = parts else {
            return Err("an instruction is [kind, inputs, attrs, outputs]".into());
        };
        let kind = kind.as_str().ok_or("the instruction kind is a string")?;
        let inputs = inputs.as_array().ok_or("inputs are a list")?;
        let attrs = attrs.as_array().ok_or("attributes are a list")?;
        let outputs = outputs
            .as_array()
            .ok_or("outputs are a list")?
            .iter()
            .map(|o| {
                o.as_str()
                    .and_then(parse_rv)
                    .ok_or_else(|| format!("output {} is not a variable name", o.dump()))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let mut inst = Instruction::new(kind).outputs(outputs);
        let Some(prim) = primitives::by_kind(kind) else {
            inst.name = snake_case(kind);
            for x in inputs {
                inst.args.push((String::new(), json_to_input(x, 0)?));
            }
            for x in attrs {
                inst.args
                    .push((String::new(), json_to_attr(x, Enc::Plain, 0)?));
            }
            return Ok(inst);
        };
        inst.name = prim.method.to_string();
        let mut rest = inputs.iter();
        let attr_params: Vec<(&str, Enc)> = prim
            .params
            .iter()
            .filter_map(|p| match p.in_trace {
                InTrace::Attr(enc) => Some((p.name, enc)),
                _ => None,
            })
            .collect();
        for p in prim.params {
            match p.in_trace {
                InTrace::PositionalInput => {
                    for x in rest.by_ref() {
                        inst.args.push((String::new(), json_to_input(x, 0)?));
                    }
                }
                InTrace::SpreadInput => {
                    let items = rest
                        .by_ref()
                        .map(|x| json_to_input(x, 0))
                        .collect::<Result<Vec<_>, _>>()?;
                    inst.args.push((p.name.to_string(), TraceArg::List(items)));
                }
                InTrace::Input | InTrace::ListInput => {
                    let Some(x) = rest.next() else {
                        return Err(format!("{kind}: missing input `{}`", p.name));
                    };
                    let v = json_to_input(x, 0)?;
                    // An empty list input is how TVM writes "not given".
                    if p.in_trace == InTrace::ListInput && v == TraceArg::List(vec![]) {
                        continue;
                    }
                    inst.args.push((p.name.to_string(), v));
                }
                InTrace::Attr(_) | InTrace::Decision | InTrace::NotRecorded => {}
            }
        }
        if rest.next().is_some() {
            return Err(format!("{kind}: too many inputs"));
        }
        let width = |enc: Enc| if enc == Enc::IndexAndKind { 2 } else { 1 };
        let expected: usize = attr_params.iter().map(|(_, enc)| width(*enc)).sum();
        if attrs.len() != expected {
            return Err(format!(
                "{kind}: expected {expected} attributes, got {}",
                attrs.len()
            ));
        }
        let mut attrs = attrs.iter();
        for (name, enc) in attr_params {
            if enc == Enc::IndexAndKind {
                let (Some(index), Some(k)) = (
                    attrs.next().and_then(Json::as_i64),
                    attrs.next().and_then(Json::as_i64),
                ) else {
                    return Err(format!(
                        "{kind}: `{name}` is an index and a kind (integers)"
                    ));
                };
                let k = match k {
                    0 => "read",
                    1 => "write",
                    _ => {
                        return Err(format!(
                            "{kind}: buffer kind {k} is neither 0 (read) nor 1 (write)"
                        ))
                    }
                };
                inst.args.push((
                    name.to_string(),
                    TraceArg::Source(format!("(\"{k}\", {index})")),
                ));
                continue;
            }
            let Some(x) = attrs.next() else { break };
            if *x == Json::Null {
                continue;
            }
            inst.args.push((name.to_string(), json_to_attr(x, enc, 0)?));
        }
        Ok(inst)
    }
}

impl Trace {
    /// The trace as TVM's `trace.as_json()`: `[instructions, decisions]`,
    /// each instruction `[kind, inputs, attrs, outputs]` (variables by name,
    /// an omitted factor as `"None"`), each decision `[index, value]`.
    pub fn to_json(&self) -> Json {
        let insts = self.instructions.iter().map(Instruction::to_json).collect();
        let decisions = self
            .instructions
            .iter()
            .enumerate()
            .filter_map(|(i, inst)| {
                let d = inst.decision.as_ref()?;
                let value = if inst.decision_is_list() || d.len() != 1 {
                    Json::Array(d.iter().map(|v| Json::Int(*v)).collect())
                } else {
                    Json::Int(d[0])
                };
                Some(Json::Array(vec![Json::Int(i as i64), value]))
            })
            .collect();
        Json::Array(vec![Json::Array(insts), Json::Array(decisions)])
    }

    /// [`Trace::to_json`] as text (spaced like Python's `json.dumps`).
    pub fn to_json_string(&self) -> String {
        self.to_json().dump()
    }

    /// Reads TVM's JSON form of a trace (what [`Trace::to_json`] writes, or
    /// TVM's `as_json()`); replay the result with [`super::Schedule::replay`].
    pub fn from_json(j: &Json) -> Result<Trace, String> {
        let top = j.as_array().ok_or("a trace is a list")?;
        let (insts, decisions) = match top {
            [i] => (i, None),
            [i, d] => (i, Some(d)),
            _ => return Err("a trace is [instructions, decisions]".into()),
        };
        let mut instructions = insts
            .as_array()
            .ok_or("the instructions are a list")?
            .iter()
            .enumerate()
            .map(|(i, x)| Instruction::from_json(x).map_err(|e| format!("instruction {i}: {e}")))
            .collect::<Result<Vec<_>, _>>()?;
        if let Some(d) = decisions {
            for entry in d.as_array().ok_or("the decisions are a list")? {
                let pair = entry.as_array().ok_or("a decision is [index, value]")?;
                let [index, value] = pair else {
                    return Err("a decision is [index, value]".into());
                };
                let index = index
                    .as_i64()
                    .and_then(|i| usize::try_from(i).ok())
                    .filter(|i| *i < instructions.len())
                    .ok_or("a decision names no instruction")?;
                let values = match value {
                    Json::Array(v) => v
                        .iter()
                        .map(|x| x.as_i64().ok_or("a decision holds integers"))
                        .collect::<Result<Vec<_>, _>>()?,
                    x => vec![x.as_i64().ok_or("a decision holds integers")?],
                };
                instructions[index].decision = Some(values);
            }
        }
        Ok(Trace { instructions })
    }

    /// [`Trace::from_json`] from text.
    pub fn from_json_str(text: &str) -> Result<Trace, String> {
        Trace::from_json(&Json::parse(text)?)
    }
}
