# the producer has an init but only spatial iterators (a one-step sum); the consumer copies its
# value into a transposed output, which the folded block then accumulates into
# numerics: invalid input (an init without a reduction iterator: TVM 0.27 accepts it, the course's verifier does not)
from tvm.script import tir as T
@T.prim_func
def main(A: T.Buffer((4, 8), "float32"), W: T.Buffer((4,), "float32"), C: T.Buffer((8, 4), "float32")):
    B = T.alloc_buffer((4, 8))
    for i, j in T.grid(4, 8):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(A[vi, vj], W[vi])
            T.writes(B[vi, vj])
            with T.init():
                B[vi, vj] = T.float32(0)
            B[vi, vj] = B[vi, vj] + A[vi, vj] * W[vi]
    for i, j in T.grid(4, 8):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vj, vi] = B[vi, vj]
# --- schedule
sch.reverse_compute_inline(sch.get_block("C"))
# --- expected
# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((4, 8), "float32"), W: T.Buffer((4,), "float32"), C: T.Buffer((8, 4), "float32")):
        # with T.block("root"):
        for i, j in T.grid(4, 8):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(A[vi, vj], W[vi])
                T.writes(C[vj, vi])
                with T.init():
                    C[vj, vi] = T.float32(0.0)
                C[vj, vi] = C[vj, vi] + A[vi, vj] * W[vi]
# --- trace
# b0 = sch.get_block(name="C", func_name="main")
# sch.reverse_compute_inline(block=b0)
