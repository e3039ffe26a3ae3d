# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((4, 6), "float32"), B: T.Buffer((6, 5), "float32"), C: T.Buffer((5,), "float32"), D: T.Buffer((4, 5), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        temp = T.sblock_alloc_buffer((4, 5))
        for i, j, k_0, k_1 in T.grid(4, 5, 3, 2):
            with T.sblock("matmul"):
                vi, vj = T.axis.remap("SS", [i, j])
                vk = T.axis.reduce(6, k_0 * 2 + k_1)
                T.reads(C[vj], A[vi, vk], B[vk, vj])
                T.writes(D[vi, vj])
                with T.init():
                    D[vi, vj] = C[vj]
                D[vi, vj] = D[vi, vj] + A[vi, vk] * B[vk, vj]
