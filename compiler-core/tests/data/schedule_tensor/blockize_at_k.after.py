# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((32, 32), "float32"), B: T.Buffer((32, 32), "float32"), C: T.Buffer((32, 32), "float32")):
        # with T.block("root"):
        for i, j in T.grid(32, 32):
            with T.block("C_o"):
                vi_o, vj_o = T.axis.remap("SS", [i, j])
                vk_o = T.axis.reduce(1, 0)
                T.reads(A[vi_o, 0:32], B[0:32, vj_o])
                T.writes(C[vi_o, vj_o])
                with T.init():
                    with T.block("C_init"):
                        T.reads()
                        T.writes(C[vi_o, vj_o])
                        C[vi_o, vj_o] = T.float32(0.0)
                for k in range(32):
                    with T.block("C"):
                        vk_i = T.axis.reduce(32, k)
                        T.reads(C[vi_o, vj_o], A[vi_o, vk_i], B[vk_i, vj_o])
                        T.writes(C[vi_o, vj_o])
                        C[vi_o, vj_o] = C[vi_o, vj_o] + A[vi_o, vk_i] * B[vk_i, vj_o]
