# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="B", func_name="main")
  l1, l2, l3 = sch.get_loops(block=b0)
  l4, l5, l6 = sch.get_loops(block=b0)
  l7, l8, l9 = sch.get_loops(block=b0)
  l10, l11 = sch.split(loop=l9, factors=[None, 4], preserve_unit_iters=True, disable_predication=False)
  sch.parallel(loop=l1)
