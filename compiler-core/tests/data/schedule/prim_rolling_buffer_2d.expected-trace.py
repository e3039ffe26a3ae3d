# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="B", func_name="main")
  b1 = sch.get_sblock(name="C", func_name="main")
  l2, l3, l4, l5 = sch.get_loops(block=b1)
  l6, l7 = sch.split(loop=l2, factors=[4, 2], preserve_unit_iters=True, disable_predication=False)
  sch.compute_at(block=b0, loop=l6, preserve_unit_loops=False, index=-1)
  sch.rolling_buffer(block=b0, write_buffer_index=0)
