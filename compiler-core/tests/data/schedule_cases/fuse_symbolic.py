# fusing loops of symbolic extent: the fused extent is the product, the iterators come back by // and %
from tvm.script import tir as T
@T.prim_func
def main(m: T.int32, n: T.int32, a: T.handle, b: T.handle):
    A = T.match_buffer(a, (m, 3, n))
    B = T.match_buffer(b, (m, 3, n))
    for i, j, k in T.grid(m, 3, n):
        with T.block("B"):
            vi, vj, vk = T.axis.remap("SSS", [i, j, k])
            B[vi, vj, vk] = A[vi, vj, vk] - T.float32(1)
# --- schedule
i, j, k = sch.get_loops(sch.get_block("B"))
sch.fuse(i, j, k)
# --- expected
# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def main(m: T.int32, n: T.int32, A: T.Buffer((m, 3, n), "float32"), B: T.Buffer((m, 3, n), "float32")):
        # with T.block("root"):
        for i_j_k_fused in range(m * n * 3):
            with T.block("B"):
                vi = T.axis.spatial(m, i_j_k_fused // (n * 3))
                vj = T.axis.spatial(3, i_j_k_fused % (n * 3) // n)
                vk = T.axis.spatial(n, i_j_k_fused % n)
                T.reads(A[vi, vj, vk])
                T.writes(B[vi, vj, vk])
                B[vi, vj, vk] = A[vi, vj, vk] - T.float32(1.0)
# --- trace
# b0 = sch.get_block(name="B", func_name="main")
# l1, l2, l3 = sch.get_loops(block=b0)
# l4 = sch.fuse(l1, l2, l3, preserve_unit_iters=True)
