# expect-error: no commutative reducer matches block `B`
b = sch.get_block("B")
i, k = sch.get_loops(b)
rf = sch.rfactor(k, 0)
