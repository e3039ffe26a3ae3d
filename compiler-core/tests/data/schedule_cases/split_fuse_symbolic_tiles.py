# 2-D tiling of symbolic extents: split both loops, bring the outer tiles together and fuse them
from tvm.script import tir as T
@T.prim_func
def main(m: T.int32, n: T.int32, a: T.handle, b: T.handle):
    A = T.match_buffer(a, (m, n))
    B = T.match_buffer(b, (m, n))
    for i, j in T.grid(m, n):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)
# --- schedule
i, j = sch.get_loops(sch.get_block("B"))
i0, i1 = sch.split(i, [None, 8])
j0, j1 = sch.split(j, [None, 4])
sch.reorder(i0, j0, i1, j1)
sch.fuse(i0, j0)
# --- expected
# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def main(m: T.int32, n: T.int32, A: T.Buffer((m, n), "float32"), B: T.Buffer((m, n), "float32")):
        # with T.block("root"):
        for i_0_j_0_fused, i_1, j_1 in T.grid((m + 7) // 8 * ((n + 3) // 4), 8, 4):
            with T.block("B"):
                vi = T.axis.spatial(m, i_0_j_0_fused // ((n + 3) // 4) * 8 + i_1)
                vj = T.axis.spatial(n, i_0_j_0_fused % ((n + 3) // 4) * 4 + j_1)
                T.where(i_0_j_0_fused // ((n + 3) // 4) * 8 + i_1 < m and i_0_j_0_fused % ((n + 3) // 4) * 4 + j_1 < n)
                T.reads(A[vi, vj])
                T.writes(B[vi, vj])
                B[vi, vj] = A[vi, vj] * T.float32(2.0)
# --- trace
# b0 = sch.get_block(name="B", func_name="main")
# l1, l2 = sch.get_loops(block=b0)
# l3, l4 = sch.split(loop=l1, factors=[None, 8], preserve_unit_iters=True, disable_predication=False)
# l5, l6 = sch.split(loop=l2, factors=[None, 4], preserve_unit_iters=True, disable_predication=False)
# sch.reorder(l3, l5, l4, l6)
# l7 = sch.fuse(l3, l5, preserve_unit_iters=True)
