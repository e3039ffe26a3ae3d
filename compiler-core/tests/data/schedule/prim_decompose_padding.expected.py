# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((12,), "float32"), C: T.Buffer((14,), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        P = T.sblock_alloc_buffer((16,))
        for i in range(16):
            with T.sblock("pad_pad_const"):
                vi = T.axis.spatial(16, i)
                T.reads()
                T.writes(P[vi])
                P[vi] = T.float32(0.0)
        for i in range(12):
            with T.sblock("pad"):
                vi = T.axis.spatial(12, i)
                T.reads(A[vi])
                T.writes(P[vi + 2])
                P[vi + 2] = A[vi]
        for i in range(14):
            with T.sblock("sum"):
                vi = T.axis.spatial(14, i)
                T.reads(P[vi:vi + 3])
                T.writes(C[vi])
                C[vi] = P[vi] + P[vi + 1] + P[vi + 2]
