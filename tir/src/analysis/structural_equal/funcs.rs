//! Functions and modules: parameters, buffer maps and attributes; module
//! functions matched by name.

use super::*;

impl Comparer {
    pub(super) fn func(&mut self, a: &PrimFunc, b: &PrimFunc, path: P) {
        let mut t = Vec::new();
        self.paths
            .anchor(path, Anchor::Signature, Anchor::Signature);
        let pp = self.paths.field(path, "params");
        for (i, (x, y)) in a.params.iter().zip(&b.params).enumerate() {
            let p = self.paths.index(pp, i);
            self.paths.anchor(p, Anchor::Param(i), Anchor::Param(i));
            t.push(Task::DefVar(x.clone(), y.clone(), p));
        }
        self.len_check(
            &mut t,
            a.params.len(),
            b.params.len(),
            pp,
            "parameters",
            |i| {
                (
                    {
                        a.params
                            .get(i)
                            .map(|v| format!("{}: {}", v.name(), v.dtype()))
                    },
                    {
                        b.params
                            .get(i)
                            .map(|v| format!("{}: {}", v.name(), v.dtype()))
                    },
                )
            },
        );
        let bp = self.paths.field(path, "buffer_map");
        // TVM's buffer map is keyed by parameter: match buffers by the
        // position of their parameter, not by the order of `T.match_buffer`.
        let (map_a, map_b) = (buffers_by_param(a), buffers_by_param(b));
        for (i, ((v1, b1), (v2, b2))) in map_a.into_iter().zip(map_b).enumerate() {
            let p = self.paths.index(bp, i);
            let param = |f: &PrimFunc, v: &Var| match f.params.iter().position(|x| x == v) {
                Some(j) => Anchor::Param(j),
                None => Anchor::Signature,
            };
            self.paths.anchor(p, param(a, v1), param(b, v2));
            let kp = self.paths.field(p, "param");
            t.push(Task::Expr {
                a: v1.to_expr(),
                b: v2.to_expr(),
                path: kp,
                def: false,
                parent: None,
            });
            let vp = self.paths.field(p, "buffer");
            t.push(Task::DefBuffer(b1.clone(), b2.clone(), vp));
        }
        self.len_check(
            &mut t,
            a.buffer_map.len(),
            b.buffer_map.len(),
            bp,
            "parameter buffers",
            |i| {
                (
                    a.buffer_map.get(i).map(|(_, b)| render::buffer(b)),
                    b.buffer_map.get(i).map(|(_, b)| render::buffer(b)),
                )
            },
        );
        let ap = self.paths.field(path, "attrs");
        self.paths.anchor(ap, Anchor::FuncAttrs, Anchor::FuncAttrs);
        let skip = self.options.ignore_global_symbol.then_some("global_symbol");
        self.attr_map(&mut t, &a.attrs, &b.attrs, ap, skip);
        let p = self.paths.field(path, "body");
        t.push(Task::Stmt(a.body.clone(), b.body.clone(), p));
        self.schedule(t);
    }

    pub(super) fn module(&mut self, a: &IRModule, b: &IRModule) {
        let names_a: BTreeSet<&str> = a.names().collect();
        let names_b: BTreeSet<&str> = b.names().collect();
        let list = |s: &BTreeSet<&str>| {
            let v: Vec<String> = s.iter().map(|n| format!("{n:?}")).collect();
            format!("[{}]", v.join(", "))
        };
        if names_a != names_b {
            let root = self.paths.root(Seg::Root("mod"));
            let only_a = names_a.difference(&names_b).next();
            let only_b = names_b.difference(&names_a).next();
            let msg = match (only_a, only_b) {
                (Some(n), _) => format!("function {n:?} is only in lhs"),
                (None, Some(n)) => format!("function {n:?} is only in rhs"),
                (None, None) => "function names differ".to_string(),
            };
            self.stack
                .push(fail(root, list(&names_a), list(&names_b), msg));
            return;
        }
        let mut t = Vec::new();
        for name in &names_a {
            let (Some(fa), Some(fb)) = (a.get(name), b.get(name)) else {
                continue;
            };
            let p = self.paths.root(Seg::Func(name.to_string()));
            match (fa, fb) {
                (BaseFunc::Prim(fa), BaseFunc::Prim(fb)) => {
                    t.push(Task::Func(fa.clone(), fb.clone(), p))
                }
                (BaseFunc::Graph(fa), BaseFunc::Graph(fb)) => {
                    t.push(Task::GraphFunc(fa.clone(), fb.clone(), p))
                }
                (fa, fb) => {
                    let kind = |f: &BaseFunc| match f {
                        BaseFunc::Prim(_) => "a PrimFunc",
                        BaseFunc::Graph(_) => "a graph function",
                    };
                    t.push(fail(p, kind(fa), kind(fb), "different kinds of functions"))
                }
            }
        }
        let root = self.paths.root(Seg::Root("mod"));
        let p = self.paths.field(root, "attrs");
        self.attr_map(&mut t, &a.attrs, &b.attrs, p, None);
        self.schedule(t);
    }
}
