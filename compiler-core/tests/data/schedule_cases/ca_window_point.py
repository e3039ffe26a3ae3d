# a 3-point stencil at the innermost loop: 3 elements
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
c = sch.get_block("C")
i, = sch.get_loops(c)
sch.compute_at(b, i)
# --- expected
# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((130,), "float32"), C: T.Buffer((128,), "float32")):
        # with T.block("root"):
        B = T.alloc_buffer((130,))
        for i in range(128):
            for ax0 in range(3):
                with T.block("B"):
                    vi = T.axis.spatial(130, i + ax0)
                    T.reads(A[vi])
                    T.writes(B[vi])
                    B[vi] = A[vi] * T.float32(2.0)
            with T.block("C"):
                vi = T.axis.spatial(128, i)
                T.reads(B[vi:vi + 3])
                T.writes(C[vi])
                C[vi] = B[vi] + B[vi + 1] + B[vi + 2]
# --- trace
# b0 = sch.get_block(name="B", func_name="main")
# b1 = sch.get_block(name="C", func_name="main")
# l2, = sch.get_loops(block=b1)
# sch.compute_at(block=b0, loop=l2, preserve_unit_loops=False, index=-1)
