# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((24, 8), "float32"), B: T.Buffer((24, 8), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for r, j, c in T.grid(4, 8, 8):
            with T.sblock("B"):
                vi = T.axis.spatial(24, r * r + c)
                vj = T.axis.spatial(8, j)
                T.reads(A[vi, vj])
                T.writes(B[vi, vj])
                B[vi, vj] = A[vi, vj] + T.float32(1.0)
