# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="C", func_name="main")
  l1, l2, l3 = sch.get_loops(block=b0)
  l4, l5, l6 = sch.loop_partition(loop=l1, factors=[2, 3], preserve_unit_iters=True)
