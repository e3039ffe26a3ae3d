# tvm: skip: tensorize crashes in TVM 0.27 (save_json segfaults) before it compares anything
# intrin: mma16.intrin.py
# program: tensorize_loop.py
# expect-error: block `C` binds `vi_i` to `i_1` where the description's block `update` binds `vi` to `i` (loops pair up in nesting order: `k_1`-`i`, `i_1`-`j`, `j_1`-`k`)
i, j, k = sch.get_loops(sch.get_block("C"))
i_0, i_1 = sch.split(i, [None, 16])
j_0, j_1 = sch.split(j, [None, 16])
k_0, k_1 = sch.split(k, [None, 16])
sch.reorder(i_0, j_0, k_0, k_1, i_1, j_1)
sch.tensorize(k_1, "mma16")
