//! One declaration per schedule primitive, and the table of them.
//!
//! A [`Primitive`] says everything Tessel needs to know about a schedule
//! method besides its implementation: the Python name (and aliases), TVM's
//! instruction kind, the parameters with their defaults and how the trace
//! keeps them (input or attribute, and how TVM's JSON encodes it), how to
//! apply it to a [`Schedule`] once the arguments are read, and the
//! playground's menu entry. [`PRIMITIVES`] lists them; `Schedule::call`,
//! trace replay, trace printing and JSON, and the playground's menu all read
//! this table, so a primitive is declared exactly once.
//!
//! Applying and recording are split the way TVM splits its concrete and
//! traced schedules: a primitive's implementation (`*_concrete`) only
//! transforms the IR; [`Schedule::apply_traced`] runs it through the
//! declaration and, once it succeeded, records one [`Instruction`] built from
//! the read arguments, the outputs and the sampling decision. The typed Rust
//! methods (`sch.split(…)`) and by-name calls (`sch.call("split", …)`) both go
//! through `apply_traced`, so they record the same trace.
//!
//! Each declaration lives next to its implementation (`loops::SPLIT` in
//! `loops.rs`); this file holds the types, the argument reader and the table.

use super::value::SchedValue;
use super::*;

pub use super::menu::{MenuArg, MenuEntry, MenuSite, MenuTarget, MenuWhen};

/// How an argument arrives: by position or name, by name only, or as the
/// rest of the positional arguments (`*loops`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Passing {
    PositionalOrKeyword,
    KeywordOnly,
    VarPositional,
}

/// What a parameter accepts, and the form it is kept in once read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamType {
    /// A block handle, or a block name looked up with (a recorded) `get_block`.
    Block,
    /// A loop handle.
    Loop,
    /// Any schedule variable (the primitive checks it is a block or a loop).
    BlockOrLoop,
    /// A block or loop handle, or a block name (`tensorize`).
    BlockLoopOrName,
    Int,
    Bool,
    Str,
    /// A string or `None`.
    OptStr,
    /// `split`'s factors: each `None`, an integer or a sampled value.
    Factors,
    /// The loop handles of a `*loops` parameter.
    Loops,
    /// A list of block handles or block names; `None` or `[]` count as not
    /// given.
    OptBlocks,
    /// A list of integers.
    Ints,
    /// A list of numbers, kept as floats.
    Floats,
    /// An integer or `None` (not given).
    OptInt,
    /// A list of integers or `None` (not given).
    OptInts,
    /// Anything; the primitive reads it (index maps, annotation values).
    Any,
}

/// A parameter's default when the call does not pass it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ParamDefault {
    Required,
    /// Not given: the primitive sees no value and the trace records none.
    Absent,
    None,
    Bool(bool),
    Int(i64),
}

/// How TVM's JSON writes an attribute.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Enc {
    /// As recorded.
    Plain,
    /// A boolean TVM keeps as an `Integer` attribute (`1`/`0`).
    BoolAsInt,
    /// A buffer chosen by kind and index, printed `("read", 0)`: two JSON
    /// attributes, the index and the kind (`0` read, `1` write).
    IndexAndKind,
}

/// Where a parameter goes in the trace: printed as `name=value` unless said
/// otherwise, and in TVM's JSON either among the inputs (in order) or the
/// attributes (in order).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InTrace {
    /// An input (`loop=l1`).
    Input,
    /// Inputs printed positionally (`sch.fuse(l1, l2)`,
    /// `sch.get_child_blocks(b0)`); the JSON's remaining inputs.
    PositionalInput,
    /// A list whose items are separate JSON inputs (`split`'s factors).
    SpreadInput,
    /// A list kept as one JSON input, `[]` when not given (`consumer_blocks`).
    ListInput,
    Attr(Enc),
    /// A sampling primitive's decision: recorded apart, as the decision.
    Decision,
    /// Accepted but not recorded.
    NotRecorded,
}

/// One parameter of a primitive, with TVM's name.
#[derive(Clone, Copy, Debug)]
pub struct Param {
    pub name: &'static str,
    pub ty: ParamType,
    pub default: ParamDefault,
    pub passing: Passing,
    pub in_trace: InTrace,
}

/// A required parameter, passed by position or name, recorded as an input.
pub const fn param(name: &'static str, ty: ParamType) -> Param {
    Param {
        name,
        ty,
        default: ParamDefault::Required,
        passing: Passing::PositionalOrKeyword,
        in_trace: InTrace::Input,
    }
}

impl Param {
    pub const fn or_bool(self, b: bool) -> Param {
        Param {
            default: ParamDefault::Bool(b),
            ..self
        }
    }
    pub const fn or_int(self, i: i64) -> Param {
        Param {
            default: ParamDefault::Int(i),
            ..self
        }
    }
    pub const fn or_none(self) -> Param {
        Param {
            default: ParamDefault::None,
            ..self
        }
    }
    /// Optional without a default: not given means not recorded.
    pub const fn optional(self) -> Param {
        Param {
            default: ParamDefault::Absent,
            ..self
        }
    }
    pub const fn attr(self) -> Param {
        Param {
            in_trace: InTrace::Attr(Enc::Plain),
            ..self
        }
    }
    /// An attribute with its own JSON encoding.
    pub const fn attr_as(self, enc: Enc) -> Param {
        Param {
            in_trace: InTrace::Attr(enc),
            ..self
        }
    }
    /// An attribute TVM's JSON writes as an integer (`preserve_unit_loops`).
    pub const fn attr_bool_as_int(self) -> Param {
        Param {
            in_trace: InTrace::Attr(Enc::BoolAsInt),
            ..self
        }
    }
    pub const fn keyword_only(self) -> Param {
        Param {
            passing: Passing::KeywordOnly,
            ..self
        }
    }
    /// `*name`: all remaining positional arguments, printed positionally.
    pub const fn var_positional(self) -> Param {
        Param {
            passing: Passing::VarPositional,
            in_trace: InTrace::PositionalInput,
            ..self
        }
    }
    pub const fn printed_positionally(self) -> Param {
        Param {
            in_trace: InTrace::PositionalInput,
            ..self
        }
    }
    pub const fn spread_input(self) -> Param {
        Param {
            in_trace: InTrace::SpreadInput,
            ..self
        }
    }
    pub const fn list_input(self) -> Param {
        Param {
            in_trace: InTrace::ListInput,
            ..self
        }
    }
    /// The decision of a sampling primitive (`decision=None`).
    pub const fn decision(self) -> Param {
        Param {
            default: ParamDefault::Absent,
            in_trace: InTrace::Decision,
            ..self
        }
    }
    pub const fn not_recorded(self) -> Param {
        Param {
            in_trace: InTrace::NotRecorded,
            ..self
        }
    }
}

/// What a primitive returns; a list prints as `l1, = …` when it has one item.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Returns {
    Nothing,
    One,
    List,
}

/// How a primitive applies: reads its (already checked) arguments, runs the
/// concrete implementation, and returns its result. It may replace an
/// argument by the form the trace records ([`Args::record_as`]) and set the
/// sampling decision ([`Args::set_decision`]).
pub type ApplyFn = fn(&mut Schedule, &mut Args) -> Result<SchedValue>;

/// `apply`, or with feature `lean` a function that refuses with
/// [`ScheduleError::left_out`]: then nothing reaches the implementation and
/// the linker drops it.
pub(super) const fn unless_lean(apply: ApplyFn) -> ApplyFn {
    if cfg!(feature = "lean") {
        left_out
    } else {
        apply
    }
}

fn left_out(_: &mut Schedule, args: &mut Args) -> Result<SchedValue> {
    Err(ScheduleError::left_out(&args.method))
}

/// Everything about one schedule primitive but its implementation.
pub struct Primitive {
    /// The Python method, as traces print it.
    pub method: &'static str,
    /// Other names the method answers to (`get_sblock`).
    pub aliases: &'static [&'static str],
    /// TVM's instruction kind, the name trace JSON uses.
    pub kind: &'static str,
    pub params: &'static [Param],
    pub returns: Returns,
    /// Whether the trace records it (TVM does not trace `work_on`).
    pub traced: bool,
    pub apply: ApplyFn,
    /// The playground's menu entry, for primitives offered there.
    pub menu: Option<MenuEntry>,
}

impl Primitive {
    pub fn param(&self, name: &str) -> Option<&'static Param> {
        self.params.iter().find(|p| p.name == name)
    }

    /// Whether the decision is a list (`sample_perfect_tile`) rather than
    /// one integer.
    pub fn decision_is_list(&self) -> bool {
        self.params
            .iter()
            .any(|p| p.in_trace == InTrace::Decision && p.ty == ParamType::OptInts)
    }
}

/// Every primitive. The playground's menus list their entries in this order.
pub const PRIMITIVES: &[&Primitive] = &[
    &query::GET_BLOCK,
    &query::GET_LOOPS,
    &query::GET_CHILD_BLOCKS,
    &query::GET_PRODUCERS,
    &query::GET_CONSUMERS,
    &query::GET_OUTPUT_BLOCKS,
    &query::WORK_ON,
    // Loop menu, in this order.
    &loops::SPLIT,
    &loops::REORDER,
    &loops::FUSE,
    &compute_at::REVERSE_COMPUTE_AT,
    &compute_at::COMPUTE_AT,
    &reduction::DECOMPOSE_REDUCTION,
    &reduction::RFACTOR,
    &loop_kind::PARALLEL,
    &loop_kind::VECTORIZE,
    &loop_kind::UNROLL,
    &loop_kind::BIND,
    &blockize::BLOCKIZE,
    // Block menu, in this order.
    &inline::COMPUTE_INLINE,
    &inline::REVERSE_COMPUTE_INLINE,
    &cache::CACHE_READ,
    &cache::CACHE_WRITE,
    // Not in a menu.
    &cache::CACHE_INPLACE,
    &cache_index::CACHE_INDEX,
    &read_write_at::READ_AT,
    &read_write_at::WRITE_AT,
    &rolling_buffer::ROLLING_BUFFER,
    &reduction_epilogue::FUSE_REDUCTION_EPILOGUE,
    &reindex::REINDEX,
    &reindex::REINDEX_CACHE_READ,
    &reindex::REINDEX_CACHE_WRITE,
    &block_iters::REORDER_BLOCK_ITER_VAR,
    &block_iters::TRANSFORM_BLOCK_LAYOUT,
    &query::ENTER_POSTPROC,
    &loops::ADD_UNIT_LOOP,
    &merge::MERGE,
    &loop_partition::LOOP_PARTITION,
    &padding::DECOMPOSE_PADDING,
    &padding::CAN_DECOMPOSE_PADDING,
    &pad_einsum::PAD_EINSUM,
    &tensorize::TENSORIZE,
    &sampling::SAMPLE_PERFECT_TILE,
    &sampling::SAMPLE_PARTITIONED_TILE,
    &sampling::SAMPLE_CATEGORICAL,
    &sampling::SAMPLE_COMPUTE_LOCATION,
    &layout::TRANSFORM_LAYOUT,
    &layout::SET_SCOPE,
    &layout::UNSAFE_SET_DTYPE,
    &layout::STORAGE_ALIGN,
    &annotate::ANNOTATE,
    &annotate::UNANNOTATE,
    &annotate::UNSAFE_HIDE_BUFFER_ACCESS,
    &annotate::ANNOTATE_BUFFER_ACCESS,
];

/// The primitive a method name (or alias) calls.
pub fn by_method(method: &str) -> Option<&'static Primitive> {
    PRIMITIVES
        .iter()
        .copied()
        .find(|p| p.method == method || p.aliases.contains(&method))
}

/// The primitive of a TVM instruction kind (`GetBlock` is TVM's older name
/// of `GetSBlock`).
pub fn by_kind(kind: &str) -> Option<&'static Primitive> {
    let kind = if kind == "GetBlock" {
        "GetSBlock"
    } else {
        kind
    };
    PRIMITIVES.iter().copied().find(|p| p.kind == kind)
}

/// The menu entries of [`PRIMITIVES`], by method, worked out at compile
/// time: the playground's UI reads only this, so its binary holds the menu
/// but not the primitives' implementations (they run in the worker).
static MENU: [Option<(&str, MenuEntry)>; PRIMITIVES.len()] = {
    let mut menu = [None; PRIMITIVES.len()];
    let mut i = 0;
    while i < PRIMITIVES.len() {
        if let Some(entry) = PRIMITIVES[i].menu {
            menu[i] = Some((PRIMITIVES[i].method, entry));
        }
        i += 1;
    }
    menu
};

/// The primitives a playground menu offers on a loop or a block, in order.
pub fn menu_entries(
    target: MenuTarget,
) -> impl Iterator<Item = (&'static str, &'static MenuEntry)> {
    MENU.iter()
        .flatten()
        .filter(move |(_, m)| m.target == target)
        .map(|(method, m)| (*method, m))
}

/// The menu entry of a method, if the playground offers it.
pub fn menu_entry(method: &str) -> Option<&'static MenuEntry> {
    MENU.iter()
        .flatten()
        .find(|(m, _)| *m == method)
        .map(|(_, entry)| entry)
}

// ----- arguments ---------------------------------------------------------------------

/// The arguments of one application, one slot per parameter of its
/// primitive, in the checked form [`ParamType`] describes.
#[derive(Clone, Debug)]
pub struct Args {
    /// The name the primitive was called by (errors use it).
    method: String,
    params: &'static [Param],
    values: Vec<Option<SchedValue>>,
    decision: Option<Vec<i64>>,
}

impl Args {
    /// Arguments a typed Rust method passes: `values` in parameter order,
    /// already in checked form; parameters after them take their defaults.
    pub fn typed(prim: &'static Primitive, values: Vec<SchedValue>) -> Args {
        let mut given = values.into_iter();
        let values = prim
            .params
            .iter()
            .map(|p| given.next().or_else(|| default_value(p.default)))
            .collect();
        Args {
            method: prim.method.to_string(),
            params: prim.params,
            values,
            decision: None,
        }
    }

    /// Reads Python-style arguments by TVM's parameter names and defaults,
    /// checking each in parameter order. A block given by name is looked up
    /// with `get_block`, which the trace records, as TVM does.
    pub fn bind(
        sch: &mut Schedule,
        prim: &'static Primitive,
        called_as: &str,
        positional: Vec<SchedValue>,
        mut keywords: Vec<(String, SchedValue)>,
    ) -> Result<Args> {
        let given = positional.len();
        let mut positional = positional.into_iter();
        let mut take_keyword = |name: &str| {
            let i = keywords.iter().position(|(k, _)| k == name)?;
            Some(keywords.remove(i).1)
        };
        let raw: Vec<Option<SchedValue>> = prim
            .params
            .iter()
            .map(|p| match p.passing {
                Passing::KeywordOnly => take_keyword(p.name),
                Passing::VarPositional => Some(SchedValue::List(positional.by_ref().collect())),
                Passing::PositionalOrKeyword => take_keyword(p.name).or_else(|| positional.next()),
            })
            .collect();
        let mut args = Args {
            method: called_as.to_string(),
            params: prim.params,
            values: Vec::with_capacity(raw.len()),
            decision: None,
        };
        for (p, v) in prim.params.iter().zip(raw) {
            let v = match v {
                Some(v) => args.check(sch, p.ty, v)?,
                None if p.default == ParamDefault::Required => {
                    return Err(args.err(
                        ScheduleErrorKind::ArgumentType,
                        format!("missing argument `{}`", p.name),
                    ))
                }
                None => default_value(p.default),
            };
            args.values.push(v);
        }
        if positional.next().is_some() {
            return Err(args.err(
                ScheduleErrorKind::ArgumentType,
                format!("too many arguments ({given} given)"),
            ));
        }
        if let Some((k, _)) = keywords.first() {
            return Err(args.err(
                ScheduleErrorKind::ArgumentType,
                format!("unexpected keyword argument `{k}`"),
            ));
        }
        Ok(args)
    }

    /// An error of this call, named by the method as called.
    /// The name the primitive was called by.
    pub fn method(&self) -> &str {
        &self.method
    }

    pub fn err(&self, kind: ScheduleErrorKind, msg: impl Into<String>) -> ScheduleError {
        ScheduleError::new(kind, &self.method, msg)
    }

    /// Brings one argument into its checked form (`None` when it counts as
    /// not given).
    fn check(
        &self,
        sch: &mut Schedule,
        ty: ParamType,
        v: SchedValue,
    ) -> Result<Option<SchedValue>> {
        use ParamType as T;
        use SchedValue as V;
        let list = |v: V| match v {
            V::List(items) => Ok(items),
            other => Err(self.err(
                ScheduleErrorKind::ArgumentType,
                format!("expected a list, got {}", describe(&other)),
            )),
        };
        Ok(Some(match (ty, v) {
            (T::Block, V::Str(name)) | (T::BlockLoopOrName, V::Str(name)) => {
                V::Rv(sch.get_block(&name, None)?.into())
            }
            (T::Block, v @ V::Rv(Rv::Block(_))) => v,
            (T::Block, other) => {
                return Err(self.err(
                    ScheduleErrorKind::ArgumentType,
                    format!("expected a block, got {}", describe(&other)),
                ))
            }
            (T::Loop, v @ V::Rv(Rv::Loop(_))) => v,
            (T::Loop, other) => {
                return Err(self.err(
                    ScheduleErrorKind::ArgumentType,
                    format!("expected a loop, got {}", describe(&other)),
                ))
            }
            (T::BlockOrLoop, v @ V::Rv(_)) => v,
            (T::BlockOrLoop, _) => {
                return Err(self.err(
                    ScheduleErrorKind::ArgumentType,
                    "expected a block or a loop",
                ))
            }
            (T::BlockLoopOrName, v @ V::Rv(Rv::Block(_) | Rv::Loop(_))) => v,
            (T::BlockLoopOrName, other) => {
                return Err(self.err(
                    ScheduleErrorKind::ArgumentType,
                    format!("expected a block or a loop, got {}", describe(&other)),
                ))
            }
            (T::Int, v) => V::Int(self.check_int(v)?),
            (T::Bool, V::Bool(b)) => V::Bool(b),
            (T::Bool, V::Int(i)) => V::Bool(i != 0),
            (T::Bool, other) => {
                return Err(self.err(
                    ScheduleErrorKind::ArgumentType,
                    format!("expected a bool, got {}", describe(&other)),
                ))
            }
            (T::Str | T::OptStr, v @ V::Str(_)) => v,
            (T::OptStr, V::None) => V::None,
            (T::Str | T::OptStr, other) => {
                return Err(self.err(
                    ScheduleErrorKind::ArgumentType,
                    format!("expected a string, got {}", describe(&other)),
                ))
            }
            (T::Factors, v) => V::List(
                list(v)?
                    .into_iter()
                    .map(|f| match f {
                        f @ (V::None | V::Int(_) | V::Rv(Rv::Expr(_))) => Ok(f),
                        other => Err(self.err(
                            ScheduleErrorKind::ArgumentType,
                            format!(
                                "a split factor is None, an integer or a sampled value, not {}",
                                describe(&other)
                            ),
                        )),
                    })
                    .collect::<Result<_>>()?,
            ),
            (T::Loops, v) => V::List(
                list(v)?
                    .into_iter()
                    .map(|x| match x {
                        x @ V::Rv(Rv::Loop(_)) => Ok(x),
                        other => Err(self.err(
                            ScheduleErrorKind::ArgumentType,
                            format!("expected a loop, got {}", describe(&other)),
                        )),
                    })
                    .collect::<Result<_>>()?,
            ),
            (T::OptBlocks, V::None) => return Ok(None),
            (T::OptBlocks, v) => {
                // Blocks by handle or by name (TVM's front end looks names up).
                let mut blocks = Vec::new();
                for x in list(v)? {
                    blocks.push(match x {
                        x @ V::Rv(Rv::Block(_)) => x,
                        V::Str(name) => V::Rv(sch.get_block(&name, None)?.into()),
                        other => {
                            return Err(self.err(
                                ScheduleErrorKind::ArgumentType,
                                format!("expected a block, got {}", describe(&other)),
                            ))
                        }
                    });
                }
                if blocks.is_empty() {
                    return Ok(None);
                }
                V::List(blocks)
            }
            (T::Ints, v) => V::List(
                list(v)?
                    .into_iter()
                    .map(|x| self.check_int(x).map(V::Int))
                    .collect::<Result<_>>()?,
            ),
            (T::Floats, v) => V::List(
                list(v)?
                    .into_iter()
                    .map(|x| match x {
                        V::Float(f) => Ok(V::Float(f)),
                        V::Int(i) => Ok(V::Float(i as f64)),
                        other => Err(self.err(
                            ScheduleErrorKind::InvalidArgument,
                            format!("a probability is a number, not {}", describe(&other)),
                        )),
                    })
                    .collect::<Result<_>>()?,
            ),
            (T::OptInt | T::OptInts, V::None) => return Ok(None),
            (T::OptInt, v) => V::Int(self.check_int(v)?),
            (T::OptInts, v) => V::List(
                list(v)?
                    .into_iter()
                    .map(|x| self.check_int(x).map(V::Int))
                    .collect::<Result<_>>()?,
            ),
            (T::Any, v) => v,
        }))
    }

    fn check_int(&self, v: SchedValue) -> Result<i64> {
        match v {
            SchedValue::Int(i) => Ok(i),
            SchedValue::Bool(b) => Ok(b as i64),
            other => Err(self.err(
                ScheduleErrorKind::ArgumentType,
                format!("expected an integer, got {}", describe(&other)),
            )),
        }
    }

    fn slot(&self, name: &str) -> Result<Option<&SchedValue>> {
        match self.params.iter().position(|p| p.name == name) {
            Some(i) => Ok(self.values.get(i).and_then(Option::as_ref)),
            None => Err(self.err(
                ScheduleErrorKind::Internal,
                format!("internal: `{}` has no parameter `{name}`", self.method),
            )),
        }
    }

    /// The value of a parameter, `None` when it was not given and has no default.
    pub fn get(&self, name: &str) -> Result<Option<SchedValue>> {
        Ok(self.slot(name)?.cloned())
    }

    /// The value of a parameter that always has one.
    pub fn value(&self, name: &str) -> Result<SchedValue> {
        self.slot(name)?.cloned().ok_or_else(|| {
            self.err(
                ScheduleErrorKind::ArgumentType,
                format!("missing argument `{name}`"),
            )
        })
    }

    fn mismatch(&self, name: &str, what: &str) -> ScheduleError {
        self.err(
            ScheduleErrorKind::Internal,
            format!("internal: argument `{name}` is not {what}"),
        )
    }

    pub fn block(&self, name: &str) -> Result<BlockRV> {
        match self.value(name)? {
            SchedValue::Rv(Rv::Block(b)) => Ok(BlockRV(b)),
            _ => Err(self.mismatch(name, "a block")),
        }
    }
    pub fn loop_rv(&self, name: &str) -> Result<LoopRV> {
        match self.value(name)? {
            SchedValue::Rv(Rv::Loop(l)) => Ok(LoopRV(l)),
            _ => Err(self.mismatch(name, "a loop")),
        }
    }
    pub fn rv(&self, name: &str) -> Result<Rv> {
        match self.value(name)? {
            SchedValue::Rv(r) => Ok(r),
            _ => Err(self.mismatch(name, "a schedule variable")),
        }
    }
    pub fn int(&self, name: &str) -> Result<i64> {
        match self.value(name)? {
            SchedValue::Int(i) => Ok(i),
            _ => Err(self.mismatch(name, "an integer")),
        }
    }
    pub fn opt_int(&self, name: &str) -> Result<Option<i64>> {
        match self.get(name)? {
            None => Ok(None),
            Some(SchedValue::Int(i)) => Ok(Some(i)),
            Some(_) => Err(self.mismatch(name, "an integer")),
        }
    }
    pub fn bool(&self, name: &str) -> Result<bool> {
        match self.value(name)? {
            SchedValue::Bool(b) => Ok(b),
            _ => Err(self.mismatch(name, "a bool")),
        }
    }
    pub fn string(&self, name: &str) -> Result<String> {
        match self.value(name)? {
            SchedValue::Str(s) => Ok(s),
            _ => Err(self.mismatch(name, "a string")),
        }
    }
    pub fn opt_string(&self, name: &str) -> Result<Option<String>> {
        match self.get(name)? {
            None | Some(SchedValue::None) => Ok(None),
            Some(SchedValue::Str(s)) => Ok(Some(s)),
            Some(_) => Err(self.mismatch(name, "a string")),
        }
    }
    fn items(&self, name: &str) -> Result<Vec<SchedValue>> {
        match self.get(name)? {
            None => Ok(Vec::new()),
            Some(SchedValue::List(items)) => Ok(items),
            Some(_) => Err(self.mismatch(name, "a list")),
        }
    }
    pub fn loops(&self, name: &str) -> Result<Vec<LoopRV>> {
        self.items(name)?
            .into_iter()
            .map(|x| match x {
                SchedValue::Rv(Rv::Loop(l)) => Ok(LoopRV(l)),
                _ => Err(self.mismatch(name, "a list of loops")),
            })
            .collect()
    }
    pub fn blocks(&self, name: &str) -> Result<Vec<BlockRV>> {
        self.items(name)?
            .into_iter()
            .map(|x| match x {
                SchedValue::Rv(Rv::Block(b)) => Ok(BlockRV(b)),
                _ => Err(self.mismatch(name, "a list of blocks")),
            })
            .collect()
    }
    pub fn ints(&self, name: &str) -> Result<Vec<i64>> {
        self.items(name)?
            .into_iter()
            .map(|x| match x {
                SchedValue::Int(i) => Ok(i),
                _ => Err(self.mismatch(name, "a list of integers")),
            })
            .collect()
    }
    pub fn opt_ints(&self, name: &str) -> Result<Option<Vec<i64>>> {
        match self.get(name)? {
            None => Ok(None),
            Some(_) => self.ints(name).map(Some),
        }
    }
    pub fn floats(&self, name: &str) -> Result<Vec<f64>> {
        self.items(name)?
            .into_iter()
            .map(|x| match x {
                SchedValue::Float(f) => Ok(f),
                _ => Err(self.mismatch(name, "a list of numbers")),
            })
            .collect()
    }
    pub fn factors(&self, name: &str) -> Result<Vec<Factor>> {
        self.items(name)?
            .into_iter()
            .map(|x| match x {
                SchedValue::None => Ok(Factor::Infer),
                SchedValue::Int(c) => Ok(Factor::Const(c)),
                SchedValue::Rv(Rv::Expr(e)) => Ok(Factor::Sampled(ExprRV(e))),
                _ => Err(self.mismatch(name, "a list of split factors")),
            })
            .collect()
    }

    /// Records `value` for the parameter instead of the argument as given
    /// (the resolved function name, an index map in canonical form).
    pub fn record_as(&mut self, name: &str, value: SchedValue) -> Result<()> {
        let i = self
            .params
            .iter()
            .position(|p| p.name == name)
            .ok_or_else(|| {
                self.err(
                    ScheduleErrorKind::Internal,
                    format!("internal: no parameter `{name}`"),
                )
            })?;
        self.values[i] = Some(value);
        Ok(())
    }

    /// The decision a sampling primitive took, for the trace.
    pub fn set_decision(&mut self, decision: Vec<i64>) {
        self.decision = Some(decision);
    }

    /// The trace's instruction for a successful application.
    fn instruction(&self, prim: &Primitive, out: &SchedValue) -> Instruction {
        let mut inst = Instruction::new(prim.method);
        for (p, v) in self.params.iter().zip(&self.values) {
            let Some(v) = v else { continue };
            match (p.in_trace, p.passing, v) {
                (InTrace::Decision | InTrace::NotRecorded, ..) => {}
                (InTrace::PositionalInput, Passing::VarPositional, SchedValue::List(items)) => {
                    for item in items {
                        inst = inst.arg("", item.to_trace());
                    }
                }
                (InTrace::PositionalInput, ..) => inst = inst.arg("", v.to_trace()),
                _ => inst = inst.arg(p.name, v.to_trace()),
            }
        }
        inst.outputs = out.rvs();
        inst.decision = self.decision.clone();
        inst
    }
}

fn default_value(d: ParamDefault) -> Option<SchedValue> {
    match d {
        ParamDefault::Required | ParamDefault::Absent => None,
        ParamDefault::None => Some(SchedValue::None),
        ParamDefault::Bool(b) => Some(SchedValue::Bool(b)),
        ParamDefault::Int(i) => Some(SchedValue::Int(i)),
    }
}

/// An argument as error messages name it.
pub(crate) fn describe(v: &SchedValue) -> String {
    match v {
        SchedValue::Rv(r) => format!("`{}`", r.name()),
        SchedValue::Int(i) => format!("the integer {i}"),
        SchedValue::Float(f) => format!("the float {f}"),
        SchedValue::Bool(b) => format!("{b}"),
        SchedValue::Str(s) => format!("the string {s:?}"),
        SchedValue::None => "None".into(),
        SchedValue::List(_) => "a list".into(),
        SchedValue::Source(s) => s.clone(),
    }
}

// ----- results -------------------------------------------------------------------------

impl SchedValue {
    /// A list of handles as a value.
    pub fn rv_list<T: Into<Rv> + Copy>(v: &[T]) -> SchedValue {
        SchedValue::List(v.iter().map(|x| SchedValue::Rv((*x).into())).collect())
    }

    /// The schedule variables a result holds (the instruction's outputs).
    fn rvs(&self) -> Vec<Rv> {
        match self {
            SchedValue::Rv(r) => vec![*r],
            SchedValue::List(items) => items
                .iter()
                .filter_map(|x| match x {
                    SchedValue::Rv(r) => Some(*r),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        }
    }

    fn unexpected(&self, what: &str) -> ScheduleError {
        ScheduleError::internal(
            "schedule",
            format!(
                "internal: expected {what} as the result, got {}",
                describe(self)
            ),
        )
    }

    pub fn into_block(self) -> Result<BlockRV> {
        match self {
            SchedValue::Rv(Rv::Block(b)) => Ok(BlockRV(b)),
            other => Err(other.unexpected("a block")),
        }
    }
    pub fn into_loop(self) -> Result<LoopRV> {
        match self {
            SchedValue::Rv(Rv::Loop(l)) => Ok(LoopRV(l)),
            other => Err(other.unexpected("a loop")),
        }
    }
    pub fn into_expr(self) -> Result<ExprRV> {
        match self {
            SchedValue::Rv(Rv::Expr(e)) => Ok(ExprRV(e)),
            other => Err(other.unexpected("a sampled value")),
        }
    }
    fn into_list<T>(self, what: &str, item: impl Fn(SchedValue) -> Result<T>) -> Result<Vec<T>> {
        match self {
            SchedValue::List(items) => items.into_iter().map(item).collect(),
            other => Err(other.unexpected(what)),
        }
    }
    pub fn into_blocks(self) -> Result<Vec<BlockRV>> {
        self.into_list("a list of blocks", SchedValue::into_block)
    }
    pub fn into_loops(self) -> Result<Vec<LoopRV>> {
        self.into_list("a list of loops", SchedValue::into_loop)
    }
    pub fn into_exprs(self) -> Result<Vec<ExprRV>> {
        self.into_list("a list of sampled values", SchedValue::into_expr)
    }
}

macro_rules! rv_into_value {
    ($($t:ty),*) => {$(
        impl From<$t> for SchedValue {
            fn from(rv: $t) -> SchedValue {
                SchedValue::Rv(rv.into())
            }
        }
    )*};
}
rv_into_value!(Rv, BlockRV, LoopRV, ExprRV);

impl From<bool> for SchedValue {
    fn from(b: bool) -> SchedValue {
        SchedValue::Bool(b)
    }
}
impl From<i64> for SchedValue {
    fn from(i: i64) -> SchedValue {
        SchedValue::Int(i)
    }
}
impl From<&str> for SchedValue {
    fn from(s: &str) -> SchedValue {
        SchedValue::Str(s.to_string())
    }
}

thread_local! {
    /// Primitives applied successfully on this thread (see
    /// [`applied_primitive_count`]).
    static APPLIED_PRIMITIVES: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// How many schedule primitives this thread has applied successfully: lets
/// a host's tests check that an action re-applies no schedule.
pub fn applied_primitive_count() -> u64 {
    APPLIED_PRIMITIVES.with(|n| n.get())
}

impl Schedule {
    /// Applies a primitive and, once it succeeded, records it in the trace:
    /// the one place instructions are recorded.
    pub fn apply_traced(&mut self, prim: &'static Primitive, mut args: Args) -> Result<SchedValue> {
        let out = (prim.apply)(self, &mut args)?;
        APPLIED_PRIMITIVES.with(|n| n.set(n.get() + 1));
        if prim.traced {
            self.trace.push(args.instruction(prim, &out));
            self.modules_after.push(self.module.clone());
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declarations_are_consistent() {
        for (i, p) in PRIMITIVES.iter().enumerate() {
            for q in &PRIMITIVES[..i] {
                assert_ne!(p.method, q.method, "{} declared twice", p.method);
                assert_ne!(p.kind, q.kind, "kind {} declared twice", p.kind);
            }
            let inputs: Vec<&Param> = p
                .params
                .iter()
                .filter(|x| {
                    matches!(
                        x.in_trace,
                        InTrace::Input
                            | InTrace::PositionalInput
                            | InTrace::SpreadInput
                            | InTrace::ListInput
                    )
                })
                .collect();
            // JSON reads a positional or spread input as "all the rest".
            for x in inputs.iter().rev().skip(1) {
                assert!(
                    !matches!(x.in_trace, InTrace::PositionalInput | InTrace::SpreadInput),
                    "{}: `{}` must be the last input",
                    p.method,
                    x.name
                );
            }
            for x in p.params {
                if x.in_trace == InTrace::Decision {
                    assert!(matches!(x.ty, ParamType::OptInt | ParamType::OptInts));
                }
            }
            assert_eq!(by_method(p.method).map(|q| q.kind), Some(p.kind));
            assert_eq!(by_kind(p.kind).map(|q| q.method), Some(p.method));
        }
        assert_eq!(by_method("get_sblock").map(|p| p.method), Some("get_block"));
    }
}
