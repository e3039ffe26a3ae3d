# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((10, 14), "float32"), B: T.Buffer((10, 14), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for i_0, i_1, j_0, j_1 in T.grid(3, 4, 4, 4):
            with T.sblock("B"):
                vi = T.axis.spatial(10, i_0 * 4 + i_1)
                vj = T.axis.spatial(14, j_0 * 4 + j_1)
                T.where(i_0 * 4 + i_1 < 10 and j_0 * 4 + j_1 < 14)
                T.reads(A[vi, vj])
                T.writes(B[vi, vj])
                B[vi, vj] = T.min(A[vi, vj], T.float32(6.0))
