# blockize of a 16x16x16 tile (nested blocks, init with its own loops),
# rfactor, and a non-dividing split (T.where).
from tvm import s_tir

from _mm_relu_module import mm_relu

sch = s_tir.Schedule(mm_relu())
y = sch.get_sblock("Y", func_name="mm_relu")
i, j, k = sch.get_loops(y)
i0, i1 = sch.split(i, [None, 16])
j0, j1 = sch.split(j, [None, 16])
k0, k1 = sch.split(k, [None, 16])
sch.reorder(i0, j0, k0, i1, j1, k1)
sch.blockize(i1)
c = sch.get_sblock("C", func_name="mm_relu")
sch.split(sch.get_loops(c)[1], [None, 10])
Module = sch.mod
