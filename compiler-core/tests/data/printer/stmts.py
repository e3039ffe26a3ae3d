# if/else, evaluate, calls, vector stores, a function-level allocation and a let.
from tvm.script import tirx as T

PRINT = "stmts"


@T.prim_func(s_tir=True)
def stmts(A: T.Buffer((32,), "float32"), n: T.int32, x: T.float32):
    if n > 0:
        A[0] = x
    if n > 1:
        A[0] = x
    else:
        if n > 3:
            A[1] = x
        else:
            A[2] = x
    T.evaluate(n + 1)
    T.evaluate(T.call_extern("int32", "g", n))
    A[T.Ramp(0, 1, 4)] = T.Broadcast(x, 4)
    A[T.Ramp(n, 2, 4)] = A[T.Ramp(n, 1, 4)]
    A[4] = T.call_extern("float32", "myfn", x, 1, "str")
    B = T.alloc_buffer((8,), "float32")
    B[0] = x
    y: T.int32 = n + 1
    A[y] = B[0]
