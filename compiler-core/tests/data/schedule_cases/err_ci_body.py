# the producer's body is a loop, not a single store
from tvm.script import tir as T
@T.prim_func
def main(A: T.Buffer((16, 4), "float32"), C: T.Buffer((16, 4), "float32")):
    B = T.alloc_buffer((16, 4))
    for i in range(16):
        with T.block("B"):
            vi = T.axis.spatial(16, i)
            for k in range(4):
                B[vi, k] = A[vi, k] * T.float32(2)
    for i, j in T.grid(16, 4):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] + T.float32(1)
# --- schedule
b = sch.get_block("B")
sch.compute_inline(b)
# --- error: The body of the inlined block should be in form of
# TVM 0.27: The body of the inlined block should be in form of
