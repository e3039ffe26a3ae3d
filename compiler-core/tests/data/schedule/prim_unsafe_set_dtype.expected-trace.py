# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="S", func_name="main")
  sch.unsafe_set_dtype(block=b0, buffer_index=0, dtype="float64")
