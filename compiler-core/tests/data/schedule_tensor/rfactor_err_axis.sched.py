# expect-error: factor_axis must be in [-2, 1]; got 2
b = sch.get_block("B")
i, k = sch.get_loops(b)
rf = sch.rfactor(k, 2)
