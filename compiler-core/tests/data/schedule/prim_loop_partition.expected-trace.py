# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="B", func_name="main")
  l1, l2 = sch.get_loops(block=b0)
  l3, l4, l5 = sch.loop_partition(loop=l1, factors=[None, 4, 3], preserve_unit_iters=True)
  b6 = sch.get_sblock(name="B_i0", func_name="main")
  l7, l8 = sch.get_loops(block=b6)
  l9, l10 = sch.split(loop=l8, factors=[None, 4], preserve_unit_iters=True, disable_predication=False)
