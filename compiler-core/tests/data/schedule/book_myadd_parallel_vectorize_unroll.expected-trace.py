# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="C", func_name="add")
  l1, l2 = sch.get_loops(block=b0)
  l3, l4 = sch.split(loop=l1, factors=[2, 2], preserve_unit_iters=True, disable_predication=False)
  sch.parallel(loop=l3)
  sch.unroll(loop=l4)
  sch.vectorize(loop=l2)
