# compute_inline into a stencil: every load of B is substituted (indices vi + 1, vi + 2 kept as written)
from tvm.script import tir as T
@T.prim_func
def main(A: T.Buffer((130,), "float32"), C: T.Buffer((128,), "float32")):
    B = T.alloc_buffer((130,))
    for i in range(130):
        with T.block("B"):
            vi = T.axis.spatial(130, i)
            B[vi] = A[vi] * T.float32(2)
    for i in range(128):
        with T.block("C"):
            vi = T.axis.spatial(128, i)
            C[vi] = B[vi] + B[vi + 1] + B[vi + 2]
# --- schedule
b = sch.get_block("B")
sch.compute_inline(b)
# --- expected
# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((130,), "float32"), C: T.Buffer((128,), "float32")):
        # with T.block("root"):
        for i in range(128):
            with T.block("C"):
                vi = T.axis.spatial(128, i)
                T.reads(A[vi:vi + 3])
                T.writes(C[vi])
                C[vi] = A[vi] * T.float32(2.0) + A[vi + 1] * T.float32(2.0) + A[vi + 2] * T.float32(2.0)
# --- trace
# b0 = sch.get_block(name="B", func_name="main")
# sch.compute_inline(block=b0)
