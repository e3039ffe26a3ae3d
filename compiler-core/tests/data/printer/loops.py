# Loop kinds, non-zero minimums, annotations, and when nests fold into T.grid.
from tvm.script import tirx as T

PRINT = "loops"


@T.prim_func(s_tir=True)
def loops(A: T.Buffer((128, 128), "float32"), n: T.int32):
    for i in T.serial(2, 10):
        for j in range(4):
            A[i, j] = T.float32(1)
    for i in T.parallel(8):
        for j in T.vectorized(4):
            A[i, j] = T.float32(1)
    for i in T.parallel(2, 8):
        for j in T.unroll(4):
            A[i, j] = T.float32(1)
    for i in T.thread_binding(2, 8, thread="blockIdx.x"):
        A[i, 0] = T.float32(1)
    for i in T.serial(8, annotations={"pragma_unroll": 1, "x": "str", "arr": [1, 2], "f": 1.5, "b": True, "m": {"k": 1}}):
        for j in range(8):
            A[i, j] = T.float32(1)
    for i in range(8):
        for j in T.serial(8, annotations={"a": 1}):
            A[i, j] = T.float32(1)
    for i, j in T.grid(8, 8):
        A[i, j] = T.float32(1)
        A[i, j] = T.float32(2)
    for i in range(8):
        for j in range(i):
            A[i, j] = T.float32(1)
    for i in range(n, n + 4):
        A[i, 0] = T.float32(1)
    for i in T.serial(2, n + 2):
        A[i, 0] = T.float32(1)
