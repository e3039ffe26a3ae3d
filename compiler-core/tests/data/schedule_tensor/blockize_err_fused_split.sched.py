# expect-error: the bindings of block `B` cannot be divided by the loops from `f_1` down
f_0, f_1 = sch.get_loops(sch.get_block("B"))
b = sch.blockize(f_1)
