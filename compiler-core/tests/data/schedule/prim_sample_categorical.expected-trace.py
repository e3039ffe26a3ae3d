# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="C", func_name="main")
  l1, l2 = sch.get_loops(block=b0)
  v3 = sch.sample_categorical(candidates=[2, 4, 8], probs=[0.25, 0.5, 0.25], decision=2)
  l4, l5 = sch.split(loop=l2, factors=[None, v3], preserve_unit_iters=True, disable_predication=False)
