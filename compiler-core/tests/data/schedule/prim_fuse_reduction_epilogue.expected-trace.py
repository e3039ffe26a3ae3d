# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="matmul", func_name="main")
  b1 = sch.get_sblock(name="bias", func_name="main")
  sch.fuse_reduction_epilogue(reduction_block=b0, epilogue_block=b1)
  l2, l3, l4 = sch.get_loops(block=b0)
  l5, l6 = sch.split(loop=l4, factors=[None, 2], preserve_unit_iters=True, disable_predication=False)
