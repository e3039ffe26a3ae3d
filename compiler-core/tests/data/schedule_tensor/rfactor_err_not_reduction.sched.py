# expect-error: block `B` is not a reduction block: it has no `T.init()`
b = sch.get_block("B")
i, j = sch.get_loops(b)
rf = sch.rfactor(j, 0)
