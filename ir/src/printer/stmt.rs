//! Statements: loops (with `T.grid` folding), blocks (with `T.axis.remap`),
//! stores, lets, conditionals.

use super::expr::{add_folded, dtype_name, index_list};
use super::literal::str_literal;
use super::scope::{body_key, else_key, init_key, then_key, ScopeKey};
use super::{Anchor, Mark, Printer, StmtPart};
use crate::deep_equal::expr_deep_equal;
use crate::{BlockRealize, Expr, ExprKind, For, ForKind, IterKind, Stmt, StmtKind};

fn is_zero_int(e: &Expr) -> bool {
    matches!(e.kind(), ExprKind::Int(0))
}

impl<'o> Printer<'o> {
    pub(crate) fn stmt(&mut self, s: &Stmt) {
        let mark = self.mark_of(s);
        self.stmt_marked(s, mark);
    }

    /// Prints `s`, drawing `mark` on its first line.
    fn stmt_marked(&mut self, s: &Stmt, mark: Option<&'o Mark>) {
        if !matches!(s.kind(), StmtKind::Seq(_)) {
            self.begin_stmt();
        }
        match s.kind() {
            StmtKind::Seq(items) => {
                if items.is_empty() {
                    self.header_line("T.evaluate(0)", mark, None);
                    self.note_stmt(s, StmtPart::Header);
                }
                for (i, item) in items.iter().enumerate() {
                    let own = self.mark_of(item);
                    self.stmt_marked(item, if i == 0 { own.or(mark) } else { own });
                }
            }
            StmtKind::For(f) => self.for_loop(s, f, mark),
            StmtKind::BlockRealize(r) => self.block_realize(s, r, mark),
            StmtKind::Store {
                buffer,
                value,
                indices,
            } => {
                let name = self.buffer_ref(buffer);
                let value = self.expr(value);
                let idx: Vec<String> = indices.iter().map(|i| self.store_index(i)).collect();
                let text = format!("{name}[{}] = {value}", index_list(&idx));
                self.header_line(&text, mark, None);
                self.note_stmt(s, StmtPart::Header);
            }
            StmtKind::Let { var, value, body } => {
                let value = self.expr(value);
                let name = self.names.define_var(var.id(), var.name());
                let ty = self.tir(&dtype_name(var.dtype()));
                self.header_line(&format!("{name}: {ty} = {value}"), mark, None);
                self.note_stmt(s, StmtPart::Header);
                self.stmt(body);
            }
            StmtKind::If {
                cond,
                then,
                otherwise,
            } => {
                let cond = self.expr(cond);
                self.header_line(&format!("if {cond}:"), mark, None);
                self.note_stmt(s, StmtPart::Header);
                self.nested(then, then_key(s));
                if let Some(o) = otherwise {
                    self.line("else:");
                    self.nested(o, else_key(s));
                }
            }
            StmtKind::Evaluate(e) => {
                let text = match e.kind() {
                    ExprKind::Call { .. } => self.expr(e),
                    _ => format!("{}({})", self.tir("evaluate"), self.expr(e)),
                };
                self.header_line(&text, mark, None);
                self.note_stmt(s, StmtPart::Header);
            }
            StmtKind::Allocate { buffer, body } => {
                let name = self.define_buffer(buffer);
                let decl =
                    self.buffer_decl(buffer, "alloc_buffer", None, false, self.names.depth());
                self.header_line(&format!("{name} = {decl}"), mark, None);
                self.note_stmt(s, StmtPart::Header);
                self.stmt(body);
            }
        }
    }

    /// A body one level deeper, in its own scope.
    fn nested(&mut self, body: &Stmt, key: ScopeKey) {
        self.push_scope(vec![key], self.indent + 1);
        self.indent += 1;
        self.stmt(body);
        self.pop_scope();
        self.indent -= 1;
    }

    fn for_loop(&mut self, s: &Stmt, first: &For, mark: Option<&'o Mark>) {
        // Fold a perfect nest of plain serial loops into `T.grid`.
        let mut grid: Vec<(&Stmt, &For)> = Vec::new();
        let mut cur = s;
        while let StmtKind::For(l) = cur.kind() {
            let plain =
                l.kind == ForKind::Serial && is_zero_int(&l.min) && l.annotations.is_empty();
            if !plain || grid.iter().any(|(_, g)| l.extent.uses_var(&g.loop_var)) {
                break;
            }
            grid.push((cur, l));
            cur = &l.body;
        }

        let keys: Vec<ScopeKey> = if grid.len() > 1 {
            grid.iter().map(|(st, _)| body_key(st)).collect()
        } else {
            vec![body_key(s)]
        };
        self.push_scope(keys, self.indent + 1);
        // Where each loop's name is in the header line (for `LoopName`).
        let mut name_columns: Vec<(&Stmt, (usize, usize))> = Vec::new();
        let (header, focus, body, loops, stmts) = if grid.len() > 1 {
            let mut names = Vec::new();
            let mut extents = Vec::new();
            let mut focus = None;
            let mut col = "for ".len();
            let mut marked = None;
            // Where each folded loop's variable is in the line, for locating.
            let mut spans = Vec::new();
            for (i, (st, l)) in grid.iter().enumerate() {
                let name = self.names.define_var(l.loop_var.id(), l.loop_var.name());
                let own = if i == 0 { mark } else { self.mark_of(st) };
                if marked.is_none() && own.is_some() {
                    marked = own;
                    focus = Some((col, name.chars().count()));
                }
                let indent = 4 * self.indent;
                let columns = (indent + col, indent + col + name.chars().count());
                spans.push(Some(columns));
                name_columns.push((st, columns));
                col += name.chars().count() + 2;
                names.push(name);
                extents.push(self.expr(&l.extent));
            }
            let header = format!(
                "for {} in {}({}):",
                names.join(", "),
                self.tir("grid"),
                extents.join(", ")
            );
            let loops: Vec<_> = grid
                .iter()
                .map(|(_, l)| (l.loop_var.id(), l.min.clone(), l.extent.clone()))
                .collect();
            let body = grid.last().map(|(_, l)| &l.body).unwrap_or(&first.body);
            let stmts: Vec<(&Stmt, _)> = grid.iter().map(|(st, _)| *st).zip(spans).collect();
            (header, marked.map(|m| (m, focus)), body, loops, stmts)
        } else {
            let l = first;
            let name = self.names.define_var(l.loop_var.id(), l.loop_var.name());
            let at = 4 * self.indent + "for ".len();
            name_columns.push((s, (at, at + name.chars().count())));
            let mut args = Vec::new();
            if is_zero_int(&l.min) {
                args.push(self.expr(&l.extent));
            } else {
                args.push(self.expr(&l.min));
                let end = add_folded(&l.min, &l.extent);
                args.push(self.expr(&end));
            }
            let prefix = match l.kind {
                ForKind::Serial if l.annotations.is_empty() => "range".to_string(),
                kind => self.tir(kind.script_name()),
            };
            if l.kind == ForKind::ThreadBinding {
                let tag = l.thread_tag.as_deref().unwrap_or("");
                args.push(format!("thread={}", str_literal(tag)));
            }
            if !l.annotations.is_empty() {
                let a = self.attr_map(&l.annotations);
                args.push(format!("annotations={a}"));
            }
            let header = format!("for {name} in {prefix}({}):", args.join(", "));
            let loops = vec![(l.loop_var.id(), l.min.clone(), l.extent.clone())];
            (
                header,
                mark.map(|m| (m, None)),
                &l.body,
                loops,
                vec![(s, None)],
            )
        };
        match focus {
            Some((m, f)) => self.header_line(&header, Some(m), f),
            None => self.header_line(&header, None, None),
        }
        for (st, columns) in stmts {
            self.note(|| Anchor::Stmt(st.clone(), StmtPart::Header), columns);
        }
        for (st, columns) in name_columns {
            self.note(
                || Anchor::Stmt(st.clone(), StmtPart::LoopName),
                Some(columns),
            );
        }
        let depth = self.loops.len();
        self.loops.extend(loops);
        self.indent += 1;
        self.stmt(body);
        self.pop_scope();
        self.indent -= 1;
        self.loops.truncate(depth);
    }

    /// Whether block iterator `i` prints inside a `T.axis.remap`.
    fn remappable(&self, r: &BlockRealize, i: usize) -> bool {
        let (Some(iv), Some(value)) = (r.block.iter_vars.get(i), r.iter_values.get(i)) else {
            return false;
        };
        if !matches!(iv.kind, IterKind::Spatial | IterKind::Reduce) {
            return false;
        }
        let ExprKind::Var(v) = value.kind() else {
            return false;
        };
        self.loops
            .iter()
            .rev()
            .find(|(id, _, _)| *id == v.id())
            .is_some_and(|(_, min, extent)| {
                expr_deep_equal(min, &iv.dom.min) && expr_deep_equal(extent, &iv.dom.extent)
            })
    }

    /// `vi = T.axis.spatial(128, i_0 * 16 + i_1)`
    fn single_iter(&mut self, s: &Stmt, r: &BlockRealize, i: usize) {
        let Some(iv) = r.block.iter_vars.get(i) else {
            return;
        };
        self.begin_stmt();
        let dom = if is_zero_int(&iv.dom.min) {
            self.expr(&iv.dom.extent)
        } else {
            let end = add_folded(&iv.dom.min, &iv.dom.extent);
            format!("({}, {})", self.expr(&iv.dom.min), self.expr(&end))
        };
        let binding = r.iter_values.get(i).map(|v| self.expr(v));
        let rhs = match binding {
            Some(b) => format!(
                "{}({dom}, {b})",
                self.tir(&format!("axis.{}", iv.kind.axis_name()))
            ),
            None => format!(
                "{}({dom})",
                self.tir(&format!("axis.{}", iv.kind.axis_name()))
            ),
        };
        let name = self.names.define_var(iv.var.id(), iv.var.name());
        self.line(&format!("{name} = {rhs}"));
        self.note_stmt(s, StmtPart::IterVar(i));
    }

    /// Prints a run of remappable iterators (`vi, vj = T.axis.remap("SS", [i, j])`).
    fn flush_remap(&mut self, s: &Stmt, r: &BlockRealize, run: &mut Vec<usize>) {
        match run.len() {
            0 => {}
            1 => self.single_iter(s, r, run[0]),
            _ => {
                self.begin_stmt();
                let mut lhs = Vec::new();
                let mut values = Vec::new();
                let mut kinds = String::new();
                for &i in run.iter() {
                    let (Some(iv), Some(value)) = (r.block.iter_vars.get(i), r.iter_values.get(i))
                    else {
                        continue;
                    };
                    lhs.push(self.names.define_var(iv.var.id(), iv.var.name()));
                    values.push(self.expr(value));
                    kinds.push(if iv.kind == IterKind::Spatial {
                        'S'
                    } else {
                        'R'
                    });
                }
                self.line(&format!(
                    "{} = {}({}, [{}])",
                    lhs.join(", "),
                    self.tir("axis.remap"),
                    str_literal(&kinds),
                    values.join(", ")
                ));
                for &i in run.iter() {
                    self.note_stmt(s, StmtPart::IterVar(i));
                }
            }
        }
        run.clear();
    }

    fn block_realize(&mut self, s: &Stmt, r: &BlockRealize, mark: Option<&'o Mark>) {
        let b = &r.block;
        let header = format!(
            "with {}({}):",
            self.tir(self.dialect().block_fn()),
            str_literal(&b.name)
        );
        self.header_line(&header, mark, None);
        self.note_stmt(s, StmtPart::Header);
        self.push_scope(vec![body_key(s)], self.indent + 1);
        self.indent += 1;

        let mut run = Vec::new();
        for i in 0..b.iter_vars.len() {
            if self.remappable(r, i) {
                run.push(i);
            } else {
                self.flush_remap(s, r, &mut run);
                self.single_iter(s, r, i);
            }
        }
        self.flush_remap(s, r, &mut run);

        if !matches!(r.predicate.kind(), ExprKind::Int(1)) {
            self.begin_stmt();
            let p = self.expr(&r.predicate);
            self.line(&format!("{}({p})", self.tir("where")));
            self.note_stmt(s, StmtPart::Predicate);
        }
        self.begin_stmt();
        let reads: Vec<String> = b
            .reads
            .iter()
            .map(|x| self.buffer_region(&x.buffer, &x.region))
            .collect();
        self.line(&format!("{}({})", self.tir("reads"), reads.join(", ")));
        self.note_stmt(s, StmtPart::Reads);
        self.begin_stmt();
        let writes: Vec<String> = b
            .writes
            .iter()
            .map(|x| self.buffer_region(&x.buffer, &x.region))
            .collect();
        self.line(&format!("{}({})", self.tir("writes"), writes.join(", ")));
        self.note_stmt(s, StmtPart::Writes);
        if !b.annotations.is_empty() {
            self.begin_stmt();
            let a = self.attr_map(&b.annotations);
            self.line(&format!(
                "{}({a})",
                self.tir(self.dialect().block_attr_fn())
            ));
            self.note_stmt(s, StmtPart::Annotations);
        }
        let alloc = self.dialect().block_alloc_fn();
        for (i, buf) in b.alloc_buffers.iter().enumerate() {
            self.begin_stmt();
            let name = self.define_buffer(buf);
            let decl = self.buffer_decl(buf, alloc, None, false, self.names.depth());
            self.line(&format!("{name} = {decl}"));
            self.note_stmt(s, StmtPart::AllocBuffer(i));
        }
        for (i, mb) in b.match_buffers.iter().enumerate() {
            self.begin_stmt();
            let name = self.define_buffer(&mb.buffer);
            let source = self.buffer_region(&mb.source.buffer, &mb.source.region);
            let decl = self.buffer_decl(
                &mb.buffer,
                "match_buffer",
                Some(source),
                false,
                self.names.depth(),
            );
            self.line(&format!("{name} = {decl}"));
            self.note_stmt(s, StmtPart::MatchBuffer(i));
        }
        if let Some(init) = &b.init {
            self.begin_stmt();
            self.line(&format!("with {}():", self.tir("init")));
            self.note_stmt(s, StmtPart::Init);
            self.nested(init, init_key(s));
        }
        self.stmt(&b.body);
        self.pop_scope();
        self.indent -= 1;
    }
}
