# transform_layout with pad_value on a reduction's output: init and update both write the pad in the padding
from tvm.script import tir as T
@T.prim_func
def main(A: T.Buffer((6, 5), "float32"), C: T.Buffer((6,), "float32")):
    S = T.alloc_buffer((6,))
    for i, k in T.grid(6, 5):
        with T.block("S"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                S[vi] = T.float32(0)
            S[vi] = S[vi] + A[vi, vk]
    for i in range(6):
        with T.block("C"):
            vi = T.axis.remap("S", [i])
            C[vi] = S[vi] * T.float32(2)
# --- schedule
s = sch.get_block("S")
sch.transform_layout(s, ("write", 0), lambda i: (i // 4, i % 4), pad_value=0.0)
# --- expected
# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((6, 5), "float32"), C: T.Buffer((6,), "float32")):
        # with T.block("root"):
        S = T.alloc_buffer((2, 4))
        for axis0, axis1, k in T.grid(2, 4, 5):
            with T.block("S"):
                v_axis0, v_axis1, vk = T.axis.remap("SSR", [axis0, axis1, k])
                T.reads(A[v_axis0 * 4 + v_axis1, vk])
                T.writes(S[v_axis0, v_axis1])
                with T.init():
                    S[v_axis0, v_axis1] = T.if_then_else(v_axis0 == 1 and 2 <= v_axis1, T.float32(0.0), T.float32(0.0))
                S[v_axis0, v_axis1] = T.if_then_else(v_axis0 == 1 and 2 <= v_axis1, T.float32(0.0), S[v_axis0, v_axis1] + A[v_axis0 * 4 + v_axis1, vk])
        for i in range(6):
            with T.block("C"):
                vi = T.axis.spatial(6, i)
                T.reads(S[vi // 4, vi % 4])
                T.writes(C[vi])
                C[vi] = S[vi // 4, vi % 4] * T.float32(2.0)
# --- trace
# b0 = sch.get_block(name="S", func_name="main")
# sch.transform_layout(block=b0, buffer=("write", 0), index_map=lambda i: (i // 4, i % 4,), pad_value=lambda indices_0, indices_1: (T.float32(0.0),), assume_injective_transform=False)
