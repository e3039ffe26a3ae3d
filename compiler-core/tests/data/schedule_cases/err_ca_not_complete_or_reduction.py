# B accumulates without T.init: neither a complete nor a reduction block
from tvm.script import tir as T
@T.prim_func
def main(A: T.Buffer((128, 16), "float32"), C: T.Buffer((128,), "float32")):
    B = T.alloc_buffer((128,))
    for i, k in T.grid(128, 16):
        with T.block("B"):
            vi, vk = T.axis.remap("SR", [i, k])
            B[vi] = B[vi] + A[vi, vk]
    for i in range(128):
        with T.block("C"):
            vi = T.axis.spatial(128, i)
            C[vi] = B[vi]
# --- schedule
b = sch.get_block("B")
c = sch.get_block("C")
i, = sch.get_loops(c)
sch.compute_at(b, i)
# --- error: is not a complete block - it violates condition #1
# TVM 0.27: The block s_tir.SBlock#0 is not a complete block - it violates condition #1.
