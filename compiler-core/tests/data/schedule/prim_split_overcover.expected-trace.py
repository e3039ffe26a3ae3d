# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="C", func_name="main")
  l1, l2 = sch.get_loops(block=b0)
  l3, l4 = sch.split(loop=l1, factors=[5, 4], preserve_unit_iters=True, disable_predication=False)
