# compute_inline of a buffer read by two blocks
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
sch.compute_inline(b)
# --- expected
# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((64, 64), "float32"), D: T.Buffer((64, 64), "float32")):
        # with T.block("root"):
        C = T.alloc_buffer((64, 64))
        for i, j in T.grid(64, 64):
            with T.block("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(A[vi, vj])
                T.writes(C[vi, vj])
                C[vi, vj] = (A[vi, vj] + T.float32(1.0)) * T.float32(2.0)
        for i, j in T.grid(64, 64):
            with T.block("D"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(C[vi, vj], A[vi, vj])
                T.writes(D[vi, vj])
                D[vi, vj] = C[vi, vj] + (A[vi, vj] + T.float32(1.0))
# --- trace
# b0 = sch.get_block(name="B", func_name="main")
# sch.compute_inline(block=b0)
