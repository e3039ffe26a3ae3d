# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="C", func_name="main")
  sch.unsafe_hide_buffer_access(block=b0, buf_type="read", buf_index_array=[1, 1])
  sch.unsafe_hide_buffer_access(block=b0, buf_type="write", buf_index_array=[0])
