# design space 0
# from tvm import tir
def apply_trace(sch: tir.Schedule) -> None:
  b0 = sch.get_block(name="Y", func_name="mm_relu")
  l1, l2, l3 = sch.get_loops(block=b0)
  v4, v5, v6, v7 = sch.sample_perfect_tile(loop=l1, n=4, max_innermost_factor=64, decision=[1, 2, 2, 8])
  l8, l9, l10, l11 = sch.split(loop=l1, factors=[v4, v5, v6, v7], preserve_unit_iters=True, disable_predication=False)
  v12, v13, v14, v15 = sch.sample_perfect_tile(loop=l2, n=4, max_innermost_factor=64, decision=[4, 8, 1, 1])
  l16, l17, l18, l19 = sch.split(loop=l2, factors=[v12, v13, v14, v15], preserve_unit_iters=True, disable_predication=False)
  v20, v21 = sch.sample_perfect_tile(loop=l3, n=2, max_innermost_factor=64, decision=[8, 4])
  l22, l23 = sch.split(loop=l3, factors=[v20, v21], preserve_unit_iters=True, disable_predication=False)
  sch.reorder(l8, l16, l9, l17, l22, l10, l18, l23, l11, l19)
  b24 = sch.get_block(name="root", func_name="mm_relu")
  sch.annotate(block_or_loop=b24, ann_key="meta_schedule.vectorize", ann_val=64)
  v25 = sch.sample_categorical(candidates=[0, 16, 64, 512], probs=[0.25, 0.25, 0.25, 0.25], decision=2)
  sch.annotate(block_or_loop=b24, ann_key="meta_schedule.unroll_explicit", ann_val=v25)

# design space 1
# from tvm import tir
def apply_trace(sch: tir.Schedule) -> None:
  b0 = sch.get_block(name="Y", func_name="mm_relu")
  l1, l2, l3 = sch.get_loops(block=b0)
  v4, v5, v6, v7 = sch.sample_perfect_tile(loop=l1, n=4, max_innermost_factor=64, decision=[1, 2, 2, 8])
  l8, l9, l10, l11 = sch.split(loop=l1, factors=[v4, v5, v6, v7], preserve_unit_iters=True, disable_predication=False)
  v12, v13, v14, v15 = sch.sample_perfect_tile(loop=l2, n=4, max_innermost_factor=64, decision=[4, 8, 1, 1])
  l16, l17, l18, l19 = sch.split(loop=l2, factors=[v12, v13, v14, v15], preserve_unit_iters=True, disable_predication=False)
  v20, v21 = sch.sample_perfect_tile(loop=l3, n=2, max_innermost_factor=64, decision=[8, 4])
  l22, l23 = sch.split(loop=l3, factors=[v20, v21], preserve_unit_iters=True, disable_predication=False)
  sch.reorder(l8, l16, l9, l17, l22, l10, l18, l23, l11, l19)
  b24 = sch.get_block(name="C", func_name="mm_relu")
  sch.reverse_compute_at(block=b24, loop=l16, preserve_unit_loops=True, index=-1)
  b25 = sch.get_block(name="root", func_name="mm_relu")
  sch.annotate(block_or_loop=b25, ann_key="meta_schedule.vectorize", ann_val=64)
  v26 = sch.sample_categorical(candidates=[0, 16, 64, 512], probs=[0.25, 0.25, 0.25, 0.25], decision=2)
  sch.annotate(block_or_loop=b25, ann_key="meta_schedule.unroll_explicit", ann_val=v26)

# design space 2
# from tvm import tir
def apply_trace(sch: tir.Schedule) -> None:
  b0 = sch.get_block(name="Y", func_name="mm_relu")
  l1, l2, l3 = sch.get_loops(block=b0)
  v4, v5, v6, v7 = sch.sample_perfect_tile(loop=l1, n=4, max_innermost_factor=64, decision=[1, 2, 2, 8])
  l8, l9, l10, l11 = sch.split(loop=l1, factors=[v4, v5, v6, v7], preserve_unit_iters=True, disable_predication=False)
  v12, v13, v14, v15 = sch.sample_perfect_tile(loop=l2, n=4, max_innermost_factor=64, decision=[4, 8, 1, 1])
  l16, l17, l18, l19 = sch.split(loop=l2, factors=[v12, v13, v14, v15], preserve_unit_iters=True, disable_predication=False)
  v20, v21 = sch.sample_perfect_tile(loop=l3, n=2, max_innermost_factor=64, decision=[8, 4])
  l22, l23 = sch.split(loop=l3, factors=[v20, v21], preserve_unit_iters=True, disable_predication=False)
  sch.reorder(l8, l16, l9, l17, l22, l10, l18, l23, l11, l19)
  b24 = sch.get_block(name="C", func_name="mm_relu")
  sch.reverse_compute_at(block=b24, loop=l17, preserve_unit_loops=True, index=-1)
  b25 = sch.get_block(name="root", func_name="mm_relu")
  sch.annotate(block_or_loop=b25, ann_key="meta_schedule.vectorize", ann_val=64)
  v26 = sch.sample_categorical(candidates=[0, 16, 64, 512], probs=[0.25, 0.25, 0.25, 0.25], decision=2)
  sch.annotate(block_or_loop=b25, ann_key="meta_schedule.unroll_explicit", ann_val=v26)

