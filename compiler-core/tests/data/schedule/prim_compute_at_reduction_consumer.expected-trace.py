# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="Y", func_name="main")
  b1 = sch.get_sblock(name="C", func_name="main")
  l2, l3 = sch.get_loops(block=b1)
  l4, l5 = sch.split(loop=l3, factors=[None, 4], preserve_unit_iters=True, disable_predication=False)
  sch.compute_at(block=b0, loop=l4, preserve_unit_loops=False, index=-1)
