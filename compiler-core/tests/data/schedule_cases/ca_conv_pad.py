# a padded 3x3 box filter: the padding block computed at the row loop of the filter
from tvm.script import tir as T
@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    P = T.alloc_buffer((18, 18))
    for i, j in T.grid(18, 18):
        with T.block("P"):
            vi, vj = T.axis.remap("SS", [i, j])
            P[vi, vj] = T.if_then_else(1 <= vi and vi < 17 and 1 <= vj and vj < 17, A[vi - 1, vj - 1], T.float32(0))
    for i, j, di, dj in T.grid(16, 16, 3, 3):
        with T.block("C"):
            vi, vj, vdi, vdj = T.axis.remap("SSRR", [i, j, di, dj])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + P[vi + vdi, vj + vdj]
# --- schedule
p = sch.get_block("P")
c = sch.get_block("C")
i, j, di, dj = sch.get_loops(c)
sch.compute_at(p, i)
# --- expected
# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
        # with T.block("root"):
        P = T.alloc_buffer((18, 18))
        for i in range(16):
            for ax0, ax1 in T.grid(3, 18):
                with T.block("P"):
                    vi = T.axis.spatial(18, i + ax0)
                    vj = T.axis.spatial(18, ax1)
                    T.reads(A[vi - 1, vj - 1])
                    T.writes(P[vi, vj])
                    P[vi, vj] = T.if_then_else(1 <= vi and vi < 17 and 1 <= vj and vj < 17, A[vi - 1, vj - 1], T.float32(0.0))
            for j, di, dj in T.grid(16, 3, 3):
                with T.block("C"):
                    vi, vj, vdi, vdj = T.axis.remap("SSRR", [i, j, di, dj])
                    T.reads(P[vi + vdi, vj + vdj])
                    T.writes(C[vi, vj])
                    with T.init():
                        C[vi, vj] = T.float32(0.0)
                    C[vi, vj] = C[vi, vj] + P[vi + vdi, vj + vdj]
# --- trace
# b0 = sch.get_block(name="P", func_name="main")
# b1 = sch.get_block(name="C", func_name="main")
# l2, l3, l4, l5 = sch.get_loops(block=b1)
# sch.compute_at(block=b0, loop=l2, preserve_unit_loops=False, index=-1)
