# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((8, 16), "float32"), C: T.Buffer((8,), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        S = T.sblock_alloc_buffer((8,), "float64")
        for i, k in T.grid(8, 16):
            with T.sblock("S"):
                vi, vk = T.axis.remap("SR", [i, k])
                T.reads(A[vi, vk])
                T.writes(S[vi])
                with T.init():
                    S[vi] = T.Cast("float64", T.float32(0.0))
                S[vi] = T.Cast("float64", T.Cast("float32", S[vi]) + A[vi, vk])
        for i in range(8):
            with T.sblock("C"):
                vi = T.axis.spatial(8, i)
                T.reads(S[vi])
                T.writes(C[vi])
                C[vi] = T.Cast("float32", S[vi]) * T.float32(0.25)
