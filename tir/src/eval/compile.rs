//! Lowering a `PrimFunc` to the interpreter's own tree ([`CExpr`]/[`CStmt`]):
//! every variable resolved to a slot in a flat value array, every buffer to a
//! slot in a buffer table, every dtype to a [`NumTy`], and the IR's static
//! rules (scoping, operand types, index counts) checked once, up front, with
//! the span of the offending node.
//!
//! Vector values (lanes > 1) are evaluated lane by lane: no operation in the
//! IR mixes lanes, so lane `l` of any expression depends only on lane `l` of
//! its operands (scalars are the same in every lane). A vector variable
//! occupies `lanes` consecutive slots.

use std::collections::{HashMap, HashSet};

use super::scalar::{cast, round_float, Math1, NumTy, V};
use super::EvalError;
use crate::diag::Span;
use crate::ir::{
    BinOp, Buffer, BufferId, CmpOp, DataType, Expr, ExprKind, Intrinsic, IterKind, PrimFunc, Stmt,
    StmtKind, Var, VarId,
};

pub(crate) type Slot = u32;

#[derive(Debug)]
pub(crate) enum CExpr {
    Const(V),
    Var(Slot),
    /// A vector variable of `lanes` lanes: lane `l` lives in slot `base + l`.
    VarLanes {
        base: Slot,
        lanes: u32,
    },
    Bin {
        op: BinOp,
        ty: NumTy,
        a: Box<CExpr>,
        b: Box<CExpr>,
        span: Span,
    },
    Cmp {
        op: CmpOp,
        ty: NumTy,
        a: Box<CExpr>,
        b: Box<CExpr>,
    },
    And(Box<CExpr>, Box<CExpr>),
    Or(Box<CExpr>, Box<CExpr>),
    Not(Box<CExpr>),
    /// Both sides evaluated.
    Select(Box<[CExpr; 3]>),
    /// Only the taken side evaluated.
    IfThenElse(Box<[CExpr; 3]>),
    Cast {
        from: NumTy,
        to: NumTy,
        a: Box<CExpr>,
    },
    Math {
        f: Math1,
        ty: NumTy,
        a: Box<CExpr>,
    },
    Pow {
        ty: NumTy,
        a: Box<CExpr>,
        b: Box<CExpr>,
    },
    Load(Box<Access>),
    Let {
        slot: Slot,
        lanes: u32,
        value: Box<CExpr>,
        body: Box<CExpr>,
    },
    Ramp {
        ty: NumTy,
        base: Box<CExpr>,
        stride: Box<CExpr>,
    },
    Broadcast(Box<CExpr>),
    /// Something the interpreter cannot evaluate; an error if reached.
    Fail {
        message: String,
        span: Span,
    },
}

/// A buffer element access (load or store).
#[derive(Debug)]
pub(crate) struct Access {
    pub buf: u32,
    pub indices: Vec<CExpr>,
    /// Whether the access is checked against the enclosing block's declared
    /// regions (when `check_regions` is on): false for buffers the innermost
    /// block allocates itself.
    pub check: bool,
    pub span: Span,
}

#[derive(Debug)]
pub(crate) enum CStmt {
    For {
        slot: Slot,
        min: CExpr,
        extent: CExpr,
        body: Box<CStmt>,
        span: Span,
    },
    Block(Box<CBlock>),
    Store {
        access: Access,
        value: CExpr,
        lanes: u32,
    },
    Let {
        slot: Slot,
        lanes: u32,
        value: CExpr,
        body: Box<CStmt>,
    },
    If {
        cond: CExpr,
        then: Box<CStmt>,
        otherwise: Option<Box<CStmt>>,
    },
    Eval {
        value: CExpr,
        lanes: u32,
    },
    Seq(Vec<CStmt>),
    Alloc {
        def: AllocDef,
        body: Box<CStmt>,
    },
}

#[derive(Debug)]
pub(crate) struct CBlock {
    pub name: String,
    pub span: Span,
    /// Iterator slots and the values bound to them.
    pub iters: Vec<(Slot, CExpr)>,
    /// Iterator domains `(min, extent)`, checked when `check_regions` is on.
    pub doms: Vec<(CExpr, CExpr)>,
    pub predicate: Option<CExpr>,
    pub allocs: Vec<AllocDef>,
    pub matches: Vec<MatchDef>,
    /// The reduction iterators and their domain minimums: `init` runs when
    /// every one of them is at its minimum.
    pub reduce_at_min: Vec<(Slot, CExpr)>,
    pub init: Option<CStmt>,
    pub body: CStmt,
    /// Declared read/write regions; `None` for the root block (not checked).
    pub regions: Option<Vec<CRegion>>,
}

#[derive(Debug)]
pub(crate) struct CRegion {
    pub buf: u32,
    pub write: bool,
    pub ranges: Vec<(CExpr, CExpr)>,
}

/// A buffer that owns fresh, zeroed storage (`alloc_buffer`, `Allocate`).
#[derive(Debug)]
pub(crate) struct AllocDef {
    pub buf: u32,
    pub store: u32,
    pub ty: NumTy,
    pub shape: Vec<CExpr>,
    pub strides: Vec<CExpr>,
    pub elem_offset: CExpr,
    pub aliases: Vec<AliasDef>,
    pub span: Span,
}

/// Another buffer declared over the same data pointer (e.g. the flat view a
/// lowering pass declares with `T.Buffer((n,), data=A.data)`).
#[derive(Debug)]
pub(crate) struct AliasDef {
    pub buf: u32,
    pub shape: Vec<CExpr>,
    pub strides: Vec<CExpr>,
    pub elem_offset: CExpr,
    pub span: Span,
}

/// How a size (shape, stride, offset) expression meets its actual value:
/// a bare variable seen for the first time is bound to it, anything else must
/// evaluate to it.
#[derive(Debug)]
pub(crate) enum SizeBind {
    Define { slot: Slot, ty: NumTy, name: String },
    Check(CExpr),
}

#[derive(Debug)]
pub(crate) struct MatchDef {
    pub buf: u32,
    pub source: u32,
    pub region: Vec<(CExpr, CExpr)>,
    pub shape: Vec<SizeBind>,
    /// Only variables are bound (to the source strides); constant strides are
    /// ignored — a match buffer is an index remap of its source region.
    pub strides: Vec<Option<SizeBind>>,
    pub elem_offset: Option<SizeBind>,
    pub span: Span,
}

#[derive(Debug)]
pub(crate) enum ParamDef {
    Scalar { slot: Slot, ty: NumTy, name: String },
    Buffer(BufferParam),
}

#[derive(Debug)]
pub(crate) struct BufferParam {
    pub buf: u32,
    pub store: u32,
    pub dtype: DataType,
    pub name: String,
    pub shape: Vec<SizeBind>,
    /// Empty when the buffer declares no strides.
    pub strides: Vec<SizeBind>,
    pub elem_offset: SizeBind,
    pub aliases: Vec<AliasDef>,
    pub span: Span,
}

/// Static facts about a buffer slot, for error messages.
#[derive(Debug, Clone)]
pub(crate) struct BufInfo {
    pub name: String,
    pub ty: NumTy,
}

#[derive(Debug)]
pub(crate) struct Program {
    pub nslots: usize,
    pub nstores: usize,
    pub bufs: Vec<BufInfo>,
    pub params: Vec<ParamDef>,
    pub body: CStmt,
    pub span: Span,
}

#[derive(Clone, Copy)]
struct VarSlot {
    slot: Slot,
    lanes: u32,
}

#[derive(Clone, Copy)]
struct BufSlot {
    buf: u32,
    /// Region-checking depth of the definition (see [`Access::check`]).
    depth: u32,
}

pub(crate) struct Compiler {
    vars: HashMap<VarId, Vec<VarSlot>>,
    bufs: HashMap<BufferId, Vec<BufSlot>>,
    nslots: u32,
    nstores: u32,
    buf_info: Vec<BufInfo>,
    /// Buffers used but never defined, by the data variable they alias.
    aliases: HashMap<VarId, Vec<Buffer>>,
    /// Number of enclosing region-checked blocks.
    depth: u32,
}

fn err(message: impl Into<String>, span: Span) -> EvalError {
    EvalError {
        message: message.into(),
        span,
    }
}

fn num_ty(dt: DataType, span: Span) -> Result<NumTy, EvalError> {
    NumTy::of(dt).ok_or_else(|| err(format!("values of type {dt} are not supported"), span))
}

/// The constant value of a literal, converted to `ty`.
fn literal(kind: &ExprKind, ty: NumTy) -> Option<V> {
    Some(match kind {
        ExprKind::Int(v) => cast(NumTy::I64, ty, V::from_i(*v)),
        ExprKind::Float(f) => {
            if ty.is_float() {
                V::from_f(round_float(ty, *f))
            } else {
                cast(NumTy::F64, ty, V::from_f(*f))
            }
        }
        _ => return None,
    })
}

impl Compiler {
    pub(crate) fn new() -> Compiler {
        Compiler {
            vars: HashMap::new(),
            bufs: HashMap::new(),
            nslots: 0,
            nstores: 0,
            buf_info: Vec::new(),
            aliases: HashMap::new(),
            depth: 0,
        }
    }

    // ---------------------------------------------------------------- scopes

    pub(crate) fn define_var(&mut self, v: &Var) -> Slot {
        let lanes = (v.dtype().lanes as u32).max(1);
        let slot = self.nslots;
        self.nslots += lanes;
        self.vars
            .entry(v.id())
            .or_default()
            .push(VarSlot { slot, lanes });
        slot
    }

    fn undefine_var(&mut self, v: &Var) {
        if let Some(stack) = self.vars.get_mut(&v.id()) {
            stack.pop();
        }
    }

    fn lookup_var(&self, v: &Var) -> Option<VarSlot> {
        self.vars.get(&v.id()).and_then(|s| s.last().copied())
    }

    fn new_buf(&mut self, b: &Buffer, span: Span) -> Result<u32, EvalError> {
        if !b.dtype.is_scalar() {
            return Err(err(
                format!(
                    "buffer {} has vector dtype {}; the interpreter needs scalar buffers",
                    b.name, b.dtype
                ),
                span,
            ));
        }
        let ty = num_ty(b.dtype, span)?;
        let id = self.buf_info.len() as u32;
        self.buf_info.push(BufInfo {
            name: b.name.clone(),
            ty,
        });
        Ok(id)
    }

    fn push_buf(&mut self, b: &Buffer, buf: u32) {
        self.bufs.entry(b.id()).or_default().push(BufSlot {
            buf,
            depth: self.depth,
        });
    }

    fn pop_buf(&mut self, b: &Buffer) {
        if let Some(stack) = self.bufs.get_mut(&b.id()) {
            stack.pop();
        }
    }

    fn lookup_buf(&self, b: &Buffer, span: Span) -> Result<BufSlot, EvalError> {
        self.bufs
            .get(&b.id())
            .and_then(|s| s.last().copied())
            .ok_or_else(|| {
                err(
                    format!(
                        "buffer {} is used outside the scope of its definition \
                         (not a parameter, alloc_buffer, match_buffer or allocation in scope)",
                        b.name
                    ),
                    span,
                )
            })
    }

    fn new_store(&mut self) -> u32 {
        self.nstores += 1;
        self.nstores - 1
    }

    /// Defines buffers that alias `owner`'s data pointer. They must be
    /// undefined again with [`Compiler::pop_aliases`].
    fn push_aliases(&mut self, owner: &Buffer) -> Result<Vec<AliasDef>, EvalError> {
        let list = self
            .aliases
            .get(&owner.data.id())
            .cloned()
            .unwrap_or_default();
        let mut defs = Vec::new();
        for a in &list {
            if a.dtype != owner.dtype {
                return Err(err(
                    format!(
                        "buffer {} ({}) reinterprets the data of {} ({}); the interpreter \
                         only supports views with the same dtype",
                        a.name, a.dtype, owner.name, owner.dtype
                    ),
                    a.span,
                ));
            }
            let buf = self.new_buf(a, a.span)?;
            defs.push(AliasDef {
                buf,
                shape: self.exprs(&a.shape)?,
                strides: self.exprs(&a.strides)?,
                elem_offset: self.expr(&a.elem_offset)?,
                span: a.span,
            });
            self.push_buf(a, buf);
        }
        Ok(defs)
    }

    fn pop_aliases(&mut self, owner: &Buffer) {
        let list = self
            .aliases
            .get(&owner.data.id())
            .cloned()
            .unwrap_or_default();
        for a in &list {
            self.pop_buf(a);
        }
    }

    // ------------------------------------------------------------ functions

    pub(crate) fn compile_func(mut self, func: &PrimFunc) -> Result<Program, EvalError> {
        self.collect_aliases(func);
        let mut params = Vec::new();
        // Scalar parameters first: buffer shapes may use them.
        for p in &func.params {
            if func.param_buffer(p).is_none() {
                if p.dtype().is_handle() {
                    return Err(err(
                        format!(
                            "parameter {} is a handle without a matched buffer",
                            p.name()
                        ),
                        func.span,
                    ));
                }
                if !p.dtype().is_scalar() {
                    return Err(err(
                        format!("parameter {} has vector type {}", p.name(), p.dtype()),
                        func.span,
                    ));
                }
                let ty = num_ty(p.dtype(), func.span)?;
                let slot = self.define_var(p);
                params.push(ParamDef::Scalar {
                    slot,
                    ty,
                    name: p.name().to_string(),
                });
            } else {
                // Placeholder, filled below in order.
                params.push(ParamDef::Scalar {
                    slot: 0,
                    ty: NumTy::I32,
                    name: String::new(),
                });
            }
        }
        // Size variables: the first bare occurrence of an undefined variable
        // in a parameter's shape, strides or offset binds it.
        let mut pending: Vec<(usize, Buffer, u32)> = Vec::new();
        let mut binders: HashSet<(usize, usize)> = HashSet::new();
        for (pi, p) in func.params.iter().enumerate() {
            let Some(b) = func.param_buffer(p) else {
                continue;
            };
            let buf = self.new_buf(b, b.span)?;
            pending.push((pi, b.clone(), buf));
            for (k, e) in b
                .shape
                .iter()
                .chain(&b.strides)
                .chain(std::iter::once(&b.elem_offset))
                .enumerate()
            {
                if let Some(v) = e.as_var() {
                    if self.lookup_var(v).is_none() {
                        self.define_var(v);
                        binders.insert((pi, k));
                    }
                }
            }
        }
        for (pi, b, buf) in pending {
            let mut sizes = Vec::new();
            for (k, e) in b
                .shape
                .iter()
                .chain(&b.strides)
                .chain(std::iter::once(&b.elem_offset))
                .enumerate()
            {
                let bind = if binders.contains(&(pi, k)) {
                    let v = e.as_var().ok_or_else(|| err("internal: binder", b.span))?;
                    let slot = self.lookup_var(v).map(|s| s.slot).unwrap_or(0);
                    SizeBind::Define {
                        slot,
                        ty: num_ty(v.dtype(), b.span)?,
                        name: v.name().to_string(),
                    }
                } else {
                    SizeBind::Check(self.expr(e)?)
                };
                sizes.push(bind);
            }
            let elem_offset = sizes.pop().ok_or_else(|| err("internal: sizes", b.span))?;
            let strides = sizes.split_off(b.shape.len());
            let store = self.new_store();
            self.push_buf(&b, buf);
            let aliases = self.push_aliases(&b)?;
            params[pi] = ParamDef::Buffer(BufferParam {
                buf,
                store,
                dtype: b.dtype,
                name: b.name.clone(),
                shape: sizes,
                strides,
                elem_offset,
                aliases,
                span: b.span,
            });
        }
        let body = self.stmt(&func.body, true)?;
        Ok(Program {
            nslots: self.nslots as usize,
            nstores: self.nstores as usize,
            bufs: self.buf_info,
            params,
            body,
            span: func.span,
        })
    }

    /// Finds buffers that are accessed but have no definition of their own,
    /// and files them under their data variable.
    fn collect_aliases(&mut self, func: &PrimFunc) {
        let mut defined: HashSet<BufferId> = HashSet::new();
        let mut used: Vec<Buffer> = Vec::new();
        for b in func.param_buffers() {
            defined.insert(b.id());
        }
        let note_expr = |e: &Expr, used: &mut Vec<Buffer>| {
            e.walk(&mut |x| {
                if let ExprKind::Load { buffer, .. } = x.kind() {
                    used.push(buffer.clone());
                }
            })
        };
        func.body.walk(&mut |s| {
            s.for_each_expr(|e| note_expr(e, &mut used));
            match s.kind() {
                StmtKind::Store { buffer, .. } => used.push(buffer.clone()),
                StmtKind::Allocate { buffer, .. } => {
                    defined.insert(buffer.id());
                }
                StmtKind::BlockRealize(r) => {
                    let b = &r.block;
                    for a in &b.alloc_buffers {
                        defined.insert(a.id());
                    }
                    for m in &b.match_buffers {
                        defined.insert(m.buffer.id());
                        used.push(m.source.buffer.clone());
                        for range in &m.source.region {
                            note_expr(&range.min, &mut used);
                            note_expr(&range.extent, &mut used);
                        }
                    }
                    for region in b.reads.iter().chain(&b.writes) {
                        used.push(region.buffer.clone());
                    }
                }
                _ => {}
            }
        });
        let mut seen = HashSet::new();
        for b in used {
            if defined.contains(&b.id()) || !seen.insert(b.id()) {
                continue;
            }
            self.aliases.entry(b.data.id()).or_default().push(b);
        }
    }

    // ------------------------------------------------------------ statements

    /// `is_root`: `s` is the function body, whose block (if it is one) is the
    /// root block, exempt from region checks.
    fn stmt(&mut self, s: &Stmt, is_root: bool) -> Result<CStmt, EvalError> {
        let span = s.span();
        Ok(match s.kind() {
            StmtKind::For(l) => {
                if !l.loop_var.dtype().is_integer() || !l.loop_var.dtype().is_scalar() {
                    return Err(err(
                        format!(
                            "loop variable {} has type {}; loops need a scalar integer",
                            l.loop_var.name(),
                            l.loop_var.dtype()
                        ),
                        span,
                    ));
                }
                let min = self.int_scalar(&l.min, "loop start")?;
                let extent = self.int_scalar(&l.extent, "loop extent")?;
                let slot = self.define_var(&l.loop_var);
                let body = self.stmt(&l.body, false)?;
                self.undefine_var(&l.loop_var);
                CStmt::For {
                    slot,
                    min,
                    extent,
                    body: Box::new(body),
                    span,
                }
            }
            StmtKind::BlockRealize(r) => CStmt::Block(Box::new(self.block(r, span, is_root)?)),
            StmtKind::Store {
                buffer,
                value,
                indices,
            } => {
                let value_c = self.expr(value)?;
                let lanes = indices
                    .iter()
                    .map(|e| e.dtype().lanes as u32)
                    .max()
                    .unwrap_or(1)
                    .max(1);
                let vl = value.dtype().lanes as u32;
                if vl != lanes && vl != 1 {
                    return Err(err(
                        format!(
                            "store to {} writes a {}-lane value at {}-lane indices",
                            buffer.name, vl, lanes
                        ),
                        span,
                    ));
                }
                if value.dtype().element() != buffer.dtype {
                    return Err(err(
                        format!(
                            "store of a {} value into buffer {} of dtype {}",
                            value.dtype(),
                            buffer.name,
                            buffer.dtype
                        ),
                        span,
                    ));
                }
                let access = self.access(buffer, indices, lanes as u16, span)?;
                CStmt::Store {
                    access,
                    value: value_c,
                    lanes,
                }
            }
            StmtKind::Let { var, value, body } => {
                self.check_let_type(var, value, span)?;
                let value = self.expr(value)?;
                let slot = self.define_var(var);
                let body = self.stmt(body, false)?;
                self.undefine_var(var);
                CStmt::Let {
                    slot,
                    lanes: (var.dtype().lanes as u32).max(1),
                    value,
                    body: Box::new(body),
                }
            }
            StmtKind::If {
                cond,
                then,
                otherwise,
            } => {
                let cond = self.bool_scalar(cond, "if condition")?;
                let then = Box::new(self.stmt(then, false)?);
                let otherwise = match otherwise {
                    Some(o) => Some(Box::new(self.stmt(o, false)?)),
                    None => None,
                };
                CStmt::If {
                    cond,
                    then,
                    otherwise,
                }
            }
            StmtKind::Evaluate(e) => CStmt::Eval {
                value: self.expr(e)?,
                lanes: (e.dtype().lanes as u32).max(1),
            },
            StmtKind::Seq(v) => CStmt::Seq(
                v.iter()
                    .map(|x| self.stmt(x, false))
                    .collect::<Result<_, _>>()?,
            ),
            StmtKind::Allocate { buffer, body } => {
                let def = self.alloc_def(buffer, span)?;
                let body = self.stmt(body, false)?;
                self.pop_buf(buffer);
                self.pop_aliases(buffer);
                CStmt::Alloc {
                    def,
                    body: Box::new(body),
                }
            }
        })
    }

    /// Compiles an allocation and brings the buffer (and its aliases) into scope.
    fn alloc_def(&mut self, b: &Buffer, span: Span) -> Result<AllocDef, EvalError> {
        let span = if b.span == Span::default() {
            span
        } else {
            b.span
        };
        let buf = self.new_buf(b, span)?;
        let ty = self.buf_info[buf as usize].ty;
        let shape = self.exprs(&b.shape)?;
        let strides = self.exprs(&b.strides)?;
        let elem_offset = self.expr(&b.elem_offset)?;
        let store = self.new_store();
        self.push_buf(b, buf);
        let aliases = self.push_aliases(b)?;
        Ok(AllocDef {
            buf,
            store,
            ty,
            shape,
            strides,
            elem_offset,
            aliases,
            span,
        })
    }

    fn block(
        &mut self,
        r: &crate::ir::BlockRealize,
        span: Span,
        is_root: bool,
    ) -> Result<CBlock, EvalError> {
        let b = &r.block;
        let span = if b.span == Span::default() {
            span
        } else {
            b.span
        };
        if r.iter_values.len() != b.iter_vars.len() {
            return Err(err(
                format!(
                    "block {} has {} iterators but {} bound values",
                    b.name,
                    b.iter_vars.len(),
                    r.iter_values.len()
                ),
                span,
            ));
        }
        // Everything the realize evaluates is in the enclosing scope.
        let mut values = Vec::new();
        let mut doms = Vec::new();
        for (iv, val) in b.iter_vars.iter().zip(&r.iter_values) {
            if !iv.var.dtype().is_integer() || !iv.var.dtype().is_scalar() {
                return Err(err(
                    format!("block iterator {} must be a scalar integer", iv.var.name()),
                    span,
                ));
            }
            values.push(self.int_scalar(val, "block iterator binding")?);
            doms.push((
                self.int_scalar(&iv.dom.min, "iterator domain")?,
                self.int_scalar(&iv.dom.extent, "iterator domain")?,
            ));
        }
        let predicate = match r.predicate.as_int() {
            Some(v) if v != 0 => None,
            _ => Some(self.bool_scalar(&r.predicate, "block predicate")?),
        };
        let mut reduce_at_min = Vec::new();
        let mut iters = Vec::new();
        for (iv, value) in b.iter_vars.iter().zip(values) {
            let slot = self.define_var(&iv.var);
            iters.push((slot, value));
            if iv.kind == IterKind::Reduce {
                reduce_at_min.push((slot, self.int_scalar(&iv.dom.min, "iterator domain")?));
            }
        }
        let checked = !(is_root || (b.iter_vars.is_empty() && b.name == "root"));
        if checked {
            self.depth += 1;
        }
        let mut allocs = Vec::new();
        for a in &b.alloc_buffers {
            allocs.push(self.alloc_def(a, span)?);
        }
        let mut matches = Vec::new();
        let mut match_vars = Vec::new();
        for m in &b.match_buffers {
            let (def, defined) = self.match_def(m, span)?;
            matches.push(def);
            match_vars.extend(defined);
        }
        let regions = if checked {
            let mut out = Vec::new();
            for (region, write) in b
                .reads
                .iter()
                .map(|r| (r, false))
                .chain(b.writes.iter().map(|r| (r, true)))
            {
                let slot = self.lookup_buf(&region.buffer, span)?;
                let mut ranges = Vec::new();
                for range in &region.region {
                    ranges.push((
                        self.int_scalar(&range.min, "region bound")?,
                        self.int_scalar(&range.extent, "region extent")?,
                    ));
                }
                out.push(CRegion {
                    buf: slot.buf,
                    write,
                    ranges,
                });
            }
            Some(out)
        } else {
            None
        };
        let init = match &b.init {
            Some(s) => Some(self.stmt(s, false)?),
            None => None,
        };
        let body = self.stmt(&b.body, false)?;
        for m in b.match_buffers.iter().rev() {
            self.pop_buf(&m.buffer);
        }
        for v in match_vars.iter().rev() {
            self.undefine_var(v);
        }
        for a in b.alloc_buffers.iter().rev() {
            self.pop_buf(a);
            self.pop_aliases(a);
        }
        if checked {
            self.depth -= 1;
        }
        for iv in &b.iter_vars {
            self.undefine_var(&iv.var);
        }
        Ok(CBlock {
            name: b.name.clone(),
            span,
            iters,
            doms,
            predicate,
            allocs,
            matches,
            reduce_at_min,
            init,
            body,
            regions,
        })
    }
}

impl Compiler {
    /// A `match_buffer` view; returns the size variables it defines.
    fn match_def(
        &mut self,
        m: &crate::ir::MatchBufferRegion,
        span: Span,
    ) -> Result<(MatchDef, Vec<Var>), EvalError> {
        let b = &m.buffer;
        let span = if b.span == Span::default() {
            span
        } else {
            b.span
        };
        let src = self.lookup_buf(&m.source.buffer, span)?;
        if b.dtype != m.source.buffer.dtype {
            return Err(err(
                format!(
                    "match_buffer {} has dtype {} but its source {} has dtype {}",
                    b.name, b.dtype, m.source.buffer.name, m.source.buffer.dtype
                ),
                span,
            ));
        }
        if m.source.region.len() != m.source.buffer.ndim() {
            return Err(err(
                format!(
                    "match_buffer {}: the source region has {} dimensions but {} has {}",
                    b.name,
                    m.source.region.len(),
                    m.source.buffer.name,
                    m.source.buffer.ndim()
                ),
                span,
            ));
        }
        if b.ndim() > m.source.region.len() {
            return Err(err(
                format!(
                    "match_buffer {} has {} dimensions, more than its source region's {}",
                    b.name,
                    b.ndim(),
                    m.source.region.len()
                ),
                span,
            ));
        }
        let mut region = Vec::new();
        for r in &m.source.region {
            region.push((
                self.int_scalar(&r.min, "match_buffer region")?,
                self.int_scalar(&r.extent, "match_buffer region")?,
            ));
        }
        let buf = self.new_buf(b, span)?;
        let mut defined = Vec::new();
        // Bare undefined variables are bound by the match (first the
        // definitions, so later checks may use them).
        let is_binder =
            |this: &mut Compiler, e: &Expr, defined: &mut Vec<Var>| -> Option<SizeBind> {
                let v = e.as_var()?;
                if this.lookup_var(v).is_some() || !v.dtype().is_integer() {
                    return None;
                }
                let ty = NumTy::of(v.dtype())?;
                let slot = this.define_var(v);
                defined.push(v.clone());
                Some(SizeBind::Define {
                    slot,
                    ty,
                    name: v.name().to_string(),
                })
            };
        let mut shape_binds: Vec<Option<SizeBind>> = Vec::new();
        for e in &b.shape {
            shape_binds.push(is_binder(self, e, &mut defined));
        }
        let mut strides = Vec::new();
        for e in &b.strides {
            strides.push(is_binder(self, e, &mut defined));
        }
        let elem_offset = is_binder(self, &b.elem_offset, &mut defined);
        let mut shape = Vec::new();
        for (e, bind) in b.shape.iter().zip(shape_binds) {
            shape.push(match bind {
                Some(d) => d,
                None => SizeBind::Check(self.int_scalar(e, "match_buffer shape")?),
            });
        }
        self.push_buf(b, buf);
        Ok((
            MatchDef {
                buf,
                source: src.buf,
                region,
                shape,
                strides,
                elem_offset,
                span,
            },
            defined,
        ))
    }

    /// An access of `lanes` lanes (each index has that many lanes, or one).
    fn access(
        &mut self,
        b: &Buffer,
        indices: &[Expr],
        lanes: u16,
        span: Span,
    ) -> Result<Access, EvalError> {
        let slot = self.lookup_buf(b, span)?;
        if indices.len() != b.ndim() {
            return Err(err(
                format!(
                    "buffer {} has {} dimensions but is indexed with {} indices",
                    b.name,
                    b.ndim(),
                    indices.len()
                ),
                span,
            ));
        }
        let mut out = Vec::with_capacity(indices.len());
        for e in indices {
            let il = e.dtype().lanes;
            if il != 1 && il != lanes {
                return Err(err(
                    format!(
                        "a {lanes}-lane access of buffer {} has an index with {il} lanes",
                        b.name
                    ),
                    span,
                ));
            }
            if !e.dtype().is_integer() {
                return Err(err(
                    format!(
                        "index of buffer {} has type {}, not an integer",
                        b.name,
                        e.dtype()
                    ),
                    if e.span() == Span::default() {
                        span
                    } else {
                        e.span()
                    },
                ));
            }
            out.push(self.expr(e)?);
        }
        Ok(Access {
            buf: slot.buf,
            indices: out,
            check: slot.depth < self.depth,
            span,
        })
    }

    fn exprs(&mut self, es: &[Expr]) -> Result<Vec<CExpr>, EvalError> {
        es.iter()
            .map(|e| self.int_scalar(e, "buffer size"))
            .collect()
    }

    /// An expression that must be a scalar integer.
    fn int_scalar(&mut self, e: &Expr, what: &str) -> Result<CExpr, EvalError> {
        let dt = e.dtype();
        if !dt.is_integer() || !dt.is_scalar() {
            return Err(err(
                format!("{what} has type {dt}; a scalar integer is required"),
                e.span(),
            ));
        }
        self.expr(e)
    }

    /// An expression that must be a scalar bool.
    fn bool_scalar(&mut self, e: &Expr, what: &str) -> Result<CExpr, EvalError> {
        let dt = e.dtype();
        if !dt.is_bool() || !dt.is_scalar() {
            return Err(err(
                format!("{what} has type {dt}; a scalar bool is required"),
                e.span(),
            ));
        }
        self.expr(e)
    }

    fn check_let_type(&self, var: &Var, value: &Expr, span: Span) -> Result<(), EvalError> {
        if var.dtype() != value.dtype() {
            return Err(err(
                format!(
                    "let binds {} of type {} to a value of type {}",
                    var.name(),
                    var.dtype(),
                    value.dtype()
                ),
                span,
            ));
        }
        Ok(())
    }

    /// Checks that operand `a` has the element type of `want` and either its
    /// lanes or a single lane.
    fn operand(
        &mut self,
        a: &Expr,
        want: DataType,
        what: &str,
        span: Span,
    ) -> Result<CExpr, EvalError> {
        let dt = a.dtype();
        if dt.element() != want.element() || (dt.lanes != want.lanes && dt.lanes != 1) {
            return Err(err(
                format!("{what}: operand of type {dt} where {want} is expected"),
                span,
            ));
        }
        self.expr(a)
    }

    fn bool_operand(
        &mut self,
        a: &Expr,
        lanes: u16,
        what: &str,
        span: Span,
    ) -> Result<CExpr, EvalError> {
        let dt = a.dtype();
        if !dt.is_bool() || (dt.lanes != lanes && dt.lanes != 1) {
            return Err(err(
                format!("{what}: operand of type {dt} where a bool is expected"),
                span,
            ));
        }
        self.expr(a)
    }

    pub(crate) fn expr(&mut self, e: &Expr) -> Result<CExpr, EvalError> {
        let span = e.span();
        let dt = e.dtype();
        Ok(match e.kind() {
            ExprKind::Var(v) => {
                let s = self.lookup_var(v).ok_or_else(|| {
                    err(format!("variable {} is not defined here", v.name()), span)
                })?;
                if s.lanes > 1 {
                    CExpr::VarLanes {
                        base: s.slot,
                        lanes: s.lanes,
                    }
                } else {
                    CExpr::Var(s.slot)
                }
            }
            ExprKind::Int(_) | ExprKind::Float(_) => {
                let ty = num_ty(dt, span)?;
                CExpr::Const(literal(e.kind(), ty).unwrap_or_default())
            }
            ExprKind::Str(s) => CExpr::Fail {
                message: format!("the string {s:?} cannot be evaluated as a value"),
                span,
            },
            ExprKind::Binary(op, a, b) => {
                let ty = num_ty(dt, span)?;
                let what = format!("{op:?}");
                CExpr::Bin {
                    op: *op,
                    ty,
                    a: Box::new(self.operand(a, dt, &what, span)?),
                    b: Box::new(self.operand(b, dt, &what, span)?),
                    span,
                }
            }
            ExprKind::Cmp(op, a, b) => {
                let at = a.dtype();
                let ty = num_ty(at, span)?;
                let want = at.element().with_lanes(dt.lanes);
                let what = format!("comparison {}", op.symbol());
                CExpr::Cmp {
                    op: *op,
                    ty,
                    a: Box::new(self.operand(a, want, &what, span)?),
                    b: Box::new(self.operand(b, want, &what, span)?),
                }
            }
            ExprKind::And(a, b) => CExpr::And(
                Box::new(self.bool_operand(a, dt.lanes, "and", span)?),
                Box::new(self.bool_operand(b, dt.lanes, "and", span)?),
            ),
            ExprKind::Or(a, b) => CExpr::Or(
                Box::new(self.bool_operand(a, dt.lanes, "or", span)?),
                Box::new(self.bool_operand(b, dt.lanes, "or", span)?),
            ),
            ExprKind::Not(a) => CExpr::Not(Box::new(self.bool_operand(a, dt.lanes, "not", span)?)),
            ExprKind::Select {
                cond,
                then,
                otherwise,
            } => CExpr::Select(Box::new([
                self.bool_operand(cond, dt.lanes, "Select condition", span)?,
                self.operand(then, dt, "Select", span)?,
                self.operand(otherwise, dt, "Select", span)?,
            ])),
            ExprKind::Cast(a) => {
                let from = num_ty(a.dtype(), span)?;
                let to = num_ty(dt, span)?;
                if a.dtype().lanes != dt.lanes && a.dtype().lanes != 1 {
                    return Err(err(
                        format!("cast from {} to {} changes the lanes", a.dtype(), dt),
                        span,
                    ));
                }
                CExpr::Cast {
                    from,
                    to,
                    a: Box::new(self.expr(a)?),
                }
            }
            ExprKind::Call { op, args } => self.call(op, args, dt, span)?,
            ExprKind::Load { buffer, indices } => {
                if dt.element() != buffer.dtype {
                    return Err(err(
                        format!(
                            "load of type {dt} from buffer {} of dtype {}",
                            buffer.name, buffer.dtype
                        ),
                        span,
                    ));
                }
                CExpr::Load(Box::new(self.access(buffer, indices, dt.lanes, span)?))
            }
            ExprKind::Let { var, value, body } => {
                self.check_let_type(var, value, span)?;
                if body.dtype() != dt {
                    return Err(err(
                        format!(
                            "let expression of type {dt} has a body of type {}",
                            body.dtype()
                        ),
                        span,
                    ));
                }
                let value = self.expr(value)?;
                let slot = self.define_var(var);
                let body = self.expr(body);
                self.undefine_var(var);
                CExpr::Let {
                    slot,
                    lanes: (var.dtype().lanes as u32).max(1),
                    value: Box::new(value),
                    body: Box::new(body?),
                }
            }
            ExprKind::Ramp { base, stride } => {
                let ty = num_ty(base.dtype(), span)?;
                if !base.dtype().is_integer() || !base.dtype().is_scalar() {
                    return Err(err(
                        format!(
                            "ramp base has type {}; a scalar integer is required",
                            base.dtype()
                        ),
                        span,
                    ));
                }
                CExpr::Ramp {
                    ty,
                    base: Box::new(self.expr(base)?),
                    stride: Box::new(self.operand(stride, base.dtype(), "ramp stride", span)?),
                }
            }
            ExprKind::Broadcast(a) => {
                if !a.dtype().is_scalar() || a.dtype().element() != dt.element() {
                    return Err(err(
                        format!("broadcast of a {} value to {}", a.dtype(), dt),
                        span,
                    ));
                }
                CExpr::Broadcast(Box::new(self.expr(a)?))
            }
        })
    }

    fn call(
        &mut self,
        op: &Intrinsic,
        args: &[Expr],
        dt: DataType,
        span: Span,
    ) -> Result<CExpr, EvalError> {
        let arity = |n: usize| -> Result<(), EvalError> {
            if args.len() != n {
                return Err(err(
                    format!(
                        "{} takes {} arguments but {} were given",
                        op.name(),
                        n,
                        args.len()
                    ),
                    span,
                ));
            }
            Ok(())
        };
        let math = match op {
            Intrinsic::IfThenElse => {
                arity(3)?;
                return Ok(CExpr::IfThenElse(Box::new([
                    self.bool_operand(&args[0], dt.lanes, "if_then_else condition", span)?,
                    self.operand(&args[1], dt, "if_then_else", span)?,
                    self.operand(&args[2], dt, "if_then_else", span)?,
                ])));
            }
            Intrinsic::Pow => {
                arity(2)?;
                let ty = num_ty(dt, span)?;
                if !ty.is_float() {
                    return Err(err(format!("pow of {dt} values; pow needs floats"), span));
                }
                return Ok(CExpr::Pow {
                    ty,
                    a: Box::new(self.operand(&args[0], dt, "pow", span)?),
                    b: Box::new(self.operand(&args[1], dt, "pow", span)?),
                });
            }
            Intrinsic::Exp => Math1::Exp,
            Intrinsic::Exp2 => Math1::Exp2,
            Intrinsic::Exp10 => Math1::Exp10,
            Intrinsic::Log => Math1::Log,
            Intrinsic::Log2 => Math1::Log2,
            Intrinsic::Log10 => Math1::Log10,
            Intrinsic::Log1p => Math1::Log1p,
            Intrinsic::Sqrt => Math1::Sqrt,
            Intrinsic::Rsqrt => Math1::Rsqrt,
            Intrinsic::Tanh => Math1::Tanh,
            Intrinsic::Sigmoid => Math1::Sigmoid,
            Intrinsic::Erf => Math1::Erf,
            Intrinsic::Fabs => Math1::Fabs,
            Intrinsic::Floor => Math1::Floor,
            Intrinsic::Ceil => Math1::Ceil,
            Intrinsic::Round => Math1::Round,
            Intrinsic::Trunc => Math1::Trunc,
            Intrinsic::Sin => Math1::Sin,
            Intrinsic::Cos => Math1::Cos,
            Intrinsic::Tan => Math1::Tan,
            Intrinsic::Atan => Math1::Atan,
            Intrinsic::Other(name) => match name.as_str() {
                "likely" => {
                    arity(1)?;
                    return self.operand(&args[0], dt, "likely", span);
                }
                "abs" => Math1::Fabs,
                "nearbyint" => Math1::Round,
                "isnan" => Math1::IsNan,
                "isinf" => Math1::IsInf,
                "isfinite" => Math1::IsFinite,
                // Synchronisation is a no-op in a sequential interpreter;
                // taking an address has no effect of its own (the calls that
                // could use one are refused).
                "tvm_storage_sync" | "tvm_thread_fence" | "tvm_access_ptr" => {
                    return Ok(CExpr::Const(V::default()));
                }
                _ => {
                    return Ok(CExpr::Fail {
                        message: format!("the interpreter does not support the call {name}"),
                        span,
                    })
                }
            },
        };
        arity(1)?;
        let a = &args[0];
        let ty = num_ty(a.dtype(), span)?;
        if !ty.is_float() && !math.accepts_int() && !math.is_predicate() {
            return Err(err(
                format!("{} of a {} value; it needs a float", op.name(), a.dtype()),
                span,
            ));
        }
        let want = if math.is_predicate() {
            a.dtype().element().with_lanes(dt.lanes)
        } else {
            dt
        };
        if math.is_predicate() && !dt.is_bool() {
            return Err(err(format!("{} returns bool, not {dt}", op.name()), span));
        }
        Ok(CExpr::Math {
            f: math,
            ty,
            a: Box::new(self.operand(a, want, op.name(), span)?),
        })
    }
}
