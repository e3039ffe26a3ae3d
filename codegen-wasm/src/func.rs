//! One wasm function from one lowered PrimFunc (or one parallel task body).

use std::collections::HashMap;

use compiler_core::arith::Analyzer;
use compiler_core::ir::{
    AttrValue, BinOp, Buffer, CmpOp, DataType, Expr, ExprKind, For, ForKind, Intrinsic, Range,
    ScalarKind, Stmt, StmtKind, Var, VarId,
};
use compiler_core::lower::{LoweredFunc, ParallelTask, PARALLEL_TASK_ATTR};
use wasm_encoder::{BlockType, Function, Ieee32, Ieee64, Instruction as I, ValType};

use crate::math::MathFn;
use crate::types::{self, load, normalize_small_int, shape, store, val_type, Shape};
use crate::CodegenError;

type R<T> = Result<T, CodegenError>;

/// Indices shared by every function of the module.
pub(crate) struct ModuleCtx {
    /// Imported math functions.
    pub math: HashMap<MathFn, u32>,
    /// Function index of each task body, by (kernel index, task id).
    pub tasks: HashMap<(usize, usize), u32>,
    /// Module-wide number of each task (what `parallel_for` receives).
    pub task_numbers: HashMap<(usize, usize), u32>,
    /// The imported `tessel.parallel_for`, in host-launch mode.
    pub launch: Option<u32>,
    pub sp_global: u32,
    pub limit_global: u32,
    /// Emit `relaxed_madd` for vector multiply-adds ([`crate::BuildOptions`]).
    pub relaxed_fma: bool,
}

/// Stack frames and closure records are rounded up to this many bytes.
pub(crate) const STACK_ALIGN: u64 = 16;
/// One closure slot per captured variable (room for a v128).
pub(crate) const CLOSURE_SLOT: u64 = 16;

/// A buffer held in wasm locals (a small `local` allocation accessed only at
/// constant indices): one local per element, or per vector of `lanes`.
struct RegBuf {
    locals: Vec<u32>,
    lanes: u16,
}

pub(crate) struct FuncGen<'a> {
    ctx: &'a ModuleCtx,
    kernel: usize,
    lowered: &'a LoweredFunc,
    nparams: u32,
    locals: Vec<ValType>,
    pub names: Vec<(u32, String)>,
    vars: HashMap<VarId, u32>,
    bufs: HashMap<VarId, u32>,
    regs: HashMap<VarId, RegBuf>,
    pool: Vec<(ValType, u32)>,
    ana: Analyzer,
    out: Vec<I<'static>>,
}

fn float_bits(dt: DataType) -> Option<u8> {
    (dt.kind == ScalarKind::Float).then_some(dt.bits)
}

fn is_unsigned(dt: DataType) -> bool {
    matches!(
        dt.kind,
        ScalarKind::UInt | ScalarKind::Bool | ScalarKind::Handle
    )
}

impl<'a> FuncGen<'a> {
    pub fn new(ctx: &'a ModuleCtx, kernel: usize, lowered: &'a LoweredFunc) -> Self {
        FuncGen {
            ctx,
            kernel,
            lowered,
            nparams: 0,
            locals: Vec::new(),
            names: Vec::new(),
            vars: HashMap::new(),
            bufs: HashMap::new(),
            regs: HashMap::new(),
            pool: Vec::new(),
            ana: Analyzer::new(),
            out: Vec::new(),
        }
    }

    fn i(&mut self, ins: I<'static>) {
        self.out.push(ins);
    }

    fn param(&mut self, name: &str) -> u32 {
        let idx = self.nparams;
        self.nparams += 1;
        self.names.push((idx, name.to_string()));
        idx
    }

    fn local(&mut self, ty: ValType, name: &str) -> u32 {
        let idx = self.nparams + self.locals.len() as u32;
        self.locals.push(ty);
        self.names.push((idx, name.to_string()));
        idx
    }

    fn temp(&mut self, ty: ValType) -> u32 {
        if let Some(pos) = self.pool.iter().position(|(t, _)| *t == ty) {
            return self.pool.remove(pos).1;
        }
        self.local(ty, "tmp")
    }

    fn release(&mut self, ty: ValType, idx: u32) {
        self.pool.push((ty, idx));
    }

    /// The wasm parameter types of a kernel (in order) and binds them.
    pub fn kernel_params(&mut self) -> R<Vec<ValType>> {
        let func = &self.lowered.func;
        let mut tys = Vec::new();
        for p in &func.params {
            match func.param_buffer(p) {
                Some(b) => {
                    let l = self.param(&b.name);
                    self.bufs.insert(b.data.id(), l);
                    self.vars.insert(p.id(), l);
                    tys.push(ValType::I32);
                }
                None => {
                    let t = val_type(p.dtype())?;
                    let l = self.param(p.name());
                    self.vars.insert(p.id(), l);
                    tys.push(t);
                }
            }
        }
        for sp in compiler_core::lower::size_params(func) {
            let t = val_type(sp.var.dtype())?;
            let l = self.param(sp.var.name());
            self.vars.insert(sp.var.id(), l);
            self.ana.bind_bound(&sp.var, 0, i32::MAX as i64);
            tys.push(t);
        }
        Ok(tys)
    }

    pub fn finish(self) -> (Function, Vec<(u32, String)>) {
        let mut f = Function::new_with_locals_types(self.locals.iter().copied());
        for ins in &self.out {
            f.instruction(ins);
        }
        f.instruction(&I::End);
        (f, self.names)
    }

    /// Emits a kernel body.
    pub fn kernel_body(&mut self) -> R<()> {
        let body = self.lowered.func.body.clone();
        self.stmt(&body)
    }

    /// Emits a task body: params `(begin, end, closure)`, captures loaded
    /// from the closure record, then the loop over `[begin, end)`.
    pub fn task(&mut self, task: &ParallelTask, l: &For) -> R<Vec<ValType>> {
        let lt = val_type(task.loop_var.dtype())?;
        let begin = self.param("begin");
        let end = self.param("end");
        let closure = self.param("closure");
        for (k, v) in task.captures.iter().enumerate() {
            let ty = val_type(v.dtype())?;
            let local = self.local(ty, v.name());
            self.i(I::LocalGet(closure));
            let off = k as u64 * CLOSURE_SLOT;
            self.i(match ty {
                ValType::I32 => I::I32Load(types::memarg(off, 4)),
                ValType::I64 => I::I64Load(types::memarg(off, 8)),
                ValType::F32 => I::F32Load(types::memarg(off, 4)),
                ValType::F64 => I::F64Load(types::memarg(off, 8)),
                _ => I::V128Load(types::memarg(off, 16)),
            });
            self.i(I::LocalSet(local));
            if v.dtype().is_handle() {
                self.bufs.insert(v.id(), local);
            }
            self.vars.insert(v.id(), local);
        }
        self.ana
            .bind(&l.loop_var, &Range::new(l.min.clone(), l.extent.clone()));
        let v = self.local(lt, l.loop_var.name());
        self.vars.insert(l.loop_var.id(), v);
        self.i(I::LocalGet(begin));
        self.i(I::LocalSet(v));
        self.counted_loop(v, lt, end, false, &l.body)?;
        Ok(vec![lt, lt, ValType::I32])
    }

    // ----------------------------------------------------------- statements

    fn stmt(&mut self, s: &Stmt) -> R<()> {
        let span = s.span();
        let r = self.stmt_inner(s);
        r.map_err(|e| e.at(span))
    }

    fn stmt_inner(&mut self, s: &Stmt) -> R<()> {
        match s.kind() {
            StmtKind::For(l) => self.for_loop(l),
            StmtKind::Seq(v) => {
                for x in v {
                    self.stmt(x)?;
                }
                Ok(())
            }
            StmtKind::Let { var, value, body } => {
                let ty = val_type(var.dtype())?;
                self.expr(value)?;
                let local = self.local(ty, var.name());
                self.i(I::LocalSet(local));
                self.vars.insert(var.id(), local);
                if var.dtype().is_handle() {
                    self.bufs.insert(var.id(), local);
                }
                if let Some((lo, hi)) = self.ana.const_int_bound(value) {
                    self.ana.bind_bound(var, lo, hi);
                }
                self.stmt(body)
            }
            StmtKind::If {
                cond,
                then,
                otherwise,
            } => {
                self.cond(cond)?;
                self.i(I::If(BlockType::Empty));
                self.stmt(then)?;
                if let Some(o) = otherwise {
                    self.i(I::Else);
                    self.stmt(o)?;
                }
                self.i(I::End);
                Ok(())
            }
            StmtKind::Evaluate(e) => {
                if e.as_int().is_some() {
                    return Ok(());
                }
                self.expr(e)?;
                self.i(I::Drop);
                Ok(())
            }
            StmtKind::Store {
                buffer,
                value,
                indices,
            } => self.store(buffer, value, indices),
            StmtKind::Allocate { buffer, body } => self.allocate(buffer, body),
            StmtKind::BlockRealize(_) => Err(CodegenError::new(
                "internal: a block reached the code generator (lowering missed it)",
            )),
        }
    }

    fn loop_type(&self, v: &Var) -> R<ValType> {
        let t = val_type(v.dtype())?;
        if !v.dtype().is_integer() || !(t == ValType::I32 || t == ValType::I64) {
            return Err(CodegenError::unsupported(format!(
                "loop variable {} of type {}",
                v.name(),
                v.dtype()
            )));
        }
        Ok(t)
    }

    fn for_loop(&mut self, l: &For) -> R<()> {
        if l.kind == ForKind::Parallel {
            if let Some(AttrValue::Int(id)) = l.annotations.get(PARALLEL_TASK_ATTR) {
                return self.launch(*id as usize, l);
            }
        }
        let lt = self.loop_type(&l.loop_var)?;
        let v = self.local(lt, l.loop_var.name());
        self.vars.insert(l.loop_var.id(), v);
        self.expr_as(&l.min, l.loop_var.dtype())?;
        self.i(I::LocalSet(v));
        // The end: a constant, or computed once.
        let end_const = match (l.min.as_int(), l.extent.as_int()) {
            (Some(a), Some(b)) => a.checked_add(b),
            _ => None,
        };
        let positive = self
            .ana
            .const_int_bound(&l.extent)
            .is_some_and(|(lo, _)| lo >= 1);
        let end = match end_const {
            Some(c) => End::Const(c),
            None => {
                let end = self.local(lt, &format!("{}_end", l.loop_var.name()));
                self.expr_as(&l.min, l.loop_var.dtype())?;
                self.expr_as(&l.extent, l.loop_var.dtype())?;
                self.i(if lt == ValType::I64 {
                    I::I64Add
                } else {
                    I::I32Add
                });
                self.i(I::LocalSet(end));
                End::Local(end)
            }
        };
        self.ana
            .bind(&l.loop_var, &Range::new(l.min.clone(), l.extent.clone()));
        let r = match end {
            End::Const(c) => self.counted_loop_const(v, lt, c, positive, &l.body),
            End::Local(e) => self.counted_loop(v, lt, e, positive, &l.body),
        };
        self.ana.unbind(&l.loop_var);
        r
    }

    fn push_end(&mut self, lt: ValType, end: &End) {
        match *end {
            End::Const(c) => self.i(if lt == ValType::I64 {
                I::I64Const(c)
            } else {
                I::I32Const(c as i32)
            }),
            End::Local(e) => self.i(I::LocalGet(e)),
        }
    }

    fn counted_loop_const(
        &mut self,
        v: u32,
        lt: ValType,
        end: i64,
        positive: bool,
        body: &Stmt,
    ) -> R<()> {
        self.counted_loop_end(v, lt, End::Const(end), positive, body)
    }

    fn counted_loop(
        &mut self,
        v: u32,
        lt: ValType,
        end: u32,
        positive: bool,
        body: &Stmt,
    ) -> R<()> {
        self.counted_loop_end(v, lt, End::Local(end), positive, body)
    }

    /// `v` already holds the start: `[if v < end] loop { body; v++; br_if v < end }`.
    fn counted_loop_end(
        &mut self,
        v: u32,
        lt: ValType,
        end: End,
        positive: bool,
        body: &Stmt,
    ) -> R<()> {
        let wide = lt == ValType::I64;
        if !positive {
            self.i(I::Block(BlockType::Empty));
            self.i(I::LocalGet(v));
            self.push_end(lt, &end);
            self.i(if wide { I::I64GeS } else { I::I32GeS });
            self.i(I::BrIf(0));
        }
        self.i(I::Loop(BlockType::Empty));
        self.stmt(body)?;
        self.i(I::LocalGet(v));
        self.i(if wide { I::I64Const(1) } else { I::I32Const(1) });
        self.i(if wide { I::I64Add } else { I::I32Add });
        self.i(I::LocalTee(v));
        self.push_end(lt, &end);
        self.i(if wide { I::I64LtS } else { I::I32LtS });
        self.i(I::BrIf(0));
        self.i(I::End);
        if !positive {
            self.i(I::End);
        }
        Ok(())
    }

    /// Reserves `size` bytes (on the stack) into a new local; traps when the
    /// stack would pass its limit.
    fn stack_alloc(&mut self, name: &str, size: Option<u64>, dyn_size: Option<&Expr>) -> R<u32> {
        let base = self.local(ValType::I32, name);
        self.i(I::GlobalGet(self.ctx.sp_global));
        self.i(I::LocalTee(base));
        match (size, dyn_size) {
            (Some(n), _) => {
                let n = n.div_ceil(STACK_ALIGN).saturating_mul(STACK_ALIGN);
                let n = i32::try_from(n).map_err(|_| {
                    CodegenError::unsupported(format!("allocation {name} of {n} bytes"))
                })?;
                self.i(I::I32Const(n));
            }
            (None, Some(bytes)) => {
                self.expr_as(bytes, DataType::i32())?;
                self.i(I::I32Const(STACK_ALIGN as i32 - 1));
                self.i(I::I32Add);
                self.i(I::I32Const(!(STACK_ALIGN as i32 - 1)));
                self.i(I::I32And);
            }
            (None, None) => return Err(CodegenError::new("internal: allocation without a size")),
        }
        self.i(I::I32Add);
        self.i(I::GlobalSet(self.ctx.sp_global));
        self.i(I::GlobalGet(self.ctx.sp_global));
        self.i(I::GlobalGet(self.ctx.limit_global));
        self.i(I::I32GtU);
        self.i(I::If(BlockType::Empty));
        self.i(I::Unreachable);
        self.i(I::End);
        Ok(base)
    }

    fn stack_free(&mut self, base: u32) {
        self.i(I::LocalGet(base));
        self.i(I::GlobalSet(self.ctx.sp_global));
    }

    fn allocate(&mut self, buffer: &Buffer, body: &Stmt) -> R<()> {
        if let Some(rb) = self.register_layout(buffer, body)? {
            self.regs.insert(buffer.data.id(), rb);
            let r = self.stmt(body);
            self.regs.remove(&buffer.data.id());
            return r;
        }
        let bytes = buffer.dtype.bytes() as u64;
        let [extent] = buffer.shape.as_slice() else {
            return Err(CodegenError::new(format!(
                "internal: allocation {} is not flat",
                buffer.name
            )));
        };
        let base = match extent.as_int() {
            Some(n) => {
                let n = u64::try_from(n).unwrap_or(0).saturating_mul(bytes);
                self.stack_alloc(&buffer.name, Some(n.max(1)), None)?
            }
            None => {
                let size = Expr::binary(
                    BinOp::Mul,
                    compiler_core::ir::Expr::cast(DataType::i32(), extent.clone()),
                    Expr::i32(bytes as i64),
                );
                self.stack_alloc(&buffer.name, None, Some(&size))?
            }
        };
        self.bufs.insert(buffer.data.id(), base);
        self.stmt(body)?;
        self.stack_free(base);
        Ok(())
    }

    /// Whether `buffer` can live in locals: a constant size of at most 64
    /// values, accessed only at constant indices (all scalar, or all whole
    /// aligned native vectors), its pointer not used otherwise, and not from
    /// inside a parallel task.
    fn register_layout(&mut self, buffer: &Buffer, body: &Stmt) -> R<Option<RegBuf>> {
        let Some(n) = buffer.shape.first().and_then(|e| e.as_int()) else {
            return Ok(None);
        };
        if buffer.shape.len() != 1 || n <= 0 || n > 64 || buffer.dtype.is_bool() {
            return Ok(None);
        }
        let data = buffer.data.clone();
        let mut ok = true;
        let mut lanes_seen: Option<u16> = None;
        let check_index = |idx: &Expr, lanes_seen: &mut Option<u16>| -> bool {
            let (c, lanes) = match idx.kind() {
                ExprKind::Int(c) => (*c, 1u16),
                ExprKind::Ramp { base, stride } if stride.is_const_int(1) => match base.as_int() {
                    Some(c) => (c, idx.dtype().lanes),
                    None => return false,
                },
                _ => return false,
            };
            if *lanes_seen.get_or_insert(lanes) != lanes {
                return false;
            }
            c >= 0
                && c.checked_add(lanes as i64).is_some_and(|end| end <= n)
                && c % lanes as i64 == 0
        };
        fn in_task(s: &Stmt, data: &Var) -> bool {
            let mut found = false;
            s.walk(&mut |x| {
                if let StmtKind::For(l) = x.kind() {
                    if l.kind == ForKind::Parallel && stmt_mentions(&l.body, data) {
                        found = true;
                    }
                }
            });
            found
        }
        if in_task(body, &data) {
            return Ok(None);
        }
        body.walk(&mut |x| {
            if let StmtKind::Store {
                buffer: b, indices, ..
            } = x.kind()
            {
                if b.data == data {
                    ok &= indices.len() == 1 && check_index(&indices[0], &mut lanes_seen);
                }
            }
            x.for_each_expr(|e| {
                e.walk(&mut |y| match y.kind() {
                    ExprKind::Load { buffer: b, indices } if b.data == data => {
                        ok &= indices.len() == 1 && check_index(&indices[0], &mut lanes_seen);
                    }
                    ExprKind::Var(v) if *v == data => ok = false,
                    _ => {}
                })
            });
        });
        let lanes = lanes_seen.unwrap_or(1);
        if !ok || n % lanes as i64 != 0 {
            return Ok(None);
        }
        let dt = buffer.dtype.with_lanes(lanes);
        let ty = match val_type(dt) {
            Ok(t) => t,
            Err(_) => return Ok(None),
        };
        let count = (n / lanes as i64) as usize;
        let mut locals = Vec::with_capacity(count);
        for k in 0..count {
            locals.push(self.local(ty, &format!("{}_{k}", buffer.name)));
        }
        Ok(Some(RegBuf { locals, lanes }))
    }

    fn reg_slot(&self, buffer: &Buffer, idx: &Expr) -> Option<u32> {
        let rb = self.regs.get(&buffer.data.id())?;
        let c = match idx.kind() {
            ExprKind::Int(c) => *c,
            ExprKind::Ramp { base, .. } => base.as_int()?,
            _ => return None,
        };
        rb.locals.get((c / rb.lanes as i64) as usize).copied()
    }

    /// A parallel loop: the closure record on the stack, then the task body
    /// called over the whole range (the single-threaded launch).
    fn launch(&mut self, id: usize, l: &For) -> R<()> {
        let task = self
            .lowered
            .tasks
            .get(id)
            .ok_or_else(|| CodegenError::new(format!("internal: task {id} is missing")))?;
        let fidx = *self
            .ctx
            .tasks
            .get(&(self.kernel, id))
            .ok_or_else(|| CodegenError::new(format!("internal: task {id} has no function")))?;
        let n = task.captures.len() as u64;
        let clo = self.stack_alloc("closure", Some((n * CLOSURE_SLOT).max(STACK_ALIGN)), None)?;
        for (k, v) in task.captures.clone().iter().enumerate() {
            let ty = val_type(v.dtype())?;
            self.i(I::LocalGet(clo));
            self.var(v)?;
            let off = k as u64 * CLOSURE_SLOT;
            self.i(match ty {
                ValType::I32 => I::I32Store(types::memarg(off, 4)),
                ValType::I64 => I::I64Store(types::memarg(off, 8)),
                ValType::F32 => I::F32Store(types::memarg(off, 4)),
                ValType::F64 => I::F64Store(types::memarg(off, 8)),
                _ => I::V128Store(types::memarg(off, 16)),
            });
        }
        let dt = l.loop_var.dtype();
        self.loop_type(&l.loop_var)?;
        let end = self
            .ana
            .simplify(&Expr::binary(BinOp::Add, l.min.clone(), l.extent.clone()));
        match self.ctx.launch {
            // Host launch: parallel_for(task, begin: i64, end: i64, closure).
            Some(launch) => {
                let no = *self
                    .ctx
                    .task_numbers
                    .get(&(self.kernel, id))
                    .ok_or_else(|| {
                        CodegenError::new(format!("internal: task {id} has no number"))
                    })?;
                self.i(I::I32Const(no as i32));
                let wide = DataType::i64();
                self.expr_as(&l.min, wide)?;
                self.expr_as(&end, wide)?;
                self.i(I::LocalGet(clo));
                self.i(I::Call(launch));
            }
            None => {
                self.expr_as(&l.min, dt)?;
                self.expr_as(&end, dt)?;
                self.i(I::LocalGet(clo));
                self.i(I::Call(fidx));
            }
        }
        self.stack_free(clo);
        Ok(())
    }

    // ------------------------------------------------------------ memory

    /// Pushes the address for element `idx` (scalar, or a ramp's base) of a
    /// flat buffer and returns the constant byte offset for the memarg.
    fn address(&mut self, buffer: &Buffer, idx: &Expr) -> R<u64> {
        let base = *self.bufs.get(&buffer.data.id()).ok_or_else(|| {
            CodegenError::new(format!("buffer {} is not defined here", buffer.name))
        })?;
        let bytes = buffer.dtype.bytes() as i64;
        let idx = match idx.kind() {
            ExprKind::Ramp { base, stride } => {
                if !stride.is_const_int(1) {
                    return Err(CodegenError::unsupported(format!(
                        "a strided vector access of {} (only contiguous ones)",
                        buffer.name
                    )));
                }
                base.clone()
            }
            ExprKind::Broadcast(_) => {
                return Err(CodegenError::unsupported(format!(
                    "a gather from {} (every lane at one element)",
                    buffer.name
                )))
            }
            _ => idx.clone(),
        };
        // Split off the constant part (and a constant element offset).
        let mut terms = Vec::new();
        let mut konst = 0i64;
        split_const(&idx, false, &mut terms, &mut konst);
        let mut dyn_part: Option<Expr> = rebuild(&terms, idx.dtype());
        match buffer.elem_offset.as_int() {
            Some(c) => konst = konst.wrapping_add(c),
            None => {
                let eo = compiler_core::ir::Expr::cast(idx.dtype(), buffer.elem_offset.clone());
                dyn_part = Some(match dyn_part {
                    Some(d) => Expr::binary(BinOp::Add, d, eo),
                    None => eo,
                });
            }
        }
        let dyn_nonneg = dyn_part
            .as_ref()
            .is_none_or(|d| self.ana.can_prove_ge(d, 0));
        let byte_off = konst.checked_mul(bytes);
        let use_offset = dyn_nonneg && byte_off.is_some_and(|b| (0..=u32::MAX as i64).contains(&b));
        self.i(I::LocalGet(base));
        let scaled = |g: &mut Self, e: &Expr| -> R<()> {
            g.expr(e)?;
            if val_type(e.dtype())? == ValType::I64 {
                g.i(I::I32WrapI64);
            }
            if bytes > 1 {
                g.i(I::I32Const(bytes.trailing_zeros() as i32));
                g.i(I::I32Shl);
            }
            g.i(I::I32Add);
            Ok(())
        };
        if use_offset {
            if let Some(d) = &dyn_part {
                scaled(self, d)?;
            }
            Ok(byte_off.unwrap_or(0) as u64)
        } else {
            let full = match dyn_part {
                Some(d) => Expr::binary(BinOp::Add, d, Expr::int(konst, idx.dtype())),
                None => Expr::int(konst, idx.dtype()),
            };
            scaled(self, &full)?;
            Ok(0)
        }
    }

    fn store(&mut self, buffer: &Buffer, value: &Expr, indices: &[Expr]) -> R<()> {
        let [idx] = indices else {
            return Err(CodegenError::new(format!(
                "internal: store to {} is not flat",
                buffer.name
            )));
        };
        let dt = buffer
            .dtype
            .with_lanes(value.dtype().lanes.max(idx.dtype().lanes));
        if self.regs.contains_key(&buffer.data.id()) {
            let slot = self.reg_slot(buffer, idx).ok_or_else(|| {
                CodegenError::new(format!("internal: register buffer {} index", buffer.name))
            })?;
            self.expr_as(value, dt)?;
            self.i(I::LocalSet(slot));
            return Ok(());
        }
        let off = self.address(buffer, idx)?;
        self.expr_as(value, dt)?;
        self.i(store(dt, off)?);
        Ok(())
    }

    fn load(&mut self, e: &Expr, buffer: &Buffer, indices: &[Expr]) -> R<()> {
        let [idx] = indices else {
            return Err(CodegenError::new(format!(
                "internal: load from {} is not flat",
                buffer.name
            )));
        };
        if self.regs.contains_key(&buffer.data.id()) {
            let slot = self.reg_slot(buffer, idx).ok_or_else(|| {
                CodegenError::new(format!("internal: register buffer {} index", buffer.name))
            })?;
            self.i(I::LocalGet(slot));
            return Ok(());
        }
        if let ExprKind::Broadcast(x) = idx.kind() {
            // One element in every lane: load it once and splat.
            let s = Expr::load(buffer, vec![x.clone()]);
            self.expr(&s)?;
            self.i(shape(e.dtype())?.splat());
            return Ok(());
        }
        let off = self.address(buffer, idx)?;
        self.i(load(e.dtype(), off)?);
        Ok(())
    }

    // ------------------------------------------------------------ expressions

    fn var(&mut self, v: &Var) -> R<()> {
        if let Some(&l) = self.vars.get(&v.id()) {
            self.i(I::LocalGet(l));
            return Ok(());
        }
        if let Some(&l) = self.bufs.get(&v.id()) {
            self.i(I::LocalGet(l));
            return Ok(());
        }
        Err(CodegenError::new(format!(
            "variable {} is not defined here",
            v.name()
        )))
    }

    /// Pushes `e` converted to `dt` (same lanes): constants re-typed,
    /// scalars splat to vectors.
    fn expr_as(&mut self, e: &Expr, dt: DataType) -> R<()> {
        if e.dtype() == dt {
            return self.expr(e);
        }
        if e.dtype().lanes == 1 && dt.lanes > 1 && e.dtype() == dt.element() {
            self.expr(e)?;
            self.i(shape(dt)?.splat());
            return Ok(());
        }
        if let Some(v) = e.as_int() {
            if dt.is_scalar() {
                return self.expr(&Expr::int(v, dt));
            }
        }
        self.expr(&Expr::cast(dt, e.clone()))
    }

    /// A condition as an `i32` 0/1.
    fn cond(&mut self, c: &Expr) -> R<()> {
        if c.dtype().lanes > 1 {
            return Err(CodegenError::unsupported("a vector condition in an `if`"));
        }
        self.expr(c)?;
        match val_type(c.dtype())? {
            ValType::I32 => {}
            ValType::I64 => {
                self.i(I::I64Const(0));
                self.i(I::I64Ne);
            }
            ValType::F32 => {
                self.i(I::F32Const(Ieee32::new(0)));
                self.i(I::F32Ne);
            }
            ValType::F64 => {
                self.i(I::F64Const(Ieee64::new(0)));
                self.i(I::F64Ne);
            }
            _ => return Err(CodegenError::unsupported("a vector condition")),
        }
        Ok(())
    }

    fn expr(&mut self, e: &Expr) -> R<()> {
        let span = e.span();
        self.expr_inner(e).map_err(|err| err.at(span))
    }

    fn expr_inner(&mut self, e: &Expr) -> R<()> {
        let dt = e.dtype();
        match e.kind() {
            ExprKind::Var(v) => self.var(v),
            ExprKind::Int(v) => self.int_const(*v, dt),
            ExprKind::Float(v) => self.float_const(*v, dt),
            ExprKind::Str(_) => Err(CodegenError::unsupported("a string value")),
            ExprKind::Binary(op, a, b) => self.binary(*op, a, b, dt),
            ExprKind::Cmp(op, a, b) => self.compare(*op, a, b),
            ExprKind::And(a, b) | ExprKind::Or(a, b) => {
                let is_and = matches!(e.kind(), ExprKind::And(..));
                self.expr_as(a, dt)?;
                self.expr_as(b, dt)?;
                self.i(match (dt.lanes > 1, is_and) {
                    (true, true) => I::V128And,
                    (true, false) => I::V128Or,
                    (false, true) => I::I32And,
                    (false, false) => I::I32Or,
                });
                Ok(())
            }
            ExprKind::Not(a) => {
                self.expr_as(a, dt)?;
                self.i(if dt.lanes > 1 { I::V128Not } else { I::I32Eqz });
                Ok(())
            }
            ExprKind::Select {
                cond,
                then,
                otherwise,
            } => {
                if dt.lanes > 1 && cond.dtype().lanes > 1 {
                    self.expr_as(then, dt)?;
                    self.expr_as(otherwise, dt)?;
                    self.expr(cond)?;
                    self.i(I::V128Bitselect);
                } else {
                    self.expr_as(then, dt)?;
                    self.expr_as(otherwise, dt)?;
                    self.cond(cond)?;
                    self.i(I::Select);
                }
                Ok(())
            }
            ExprKind::Cast(a) => self.cast(a, dt),
            ExprKind::Call { op, args } => self.call(op, args, dt),
            ExprKind::Load { buffer, indices } => self.load(e, buffer, indices),
            ExprKind::Let { var, value, body } => {
                let ty = val_type(var.dtype())?;
                self.expr(value)?;
                let local = self.local(ty, var.name());
                self.i(I::LocalSet(local));
                self.vars.insert(var.id(), local);
                self.expr(body)
            }
            ExprKind::Ramp { base, stride } => {
                let sh = shape(dt)?;
                let el = dt.element();
                if !el.is_integer() {
                    return Err(CodegenError::unsupported(format!("a {dt} ramp")));
                }
                // splat(base) + [0, s, 2s, ...] * splat(stride)
                self.expr_as(base, el)?;
                self.i(sh.splat());
                match stride.as_int() {
                    Some(s) => {
                        self.lane_const(sh, |k| s.wrapping_mul(k as i64));
                    }
                    None => {
                        self.lane_const(sh, |k| k as i64);
                        self.expr_as(stride, el)?;
                        self.i(sh.splat());
                        self.i(if sh == Shape::I64x2 {
                            I::I64x2Mul
                        } else {
                            I::I32x4Mul
                        });
                    }
                }
                self.i(if sh == Shape::I64x2 {
                    I::I64x2Add
                } else {
                    I::I32x4Add
                });
                Ok(())
            }
            ExprKind::Broadcast(a) => {
                self.expr_as(a, dt.element())?;
                self.i(shape(dt)?.splat());
                Ok(())
            }
        }
    }

    fn lane_const(&mut self, sh: Shape, f: impl Fn(u8) -> i64) {
        let mut bits: u128 = 0;
        match sh {
            Shape::I64x2 => {
                for k in 0..2u8 {
                    bits |= (f(k) as u64 as u128) << (64 * k as u32);
                }
            }
            _ => {
                for k in 0..4u8 {
                    bits |= (f(k) as u32 as u128) << (32 * k as u32);
                }
            }
        }
        self.i(I::V128Const(bits as i128));
    }

    fn int_const(&mut self, v: i64, dt: DataType) -> R<()> {
        if dt.lanes > 1 {
            self.int_const(v, dt.element())?;
            self.i(shape(dt)?.splat());
            return Ok(());
        }
        match val_type(dt)? {
            ValType::I32 => self.i(I::I32Const(v as i32)),
            ValType::I64 => self.i(I::I64Const(v)),
            ValType::F32 => self.i(I::F32Const(Ieee32::new((v as f32).to_bits()))),
            ValType::F64 => self.i(I::F64Const(Ieee64::new((v as f64).to_bits()))),
            _ => return Err(CodegenError::unsupported(format!("a {dt} constant"))),
        }
        Ok(())
    }

    fn float_const(&mut self, v: f64, dt: DataType) -> R<()> {
        if dt.lanes > 1 {
            self.float_const(v, dt.element())?;
            self.i(shape(dt)?.splat());
            return Ok(());
        }
        match val_type(dt)? {
            ValType::F32 => self.i(I::F32Const(Ieee32::new((v as f32).to_bits()))),
            ValType::F64 => self.i(I::F64Const(Ieee64::new(v.to_bits()))),
            ValType::I32 => self.i(I::I32Const(v as i32)),
            ValType::I64 => self.i(I::I64Const(v as i64)),
            _ => return Err(CodegenError::unsupported(format!("a {dt} constant"))),
        }
        Ok(())
    }

    fn binary(&mut self, op: BinOp, a: &Expr, b: &Expr, dt: DataType) -> R<()> {
        if dt.lanes > 1 {
            return self.vector_binary(op, a, b, dt);
        }
        let ty = val_type(dt)?;
        if let Some(bits) = float_bits(dt) {
            let w = bits == 64;
            match op {
                BinOp::Min | BinOp::Max => return self.select_minmax(op, a, b, dt),
                BinOp::Mod => {
                    // C fmod, exact: computed by the host in f64.
                    self.expr_as(a, dt)?;
                    if !w {
                        self.i(I::F64PromoteF32);
                    }
                    self.expr_as(b, dt)?;
                    if !w {
                        self.i(I::F64PromoteF32);
                    }
                    self.call_math(MathFn::Fmod)?;
                    if !w {
                        self.i(I::F32DemoteF64);
                    }
                    return Ok(());
                }
                BinOp::FloorDiv | BinOp::FloorMod => {
                    // floor(a / b), and a - floor(a / b) * b, in the type.
                    let (ta, tb) = (self.temp(ty), self.temp(ty));
                    self.expr_as(a, dt)?;
                    self.i(I::LocalSet(ta));
                    self.expr_as(b, dt)?;
                    self.i(I::LocalSet(tb));
                    if op == BinOp::FloorMod {
                        self.i(I::LocalGet(ta));
                    }
                    self.i(I::LocalGet(ta));
                    self.i(I::LocalGet(tb));
                    self.i(if w { I::F64Div } else { I::F32Div });
                    self.i(if w { I::F64Floor } else { I::F32Floor });
                    if op == BinOp::FloorMod {
                        self.i(I::LocalGet(tb));
                        self.i(if w { I::F64Mul } else { I::F32Mul });
                        self.i(if w { I::F64Sub } else { I::F32Sub });
                    }
                    self.release(ty, ta);
                    self.release(ty, tb);
                    return Ok(());
                }
                _ => {}
            }
            self.expr_as(a, dt)?;
            self.expr_as(b, dt)?;
            self.i(match (op, w) {
                (BinOp::Add, false) => I::F32Add,
                (BinOp::Sub, false) => I::F32Sub,
                (BinOp::Mul, false) => I::F32Mul,
                (BinOp::Div, false) => I::F32Div,
                (BinOp::Add, true) => I::F64Add,
                (BinOp::Sub, true) => I::F64Sub,
                (BinOp::Mul, true) => I::F64Mul,
                (BinOp::Div, true) => I::F64Div,
                _ => return Err(CodegenError::new("internal: float op")),
            });
            return Ok(());
        }
        if !(dt.is_integer() || dt.is_bool()) {
            return Err(CodegenError::unsupported(format!("arithmetic on {dt}")));
        }
        let w = ty == ValType::I64;
        let unsigned = is_unsigned(dt);
        match op {
            BinOp::Min | BinOp::Max => return self.select_minmax(op, a, b, dt),
            BinOp::FloorDiv | BinOp::FloorMod if !unsigned => {
                return self.floor_divmod(op, a, b, dt);
            }
            _ => {}
        }
        self.expr_as(a, dt)?;
        self.expr_as(b, dt)?;
        let ins = match (op, w) {
            (BinOp::Add, false) => I::I32Add,
            (BinOp::Sub, false) => I::I32Sub,
            (BinOp::Mul, false) => I::I32Mul,
            (BinOp::Add, true) => I::I64Add,
            (BinOp::Sub, true) => I::I64Sub,
            (BinOp::Mul, true) => I::I64Mul,
            (BinOp::Div | BinOp::FloorDiv, false) if unsigned => I::I32DivU,
            (BinOp::Mod | BinOp::FloorMod, false) if unsigned => I::I32RemU,
            (BinOp::Div | BinOp::FloorDiv, true) if unsigned => I::I64DivU,
            (BinOp::Mod | BinOp::FloorMod, true) if unsigned => I::I64RemU,
            (BinOp::Div, false) => I::I32DivS,
            (BinOp::Mod, false) => I::I32RemS,
            (BinOp::Div, true) => I::I64DivS,
            (BinOp::Mod, true) => I::I64RemS,
            _ => return Err(CodegenError::new("internal: int op")),
        };
        self.i(ins);
        for x in normalize_small_int(dt) {
            self.i(x);
        }
        Ok(())
    }

    /// `a < b ? a : b` / `a > b ? a : b` (the interpreter's and TVM's LLVM
    /// semantics, NaNs included).
    fn select_minmax(&mut self, op: BinOp, a: &Expr, b: &Expr, dt: DataType) -> R<()> {
        let ty = val_type(dt)?;
        let (ta, tb) = (self.temp(ty), self.temp(ty));
        self.expr_as(a, dt)?;
        self.i(I::LocalTee(ta));
        self.expr_as(b, dt)?;
        self.i(I::LocalTee(tb));
        self.i(I::LocalGet(ta));
        self.i(I::LocalGet(tb));
        let lt = op == BinOp::Min;
        let f = float_bits(dt);
        let u = is_unsigned(dt);
        self.i(match (f, ty, lt) {
            (Some(32), _, true) => I::F32Lt,
            (Some(32), _, false) => I::F32Gt,
            (Some(_), _, true) => I::F64Lt,
            (Some(_), _, false) => I::F64Gt,
            (None, ValType::I64, true) if u => I::I64LtU,
            (None, ValType::I64, false) if u => I::I64GtU,
            (None, ValType::I64, true) => I::I64LtS,
            (None, ValType::I64, false) => I::I64GtS,
            (None, _, true) if u => I::I32LtU,
            (None, _, false) if u => I::I32GtU,
            (None, _, true) => I::I32LtS,
            (None, _, false) => I::I32GtS,
        });
        self.i(I::Select);
        self.release(ty, ta);
        self.release(ty, tb);
        Ok(())
    }

    /// Signed floor division / modulo. Constant positive divisors: a shift
    /// or mask for powers of two, plain division when `a >= 0` is provable;
    /// otherwise the general correction of truncating division.
    fn floor_divmod(&mut self, op: BinOp, a: &Expr, b: &Expr, dt: DataType) -> R<()> {
        let ty = val_type(dt)?;
        let w = ty == ValType::I64;
        let div = op == BinOp::FloorDiv;
        if let Some(c) = b.as_int() {
            if c > 0 && (c as u64).is_power_of_two() {
                self.expr_as(a, dt)?;
                if div {
                    let k = c.trailing_zeros() as i64;
                    self.int_const(k, dt)?;
                    self.i(if w { I::I64ShrS } else { I::I32ShrS });
                } else {
                    self.int_const(c - 1, dt)?;
                    self.i(if w { I::I64And } else { I::I32And });
                }
                return Ok(());
            }
            if c > 0 && self.ana.can_prove_ge(a, 0) {
                self.expr_as(a, dt)?;
                self.int_const(c, dt)?;
                self.i(match (div, w) {
                    (true, false) => I::I32DivU,
                    (false, false) => I::I32RemU,
                    (true, true) => I::I64DivU,
                    (false, true) => I::I64RemU,
                });
                return Ok(());
            }
        }
        // q = a / b; r = a % b; fix = (r != 0) & ((r ^ b) < 0)
        // floordiv = q - fix; floormod = r + (fix ? b : 0)
        let (ta, tb, tr) = (self.temp(ty), self.temp(ty), self.temp(ty));
        self.expr_as(a, dt)?;
        self.i(I::LocalSet(ta));
        self.expr_as(b, dt)?;
        self.i(I::LocalSet(tb));
        self.i(I::LocalGet(ta));
        self.i(I::LocalGet(tb));
        self.i(if w { I::I64RemS } else { I::I32RemS });
        self.i(I::LocalSet(tr));
        let push_fix = |g: &mut Self| {
            g.i(I::LocalGet(tr));
            g.i(if w { I::I64Const(0) } else { I::I32Const(0) });
            g.i(if w { I::I64Ne } else { I::I32Ne });
            g.i(I::LocalGet(tr));
            g.i(I::LocalGet(tb));
            g.i(if w { I::I64Xor } else { I::I32Xor });
            g.i(if w { I::I64Const(0) } else { I::I32Const(0) });
            g.i(if w { I::I64LtS } else { I::I32LtS });
            g.i(I::I32And);
        };
        if div {
            self.i(I::LocalGet(ta));
            self.i(I::LocalGet(tb));
            self.i(if w { I::I64DivS } else { I::I32DivS });
            push_fix(self);
            if w {
                self.i(I::I64ExtendI32U);
                self.i(I::I64Sub);
            } else {
                self.i(I::I32Sub);
            }
        } else {
            self.i(I::LocalGet(tr));
            self.i(I::LocalGet(tb));
            self.i(if w { I::I64Const(0) } else { I::I32Const(0) });
            push_fix(self);
            self.i(I::Select);
            self.i(if w { I::I64Add } else { I::I32Add });
        }
        self.release(ty, ta);
        self.release(ty, tb);
        self.release(ty, tr);
        for x in normalize_small_int(dt) {
            self.i(x);
        }
        Ok(())
    }

    fn vector_binary(&mut self, op: BinOp, a: &Expr, b: &Expr, dt: DataType) -> R<()> {
        let sh = shape(dt)?;
        let u = is_unsigned(dt);
        // pmin/pmax take (b, a) to give a < b ? a : b / a > b ? a : b.
        if matches!(op, BinOp::Min | BinOp::Max) && matches!(sh, Shape::F32x4 | Shape::F64x2) {
            self.expr_as(b, dt)?;
            self.expr_as(a, dt)?;
            self.i(match (sh, op) {
                (Shape::F32x4, BinOp::Min) => I::F32x4PMin,
                (Shape::F32x4, _) => I::F32x4PMax,
                (_, BinOp::Min) => I::F64x2PMin,
                _ => I::F64x2PMax,
            });
            return Ok(());
        }
        if matches!(op, BinOp::Min | BinOp::Max) && sh == Shape::I64x2 {
            // bitselect(a, b, a < b) / (a > b)
            let (ta, tb) = (self.temp(ValType::V128), self.temp(ValType::V128));
            self.expr_as(a, dt)?;
            self.i(I::LocalTee(ta));
            self.expr_as(b, dt)?;
            self.i(I::LocalTee(tb));
            self.i(I::LocalGet(ta));
            self.i(I::LocalGet(tb));
            if u {
                return Err(CodegenError::unsupported("uint64 vector min/max"));
            }
            self.i(if op == BinOp::Min {
                I::I64x2LtS
            } else {
                I::I64x2GtS
            });
            self.i(I::V128Bitselect);
            self.release(ValType::V128, ta);
            self.release(ValType::V128, tb);
            return Ok(());
        }
        if op == BinOp::Add && self.ctx.relaxed_fma && matches!(sh, Shape::F32x4 | Shape::F64x2) {
            let product = |e: &'_ Expr| match e.kind() {
                ExprKind::Binary(BinOp::Mul, x, y) if e.dtype() == dt => {
                    Some((x.clone(), y.clone()))
                }
                _ => None,
            };
            let fused = match (product(b), product(a)) {
                (Some((x, y)), _) => Some((x, y, a)),
                (None, Some((x, y))) => Some((x, y, b)),
                (None, None) => None,
            };
            if let Some((x, y, addend)) = fused {
                // relaxed_madd(x, y, c) = x * y + c, fused where the engine can.
                self.expr_as(&x, dt)?;
                self.expr_as(&y, dt)?;
                self.expr_as(addend, dt)?;
                self.i(if sh == Shape::F32x4 {
                    I::F32x4RelaxedMadd
                } else {
                    I::F64x2RelaxedMadd
                });
                return Ok(());
            }
        }
        self.expr_as(a, dt)?;
        self.expr_as(b, dt)?;
        let ins = match (sh, op) {
            (Shape::F32x4, BinOp::Add) => I::F32x4Add,
            (Shape::F32x4, BinOp::Sub) => I::F32x4Sub,
            (Shape::F32x4, BinOp::Mul) => I::F32x4Mul,
            (Shape::F32x4, BinOp::Div) => I::F32x4Div,
            (Shape::F64x2, BinOp::Add) => I::F64x2Add,
            (Shape::F64x2, BinOp::Sub) => I::F64x2Sub,
            (Shape::F64x2, BinOp::Mul) => I::F64x2Mul,
            (Shape::F64x2, BinOp::Div) => I::F64x2Div,
            (Shape::I32x4, BinOp::Add) => I::I32x4Add,
            (Shape::I32x4, BinOp::Sub) => I::I32x4Sub,
            (Shape::I32x4, BinOp::Mul) => I::I32x4Mul,
            (Shape::I32x4, BinOp::Min) if u => I::I32x4MinU,
            (Shape::I32x4, BinOp::Max) if u => I::I32x4MaxU,
            (Shape::I32x4, BinOp::Min) => I::I32x4MinS,
            (Shape::I32x4, BinOp::Max) => I::I32x4MaxS,
            (Shape::I64x2, BinOp::Add) => I::I64x2Add,
            (Shape::I64x2, BinOp::Sub) => I::I64x2Sub,
            (Shape::I64x2, BinOp::Mul) => I::I64x2Mul,
            _ => {
                return Err(CodegenError::unsupported(format!(
                    "{op:?} on {dt} vectors has no SIMD128 instruction"
                )))
            }
        };
        self.i(ins);
        Ok(())
    }

    fn compare(&mut self, op: CmpOp, a: &Expr, b: &Expr) -> R<()> {
        // Operands in the wider of the two types (they normally agree).
        let at = if a.dtype().lanes >= b.dtype().lanes {
            a.dtype()
        } else {
            b.dtype()
        };
        let at = if a.as_int().is_some() && b.as_int().is_none() {
            b.dtype().with_lanes(at.lanes)
        } else {
            at
        };
        self.expr_as(a, at)?;
        self.expr_as(b, at)?;
        if at.lanes > 1 {
            let sh = shape(at)?;
            let u = is_unsigned(at);
            let ins = match (sh, op) {
                (Shape::F32x4, CmpOp::Eq) => I::F32x4Eq,
                (Shape::F32x4, CmpOp::Ne) => I::F32x4Ne,
                (Shape::F32x4, CmpOp::Lt) => I::F32x4Lt,
                (Shape::F32x4, CmpOp::Le) => I::F32x4Le,
                (Shape::F32x4, CmpOp::Gt) => I::F32x4Gt,
                (Shape::F32x4, CmpOp::Ge) => I::F32x4Ge,
                (Shape::F64x2, CmpOp::Eq) => I::F64x2Eq,
                (Shape::F64x2, CmpOp::Ne) => I::F64x2Ne,
                (Shape::F64x2, CmpOp::Lt) => I::F64x2Lt,
                (Shape::F64x2, CmpOp::Le) => I::F64x2Le,
                (Shape::F64x2, CmpOp::Gt) => I::F64x2Gt,
                (Shape::F64x2, CmpOp::Ge) => I::F64x2Ge,
                (Shape::I32x4, CmpOp::Eq) => I::I32x4Eq,
                (Shape::I32x4, CmpOp::Ne) => I::I32x4Ne,
                (Shape::I32x4, CmpOp::Lt) if u => I::I32x4LtU,
                (Shape::I32x4, CmpOp::Le) if u => I::I32x4LeU,
                (Shape::I32x4, CmpOp::Gt) if u => I::I32x4GtU,
                (Shape::I32x4, CmpOp::Ge) if u => I::I32x4GeU,
                (Shape::I32x4, CmpOp::Lt) => I::I32x4LtS,
                (Shape::I32x4, CmpOp::Le) => I::I32x4LeS,
                (Shape::I32x4, CmpOp::Gt) => I::I32x4GtS,
                (Shape::I32x4, CmpOp::Ge) => I::I32x4GeS,
                (Shape::I64x2, CmpOp::Eq) => I::I64x2Eq,
                (Shape::I64x2, CmpOp::Ne) => I::I64x2Ne,
                (Shape::I64x2, _) if u => {
                    return Err(CodegenError::unsupported(
                        "unsigned 64-bit vector comparison",
                    ))
                }
                (Shape::I64x2, CmpOp::Lt) => I::I64x2LtS,
                (Shape::I64x2, CmpOp::Le) => I::I64x2LeS,
                (Shape::I64x2, CmpOp::Gt) => I::I64x2GtS,
                (Shape::I64x2, CmpOp::Ge) => I::I64x2GeS,
            };
            self.i(ins);
            return Ok(());
        }
        let ty = val_type(at)?;
        let u = is_unsigned(at);
        let ins = match (ty, op) {
            (ValType::F32, CmpOp::Eq) => I::F32Eq,
            (ValType::F32, CmpOp::Ne) => I::F32Ne,
            (ValType::F32, CmpOp::Lt) => I::F32Lt,
            (ValType::F32, CmpOp::Le) => I::F32Le,
            (ValType::F32, CmpOp::Gt) => I::F32Gt,
            (ValType::F32, CmpOp::Ge) => I::F32Ge,
            (ValType::F64, CmpOp::Eq) => I::F64Eq,
            (ValType::F64, CmpOp::Ne) => I::F64Ne,
            (ValType::F64, CmpOp::Lt) => I::F64Lt,
            (ValType::F64, CmpOp::Le) => I::F64Le,
            (ValType::F64, CmpOp::Gt) => I::F64Gt,
            (ValType::F64, CmpOp::Ge) => I::F64Ge,
            (ValType::I64, CmpOp::Eq) => I::I64Eq,
            (ValType::I64, CmpOp::Ne) => I::I64Ne,
            (ValType::I64, CmpOp::Lt) if u => I::I64LtU,
            (ValType::I64, CmpOp::Le) if u => I::I64LeU,
            (ValType::I64, CmpOp::Gt) if u => I::I64GtU,
            (ValType::I64, CmpOp::Ge) if u => I::I64GeU,
            (ValType::I64, CmpOp::Lt) => I::I64LtS,
            (ValType::I64, CmpOp::Le) => I::I64LeS,
            (ValType::I64, CmpOp::Gt) => I::I64GtS,
            (ValType::I64, CmpOp::Ge) => I::I64GeS,
            (_, CmpOp::Eq) => I::I32Eq,
            (_, CmpOp::Ne) => I::I32Ne,
            (_, CmpOp::Lt) if u => I::I32LtU,
            (_, CmpOp::Le) if u => I::I32LeU,
            (_, CmpOp::Gt) if u => I::I32GtU,
            (_, CmpOp::Ge) if u => I::I32GeU,
            (_, CmpOp::Lt) => I::I32LtS,
            (_, CmpOp::Le) => I::I32LeS,
            (_, CmpOp::Gt) => I::I32GtS,
            (_, CmpOp::Ge) => I::I32GeS,
        };
        self.i(ins);
        Ok(())
    }

    fn cast(&mut self, a: &Expr, to: DataType) -> R<()> {
        let from = a.dtype();
        if from.lanes != to.lanes {
            if from.lanes == 1 {
                // cast then splat
                self.cast(a, to.element())?;
                self.i(shape(to)?.splat());
                return Ok(());
            }
            return Err(CodegenError::unsupported(format!(
                "a cast from {from} to {to}"
            )));
        }
        if to.lanes > 1 {
            return self.vector_cast(a, to);
        }
        self.expr(a)?;
        self.scalar_cast(from, to)
    }

    /// Converts the scalar of type `from` on the stack to `to`.
    fn scalar_cast(&mut self, from: DataType, to: DataType) -> R<()> {
        if from == to {
            return Ok(());
        }
        let ft = val_type(from)?;
        let tt = val_type(to)?;
        let fu = is_unsigned(from);
        let tu = is_unsigned(to);
        if to.is_bool() {
            match ft {
                ValType::I32 => {
                    self.i(I::I32Const(0));
                    self.i(I::I32Ne);
                }
                ValType::I64 => {
                    self.i(I::I64Const(0));
                    self.i(I::I64Ne);
                }
                ValType::F32 => {
                    self.i(I::F32Const(Ieee32::new(0)));
                    self.i(I::F32Ne);
                }
                ValType::F64 => {
                    self.i(I::F64Const(Ieee64::new(0)));
                    self.i(I::F64Ne);
                }
                _ => return Err(CodegenError::unsupported("a vector to bool cast")),
            }
            return Ok(());
        }
        if from.is_float() {
            if to.is_float() {
                match (ft, tt) {
                    (ValType::F32, ValType::F64) => self.i(I::F64PromoteF32),
                    (ValType::F64, ValType::F32) => self.i(I::F32DemoteF64),
                    _ => {}
                }
                return Ok(());
            }
            // float → int: Rust `as` (truncate, saturate at the target's range, NaN → 0).
            if to.bits < 32 {
                let (lo, hi) = int_range(to);
                let w = ft == ValType::F64;
                let c = |v: f64| {
                    if w {
                        I::F64Const(Ieee64::new(v.to_bits()))
                    } else {
                        I::F32Const(Ieee32::new((v as f32).to_bits()))
                    }
                };
                self.i(c(lo as f64));
                self.i(if w { I::F64Max } else { I::F32Max });
                self.i(c(hi as f64));
                self.i(if w { I::F64Min } else { I::F32Min });
            }
            self.i(match (ft, tt, tu) {
                (ValType::F32, ValType::I32, true) => I::I32TruncSatF32U,
                (ValType::F32, ValType::I32, false) => I::I32TruncSatF32S,
                (ValType::F64, ValType::I32, true) => I::I32TruncSatF64U,
                (ValType::F64, ValType::I32, false) => I::I32TruncSatF64S,
                (ValType::F32, ValType::I64, true) => I::I64TruncSatF32U,
                (ValType::F32, ValType::I64, false) => I::I64TruncSatF32S,
                (ValType::F64, ValType::I64, true) => I::I64TruncSatF64U,
                (ValType::F64, ValType::I64, false) => I::I64TruncSatF64S,
                _ => return Err(CodegenError::unsupported(format!("cast {from} → {to}"))),
            });
            return Ok(());
        }
        // From an integer (or bool).
        if to.is_float() {
            self.i(match (ft, tt, fu) {
                (ValType::I32, ValType::F32, true) => I::F32ConvertI32U,
                (ValType::I32, ValType::F32, false) => I::F32ConvertI32S,
                (ValType::I64, ValType::F32, true) => I::F32ConvertI64U,
                (ValType::I64, ValType::F32, false) => I::F32ConvertI64S,
                (ValType::I32, ValType::F64, true) => I::F64ConvertI32U,
                (ValType::I32, ValType::F64, false) => I::F64ConvertI32S,
                (ValType::I64, ValType::F64, true) => I::F64ConvertI64U,
                (ValType::I64, ValType::F64, false) => I::F64ConvertI64S,
                _ => return Err(CodegenError::unsupported(format!("cast {from} → {to}"))),
            });
            return Ok(());
        }
        match (ft, tt) {
            (ValType::I32, ValType::I64) => self.i(if fu {
                I::I64ExtendI32U
            } else {
                I::I64ExtendI32S
            }),
            (ValType::I64, ValType::I32) => self.i(I::I32WrapI64),
            _ => {}
        }
        if tt == ValType::I32 {
            for x in normalize_small_int(to) {
                self.i(x);
            }
        }
        Ok(())
    }

    fn vector_cast(&mut self, a: &Expr, to: DataType) -> R<()> {
        let from = a.dtype();
        let (fs, ts) = (shape(from)?, shape(to)?);
        let native = match (fs, ts) {
            (Shape::I32x4, Shape::F32x4) if from.is_int() && from.bits == 32 => {
                Some(I::F32x4ConvertI32x4S)
            }
            (Shape::I32x4, Shape::F32x4) if from.is_uint() && from.bits == 32 => {
                Some(I::F32x4ConvertI32x4U)
            }
            (Shape::F32x4, Shape::I32x4) if to.is_int() && to.bits == 32 => {
                Some(I::I32x4TruncSatF32x4S)
            }
            (Shape::F32x4, Shape::I32x4) if to.is_uint() && to.bits == 32 => {
                Some(I::I32x4TruncSatF32x4U)
            }
            _ if from.element() == to.element() => None,
            _ => None,
        };
        self.expr(a)?;
        if from.element() == to.element() {
            return Ok(());
        }
        if let Some(ins) = native {
            self.i(ins);
            return Ok(());
        }
        if fs.lanes() != ts.lanes() {
            return Err(CodegenError::unsupported(format!(
                "a cast from {from} to {to}"
            )));
        }
        // Lane by lane.
        let src = self.temp(ValType::V128);
        self.i(I::LocalSet(src));
        self.i(I::V128Const(0));
        for k in 0..fs.lanes() {
            self.i(I::LocalGet(src));
            self.i(fs.extract(k));
            self.scalar_cast(from.element(), to.element())?;
            self.i(ts.replace(k));
        }
        self.release(ValType::V128, src);
        Ok(())
    }

    fn call_math(&mut self, f: MathFn) -> R<()> {
        let idx = *self
            .ctx
            .math
            .get(&f)
            .ok_or_else(|| CodegenError::new(format!("internal: {f:?} not imported")))?;
        self.i(I::Call(idx));
        Ok(())
    }

    fn call(&mut self, op: &Intrinsic, args: &[Expr], dt: DataType) -> R<()> {
        if *op == Intrinsic::IfThenElse {
            let [c, t, o] = args else {
                return Err(CodegenError::new("if_then_else takes 3 arguments"));
            };
            if dt.lanes > 1 {
                return Err(CodegenError::unsupported("a vector if_then_else"));
            }
            let ty = val_type(dt)?;
            self.cond(c)?;
            self.i(I::If(BlockType::Result(ty)));
            self.expr_as(t, dt)?;
            self.i(I::Else);
            self.expr_as(o, dt)?;
            self.i(I::End);
            return Ok(());
        }
        let name = match op {
            Intrinsic::Other(n) => n.as_str(),
            _ => "",
        };
        if name == "likely" {
            let [x] = args else {
                return Err(CodegenError::new("likely takes 1 argument"));
            };
            return self.expr(x);
        }
        let Some(x) = args.first() else {
            return Err(CodegenError::new(format!(
                "T.{} without arguments",
                op.name()
            )));
        };
        let at = x.dtype();
        if dt.lanes > 1 {
            let sh = shape(dt)?;
            self.expr_as(x, dt)?;
            let w = sh == Shape::F64x2;
            let (f64x2, f32x4) = match op {
                Intrinsic::Fabs if dt.is_float() => (I::F64x2Abs, I::F32x4Abs),
                Intrinsic::Sqrt => (I::F64x2Sqrt, I::F32x4Sqrt),
                Intrinsic::Floor => (I::F64x2Floor, I::F32x4Floor),
                Intrinsic::Ceil => (I::F64x2Ceil, I::F32x4Ceil),
                Intrinsic::Trunc => (I::F64x2Trunc, I::F32x4Trunc),
                Intrinsic::Round => (I::F64x2Nearest, I::F32x4Nearest),
                _ => {
                    return Err(CodegenError::unsupported(format!(
                        "T.{} on {dt} vectors",
                        op.name()
                    )))
                }
            };
            self.i(if w { f64x2 } else { f32x4 });
            return Ok(());
        }
        if !at.is_float() {
            // Integer identity cases (as the interpreter), abs.
            return match op {
                Intrinsic::Floor | Intrinsic::Ceil | Intrinsic::Round | Intrinsic::Trunc => {
                    self.expr_as(x, dt)
                }
                Intrinsic::Fabs => {
                    // select(-x, x, x < 0)
                    let ty = val_type(dt)?;
                    let w = ty == ValType::I64;
                    let t = self.temp(ty);
                    self.expr_as(x, dt)?;
                    self.i(I::LocalSet(t));
                    self.i(if w { I::I64Const(0) } else { I::I32Const(0) });
                    self.i(I::LocalGet(t));
                    self.i(if w { I::I64Sub } else { I::I32Sub });
                    self.i(I::LocalGet(t));
                    self.i(I::LocalGet(t));
                    self.i(if w { I::I64Const(0) } else { I::I32Const(0) });
                    self.i(if w { I::I64LtS } else { I::I32LtS });
                    self.i(I::Select);
                    self.release(ty, t);
                    for x in normalize_small_int(dt) {
                        self.i(x);
                    }
                    Ok(())
                }
                _ => Err(CodegenError::unsupported(format!(
                    "T.{} of a {at} value",
                    op.name()
                ))),
            };
        }
        let w = at.bits == 64;
        let native = match op {
            Intrinsic::Fabs => Some(if w { I::F64Abs } else { I::F32Abs }),
            Intrinsic::Sqrt => Some(if w { I::F64Sqrt } else { I::F32Sqrt }),
            Intrinsic::Floor => Some(if w { I::F64Floor } else { I::F32Floor }),
            Intrinsic::Ceil => Some(if w { I::F64Ceil } else { I::F32Ceil }),
            Intrinsic::Trunc => Some(if w { I::F64Trunc } else { I::F32Trunc }),
            Intrinsic::Round => Some(if w { I::F64Nearest } else { I::F32Nearest }),
            Intrinsic::Other(n) if n == "abs" => Some(if w { I::F64Abs } else { I::F32Abs }),
            Intrinsic::Other(n) if n == "nearbyint" => {
                Some(if w { I::F64Nearest } else { I::F32Nearest })
            }
            _ => None,
        };
        if let Some(ins) = native {
            self.expr_as(x, at)?;
            self.i(ins);
            return Ok(());
        }
        // In f64, like the interpreter, then rounded to the type.
        let promote = |g: &mut Self| {
            if !w {
                g.i(I::F64PromoteF32);
            }
        };
        let one = I::F64Const(Ieee64::new(1.0f64.to_bits()));
        match op {
            Intrinsic::Rsqrt => {
                self.i(one);
                self.expr_as(x, at)?;
                promote(self);
                self.i(I::F64Sqrt);
                self.i(I::F64Div);
            }
            Intrinsic::Sigmoid => {
                self.i(one.clone());
                self.i(one);
                self.expr_as(x, at)?;
                promote(self);
                self.i(I::F64Neg);
                self.call_math(MathFn::Exp)?;
                self.i(I::F64Add);
                self.i(I::F64Div);
            }
            Intrinsic::Pow => {
                let [a, b] = args else {
                    return Err(CodegenError::new("pow takes 2 arguments"));
                };
                self.expr_as(a, at)?;
                promote(self);
                self.expr_as(b, at)?;
                promote(self);
                self.call_math(MathFn::Pow)?;
            }
            _ => {
                let f = MathFn::of(op).ok_or_else(|| {
                    CodegenError::unsupported(format!("the call T.{}", op.name()))
                })?;
                self.expr_as(x, at)?;
                promote(self);
                self.call_math(f)?;
            }
        }
        if !w {
            self.i(I::F32DemoteF64);
        }
        Ok(())
    }
}

enum End {
    Const(i64),
    Local(u32),
}

fn int_range(dt: DataType) -> (i64, i64) {
    match (dt.kind, dt.bits) {
        (ScalarKind::Int, 8) => (i8::MIN as i64, i8::MAX as i64),
        (ScalarKind::Int, 16) => (i16::MIN as i64, i16::MAX as i64),
        (ScalarKind::UInt, 8) => (0, u8::MAX as i64),
        (ScalarKind::UInt, 16) => (0, u16::MAX as i64),
        _ => (i64::MIN, i64::MAX),
    }
}

fn stmt_mentions(s: &Stmt, data: &Var) -> bool {
    let mut found = false;
    s.walk(&mut |x| {
        if let StmtKind::Store { buffer, .. } = x.kind() {
            found |= buffer.data == *data;
        }
        x.for_each_expr(|e| {
            e.walk(&mut |y| match y.kind() {
                ExprKind::Load { buffer, .. } => found |= buffer.data == *data,
                ExprKind::Var(v) => found |= v == data,
                _ => {}
            })
        });
    });
    found
}

/// Splits a sum into its non-constant terms and its constant.
fn split_const(e: &Expr, neg: bool, terms: &mut Vec<(Expr, bool)>, konst: &mut i64) {
    match e.kind() {
        ExprKind::Binary(BinOp::Add, a, b) => {
            split_const(a, neg, terms, konst);
            split_const(b, neg, terms, konst);
        }
        ExprKind::Binary(BinOp::Sub, a, b) => {
            split_const(a, neg, terms, konst);
            split_const(b, !neg, terms, konst);
        }
        ExprKind::Int(v) => {
            *konst = if neg {
                konst.wrapping_sub(*v)
            } else {
                konst.wrapping_add(*v)
            }
        }
        _ => terms.push((e.clone(), neg)),
    }
}

fn rebuild(terms: &[(Expr, bool)], dtype: DataType) -> Option<Expr> {
    let mut acc: Option<Expr> = None;
    for (t, neg) in terms {
        acc = Some(match (acc, neg) {
            (None, false) => t.clone(),
            (None, true) => Expr::binary(BinOp::Sub, Expr::int(0, dtype), t.clone()),
            (Some(a), false) => Expr::binary(BinOp::Add, a, t.clone()),
            (Some(a), true) => Expr::binary(BinOp::Sub, a, t.clone()),
        });
    }
    acc
}
