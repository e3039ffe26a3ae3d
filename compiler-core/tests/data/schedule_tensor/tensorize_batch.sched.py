# tvm: emulate-tensorize
# intrin: mma16.intrin.py
blk = sch.get_block("C")
b, i, j, k = sch.get_loops(blk)
i_0, i_1 = sch.split(i, [None, 16])
j_0, j_1 = sch.split(j, [None, 16])
k_0, k_1 = sch.split(k, [None, 16])
sch.reorder(b, i_0, j_0, k_0, i_1, j_1, k_1)
outer = sch.blockize(i_1)
init = sch.decompose_reduction(outer, k_0)
sch.tensorize(outer, "mma16")
