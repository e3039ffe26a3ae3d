# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((8, 32), "int32"), B: T.Buffer((8,), "int32")):
        # with T.block("root"):
        B_rf = T.alloc_buffer((32, 8), "int32")
        for i, k in T.grid(8, 32):
            with T.block("B_rf"):
                vk, vi = T.axis.remap("SS", [k, i])
                T.reads(A[vi, vk])
                T.writes(B_rf[vk, vi])
                B_rf[vk, vi] = A[vi, vk]
        for i, k in T.grid(8, 32):
            with T.block("B"):
                vk, vi = T.axis.remap("RS", [k, i])
                T.reads(B_rf[vk, vi])
                T.writes(B[vi])
                with T.init():
                    B[vi] = 2147483647
                B[vi] = T.min(B[vi], B_rf[vk, vi])
