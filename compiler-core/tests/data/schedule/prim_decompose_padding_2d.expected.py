# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((6, 6), "float32"), B: T.Buffer((8, 8), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for i in range(8):
            for j in range(8):
                with T.sblock("pad_pad_const"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    T.reads()
                    T.writes(B[vi, vj])
                    B[vi, vj] = T.float32(-1.0)
            for j in range(6):
                with T.sblock("pad"):
                    vi = T.axis.spatial(6, i - 1)
                    vj = T.axis.spatial(6, j)
                    T.where(1 <= i and i < 7)
                    T.reads(A[vi, vj])
                    T.writes(B[vi + 1, vj + 1])
                    B[vi + 1, vj + 1] = A[vi, vj] * T.float32(2.0)
