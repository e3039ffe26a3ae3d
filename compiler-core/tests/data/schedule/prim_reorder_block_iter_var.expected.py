# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((2, 8, 4), "float32"), B: T.Buffer((2, 4, 8), "float32"), C: T.Buffer((2, 8, 8), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for b, i, j_0, j_1, k in T.grid(2, 8, 2, 4, 4):
            with T.sblock("C"):
                vk, vi, vb = T.axis.remap("RSS", [k, i, b])
                vj = T.axis.spatial(8, j_0 * 4 + j_1)
                T.reads(A[vb, vi, vk], B[vb, vk, vj])
                T.writes(C[vb, vi, vj])
                with T.init():
                    C[vb, vi, vj] = T.float32(0.0)
                C[vb, vi, vj] = C[vb, vi, vj] + A[vb, vi, vk] * B[vb, vk, vj]
