# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="C", func_name="main")
  sch.pad_einsum(block=b0, padding=[16, 8, 12])
