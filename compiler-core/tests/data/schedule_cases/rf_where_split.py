# rfactor of a reduction split by a non-dividing factor: the rfactor block keeps the predicate (TVM accepts it; only its debug verification objects)
from tvm.script import tir as T
@T.prim_func
def main(A: T.Buffer((4, 30), "float32"), S: T.Buffer((4,), "float32")):
    for i, k in T.grid(4, 30):
        with T.block("S"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                S[vi] = T.float32(0)
            S[vi] = S[vi] + A[vi, vk]
# --- schedule
b = sch.get_block("S")
i, k = sch.get_loops(b)
ko, ki = sch.split(k, factors=[None, 8])
sch.rfactor(ko, 1)
# --- expected
# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((4, 30), "float32"), S: T.Buffer((4,), "float32")):
        # with T.block("root"):
        S_rf = T.alloc_buffer((4, 4))
        for i, k_0, k_1 in T.grid(4, 4, 8):
            with T.block("S_rf"):
                vk_0, vi, vk_1 = T.axis.remap("SSR", [k_0, i, k_1])
                T.where(k_0 * 8 + k_1 < 30)
                T.reads(A[vi, vk_0 * 8 + vk_1])
                T.writes(S_rf[vi, vk_0])
                with T.init():
                    S_rf[vi, vk_0] = T.float32(0.0)
                S_rf[vi, vk_0] = S_rf[vi, vk_0] + A[vi, vk_0 * 8 + vk_1]
        for i, k_0 in T.grid(4, 4):
            with T.block("S"):
                vk_0, vi = T.axis.remap("RS", [k_0, i])
                T.reads(S_rf[vi, vk_0])
                T.writes(S[vi])
                with T.init():
                    S[vi] = T.float32(0.0)
                S[vi] = S[vi] + S_rf[vi, vk_0]
# --- trace
# b0 = sch.get_block(name="S", func_name="main")
# l1, l2 = sch.get_loops(block=b0)
# l3, l4 = sch.split(loop=l2, factors=[None, 8], preserve_unit_iters=True, disable_predication=False)
# b5 = sch.rfactor(loop=l3, factor_axis=1)
