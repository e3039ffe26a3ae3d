# expect-error: loop `i` feeds a spatial iterator of block `B`
b = sch.get_block("B")
i, k = sch.get_loops(b)
rf = sch.rfactor(i, 0)
