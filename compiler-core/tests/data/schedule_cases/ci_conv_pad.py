# inline the padding into the box filter
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
sch.compute_inline(p)
# --- expected
# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
        # with T.block("root"):
        for i, j, di, dj in T.grid(16, 16, 3, 3):
            with T.block("C"):
                vi, vj, vdi, vdj = T.axis.remap("SSRR", [i, j, di, dj])
                T.reads(A[vi + vdi - 1, vj + vdj - 1])
                T.writes(C[vi, vj])
                with T.init():
                    C[vi, vj] = T.float32(0.0)
                C[vi, vj] = C[vi, vj] + T.if_then_else(1 <= vi + vdi and vi + vdi < 17 and 1 <= vj + vdj and vj + vdj < 17, A[vi + vdi - 1, vj + vdj - 1], T.float32(0.0))
# --- trace
# b0 = sch.get_block(name="P", func_name="main")
# sch.compute_inline(block=b0)
