# from tvm import tir
def apply_trace(sch: tir.Schedule) -> None:
  b0 = sch.get_block(name="B", func_name="main")
  l1, l2 = sch.get_loops(block=b0)
  b3 = sch.rfactor(loop=l2, factor_axis=-1)
