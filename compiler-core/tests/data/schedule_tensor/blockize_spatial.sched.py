i, j = sch.get_loops(sch.get_block("B"))
b = sch.blockize(j)
