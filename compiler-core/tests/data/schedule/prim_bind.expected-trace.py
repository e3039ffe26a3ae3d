# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="C", func_name="main")
  l1, = sch.get_loops(block=b0)
  l2, l3 = sch.split(loop=l1, factors=[None, 4], preserve_unit_iters=True, disable_predication=False)
  sch.bind(loop=l2, thread_axis="blockIdx.x")
  sch.bind(loop=l3, thread_axis="threadIdx.x")
