# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="B", func_name="main")
  l1, = sch.get_loops(block=b0)
  l2, l3, l4 = sch.split(loop=l1, factors=[2, 2, 2], preserve_unit_iters=True, disable_predication=False)
  sch.reorder(l2, l4, l3)
