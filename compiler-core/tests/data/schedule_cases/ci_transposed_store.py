# the producer stores transposed: its indices are inverted (placeholders) before substitution
from tvm.script import tir as T
@T.prim_func
def main(A: T.Buffer((64, 32), "float32"), C: T.Buffer((32, 64), "float32")):
    B = T.alloc_buffer((32, 64))
    for i, j in T.grid(64, 32):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vj, vi] = A[vi, vj] * T.float32(2)
    for i, j in T.grid(32, 64):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] + T.float32(1)
# --- schedule
b = sch.get_block("B")
sch.compute_inline(b)
# --- expected
# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((64, 32), "float32"), C: T.Buffer((32, 64), "float32")):
        # with T.block("root"):
        for i, j in T.grid(32, 64):
            with T.block("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(A[vj, vi])
                T.writes(C[vi, vj])
                C[vi, vj] = A[vj, vi] * T.float32(2.0) + T.float32(1.0)
# --- trace
# b0 = sch.get_block(name="B", func_name="main")
# sch.compute_inline(block=b0)
