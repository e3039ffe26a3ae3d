# reverse_compute_at into a loop of the block itself
from tvm.script import tir as T
@T.prim_func
def main(A: T.Buffer((128, 128), "float32"), C: T.Buffer((128, 128), "float32")):
    B = T.alloc_buffer((128, 128))
    for i, j in T.grid(128, 128):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)
    for i, j in T.grid(128, 128):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] + T.float32(1)
# --- schedule
c = sch.get_block("C")
i, j = sch.get_loops(c)
sch.reverse_compute_at(c, i)
# --- error: to be under the same block scope, and loop not to be the ancestor of block
# TVM 0.27: ScheduleError: Expected the block s_tir.SBlock#0 and loop tirx.For#1 to be under the same block scope, and loop not to be the ancestor of block
