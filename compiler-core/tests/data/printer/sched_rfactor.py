# rfactor and transform_layout.
from tvm import s_tir

from _mm_relu_module import mm_relu

sch = s_tir.Schedule(mm_relu())
y = sch.get_sblock("Y", func_name="mm_relu")
i, j, k = sch.get_loops(y)
k0, k1 = sch.split(k, [None, 4])
sch.rfactor(k1, 0)
sch.transform_layout(
    sch.get_sblock("C", func_name="mm_relu"),
    ("write", 0),
    lambda i, j: (i // 16, j // 16, i % 16, j % 16),
)
Module = sch.mod
