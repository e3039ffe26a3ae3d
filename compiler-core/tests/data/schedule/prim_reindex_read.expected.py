# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((128,), "float32"), C: T.Buffer((16,), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        A_reindex = T.sblock_alloc_buffer((16, 8))
        for ax0, ax1 in T.grid(16, 8):
            with T.sblock("A_reindex_reindex"):
                v0, v1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(A[v0 * 8 + v1])
                T.writes(A_reindex[v0, v1])
                A_reindex[v0, v1] = A[v0 * 8 + v1]
        for i, k in T.grid(16, 8):
            with T.sblock("C"):
                vi, vk = T.axis.remap("SR", [i, k])
                T.reads(A_reindex[vi, vk])
                T.writes(C[vi])
                with T.init():
                    C[vi] = T.float32(0.0)
                C[vi] = C[vi] + A_reindex[vi, vk] * T.float32(0.5)
