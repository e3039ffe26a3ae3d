# softmax's hand schedule: each row's four stages fused under one row loop
# (the row stays in cache between them), the elementwise stages in
# float32x4 vectors.
norm = sch.get_block("norm")
i, j = sch.get_loops(norm)
sch.compute_at(sch.get_block("expsum"), i)
sch.compute_at(sch.get_block("exp"), i)
sch.compute_at(sch.get_block("maxelem"), i)
jo, ji = sch.split(j, [None, 4])
sch.vectorize(ji)
i, j = sch.get_loops(sch.get_block("exp"))
jo, ji = sch.split(j, [None, 4])
sch.vectorize(ji)
