# Distinct variables sharing a name print with suffixes; names are released
# when their scope ends; a buffer named like an import alias is renamed.
from tvm.script import tirx as T

PRINT = "names"


@T.prim_func(s_tir=True)
def names(A: T.Buffer((8, 8), "float32"), I: T.Buffer((8,), "float32")):
    for i in range(8):
        for i in range(8):
            A[i, 0] = I[i]
    for i in range(8):
        for i_1 in range(8):
            for i in range(8):
                A[i, i_1] = T.float32(0)
    for i in range(8):
        with T.sblock("b"):
            i = T.axis.spatial(8, i)
            A[i, 0] = T.float32(0)
    for v in range(8):
        with T.sblock("b"):
            vi = T.axis.spatial(8, v)
            A[vi, 0] = T.float32(0)
