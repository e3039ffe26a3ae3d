# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((8, 16), "float32"), B: T.Buffer((16, 4), "float32"), C: T.Buffer((8, 4), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1, ax2 in T.grid(16, 4, 8):
            with T.sblock("C"):
                v0, v1, v2 = T.axis.remap("RSS", [ax0, ax1, ax2])
                T.reads(A[v2, v0], B[v0, v1])
                T.writes(C[v2, v1])
                with T.init():
                    C[v2, v1] = T.float32(0.0)
                C[v2, v1] = C[v2, v1] + A[v2, v0] * B[v0, v1]
