# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((8, 8), "float32"), B: T.Buffer((8, 8), "float32"), C: T.Buffer((8, 8), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for i_0_2 in range(2):
            for i_0_0_init, i_0_1_init, i_1_init, j_init in T.grid(1, 2, 8, 8):
                with T.sblock("C_init"):
                    vi = T.axis.spatial(8, (i_0_0_init * 4 + i_0_1_init * 2 + i_0_2) * 8 + i_1_init)
                    vj = T.axis.spatial(8, j_init)
                    T.where((i_0_0_init * 2 + i_0_1_init) * 2 + i_0_2 < 1)
                    T.reads()
                    T.writes(C[vi, vj])
                    C[vi, vj] = T.float32(0.0)
            for i_0_0, i_0_1, i_1, j, k in T.grid(1, 2, 8, 8, 8):
                with T.sblock("C_update"):
                    vi = T.axis.spatial(8, (i_0_0 * 4 + i_0_1 * 2 + i_0_2) * 8 + i_1)
                    vj, vk = T.axis.remap("SR", [j, k])
                    T.where((i_0_0 * 2 + i_0_1) * 2 + i_0_2 < 1)
                    T.reads(C[vi, vj], A[vi, vk], B[vk, vj])
                    T.writes(C[vi, vj])
                    C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
