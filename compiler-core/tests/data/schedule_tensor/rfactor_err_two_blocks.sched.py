# expect-error: loop `i` contains 2 blocks
b = sch.get_block("B")
i, k = sch.get_loops(b)
rf = sch.rfactor(i, 0)
