# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="update", func_name="main")
  b1, b2 = sch.cache_inplace(block=b0, read_buffer_index=0, storage_scope="local")
