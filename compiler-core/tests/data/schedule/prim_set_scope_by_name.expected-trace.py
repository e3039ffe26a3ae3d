# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="E", func_name="main")
  sch.set_scope(block=b0, buffer_index=0, storage_scope="local")
