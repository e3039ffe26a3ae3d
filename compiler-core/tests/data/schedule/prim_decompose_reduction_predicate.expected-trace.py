# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="C", func_name="main")
  l1, l2, l3 = sch.get_loops(block=b0)
  l4, l5 = sch.split(loop=l1, factors=[None, 5], preserve_unit_iters=True, disable_predication=False)
  b6 = sch.decompose_reduction(block=b0, loop=l3)
