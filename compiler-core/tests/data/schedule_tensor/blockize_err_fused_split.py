from tvm.script import tir as T


@T.prim_func
def main(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32")):
    for f_0, f_1 in T.grid(128, 32):
        with T.block("B"):
            vi = T.axis.spatial(64, (f_0 * 32 + f_1) // 64)
            vj = T.axis.spatial(64, (f_0 * 32 + f_1) % 64)
            B[vi, vj] = A[vi, vj] + T.float32(1)
