# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="B", func_name="main")
  l1, l2, l3, l4 = sch.get_loops(block=b0)
  b5 = sch.blockize(target=l3, preserve_unit_iters=True)
