# the fused inner loop's extent depends on a loop outside the fusion
from tvm.script import tir as T
@T.prim_func
def main(A: T.Buffer((50, 16), "float32"), B: T.Buffer((50, 16), "float32")):
    for i in range(4):
        for j, k in T.grid(T.min(15, 49 - i * 16) + 1, 16):
            with T.block("B"):
                vi = T.axis.spatial(50, i * 16 + j)
                vj = T.axis.spatial(16, k)
                B[vi, vj] = A[vi, vj] * T.float32(2)
# --- schedule
i, j, k = sch.get_loops(sch.get_block("B"))
sch.fuse(j, k)
# --- expected
# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((50, 16), "float32"), B: T.Buffer((50, 16), "float32")):
        # with T.block("root"):
        for i in range(4):
            for j_k_fused in range(T.min(15, 49 - i * 16) * 16 + 16):
                with T.block("B"):
                    vi = T.axis.spatial(50, i * 16 + j_k_fused // 16)
                    vj = T.axis.spatial(16, j_k_fused % 16)
                    T.reads(A[vi, vj])
                    T.writes(B[vi, vj])
                    B[vi, vj] = A[vi, vj] * T.float32(2.0)
# --- trace
# b0 = sch.get_block(name="B", func_name="main")
# l1, l2, l3 = sch.get_loops(block=b0)
# l4 = sch.fuse(l2, l3, preserve_unit_iters=True)
