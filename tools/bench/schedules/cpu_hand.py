# (c) The hand schedule: 4 x 16 register tiles (4 rows unrolled, 16 columns
# as 4 float32x4 vectors) over 256-deep k-blocks, columns blocked outermost
# so a 256 x 16 panel of B stays in L1 across all rows; decompose_reduction
# zeroes C before the k loop, and lowering keeps the 16 accumulators in
# registers across the k loop.
block_c = sch.get_block("C")
i, j, k = sch.get_loops(block_c)
io, ii = sch.split(i, [None, 4])
jo, ji = sch.split(j, [None, 16])
ko, ki = sch.split(k, [None, 256])
sch.reorder(jo, ko, io, ki, ii, ji)
sch.parallel(jo)
sch.unroll(ii)
sch.vectorize(ji)
sch.decompose_reduction(block_c, ko)
