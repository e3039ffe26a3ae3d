# tvm: differs: TVM 0.27 accepts this and silently drops the `if` between the loops (the guard is lost); Tessel refuses
# expect-error: only loops may lie between loop `i` and the block under it
i, j = sch.get_loops(sch.get_block("B"))
blk = sch.blockize(i)
