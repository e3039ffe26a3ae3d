# the producer writes a function output
from tvm.script import tir as T
@T.prim_func
def main(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
    for i in range(16):
        with T.block("B"):
            vi = T.axis.spatial(16, i)
            B[vi] = A[vi] * T.float32(2)
    for i in range(16):
        with T.block("C"):
            vi = T.axis.spatial(16, i)
            C[vi] = B[vi] + T.float32(1)
# --- schedule
c = sch.get_block("C")
sch.reverse_compute_inline(c)
# --- error: is an output block
# TVM 0.27: The block s_tir.SBlock#0 is an output block
