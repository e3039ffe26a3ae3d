# reverse_compute_inline of a consumer reading transposed
from tvm.script import tir as T
@T.prim_func
def main(A: T.Buffer((64, 128), "float32"), C: T.Buffer((128, 64), "float32")):
    B = T.alloc_buffer((64, 128))
    for i, j in T.grid(64, 128):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] + T.float32(1)
    for i, j in T.grid(128, 64):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vj, vi] * T.float32(3)
# --- schedule
c = sch.get_block("C")
sch.reverse_compute_inline(c)
# --- expected
# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((64, 128), "float32"), C: T.Buffer((128, 64), "float32")):
        # with T.block("root"):
        for i, j in T.grid(64, 128):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(A[vi, vj])
                T.writes(C[vj, vi])
                C[vj, vi] = (A[vi, vj] + T.float32(1.0)) * T.float32(3.0)
# --- trace
# b0 = sch.get_block(name="C", func_name="main")
# sch.reverse_compute_inline(block=b0)
