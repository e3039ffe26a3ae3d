# design space 0
# from tvm import tir
def apply_trace(sch: tir.Schedule) -> None:
  b0 = sch.get_block(name="B", func_name="main")
  l1, l2 = sch.get_loops(block=b0)
  b3 = sch.get_block(name="B", func_name="main")
  l4, l5 = sch.get_loops(block=b3)
  v6 = sch.sample_categorical(candidates=[4, 8, 16, 32, 64, 128, 256], probs=[0.14285714285714285, 0.14285714285714285, 0.14285714285714285, 0.14285714285714285, 0.14285714285714285, 0.14285714285714285, 0.14285714285714285], decision=3)
  l7, l8 = sch.split(loop=l5, factors=[None, v6], preserve_unit_iters=True, disable_predication=False)
  sch.bind(loop=l8, thread_axis="threadIdx.x")
  b9 = sch.get_block(name="B", func_name="main")
  l10, l11, l12 = sch.get_loops(block=b9)
  sch.bind(loop=l10, thread_axis="blockIdx.x")
  b13 = sch.get_block(name="root", func_name="main")
  v14 = sch.sample_categorical(candidates=[0, 16, 64, 512, 1024], probs=[0.2, 0.2, 0.2, 0.2, 0.2], decision=4)
  sch.annotate(block_or_loop=b13, ann_key="meta_schedule.unroll_explicit", ann_val=v14)

# design space 1
# from tvm import tir
def apply_trace(sch: tir.Schedule) -> None:
  b0 = sch.get_block(name="B", func_name="main")
  v1 = sch.sample_categorical(candidates=[32, 64, 128, 256], probs=[0.25, 0.25, 0.25, 0.25], decision=1)
  l2, l3 = sch.get_loops(block=b0)
  l4, l5 = sch.split(loop=l2, factors=[None, v1], preserve_unit_iters=True, disable_predication=False)
  sch.bind(loop=l4, thread_axis="blockIdx.x")
  sch.bind(loop=l5, thread_axis="threadIdx.x")
  b6 = sch.get_block(name="root", func_name="main")
  v7 = sch.sample_categorical(candidates=[0, 16, 64, 512, 1024], probs=[0.2, 0.2, 0.2, 0.2, 0.2], decision=4)
  sch.annotate(block_or_loop=b6, ann_key="meta_schedule.unroll_explicit", ann_val=v7)

