# Thread binding, a T.where predicate, vectorized and unrolled loops.
from tvm.script import tirx as T

PRINT = "scale"


@T.prim_func(s_tir=True)
def scale(A: T.Buffer((100,), "float32"), B: T.Buffer((100,), "float32")):
    for i_0 in T.thread_binding(4, thread="blockIdx.x"):
        for i_1 in T.thread_binding(32, thread="threadIdx.x"):
            with T.sblock("B"):
                vi = T.axis.spatial(100, i_0 * 32 + i_1)
                T.where(i_0 * 32 + i_1 < 100)
                T.reads(A[vi])
                T.writes(B[vi])
                B[vi] = A[vi] * T.float32(2.0)
    for j_0 in T.unroll(25):
        for j_1 in T.vectorized(4):
            with T.sblock("C"):
                vj = T.axis.spatial(100, j_0 * 4 + j_1)
                T.reads(B[vj])
                T.writes(A[vj])
                A[vj] = B[vj]
