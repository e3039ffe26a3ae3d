# reverse_compute_inline of a consumer reading one row of its producer through a unit iterator: the row becomes a predicate on the producer
from tvm.script import tir as T
@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), D: T.Buffer((1, 16), "float32")):
    B = T.alloc_buffer((16, 16))
    for i, j in T.grid(16, 16):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] - T.float32(1)
    for r, j in T.grid(1, 16):
        with T.block("D"):
            v0, v1 = T.axis.remap("SS", [r, j])
            D[v0, v1] = B[v0, v1] * T.float32(4)
# --- schedule
sch.reverse_compute_inline(sch.get_block("D"))
# --- expected
# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((16, 16), "float32"), D: T.Buffer((1, 16), "float32")):
        # with T.block("root"):
        for i, j in T.grid(16, 16):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.where(i < 1)
                T.reads(A[vi, vj])
                T.writes(D[vi, vj])
                D[vi, vj] = (A[vi, vj] - T.float32(1.0)) * T.float32(4.0)
# --- trace
# b0 = sch.get_block(name="D", func_name="main")
# sch.reverse_compute_inline(block=b0)
