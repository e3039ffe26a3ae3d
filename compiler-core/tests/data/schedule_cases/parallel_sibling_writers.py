# parallel over a loop holding two blocks that write the two halves of one buffer (their bindings
# reach half of their domains, as TVM 0.27's generation allows): each is a complete block within the
# loop, so the loop is parallelized
from tvm.script import tirx as T
@T.prim_func(s_tir=True)
def main(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
    for i in range(8):
        with T.sblock("low"):
            vi = T.axis.spatial(16, i)
            B[vi] = A[vi] + T.float32(1)
        with T.sblock("high"):
            vi = T.axis.spatial(16, i + 8)
            B[vi] = A[vi] * T.float32(2)
# --- schedule
low = sch.get_block("low")
(i,) = sch.get_loops(low)
sch.parallel(i)
# --- expected
# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
        # with T.block("root"):
        for i in T.parallel(8):
            with T.block("low"):
                vi = T.axis.spatial(16, i)
                T.reads(A[vi])
                T.writes(B[vi])
                B[vi] = A[vi] + T.float32(1.0)
            with T.block("high"):
                vi = T.axis.spatial(16, i + 8)
                T.reads(A[vi])
                T.writes(B[vi])
                B[vi] = A[vi] * T.float32(2.0)
# --- trace
# b0 = sch.get_block(name="low", func_name="main")
# l1, = sch.get_loops(block=b0)
# sch.parallel(loop=l1)
