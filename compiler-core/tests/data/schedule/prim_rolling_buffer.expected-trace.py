# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="B", func_name="main")
  b1 = sch.get_sblock(name="C", func_name="main")
  l2, = sch.get_loops(block=b1)
  l3, l4 = sch.split(loop=l2, factors=[3, 3], preserve_unit_iters=True, disable_predication=False)
  sch.compute_at(block=b0, loop=l3, preserve_unit_loops=False, index=-1)
  sch.rolling_buffer(block=b0, write_buffer_index=0)
