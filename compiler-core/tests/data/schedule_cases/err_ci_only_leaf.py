# the block is the only one in its scope
from tvm.script import tir as T
@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    for i in range(16):
        with T.block("outer"):
            vi = T.axis.spatial(16, i)
            B = T.alloc_buffer((16,))
            for j in range(16):
                with T.block("B"):
                    vj = T.axis.spatial(16, j)
                    B[vj] = A[vi, vj]
# --- schedule
b = sch.get_block("B")
sch.compute_inline(b)
# --- error: is the only leaf in the scope
# TVM 0.27: Block s_tir.SBlock#0 is the only leaf in the scope s_tir.SBlock#1, which cannot be removed; Otherwise the scope will be empty.
