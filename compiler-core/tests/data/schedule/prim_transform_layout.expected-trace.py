# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="B", func_name="main")
  sch.transform_layout(block=b0, buffer=("write", 0), index_map=lambda i, j: (j, i,), pad_value=None, assume_injective_transform=False)
