# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16, 32), "float32"), B: T.Buffer((16, 32), "float32"), C: T.Buffer((16, 32), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for j in range(32):
            for i in T.parallel(16):
                with T.sblock("C"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    T.reads(A[vi, vj], B[vi, vj])
                    T.writes(C[vi, vj])
                    C[vi, vj] = A[vi, vj] + B[vi, vj]
