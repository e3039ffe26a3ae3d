# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((6, 6), "float32"), B: T.Buffer((8, 8), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for i, j in T.grid(8, 8):
            with T.sblock("pad_pad_const"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads()
                T.writes(B[vi, vj])
                B[vi, vj] = T.float32(0.0)
        for i, j in T.grid(6, 6):
            with T.sblock("pad"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(A[vi, vj])
                T.writes(B[vi + 1, vj + 1])
                B[vi + 1, vj + 1] = A[vi, vj]
