from tvm.script import tir as T


@T.prim_func
def main(A: T.Buffer((8, 32), "int32"), B: T.Buffer((8,), "int32")):
    for i, k in T.grid(8, 32):
        with T.block("B"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                B[vi] = T.max_value("int32")
            B[vi] = T.min(B[vi], A[vi, vk])
