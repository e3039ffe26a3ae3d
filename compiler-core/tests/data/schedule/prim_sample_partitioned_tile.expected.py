# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for i_0, i_1, i_2, j_0, j_1, j_2 in T.grid(2, 4, 8, 32, 2, 1):
            with T.sblock("B"):
                vi = T.axis.spatial(64, i_0 * 32 + i_1 * 8 + i_2)
                vj = T.axis.spatial(64, j_0 * 2 + j_1 + j_2)
                T.reads(A[vi, vj])
                T.writes(B[vi, vj])
                B[vi, vj] = A[vi, vj] + T.float32(1.0)
