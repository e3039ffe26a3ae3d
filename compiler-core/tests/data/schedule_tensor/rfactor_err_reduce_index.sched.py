# expect-error: a reduce iterator indexes the output buffer `B`
b = sch.get_block("B")
i, k = sch.get_loops(b)
rf = sch.rfactor(k, 0)
