from tvm.script import tir as T


@T.prim_func
def main(A: T.Buffer((16, 100), "float32"), B: T.Buffer((16,), "float32")):
    for i, k in T.grid(16, 100):
        with T.block("B"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                B[vi] = T.min_value("float32")
            B[vi] = T.max(B[vi], A[vi, vk])
