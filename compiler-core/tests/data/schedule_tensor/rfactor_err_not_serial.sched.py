# expect-error: loop `k` is unrolled; rfactor needs a serial loop
b = sch.get_block("B")
i, k = sch.get_loops(b)
sch.unroll(k)
rf = sch.rfactor(k, 0)
