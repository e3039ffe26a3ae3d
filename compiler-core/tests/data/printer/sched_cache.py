# cache_read/cache_write, compute_at, storage_align and set_scope.
from tvm import s_tir

from _mm_relu_module import mm_relu

sch = s_tir.Schedule(mm_relu())
b = sch.get_sblock("Y", func_name="mm_relu")
a_shared = sch.cache_read(b, 0, "shared")
sch.cache_write(b, 0, "local")
i, j, k = sch.get_loops(b)
sch.compute_at(a_shared, i)
sch.storage_align(a_shared, 0, axis=0, factor=32, offset=1)
Module = sch.mod
