# conv2d's hand schedule: 4 output channels x 8 output columns per register
# tile (8 float32x4 accumulators), the channel and kernel-window reduction
# inside it, the output zeroed before the reduction.
conv = sch.get_block("conv")
n, k, h, w, c, r, s = sch.get_loops(conv)
ko, ki = sch.split(k, [None, 4])
wo, wi = sch.split(w, [None, 8])
sch.reorder(ko, h, wo, c, r, s, ki, wi)
sch.unroll(ki)
sch.vectorize(wi)
sch.decompose_reduction(conv, c)
