# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16, 8), "float32"), B: T.Buffer((16, 8), "float32"), C: T.Buffer((16, 4), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for i_m in range(16):
            for j_0, j_1 in T.grid(2, 4):
                with T.sblock("B"):
                    vi = T.axis.spatial(16, i_m)
                    vj = T.axis.spatial(8, j_0 * 4 + j_1)
                    T.reads(A[vi, vj])
                    T.writes(B[vi, vj])
                    B[vi, vj] = A[vi, vj] * T.float32(2.0)
            for j in range(4):
                with T.sblock("C"):
                    vi, vj = T.axis.remap("SS", [i_m, j])
                    T.reads(A[vi, vj * 2])
                    T.writes(C[vi, vj])
                    C[vi, vj] = A[vi, vj * 2] + T.float32(1.0)
