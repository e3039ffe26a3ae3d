b = sch.get_block("B")
i, k = sch.get_loops(b)
k_0, k_1 = sch.split(k, [None, 8])
rf = sch.rfactor(k_1, 0)
