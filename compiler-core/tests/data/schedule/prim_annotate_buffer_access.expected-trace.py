# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="B", func_name="main")
  sch.annotate_buffer_access(block=b0, buffer_index=0, buf_type="read", gen_new_ranges=lambda vi, vj: [(vi, vi + 1), (vj, vj + 3)])
