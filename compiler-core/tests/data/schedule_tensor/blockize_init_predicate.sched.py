# tvm: skip: TVM 0.27 keeps the whole inner predicate on the init block, leaving `k_0`, `k_1` undefined there (its printing declares them as free variables); Tessel keeps only the conjuncts over the loops it copies. Otherwise TVM's result.
i, k = sch.get_loops(sch.get_block("B"))
k_0, k_1 = sch.split(k, [None, 16])
blk = sch.blockize(i)
