# from tvm import tir
def apply_trace(sch: tir.Schedule) -> None:
  b0 = sch.get_block(name="C", func_name="main")
  l1, l2, l3 = sch.get_loops(block=b0)
  l4, l5 = sch.split(loop=l3, factors=[None, 16], preserve_unit_iters=True, disable_predication=False)
  b6 = sch.blockize(target=l5, preserve_unit_iters=True)
