# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((8, 16), "float32"), D: T.Buffer((8, 16), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        B = T.sblock_alloc_buffer((8, 16))
        C = T.sblock_alloc_buffer((16, 8))
        C_reindex = T.sblock_alloc_buffer((8, 16))
        B_reindex = T.sblock_alloc_buffer((8, 16))
        for i, j in T.grid(8, 16):
            with T.sblock("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(A[vi, vj])
                T.writes(B[vi, vj])
                B[vi, vj] = A[vi, vj] + T.float32(1.0)
        for ax0, ax1 in T.grid(8, 16):
            with T.sblock("B_reindex_reindex"):
                v0, v1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(B[v0, v1])
                T.writes(B_reindex[v0, v1])
                B_reindex[v0, v1] = B[v0, v1]
        for i, j in T.grid(8, 16):
            with T.sblock("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(B_reindex[vi, vj])
                T.writes(C_reindex[vi, vj])
                C_reindex[vi, vj] = B_reindex[vi, vj] * T.float32(3.0)
        for ax0, ax1 in T.grid(8, 16):
            with T.sblock("C_reindex"):
                v0, v1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(C_reindex[v0, v1])
                T.writes(C[v1, v0])
                C[v1, v0] = C_reindex[v0, v1]
        for i, j in T.grid(8, 16):
            with T.sblock("D"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(C[vj, vi])
                T.writes(D[vi, vj])
                D[vi, vj] = C[vj, vi] - T.float32(2.0)
