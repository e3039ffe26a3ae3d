# expect-error: the bindings of block `B` cannot be divided by the loops from `j_1` down
i, j = sch.get_loops(sch.get_block("B"))
j_0, j_1 = sch.split(j, [None, 10])
b = sch.blockize(j_1)
