//! Buffer storage: `transform_layout`, `set_scope`, `unsafe_set_dtype`,
//! `storage_align`.
//!
//! Behaviour checked against TVM 0.27:
//!
//! - `transform_layout(block, buffer, index_map)`: `buffer` is `("read", i)`,
//!   `("write", i)` or a buffer name (looked up in the block's reads, then
//!   writes; a buffer both read and written counts as written); the older
//!   `buffer_index_type=` keyword is accepted too. The buffer takes the
//!   shape of the index map's image (each result must range over `[0, n)`)
//!   and keeps its name; every load and store of it is rewritten to
//!   `buffer[map(indices)]`, simplified knowing the loop and block iterator
//!   ranges (`B[vi * 4 + vj]` under `lambda i: (i // 4, i % 4)` becomes
//!   `B[vi, vj]`); the blocks that access it get their region of it
//!   re-inferred from their bodies. A function parameter changes the
//!   function's signature. The map must be a bijection onto the new shape,
//!   or pad it: then `pad_value` is required (as in TVM) and says what the
//!   padding holds (see [`super::layout_padding`]); without padding
//!   `pad_value` is not used. The trace
//!   shows the map as TVM prints it, `lambda i, j: (j, i,)`, after TVM's
//!   operator folding (`j + 0` is `j`, `-j` is `j * -1`).
//! - `set_scope(block, buffer_index, storage_scope)`: the block's
//!   `buffer_index`-th *written* buffer, which a block must allocate (not a
//!   parameter or match buffer), moves to the scope and is renamed
//!   `<name>_<scope>` — unless it is already in that scope (then nothing
//!   changes).
//! - `unsafe_set_dtype(block, buffer_index, dtype)`: the block's
//!   `buffer_index`-th written buffer, allocated by a block, takes `dtype`;
//!   stores into it are cast to `dtype` and loads from it cast back to the
//!   old type (casts kept even on constants, as TVM builds them). The same
//!   type is a no-op, checked before the allocation.
//! - `storage_align(block, buffer_index, axis, factor, offset)`: records
//!   `[buffer_index, axis, factor, offset]` (axis normalised to be
//!   non-negative) in the block annotation `buffer_dim_align`, replacing the
//!   entry for the same buffer and axis; the buffer must be allocated by a
//!   block, `axis` in `[-ndim, ndim)` and `factor` positive.

use std::collections::HashMap;

pub use super::buffer_access::BufferSel;
pub(crate) use super::buffer_access::{buffer_index_arg, select_buffer};
use super::buffer_access::{check_storage_scope, nth_access_buffer, BufferIndexType};
pub(crate) use super::index_map::lambda_expr;
pub use super::index_map::IndexMap;
use super::layout_padding::{padded_inverse, write_padding, PadLiteral, PadValue, PaddedInverse};
use super::primitives::{describe, param, Args, ParamType as T, Primitive, Returns};
use super::replay::SchedValue;
use super::tree;
use super::*;
use tessel_tir::analysis::regions::infer_access_regions;
use tessel_tir::arith::int_set::eval_interval;
use tessel_tir::arith::{detect_iter_map, Analyzer, IterMapErrorKind};
use tessel_tir::ir::mutate::{walk_block, walk_expr, walk_stmt, Mutator};

/// `transform_layout`'s `pad_value` argument as given.
#[derive(Clone, Debug)]
pub(crate) enum PadArg {
    None,
    Literal(PadLiteral),
    /// A lambda of the new indices, as Python source.
    Source(String),
}

impl PadArg {
    /// Text from a typed call or a recorded trace: a number or a lambda.
    pub(crate) fn parse_text(text: String) -> PadArg {
        let t = text.trim();
        if let Ok(i) = t.parse::<i64>() {
            PadArg::Literal(PadLiteral::Int(i))
        } else if let Ok(f) = t.parse::<f64>() {
            PadArg::Literal(PadLiteral::Float(f))
        } else if t == "None" {
            PadArg::None
        } else {
            PadArg::Source(text)
        }
    }
}

/// The layout rewriter: accesses of `old` become accesses of `new` at
/// `map(indices)`, simplified with the loop and iterator ranges in scope.
struct LayoutRewriter<'a> {
    old: Buffer,
    new: Buffer,
    map: &'a IndexMap,
    ana: Analyzer,
}

impl LayoutRewriter<'_> {
    fn indices(&self, indices: &[Expr]) -> Vec<Expr> {
        self.map
            .apply(indices)
            .iter()
            .map(|e| self.ana.simplify(e))
            .collect()
    }
}

impl Mutator for LayoutRewriter<'_> {
    fn buffer(&mut self, b: &Buffer) -> Buffer {
        if *b == self.old {
            self.new.clone()
        } else {
            b.clone()
        }
    }
    fn expr(&mut self, e: &Expr) -> Expr {
        if let ExprKind::Load { buffer, indices } = e.kind() {
            if *buffer == self.old {
                let inner: Vec<Expr> = indices.iter().map(|x| self.expr(x)).collect();
                return Expr::new(
                    ExprKind::Load {
                        buffer: self.new.clone(),
                        indices: self.indices(&inner),
                    },
                    e.dtype(),
                    e.span(),
                );
            }
        }
        walk_expr(self, e)
    }
    fn stmt(&mut self, s: &Stmt) -> Stmt {
        match s.kind() {
            StmtKind::For(l) => {
                self.ana
                    .bind(&l.loop_var, &Range::new(l.min.clone(), l.extent.clone()));
                walk_stmt(self, s)
            }
            StmtKind::Store {
                buffer,
                value,
                indices,
            } if *buffer == self.old => {
                let value = self.expr(value);
                let inner: Vec<Expr> = indices.iter().map(|x| self.expr(x)).collect();
                Stmt::new(
                    StmtKind::Store {
                        buffer: self.new.clone(),
                        value,
                        indices: self.indices(&inner),
                    },
                    s.span(),
                )
            }
            StmtKind::BlockRealize(r) => {
                for iv in &r.block.iter_vars {
                    self.ana.bind(&iv.var, &iv.dom);
                }
                let iter_values: Vec<Expr> = r.iter_values.iter().map(|e| self.expr(e)).collect();
                let predicate = self.expr(&r.predicate);
                let mut block = walk_block(self, &r.block);
                let touches = block
                    .reads
                    .iter()
                    .chain(&block.writes)
                    .any(|x| x.buffer == self.new);
                if touches {
                    let (reads, writes) = infer_access_regions(&block);
                    let fix = |regions: &[BufferRegion],
                               inferred: &[BufferRegion],
                               me: &Self|
                     -> Vec<BufferRegion> {
                        regions
                            .iter()
                            .map(|x| {
                                if x.buffer != me.new {
                                    return x.clone();
                                }
                                if let Some(found) = inferred.iter().find(|y| y.buffer == me.new) {
                                    return found.clone();
                                }
                                // Not inferable (e.g. a reduction's own output listed as
                                // a read): map the region's corner.
                                let mins: Vec<Expr> =
                                    x.region.iter().map(|r| r.min.clone()).collect();
                                BufferRegion {
                                    buffer: me.new.clone(),
                                    region: me
                                        .indices(&mins)
                                        .into_iter()
                                        .map(Range::point)
                                        .collect(),
                                }
                            })
                            .collect()
                    };
                    block.reads = fix(&block.reads, &reads, self);
                    block.writes = fix(&block.writes, &writes, self);
                }
                Stmt::new(
                    StmtKind::BlockRealize(BlockRealize {
                        iter_values,
                        predicate,
                        block,
                    }),
                    s.span(),
                )
            }
            _ => walk_stmt(self, s),
        }
    }
}

/// Where a buffer is defined.
enum Origin {
    Param,
    /// Allocated by a block (its path).
    Alloc,
    Other,
}

fn buffer_origin(func: &PrimFunc, buffer: &Buffer) -> Origin {
    if func.param_buffers().any(|b| b == buffer) {
        return Origin::Param;
    }
    let found = tree::find_all(
        &func.body,
        &mut |s| matches!(s.kind(), StmtKind::BlockRealize(r) if r.block.alloc_buffers.contains(buffer)),
    );
    match found.into_iter().next() {
        Some(_) => Origin::Alloc,
        None => Origin::Other,
    }
}

fn not_allocated(primitive: &str, buffer: &Buffer) -> ScheduleError {
    ScheduleError::invalid_argument(
        primitive,
        format!(
            "The input buffer {} is not allocated by a block. This means the buffer is either a \
             function parameter or defined in `match_buffer` of a block.",
            buffer.name
        ),
    )
}

/// Replaces one buffer by another everywhere.
struct SwapBuffer {
    old: Buffer,
    new: Buffer,
}

impl Mutator for SwapBuffer {
    fn buffer(&mut self, b: &Buffer) -> Buffer {
        if *b == self.old {
            self.new.clone()
        } else {
            b.clone()
        }
    }
}

pub(super) const TRANSFORM_LAYOUT: Primitive = Primitive {
    method: "transform_layout",
    aliases: &[],
    kind: "TransformLayout",
    params: &[
        param("block", T::Block),
        param("buffer", T::Any).attr(),
        param("index_map", T::Any).attr(),
        param("pad_value", T::Any).or_none().attr(),
        // The older spelling of an integer `buffer`'s kind.
        param("buffer_index_type", T::Any)
            .optional()
            .keyword_only()
            .not_recorded(),
        param("assume_injective_transform", T::Bool)
            .or_bool(false)
            .keyword_only()
            .attr(),
    ],
    returns: Returns::Nothing,
    traced: true,
    apply: |sch, args| {
        let sel = BufferSel::from_value(args.value("buffer")?, args.get("buffer_index_type")?)
            .map_err(|m| args.err(ScheduleErrorKind::InvalidArgument, m))?;
        let map_src = match args.value("index_map")? {
            SchedValue::Source(s) | SchedValue::Str(s) => s,
            other => {
                return Err(args.err(
                    ScheduleErrorKind::InvalidArgument,
                    format!(
                        "index_map must be a lambda, such as `lambda i, j: (j, i)`; got {}",
                        describe(&other)
                    ),
                ))
            }
        };
        let pad = match args.value("pad_value")? {
            SchedValue::None => PadArg::None,
            SchedValue::Int(v) => PadArg::Literal(PadLiteral::Int(v)),
            SchedValue::Float(v) => PadArg::Literal(PadLiteral::Float(v)),
            SchedValue::Source(s) | SchedValue::Str(s) => PadArg::parse_text(s),
            other => {
                return Err(args.err(
                    ScheduleErrorKind::InvalidArgument,
                    format!(
                        "pad_value must be a number or a lambda, not {}",
                        describe(&other)
                    ),
                ))
            }
        };
        let (buffer, index_map, pad) = sch.transform_layout_concrete(
            args.block("block")?,
            sel,
            &map_src,
            &pad,
            args.bool("assume_injective_transform")?,
        )?;
        // The trace keeps the canonical forms, so replay parses them again.
        args.record_as("buffer", SchedValue::Source(buffer))?;
        args.record_as("index_map", SchedValue::Source(index_map))?;
        args.record_as(
            "pad_value",
            pad.map_or(SchedValue::None, |p| SchedValue::Source(p.python())),
        )?;
        Ok(SchedValue::None)
    },
    menu: None,
};

pub(super) const SET_SCOPE: Primitive = Primitive {
    method: "set_scope",
    aliases: &[],
    kind: "SetScope",
    params: &[
        param("block", T::Block),
        // An index, or a written buffer's name (recorded as its index).
        param("buffer_index", T::Any).attr(),
        param("storage_scope", T::Str).attr(),
    ],
    returns: Returns::Nothing,
    traced: true,
    apply: super::primitives::unless_lean(|sch, args| {
        let block = args.block("block")?;
        let index = buffer_index_arg(sch, args, "buffer_index", block, BufferIndexType::Write)?;
        sch.set_scope_concrete(block, index, &args.string("storage_scope")?)?;
        Ok(SchedValue::None)
    }),
    menu: None,
};

pub(super) const UNSAFE_SET_DTYPE: Primitive = Primitive {
    method: "unsafe_set_dtype",
    aliases: &[],
    kind: "UnsafeSetDType",
    params: &[
        param("block", T::Block),
        param("buffer_index", T::Int).attr(),
        param("dtype", T::Str).attr(),
    ],
    returns: Returns::Nothing,
    traced: true,
    apply: super::primitives::unless_lean(|sch, args| {
        sch.unsafe_set_dtype_concrete(
            args.block("block")?,
            args.int("buffer_index")?,
            &args.string("dtype")?,
        )?;
        Ok(SchedValue::None)
    }),
    menu: None,
};

/// `unsafe_set_dtype`'s rewrite: the buffer swapped for one of the new
/// type, every value stored into it cast to the new type and every load of
/// it cast back to the old one (TVM's casts, kept even on constants).
struct SetDType {
    old: Buffer,
    new: Buffer,
}

impl Mutator for SetDType {
    fn buffer(&mut self, b: &Buffer) -> Buffer {
        if *b == self.old {
            self.new.clone()
        } else {
            b.clone()
        }
    }
    fn expr(&mut self, e: &Expr) -> Expr {
        let out = walk_expr(self, e);
        match e.kind() {
            ExprKind::Load { buffer, .. } if *buffer == self.old => {
                Expr::new(ExprKind::Cast(out), self.old.dtype, e.span())
            }
            _ => out,
        }
    }
    fn stmt(&mut self, s: &Stmt) -> Stmt {
        let out = walk_stmt(self, s);
        match (s.kind(), out.kind()) {
            (StmtKind::Store { buffer, .. }, StmtKind::Store { value, indices, .. })
                if *buffer == self.old =>
            {
                Stmt::new(
                    StmtKind::Store {
                        buffer: self.new.clone(),
                        value: Expr::new(
                            ExprKind::Cast(value.clone()),
                            self.new.dtype,
                            value.span(),
                        ),
                        indices: indices.clone(),
                    },
                    out.span(),
                )
            }
            _ => out,
        }
    }
}

pub(super) const STORAGE_ALIGN: Primitive = Primitive {
    method: "storage_align",
    aliases: &[],
    kind: "StorageAlign",
    params: &[
        param("block", T::Block),
        param("buffer_index", T::Int).attr(),
        param("axis", T::Int).attr(),
        param("factor", T::Int).attr(),
        param("offset", T::Int).attr(),
    ],
    returns: Returns::Nothing,
    traced: true,
    apply: super::primitives::unless_lean(|sch, args| {
        sch.storage_align_concrete(
            args.block("block")?,
            args.int("buffer_index")?,
            args.int("axis")?,
            args.int("factor")?,
            args.int("offset")?,
        )?;
        Ok(SchedValue::None)
    }),
    menu: None,
};

impl Schedule {
    /// Installs a new version of the function being scheduled.
    fn set_func(&mut self, func: PrimFunc) {
        self.module.insert(
            self.func_name.clone(),
            BaseFunc::Prim(std::rc::Rc::new(func)),
        );
    }

    /// `sch.transform_layout(block, buffer, index_map, pad_value=None,
    /// assume_injective_transform=False)`; see the module documentation.
    /// `index_map` is the Python lambda's source text.
    pub fn transform_layout(
        &mut self,
        block_rv: BlockRV,
        buffer: BufferSel,
        index_map: &str,
        pad_value: Option<&str>,
        assume_injective_transform: bool,
    ) -> Result<()> {
        let buffer = match buffer {
            BufferSel::Index(kind, i) => SchedValue::List(vec![kind.name().into(), i.into()]),
            BufferSel::Name(name) => SchedValue::Str(name),
        };
        let pad_value = pad_value.map_or(SchedValue::None, |p| SchedValue::Source(p.to_string()));
        let mut args = Args::typed(
            &TRANSFORM_LAYOUT,
            vec![
                block_rv.into(),
                buffer,
                SchedValue::Source(index_map.to_string()),
                pad_value,
            ],
        );
        args.record_as(
            "assume_injective_transform",
            assume_injective_transform.into(),
        )?;
        self.apply_traced(&TRANSFORM_LAYOUT, args)?;
        Ok(())
    }

    /// Returns the buffer and the index map as the trace prints them
    /// (`("write", 0)`, `lambda i, j: (j, i,)`).
    fn transform_layout_concrete(
        &mut self,
        block_rv: BlockRV,
        buffer: BufferSel,
        index_map: &str,
        pad_value: &PadArg,
        assume_injective_transform: bool,
    ) -> Result<(String, String, Option<PadValue>)> {
        const P: &str = TRANSFORM_LAYOUT_NAME;
        let (path, realize) = self.resolve_block(P, block_rv)?;
        let block = &realize.block;
        let (kind, index) = select_buffer(P, block, &buffer, &path)?;
        let old = nth_access_buffer(P, block, index, kind, &path)?;
        if !old.strides.is_empty() {
            return Err(ScheduleError::unsupported(
                P,
                format!(
                    "buffer {} has explicit strides; Tessel transforms compact buffers only",
                    old.name
                ),
            ));
        }
        // One index type for the whole map: int64 when any dimension is.
        let dtype = if old.shape.iter().any(|e| e.dtype() == DataType::i64()) {
            DataType::i64()
        } else {
            DataType::i32()
        };
        let outer = IndexMap::outer_vars(&*self.func(P)?);
        let map = IndexMap::parse_for(index_map, dtype, Some(old.ndim()), &outer)
            .map_err(|m| ScheduleError::invalid_argument(P, m))?;
        if map.params.len() != old.ndim() {
            return Err(ScheduleError::invalid_argument(
                P,
                format!(
                    "the index map takes {} indices but buffer {} has {} dimension(s)",
                    map.params.len(),
                    old.name,
                    old.ndim()
                ),
            ));
        }
        let func = self.func(P)?;
        check_not_match_source(&func, &old)?;
        let pad = layout_pad_value(&old, &map, pad_value, dtype)?;
        // A permutation of the indices is a bijection whatever the shape.
        let permutation: Option<Vec<usize>> = map
            .results
            .iter()
            .map(|r| {
                r.as_var()
                    .and_then(|v| map.params.iter().position(|p| p == v))
            })
            .collect();
        let permutation = permutation
            .filter(|p| p.len() == map.params.len() && (0..p.len()).all(|i| p.contains(&i)));
        let mut shape = transformed_shape(&func, &old, &map, dtype)?;
        let mut padding: Option<(PaddedInverse, PadValue)> = None;
        if let Some(p) = &permutation {
            shape = p.iter().map(|&i| old.shape[i].clone()).collect();
        } else if !assume_injective_transform {
            padding = check_bijective_or_padded(&old, &map, dtype, &shape, pad.as_ref())?;
        }
        let new = old.derive(|n| n.shape = shape.clone());
        let mut rw = LayoutRewriter {
            old: old.clone(),
            new: new.clone(),
            map: &map,
            ana: Analyzer::new(),
        };
        let body = match &padding {
            Some((inverse, pad)) => write_padding(&func.body, &old, &new, inverse, pad)?,
            None => func.body.clone(),
        };
        let body = rw.stmt(&body);
        let mut f = func.with_body(body);
        for (_, b) in f.buffer_map.iter_mut() {
            if *b == old {
                *b = new.clone();
            }
        }
        self.set_func(f);
        let buffer_arg = format!("(\"{}\", {index})", kind.name());
        Ok((buffer_arg, map.python(), pad))
    }

    /// `sch.set_scope(block, buffer_index, storage_scope)`.
    pub fn set_scope(
        &mut self,
        block_rv: BlockRV,
        buffer_index: i64,
        storage_scope: &str,
    ) -> Result<()> {
        let args = vec![block_rv.into(), buffer_index.into(), storage_scope.into()];
        self.apply_traced(&SET_SCOPE, Args::typed(&SET_SCOPE, args))?;
        Ok(())
    }

    fn set_scope_concrete(
        &mut self,
        block_rv: BlockRV,
        buffer_index: i64,
        storage_scope: &str,
    ) -> Result<()> {
        const P: &str = "set_scope";
        let (path, realize) = self.resolve_block(P, block_rv)?;
        let buffer = nth_access_buffer(
            P,
            &realize.block,
            buffer_index,
            BufferIndexType::Write,
            &path,
        )?;
        check_storage_scope(P, storage_scope)?;
        let func = self.func(P)?;
        if !matches!(buffer_origin(&func, &buffer), Origin::Alloc) {
            return Err(not_allocated(P, &buffer).at(path));
        }
        if buffer.scope != storage_scope {
            let with_scope = |b: &Buffer| {
                b.derive(|n| {
                    n.name = format!("{}_{}", n.name, storage_scope);
                    n.scope = if storage_scope.is_empty() {
                        "global".into()
                    } else {
                        storage_scope.to_string()
                    };
                })
            };
            let new = with_scope(&buffer);
            let mut body = SwapBuffer {
                old: buffer.clone(),
                new,
            }
            .stmt(&func.body);
            // Views of the buffer (`T.match_buffer(B[...], ...)`) move to the
            // new scope too, renamed like it (as TVM does).
            let mut views = Vec::new();
            func.body.walk(&mut |s| {
                if let StmtKind::BlockRealize(r) = s.kind() {
                    for m in &r.block.match_buffers {
                        if m.source.buffer == buffer && !views.contains(&m.buffer) {
                            views.push(m.buffer.clone());
                        }
                    }
                }
            });
            for view in views {
                let new = with_scope(&view);
                body = SwapBuffer { old: view, new }.stmt(&body);
            }
            self.set_body(P, body)?;
        }
        Ok(())
    }

    /// `sch.unsafe_set_dtype(block, buffer_index, dtype)`: the block's
    /// `buffer_index`-th written buffer, which a block must allocate, takes
    /// `dtype`; stores into it cast to `dtype`, loads from it cast back. The
    /// same type changes nothing (and needs no allocation). "Unsafe": the
    /// values may lose precision, which is the caller's choice.
    pub fn unsafe_set_dtype(
        &mut self,
        block_rv: BlockRV,
        buffer_index: i64,
        dtype: &str,
    ) -> Result<()> {
        let args = Args::typed(
            &UNSAFE_SET_DTYPE,
            vec![block_rv.into(), buffer_index.into(), dtype.into()],
        );
        self.apply_traced(&UNSAFE_SET_DTYPE, args)?;
        Ok(())
    }

    fn unsafe_set_dtype_concrete(
        &mut self,
        block_rv: BlockRV,
        buffer_index: i64,
        dtype: &str,
    ) -> Result<()> {
        const P: &str = "unsafe_set_dtype";
        let (path, realize) = self.resolve_block(P, block_rv)?;
        let buffer = nth_access_buffer(
            P,
            &realize.block,
            buffer_index,
            BufferIndexType::Write,
            &path,
        )?;
        let Some(dtype) = DataType::parse(dtype).filter(|d| d.is_scalar()) else {
            return Err(ScheduleError::invalid_argument(
                P,
                format!("`{dtype}` is not a data type"),
            )
            .at(path));
        };
        if buffer.dtype == dtype {
            return Ok(());
        }
        let func = self.func(P)?;
        if !matches!(buffer_origin(&func, &buffer), Origin::Alloc) {
            return Err(not_allocated(P, &buffer).at(path));
        }
        let new = buffer.derive(|n| n.dtype = dtype);
        let body = SetDType { old: buffer, new }.stmt(&func.body);
        self.set_body(P, body)
    }

    /// `sch.storage_align(block, buffer_index, axis, factor, offset)`. Checks
    /// in TVM's order: index, factor, axis, allocation.
    pub fn storage_align(
        &mut self,
        block_rv: BlockRV,
        buffer_index: i64,
        axis: i64,
        factor: i64,
        offset: i64,
    ) -> Result<()> {
        let args = vec![
            block_rv.into(),
            buffer_index.into(),
            axis.into(),
            factor.into(),
            offset.into(),
        ];
        self.apply_traced(&STORAGE_ALIGN, Args::typed(&STORAGE_ALIGN, args))?;
        Ok(())
    }

    fn storage_align_concrete(
        &mut self,
        block_rv: BlockRV,
        buffer_index: i64,
        axis: i64,
        factor: i64,
        offset: i64,
    ) -> Result<()> {
        const P: &str = "storage_align";
        let (path, realize) = self.resolve_block(P, block_rv)?;
        let buffer = nth_access_buffer(
            P,
            &realize.block,
            buffer_index,
            BufferIndexType::Write,
            &path,
        )?;
        if factor <= 0 {
            return Err(ScheduleError::invalid_argument(
                P,
                format!(
                    "The input `factor` of storage_align is expected to be a positive number. However, the input `factor` \
                     is {factor}, which is out of the expected range."
                ),
            )
            .at(path));
        }
        let ndim = buffer.ndim() as i64;
        if axis < -ndim || axis >= ndim {
            return Err(ScheduleError::invalid_argument(
                P,
                format!(
                    "The buffer to set storage alignment of, {}, has {ndim} dimension(s), so `axis` is required to be in \
                     [{}, {ndim}) for storage_align. However, the input `axis` is {axis}, which is out of the expected range.",
                    buffer.name, -ndim
                ),
            )
            .at(path));
        }
        let func = self.func(P)?;
        if !matches!(buffer_origin(&func, &buffer), Origin::Alloc) {
            return Err(not_allocated(P, &buffer).at(path));
        }
        let axis_n = if axis < 0 { axis + ndim } else { axis };
        let entry = AttrValue::Array(vec![
            AttrValue::Int(buffer_index),
            AttrValue::Int(axis_n),
            AttrValue::Int(factor),
            AttrValue::Int(offset),
        ]);
        let mut r = realize.clone();
        let mut list = match r.block.annotations.get("buffer_dim_align") {
            Some(AttrValue::Array(items)) => items.clone(),
            _ => Vec::new(),
        };
        let same = |v: &AttrValue| match v {
            AttrValue::Array(x) => matches!(
                (x.first(), x.get(1)),
                (Some(AttrValue::Int(b)), Some(AttrValue::Int(a))) if *b == buffer_index && *a == axis_n
            ),
            _ => false,
        };
        match list.iter_mut().find(|v| same(v)) {
            Some(slot) => *slot = entry,
            None => list.push(entry),
        }
        r.block
            .annotations
            .insert("buffer_dim_align".to_string(), AttrValue::Array(list));
        let stmt = tree::get(&func.body, &path)
            .map(|s| s.span())
            .unwrap_or_default();
        self.replace_at(P, &path, Stmt::new(StmtKind::BlockRealize(r), stmt))
    }
}

const TRANSFORM_LAYOUT_NAME: &str = "transform_layout";

/// A shape as Python prints a tuple: `(4,)`, `(4, 8)`.
fn shape_text(s: &[Expr]) -> String {
    let items: Vec<String> = s.iter().map(tessel_tir::ir::printer::print_expr).collect();
    if items.len() == 1 {
        format!("({},)", items[0])
    } else {
        format!("({})", items.join(", "))
    }
}

/// Refuses a buffer that some block's `match_buffer` views.
fn check_not_match_source(func: &PrimFunc, old: &Buffer) -> Result<()> {
    let mut used_by_match = false;
    func.body.walk(&mut |s| {
        if let StmtKind::BlockRealize(r) = s.kind() {
            used_by_match |= r
                .block
                .match_buffers
                .iter()
                .any(|m| m.source.buffer == *old);
        }
    });
    if used_by_match {
        return Err(ScheduleError::unsupported(
            TRANSFORM_LAYOUT_NAME,
            format!(
                "buffer {} is the source of a match_buffer; Tessel cannot transform it",
                old.name
            ),
        ));
    }
    Ok(())
}

/// The pad value argument, parsed and checked against the buffer's type.
fn layout_pad_value(
    old: &Buffer,
    map: &IndexMap,
    pad_value: &PadArg,
    dtype: DataType,
) -> Result<Option<PadValue>> {
    const P: &str = TRANSFORM_LAYOUT_NAME;
    let pad = match pad_value {
        PadArg::None => None,
        PadArg::Literal(v) => Some(PadValue::constant(v, old.dtype, map.results.len(), dtype)),
        PadArg::Source(src) => Some(
            PadValue::parse(src, map.results.len(), dtype)
                .map_err(|m| ScheduleError::invalid_argument(P, m))?,
        ),
    };
    if let Some(p) = &pad {
        if p.value.dtype() != old.dtype {
            return Err(ScheduleError::invalid_argument(
                P,
                format!(
                    "Buffer {} has elements of type {}, but the transformation fills padding with {}, which is of type {}",
                    old.name,
                    old.dtype,
                    p.python(),
                    p.value.dtype()
                ),
            ));
        }
    }
    Ok(pad)
}

/// The new shape: the image of the old domain under the map, each result
/// starting at 0.
fn transformed_shape(
    func: &PrimFunc,
    old: &Buffer,
    map: &IndexMap,
    dtype: DataType,
) -> Result<Vec<Expr>> {
    const P: &str = TRANSFORM_LAYOUT_NAME;
    let dom: HashMap<VarId, Range> = map
        .params
        .iter()
        .zip(&old.shape)
        .map(|(v, s)| (v.id(), Range::from_extent(Expr::cast(dtype, s.clone()))))
        .collect();
    // A buffer dimension is never negative: a size variable that is a
    // whole dimension bounds the new shape as TVM's analyzer does.
    let mut ana = Analyzer::new();
    for v in func
        .buffer_map
        .iter()
        .flat_map(|(_, b)| &b.shape)
        .filter_map(|e| e.as_var())
    {
        ana.bind_bound(v, 0, i64::MAX);
    }
    let mut shape = Vec::new();
    for (k, r) in map.results.iter().enumerate() {
        let Some((lo, hi)) = eval_interval(&ana, r, &dom) else {
            return Err(ScheduleError::invalid_argument(
                P,
                format!("cannot bound result {k} of the index map over the buffer's shape"),
            ));
        };
        if !lo.is_const_int(0) {
            return Err(ScheduleError::invalid_argument(
                P,
                format!(
                    "result {k} of the index map starts at {} over the buffer's shape; every new index must start at 0",
                    tessel_tir::ir::printer::print_expr(&lo)
                ),
            ));
        }
        shape.push(ana.simplify(&Expr::binary(
            BinOp::Add,
            hi.clone(),
            Expr::int(1, hi.dtype()),
        )));
    }
    Ok(shape)
}

/// The bijection check of a map that is not a permutation: a bijection onto
/// `shape` passes; a map onto a larger shape that leaves some of it
/// uncovered pads, and needs a pad value and an inverse Tessel can build,
/// which it returns.
fn check_bijective_or_padded(
    old: &Buffer,
    map: &IndexMap,
    dtype: DataType,
    shape: &[Expr],
    pad: Option<&PadValue>,
) -> Result<Option<(PaddedInverse, PadValue)>> {
    const P: &str = TRANSFORM_LAYOUT_NAME;
    let ranges: Vec<(Var, Range)> = map
        .params
        .iter()
        .zip(&old.shape)
        .map(|(v, s)| (v.clone(), Range::from_extent(Expr::cast(dtype, s.clone()))))
        .collect();
    let bijective = detect_iter_map(&map.results, &ranges, &Expr::bool(true));
    let product = |s: &[Expr]| -> Option<i64> {
        s.iter()
            .try_fold(1i64, |acc, e| acc.checked_mul(e.as_int()?))
    };
    match (product(&old.shape), product(shape)) {
        (Some(a), Some(b))
            if b > a
                && matches!(&bijective, Err(why) if matches!(why.kind, IterMapErrorKind::PartlyCovered | IterMapErrorKind::NotDivisible)) =>
        {
            let Some(pad) = pad else {
                return Err(ScheduleError::invalid_argument(
                    P,
                    format!(
                        "The transformation T.index_map({}) applied on buffer {} of shape {} would result in shape {}.  \
                         However, this would introduce padding ({} elements hold {a}); pass a pad_value to fill it.",
                        map.python().replace(",)", ")"),
                        old.name,
                        shape_text(&old.shape),
                        shape_text(shape),
                        b
                    ),
                ));
            };
            // Padding is not a course topic: the playground's
            // first-load worker leaves its code out (feature `lean`).
            if cfg!(feature = "lean") {
                return Err(ScheduleError::left_out(P));
            }
            let Some(inverse) = padded_inverse(&map.params, &map.results, &old.shape, shape) else {
                return Err(ScheduleError::unsupported(
                    P,
                    format!(
                        "the index map {} pads buffer {} of shape {} to shape {} in a way Tessel cannot invert, \
                         so it cannot tell where the padding is",
                        map.python(),
                        old.name,
                        shape_text(&old.shape),
                        shape_text(shape)
                    ),
                ));
            };
            Ok(Some((inverse, pad.clone())))
        }
        (Some(a), Some(b)) if a == b && bijective.is_ok() => Ok(None),
        (Some(_), Some(_)) => Err(ScheduleError::invalid_argument(
            P,
            format!(
                "the index map {} is not a bijection from buffer {} of shape {} onto shape {}{}",
                map.python(),
                old.name,
                shape_text(&old.shape),
                shape_text(shape),
                match &bijective {
                    Err(why) => format!(" ({why})"),
                    Ok(_) => String::new(),
                }
            ),
        )),
        _ => Err(ScheduleError::invalid_argument(
            P,
            format!(
                "cannot prove the index map {} is a bijection on buffer {} of symbolic shape {}; \
                 pass assume_injective_transform=True",
                map.python(),
                old.name,
                shape_text(&old.shape)
            ),
        )),
    }
}
