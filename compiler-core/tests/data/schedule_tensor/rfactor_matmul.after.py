# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((32, 32), "float32"), B: T.Buffer((32, 32), "float32"), C: T.Buffer((32, 32), "float32")):
        # with T.block("root"):
        C_rf = T.alloc_buffer((32, 32, 8))
        for k_1, i, j, k_0 in T.grid(8, 32, 32, 4):
            with T.block("C_rf"):
                vk_1, vi, vj, vk_0 = T.axis.remap("SSSR", [k_1, i, j, k_0])
                T.reads(A[vi, vk_0 * 8 + vk_1], B[vk_0 * 8 + vk_1, vj])
                T.writes(C_rf[vi, vj, vk_1])
                with T.init():
                    C_rf[vi, vj, vk_1] = T.float32(0.0)
                C_rf[vi, vj, vk_1] = C_rf[vi, vj, vk_1] + A[vi, vk_0 * 8 + vk_1] * B[vk_0 * 8 + vk_1, vj]
        for k_1, i, j in T.grid(8, 32, 32):
            with T.block("C"):
                vk_1, vi, vj = T.axis.remap("RSS", [k_1, i, j])
                T.reads(C_rf[vi, vj, vk_1])
                T.writes(C[vi, vj])
                with T.init():
                    C[vi, vj] = T.float32(0.0)
                C[vi, vj] = C[vi, vj] + C_rf[vi, vj, vk_1]
