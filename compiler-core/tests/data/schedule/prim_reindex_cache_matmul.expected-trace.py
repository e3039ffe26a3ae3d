# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="C", func_name="main")
  b1 = sch.reindex_cache_read(block=b0, read_buffer_index=0, storage_scope="shared", index_map=lambda i, j, k: (k, i,))
  b2 = sch.reindex_cache_write(block=b0, write_buffer_index=0, storage_scope="local", index_map=lambda i, j, k: (j, i,))
