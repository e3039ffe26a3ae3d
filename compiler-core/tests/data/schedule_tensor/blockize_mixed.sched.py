i, j, k = sch.get_loops(sch.get_block("C"))
i_0, i_1 = sch.split(i, [None, 16])
sch.reorder(i_0, j, k, i_1)
b = sch.blockize(j)
