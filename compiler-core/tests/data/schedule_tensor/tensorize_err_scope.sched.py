# tvm: skip: tensorize crashes in TVM 0.27 (save_json segfaults) before it compares anything
# intrin: tmm16.intrin.py
# expect-error: buffer `C` (float32, scope "global") cannot play the description's `C` (float32, scope "global.accumulator")
i, j, k = sch.get_loops(sch.get_block("matmul"))
i, ii = sch.split(i, factors=[None, 16])
j, ji = sch.split(j, factors=[None, 16])
k, ki = sch.split(k, factors=[None, 16])
sch.reorder(i, j, k, ii, ji, ki)
block_mm = sch.blockize(ii)
sch.decompose_reduction(block_mm, k)
sch.tensorize(block_mm, "tmm16")
