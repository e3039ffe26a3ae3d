# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="C", func_name="main")
  sch.pad_einsum(block=b0, padding=[7, 4, 16])
  b1 = sch.get_sblock(name="B_pad", func_name="main")
  l2, l3 = sch.get_loops(block=b1)
  b4 = sch.decompose_padding(block=b1, loop=l2)
