# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="B", func_name="main")
  b1 = sch.get_sblock(name="C", func_name="main")
  b2 = sch.get_sblock(name="D", func_name="main")
  b3, = sch.get_producers(block=b1)
  b4, = sch.get_consumers(block=b1)
  sch.get_producers(block=b0)
  sch.get_consumers(block=b2)
