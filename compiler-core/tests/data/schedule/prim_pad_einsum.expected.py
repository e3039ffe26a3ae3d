# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((14, 10), "float32"), B: T.Buffer((10, 6), "float32"), C: T.Buffer((14, 6), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        A_pad = T.sblock_alloc_buffer((16, 12))
        B_pad = T.sblock_alloc_buffer((12, 8))
        C_pad = T.sblock_alloc_buffer((16, 8))
        for i0, i1 in T.grid(16, 12):
            with T.sblock("A_pad"):
                v0, v1 = T.axis.remap("SS", [i0, i1])
                T.reads(A[v0, v1])
                T.writes(A_pad[v0, v1])
                A_pad[v0, v1] = T.if_then_else(v0 < 14 and v1 < 10, A[v0, v1], T.float32(0.0))
        for i0, i1 in T.grid(12, 8):
            with T.sblock("B_pad"):
                v0, v1 = T.axis.remap("SS", [i0, i1])
                T.reads(B[v0, v1])
                T.writes(B_pad[v0, v1])
                B_pad[v0, v1] = T.if_then_else(v0 < 10 and v1 < 6, B[v0, v1], T.float32(0.0))
        for i, j, k in T.grid(16, 8, 12):
            with T.sblock("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                T.reads(A_pad[vi, vk], B_pad[vk, vj])
                T.writes(C_pad[vi, vj])
                with T.init():
                    C_pad[vi, vj] = T.float32(0.0)
                C_pad[vi, vj] = C_pad[vi, vj] + A_pad[vi, vk] * B_pad[vk, vj]
        for i0, i1 in T.grid(14, 6):
            with T.sblock("C_pad"):
                v0, v1 = T.axis.remap("SS", [i0, i1])
                T.reads(C_pad[v0, v1])
                T.writes(C[v0, v1])
                C[v0, v1] = C_pad[v0, v1]
