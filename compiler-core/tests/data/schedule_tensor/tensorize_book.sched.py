# tvm: emulate-tensorize
# intrin: tmm16.intrin.py
# printer: normalize: Tessel declares the stride variables (`sa = T.int32()`) where TVM prints `strides=("sa", -1)` and `A_1.strides[0]`, and prints `T.type_annotation()` without its dtype; TVM parses the rest of our text into a module equal to its result
block_mm = sch.get_block("matmul_o")
i_0, j_0, k_0 = sch.get_loops(block_mm)
init = sch.decompose_reduction(block_mm, k_0)
sch.tensorize(block_mm, "tmm16")
