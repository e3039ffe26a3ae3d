# compute_at twice: B follows C into the tile of D, then one level deeper
from tvm.script import tir as T
@T.prim_func
def main(A: T.Buffer((64, 64), "float32"), D: T.Buffer((64, 64), "float32")):
    B = T.alloc_buffer((64, 64))
    C = T.alloc_buffer((64, 64))
    for i, j in T.grid(64, 64):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] + T.float32(1)
    for i, j in T.grid(64, 64):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] * T.float32(2)
    for i, j in T.grid(64, 64):
        with T.block("D"):
            vi, vj = T.axis.remap("SS", [i, j])
            D[vi, vj] = C[vi, vj] + T.float32(3)
# --- schedule
b = sch.get_block("B")
c = sch.get_block("C")
d = sch.get_block("D")
i, j = sch.get_loops(d)
i0, i1 = sch.split(i, [None, 8])
j0, j1 = sch.split(j, [None, 8])
sch.reorder(i0, j0, i1, j1)
sch.compute_at(c, j0)
sch.compute_at(b, j0)
l0, l1, cx, cy = sch.get_loops(c)
sch.compute_at(b, cx)
# --- expected
# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((64, 64), "float32"), D: T.Buffer((64, 64), "float32")):
        # with T.block("root"):
        B = T.alloc_buffer((64, 64))
        C = T.alloc_buffer((64, 64))
        for i_0, j_0 in T.grid(8, 8):
            for ax0 in range(8):
                for ax0_1 in range(8):
                    with T.block("B"):
                        vi = T.axis.spatial(64, i_0 * 8 + ax0)
                        vj = T.axis.spatial(64, j_0 * 8 + ax0_1)
                        T.reads(A[vi, vj])
                        T.writes(B[vi, vj])
                        B[vi, vj] = A[vi, vj] + T.float32(1.0)
                for ax1 in range(8):
                    with T.block("C"):
                        vi = T.axis.spatial(64, i_0 * 8 + ax0)
                        vj = T.axis.spatial(64, j_0 * 8 + ax1)
                        T.reads(B[vi, vj])
                        T.writes(C[vi, vj])
                        C[vi, vj] = B[vi, vj] * T.float32(2.0)
            for i_1, j_1 in T.grid(8, 8):
                with T.block("D"):
                    vi = T.axis.spatial(64, i_0 * 8 + i_1)
                    vj = T.axis.spatial(64, j_0 * 8 + j_1)
                    T.reads(C[vi, vj])
                    T.writes(D[vi, vj])
                    D[vi, vj] = C[vi, vj] + T.float32(3.0)
# --- trace
# b0 = sch.get_block(name="B", func_name="main")
# b1 = sch.get_block(name="C", func_name="main")
# b2 = sch.get_block(name="D", func_name="main")
# l3, l4 = sch.get_loops(block=b2)
# l5, l6 = sch.split(loop=l3, factors=[None, 8], preserve_unit_iters=True, disable_predication=False)
# l7, l8 = sch.split(loop=l4, factors=[None, 8], preserve_unit_iters=True, disable_predication=False)
# sch.reorder(l5, l7, l6, l8)
# sch.compute_at(block=b1, loop=l7, preserve_unit_loops=False, index=-1)
# sch.compute_at(block=b0, loop=l7, preserve_unit_loops=False, index=-1)
# l9, l10, l11, l12 = sch.get_loops(block=b1)
# sch.compute_at(block=b0, loop=l11, preserve_unit_loops=False, index=-1)
