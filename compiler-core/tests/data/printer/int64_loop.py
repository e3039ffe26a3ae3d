# int64 shapes, loops and constants.
from tvm.script import tirx as T

PRINT = "row_sum"


@T.prim_func(s_tir=True)
def row_sum(A: T.Buffer((T.int64(128), T.int64(64)), "float32"), B: T.Buffer((T.int64(128),), "float32")):
    for i, k in T.grid(T.int64(128), T.int64(64)):
        with T.sblock("B"):
            vi, vk = T.axis.remap("SR", [i, k])
            T.reads(A[vi, vk])
            T.writes(B[vi])
            with T.init():
                B[vi] = T.float32(0)
            B[vi] = B[vi] + A[vi, vk]
    for i in range(T.int64(2), T.int64(8)):
        with T.sblock("C"):
            vi = T.axis.spatial(T.int64(128), i * T.int64(16) + T.int64(3))
            T.reads(A[vi, T.int64(0):T.int64(64)])
            T.writes(B[vi])
            B[vi] = A[vi, T.int64(0)]
