# the consumer reads B at an offset: the producer's iterators are shifted
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
            C[vi] = B[vi + 2] + T.float32(1)
# --- schedule
c = sch.get_block("C")
sch.reverse_compute_inline(c)
# --- expected
# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((130,), "float32"), C: T.Buffer((128,), "float32")):
        # with T.block("root"):
        for i in range(130):
            with T.block("B"):
                vi = T.axis.spatial(130, i)
                T.where(2 <= i)
                T.reads(A[vi])
                T.writes(C[vi - 2])
                C[vi - 2] = A[vi] * T.float32(2.0) + T.float32(1.0)
# --- trace
# b0 = sch.get_block(name="C", func_name="main")
# sch.reverse_compute_inline(block=b0)
