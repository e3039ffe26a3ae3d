# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="C", func_name="main")
  l1, l2, l3, l4 = sch.get_loops(block=b0)
  b5 = sch.read_at(loop=l1, block=b0, read_buffer_index=0, storage_scope="local")
  b6 = sch.read_at(loop=l3, block=b0, read_buffer_index=1, storage_scope="global")
