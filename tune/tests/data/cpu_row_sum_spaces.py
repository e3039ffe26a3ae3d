# design space 0
# from tvm import tir
def apply_trace(sch: tir.Schedule) -> None:
  b0 = sch.get_block(name="root", func_name="main")
  sch.annotate(block_or_loop=b0, ann_key="meta_schedule.vectorize", ann_val=64)
  v1 = sch.sample_categorical(candidates=[0, 16, 64, 512], probs=[0.25, 0.25, 0.25, 0.25], decision=1)
  sch.annotate(block_or_loop=b0, ann_key="meta_schedule.unroll_explicit", ann_val=v1)

# design space 1
# from tvm import tir
def apply_trace(sch: tir.Schedule) -> None:
  b0 = sch.get_block(name="B", func_name="main")
  l1, l2 = sch.get_loops(block=b0)
  v3, v4 = sch.sample_perfect_tile(loop=l2, n=2, max_innermost_factor=64, decision=[512, 1])
  l5, l6 = sch.split(loop=l2, factors=[v3, v4], preserve_unit_iters=True, disable_predication=False)
  b7 = sch.rfactor(loop=l5, factor_axis=0)
  b8 = sch.get_block(name="root", func_name="main")
  sch.annotate(block_or_loop=b8, ann_key="meta_schedule.vectorize", ann_val=64)
  v9 = sch.sample_categorical(candidates=[0, 16, 64, 512], probs=[0.25, 0.25, 0.25, 0.25], decision=3)
  sch.annotate(block_or_loop=b8, ann_key="meta_schedule.unroll_explicit", ann_val=v9)

# design space 2
# from tvm import tir
def apply_trace(sch: tir.Schedule) -> None:
  b0 = sch.get_block(name="B", func_name="main")
  l1, l2 = sch.get_loops(block=b0)
  v3, v4 = sch.sample_perfect_tile(loop=l2, n=2, max_innermost_factor=64, decision=[512, 1])
  l5, l6 = sch.split(loop=l2, factors=[v3, v4], preserve_unit_iters=True, disable_predication=False)
  b7 = sch.rfactor(loop=l6, factor_axis=0)
  b8 = sch.get_block(name="root", func_name="main")
  sch.annotate(block_or_loop=b8, ann_key="meta_schedule.vectorize", ann_val=64)
  v9 = sch.sample_categorical(candidates=[0, 16, 64, 512], probs=[0.25, 0.25, 0.25, 0.25], decision=3)
  sch.annotate(block_or_loop=b8, ann_key="meta_schedule.unroll_explicit", ann_val=v9)

