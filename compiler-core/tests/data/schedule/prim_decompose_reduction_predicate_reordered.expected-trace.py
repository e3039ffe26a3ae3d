# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="C", func_name="main")
  l1, l2, l3 = sch.get_loops(block=b0)
  l4, l5 = sch.split(loop=l1, factors=[None, 8], preserve_unit_iters=True, disable_predication=False)
  l6, l7, l8, l9 = sch.get_loops(block=b0)
  l10, l11, l12 = sch.split(loop=l6, factors=[None, 2, 2], preserve_unit_iters=True, disable_predication=False)
  l13, l14, l15, l16, l17, l18 = sch.get_loops(block=b0)
  sch.reorder(l15, l13, l14, l16)
  l19, l20, l21, l22, l23, l24 = sch.get_loops(block=b0)
  b25 = sch.decompose_reduction(block=b0, loop=l20)
