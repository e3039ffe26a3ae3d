# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="root", func_name="main")
  b1, = sch.get_output_blocks(block=b0)
