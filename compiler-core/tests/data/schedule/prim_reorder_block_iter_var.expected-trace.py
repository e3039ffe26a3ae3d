# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="C", func_name="main")
  sch.reorder_block_iter_var(block=b0, new_order=[3, 1, 0, 2])
  l1, l2, l3, l4 = sch.get_loops(block=b0)
  l5, l6 = sch.split(loop=l3, factors=[None, 4], preserve_unit_iters=True, disable_predication=False)
  sch.enter_postproc()
