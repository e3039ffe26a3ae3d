//! Definitions and uses: variables and buffers are mapped one-to-one where
//! they are defined, and every later use must follow the mapping.

use super::*;

impl Comparer {
    pub(super) fn def_var(
        &mut self,
        a: &Var,
        b: &Var,
        path: P,
        parent: Option<&Parent>,
    ) -> Result<(), Mismatch> {
        let err = |s: &Self, why: LeafWhy| {
            Err(s.leaf_mismatch(
                path,
                parent.unwrap_or(&None),
                a.name().to_string(),
                b.name().to_string(),
                why,
            ))
        };
        if a.dtype() != b.dtype() {
            return err(
                self,
                LeafWhy::Other(format!("dtype differs: {} vs {}", a.dtype(), b.dtype())),
            );
        }
        if let Some(x) = self.vars.get(&a.id()) {
            if x != b {
                let msg = format!(
                    "lhs `{}` already corresponds to rhs `{}`, not `{}`",
                    a.name(),
                    x.name(),
                    b.name()
                );
                return err(self, LeafWhy::Correspondence(msg));
            }
            return Ok(());
        }
        if let Some(y) = self.vars_rev.get(&b.id()) {
            let msg = format!(
                "rhs `{}` already corresponds to lhs `{}`, not `{}`",
                b.name(),
                y.name(),
                a.name()
            );
            return err(self, LeafWhy::Correspondence(msg));
        }
        self.vars.insert(a.id(), b.clone());
        self.vars_rev.insert(b.id(), a.clone());
        Ok(())
    }

    pub(super) fn use_var(
        &mut self,
        a: &Var,
        b: &Var,
        path: P,
        def: bool,
        parent: &Parent,
    ) -> Result<(), Mismatch> {
        let err = |s: &Self, why: LeafWhy| {
            Err(s.leaf_mismatch(
                path,
                parent,
                a.name().to_string(),
                b.name().to_string(),
                why,
            ))
        };
        if let Some(x) = self.vars.get(&a.id()) {
            if x == b {
                return Ok(());
            }
            let msg = format!(
                "lhs `{}` corresponds to rhs `{}`, not `{}`",
                a.name(),
                x.name(),
                b.name()
            );
            return err(self, LeafWhy::Correspondence(msg));
        }
        if let Some(y) = self.vars_rev.get(&b.id()) {
            let msg = format!(
                "rhs `{}` corresponds to lhs `{}`, not `{}`",
                b.name(),
                y.name(),
                a.name()
            );
            return err(self, LeafWhy::Correspondence(msg));
        }
        if a == b {
            // A free variable equals itself; remember that, so a later use of
            // it against another variable is caught (`x + x` vs `x + y`).
            self.vars.insert(a.id(), b.clone());
            self.vars_rev.insert(b.id(), a.clone());
            return Ok(());
        }
        if def || self.options.map_free_vars {
            return self.def_var(a, b, path, Some(parent));
        }
        err(
            self,
            LeafWhy::Other(
                "free variables differ (they are not defined here; use map_free_vars to map them)"
                    .to_string(),
            ),
        )
    }

    pub(super) fn def_buffer(&mut self, a: &Buffer, b: &Buffer, path: P) -> Result<(), Mismatch> {
        if let Some(x) = self.bufs.get(&a.id()) {
            if x == b {
                return Ok(());
            }
            return Err(Mismatch {
                path: self.paths.render(path),
                lhs: render::buffer(a),
                rhs: render::buffer(b),
                message: format!(
                    "lhs buffer `{}` already corresponds to rhs `{}`, not `{}`",
                    a.name, x.name, b.name
                ),
                at: self.paths.anchors_of(path),
            });
        }
        if let Some(y) = self.bufs_rev.get(&b.id()) {
            return Err(Mismatch {
                path: self.paths.render(path),
                lhs: render::buffer(a),
                rhs: render::buffer(b),
                message: format!(
                    "rhs buffer `{}` already corresponds to lhs `{}`, not `{}`",
                    b.name, y.name, a.name
                ),
                at: self.paths.anchors_of(path),
            });
        }
        self.bufs.insert(a.id(), b.clone());
        self.bufs_rev.insert(b.id(), a.clone());
        let mut t = Vec::new();
        let p = self.paths.field(path, "data");
        t.push(Task::DefVar(a.data.clone(), b.data.clone(), p));
        if a.dtype != b.dtype {
            let p = self.paths.field(path, "dtype");
            t.push(fail(
                p,
                render::buffer(a),
                render::buffer(b),
                format!("buffer dtype differs: {} vs {}", a.dtype, b.dtype),
            ));
        }
        let shape = self.paths.field(path, "shape");
        self.expr_list(&mut t, &a.shape, &b.shape, shape, true, "dimensions");
        let strides = self.paths.field(path, "strides");
        self.expr_list(&mut t, &a.strides, &b.strides, strides, true, "strides");
        let p = self.paths.field(path, "elem_offset");
        t.push(Task::Expr {
            a: a.elem_offset.clone(),
            b: b.elem_offset.clone(),
            path: p,
            def: true,
            parent: None,
        });
        if a.scope != b.scope {
            let p = self.paths.field(path, "scope");
            t.push(fail(
                p,
                a.scope.clone(),
                b.scope.clone(),
                "buffer scope differs",
            ));
        }
        if a.align != b.align {
            let p = self.paths.field(path, "align");
            t.push(fail(
                p,
                a.align.to_string(),
                b.align.to_string(),
                "buffer alignment differs",
            ));
        }
        if a.offset_factor != b.offset_factor {
            let p = self.paths.field(path, "offset_factor");
            t.push(fail(
                p,
                a.offset_factor.to_string(),
                b.offset_factor.to_string(),
                "buffer offset_factor differs",
            ));
        }
        self.schedule(t);
        Ok(())
    }

    pub(super) fn use_buffer(
        &mut self,
        a: &Buffer,
        b: &Buffer,
        path: P,
        parent: Option<&Parent>,
    ) -> Result<(), Mismatch> {
        let parent = parent.unwrap_or(&None);
        if let Some(x) = self.bufs.get(&a.id()) {
            if x == b {
                return Ok(());
            }
            let msg = format!(
                "lhs buffer `{}` corresponds to rhs `{}`, not `{}`",
                a.name, x.name, b.name
            );
            return Err(self.leaf_mismatch(
                path,
                parent,
                a.name.clone(),
                b.name.clone(),
                LeafWhy::Correspondence(msg),
            ));
        }
        if let Some(y) = self.bufs_rev.get(&b.id()) {
            let msg = format!(
                "rhs buffer `{}` corresponds to lhs `{}`, not `{}`",
                b.name, y.name, a.name
            );
            return Err(self.leaf_mismatch(
                path,
                parent,
                a.name.clone(),
                b.name.clone(),
                LeafWhy::Correspondence(msg),
            ));
        }
        if a == b {
            self.bufs.insert(a.id(), b.clone());
            self.bufs_rev.insert(b.id(), a.clone());
            return Ok(());
        }
        if self.options.map_free_vars {
            return self.def_buffer(a, b, path);
        }
        Err(self.leaf_mismatch(
            path,
            parent,
            a.name.clone(),
            b.name.clone(),
            LeafWhy::Other(
                "free buffers differ (they are not defined here; use map_free_vars to map them)"
                    .into(),
            ),
        ))
    }
}
