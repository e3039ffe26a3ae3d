//! A block's iterators: `reorder_block_iter_var`.
//!
//! Behaviour checked against TVM 0.27:
//!
//! - `reorder_block_iter_var(block, new_order)`: the block's iterators (and
//!   their bindings) in the order `new_order` gives, which must be a
//!   permutation of `0..n` for a block of `n` iterators. Nothing else
//!   changes: the loops, the body and the regions stay. The trace prints
//!   `new_order=[2, 0, 1]`; TVM's JSON keeps the list as the second input.

use super::primitives::{param, Args, ParamType as T, Primitive, Returns};
use super::replay::SchedValue;
use super::*;

pub(super) const REORDER_BLOCK_ITER_VAR: Primitive = Primitive {
    method: "reorder_block_iter_var",
    aliases: &[],
    kind: "ReorderBlockIterVar",
    params: &[
        param("block", T::Block),
        param("new_order", T::Ints).list_input(),
    ],
    returns: Returns::Nothing,
    traced: true,
    apply: |sch, args| {
        sch.reorder_block_iter_var_concrete(args.block("block")?, &args.ints("new_order")?)?;
        Ok(SchedValue::None)
    },
    menu: None,
};

impl Schedule {
    /// `sch.reorder_block_iter_var(block, new_order)`: see the module
    /// documentation.
    pub fn reorder_block_iter_var(&mut self, block_rv: BlockRV, new_order: &[i64]) -> Result<()> {
        let order = SchedValue::List(new_order.iter().map(|&i| SchedValue::Int(i)).collect());
        let args = Args::typed(&REORDER_BLOCK_ITER_VAR, vec![block_rv.into(), order]);
        self.apply_traced(&REORDER_BLOCK_ITER_VAR, args)?;
        Ok(())
    }

    fn reorder_block_iter_var_concrete(
        &mut self,
        block_rv: BlockRV,
        new_order: &[i64],
    ) -> Result<()> {
        const P: &str = "reorder_block_iter_var";
        let (path, realize) = self.resolve_block(P, block_rv)?;
        let n = realize.block.iter_vars.len();
        let mut seen = vec![false; n];
        let valid = new_order.len() == n
            && new_order.iter().all(|&i| {
                let ok = i >= 0 && (i as usize) < n && !seen[i as usize];
                if ok {
                    seen[i as usize] = true;
                }
                ok
            });
        if !valid {
            let listed: Vec<String> = new_order.iter().map(i64::to_string).collect();
            return Err(ScheduleError::new(
                P,
                format!(
                    "The specified reorder indices are invalid: the order [{}] is not a valid \
                     permutation of [0, 1, ..., {}] for the {n} iterators of block `{}`.",
                    listed.join(", "),
                    n as i64 - 1,
                    realize.block.name
                ),
            )
            .at(path));
        }
        let mut new = realize.clone();
        new.block.iter_vars = new_order
            .iter()
            .map(|&i| realize.block.iter_vars[i as usize].clone())
            .collect();
        new.iter_values = new_order
            .iter()
            .map(|&i| realize.iter_values[i as usize].clone())
            .collect();
        let span = tree::get(&self.body(P)?, &path)
            .map(|s| s.span())
            .unwrap_or_default();
        self.replace_at(P, &path, Stmt::new(StmtKind::BlockRealize(new), span))
    }
}
