# (b) The seeds' blocking schedule (seed 000, "Transforming a matrix
# multiplication program"; book ch. 4), exactly as the notebook writes it.
block_c = sch.get_block("C")
(y, x, k) = sch.get_loops(block_c)
block_size = 32
yo, yi = sch.split(y, [None, block_size])
xo, xi = sch.split(x, [None, block_size])
sch.reorder(yo, xo, k, yi, xi)
sch.parallel(yo)
