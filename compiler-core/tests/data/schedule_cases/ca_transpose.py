# the consumer reads the producer transposed
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
b = sch.get_block("B")
c = sch.get_block("C")
i, j = sch.get_loops(c)
i0, i1 = sch.split(i, [None, 16])
sch.compute_at(b, i0)
# --- expected
# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((64, 128), "float32"), C: T.Buffer((128, 64), "float32")):
        # with T.block("root"):
        B = T.alloc_buffer((64, 128))
        for i_0 in range(8):
            for ax0, ax1 in T.grid(64, 16):
                with T.block("B"):
                    vi = T.axis.spatial(64, ax0)
                    vj = T.axis.spatial(128, i_0 * 16 + ax1)
                    T.reads(A[vi, vj])
                    T.writes(B[vi, vj])
                    B[vi, vj] = A[vi, vj] + T.float32(1.0)
            for i_1, j in T.grid(16, 64):
                with T.block("C"):
                    vi = T.axis.spatial(128, i_0 * 16 + i_1)
                    vj = T.axis.spatial(64, j)
                    T.reads(B[vj, vi])
                    T.writes(C[vi, vj])
                    C[vi, vj] = B[vj, vi] * T.float32(3.0)
# --- trace
# b0 = sch.get_block(name="B", func_name="main")
# b1 = sch.get_block(name="C", func_name="main")
# l2, l3 = sch.get_loops(block=b1)
# l4, l5 = sch.split(loop=l2, factors=[None, 16], preserve_unit_iters=True, disable_predication=False)
# sch.compute_at(block=b0, loop=l4, preserve_unit_loops=False, index=-1)
