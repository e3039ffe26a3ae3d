# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((1027,), "float32"), B: T.Buffer((1024,), "float32")):
        T.func_attr({"tir.noalias": True})
        # with T.block("root"):
        for i in range(1024):
            with T.block("C"):
                vi = T.axis.spatial(1024, i)
                T.reads(A[vi:vi + 3])
                T.writes(B[vi])
                B[vi] = A[vi] + A[vi + 1] + A[vi + 2]