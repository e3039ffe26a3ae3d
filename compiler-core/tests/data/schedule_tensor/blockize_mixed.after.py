# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((32, 32), "float32"), B: T.Buffer((32, 32), "float32"), C: T.Buffer((32, 32), "float32")):
        # with T.block("root"):
        for i_0 in range(2):
            with T.block("C_o"):
                vi_o = T.axis.spatial(2, i_0)
                vj_o = T.axis.spatial(1, 0)
                vk_o = T.axis.reduce(1, 0)
                T.reads(A[vi_o * 16:vi_o * 16 + 16, 0:32], B[0:32, 0:32])
                T.writes(C[vi_o * 16:vi_o * 16 + 16, 0:32])
                with T.init():
                    for j, i_1 in T.grid(32, 16):
                        with T.block("C_init"):
                            vi_i_init, vj_i_init = T.axis.remap("SS", [i_1, j])
                            T.reads()
                            T.writes(C[vi_o * 16 + vi_i_init, vj_i_init])
                            C[vi_o * 16 + vi_i_init, vj_i_init] = T.float32(0.0)
                for j, k, i_1 in T.grid(32, 32, 16):
                    with T.block("C"):
                        vi_i, vj_i, vk_i = T.axis.remap("SSR", [i_1, j, k])
                        T.reads(C[vi_o * 16 + vi_i, vj_i], A[vi_o * 16 + vi_i, vk_i], B[vk_i, vj_i])
                        T.writes(C[vi_o * 16 + vi_i, vj_i])
                        C[vi_o * 16 + vi_i, vj_i] = C[vi_o * 16 + vi_i, vj_i] + A[vi_o * 16 + vi_i, vk_i] * B[vk_i, vj_i]
