//! Running a compiled [`Program`].

use super::compile::{
    Access, AliasDef, AllocDef, BufferParam, CBlock, CExpr, CStmt, MatchDef, ParamDef, Program,
    SizeBind,
};
use super::ndarray::{Data, NDArray};
use super::scalar::{binary, cast, compare, math1, pow, wrap, NumTy, V};
use super::{EvalError, EvalOptions, EvalStats};
use crate::diag::Span;

/// Errors travel boxed so `Result<V, Fault>` stays two words.
pub(crate) type Fault = Box<EvalError>;

fn fault(message: impl Into<String>, span: Span) -> Fault {
    Box::new(EvalError {
        message: message.into(),
        span,
    })
}

/// Where a buffer's elements live, and how an index maps onto them.
#[derive(Clone, Debug, Default)]
pub(crate) struct BufRt {
    store: u32,
    offset: i64,
    shape: Vec<i64>,
    strides: Vec<i64>,
}

/// One declared region, evaluated: buffer slot, whether it is a write, and
/// half-open `[lo, hi)` bounds per dimension.
type RtRegion = (u32, bool, Vec<(i64, i64)>);

/// The regions a block declares, evaluated on entry.
struct BlockRegions {
    name: String,
    regions: Vec<RtRegion>,
}

pub(crate) struct Machine<'p> {
    prog: &'p Program,
    pub(crate) slots: Vec<V>,
    bufs: Vec<BufRt>,
    stores: Vec<Data>,
    steps: u64,
    budget: u64,
    check_regions: bool,
    max_alloc_bytes: u64,
    regions: Vec<BlockRegions>,
    scratch: Vec<(usize, V)>,
}

fn compact_strides(shape: &[i64]) -> Vec<i64> {
    let mut strides = vec![0i64; shape.len()];
    let mut acc: i64 = 1;
    for k in (0..shape.len()).rev() {
        strides[k] = acc;
        acc = acc.wrapping_mul(shape[k].max(1));
    }
    strides
}

/// Elements a layout spans: `offset + Σ (shape_k - 1) * stride_k + 1`, or
/// `None` on overflow or negative sizes.
fn span_of(offset: i64, shape: &[i64], strides: &[i64]) -> Option<i64> {
    if offset < 0 || shape.iter().any(|&s| s < 0) || strides.iter().any(|&s| s < 0) {
        return None;
    }
    if shape.contains(&0) {
        return Some(offset);
    }
    let mut last = offset;
    for (&s, &st) in shape.iter().zip(strides) {
        last = last.checked_add((s - 1).checked_mul(st)?)?;
    }
    last.checked_add(1)
}

fn elem_bytes(ty: NumTy) -> u64 {
    match ty {
        NumTy::Bool | NumTy::I8 | NumTy::U8 => 1,
        NumTy::I16 | NumTy::U16 | NumTy::F16 => 2,
        NumTy::I32 | NumTy::U32 | NumTy::F32 => 4,
        _ => 8,
    }
}

impl<'p> Machine<'p> {
    pub(crate) fn new(prog: &'p Program, opts: &EvalOptions) -> Machine<'p> {
        Machine {
            prog,
            slots: vec![V::default(); prog.nslots],
            bufs: vec![BufRt::default(); prog.bufs.len()],
            stores: (0..prog.nstores).map(|_| Data::empty()).collect(),
            steps: 0,
            budget: opts.step_budget.unwrap_or(u64::MAX),
            check_regions: opts.check_regions,
            max_alloc_bytes: opts.max_alloc_bytes,
            regions: Vec::new(),
            scratch: Vec::new(),
        }
    }

    /// Binds the arguments, runs the body, and hands the argument storage back.
    pub(crate) fn run(mut self, args: &mut [NDArray]) -> Result<EvalStats, EvalError> {
        let prog = self.prog;
        if args.len() != prog.params.len() {
            let expected: Vec<String> = prog
                .params
                .iter()
                .map(|p| match p {
                    ParamDef::Scalar { name, .. } => name.clone(),
                    ParamDef::Buffer(b) => b.name.clone(),
                })
                .collect();
            return Err(EvalError {
                message: format!(
                    "the function takes {} arguments ({}) but {} were given",
                    prog.params.len(),
                    expected.join(", "),
                    args.len()
                ),
                span: prog.span,
            });
        }
        self.bind_params(args).map_err(|e| *e)?;
        // Move the argument data into the machine for the run.
        for (p, arg) in prog.params.iter().zip(args.iter_mut()) {
            if let ParamDef::Buffer(b) = p {
                self.stores[b.store as usize] = std::mem::replace(&mut arg.data, Data::empty());
            }
        }
        let mut result = self.setup_param_aliases(args);
        if result.is_ok() {
            result = self.exec(&prog.body);
        }
        for (p, arg) in prog.params.iter().zip(args.iter_mut()) {
            if let ParamDef::Buffer(b) = p {
                arg.data = std::mem::replace(&mut self.stores[b.store as usize], Data::empty());
            }
        }
        result.map_err(|e| *e)?;
        Ok(EvalStats { steps: self.steps })
    }

    fn bind_params(&mut self, args: &[NDArray]) -> Result<(), Fault> {
        let prog = self.prog;
        for (i, (p, arg)) in prog.params.iter().zip(args).enumerate() {
            match p {
                ParamDef::Scalar { slot, ty, name } => {
                    if arg.ndim() != 0 {
                        return Err(fault(
                            format!(
                                "argument {i} ({name}) is a scalar parameter and needs a 0-d array, \
                                 got shape {:?}",
                                arg.shape()
                            ),
                            prog.span,
                        ));
                    }
                    let v = arg.get_v(0).ok_or_else(|| {
                        fault(format!("argument {i} ({name}) is empty"), prog.span)
                    })?;
                    self.slots[*slot as usize] = cast(arg.ty(), *ty, v);
                }
                ParamDef::Buffer(b) => {
                    if arg.dtype() != b.dtype {
                        return Err(fault(
                            format!(
                                "argument {i} ({}) has dtype {} but the buffer is {}",
                                b.name,
                                arg.dtype(),
                                b.dtype
                            ),
                            b.span,
                        ));
                    }
                    if arg.ndim() != b.shape.len() {
                        return Err(fault(
                            format!(
                                "argument {i} ({}) has {} dimensions (shape {:?}) but the buffer has {}",
                                b.name,
                                arg.ndim(),
                                arg.shape(),
                                b.shape.len()
                            ),
                            b.span,
                        ));
                    }
                    let (shape, strides) = actual_layout(arg)?;
                    self.for_each_size(b, &shape, &strides, true)?;
                }
            }
        }
        // Now every size variable is bound: check the rest.
        for (p, arg) in prog.params.iter().zip(args) {
            if let ParamDef::Buffer(b) = p {
                let (shape, strides) = actual_layout(arg)?;
                self.for_each_size(b, &shape, &strides, false)?;
                let rt = &mut self.bufs[b.buf as usize];
                rt.store = b.store;
                rt.offset = 0;
                rt.shape = shape;
                rt.strides = strides;
            }
        }
        Ok(())
    }

    /// Binds (`define` = true) or checks (false) a parameter's sizes against
    /// the argument's actual shape, compact strides and zero offset.
    fn for_each_size(
        &mut self,
        b: &BufferParam,
        shape: &[i64],
        strides: &[i64],
        define: bool,
    ) -> Result<(), Fault> {
        let items = b
            .shape
            .iter()
            .zip(shape)
            .enumerate()
            .map(|(k, (bind, &a))| (bind, a, format!("dimension {k}")))
            .chain(
                b.strides
                    .iter()
                    .zip(strides)
                    .enumerate()
                    .map(|(k, (bind, &a))| (bind, a, format!("stride {k} (the array is compact)"))),
            )
            .chain(std::iter::once((
                &b.elem_offset,
                0,
                "elem_offset".to_string(),
            )));
        for (bind, actual, what) in items {
            self.size_bind(
                bind,
                actual,
                define,
                || format!("argument {}, {what}", b.name),
                b.span,
            )?;
        }
        Ok(())
    }

    fn size_bind(
        &mut self,
        bind: &SizeBind,
        actual: i64,
        define: bool,
        what: impl Fn() -> String,
        span: Span,
    ) -> Result<(), Fault> {
        match (bind, define) {
            (SizeBind::Define { slot, ty, name }, true) => {
                let w = wrap(*ty, actual);
                if w != actual {
                    return Err(fault(
                        format!(
                            "{}: the size {actual} does not fit the type of {name}",
                            what()
                        ),
                        span,
                    ));
                }
                self.slots[*slot as usize] = V::from_i(w);
            }
            (SizeBind::Check(e), false) => {
                let expected = self.eval(e, 0)?.as_i();
                if expected != actual {
                    return Err(fault(
                        format!("{}: expected {expected}, got {actual}", what()),
                        span,
                    ));
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn setup_param_aliases(&mut self, args: &[NDArray]) -> Result<(), Fault> {
        let prog = self.prog;
        for (p, arg) in prog.params.iter().zip(args) {
            if let ParamDef::Buffer(b) = p {
                let _ = arg;
                let len = self.stores[b.store as usize].len() as i64;
                self.setup_aliases(&b.aliases, b.store, len)?;
            }
        }
        Ok(())
    }

    fn setup_aliases(&mut self, aliases: &[AliasDef], store: u32, len: i64) -> Result<(), Fault> {
        for a in aliases {
            let (offset, shape, strides) =
                self.eval_layout(&a.shape, &a.strides, Some(&a.elem_offset), a.span)?;
            let need = span_of(offset, &shape, &strides)
                .ok_or_else(|| fault(self.layout_error(a.buf, &shape), a.span))?;
            if need > len {
                return Err(fault(
                    format!(
                        "buffer {} (shape {:?}) views {need} elements of storage that holds {len}",
                        self.prog.bufs[a.buf as usize].name, shape
                    ),
                    a.span,
                ));
            }
            let rt = &mut self.bufs[a.buf as usize];
            rt.store = store;
            rt.offset = offset;
            rt.shape = shape;
            rt.strides = strides;
        }
        Ok(())
    }

    fn layout_error(&self, buf: u32, shape: &[i64]) -> String {
        format!(
            "buffer {} has an invalid or too large layout (shape {:?})",
            self.prog.bufs[buf as usize].name, shape
        )
    }

    /// Evaluates shape, strides (compact when none are declared) and offset.
    fn eval_layout(
        &mut self,
        shape: &[CExpr],
        strides: &[CExpr],
        offset: Option<&CExpr>,
        span: Span,
    ) -> Result<(i64, Vec<i64>, Vec<i64>), Fault> {
        let mut sh = Vec::with_capacity(shape.len());
        for e in shape {
            let v = self.eval(e, 0)?.as_i();
            if v < 0 {
                return Err(fault(format!("negative buffer extent {v}"), span));
            }
            sh.push(v);
        }
        let st = if strides.is_empty() {
            compact_strides(&sh)
        } else {
            let mut st = Vec::with_capacity(strides.len());
            for e in strides {
                st.push(self.eval(e, 0)?.as_i());
            }
            st
        };
        let off = match offset {
            Some(e) => self.eval(e, 0)?.as_i(),
            None => 0,
        };
        Ok((off, sh, st))
    }

    fn alloc(&mut self, d: &AllocDef) -> Result<(), Fault> {
        let (offset, shape, strides) =
            self.eval_layout(&d.shape, &d.strides, Some(&d.elem_offset), d.span)?;
        let need = span_of(offset, &shape, &strides)
            .ok_or_else(|| fault(self.layout_error(d.buf, &shape), d.span))?;
        let bytes = (need as u64).saturating_mul(elem_bytes(d.ty));
        if bytes > self.max_alloc_bytes {
            return Err(fault(
                format!(
                    "allocating buffer {} (shape {:?}, {bytes} bytes) exceeds the limit of {} bytes",
                    self.prog.bufs[d.buf as usize].name, shape, self.max_alloc_bytes
                ),
                d.span,
            ));
        }
        self.stores[d.store as usize]
            .reset_zeros(d.ty, need as usize)
            .map_err(|m| fault(m, d.span))?;
        let rt = &mut self.bufs[d.buf as usize];
        rt.store = d.store;
        rt.offset = offset;
        rt.shape = shape;
        rt.strides = strides;
        self.setup_aliases(&d.aliases, d.store, need)
    }

    fn bind_match(&mut self, m: &MatchDef) -> Result<(), Fault> {
        let name = self.prog.bufs[m.buf as usize].name.clone();
        let mut region = Vec::with_capacity(m.region.len());
        for (lo, ext) in &m.region {
            region.push((self.eval(lo, 0)?.as_i(), self.eval(ext, 0)?.as_i()));
        }
        let src = &self.bufs[m.source as usize];
        for (k, &(lo, ext)) in region.iter().enumerate() {
            let dim = src.shape.get(k).copied().unwrap_or(0);
            if lo < 0 || ext < 0 || lo.saturating_add(ext) > dim {
                return Err(fault(
                    format!(
                        "match_buffer {}: source region [{lo}:{}] of dimension {k} is outside {} (shape {:?})",
                        name,
                        lo.saturating_add(ext),
                        self.prog.bufs[m.source as usize].name,
                        src.shape
                    ),
                    m.span,
                ));
            }
        }
        let lead = region.len() - m.shape.len();
        if let Some(k) = (0..lead).find(|&k| region[k].1 != 1) {
            return Err(fault(
                format!(
                    "match_buffer {} drops dimension {k} of its source region, whose extent is {} (not 1)",
                    name,
                    region[k].1
                ),
                m.span,
            ));
        }
        let mut offset = src.offset;
        for (k, &(lo, _)) in region.iter().enumerate() {
            offset = offset.wrapping_add(lo.wrapping_mul(src.strides.get(k).copied().unwrap_or(0)));
        }
        let shape: Vec<i64> = region[lead..].iter().map(|r| r.1).collect();
        let strides: Vec<i64> = src.strides.get(lead..).unwrap_or(&[]).to_vec();
        let store = src.store;
        // Definitions first, then checks (which may use them).
        for define in [true, false] {
            for (k, bind) in m.shape.iter().enumerate() {
                let what = || format!("match_buffer {name}, dimension {k} of the source region");
                self.size_bind(bind, shape[k], define, what, m.span)?;
            }
        }
        for (k, bind) in m.strides.iter().enumerate() {
            if let Some(bind) = bind {
                let actual = strides.get(k).copied().unwrap_or(0);
                self.size_bind(bind, actual, true, String::new, m.span)?;
            }
        }
        if let Some(bind) = &m.elem_offset {
            self.size_bind(bind, offset, true, String::new, m.span)?;
        }
        let rt = &mut self.bufs[m.buf as usize];
        rt.store = store;
        rt.offset = offset;
        rt.shape = shape;
        rt.strides = strides;
        Ok(())
    }

    #[inline]
    fn tick(&mut self, span: Span) -> Result<(), Fault> {
        self.steps += 1;
        if self.steps > self.budget {
            return Err(fault(
                format!("step budget of {} exceeded", self.budget),
                span,
            ));
        }
        Ok(())
    }

    // ------------------------------------------------------------ statements

    pub(crate) fn exec(&mut self, s: &CStmt) -> Result<(), Fault> {
        match s {
            CStmt::For {
                slot,
                min,
                extent,
                body,
                span,
            } => {
                let lo = self.eval(min, 0)?.as_i();
                let ext = self.eval(extent, 0)?.as_i();
                let hi = lo.saturating_add(ext.max(0));
                let slot = *slot as usize;
                let mut v = lo;
                while v < hi {
                    self.tick(*span)?;
                    self.slots[slot] = V::from_i(v);
                    self.exec(body)?;
                    v += 1;
                }
            }
            CStmt::Block(b) => self.block(b)?,
            CStmt::Store {
                access,
                value,
                lanes,
            } => {
                self.tick(access.span)?;
                let store = |this: &mut Self, flat: usize, v: V| -> Result<(), Fault> {
                    let st = this.bufs[access.buf as usize].store as usize;
                    if this.stores[st].store(flat, v) {
                        Ok(())
                    } else {
                        Err(fault("internal error: store outside storage", access.span))
                    }
                };
                if *lanes == 1 {
                    let v = self.eval(value, 0)?;
                    let flat = self.flat_index(access, 0, true)?;
                    store(self, flat, v)?;
                } else {
                    // All lanes are read before any is written.
                    let mut scratch = std::mem::take(&mut self.scratch);
                    scratch.clear();
                    for l in 0..*lanes {
                        let v = self.eval(value, l)?;
                        let flat = self.flat_index(access, l, true)?;
                        scratch.push((flat, v));
                    }
                    let r = scratch
                        .iter()
                        .try_for_each(|&(flat, v)| store(self, flat, v));
                    self.scratch = scratch;
                    r?;
                }
            }
            CStmt::Let {
                slot,
                lanes,
                value,
                body,
            } => {
                for l in 0..*lanes {
                    let v = self.eval(value, l)?;
                    self.slots[(*slot + l) as usize] = v;
                }
                self.exec(body)?;
            }
            CStmt::If {
                cond,
                then,
                otherwise,
            } => {
                if self.eval(cond, 0)?.is_true() {
                    self.exec(then)?;
                } else if let Some(o) = otherwise {
                    self.exec(o)?;
                }
            }
            CStmt::Eval { value, lanes } => {
                for l in 0..*lanes {
                    self.eval(value, l)?;
                }
            }
            CStmt::Seq(v) => {
                for s in v {
                    self.exec(s)?;
                }
            }
            CStmt::Alloc { def, body } => {
                self.alloc(def)?;
                self.exec(body)?;
            }
        }
        Ok(())
    }

    fn block(&mut self, b: &CBlock) -> Result<(), Fault> {
        for (slot, value) in &b.iters {
            let v = self.eval_int(value, 0)?;
            self.slots[*slot as usize] = V::from_i(v);
        }
        if let Some(p) = &b.predicate {
            if !self.eval(p, 0)?.is_true() {
                return Ok(());
            }
        }
        if self.check_regions {
            self.check_domains(b)?;
        }
        for a in &b.allocs {
            self.alloc(a)?;
        }
        for m in &b.matches {
            self.bind_match(m)?;
        }
        let pushed = match (&b.regions, self.check_regions) {
            (Some(regions), true) => {
                let mut out = Vec::with_capacity(regions.len());
                for r in regions {
                    let mut ranges = Vec::with_capacity(r.ranges.len());
                    for (lo, ext) in &r.ranges {
                        let lo = self.eval(lo, 0)?.as_i();
                        let ext = self.eval(ext, 0)?.as_i();
                        ranges.push((lo, lo.saturating_add(ext)));
                    }
                    out.push((r.buf, r.write, ranges));
                }
                self.regions.push(BlockRegions {
                    name: b.name.clone(),
                    regions: out,
                });
                true
            }
            _ => false,
        };
        let r = self.block_body(b);
        if pushed {
            self.regions.pop();
        }
        r
    }

    fn block_body(&mut self, b: &CBlock) -> Result<(), Fault> {
        if let Some(init) = &b.init {
            let mut first = true;
            for (slot, min) in &b.reduce_at_min {
                if self.slots[*slot as usize].as_i() != self.eval_int(min, 0)? {
                    first = false;
                    break;
                }
            }
            if first {
                self.exec(init)?;
            }
        }
        self.exec(&b.body)
    }

    fn check_domains(&mut self, b: &CBlock) -> Result<(), Fault> {
        for ((slot, _), (lo, ext)) in b.iters.iter().zip(&b.doms) {
            let v = self.slots[*slot as usize].as_i();
            let lo = self.eval(lo, 0)?.as_i();
            let hi = lo.saturating_add(self.eval(ext, 0)?.as_i());
            if v < lo || v >= hi {
                return Err(fault(
                    format!(
                        "block {}: iterator {} is bound to {v}, outside its domain [{lo}, {hi})",
                        b.name,
                        b.iters.iter().position(|(s, _)| s == slot).unwrap_or(0)
                    ),
                    b.span,
                ));
            }
        }
        Ok(())
    }

    // ----------------------------------------------------------- expressions

    /// Evaluates an operand, short-cutting the common leaves.
    #[inline(always)]
    fn operand(&mut self, e: &CExpr, lane: u32) -> Result<V, Fault> {
        match e {
            CExpr::Var(s) => Ok(self.slots[*s as usize]),
            CExpr::Const(v) => Ok(*v),
            _ => self.eval(e, lane),
        }
    }

    /// Evaluates an integer operand, short-cutting the common leaves.
    #[inline(always)]
    fn eval_int(&mut self, e: &CExpr, lane: u32) -> Result<i64, Fault> {
        match e {
            CExpr::Var(s) => Ok(self.slots[*s as usize].as_i()),
            CExpr::Const(v) => Ok(v.as_i()),
            _ => Ok(self.eval(e, lane)?.as_i()),
        }
    }

    /// Flat storage offset of an access in lane `lane`, bounds-checked.
    #[inline(always)]
    fn flat_index(&mut self, acc: &Access, lane: u32, write: bool) -> Result<usize, Fault> {
        let flat = match &acc.indices[..] {
            [e0] => {
                let i0 = self.eval_int(e0, lane)?;
                let b = &self.bufs[acc.buf as usize];
                if i0 < 0 || i0 >= b.shape[0] {
                    return Err(self.out_of_bounds(acc, &[i0], lane, write));
                }
                b.offset.wrapping_add(i0.wrapping_mul(b.strides[0]))
            }
            [e0, e1] => {
                let i0 = self.eval_int(e0, lane)?;
                let i1 = self.eval_int(e1, lane)?;
                let b = &self.bufs[acc.buf as usize];
                if i0 < 0 || i0 >= b.shape[0] || i1 < 0 || i1 >= b.shape[1] {
                    return Err(self.out_of_bounds(acc, &[i0, i1], lane, write));
                }
                b.offset
                    .wrapping_add(i0.wrapping_mul(b.strides[0]))
                    .wrapping_add(i1.wrapping_mul(b.strides[1]))
            }
            _ => return self.flat_index_general(acc, lane, write),
        };
        if acc.check && self.check_regions {
            let mut ix = Vec::with_capacity(acc.indices.len());
            for e in &acc.indices {
                ix.push(self.eval_int(e, lane)?);
            }
            self.check_region(acc, &ix, write)?;
        }
        Ok(flat as usize)
    }

    fn flat_index_general(&mut self, acc: &Access, lane: u32, write: bool) -> Result<usize, Fault> {
        let mut ix = Vec::with_capacity(acc.indices.len());
        for e in &acc.indices {
            ix.push(self.eval_int(e, lane)?);
        }
        let b = &self.bufs[acc.buf as usize];
        let mut flat = b.offset;
        for (k, &i) in ix.iter().enumerate() {
            if i < 0 || i >= b.shape[k] {
                return Err(self.out_of_bounds(acc, &ix, lane, write));
            }
            flat = flat.wrapping_add(i.wrapping_mul(b.strides[k]));
        }
        if acc.check && self.check_regions {
            self.check_region(acc, &ix, write)?;
        }
        Ok(flat as usize)
    }

    fn out_of_bounds(&self, acc: &Access, ix: &[i64], lane: u32, write: bool) -> Fault {
        let b = &self.bufs[acc.buf as usize];
        let lane = if lane > 0 {
            format!(" (lane {lane})")
        } else {
            String::new()
        };
        fault(
            format!(
                "{} {}{ix:?}{lane} is out of bounds: buffer {} has shape {:?}",
                if write { "store to" } else { "load from" },
                self.prog.bufs[acc.buf as usize].name,
                self.prog.bufs[acc.buf as usize].name,
                b.shape
            ),
            acc.span,
        )
    }

    fn check_region(&self, acc: &Access, ix: &[i64], write: bool) -> Result<(), Fault> {
        let Some(top) = self.regions.last() else {
            return Ok(());
        };
        let covered = top.regions.iter().any(|(buf, w, ranges)| {
            *buf == acc.buf
                && (*w || !write)
                && ranges.len() == ix.len()
                && ranges
                    .iter()
                    .zip(ix)
                    .all(|(&(lo, hi), &i)| lo <= i && i < hi)
        });
        if covered {
            return Ok(());
        }
        let name = &self.prog.bufs[acc.buf as usize].name;
        Err(fault(
            format!(
                "block {}: {} {name}{ix:?} is outside the regions the block declares in {}",
                top.name,
                if write { "store to" } else { "load from" },
                if write {
                    "T.writes"
                } else {
                    "T.reads/T.writes"
                }
            ),
            acc.span,
        ))
    }

    pub(crate) fn eval(&mut self, e: &CExpr, lane: u32) -> Result<V, Fault> {
        Ok(match e {
            CExpr::Const(v) => *v,
            CExpr::Var(s) => self.slots[*s as usize],
            CExpr::VarLanes { base, lanes } => {
                if lane >= *lanes {
                    return Err(fault(
                        format!("internal error: lane {lane} of a {lanes}-lane variable"),
                        Span::default(),
                    ));
                }
                self.slots[(*base + lane) as usize]
            }
            CExpr::Bin { op, ty, a, b, span } => {
                let x = self.operand(a, lane)?;
                let y = self.operand(b, lane)?;
                match binary(*op, *ty, x, y) {
                    Ok(v) => v,
                    Err(m) => return Err(fault(m, *span)),
                }
            }
            CExpr::Load(acc) => {
                let flat = self.flat_index(acc, lane, false)?;
                let st = self.bufs[acc.buf as usize].store as usize;
                match self.stores[st].load(flat) {
                    Some(v) => v,
                    None => return Err(fault("internal error: load outside storage", acc.span)),
                }
            }
            CExpr::Cmp { op, ty, a, b } => {
                let x = self.eval(a, lane)?;
                let y = self.eval(b, lane)?;
                V::from_bool(compare(*op, *ty, x, y))
            }
            CExpr::And(a, b) => {
                let x = self.eval(a, lane)?;
                let y = self.eval(b, lane)?;
                V::from_bool(x.is_true() && y.is_true())
            }
            CExpr::Or(a, b) => {
                let x = self.eval(a, lane)?;
                let y = self.eval(b, lane)?;
                V::from_bool(x.is_true() || y.is_true())
            }
            CExpr::Not(a) => V::from_bool(!self.eval(a, lane)?.is_true()),
            CExpr::Select(parts) => {
                let [c, t, f] = &**parts;
                let c = self.eval(c, lane)?;
                let t = self.eval(t, lane)?;
                let f = self.eval(f, lane)?;
                if c.is_true() {
                    t
                } else {
                    f
                }
            }
            CExpr::IfThenElse(parts) => {
                let [c, t, f] = &**parts;
                if self.eval(c, lane)?.is_true() {
                    self.eval(t, lane)?
                } else {
                    self.eval(f, lane)?
                }
            }
            CExpr::Cast { from, to, a } => cast(*from, *to, self.eval(a, lane)?),
            CExpr::Math { f, ty, a } => math1(*f, *ty, self.eval(a, lane)?),
            CExpr::Pow { ty, a, b } => {
                let x = self.eval(a, lane)?;
                let y = self.eval(b, lane)?;
                pow(*ty, x, y)
            }
            CExpr::Let {
                slot,
                lanes,
                value,
                body,
            } => {
                let v = self.eval(value, lane)?;
                let at = if *lanes > 1 { *slot + lane } else { *slot };
                self.slots[at as usize] = v;
                self.eval(body, lane)?
            }
            CExpr::Ramp { ty, base, stride } => {
                let b = self.eval(base, 0)?.as_i();
                let s = self.eval(stride, 0)?.as_i();
                V::from_i(wrap(*ty, b.wrapping_add((lane as i64).wrapping_mul(s))))
            }
            CExpr::Broadcast(a) => self.eval(a, 0)?,
            CExpr::Fail { message, span } => return Err(fault(message.clone(), *span)),
        })
    }
}

/// An argument's shape and compact row-major strides, as `i64`.
fn actual_layout(arg: &NDArray) -> Result<(Vec<i64>, Vec<i64>), Fault> {
    let shape: Vec<i64> = arg
        .shape()
        .iter()
        .map(|&d| i64::try_from(d).unwrap_or(i64::MAX))
        .collect();
    let strides = compact_strides(&shape);
    Ok((shape, strides))
}
