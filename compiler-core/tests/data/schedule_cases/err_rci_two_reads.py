# the consumer reads two buffers produced in the scope
from tvm.script import tir as T
@T.prim_func
def main(A: T.Buffer((64, 64), "float32"), D: T.Buffer((64, 64), "float32")):
    B = T.alloc_buffer((64, 64))
    C = T.alloc_buffer((64, 64))
    for i, j in T.grid(64, 64):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] + T.float32(1)
    for i, j in T.grid(64, 64):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] * T.float32(2)
    for i, j in T.grid(64, 64):
        with T.block("D"):
            vi, vj = T.axis.remap("SS", [i, j])
            D[vi, vj] = C[vi, vj] + B[vi, vj]
# --- schedule
d = sch.get_block("D")
sch.reverse_compute_inline(d)
# --- error: The block is only allowed to read a single buffer region, but it reads 2 region(s)
# TVM 0.27: The block is only allowed to read a single buffer region, but it reads 2 region(s): s_tir.SBlock#0
