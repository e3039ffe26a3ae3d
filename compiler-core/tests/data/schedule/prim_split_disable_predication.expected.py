# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((4, 96), "float32"), B: T.Buffer((4, 96), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for i, j_0, j_1 in T.grid(4, 6, 16):
            with T.sblock("B"):
                vi = T.axis.spatial(4, i)
                vj = T.axis.spatial(96, j_0 * 16 + j_1)
                T.reads(A[vi, vj])
                T.writes(B[vi, vj])
                B[vi, vj] = T.max(A[vi, vj], T.float32(0.0))
