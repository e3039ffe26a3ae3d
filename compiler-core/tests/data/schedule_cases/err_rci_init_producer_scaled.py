# the producer has an init, and the consumer scales its value: folding would apply the scale to
# the init's value and again to the update, so Tessel refuses (TVM 0.27 folds it, reading the
# output back into the update)
# numerics: invalid input (an init without a reduction iterator: TVM 0.27 accepts it, the course's verifier does not)
from tvm.script import tir as T
@T.prim_func
def main(A: T.Buffer((4, 8), "float32"), C: T.Buffer((4, 8), "float32")):
    B = T.alloc_buffer((4, 8))
    for i, j in T.grid(4, 8):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(A[vi, vj])
            T.writes(B[vi, vj])
            with T.init():
                B[vi, vj] = T.float32(1)
            B[vi, vj] = B[vi, vj] + A[vi, vj]
    for i, j in T.grid(4, 8):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] * T.float32(3)
# --- schedule
sch.reverse_compute_inline(sch.get_block("C"))
# --- error (Tessel only): body pattern does not meet the condition for inlining
# TVM 0.27: accepted
