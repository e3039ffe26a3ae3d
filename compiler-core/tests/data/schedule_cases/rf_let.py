# rfactor of a reduction whose update goes through a let binding: the binding is inlined
from tvm.script import tir as T
@T.prim_func
def main(A: T.Buffer((8, 16), "float32"), B: T.Buffer((8,), "float32")):
    for i, k in T.grid(8, 16):
        with T.block("B"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                B[vi] = T.float32(0)
            acc: T.let[T.float32] = B[vi] + A[vi, vk] * A[vi, vk]
            B[vi] = acc
# --- schedule
b = sch.get_block("B")
i, k = sch.get_loops(b)
ko, ki = sch.split(k, factors=[4, 4])
sch.rfactor(ki, 0)
# --- expected
# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((8, 16), "float32"), B: T.Buffer((8,), "float32")):
        # with T.block("root"):
        B_rf = T.alloc_buffer((4, 8))
        for i, k_0, k_1 in T.grid(8, 4, 4):
            with T.block("B_rf"):
                vk_1, vi, vk_0 = T.axis.remap("SSR", [k_1, i, k_0])
                T.reads(A[vi, vk_0 * 4 + vk_1])
                T.writes(B_rf[vk_1, vi])
                with T.init():
                    B_rf[vk_1, vi] = T.float32(0.0)
                B_rf[vk_1, vi] = B_rf[vk_1, vi] + A[vi, vk_0 * 4 + vk_1] * A[vi, vk_0 * 4 + vk_1]
        for i, k_1 in T.grid(8, 4):
            with T.block("B"):
                vk_1, vi = T.axis.remap("RS", [k_1, i])
                T.reads(B_rf[vk_1, vi])
                T.writes(B[vi])
                with T.init():
                    B[vi] = T.float32(0.0)
                B[vi] = B[vi] + B_rf[vk_1, vi]
# --- trace
# b0 = sch.get_block(name="B", func_name="main")
# l1, l2 = sch.get_loops(block=b0)
# l3, l4 = sch.split(loop=l2, factors=[4, 4], preserve_unit_iters=True, disable_predication=False)
# b5 = sch.rfactor(loop=l4, factor_axis=0)
