# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16, 64), "float32"), B: T.Buffer((16,), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for i, k_0, k_1 in T.grid(16, 8, 8):
            with T.sblock("B"):
                vi = T.axis.spatial(16, i)
                vk = T.axis.reduce(64, k_0 * 8 + k_1)
                T.reads(A[vi, vk])
                T.writes(B[vi])
                with T.init():
                    B[vi] = T.float32(0.0)
                B[vi] = B[vi] + A[vi, vk]
