b = sch.get_block("B")
i, k = sch.get_loops(b)
k_0, k_1 = sch.split(k, [4, 8])
rf = sch.rfactor(k_0, 1)
