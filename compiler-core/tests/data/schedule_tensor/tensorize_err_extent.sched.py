# tvm: skip: tensorize crashes in TVM 0.27 (save_json segfaults) before it compares anything
# intrin: mma16.intrin.py
# program: tensorize_loop.py
# expect-error: the region of `C` has extent 8 where the description's `C` has 16
i, j, k = sch.get_loops(sch.get_block("C"))
i_0, i_1 = sch.split(i, [None, 8])
j_0, j_1 = sch.split(j, [None, 8])
k_0, k_1 = sch.split(k, [None, 8])
sch.reorder(i_0, j_0, k_0, i_1, j_1, k_1)
sch.tensorize(i_1, "mma16")
