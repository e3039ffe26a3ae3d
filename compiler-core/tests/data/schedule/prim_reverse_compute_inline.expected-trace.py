# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="D", func_name="main")
  sch.reverse_compute_inline(block=b0)
