# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="Z", func_name="main")
  b1 = sch.cache_read(block=b0, read_buffer_index=1, storage_scope="shared")
  b2 = sch.cache_write(block=b0, write_buffer_index=0, storage_scope="local")
