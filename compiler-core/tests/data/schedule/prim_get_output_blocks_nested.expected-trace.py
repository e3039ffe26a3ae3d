# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="C", func_name="main")
  l1, l2 = sch.get_loops(block=b0)
  b3 = sch.blockize(target=l2, preserve_unit_iters=True)
  b4 = sch.get_sblock(name="root", func_name="main")
  b5, b6 = sch.get_output_blocks(block=b4)
