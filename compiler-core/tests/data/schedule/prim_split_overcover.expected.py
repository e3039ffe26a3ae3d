# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16, 32), "float32"), B: T.Buffer((16, 32), "float32"), C: T.Buffer((16, 32), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for i_0, i_1, j in T.grid(5, 4, 32):
            with T.sblock("C"):
                vi = T.axis.spatial(16, i_0 * 4 + i_1)
                vj = T.axis.spatial(32, j)
                T.where(i_0 * 4 + i_1 < 16)
                T.reads(A[vi, vj], B[vi, vj])
                T.writes(C[vi, vj])
                C[vi, vj] = A[vi, vj] + B[vi, vj]
