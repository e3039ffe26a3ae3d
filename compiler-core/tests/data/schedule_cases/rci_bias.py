# the consumer also reads a function input (a bias)
from tvm.script import tir as T
@T.prim_func
def main(A: T.Buffer((64, 64), "float32"), E: T.Buffer((64,), "float32"), C: T.Buffer((64, 64), "float32")):
    B = T.alloc_buffer((64, 64))
    for i, j in T.grid(64, 64):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)
    for i, j in T.grid(64, 64):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = T.max(B[vi, vj] + E[vj], T.float32(0))
# --- schedule
c = sch.get_block("C")
sch.reverse_compute_inline(c)
# --- expected
# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((64, 64), "float32"), E: T.Buffer((64,), "float32"), C: T.Buffer((64, 64), "float32")):
        # with T.block("root"):
        for i, j in T.grid(64, 64):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(A[vi, vj], E[vj])
                T.writes(C[vi, vj])
                C[vi, vj] = T.max(A[vi, vj] * T.float32(2.0) + E[vj], T.float32(0.0))
# --- trace
# b0 = sch.get_block(name="C", func_name="main")
# sch.reverse_compute_inline(block=b0)
