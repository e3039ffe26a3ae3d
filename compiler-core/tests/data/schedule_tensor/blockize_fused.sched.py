i, j = sch.get_loops(sch.get_block("B"))
f = sch.fuse(i, j)
b = sch.blockize(f)
