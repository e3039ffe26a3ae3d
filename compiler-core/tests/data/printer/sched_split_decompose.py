# mm_relu after split, reorder, reverse_compute_at, decompose_reduction and
# vectorize (TVM 0.27 schedule primitives).
from tvm import s_tir

from _mm_relu_module import mm_relu

sch = s_tir.Schedule(mm_relu())
b = sch.get_sblock("Y", func_name="mm_relu")
i, j, k = sch.get_loops(b)
j0, j1 = sch.split(j, factors=[None, 4])
sch.reorder(j0, k, j1)
sch.reverse_compute_at(sch.get_sblock("C", func_name="mm_relu"), j0)
sch.decompose_reduction(b, k)
sch.vectorize(sch.get_loops(sch.get_sblock("C", func_name="mm_relu"))[-1])
Module = sch.mod
