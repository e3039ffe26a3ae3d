# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="B", func_name="main")
  sch.transform_block_layout(block=b0, index_map=lambda i: (i // 8, i % 8,))
  b1 = sch.get_sblock(name="C", func_name="main")
  sch.transform_block_layout(block=b1, index_map=lambda i, j: (j * 8 + i,))
