# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((128,), "float32"), B: T.Buffer((128,), "float32"), C: T.Buffer((128,), "float32")):
    # with T.block("root"):
    for i in range(128):
        with T.block("C"):
            vi = T.axis.spatial(128, i)
            T.reads(A[vi], B[vi])
            T.writes(C[vi])
            C[vi] = A[vi] + B[vi]