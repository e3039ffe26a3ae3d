# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="pad", func_name="main")
  l1, l2 = sch.get_loops(block=b0)
  b3 = sch.decompose_padding(block=b0, loop=l1)
