# the block writes two buffers
from tvm.script import tir as T
@T.prim_func
def main(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
    B = T.alloc_buffer((16,))
    B2 = T.alloc_buffer((16,))
    for i in range(16):
        with T.block("B"):
            vi = T.axis.spatial(16, i)
            B[vi] = A[vi]
            B2[vi] = A[vi]
    for i in range(16):
        with T.block("C"):
            vi = T.axis.spatial(16, i)
            C[vi] = B[vi] + B2[vi]
# --- schedule
b = sch.get_block("B")
sch.compute_inline(b)
# --- error: The block is only allowed to write a single buffer region, but it writes 2 region(s)
# TVM 0.27: The block is only allowed to write a single buffer region, but it writes 2 region(s): s_tir.SBlock#0
