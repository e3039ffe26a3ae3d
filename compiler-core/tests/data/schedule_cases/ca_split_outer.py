# compute_at at the outer loop of a split: the producer covers a 32-row tile
from tvm.script import tir as T
@T.prim_func
def main(A: T.Buffer((128, 128), "float32"), C: T.Buffer((128, 128), "float32")):
    B = T.alloc_buffer((128, 128))
    for i, j in T.grid(128, 128):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)
    for i, j in T.grid(128, 128):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] + T.float32(1)
# --- schedule
b = sch.get_block("B")
c = sch.get_block("C")
i, j = sch.get_loops(c)
i0, i1 = sch.split(i, [None, 32])
sch.compute_at(b, i0)
# --- expected
# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((128, 128), "float32"), C: T.Buffer((128, 128), "float32")):
        # with T.block("root"):
        B = T.alloc_buffer((128, 128))
        for i_0 in range(4):
            for ax0, ax1 in T.grid(32, 128):
                with T.block("B"):
                    vi = T.axis.spatial(128, i_0 * 32 + ax0)
                    vj = T.axis.spatial(128, ax1)
                    T.reads(A[vi, vj])
                    T.writes(B[vi, vj])
                    B[vi, vj] = A[vi, vj] * T.float32(2.0)
            for i_1, j in T.grid(32, 128):
                with T.block("C"):
                    vi = T.axis.spatial(128, i_0 * 32 + i_1)
                    vj = T.axis.spatial(128, j)
                    T.reads(B[vi, vj])
                    T.writes(C[vi, vj])
                    C[vi, vj] = B[vi, vj] + T.float32(1.0)
# --- trace
# b0 = sch.get_block(name="B", func_name="main")
# b1 = sch.get_block(name="C", func_name="main")
# l2, l3 = sch.get_loops(block=b1)
# l4, l5 = sch.split(loop=l2, factors=[None, 32], preserve_unit_iters=True, disable_predication=False)
# sch.compute_at(block=b0, loop=l4, preserve_unit_loops=False, index=-1)
