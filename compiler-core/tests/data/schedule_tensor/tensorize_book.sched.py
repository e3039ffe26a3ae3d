# tvm: emulate-tensorize
# intrin: tmm16.intrin.py
# printer: normalize: in block match_buffers Tessel's printer declares new stride variables (`sa = T.int32()`, then `strides=(sa, -1)`, `sa * 16`) where TVM prints `strides=("sa", -1)` and `A_1.strides[0]` (it does so for function parameters already); TVM parses our text into a module equal to its result
block_mm = sch.get_block("matmul_o")
i_0, j_0, k_0 = sch.get_loops(block_mm)
init = sch.decompose_reduction(block_mm, k_0)
sch.tensorize(block_mm, "tmm16")
