# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((64,), "float32"), C: T.Buffer((8, 8), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        B = T.sblock_alloc_buffer((64,))
        for ax0, ax1 in T.grid(8, 8):
            with T.sblock("B"):
                v0, v1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(A[v0 * 8 + v1])
                T.writes(B[v0 * 8 + v1])
                B[v0 * 8 + v1] = A[v0 * 8 + v1] * T.float32(3.0)
        for ax0 in range(64):
            with T.sblock("C"):
                v0 = T.axis.spatial(64, ax0)
                T.reads(B[v0])
                T.writes(C[v0 % 8, v0 // 8])
                C[v0 % 8, v0 // 8] = B[v0] + T.float32(1.0)
