i, j, k = sch.get_loops(sch.get_block("C"))
b = sch.blockize(i)
