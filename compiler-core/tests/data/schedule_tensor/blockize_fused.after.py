# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32")):
        # with T.block("root"):
        with T.block("B_o"):
            vi_o = T.axis.spatial(1, 0)
            vj_o = T.axis.spatial(1, 0)
            T.reads(A[0:64, 0:64])
            T.writes(B[0:64, 0:64])
            for i_j_fused in range(4096):
                with T.block("B"):
                    vi_i = T.axis.spatial(64, i_j_fused // 64)
                    vj_i = T.axis.spatial(64, i_j_fused % 64)
                    T.reads(A[vi_i, vj_i])
                    T.writes(B[vi_i, vj_i])
                    B[vi_i, vj_i] = A[vi_i, vj_i] + T.float32(1.0)
