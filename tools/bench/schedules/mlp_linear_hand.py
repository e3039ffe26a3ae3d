# The MLP layers' hand schedule (a matrix-vector product): the reduction is
# split into 16 lanes and rfactored so that the lanes accumulate in
# float32x4 vectors over contiguous rows of W; the lanes are summed after.
y = sch.get_block("Y")
i, j, k = sch.get_loops(y)
ko, ki = sch.split(k, [None, 16])
rf = sch.rfactor(ki, 2)
i, j, ko, ki = sch.get_loops(rf)
sch.vectorize(ki)
sch.decompose_reduction(rf, ko)
