i, j, k = sch.get_loops(sch.get_block("C"))
k_0, k_1 = sch.split(k, [None, 16])
b = sch.blockize(k_1)
