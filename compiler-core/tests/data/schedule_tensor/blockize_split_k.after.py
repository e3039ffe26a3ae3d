# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((32, 32), "float32"), B: T.Buffer((32, 32), "float32"), C: T.Buffer((32, 32), "float32")):
        # with T.block("root"):
        for i, j, k_0 in T.grid(32, 32, 2):
            with T.block("C_o"):
                vi_o, vj_o, vk_o = T.axis.remap("SSR", [i, j, k_0])
                T.reads(A[vi_o, vk_o * 16:vk_o * 16 + 16], B[vk_o * 16:vk_o * 16 + 16, vj_o])
                T.writes(C[vi_o, vj_o])
                with T.init():
                    with T.block("C_init"):
                        T.reads()
                        T.writes(C[vi_o, vj_o])
                        C[vi_o, vj_o] = T.float32(0.0)
                for k_1 in range(16):
                    with T.block("C"):
                        vk_i = T.axis.reduce(16, k_1)
                        T.reads(C[vi_o, vj_o], A[vi_o, vk_o * 16 + vk_i], B[vk_o * 16 + vk_i, vj_o])
                        T.writes(C[vi_o, vj_o])
                        C[vi_o, vj_o] = C[vi_o, vj_o] + A[vi_o, vk_o * 16 + vk_i] * B[vk_o * 16 + vk_i, vj_o]
