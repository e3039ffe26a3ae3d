# design space 0
# from tvm import tir
def apply_trace(sch: tir.Schedule) -> None:
  b0 = sch.get_block(name="B", func_name="main")
  v1 = sch.sample_categorical(candidates=[32, 64, 128, 256], probs=[0.25, 0.25, 0.25, 0.25], decision=1)
  l2, l3 = sch.get_loops(block=b0)
  l4 = sch.fuse(l2, l3, preserve_unit_iters=True)
  l5, l6 = sch.split(loop=l4, factors=[None, v1], preserve_unit_iters=True, disable_predication=False)
  sch.bind(loop=l5, thread_axis="blockIdx.x")
  sch.bind(loop=l6, thread_axis="threadIdx.x")
  b7 = sch.get_block(name="root", func_name="main")
  v8 = sch.sample_categorical(candidates=[0, 16, 64, 512, 1024], probs=[0.2, 0.2, 0.2, 0.2, 0.2], decision=4)
  sch.annotate(block_or_loop=b7, ann_key="meta_schedule.unroll_explicit", ann_val=v8)

