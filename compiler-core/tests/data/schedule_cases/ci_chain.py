# inline B, then C: D computes everything
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
b = sch.get_block("B")
c = sch.get_block("C")
sch.compute_inline(b)
sch.compute_inline(c)
# --- expected
# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((64, 64), "float32"), D: T.Buffer((64, 64), "float32")):
        # with T.block("root"):
        for i, j in T.grid(64, 64):
            with T.block("D"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(A[vi, vj])
                T.writes(D[vi, vj])
                D[vi, vj] = (A[vi, vj] + T.float32(1.0)) * T.float32(2.0) + (A[vi, vj] + T.float32(1.0))
# --- trace
# b0 = sch.get_block(name="B", func_name="main")
# b1 = sch.get_block(name="C", func_name="main")
# sch.compute_inline(block=b0)
# sch.compute_inline(block=b1)
