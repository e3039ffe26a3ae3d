# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((8, 6), "float32"), B: T.Buffer((6, 4), "float32"), C: T.Buffer((8, 4), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        A_local = T.sblock_alloc_buffer((8, 6), scope="local")
        B_global = T.sblock_alloc_buffer((6, 4))
        for i0 in range(2):
            with T.sblock("A_local"):
                v0 = T.axis.spatial(2, i0)
                T.reads(A[v0 * 4:v0 * 4 + 4, 0:6])
                T.writes(A_local[v0 * 4:v0 * 4 + 4, 0:6])
                T.sblock_attr({"auto_copy": True})
                for ax0, ax1 in T.grid(4, 6):
                    A_local[v0 * 4 + ax0, ax1] = A[v0 * 4 + ax0, ax1]
            for i1, j in T.grid(4, 4):
                with T.sblock("B_global"):
                    v0 = T.axis.spatial(4, j)
                    T.reads(B[0:6, v0])
                    T.writes(B_global[0:6, v0])
                    T.sblock_attr({"auto_copy": True})
                    for ax0, ax1 in T.grid(6, 1):
                        B_global[ax0, v0 + ax1] = B[ax0, v0 + ax1]
                for k in range(6):
                    with T.sblock("C"):
                        vi = T.axis.spatial(8, i0 * 4 + i1)
                        vj, vk = T.axis.remap("SR", [j, k])
                        T.reads(A_local[vi, vk], B_global[vk, vj])
                        T.writes(C[vi, vj])
                        with T.init():
                            C[vi, vj] = T.float32(0.0)
                        C[vi, vj] = C[vi, vj] + A_local[vi, vk] * B_global[vk, vj]
