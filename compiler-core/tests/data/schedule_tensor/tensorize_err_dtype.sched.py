# tvm: skip: tensorize crashes in TVM 0.27 (save_json segfaults) before it compares anything
# intrin: mma16.intrin.py
# expect-error: buffer `C` (float16, scope "global") cannot play the description's `C` (float32, scope "global")
i, j, k = sch.get_loops(sch.get_block("C"))
i_0, i_1 = sch.split(i, [None, 16])
j_0, j_1 = sch.split(j, [None, 16])
k_0, k_1 = sch.split(k, [None, 16])
sch.reorder(i_0, j_0, k_0, i_1, j_1, k_1)
sch.tensorize(i_1, "mma16")
