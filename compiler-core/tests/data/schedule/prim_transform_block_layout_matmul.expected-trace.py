# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="C", func_name="main")
  sch.transform_block_layout(block=b0, index_map=lambda i, j, k: (k, j, i,))
