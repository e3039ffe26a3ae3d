# the loop is inside another block: not the same scope
from tvm.script import tir as T
@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    B = T.alloc_buffer((16, 16))
    for i, j in T.grid(16, 16):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)
    for i in range(16):
        with T.block("outer"):
            vi = T.axis.spatial(16, i)
            for j in range(16):
                with T.block("C"):
                    vj = T.axis.spatial(16, j)
                    C[vi, vj] = B[vi, vj] + T.float32(1)
# --- schedule
b = sch.get_block("B")
c = sch.get_block("C")
j, = sch.get_loops(c)
sch.compute_at(b, j)
# --- error: to be under the same block scope, and loop not to be the ancestor of block
# TVM 0.27: ScheduleError: Expected the block s_tir.SBlock#0 and loop tirx.For#1 to be under the same block scope, and loop not to be the ancestor of block
