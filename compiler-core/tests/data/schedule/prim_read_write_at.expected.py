# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        A_shared = T.sblock_alloc_buffer((16, 16), scope="shared")
        B_local = T.sblock_alloc_buffer((16, 16), scope="local")
        for i0, j0 in T.grid(4, 4):
            with T.sblock("A_shared"):
                v0, v1 = T.axis.remap("SS", [i0, j0])
                T.reads(A[v0 * 4:v0 * 4 + 4, v1 * 4:v1 * 4 + 4])
                T.writes(A_shared[v0 * 4:v0 * 4 + 4, v1 * 4:v1 * 4 + 4])
                T.sblock_attr({"auto_copy": True})
                for ax0, ax1 in T.grid(4, 4):
                    A_shared[v0 * 4 + ax0, v1 * 4 + ax1] = A[v0 * 4 + ax0, v1 * 4 + ax1]
            for i1, j1 in T.grid(4, 4):
                with T.sblock("B"):
                    vi = T.axis.spatial(16, i0 * 4 + i1)
                    vj = T.axis.spatial(16, j0 * 4 + j1)
                    T.reads(A_shared[vi, vj])
                    T.writes(B_local[vi, vj])
                    B_local[vi, vj] = A_shared[vi, vj] * T.float32(2.0)
            with T.sblock("B_local"):
                v0, v1 = T.axis.remap("SS", [i0, j0])
                T.reads(B_local[v0 * 4:v0 * 4 + 4, v1 * 4:v1 * 4 + 4])
                T.writes(B[v0 * 4:v0 * 4 + 4, v1 * 4:v1 * 4 + 4])
                T.sblock_attr({"auto_copy": True})
                for ax0, ax1 in T.grid(4, 4):
                    B[v0 * 4 + ax0, v1 * 4 + ax1] = B_local[v0 * 4 + ax0, v1 * 4 + ax1]
        for i, j in T.grid(16, 16):
            with T.sblock("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(B[vi, vj])
                T.writes(C[vi, vj])
                C[vi, vj] = B[vi, vj] + T.float32(1.0)
