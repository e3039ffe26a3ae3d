# Deliberate deviation: D still reads B after C is folded into B's producer. TVM 0.27 accepts and
# leaves D reading B, whose allocation it removed (an ill-formed function); Tessel refuses with
# the rule TVM's own message states ("only a single consumer").
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
sch.reverse_compute_inline(c)
# --- error (Tessel only): the producer block should be a complete block who has only a single consumer
# TVM 0.27: accepted
