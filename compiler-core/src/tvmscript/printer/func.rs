//! Functions, parameters, buffer declarations and the implicit root block.

use std::collections::HashSet;

use super::expr::dtype_name;
use super::literal::{sanitize_identifier, str_literal};
use super::{Dialect, Printer};
use crate::ir::{AttrValue, Block, Buffer, Expr, ExprKind, PrimFunc, Stmt, StmtKind, Var, VarId};

/// TVM's default data alignment (`kAllocAlignment`).
const DEFAULT_ALIGN: i64 = 64;

/// Every variable id occurring in an expression.
fn expr_vars(e: &Expr, out: &mut HashSet<VarId>) {
    e.walk(&mut |x| {
        if let ExprKind::Var(v) = x.kind() {
            out.insert(v.id());
        }
    });
}

fn has_vars(e: &Expr) -> bool {
    let mut found = false;
    e.walk(&mut |x| found |= matches!(x.kind(), ExprKind::Var(_)));
    found
}

/// Every variable id used anywhere in a statement tree (expressions,
/// regions, and the shapes of buffers declared in it).
fn stmt_vars(s: &Stmt) -> HashSet<VarId> {
    let mut out = HashSet::new();
    s.walk(&mut |st| {
        st.for_each_expr(|e| expr_vars(e, &mut out));
        let mut buffers: Vec<&Buffer> = Vec::new();
        match st.kind() {
            StmtKind::BlockRealize(r) => {
                for mb in &r.block.match_buffers {
                    for range in &mb.source.region {
                        expr_vars(&range.min, &mut out);
                        expr_vars(&range.extent, &mut out);
                    }
                    buffers.push(&mb.buffer);
                }
                buffers.extend(r.block.alloc_buffers.iter());
            }
            StmtKind::Allocate { buffer, .. } => buffers.push(buffer),
            _ => {}
        }
        for b in buffers {
            for e in b.shape.iter().chain(&b.strides) {
                expr_vars(e, &mut out);
            }
            expr_vars(&b.elem_offset, &mut out);
        }
    });
    out
}

fn contains_block(s: &Stmt) -> bool {
    let mut found = false;
    s.walk(&mut |st| found |= matches!(st.kind(), StmtKind::BlockRealize(_)));
    found
}

/// The root block TVM prints as the comment `# with T.block("root"):`.
fn implicit_root(body: &Stmt) -> Option<&Block> {
    let StmtKind::BlockRealize(r) = body.kind() else {
        return None;
    };
    let b = &r.block;
    let trivial = r.iter_values.is_empty()
        && b.iter_vars.is_empty()
        && matches!(r.predicate.kind(), ExprKind::Int(1))
        && b.annotations.is_empty()
        && b.match_buffers.is_empty()
        && b.reads.is_empty()
        && b.writes.is_empty()
        && b.init.is_none();
    if !trivial {
        return None;
    }
    let worth_hiding = match b.body.kind() {
        StmtKind::BlockRealize(inner) => {
            !b.alloc_buffers.is_empty() || !inner.block.iter_vars.is_empty()
        }
        _ => !b.alloc_buffers.is_empty() || contains_block(&b.body),
    };
    worth_hiding.then_some(b)
}

fn attr_is_true(v: Option<&AttrValue>) -> bool {
    match v {
        Some(AttrValue::Bool(b)) => *b,
        Some(AttrValue::Int(i)) => *i != 0,
        _ => false,
    }
}

impl<'o> Printer<'o> {
    /// Defines a buffer's name in the current scope; its data pointer prints
    /// as `A.data` unless already defined.
    pub(crate) fn define_buffer(&mut self, b: &Buffer) -> String {
        let name = self.names.define_buffer(b.id(), &b.name);
        if !self.names.is_var_defined(b.data.id()) {
            self.names.alias_var(b.data.id(), format!("{name}.data"));
        }
        name
    }

    /// `T.<method>(first, shape, dtype, key=value…)` for a buffer whose name
    /// is already defined. `param` is the `T.Buffer` annotation of an inline
    /// parameter (dtype always shown; no new variables to declare). Shape and
    /// stride variables that are not defined yet are declared before the
    /// declaration (`m, n = T.int64(), T.int64()`).
    pub(crate) fn buffer_decl(
        &mut self,
        b: &Buffer,
        method: &str,
        first: Option<String>,
        param: bool,
    ) -> String {
        let own_name = self.names.buffer(b.id()).unwrap_or(&b.name).to_string();
        let mut new_vars: Vec<(String, String)> = Vec::new();
        let mut args: Vec<String> = first.into_iter().collect();

        // Shape (and strides): a bare variable seen for the first time is
        // declared out of line.
        let dims = |p: &mut Self, exprs: &[Expr], new_vars: &mut Vec<(String, String)>| {
            let parts: Vec<String> = exprs
                .iter()
                .map(|e| match e.kind() {
                    ExprKind::Var(v) if !param && !p.names.is_var_defined(v.id()) => {
                        let name = p.names.define_var(v.id(), v.name());
                        new_vars.push((name.clone(), p.var_creation(v.dtype())));
                        name
                    }
                    _ => p.expr(e),
                })
                .collect();
            tuple(&parts)
        };
        args.push(dims(self, &b.shape, &mut new_vars));
        if param || b.dtype != crate::ir::DataType::f32() {
            args.push(str_literal(&dtype_name(b.dtype)));
        }
        if let Some(data) = self.names.var(b.data.id()) {
            if data != format!("{own_name}.data") {
                args.push(format!("data={data}"));
            }
        }
        if !b.strides.is_empty() {
            let s = dims(self, &b.strides, &mut new_vars);
            args.push(format!("strides={s}"));
        }
        let mut force_offset_factor = false;
        match b.elem_offset.kind() {
            ExprKind::Int(0) => {}
            ExprKind::Var(v) if !param && !self.names.is_var_defined(v.id()) => {
                // Defined implicitly by the declaration, as `A.elem_offset`.
                self.names
                    .alias_var(v.id(), format!("{own_name}.elem_offset"));
                force_offset_factor = true;
            }
            _ => {
                let e = self.expr(&b.elem_offset);
                args.push(format!("elem_offset={e}"));
            }
        }
        if b.scope != "global" {
            args.push(format!("scope={}", str_literal(&b.scope)));
        }
        if b.align != DEFAULT_ALIGN {
            args.push(format!("align={}", b.align));
        }
        if force_offset_factor || b.offset_factor != 1 {
            args.push(format!("offset_factor={}", b.offset_factor));
        }
        match new_vars.len() {
            0 => {}
            1 => {
                let (n, c) = &new_vars[0];
                self.pending.push(format!("{n} = {c}"));
            }
            _ => {
                let (ns, cs): (Vec<String>, Vec<String>) = new_vars.into_iter().unzip();
                self.pending
                    .push(format!("{} = {}", ns.join(", "), cs.join(", ")));
            }
        }
        format!("{}({})", self.tir(method), args.join(", "))
    }

    /// Whether a parameter's buffer prints inline as `A: T.Buffer(...)`.
    fn can_inline(&self, f: &PrimFunc, handle: &Var, b: &Buffer, used: &HashSet<VarId>) -> bool {
        if used.contains(&handle.id()) {
            return false;
        }
        let shares_data = f
            .buffer_map
            .iter()
            .filter(|(_, other)| other.data == b.data)
            .count()
            > 1;
        if shares_data {
            return false;
        }
        let exprs = || {
            b.shape
                .iter()
                .chain(&b.strides)
                .chain(std::iter::once(&b.elem_offset))
        };
        match self.dialect() {
            Dialect::Tirx => exprs().all(|e| {
                let mut ok = true;
                e.walk(&mut |x| {
                    if let ExprKind::Var(v) = x.kind() {
                        ok &= self.names.is_var_defined(v.id());
                    }
                });
                ok
            }),
            Dialect::Block | Dialect::SBlock => {
                b.strides.is_empty()
                    && !exprs().any(has_vars)
                    && !matches!(b.elem_offset.kind(), ExprKind::Int(v) if *v != 0)
                    && b.scope == "global"
                    && b.align == DEFAULT_ALIGN
                    && b.offset_factor == 1
            }
        }
    }

    pub(crate) fn prim_func(&mut self, f: &PrimFunc, name: &str) {
        let tirx = self.dialect() == Dialect::Tirx;
        let s_tir = tirx && (contains_block(&f.body) || attr_is_true(f.attrs.get("s_tir")));
        let decorator = if s_tir {
            "@T.prim_func(s_tir=True)"
        } else {
            "@T.prim_func"
        };
        self.raw_line(decorator);

        self.names.push_frame();
        let used = stmt_vars(&f.body);
        let mut params = Vec::new();
        let mut matched: Vec<(String, &Buffer)> = Vec::new();
        for p in &f.params {
            if let Some(b) = f.param_buffer(p) {
                if self.can_inline(f, p, b, &used) {
                    let bname = self.define_buffer(b);
                    let ann = self.buffer_decl(b, "Buffer", None, true);
                    params.push(format!("{bname}: {ann}"));
                    continue;
                }
                let pname = self.names.define_var(p.id(), p.name());
                params.push(format!("{pname}: {}", self.tir(&dtype_name(p.dtype()))));
                matched.push((pname, b));
                continue;
            }
            let pname = self.names.define_var(p.id(), p.name());
            params.push(format!("{pname}: {}", self.tir(&dtype_name(p.dtype()))));
        }
        self.raw_line(&format!(
            "def {}({}):",
            sanitize_identifier(name),
            params.join(", ")
        ));
        self.indent += 1;

        let attrs: std::collections::BTreeMap<String, AttrValue> = f
            .attrs
            .iter()
            .filter(|(k, v)| match k.as_str() {
                "global_symbol" => !matches!(v, AttrValue::Str(s) if s == name),
                "s_tir" => false,
                _ => true,
            })
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        if !attrs.is_empty() {
            let a = self.attr_map(&attrs);
            self.line(&format!("{}({a})", self.tir("func_attr")));
        }

        for (handle, b) in matched {
            let bname = self.define_buffer(b);
            let decl = self.buffer_decl(b, "match_buffer", Some(handle), false);
            self.line(&format!("{bname} = {decl}"));
        }

        match implicit_root(&f.body) {
            Some(root) => {
                let mark = self.mark_of(&f.body);
                let comment = format!("# with T.{}(\"root\"):", self.dialect().block_fn());
                self.header_line(&comment, mark, None);
                let alloc = self.dialect().block_alloc_fn();
                for b in &root.alloc_buffers {
                    let bname = self.define_buffer(b);
                    let decl = self.buffer_decl(b, alloc, None, false);
                    self.line(&format!("{bname} = {decl}"));
                }
                self.stmt(&root.body);
            }
            None => self.stmt(&f.body),
        }
        self.flush_pending();
        self.indent -= 1;
        self.names.pop_frame();
    }
}

/// A Python tuple: `(128,)`, `(128, 128)`, `()`.
pub(crate) fn tuple(parts: &[String]) -> String {
    match parts.len() {
        1 => format!("({},)", parts[0]),
        _ => format!("({})", parts.join(", ")),
    }
}
