# The best program of a 64-trial tuning of the 1024³ float32 matmul
# (MetaSchedule's default CPU space, target "llvm --num-cores=1", measured in
# wasmtime), as the tuner printed it; README, "CPU: the tuned 1024³ matmul".
# from tvm import tir
def apply_trace(sch: tir.Schedule) -> None:
  b0 = sch.get_block(name="C", func_name="main")
  l1, l2, l3 = sch.get_loops(block=b0)
  v4, v5, v6, v7 = sch.sample_perfect_tile(loop=l1, n=4, max_innermost_factor=64, decision=[4, 1, 64, 4])
  l8, l9, l10, l11 = sch.split(loop=l1, factors=[v4, v5, v6, v7], preserve_unit_iters=True, disable_predication=False)
  v12, v13, v14, v15 = sch.sample_perfect_tile(loop=l2, n=4, max_innermost_factor=64, decision=[2, 4, 8, 16])
  l16, l17, l18, l19 = sch.split(loop=l2, factors=[v12, v13, v14, v15], preserve_unit_iters=True, disable_predication=False)
  v20, v21 = sch.sample_perfect_tile(loop=l3, n=2, max_innermost_factor=64, decision=[16, 64])
  l22, l23 = sch.split(loop=l3, factors=[v20, v21], preserve_unit_iters=True, disable_predication=False)
  sch.reorder(l8, l16, l9, l17, l22, l10, l18, l23, l11, l19)
  b24 = sch.get_block(name="root", func_name="main")
  sch.annotate(block_or_loop=b24, ann_key="meta_schedule.vectorize", ann_val=64)
  v25 = sch.sample_categorical(candidates=[0, 16, 64, 512], probs=[0.25, 0.25, 0.25, 0.25], decision=1)
  sch.annotate(block_or_loop=b24, ann_key="meta_schedule.unroll_explicit", ann_val=v25)
  b26 = sch.get_block(name="root", func_name="main")
  sch.unannotate(block_or_loop=b26, ann_key="meta_schedule.vectorize")
  sch.unannotate(block_or_loop=b26, ann_key="meta_schedule.unroll_explicit")
  b27 = sch.get_block(name="C", func_name="main")
  l28, l29, l30, l31, l32, l33, l34, l35, l36, l37 = sch.get_loops(block=b27)
  sch.vectorize(loop=l37)
  sch.unroll(loop=l36)
  b38 = sch.get_block(name="C", func_name="main")
  l39, l40, l41, l42, l43, l44, l45, l46, l47, l48 = sch.get_loops(block=b38)
  b49 = sch.decompose_reduction(block=b38, loop=l43)
