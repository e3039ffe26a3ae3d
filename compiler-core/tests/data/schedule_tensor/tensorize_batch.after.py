# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((4, 32, 32), "float32"), B: T.Buffer((4, 32, 32), "float32"), C: T.Buffer((4, 32, 32), "float32")):
        # with T.block("root"):
        for b, i_0, j_0 in T.grid(4, 2, 2):
            with T.block("C_o_init"):
                vb_o, vi_o, vj_o = T.axis.remap("SSS", [b, i_0, j_0])
                T.reads()
                T.writes(C[vb_o, vi_o * 16:vi_o * 16 + 16, vj_o * 16:vj_o * 16 + 16])
                for i_1, j_1 in T.grid(16, 16):
                    with T.block("C_init"):
                        vi_i_init, vj_i_init = T.axis.remap("SS", [i_1, j_1])
                        T.reads()
                        T.writes(C[vb_o, vi_o * 16 + vi_i_init, vj_o * 16 + vj_i_init])
                        C[vb_o, vi_o * 16 + vi_i_init, vj_o * 16 + vj_i_init] = T.float32(0.0)
            for k_0 in range(2):
                with T.block("C_o_update"):
                    vb_o, vi_o, vj_o, vk_o = T.axis.remap("SSSR", [b, i_0, j_0, k_0])
                    T.reads(C[vb_o, vi_o * 16:vi_o * 16 + 16, vj_o * 16:vj_o * 16 + 16], A[vb_o, vi_o * 16:vi_o * 16 + 16, vk_o * 16:vk_o * 16 + 16], B[vb_o, vk_o * 16:vk_o * 16 + 16, vj_o * 16:vj_o * 16 + 16])
                    T.writes(C[vb_o, vi_o * 16:vi_o * 16 + 16, vj_o * 16:vj_o * 16 + 16])
                    A_1 = T.match_buffer(A[vb_o, vi_o * 16:vi_o * 16 + 16, vk_o * 16:vk_o * 16 + 16], (16, 16), offset_factor=1)
                    B_1 = T.match_buffer(B[vb_o, vk_o * 16:vk_o * 16 + 16, vj_o * 16:vj_o * 16 + 16], (16, 16), offset_factor=1)
                    C_1 = T.match_buffer(C[vb_o, vi_o * 16:vi_o * 16 + 16, vj_o * 16:vj_o * 16 + 16], (16, 16), offset_factor=1)
                    T.call_extern("int32", "mma16", C_1.data, A_1.data, B_1.data)
