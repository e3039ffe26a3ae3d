# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="C", func_name="main")
  l1, l2, l3 = sch.get_loops(block=b0)
  l4, l5, l6 = sch.split(loop=l1, factors=[None, 8, 8], preserve_unit_iters=True, disable_predication=False)
  l7, l8, l9 = sch.split(loop=l2, factors=[None, 8, 8], preserve_unit_iters=True, disable_predication=False)
  l10, l11 = sch.split(loop=l3, factors=[None, 4], preserve_unit_iters=True, disable_predication=False)
  sch.unroll(loop=l11)
  sch.reorder(l4, l7, l5, l8, l10, l11, l6, l9)
  sch.bind(loop=l4, thread_axis="blockIdx.y")
  sch.bind(loop=l7, thread_axis="blockIdx.x")
  sch.bind(loop=l5, thread_axis="threadIdx.y")
  sch.bind(loop=l8, thread_axis="threadIdx.x")
  b12 = sch.decompose_reduction(block=b0, loop=l10)
