# the consumer reads B[c // 8, c % 8], but the producer also writes B[r, 8..16), which no consumer
# point reads: the inverse map would send those writes onto other points of C (here after the
# right ones, the producer running column by column), so Tessel refuses (TVM 0.27 folds it into a
# block whose result differs)
from tvm.script import tir as T
@T.prim_func
def main(A: T.Buffer((4, 16), "float32"), C: T.Buffer((32,), "float32")):
    B = T.alloc_buffer((4, 16))
    for j, i in T.grid(16, 4):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] + T.float32(1)
    for c in range(32):
        with T.block("C"):
            vc = T.axis.spatial(32, c)
            C[vc] = B[vc // 8, vc % 8]
# --- schedule
sch.reverse_compute_inline(sch.get_block("C"))
# --- error (Tessel only): body pattern does not meet the condition for inlining
# TVM 0.27: accepted
