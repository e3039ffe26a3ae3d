# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16, 32), "float32"), B: T.Buffer((32, 8), "float32"), C: T.Buffer((16, 8), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        A_shared = T.sblock_alloc_buffer((32, 16), scope="shared")
        C_local = T.sblock_alloc_buffer((8, 16), scope="local")
        for i, k in T.grid(16, 32):
            with T.sblock("A_shared"):
                vi, vk = T.axis.remap("SS", [i, k])
                T.reads(A[vi, vk])
                T.writes(A_shared[vk, vi])
                A_shared[vk, vi] = A[vi, vk]
        for i, j, k in T.grid(16, 8, 32):
            with T.sblock("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                T.reads(A_shared[vk, vi], B[vk, vj])
                T.writes(C_local[vj, vi])
                with T.init():
                    C_local[vj, vi] = T.float32(0.0)
                C_local[vj, vi] = C_local[vj, vi] + A_shared[vk, vi] * B[vk, vj]
        for i, j in T.grid(16, 8):
            with T.sblock("C_local"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(C_local[vj, vi])
                T.writes(C[vi, vj])
                C[vi, vj] = C_local[vj, vi]
