//! Lists and small fields: expression lists and their children, lengths,
//! ranges, buffer regions and attribute maps.

use super::*;

impl Comparer {
    /// Element-wise expression tasks, then a length check.
    pub(super) fn expr_list(
        &mut self,
        t: &mut Vec<Task>,
        a: &[Expr],
        b: &[Expr],
        path: P,
        def: bool,
        what: &str,
    ) {
        for (i, (x, y)) in a.iter().zip(b).enumerate() {
            let p = self.paths.index(path, i);
            t.push(Task::Expr {
                a: x.clone(),
                b: y.clone(),
                path: p,
                def,
                parent: None,
            });
        }
        self.len_check(t, a.len(), b.len(), path, what, |i| {
            (a.get(i).map(render::expr), b.get(i).map(render::expr))
        });
    }

    /// Expression children of `parent` (call arguments, indices), reported
    /// in terms of the parent on a leaf mismatch.
    pub(super) fn expr_children(
        &mut self,
        t: &mut Vec<Task>,
        a: &[Expr],
        b: &[Expr],
        path: P,
        parent: &Parent,
        what: &str,
    ) {
        for (i, (x, y)) in a.iter().zip(b).enumerate() {
            let p = self.paths.index(path, i);
            t.push(Task::Expr {
                a: x.clone(),
                b: y.clone(),
                path: p,
                def: false,
                parent: parent.clone(),
            });
        }
        if a.len() != b.len() {
            let p = self.paths.index(path, a.len().min(b.len()));
            let (l, r) = match parent {
                Some((pair, _)) => pair.render(),
                None => (String::new(), String::new()),
            };
            t.push(fail(
                p,
                l,
                r,
                format!("different number of {what}: {} vs {}", a.len(), b.len()),
            ));
        }
    }

    pub(super) fn len_check(
        &mut self,
        t: &mut Vec<Task>,
        la: usize,
        lb: usize,
        path: P,
        what: &str,
        render_at: impl Fn(usize) -> (Option<String>, Option<String>),
    ) {
        if la == lb {
            return;
        }
        let i = la.min(lb);
        let p = self.paths.index(path, i);
        let missing = || "<missing>".to_string();
        let (l, r) = render_at(i);
        t.push(fail(
            p,
            l.unwrap_or_else(missing),
            r.unwrap_or_else(missing),
            format!("different number of {what}: {la} vs {lb}"),
        ));
    }

    pub(super) fn range(&mut self, t: &mut Vec<Task>, a: &Range, b: &Range, path: P) {
        let p = self.paths.field(path, "min");
        t.push(Task::Expr {
            a: a.min.clone(),
            b: b.min.clone(),
            path: p,
            def: false,
            parent: None,
        });
        let p = self.paths.field(path, "extent");
        t.push(Task::Expr {
            a: a.extent.clone(),
            b: b.extent.clone(),
            path: p,
            def: false,
            parent: None,
        });
    }

    pub(super) fn region(
        &mut self,
        t: &mut Vec<Task>,
        a: &BufferRegion,
        b: &BufferRegion,
        path: P,
    ) {
        let p = self.paths.field(path, "buffer");
        t.push(Task::UseBuffer(a.buffer.clone(), b.buffer.clone(), p));
        let rp = self.paths.field(path, "region");
        for (i, (x, y)) in a.region.iter().zip(&b.region).enumerate() {
            let p = self.paths.index(rp, i);
            self.range(t, x, y, p);
        }
        self.len_check(
            t,
            a.region.len(),
            b.region.len(),
            rp,
            "region dimensions",
            |_| (Some(render::region(a)), Some(render::region(b))),
        );
    }

    pub(super) fn regions(
        &mut self,
        t: &mut Vec<Task>,
        a: &[BufferRegion],
        b: &[BufferRegion],
        path: P,
        what: &str,
    ) {
        for (i, (x, y)) in a.iter().zip(b).enumerate() {
            let p = self.paths.index(path, i);
            self.region(t, x, y, p);
        }
        self.len_check(t, a.len(), b.len(), path, what, |i| {
            (a.get(i).map(render::region), b.get(i).map(render::region))
        });
    }

    pub(super) fn attr_map(
        &mut self,
        t: &mut Vec<Task>,
        a: &BTreeMap<String, AttrValue>,
        b: &BTreeMap<String, AttrValue>,
        path: P,
        skip: Option<&str>,
    ) {
        let keys: BTreeSet<&String> = a.keys().chain(b.keys()).collect();
        for k in keys {
            if Some(k.as_str()) == skip {
                continue;
            }
            let p = self.paths.child(path, Seg::Key(k.clone()));
            match (a.get(k), b.get(k)) {
                (Some(x), Some(y)) => t.push(Task::Attr(x.clone(), y.clone(), p)),
                (Some(x), None) => t.push(fail(
                    p,
                    render::attr(x),
                    "<missing>",
                    format!("key {k:?} is only in lhs"),
                )),
                (None, Some(y)) => t.push(fail(
                    p,
                    "<missing>",
                    render::attr(y),
                    format!("key {k:?} is only in rhs"),
                )),
                (None, None) => {}
            }
        }
    }

    pub(super) fn attr(&mut self, a: &AttrValue, b: &AttrValue, path: P) {
        let mismatch = |msg: &str| fail(path, render::attr(a), render::attr(b), msg);
        let task = match (a, b) {
            (AttrValue::Bool(x), AttrValue::Bool(y)) if x == y => return,
            (AttrValue::Int(x), AttrValue::Int(y)) if x == y => return,
            (AttrValue::Float(x), AttrValue::Float(y)) if floats_equal(*x, *y) => return,
            (AttrValue::Str(x), AttrValue::Str(y)) if x == y => return,
            (AttrValue::Expr(x), AttrValue::Expr(y)) => Task::Expr {
                a: x.clone(),
                b: y.clone(),
                path,
                def: false,
                parent: None,
            },
            (AttrValue::Array(x), AttrValue::Array(y)) => {
                let mut t = Vec::new();
                for (i, (u, v)) in x.iter().zip(y).enumerate() {
                    let p = self.paths.index(path, i);
                    t.push(Task::Attr(u.clone(), v.clone(), p));
                }
                self.len_check(&mut t, x.len(), y.len(), path, "array elements", |i| {
                    (x.get(i).map(render::attr), y.get(i).map(render::attr))
                });
                self.schedule(t);
                return;
            }
            (AttrValue::Map(x), AttrValue::Map(y)) => {
                let mut t = Vec::new();
                self.attr_map(&mut t, x, y, path, None);
                self.schedule(t);
                return;
            }
            _ if std::mem::discriminant(a) == std::mem::discriminant(b) => {
                mismatch("values differ")
            }
            _ => mismatch(&format!(
                "kinds differ: {} vs {}",
                render::attr_kind(a),
                render::attr_kind(b)
            )),
        };
        self.stack.push(task);
    }
}
