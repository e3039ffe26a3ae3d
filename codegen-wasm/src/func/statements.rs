//! Statements: loops (counted, with constant or computed ends), stack and
//! register allocation of buffers, and the launch of parallel task bodies.

use super::*;

impl<'a> FuncGen<'a> {
    pub(super) fn stmt(&mut self, s: &Stmt) -> R<()> {
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

    pub(super) fn counted_loop(
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
                    tessel_tir::ir::Expr::cast(DataType::i32(), extent.clone()),
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

    pub(super) fn reg_slot(&self, buffer: &Buffer, idx: &Expr) -> Option<u32> {
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
    pub(super) fn launch(&mut self, id: usize, l: &For) -> R<()> {
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
}
