# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for i_0 in range(4):
            for i_1_init, j_init in T.grid(5, 16):
                with T.sblock("C_init"):
                    vi = T.axis.spatial(16, i_0 * 5 + i_1_init)
                    vj = T.axis.spatial(16, j_init)
                    T.where(i_0 * 5 + i_1_init < 16)
                    T.reads()
                    T.writes(C[vi, vj])
                    C[vi, vj] = T.float32(0.0)
            for i_1, j, k in T.grid(5, 16, 16):
                with T.sblock("C_update"):
                    vi = T.axis.spatial(16, i_0 * 5 + i_1)
                    vj, vk = T.axis.remap("SR", [j, k])
                    T.where(i_0 * 5 + i_1 < 16)
                    T.reads(C[vi, vj], A[vi, vk], B[vk, vj])
                    T.writes(C[vi, vj])
                    C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
