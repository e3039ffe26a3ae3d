# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="P", func_name="main")
  b1 = sch.get_sblock(name="P", func_name="main")
  b2 = sch.get_sblock(name="Q", func_name="main")
  b3 = sch.cache_read(block=b0, read_buffer_index=0, storage_scope="local", consumer_blocks=[b1, b2])
