# bind a fused loop split by a factor that does not divide it: the block's
# binding is affine under its predicate (the fused sum is bounded inside // and %)
from tvm.script import tir as T
@T.prim_func
def main(A: T.Buffer((16, 300), "float32"), B: T.Buffer((16, 300), "float32")):
    for i, k in T.grid(16, 300):
        with T.block("B"):
            vi, vk = T.axis.remap("SS", [i, k])
            B[vi, vk] = A[vi, vk] * T.float32(2)
# --- schedule
b = sch.get_block("B")
i, k = sch.get_loops(b)
f = sch.fuse(i, k)
bx, tx = sch.split(f, [None, 128])
sch.bind(bx, "blockIdx.x")
sch.bind(tx, "threadIdx.x")
# --- expected
# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((16, 300), "float32"), B: T.Buffer((16, 300), "float32")):
        # with T.block("root"):
        for i_k_fused_0 in T.thread_binding(38, thread="blockIdx.x"):
            for i_k_fused_1 in T.thread_binding(128, thread="threadIdx.x"):
                with T.block("B"):
                    vi = T.axis.spatial(16, (i_k_fused_0 * 128 + i_k_fused_1) // 300)
                    vk = T.axis.spatial(300, (i_k_fused_0 * 128 + i_k_fused_1) % 300)
                    T.where(i_k_fused_0 * 128 + i_k_fused_1 < 4800)
                    T.reads(A[vi, vk])
                    T.writes(B[vi, vk])
                    B[vi, vk] = A[vi, vk] * T.float32(2.0)
# --- trace
# b0 = sch.get_block(name="B", func_name="main")
# l1, l2 = sch.get_loops(block=b0)
# l3 = sch.fuse(l1, l2, preserve_unit_iters=True)
# l4, l5 = sch.split(loop=l3, factors=[None, 128], preserve_unit_iters=True, disable_predication=False)
# sch.bind(loop=l4, thread_axis="blockIdx.x")
# sch.bind(loop=l5, thread_axis="threadIdx.x")
