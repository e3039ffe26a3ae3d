# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="tmm-16x16", func_name="main")
  l1, l2, l3 = sch.get_loops(block=b0)
  l4, l5 = sch.split(loop=l1, factors=[None, 4], preserve_unit_iters=True, disable_predication=False)
  sch.reorder(l4, l2, l5, l3)
