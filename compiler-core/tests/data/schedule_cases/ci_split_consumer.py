# compute_inline into a consumer under a split with a predicate
from tvm.script import tir as T
@T.prim_func
def main(A: T.Buffer((100,), "float32"), C: T.Buffer((100,), "float32")):
    B = T.alloc_buffer((100,))
    for i in range(100):
        with T.block("B"):
            vi = T.axis.spatial(100, i)
            B[vi] = A[vi] * T.float32(2)
    for i in range(100):
        with T.block("C"):
            vi = T.axis.spatial(100, i)
            C[vi] = B[vi] + T.float32(1)
# --- schedule
b = sch.get_block("B")
c = sch.get_block("C")
i, = sch.get_loops(c)
i0, i1 = sch.split(i, [None, 32])
sch.compute_inline(b)
# --- expected
# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((100,), "float32"), C: T.Buffer((100,), "float32")):
        # with T.block("root"):
        for i_0, i_1 in T.grid(4, 32):
            with T.block("C"):
                vi = T.axis.spatial(100, i_0 * 32 + i_1)
                T.where(i_0 * 32 + i_1 < 100)
                T.reads(A[vi])
                T.writes(C[vi])
                C[vi] = A[vi] * T.float32(2.0) + T.float32(1.0)
# --- trace
# b0 = sch.get_block(name="B", func_name="main")
# b1 = sch.get_block(name="C", func_name="main")
# l2, = sch.get_loops(block=b1)
# l3, l4 = sch.split(loop=l2, factors=[None, 32], preserve_unit_iters=True, disable_predication=False)
# sch.compute_inline(block=b0)
