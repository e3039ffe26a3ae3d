# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128,), "float32")):
        # with T.block("root"):
        B_rf = T.alloc_buffer((128, 128))
        for i, k in T.grid(128, 128):
            with T.block("B_rf"):
                vk, vi = T.axis.remap("SS", [k, i])
                T.reads(A[vi, vk])
                T.writes(B_rf[vi, vk])
                B_rf[vi, vk] = A[vi, vk]
        for i, k in T.grid(128, 128):
            with T.block("B"):
                vk, vi = T.axis.remap("RS", [k, i])
                T.reads(B_rf[vi, vk])
                T.writes(B[vi])
                with T.init():
                    B[vi] = T.float32(0.0)
                B[vi] = B[vi] + B_rf[vi, vk]
