# expect-error: loop `i` must contain exactly one block, it contains 2
i, j = sch.get_loops(sch.get_block("B"))
b = sch.blockize(i)
