from tvm.script import tir as T


@T.prim_func
def main(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
    for a, b in T.grid(4, 16):
        with T.block("B"):
            vi = T.axis.spatial(64, b * 4 + a)
            B[vi] = A[vi] + T.float32(1)
