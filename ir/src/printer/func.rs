//! Functions, parameters, buffer declarations and the implicit root block.

use std::collections::HashSet;

use super::expr::dtype_name;
use super::literal::{sanitize_identifier, str_literal};
use super::scope::{ScopePaths, FUNC_SCOPE};
use super::{Anchor, Dialect, Printer, StmtPart};
use crate::visit::{expr_vars, walk_buffer_fields, VarCollector, Visitor};
use crate::{AttrValue, Block, Buffer, Expr, ExprKind, PrimFunc, Stmt, StmtKind, Var, VarId};

/// TVM's default data alignment (`kAllocAlignment`).
const DEFAULT_ALIGN: i64 = 64;

/// Every variable id used anywhere in a statement tree (expressions,
/// regions, and the shapes of buffers declared in it).
fn stmt_vars(s: &Stmt) -> HashSet<VarId> {
    struct WithDeclaredShapes(VarCollector);
    impl Visitor for WithDeclaredShapes {
        fn visit_var(&mut self, var: &Var) {
            self.0.note(var);
        }
        fn visit_buffer_def(&mut self, buffer: &Buffer) {
            walk_buffer_fields(self, buffer);
        }
    }
    let mut c = WithDeclaredShapes(VarCollector::default());
    c.visit_stmt(s);
    c.0.seen
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

fn attr_is_false(v: Option<&AttrValue>) -> bool {
    matches!(v, Some(AttrValue::Bool(false)) | Some(AttrValue::Int(0)))
}

impl<'o> Printer<'o> {
    /// Defines a buffer's name in the current scope; its data pointer prints
    /// as `A.data` unless already defined.
    pub(crate) fn define_buffer(&mut self, b: &Buffer) -> String {
        let depth = self.names.depth();
        self.define_buffer_at(depth, b)
    }

    pub(crate) fn define_buffer_at(&mut self, depth: usize, b: &Buffer) -> String {
        let name = self.names.define_buffer_at(depth, b.id(), &b.name);
        if !self.names.is_var_defined(b.data.id()) {
            self.names
                .alias_var_at(depth, b.data.id(), format!("{name}.data"));
        }
        name
    }

    /// `T.<method>(first, shape, dtype, key=value…)` for a buffer whose name
    /// is already defined, in the scope at `depth`.
    ///
    /// Variables the declaration introduces (a bare shape or stride variable
    /// or offset not defined yet) are defined with it: in a parameter's
    /// `T.Buffer` annotation (`param`), as TVM 0.27 prints them, a stride
    /// variable as a string (`strides=("sa", -1)`, later uses printing as
    /// `A.strides[0]`) and the offset implicitly (`A.elem_offset`, with
    /// `offset_factor` shown); elsewhere, shape and stride variables are
    /// declared just before the declaration (`m, n = T.int64(), T.int64()`).
    pub(crate) fn buffer_decl(
        &mut self,
        b: &Buffer,
        method: &str,
        first: Option<String>,
        param: bool,
        depth: usize,
    ) -> String {
        let own_name = self.names.buffer(b.id()).unwrap_or(&b.name).to_string();
        let mut new_vars: Vec<(String, String)> = Vec::new();
        let mut args: Vec<String> = first.into_iter().collect();

        let mut shape = Vec::new();
        for e in &b.shape {
            match e.kind() {
                ExprKind::Var(v) if !param && !self.names.is_var_defined(v.id()) => {
                    let name = self.names.define_var_at(depth, v.id(), v.name());
                    new_vars.push((name.clone(), self.var_creation(v.dtype())));
                    shape.push(name);
                }
                _ => shape.push(self.expr(e)),
            }
        }
        args.push(tuple(&shape));
        if param || b.dtype != crate::DataType::f32() {
            args.push(str_literal(&dtype_name(b.dtype)));
        }
        if let Some(data) = self.names.var(b.data.id()) {
            if data != format!("{own_name}.data") {
                args.push(format!("data={data}"));
            }
        }
        if !b.strides.is_empty() {
            let mut strides = Vec::new();
            for (i, e) in b.strides.iter().enumerate() {
                match e.kind() {
                    ExprKind::Var(v) if !self.names.is_var_defined(v.id()) => {
                        // TVM names new stride variables as strings in
                        // parameters and match buffers alike.
                        if param || method == "match_buffer" {
                            let alias = format!("{own_name}.strides[{i}]");
                            self.names.alias_var_at(depth, v.id(), alias);
                            strides.push(str_literal(v.name()));
                        } else {
                            let name = self.names.define_var_at(depth, v.id(), v.name());
                            new_vars.push((name.clone(), self.var_creation(v.dtype())));
                            strides.push(name);
                        }
                    }
                    _ => strides.push(self.expr(e)),
                }
            }
            args.push(format!("strides={}", tuple(&strides)));
        }
        let mut force_offset_factor = false;
        match b.elem_offset.kind() {
            ExprKind::Int(0)
                if b.elem_offset.dtype() == crate::buffer::default_index_dtype(&b.shape) => {}
            ExprKind::Var(v) if !self.names.is_var_defined(v.id()) => {
                // Defined implicitly by the declaration, as `A.elem_offset`.
                let alias = format!("{own_name}.elem_offset");
                self.names.alias_var_at(depth, v.id(), alias);
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
        // TVM 0.27 inlines every parameter buffer; we do so whenever the
        // result parses: its shape only uses parameters printed before it,
        // and so do its strides and offset unless they are new variables
        // (which the annotation defines).
        let defined = |e: &Expr| {
            expr_vars(e)
                .iter()
                .all(|v| self.names.is_var_defined(v.id()))
        };
        let is_var = |e: &Expr| matches!(e.kind(), ExprKind::Var(_));
        b.shape.iter().all(defined)
            && b.strides.iter().all(|e| is_var(e) || defined(e))
            && (is_var(&b.elem_offset) || defined(&b.elem_offset))
    }

    /// A function attribute's key in this dialect: TVM 0.27 spells the
    /// course's `tir.noalias` as `tirx.noalias`.
    fn attr_key(&self, key: &str) -> String {
        match (self.dialect(), key) {
            (Dialect::Tirx, "tir.noalias") => "tirx.noalias".to_string(),
            (Dialect::Block | Dialect::SBlock, "tirx.noalias") => "tir.noalias".to_string(),
            _ => key.to_string(),
        }
    }

    pub(crate) fn prim_func(&mut self, f: &PrimFunc, name: &str) {
        // The course's functions are all `s_tir` functions in TVM 0.27 terms
        // (TVM's conversion adds `s_tir=True` to every one); only a function
        // marked `s_tir: False` prints without it.
        let s_tir = self.dialect() == Dialect::Tirx
            && (contains_block(&f.body) || !attr_is_false(f.attrs.get("s_tir")));
        // A function without `global_symbol` is private (TVM's parser gives
        // every other function one).
        let private = !f.attrs.contains_key("global_symbol");
        let mut options = Vec::new();
        if private {
            options.push("private=True");
        }
        if s_tir {
            options.push("s_tir=True");
        }
        let decorator = if options.is_empty() {
            "@T.prim_func".to_string()
        } else {
            format!("@T.prim_func({})", options.join(", "))
        };
        self.raw_line(&decorator);

        self.push_scope(vec![FUNC_SCOPE], self.indent + 1);
        self.paths = ScopePaths::of_function_body(&f.body);
        let used = stmt_vars(&f.body);
        let mut params = Vec::new();
        let mut matched: Vec<(usize, String, &Buffer)> = Vec::new();
        for (index, p) in f.params.iter().enumerate() {
            if let Some(b) = f.param_buffer(p) {
                if self.can_inline(f, p, b, &used) {
                    let bname = self.define_buffer(b);
                    let ann = self.buffer_decl(b, "Buffer", None, true, self.names.depth());
                    params.push(format!("{bname}: {ann}"));
                    continue;
                }
                let pname = self.names.define_var(p.id(), p.name());
                params.push(format!("{pname}: {}", self.tir(&dtype_name(p.dtype()))));
                matched.push((index, pname, b));
                continue;
            }
            let pname = self.names.define_var(p.id(), p.name());
            params.push(format!("{pname}: {}", self.tir(&dtype_name(p.dtype()))));
        }
        let head = format!("def {}(", sanitize_identifier(name));
        self.raw_line(&format!("{head}{}):", params.join(", ")));
        self.note(|| Anchor::Signature, None);
        let mut col = 4 * self.indent + head.chars().count();
        for (i, text) in params.iter().enumerate() {
            let end = col + text.chars().count();
            self.note(|| Anchor::Param(i), Some((col, end)));
            col = end + 2;
        }
        self.indent += 1;

        let attrs: std::collections::BTreeMap<String, AttrValue> = f
            .attrs
            .iter()
            .filter(|(k, v)| match k.as_str() {
                "global_symbol" => !matches!(v, AttrValue::Str(s) if s == name),
                "s_tir" => false,
                _ => true,
            })
            .map(|(k, v)| (self.attr_key(k), v.clone()))
            .collect();
        if !attrs.is_empty() {
            self.begin_stmt();
            let a = self.attr_map(&attrs);
            self.line(&format!("{}({a})", self.tir("func_attr")));
            self.note(|| Anchor::FuncAttrs, None);
        }

        for (index, handle, b) in matched {
            self.begin_stmt();
            let bname = self.define_buffer(b);
            let decl = self.buffer_decl(b, "match_buffer", Some(handle), false, self.names.depth());
            self.line(&format!("{bname} = {decl}"));
            self.note(|| Anchor::Param(index), None);
        }

        match implicit_root(&f.body) {
            Some(root) => {
                self.begin_stmt();
                let mark = self.mark_of(&f.body);
                let comment = format!("# with T.{}(\"root\"):", self.dialect().block_fn());
                self.header_line(&comment, mark, None);
                self.note_stmt(&f.body, StmtPart::Header);
                let alloc = self.dialect().block_alloc_fn();
                for (i, b) in root.alloc_buffers.iter().enumerate() {
                    self.begin_stmt();
                    let bname = self.define_buffer(b);
                    let decl = self.buffer_decl(b, alloc, None, false, self.names.depth());
                    self.line(&format!("{bname} = {decl}"));
                    self.note_stmt(&f.body, StmtPart::AllocBuffer(i));
                }
                self.stmt(&root.body);
            }
            None => self.stmt(&f.body),
        }
        self.pop_scope();
        self.indent -= 1;
        self.paths = ScopePaths::default();
    }
}

/// A Python tuple: `(128,)`, `(128, 128)`, `()`.
pub(crate) fn tuple(parts: &[String]) -> String {
    match parts.len() {
        1 => format!("({},)", parts[0]),
        _ => format!("({})", parts.join(", ")),
    }
}
