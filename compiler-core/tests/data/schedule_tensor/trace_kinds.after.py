# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((32, 32), "float32"), B: T.Buffer((32, 32), "float32"), C: T.Buffer((32, 32), "float32")):
        # with T.block("root"):
        for i_0_j_0_fused in range(4):
            with T.block("C_o_init"):
                vi_o = T.axis.spatial(2, i_0_j_0_fused // 2)
                vj_o = T.axis.spatial(2, i_0_j_0_fused % 2)
                T.reads()
                T.writes(C[vi_o * 16:vi_o * 16 + 16, vj_o * 16:vj_o * 16 + 16])
                for i_1, j_1 in T.grid(16, 16):
                    with T.block("C_init"):
                        vi_i_init, vj_i_init = T.axis.remap("SS", [i_1, j_1])
                        T.reads()
                        T.writes(C[vi_o * 16 + vi_i_init, vj_o * 16 + vj_i_init])
                        C[vi_o * 16 + vi_i_init, vj_o * 16 + vj_i_init] = T.float32(0.0)
            for k_0, u in T.grid(2, 1):
                with T.block("C_o_update"):
                    vi_o = T.axis.spatial(2, i_0_j_0_fused // 2)
                    vj_o = T.axis.spatial(2, i_0_j_0_fused % 2)
                    vk_o = T.axis.reduce(2, k_0)
                    T.reads(C[vi_o * 16:vi_o * 16 + 16, vj_o * 16:vj_o * 16 + 16], A[vi_o * 16:vi_o * 16 + 16, vk_o * 16:vk_o * 16 + 16], B[vk_o * 16:vk_o * 16 + 16, vj_o * 16:vj_o * 16 + 16])
                    T.writes(C[vi_o * 16:vi_o * 16 + 16, vj_o * 16:vj_o * 16 + 16])
                    for i_1, j_1 in T.grid(16, 16):
                        for k_1 in T.unroll(16):
                            with T.block("C"):
                                vi_i, vj_i, vk_i = T.axis.remap("SSR", [i_1, j_1, k_1])
                                T.reads(C[vi_o * 16 + vi_i, vj_o * 16 + vj_i], A[vi_o * 16 + vi_i, vk_o * 16 + vk_i], B[vk_o * 16 + vk_i, vj_o * 16 + vj_i])
                                T.writes(C[vi_o * 16 + vi_i, vj_o * 16 + vj_i])
                                C[vi_o * 16 + vi_i, vj_o * 16 + vj_i] = C[vi_o * 16 + vi_i, vj_o * 16 + vj_i] + A[vi_o * 16 + vi_i, vk_o * 16 + vk_i] * B[vk_o * 16 + vk_i, vj_o * 16 + vj_i]
