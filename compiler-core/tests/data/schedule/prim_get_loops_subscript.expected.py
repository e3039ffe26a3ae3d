# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((4, 8, 16), "float32"), B: T.Buffer((4, 8, 16), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for i in T.parallel(4):
            for j, k_0, k_1 in T.grid(8, 4, 4):
                with T.sblock("B"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    vk = T.axis.spatial(16, k_0 * 4 + k_1)
                    T.reads(A[vi, vj, vk])
                    T.writes(B[vi, vj, vk])
                    B[vi, vj, vk] = A[vi, vj, vk] * T.float32(2.0)
