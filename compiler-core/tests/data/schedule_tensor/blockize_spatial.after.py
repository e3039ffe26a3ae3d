# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32")):
        # with T.block("root"):
        for i in range(64):
            with T.block("B_o"):
                vi_o = T.axis.spatial(64, i)
                vj_o = T.axis.spatial(1, 0)
                T.reads(A[vi_o, 0:64])
                T.writes(B[vi_o, 0:64])
                for j in range(64):
                    with T.block("B"):
                        vj_i = T.axis.spatial(64, j)
                        T.reads(A[vi_o, vj_i])
                        T.writes(B[vi_o, vj_i])
                        B[vi_o, vj_i] = A[vi_o, vj_i] + T.float32(1.0)
