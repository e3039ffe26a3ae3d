from tvm.script import tir as T


@T.prim_func
def main(A: T.Buffer((4, 32, 32), "float32"), B: T.Buffer((4, 32, 32), "float32"), C: T.Buffer((4, 32, 32), "float32")):
    for b, i, j, k in T.grid(4, 32, 32, 32):
        with T.block("C"):
            vb, vi, vj, vk = T.axis.remap("SSSR", [b, i, j, k])
            with T.init():
                C[vb, vi, vj] = T.float32(0)
            C[vb, vi, vj] = C[vb, vi, vj] + A[vb, vi, vk] * B[vb, vk, vj]
