# design space 0
# from tvm import tir
def apply_trace(sch: tir.Schedule) -> None:
  b0 = sch.get_block(name="B", func_name="main")
  l1, l2 = sch.get_loops(block=b0)
  v3, v4, v5, v6 = sch.sample_perfect_tile(loop=l1, n=4, max_innermost_factor=64, decision=[1, 2, 2, 1])
  l7, l8, l9, l10 = sch.split(loop=l1, factors=[v3, v4, v5, v6], preserve_unit_iters=True, disable_predication=False)
  v11, v12 = sch.sample_perfect_tile(loop=l2, n=2, max_innermost_factor=64, decision=[256, 2])
  l13, l14 = sch.split(loop=l2, factors=[v11, v12], preserve_unit_iters=True, disable_predication=False)
  sch.reorder(l7, l8, l13, l9, l14, l10)
  b15 = sch.get_block(name="root", func_name="main")
  sch.annotate(block_or_loop=b15, ann_key="meta_schedule.vectorize", ann_val=64)
  v16 = sch.sample_categorical(candidates=[0, 16, 64, 512], probs=[0.25, 0.25, 0.25, 0.25], decision=0)
  sch.annotate(block_or_loop=b15, ann_key="meta_schedule.unroll_explicit", ann_val=v16)

# design space 1
# from tvm import tir
def apply_trace(sch: tir.Schedule) -> None:
  b0 = sch.get_block(name="B", func_name="main")
  l1, l2 = sch.get_loops(block=b0)
  v3, v4, v5, v6 = sch.sample_perfect_tile(loop=l1, n=4, max_innermost_factor=64, decision=[1, 2, 2, 1])
  l7, l8, l9, l10 = sch.split(loop=l1, factors=[v3, v4, v5, v6], preserve_unit_iters=True, disable_predication=False)
  v11, v12 = sch.sample_perfect_tile(loop=l2, n=2, max_innermost_factor=64, decision=[256, 2])
  l13, l14 = sch.split(loop=l2, factors=[v11, v12], preserve_unit_iters=True, disable_predication=False)
  sch.reorder(l7, l8, l13, l9, l14, l10)
  b15 = sch.cache_write(block=b0, write_buffer_index=0, storage_scope="global")
  sch.reverse_compute_at(block=b15, loop=l7, preserve_unit_loops=True, index=-1)
  b16 = sch.get_block(name="root", func_name="main")
  sch.annotate(block_or_loop=b16, ann_key="meta_schedule.vectorize", ann_val=64)
  v17 = sch.sample_categorical(candidates=[0, 16, 64, 512], probs=[0.25, 0.25, 0.25, 0.25], decision=0)
  sch.annotate(block_or_loop=b16, ann_key="meta_schedule.unroll_explicit", ann_val=v17)

# design space 2
# from tvm import tir
def apply_trace(sch: tir.Schedule) -> None:
  b0 = sch.get_block(name="B", func_name="main")
  l1, l2 = sch.get_loops(block=b0)
  v3, v4, v5, v6 = sch.sample_perfect_tile(loop=l1, n=4, max_innermost_factor=64, decision=[1, 2, 2, 1])
  l7, l8, l9, l10 = sch.split(loop=l1, factors=[v3, v4, v5, v6], preserve_unit_iters=True, disable_predication=False)
  v11, v12 = sch.sample_perfect_tile(loop=l2, n=2, max_innermost_factor=64, decision=[256, 2])
  l13, l14 = sch.split(loop=l2, factors=[v11, v12], preserve_unit_iters=True, disable_predication=False)
  sch.reorder(l7, l8, l13, l9, l14, l10)
  b15 = sch.cache_write(block=b0, write_buffer_index=0, storage_scope="global")
  sch.reverse_compute_at(block=b15, loop=l8, preserve_unit_loops=True, index=-1)
  b16 = sch.get_block(name="root", func_name="main")
  sch.annotate(block_or_loop=b16, ann_key="meta_schedule.vectorize", ann_val=64)
  v17 = sch.sample_categorical(candidates=[0, 16, 64, 512], probs=[0.25, 0.25, 0.25, 0.25], decision=0)
  sch.annotate(block_or_loop=b16, ann_key="meta_schedule.unroll_explicit", ann_val=v17)

# design space 3
# from tvm import tir
def apply_trace(sch: tir.Schedule) -> None:
  b0 = sch.get_block(name="B", func_name="main")
  l1, l2 = sch.get_loops(block=b0)
  v3, v4 = sch.sample_perfect_tile(loop=l2, n=2, max_innermost_factor=64, decision=[512, 1])
  l5, l6 = sch.split(loop=l2, factors=[v3, v4], preserve_unit_iters=True, disable_predication=False)
  b7 = sch.rfactor(loop=l5, factor_axis=0)
  b8 = sch.get_block(name="B", func_name="main")
  l9, l10 = sch.get_loops(block=b8)
  v11, v12, v13, v14 = sch.sample_perfect_tile(loop=l9, n=4, max_innermost_factor=64, decision=[1, 1, 2, 2])
  l15, l16, l17, l18 = sch.split(loop=l9, factors=[v11, v12, v13, v14], preserve_unit_iters=True, disable_predication=False)
  v19, v20 = sch.sample_perfect_tile(loop=l10, n=2, max_innermost_factor=64, decision=[256, 2])
  l21, l22 = sch.split(loop=l10, factors=[v19, v20], preserve_unit_iters=True, disable_predication=False)
  sch.reorder(l15, l16, l21, l17, l22, l18)
  b23 = sch.get_block(name="root", func_name="main")
  sch.annotate(block_or_loop=b23, ann_key="meta_schedule.vectorize", ann_val=64)
  v24 = sch.sample_categorical(candidates=[0, 16, 64, 512], probs=[0.25, 0.25, 0.25, 0.25], decision=1)
  sch.annotate(block_or_loop=b23, ann_key="meta_schedule.unroll_explicit", ann_val=v24)

# design space 4
# from tvm import tir
def apply_trace(sch: tir.Schedule) -> None:
  b0 = sch.get_block(name="B", func_name="main")
  l1, l2 = sch.get_loops(block=b0)
  v3, v4 = sch.sample_perfect_tile(loop=l2, n=2, max_innermost_factor=64, decision=[512, 1])
  l5, l6 = sch.split(loop=l2, factors=[v3, v4], preserve_unit_iters=True, disable_predication=False)
  b7 = sch.rfactor(loop=l5, factor_axis=0)
  b8 = sch.get_block(name="B", func_name="main")
  l9, l10 = sch.get_loops(block=b8)
  v11, v12, v13, v14 = sch.sample_perfect_tile(loop=l9, n=4, max_innermost_factor=64, decision=[1, 1, 2, 2])
  l15, l16, l17, l18 = sch.split(loop=l9, factors=[v11, v12, v13, v14], preserve_unit_iters=True, disable_predication=False)
  v19, v20 = sch.sample_perfect_tile(loop=l10, n=2, max_innermost_factor=64, decision=[256, 2])
  l21, l22 = sch.split(loop=l10, factors=[v19, v20], preserve_unit_iters=True, disable_predication=False)
  sch.reorder(l15, l16, l21, l17, l22, l18)
  b23 = sch.cache_write(block=b8, write_buffer_index=0, storage_scope="global")
  sch.reverse_compute_at(block=b23, loop=l15, preserve_unit_loops=True, index=-1)
  b24 = sch.get_block(name="root", func_name="main")
  sch.annotate(block_or_loop=b24, ann_key="meta_schedule.vectorize", ann_val=64)
  v25 = sch.sample_categorical(candidates=[0, 16, 64, 512], probs=[0.25, 0.25, 0.25, 0.25], decision=1)
  sch.annotate(block_or_loop=b24, ann_key="meta_schedule.unroll_explicit", ann_val=v25)

# design space 5
# from tvm import tir
def apply_trace(sch: tir.Schedule) -> None:
  b0 = sch.get_block(name="B", func_name="main")
  l1, l2 = sch.get_loops(block=b0)
  v3, v4 = sch.sample_perfect_tile(loop=l2, n=2, max_innermost_factor=64, decision=[512, 1])
  l5, l6 = sch.split(loop=l2, factors=[v3, v4], preserve_unit_iters=True, disable_predication=False)
  b7 = sch.rfactor(loop=l5, factor_axis=0)
  b8 = sch.get_block(name="B", func_name="main")
  l9, l10 = sch.get_loops(block=b8)
  v11, v12, v13, v14 = sch.sample_perfect_tile(loop=l9, n=4, max_innermost_factor=64, decision=[1, 1, 2, 2])
  l15, l16, l17, l18 = sch.split(loop=l9, factors=[v11, v12, v13, v14], preserve_unit_iters=True, disable_predication=False)
  v19, v20 = sch.sample_perfect_tile(loop=l10, n=2, max_innermost_factor=64, decision=[256, 2])
  l21, l22 = sch.split(loop=l10, factors=[v19, v20], preserve_unit_iters=True, disable_predication=False)
  sch.reorder(l15, l16, l21, l17, l22, l18)
  b23 = sch.cache_write(block=b8, write_buffer_index=0, storage_scope="global")
  sch.reverse_compute_at(block=b23, loop=l16, preserve_unit_loops=True, index=-1)
  b24 = sch.get_block(name="root", func_name="main")
  sch.annotate(block_or_loop=b24, ann_key="meta_schedule.vectorize", ann_val=64)
  v25 = sch.sample_categorical(candidates=[0, 16, 64, 512], probs=[0.25, 0.25, 0.25, 0.25], decision=1)
  sch.annotate(block_or_loop=b24, ann_key="meta_schedule.unroll_explicit", ann_val=v25)

# design space 6
# from tvm import tir
def apply_trace(sch: tir.Schedule) -> None:
  b0 = sch.get_block(name="B", func_name="main")
  l1, l2 = sch.get_loops(block=b0)
  v3, v4 = sch.sample_perfect_tile(loop=l2, n=2, max_innermost_factor=64, decision=[512, 1])
  l5, l6 = sch.split(loop=l2, factors=[v3, v4], preserve_unit_iters=True, disable_predication=False)
  b7 = sch.rfactor(loop=l6, factor_axis=0)
  b8 = sch.get_block(name="B", func_name="main")
  l9, l10 = sch.get_loops(block=b8)
  v11, v12, v13, v14 = sch.sample_perfect_tile(loop=l9, n=4, max_innermost_factor=64, decision=[1, 1, 2, 2])
  l15, l16, l17, l18 = sch.split(loop=l9, factors=[v11, v12, v13, v14], preserve_unit_iters=True, disable_predication=False)
  v19, v20 = sch.sample_perfect_tile(loop=l10, n=2, max_innermost_factor=64, decision=[1, 1])
  l21, l22 = sch.split(loop=l10, factors=[v19, v20], preserve_unit_iters=True, disable_predication=False)
  sch.reorder(l15, l16, l21, l17, l22, l18)
  b23 = sch.get_block(name="root", func_name="main")
  sch.annotate(block_or_loop=b23, ann_key="meta_schedule.vectorize", ann_val=64)
  v24 = sch.sample_categorical(candidates=[0, 16, 64, 512], probs=[0.25, 0.25, 0.25, 0.25], decision=1)
  sch.annotate(block_or_loop=b23, ann_key="meta_schedule.unroll_explicit", ann_val=v24)

# design space 7
# from tvm import tir
def apply_trace(sch: tir.Schedule) -> None:
  b0 = sch.get_block(name="B", func_name="main")
  l1, l2 = sch.get_loops(block=b0)
  v3, v4 = sch.sample_perfect_tile(loop=l2, n=2, max_innermost_factor=64, decision=[512, 1])
  l5, l6 = sch.split(loop=l2, factors=[v3, v4], preserve_unit_iters=True, disable_predication=False)
  b7 = sch.rfactor(loop=l6, factor_axis=0)
  b8 = sch.get_block(name="B", func_name="main")
  l9, l10 = sch.get_loops(block=b8)
  v11, v12, v13, v14 = sch.sample_perfect_tile(loop=l9, n=4, max_innermost_factor=64, decision=[1, 1, 2, 2])
  l15, l16, l17, l18 = sch.split(loop=l9, factors=[v11, v12, v13, v14], preserve_unit_iters=True, disable_predication=False)
  v19, v20 = sch.sample_perfect_tile(loop=l10, n=2, max_innermost_factor=64, decision=[1, 1])
  l21, l22 = sch.split(loop=l10, factors=[v19, v20], preserve_unit_iters=True, disable_predication=False)
  sch.reorder(l15, l16, l21, l17, l22, l18)
  b23 = sch.cache_write(block=b8, write_buffer_index=0, storage_scope="global")
  sch.reverse_compute_at(block=b23, loop=l15, preserve_unit_loops=True, index=-1)
  b24 = sch.get_block(name="root", func_name="main")
  sch.annotate(block_or_loop=b24, ann_key="meta_schedule.vectorize", ann_val=64)
  v25 = sch.sample_categorical(candidates=[0, 16, 64, 512], probs=[0.25, 0.25, 0.25, 0.25], decision=1)
  sch.annotate(block_or_loop=b24, ann_key="meta_schedule.unroll_explicit", ann_val=v25)

# design space 8
# from tvm import tir
def apply_trace(sch: tir.Schedule) -> None:
  b0 = sch.get_block(name="B", func_name="main")
  l1, l2 = sch.get_loops(block=b0)
  v3, v4 = sch.sample_perfect_tile(loop=l2, n=2, max_innermost_factor=64, decision=[512, 1])
  l5, l6 = sch.split(loop=l2, factors=[v3, v4], preserve_unit_iters=True, disable_predication=False)
  b7 = sch.rfactor(loop=l6, factor_axis=0)
  b8 = sch.get_block(name="B", func_name="main")
  l9, l10 = sch.get_loops(block=b8)
  v11, v12, v13, v14 = sch.sample_perfect_tile(loop=l9, n=4, max_innermost_factor=64, decision=[1, 1, 2, 2])
  l15, l16, l17, l18 = sch.split(loop=l9, factors=[v11, v12, v13, v14], preserve_unit_iters=True, disable_predication=False)
  v19, v20 = sch.sample_perfect_tile(loop=l10, n=2, max_innermost_factor=64, decision=[1, 1])
  l21, l22 = sch.split(loop=l10, factors=[v19, v20], preserve_unit_iters=True, disable_predication=False)
  sch.reorder(l15, l16, l21, l17, l22, l18)
  b23 = sch.cache_write(block=b8, write_buffer_index=0, storage_scope="global")
  sch.reverse_compute_at(block=b23, loop=l16, preserve_unit_loops=True, index=-1)
  b24 = sch.get_block(name="root", func_name="main")
  sch.annotate(block_or_loop=b24, ann_key="meta_schedule.vectorize", ann_val=64)
  v25 = sch.sample_categorical(candidates=[0, 16, 64, 512], probs=[0.25, 0.25, 0.25, 0.25], decision=1)
  sch.annotate(block_or_loop=b24, ann_key="meta_schedule.unroll_explicit", ann_val=v25)

