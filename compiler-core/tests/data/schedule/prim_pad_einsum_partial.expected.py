# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((14, 16), "float32"), B: T.Buffer((16, 6), "float32"), D: T.Buffer((14, 6), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        A2 = T.sblock_alloc_buffer((14, 16))
        C = T.sblock_alloc_buffer((14, 6))
        B_pad = T.sblock_alloc_buffer((16, 8))
        C_pad = T.sblock_alloc_buffer((14, 8))
        for i, j in T.grid(14, 16):
            with T.sblock("A2"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(A[vi, vj])
                T.writes(A2[vi, vj])
                A2[vi, vj] = A[vi, vj] * T.float32(2.0)
        for i0, i1 in T.grid(16, 8):
            with T.sblock("B_pad_pad_const"):
                v0, v1 = T.axis.remap("SS", [i0, i1])
                T.reads()
                T.writes(B_pad[v0, v1])
                B_pad[v0, v1] = T.float32(0.0)
        for i0, i1 in T.grid(16, 6):
            with T.sblock("B_pad"):
                v0, v1 = T.axis.remap("SS", [i0, i1])
                T.reads(B[v0, v1])
                T.writes(B_pad[v0, v1])
                B_pad[v0, v1] = B[v0, v1]
        for i, j, k in T.grid(14, 8, 16):
            with T.sblock("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                T.reads(A2[vi, vk], B_pad[vk, vj])
                T.writes(C_pad[vi, vj])
                with T.init():
                    C_pad[vi, vj] = T.float32(0.0)
                C_pad[vi, vj] = C_pad[vi, vj] + A2[vi, vk] * B_pad[vk, vj]
        for i0, i1 in T.grid(14, 6):
            with T.sblock("C_pad"):
                v0, v1 = T.axis.remap("SS", [i0, i1])
                T.reads(C_pad[v0, v1])
                T.writes(C[v0, v1])
                C[v0, v1] = C_pad[v0, v1]
        for i, j in T.grid(14, 6):
            with T.sblock("D"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(C[vi, vj])
                T.writes(D[vi, vj])
                D[vi, vj] = C[vi, vj] + T.float32(1.0)
