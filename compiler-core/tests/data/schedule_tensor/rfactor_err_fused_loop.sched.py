# expect-error: loop `i_k_fused` feeds both spatial and reduce iterators of block `B`
b = sch.get_block("B")
i, k = sch.get_loops(b)
f = sch.fuse(i, k)
rf = sch.rfactor(f, 0)
