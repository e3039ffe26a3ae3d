# fuse, split, bind to threads, parallel, unroll, loop and block annotations.
from tvm import s_tir

from _mm_relu_module import mm_relu

sch = s_tir.Schedule(mm_relu())
c = sch.get_sblock("C", func_name="mm_relu")
i, j = sch.get_loops(c)
f0, f1 = sch.split(sch.fuse(i, j), factors=[None, 128])
sch.bind(f0, "blockIdx.x")
sch.bind(f1, "threadIdx.x")
y = sch.get_sblock("Y", func_name="mm_relu")
i, j, k = sch.get_loops(y)
sch.parallel(i)
sch.unroll(k)
sch.annotate(j, "pragma_auto_unroll_max_step", 16)
sch.annotate(y, "meta_schedule.tiling_structure", "SSRSRS")
Module = sch.mod
