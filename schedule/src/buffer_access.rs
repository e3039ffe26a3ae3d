//! Which buffer of a block a primitive means: a read or write region by
//! index or by buffer name (TVM's `buffer_index` / `_normalize_buffer_arg`),
//! and the storage scopes a cache or `set_scope` may name. Shared by the
//! cache, layout and reindex primitives.

use super::primitives::{describe, Args};
use super::replay::SchedValue;
use super::tree::StmtPath;
use super::*;
use tessel_tir::syntax::{self, ast};

/// The prefixes TVM's `StorageScope::Create` accepts.
const SCOPE_PREFIXES: [&str; 9] = [
    "global",
    "shared",
    "warp",
    "local",
    "wmma.matrix_a",
    "wmma.matrix_b",
    "wmma.accumulator",
    "metal.simdgroup",
    "texture",
];

/// Whether TVM accepts `scope` as a storage scope.
pub fn is_valid_storage_scope(scope: &str) -> bool {
    scope.is_empty() || SCOPE_PREFIXES.iter().any(|p| scope.starts_with(p))
}

pub(crate) fn check_storage_scope(primitive: &str, scope: &str) -> Result<()> {
    if is_valid_storage_scope(scope) {
        return Ok(());
    }
    Err(ScheduleError::invalid_argument(
        primitive,
        format!(
            "The input storage scope \"{scope}\" is invalid. A storage scope is `global`, `shared`, \
             `shared.dyn`, `local`, `warp` or one of these with a tag (`global.A_reg`)."
        ),
    ))
}

/// Read or write regions, as `buffer_index_type` names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BufferIndexType {
    Read,
    Write,
}

impl BufferIndexType {
    pub fn name(self) -> &'static str {
        match self {
            BufferIndexType::Read => "read",
            BufferIndexType::Write => "write",
        }
    }
    pub fn parse(s: &str) -> Option<BufferIndexType> {
        match s {
            "read" => Some(BufferIndexType::Read),
            "write" => Some(BufferIndexType::Write),
            _ => None,
        }
    }
}

/// The buffer of a block's `index`-th read or write region (TVM's
/// `GetNthAccessBuffer`, with its message).
pub(crate) fn nth_access_buffer(
    primitive: &str,
    block: &Block,
    index: i64,
    kind: BufferIndexType,
    path: &StmtPath,
) -> Result<Buffer> {
    let regions = match kind {
        BufferIndexType::Read => &block.reads,
        BufferIndexType::Write => &block.writes,
    };
    let n = regions.len();
    if index < 0 || index as usize >= n {
        return Err(ScheduleError::invalid_argument(
            primitive,
            format!(
                "The block `{}` has {n} {} regions, so `buffer_index` is required to be in [0, {n}). \
                 However, the input `buffer_index` is {index}, which is out of the expected range.",
                block.name,
                kind.name()
            ),
        )
        .at(path.clone()));
    }
    Ok(regions[index as usize].buffer.clone())
}

/// Which buffer of a block `transform_layout` works on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BufferSel {
    Index(BufferIndexType, i64),
    Name(String),
}

impl BufferSel {
    /// From a dispatcher argument: `("write", 0)`, `"B"`, or an integer with
    /// the older `buffer_index_type=`.
    pub fn from_value(
        v: replay::SchedValue,
        legacy_type: Option<replay::SchedValue>,
    ) -> std::result::Result<BufferSel, String> {
        use replay::SchedValue as V;
        let kind = |s: &str| {
            BufferIndexType::parse(s).ok_or_else(|| {
                format!("Invalid buffer_index_type.  Expected 'read' or 'write', but received {s}")
            })
        };
        match (v, legacy_type) {
            (V::List(items), None) => match items.as_slice() {
                [V::Str(t), V::Int(i)] => Ok(BufferSel::Index(kind(t)?, *i)),
                _ => Err(
                    "buffer must be (\"read\" or \"write\", index), a buffer name, or an index"
                        .into(),
                ),
            },
            (V::Source(text), None) => {
                // A tuple kept as text by a recorded trace.
                let e = syntax::parse_expr(&text).map_err(|d| d.message)?;
                match &e.kind {
                    ast::ExprKind::Tuple(items) => match items.as_slice() {
                        [ast::Expr {
                            kind: ast::ExprKind::Str(t),
                            ..
                        }, ast::Expr {
                            kind: ast::ExprKind::Int(i),
                            ..
                        }] => Ok(BufferSel::Index(kind(t)?, *i)),
                        _ => Err(format!("cannot read the buffer argument {text}")),
                    },
                    _ => Err(format!("cannot read the buffer argument {text}")),
                }
            }
            // A JSON trace keeps the recorded tuple as a string.
            (V::Str(text), None) if text.starts_with('(') => {
                BufferSel::from_value(V::Source(text), None)
            }
            (V::Str(name), None) => Ok(BufferSel::Name(name)),
            (V::Int(i), Some(V::Str(t))) => Ok(BufferSel::Index(kind(&t)?, i)),
            (V::Int(_), None) => {
                Err("an integer buffer index needs buffer_index_type=\"read\" or \"write\"".into())
            }
            _ => Err(
                "buffer must be (\"read\" or \"write\", index), a buffer name, or an index".into(),
            ),
        }
    }
}

/// A buffer-index argument as TVM's Python front end takes it: the index,
/// or the name of one of `block`'s buffers, which must be a `kind` (read or
/// write) buffer of the block (TVM's `_normalize_buffer_arg`). A name is
/// recorded in the trace as the index it stands for, as TVM records it.
pub(crate) fn buffer_index_arg(
    sch: &Schedule,
    args: &mut Args,
    name: &str,
    block: BlockRV,
    kind: BufferIndexType,
) -> Result<i64> {
    match args.value(name)? {
        SchedValue::Int(i) => Ok(i),
        SchedValue::Bool(b) => Ok(b as i64),
        SchedValue::Str(buffer) => {
            let primitive = args.method().to_string();
            let (path, realize) = sch.resolve_block(&primitive, block)?;
            let sel = BufferSel::Name(buffer.clone());
            let (found, index) = select_buffer(&primitive, &realize.block, &sel, &path)?;
            if found != kind {
                return Err(args.err(
                    ScheduleErrorKind::InvalidArgument,
                    format!(
                    "buffer `{buffer}` is a {} buffer of block `{}`, but a {} buffer is required",
                    found.name(),
                    realize.block.name,
                    kind.name()
                ),
                ));
            }
            args.record_as(name, SchedValue::Int(index))?;
            Ok(index)
        }
        other => Err(args.err(
            ScheduleErrorKind::InvalidArgument,
            format!(
                "`{name}` must be a buffer index or a buffer name, not {}",
                describe(&other)
            ),
        )),
    }
}

/// The read or write region a [`BufferSel`] names in `block`: by kind and
/// index, or by buffer name (read regions first; a buffer both read and
/// written counts as written).
pub(crate) fn select_buffer(
    primitive: &str,
    block: &Block,
    buffer: &BufferSel,
    path: &StmtPath,
) -> Result<(BufferIndexType, i64)> {
    Ok(match buffer {
        BufferSel::Index(kind, i) => {
            let regions = match kind {
                BufferIndexType::Read => &block.reads,
                BufferIndexType::Write => &block.writes,
            };
            if *i < 0 || *i as usize >= regions.len() {
                return Err(ScheduleError::invalid_argument(
                    primitive,
                    format!(
                        "Invalid buffer_index {i}.  Block {} has only {} {} buffers.",
                        block.name,
                        regions.len(),
                        kind.name()
                    ),
                )
                .at(path.clone()));
            }
            (*kind, *i)
        }
        BufferSel::Name(name) => {
            let mut found: Vec<(Buffer, BufferIndexType, i64)> = Vec::new();
            for (kind, regions) in [
                (BufferIndexType::Read, &block.reads),
                (BufferIndexType::Write, &block.writes),
            ] {
                for (i, r) in regions.iter().enumerate() {
                    if r.buffer.name == *name {
                        match found.iter_mut().find(|(b, _, _)| *b == r.buffer) {
                            Some(slot) => {
                                slot.1 = kind;
                                slot.2 = i as i64;
                            }
                            None => found.push((r.buffer.clone(), kind, i as i64)),
                        }
                    }
                }
            }
            match found.as_slice() {
                [(_, kind, i)] => (*kind, *i),
                [] => {
                    return Err(ScheduleError::not_found(
                        primitive,
                        format!("Could not find buffer '{name}' in block '{}'", block.name),
                    )
                    .at(path.clone()))
                }
                _ => {
                    return Err(ScheduleError::invalid_argument(
                        primitive,
                        format!("Multiple buffers named '{name}' in block '{}'", block.name),
                    )
                    .at(path.clone()))
                }
            }
        }
    })
}
