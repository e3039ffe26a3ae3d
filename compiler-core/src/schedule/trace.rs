//! The trace: every primitive a schedule applied, with its arguments and
//! sampling decisions, printable as the Python function TVM prints
//! (`def apply_trace(sch): …`) and replayable on the original module.

use std::fmt::Write as _;

use super::json::Json;

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

// ----- JSON (TVM's `Trace.as_json()` shape) -------------------------------------------

/// How an attribute is written in TVM's JSON.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Enc {
    /// As recorded.
    Plain,
    /// A boolean TVM keeps as an `Integer` attribute (`1`/`0`).
    BoolAsInt,
}

/// One instruction kind: the Python method, TVM's kind name, the
/// parameters that are inputs (in order) and those that are attributes.
/// An input named `*` takes all positional arguments; `*name` a list
/// argument spread into the inputs; `name[]` a list kept as a list (empty
/// when not recorded).
struct KindSpec {
    method: &'static str,
    kind: &'static str,
    inputs: &'static [&'static str],
    attrs: &'static [(&'static str, Enc)],
}

const fn spec(
    method: &'static str,
    kind: &'static str,
    inputs: &'static [&'static str],
    attrs: &'static [(&'static str, Enc)],
) -> KindSpec {
    KindSpec {
        method,
        kind,
        inputs,
        attrs,
    }
}

use Enc::{BoolAsInt, Plain};

/// The instruction kinds, as TVM 0.27 registers them (`InstructionKind`
/// traits). `WorkOn` is Tessel's: TVM does not trace `work_on`.
const KINDS: &[KindSpec] = &[
    spec(
        "get_block",
        "GetSBlock",
        &[],
        &[("name", Plain), ("func_name", Plain)],
    ),
    spec("get_loops", "GetLoops", &["block"], &[]),
    spec("get_child_blocks", "GetChildBlocks", &["*"], &[]),
    spec("get_producers", "GetProducers", &["block"], &[]),
    spec("get_consumers", "GetConsumers", &["block"], &[]),
    spec(
        "get_output_blocks",
        "GetOutputBlocks",
        &["scope_block"],
        &[],
    ),
    spec(
        "split",
        "Split",
        &["loop", "*factors"],
        &[
            ("preserve_unit_iters", Plain),
            ("disable_predication", Plain),
        ],
    ),
    spec(
        "fuse",
        "Fuse",
        &["*"],
        &[("preserve_unit_iters", BoolAsInt)],
    ),
    spec("reorder", "Reorder", &["*"], &[]),
    spec("add_unit_loop", "AddUnitLoop", &["block_or_loop"], &[]),
    spec("parallel", "Parallel", &["loop"], &[]),
    spec("vectorize", "Vectorize", &["loop"], &[]),
    spec("unroll", "Unroll", &["loop"], &[]),
    spec("bind", "Bind", &["loop"], &[("thread_axis", Plain)]),
    spec(
        "sample_perfect_tile",
        "SamplePerfectTile",
        &["loop"],
        &[("n", Plain), ("max_innermost_factor", Plain)],
    ),
    spec(
        "sample_categorical",
        "SampleCategorical",
        &[],
        &[("candidates", Plain), ("probs", Plain)],
    ),
    spec(
        "sample_compute_location",
        "SampleComputeLocation",
        &["block"],
        &[],
    ),
    spec(
        "decompose_reduction",
        "DecomposeReduction",
        &["block", "loop"],
        &[],
    ),
    spec("rfactor", "RFactor", &["loop"], &[("factor_axis", Plain)]),
    spec(
        "blockize",
        "Blockize",
        &["target"],
        &[("preserve_unit_iters", Plain)],
    ),
    spec(
        "tensorize",
        "Tensorize",
        &["block_or_loop"],
        &[("tensor_intrin", Plain), ("preserve_unit_iters", Plain)],
    ),
    spec(
        "cache_read",
        "CacheRead",
        &["block", "consumer_blocks[]"],
        &[("read_buffer_index", Plain), ("storage_scope", Plain)],
    ),
    spec(
        "cache_write",
        "CacheWrite",
        &["block", "consumer_blocks[]"],
        &[("write_buffer_index", Plain), ("storage_scope", Plain)],
    ),
    spec(
        "compute_at",
        "ComputeAt",
        &["block", "loop"],
        &[("preserve_unit_loops", BoolAsInt), ("index", Plain)],
    ),
    spec(
        "reverse_compute_at",
        "ReverseComputeAt",
        &["block", "loop"],
        &[("preserve_unit_loops", BoolAsInt), ("index", Plain)],
    ),
    spec("compute_inline", "ComputeInline", &["block"], &[]),
    spec(
        "reverse_compute_inline",
        "ReverseComputeInline",
        &["block"],
        &[],
    ),
    spec(
        "annotate",
        "Annotate",
        &["block_or_loop", "ann_val"],
        &[("ann_key", Plain)],
    ),
    spec(
        "unannotate",
        "Unannotate",
        &["block_or_loop"],
        &[("ann_key", Plain)],
    ),
    spec(
        "storage_align",
        "StorageAlign",
        &["block"],
        &[
            ("buffer_index", Plain),
            ("axis", Plain),
            ("factor", Plain),
            ("offset", Plain),
        ],
    ),
    spec(
        "set_scope",
        "SetScope",
        &["block"],
        &[("buffer_index", Plain), ("storage_scope", Plain)],
    ),
    spec("work_on", "WorkOn", &[], &[("func_name", Plain)]),
];

fn spec_by_method(m: &str) -> Option<&'static KindSpec> {
    KINDS.iter().find(|k| k.method == m)
}

fn spec_by_kind(k: &str) -> Option<&'static KindSpec> {
    let k = if k == "GetBlock" { "GetSBlock" } else { k };
    KINDS.iter().find(|s| s.kind == k)
}

fn arg_to_json(a: &TraceArg, enc: Enc) -> Json {
    match a {
        TraceArg::Rv(r) => Json::Str(r.name()),
        TraceArg::Int(v) => Json::Int(*v),
        TraceArg::Float(v) => Json::Float(*v),
        TraceArg::Bool(b) if enc == BoolAsInt => Json::Int(*b as i64),
        TraceArg::Bool(b) => Json::Bool(*b),
        TraceArg::Str(s) | TraceArg::Source(s) => Json::Str(s.clone()),
        TraceArg::None => Json::Str("None".into()),
        TraceArg::List(v) => Json::Array(v.iter().map(|x| arg_to_json(x, enc)).collect()),
    }
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
        Json::Int(v) if enc == BoolAsInt => TraceArg::Bool(*v != 0),
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
        let Some(spec) = spec_by_method(&self.name) else {
            // Unknown to the table: variables are inputs, the rest attributes.
            let (mut inputs, mut attrs) = (Vec::new(), Vec::new());
            for (_, v) in &self.args {
                match v {
                    TraceArg::Rv(_) => inputs.push(arg_to_json(v, Plain)),
                    _ => attrs.push(arg_to_json(v, Plain)),
                }
            }
            return Json::Array(vec![
                Json::Str(camel_case(&self.name)),
                Json::Array(inputs),
                Json::Array(attrs),
                outputs,
            ]);
        };
        let mut inputs = Vec::new();
        for name in spec.inputs {
            if *name == "*" {
                inputs.extend(
                    self.args
                        .iter()
                        .filter(|(k, _)| k.is_empty())
                        .map(|(_, v)| arg_to_json(v, Plain)),
                );
            } else if let Some(list) = name.strip_prefix('*') {
                if let Some(TraceArg::List(items)) = self.get(list) {
                    inputs.extend(items.iter().map(|x| arg_to_json(x, Plain)));
                }
            } else if let Some(list) = name.strip_suffix("[]") {
                inputs.push(
                    self.get(list)
                        .map(|v| arg_to_json(v, Plain))
                        .unwrap_or(Json::Array(vec![])),
                );
            } else {
                inputs.push(
                    self.get(name)
                        .map(|v| arg_to_json(v, Plain))
                        .unwrap_or(Json::Str("None".into())),
                );
            }
        }
        let attrs = spec
            .attrs
            .iter()
            .map(|(name, enc)| {
                self.get(name)
                    .map(|v| arg_to_json(v, *enc))
                    .unwrap_or(Json::Null)
            })
            .collect();
        Json::Array(vec![
            Json::Str(spec.kind.into()),
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
        let Some(spec) = spec_by_kind(kind) else {
            inst.name = snake_case(kind);
            for x in inputs {
                inst.args.push((String::new(), json_to_input(x, 0)?));
            }
            for x in attrs {
                inst.args.push((String::new(), json_to_attr(x, Plain, 0)?));
            }
            return Ok(inst);
        };
        inst.name = spec.method.to_string();
        let mut rest = inputs.iter();
        for name in spec.inputs {
            if *name == "*" {
                for x in rest.by_ref() {
                    inst.args.push((String::new(), json_to_input(x, 0)?));
                }
            } else if let Some(list) = name.strip_prefix('*') {
                let items = rest
                    .by_ref()
                    .map(|x| json_to_input(x, 0))
                    .collect::<Result<Vec<_>, _>>()?;
                inst.args.push((list.to_string(), TraceArg::List(items)));
            } else {
                let key = name.strip_suffix("[]").unwrap_or(name);
                let Some(x) = rest.next() else {
                    return Err(format!("{kind}: missing input `{key}`"));
                };
                let v = json_to_input(x, 0)?;
                // An empty list input is how TVM writes "not given".
                if name.ends_with("[]") && v == TraceArg::List(vec![]) {
                    continue;
                }
                inst.args.push((key.to_string(), v));
            }
        }
        if rest.next().is_some() {
            return Err(format!("{kind}: too many inputs"));
        }
        if attrs.len() != spec.attrs.len() {
            return Err(format!(
                "{kind}: expected {} attributes, got {}",
                spec.attrs.len(),
                attrs.len()
            ));
        }
        for ((name, enc), x) in spec.attrs.iter().zip(attrs) {
            if *x == Json::Null {
                continue;
            }
            inst.args
                .push((name.to_string(), json_to_attr(x, *enc, 0)?));
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
                let value = if inst.name == "sample_perfect_tile" || d.len() != 1 {
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
