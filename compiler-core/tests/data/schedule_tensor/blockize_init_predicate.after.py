# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((16, 100), "float32"), B: T.Buffer((16,), "float32")):
        # with T.block("root"):
        with T.block("B_o"):
            vi_o = T.axis.spatial(1, 0)
            vk_o = T.axis.reduce(1, 0)
            T.reads(A[0:16, 0:100])
            T.writes(B[0:16])
            with T.init():
                for i in range(16):
                    with T.block("B_init"):
                        vi_i_init = T.axis.spatial(16, i)
                        T.reads()
                        T.writes(B[vi_i_init])
                        B[vi_i_init] = T.float32(-340282346638528859811704183484516925440.0)
            for i, k_0, k_1 in T.grid(16, 7, 16):
                with T.block("B"):
                    vi_i = T.axis.spatial(16, i)
                    vk_i = T.axis.reduce(100, k_0 * 16 + k_1)
                    T.where(k_0 * 16 + k_1 < 100)
                    T.reads(B[vi_i], A[vi_i, vk_i])
                    T.writes(B[vi_i])
                    B[vi_i] = T.max(B[vi_i], A[vi_i, vk_i])
