//! One wasm function from one lowered PrimFunc (or one parallel task body).

use std::collections::HashMap;

use tessel_lower::{LoweredFunc, ParallelTask, PARALLEL_TASK_ATTR};
use tessel_tir::arith::Analyzer;
use tessel_tir::ir::{
    AttrValue, BinOp, Buffer, CmpOp, DataType, Expr, ExprKind, For, ForKind, Intrinsic, Range,
    ScalarKind, Stmt, StmtKind, Var, VarId,
};
use wasm_encoder::{BlockType, Function, Ieee32, Ieee64, Instruction as I, ValType};

use crate::math::MathFn;
use crate::types::{self, load, normalize_small_int, shape, store, val_type, Shape};
use crate::CodegenError;

mod expr;
mod memory;
mod ops;
mod statements;

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
        for sp in tessel_lower::size_params(func) {
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
