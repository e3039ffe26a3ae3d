//! Expressions: the comparison of every expression kind, field by field in
//! TVM's order.

use super::*;

impl Comparer {
    pub(super) fn expr(
        &mut self,
        a: &Expr,
        b: &Expr,
        path: P,
        def: bool,
        parent: Parent,
    ) -> Result<(), Mismatch> {
        let leaf = |s: &Self, msg: String| {
            Err(s.leaf_mismatch(
                path,
                &parent,
                render::expr(a),
                render::expr(b),
                LeafWhy::Other(msg),
            ))
        };
        let whole = |s: &Self, msg: String| {
            Err(Mismatch {
                path: s.paths.render(path),
                lhs: render::expr(a),
                rhs: render::expr(b),
                message: msg,
                at: s.paths.anchors_of(path),
            })
        };
        if std::mem::discriminant(a.kind()) != std::mem::discriminant(b.kind()) {
            let msg = format!(
                "expression kinds differ: {} vs {}",
                render::expr_kind(a),
                render::expr_kind(b)
            );
            return if is_leaf(a) && is_leaf(b) {
                leaf(self, msg)
            } else {
                whole(self, msg)
            };
        }
        if a.dtype() != b.dtype() {
            let msg = format!("dtype differs: {} vs {}", a.dtype(), b.dtype());
            return if is_leaf(a) {
                leaf(self, msg)
            } else {
                whole(self, msg)
            };
        }
        let me = Some((Pair::E(a.clone(), b.clone()), path));
        let mut t = Vec::new();
        let sub = |s: &mut Self, t: &mut Vec<Task>, x: &Expr, y: &Expr, field: &'static str| {
            let p = s.paths.field(path, field);
            t.push(Task::Expr {
                a: x.clone(),
                b: y.clone(),
                path: p,
                def,
                parent: me.clone(),
            });
        };
        match (a.kind(), b.kind()) {
            (ExprKind::Var(x), ExprKind::Var(y)) => return self.use_var(x, y, path, def, &parent),
            (ExprKind::Int(x), ExprKind::Int(y)) => {
                if x != y {
                    return leaf(self, "values differ".into());
                }
            }
            (ExprKind::Float(x), ExprKind::Float(y)) => {
                if !floats_equal(*x, *y) {
                    return leaf(self, "values differ".into());
                }
            }
            (ExprKind::Str(x), ExprKind::Str(y)) => {
                if x != y {
                    return leaf(self, "strings differ".into());
                }
            }
            (ExprKind::Binary(o1, a1, b1), ExprKind::Binary(o2, a2, b2)) => {
                if o1 != o2 {
                    return whole(
                        self,
                        format!(
                            "operators differ: {} vs {}",
                            render::binop_name(*o1),
                            render::binop_name(*o2)
                        ),
                    );
                }
                sub(self, &mut t, a1, a2, "a");
                sub(self, &mut t, b1, b2, "b");
            }
            (ExprKind::Cmp(o1, a1, b1), ExprKind::Cmp(o2, a2, b2)) => {
                if o1 != o2 {
                    return whole(
                        self,
                        format!("comparisons differ: {} vs {}", o1.symbol(), o2.symbol()),
                    );
                }
                sub(self, &mut t, a1, a2, "a");
                sub(self, &mut t, b1, b2, "b");
            }
            (ExprKind::And(a1, b1), ExprKind::And(a2, b2))
            | (ExprKind::Or(a1, b1), ExprKind::Or(a2, b2)) => {
                sub(self, &mut t, a1, a2, "a");
                sub(self, &mut t, b1, b2, "b");
            }
            (ExprKind::Not(x), ExprKind::Not(y)) => sub(self, &mut t, x, y, "a"),
            (ExprKind::Cast(x), ExprKind::Cast(y))
            | (ExprKind::Broadcast(x), ExprKind::Broadcast(y)) => sub(self, &mut t, x, y, "value"),
            (
                ExprKind::Select {
                    cond: c1,
                    then: t1,
                    otherwise: o1,
                },
                ExprKind::Select {
                    cond: c2,
                    then: t2,
                    otherwise: o2,
                },
            ) => {
                sub(self, &mut t, c1, c2, "condition");
                sub(self, &mut t, t1, t2, "true_value");
                sub(self, &mut t, o1, o2, "false_value");
            }
            (ExprKind::Call { op: op1, args: x }, ExprKind::Call { op: op2, args: y }) => {
                if op1 != op2 {
                    return whole(
                        self,
                        format!("callees differ: T.{} vs T.{}", op1.name(), op2.name()),
                    );
                }
                let p = self.paths.field(path, "args");
                self.expr_children(&mut t, x, y, p, &me, "arguments");
            }
            (
                ExprKind::Load {
                    buffer: b1,
                    indices: i1,
                },
                ExprKind::Load {
                    buffer: b2,
                    indices: i2,
                },
            ) => {
                let p = self.paths.field(path, "buffer");
                self.use_buffer(b1, b2, p, Some(&me))?;
                let p = self.paths.field(path, "indices");
                self.expr_children(&mut t, i1, i2, p, &me, "indices");
            }
            (
                ExprKind::Let {
                    var: v1,
                    value: x1,
                    body: y1,
                },
                ExprKind::Let {
                    var: v2,
                    value: x2,
                    body: y2,
                },
            ) => {
                let p = self.paths.field(path, "var");
                t.push(Task::DefVar(v1.clone(), v2.clone(), p));
                sub(self, &mut t, x1, x2, "value");
                sub(self, &mut t, y1, y2, "body");
            }
            (
                ExprKind::Ramp {
                    base: b1,
                    stride: s1,
                },
                ExprKind::Ramp {
                    base: b2,
                    stride: s2,
                },
            ) => {
                sub(self, &mut t, b1, b2, "base");
                sub(self, &mut t, s1, s2, "stride");
            }
            _ => return whole(self, "expression kinds differ".into()),
        }
        self.schedule(t);
        Ok(())
    }
}
