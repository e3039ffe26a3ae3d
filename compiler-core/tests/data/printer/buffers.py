# Buffer options on parameters, allocations and match_buffers.
from tvm.script import tirx as T

PRINT = "buffers"


@T.prim_func(s_tir=True)
def buffers(
    A: T.Buffer((16, 16), "float16", scope="shared"),
    B: T.Buffer((16, 16), "float32", strides=(32, 1)),
    C: T.Buffer((16,), "float32", elem_offset=4, offset_factor=4, align=32),
):
    E = T.sblock_alloc_buffer((4, 4), "float32", scope="local", align=16)
    for i in range(16):
        with T.sblock("b"):
            vi = T.axis.spatial(16, i)
            F = T.match_buffer(A[vi, 0:16], (16,), "float16", scope="shared", offset_factor=1)
            E[0, 0] = T.Cast("float32", F[0])
            B[vi, 0] = E[0, 0] + C[vi]
