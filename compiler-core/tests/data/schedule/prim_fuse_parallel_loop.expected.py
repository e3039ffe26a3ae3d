# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16, 32), "float32"), B: T.Buffer((16, 32), "float32"), C: T.Buffer((16, 32), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for i_j_fused in range(512):
            with T.sblock("C"):
                vi = T.axis.spatial(16, i_j_fused // 32)
                vj = T.axis.spatial(32, i_j_fused % 32)
                T.reads(A[vi, vj], B[vi, vj])
                T.writes(C[vi, vj])
                C[vi, vj] = A[vi, vj] + B[vi, vj]
