# B, a producer of D, is not under the loop
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
c = sch.get_block("C")
d = sch.get_block("D")
i, j = sch.get_loops(c)
sch.reverse_compute_at(d, i)
# --- error: The primitive requires all the producer(s) of the given block to be present under the target loop. However, there are 1 producer(s) not satisfying the constraint.
# TVM 0.27: The primitive requires all the producer(s) of the given block to be present under the target loop. However, there are 1 producer(s) not satisfying the constraint. List of the producer(s):s_tir.SBlock#0s_tir.SBlock#1
