# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="root", func_name="main")
  b1, b2 = sch.get_child_blocks(b0)
  b3 = sch.get_sblock(name="Y", func_name="main")
  l4, l5, l6 = sch.get_loops(block=b3)
  b7, = sch.get_child_blocks(l4)
