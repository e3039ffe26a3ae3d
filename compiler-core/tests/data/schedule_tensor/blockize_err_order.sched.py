# expect-error: an outer loop varies faster than an inner one
a, b = sch.get_loops(sch.get_block("B"))
blk = sch.blockize(b)
