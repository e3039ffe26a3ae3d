# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="B", func_name="main")
  b1 = sch.get_sblock(name="C", func_name="main")
  l2, l3 = sch.get_loops(block=b0)
  l4, l5 = sch.get_loops(block=b1)
  l6 = sch.merge(l2, l4)
  l7, l8 = sch.split(loop=l3, factors=[None, 4], preserve_unit_iters=True, disable_predication=False)
