# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((32, 32), "float32"), B: T.Buffer((32, 32), "float32"), C: T.Buffer((32, 32), "float32")):
        # with T.block("root"):
        for i_0, j_0, k_0 in T.grid(2, 2, 2):
            with T.block("C_o"):
                vi_o, vj_o, vk_o = T.axis.remap("SSR", [i_0, j_0, k_0])
                T.reads(C[vi_o * 16:vi_o * 16 + 16, vj_o * 16:vj_o * 16 + 16], A[vi_o * 16:vi_o * 16 + 16, vk_o * 16:vk_o * 16 + 16], B[vk_o * 16:vk_o * 16 + 16, vj_o * 16:vj_o * 16 + 16])
                T.writes(C[vi_o * 16:vi_o * 16 + 16, vj_o * 16:vj_o * 16 + 16])
                A_1 = T.match_buffer(A[vi_o * 16:vi_o * 16 + 16, vk_o * 16:vk_o * 16 + 16], (16, 16), offset_factor=1)
                B_1 = T.match_buffer(B[vk_o * 16:vk_o * 16 + 16, vj_o * 16:vj_o * 16 + 16], (16, 16), offset_factor=1)
                C_1 = T.match_buffer(C[vi_o * 16:vi_o * 16 + 16, vj_o * 16:vj_o * 16 + 16], (16, 16), offset_factor=1)
                T.call_extern("int32", "mma16", C_1.data, A_1.data, B_1.data)
