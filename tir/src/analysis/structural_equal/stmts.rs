//! Statements and blocks: the comparison of every statement kind, and of
//! blocks (iterators, regions, buffers, init, annotations).

use super::*;
use crate::ir::{BlockRealize, For};

impl Comparer {
    pub(super) fn stmt(&mut self, a: &Stmt, b: &Stmt, path: P) -> Result<(), Mismatch> {
        let whole = |s: &Self, msg: String| {
            Err(Mismatch {
                path: s.paths.render(path),
                lhs: render::stmt(a),
                rhs: render::stmt(b),
                message: msg,
                at: s.paths.anchors_of(path),
            })
        };
        self.paths
            .part(path, &first_printed(a), &first_printed(b), StmtPart::Header);
        if std::mem::discriminant(a.kind()) != std::mem::discriminant(b.kind()) {
            let msg = format!(
                "statement kinds differ: {} vs {}",
                render::stmt_kind(a),
                render::stmt_kind(b)
            );
            return whole(self, msg);
        }
        let me: Parent = Some((Pair::S(a.clone(), b.clone()), path));
        let mut t = Vec::new();
        let sub_expr = |s: &mut Self, t: &mut Vec<Task>, x: &Expr, y: &Expr, field| {
            s.sub_expr(t, x, y, path, field, &me)
        };
        match (a.kind(), b.kind()) {
            (StmtKind::For(x), StmtKind::For(y)) => {
                self.for_loop(&mut t, (a, x), (b, y), path, &me)
            }
            (StmtKind::BlockRealize(x), StmtKind::BlockRealize(y)) => {
                self.block_realize(&mut t, (a, x), (b, y), path, &me)
            }
            (
                StmtKind::Store {
                    buffer: b1,
                    value: v1,
                    indices: i1,
                },
                StmtKind::Store {
                    buffer: b2,
                    value: v2,
                    indices: i2,
                },
            ) => {
                let p = self.paths.field(path, "buffer");
                self.use_buffer(b1, b2, p, Some(&me))?;
                sub_expr(self, &mut t, v1, v2, "value");
                let p = self.paths.field(path, "indices");
                self.expr_children(&mut t, i1, i2, p, &me, "indices");
            }
            (
                StmtKind::Let {
                    var: v1,
                    value: x1,
                    body: y1,
                },
                StmtKind::Let {
                    var: v2,
                    value: x2,
                    body: y2,
                },
            ) => {
                let p = self.paths.field(path, "var");
                t.push(Task::DefVar(v1.clone(), v2.clone(), p));
                sub_expr(self, &mut t, x1, x2, "value");
                let p = self.paths.field(path, "body");
                t.push(Task::Stmt(y1.clone(), y2.clone(), p));
            }
            (
                StmtKind::If {
                    cond: c1,
                    then: t1,
                    otherwise: o1,
                },
                StmtKind::If {
                    cond: c2,
                    then: t2,
                    otherwise: o2,
                },
            ) => {
                sub_expr(self, &mut t, c1, c2, "condition");
                let p = self.paths.field(path, "then_case");
                t.push(Task::Stmt(t1.clone(), t2.clone(), p));
                let p = self.paths.field(path, "else_case");
                match (o1, o2) {
                    (Some(x), Some(y)) => t.push(Task::Stmt(x.clone(), y.clone(), p)),
                    (None, None) => {}
                    (x, y) => t.push(fail(
                        p,
                        x.as_ref().map_or("<none>".into(), render::stmt),
                        y.as_ref().map_or("<none>".into(), render::stmt),
                        "only one side has an else branch",
                    )),
                }
            }
            (StmtKind::Evaluate(x), StmtKind::Evaluate(y)) => sub_expr(self, &mut t, x, y, "value"),
            (StmtKind::Seq(x), StmtKind::Seq(y)) => self.seq_stmts(&mut t, x, y, path),
            (
                StmtKind::Allocate {
                    buffer: b1,
                    body: y1,
                },
                StmtKind::Allocate {
                    buffer: b2,
                    body: y2,
                },
            ) => {
                let p = self.paths.field(path, "buffer");
                t.push(Task::DefBuffer(b1.clone(), b2.clone(), p));
                let p = self.paths.field(path, "body");
                t.push(Task::Stmt(y1.clone(), y2.clone(), p));
            }
            _ => return whole(self, "statement kinds differ".into()),
        }
        self.schedule(t);
        Ok(())
    }

    /// Queues the comparison of the expressions `x` and `y` in `field` of
    /// the statement at `path`.
    fn sub_expr(
        &mut self,
        t: &mut Vec<Task>,
        x: &Expr,
        y: &Expr,
        path: P,
        field: &'static str,
        me: &Parent,
    ) {
        let p = self.paths.field(path, field);
        t.push(Task::Expr {
            a: x.clone(),
            b: y.clone(),
            path: p,
            def: false,
            parent: me.clone(),
        });
    }

    /// Queues the comparison of two loops' parts.
    fn for_loop(
        &mut self,
        t: &mut Vec<Task>,
        (a, x): (&Stmt, &For),
        (b, y): (&Stmt, &For),
        path: P,
        me: &Parent,
    ) {
        let p = self.paths.field(path, "loop_var");
        t.push(Task::DefVar(x.loop_var.clone(), y.loop_var.clone(), p));
        self.sub_expr(t, &x.min, &y.min, path, "min", me);
        self.sub_expr(t, &x.extent, &y.extent, path, "extent", me);
        if x.kind != y.kind {
            let p = self.paths.field(path, "kind");
            t.push(fail(
                p,
                render::stmt(a),
                render::stmt(b),
                format!(
                    "loop kinds differ: {} vs {}",
                    x.kind.script_name(),
                    y.kind.script_name()
                ),
            ));
        }
        if x.thread_tag != y.thread_tag {
            let p = self.paths.field(path, "thread_tag");
            t.push(fail(
                p,
                render::stmt(a),
                render::stmt(b),
                "thread tags differ",
            ));
        }
        let p = self.paths.field(path, "annotations");
        self.attr_map(t, &x.annotations, &y.annotations, p, None);
        let p = self.paths.field(path, "body");
        t.push(Task::Stmt(x.body.clone(), y.body.clone(), p));
    }

    /// Queues the comparison of two block realizes: bindings, predicate and
    /// the blocks.
    fn block_realize(
        &mut self,
        t: &mut Vec<Task>,
        (a, x): (&Stmt, &BlockRealize),
        (b, y): (&Stmt, &BlockRealize),
        path: P,
        me: &Parent,
    ) {
        let vp = self.paths.field(path, "iter_values");
        for (i, (u, v)) in x.iter_values.iter().zip(&y.iter_values).enumerate() {
            let p = self.paths.index(vp, i);
            self.paths.part(p, a, b, StmtPart::IterVar(i));
            t.push(Task::Expr {
                a: u.clone(),
                b: v.clone(),
                path: p,
                def: false,
                parent: None,
            });
        }
        self.len_check(
            t,
            x.iter_values.len(),
            y.iter_values.len(),
            vp,
            "iterator bindings",
            |i| {
                (
                    x.iter_values.get(i).map(render::expr),
                    y.iter_values.get(i).map(render::expr),
                )
            },
        );
        let p = self.paths.field(path, "predicate");
        self.paths.part(p, a, b, StmtPart::Predicate);
        t.push(Task::Expr {
            a: x.predicate.clone(),
            b: y.predicate.clone(),
            path: p,
            def: false,
            parent: me.clone(),
        });
        let p = self.paths.child(path, Seg::Block(x.block.name.clone()));
        self.block(t, (a, &x.block), (b, &y.block), p);
    }

    /// Queues the comparison of two sequences, statement by statement, and
    /// a mismatch when their lengths differ.
    fn seq_stmts(&mut self, t: &mut Vec<Task>, x: &[Stmt], y: &[Stmt], path: P) {
        for (i, (u, v)) in x.iter().zip(y).enumerate() {
            let p = self.paths.index(path, i);
            t.push(Task::Stmt(u.clone(), v.clone(), p));
        }
        if x.len() != y.len() {
            // Points at the first extra statement, or at the last
            // one of the shorter side.
            let i = x.len().min(y.len());
            let p = self.paths.index(path, i);
            let pick = |v: &[Stmt]| v.get(i).or(v.last()).cloned();
            if let (Some(u), Some(v)) = (pick(x), pick(y)) {
                self.paths.part(p, &u, &v, StmtPart::Header);
            }
            let missing = || "<missing>".to_string();
            t.push(fail(
                p,
                x.get(i).map_or_else(missing, render::stmt),
                y.get(i).map_or_else(missing, render::stmt),
                format!("different number of statements: {} vs {}", x.len(), y.len()),
            ));
        }
    }

    /// Compares two blocks, `sa` and `sb` the statements that realize them
    /// (where their parts print).
    pub(super) fn block(
        &mut self,
        t: &mut Vec<Task>,
        (sa, a): (&Stmt, &Block),
        (sb, b): (&Stmt, &Block),
        path: P,
    ) {
        let part = |s: &mut Self, p: P, part: StmtPart| s.paths.part(p, sa, sb, part);
        let head = |blk: &Block| format!("with T.sblock({:?})", blk.name);
        if self.options.compare_block_names && a.name != b.name {
            let p = self.paths.field(path, "name_hint");
            t.push(fail(
                p,
                a.name.clone(),
                b.name.clone(),
                "block names differ",
            ));
        }
        let ivs = self.paths.field(path, "iter_vars");
        for (i, (x, y)) in a.iter_vars.iter().zip(&b.iter_vars).enumerate() {
            let p = self.paths.index(ivs, i);
            part(self, p, StmtPart::IterVar(i));
            let vp = self.paths.field(p, "var");
            t.push(Task::DefVar(x.var.clone(), y.var.clone(), vp));
            let dp = self.paths.field(p, "dom");
            self.range(t, &x.dom, &y.dom, dp);
            if x.kind != y.kind {
                let kp = self.paths.field(p, "iter_type");
                t.push(fail(
                    kp,
                    format!("{} = T.axis.{}", x.var.name(), x.kind.axis_name()),
                    format!("{} = T.axis.{}", y.var.name(), y.kind.axis_name()),
                    "block iterator kinds differ",
                ));
            }
        }
        self.len_check(
            t,
            a.iter_vars.len(),
            b.iter_vars.len(),
            ivs,
            "block iterators",
            |i| {
                (
                    a.iter_vars.get(i).map(|iv| iv.var.name().to_string()),
                    b.iter_vars.get(i).map(|iv| iv.var.name().to_string()),
                )
            },
        );
        let p = self.paths.field(path, "reads");
        part(self, p, StmtPart::Reads);
        self.regions(t, &a.reads, &b.reads, p, "read regions");
        let p = self.paths.field(path, "writes");
        part(self, p, StmtPart::Writes);
        self.regions(t, &a.writes, &b.writes, p, "write regions");
        let ap = self.paths.field(path, "alloc_buffers");
        for (i, (x, y)) in a.alloc_buffers.iter().zip(&b.alloc_buffers).enumerate() {
            let p = self.paths.index(ap, i);
            part(self, p, StmtPart::AllocBuffer(i));
            t.push(Task::DefBuffer(x.clone(), y.clone(), p));
        }
        self.len_check(
            t,
            a.alloc_buffers.len(),
            b.alloc_buffers.len(),
            ap,
            "allocated buffers",
            |i| {
                (
                    a.alloc_buffers.get(i).map(render::buffer),
                    b.alloc_buffers.get(i).map(render::buffer),
                )
            },
        );
        let mp = self.paths.field(path, "match_buffers");
        for (i, (x, y)) in a.match_buffers.iter().zip(&b.match_buffers).enumerate() {
            let p = self.paths.index(mp, i);
            part(self, p, StmtPart::MatchBuffer(i));
            let bp = self.paths.field(p, "buffer");
            t.push(Task::DefBuffer(x.buffer.clone(), y.buffer.clone(), bp));
            let sp = self.paths.field(p, "source");
            self.region(t, &x.source, &y.source, sp);
        }
        self.len_check(
            t,
            a.match_buffers.len(),
            b.match_buffers.len(),
            mp,
            "match buffers",
            |i| {
                (
                    a.match_buffers.get(i).map(|m| render::buffer(&m.buffer)),
                    b.match_buffers.get(i).map(|m| render::buffer(&m.buffer)),
                )
            },
        );
        let p = self.paths.field(path, "annotations");
        part(self, p, StmtPart::Annotations);
        self.attr_map(t, &a.annotations, &b.annotations, p, None);
        let p = self.paths.field(path, "init");
        part(self, p, StmtPart::Init);
        match (&a.init, &b.init) {
            (Some(x), Some(y)) => t.push(Task::Stmt(x.clone(), y.clone(), p)),
            (None, None) => {}
            (x, y) => t.push(fail(
                p,
                x.as_ref()
                    .map_or(format!("{}: no T.init()", head(a)), render::stmt),
                y.as_ref()
                    .map_or(format!("{}: no T.init()", head(b)), render::stmt),
                "only one block has a T.init()",
            )),
        }
        let p = self.paths.field(path, "body");
        t.push(Task::Stmt(a.body.clone(), b.body.clone(), p));
    }
}
