# splitting a loop of extent n * 8 by 8 infers n and needs no predicate
from tvm.script import tir as T
@T.prim_func
def main(n: T.int32, a: T.handle, b: T.handle):
    A = T.match_buffer(a, (n * 8,))
    B = T.match_buffer(b, (n * 8,))
    for i in range(n * 8):
        with T.block("B"):
            vi = T.axis.spatial(n * 8, i)
            B[vi] = A[vi] * T.float32(3)
# --- schedule
i, = sch.get_loops(sch.get_block("B"))
sch.split(i, [None, 8])
# --- expected
# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def main(n: T.int32, A: T.Buffer((n * 8,), "float32"), B: T.Buffer((n * 8,), "float32")):
        # with T.block("root"):
        for i_0, i_1 in T.grid(n, 8):
            with T.block("B"):
                vi = T.axis.spatial(n * 8, i_0 * 8 + i_1)
                T.reads(A[vi])
                T.writes(B[vi])
                B[vi] = A[vi] * T.float32(3.0)
# --- trace
# b0 = sch.get_block(name="B", func_name="main")
# l1, = sch.get_loops(block=b0)
# l2, l3 = sch.split(loop=l1, factors=[None, 8], preserve_unit_iters=True, disable_predication=False)
