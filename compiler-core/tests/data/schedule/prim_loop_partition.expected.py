# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((14, 8), "float32"), B: T.Buffer((14, 8), "float32")):
        T.func_attr({"tirx.noalias": True})
        with T.sblock("root"):
            T.reads()
            T.writes()
            with T.sblock("B_i_common"):
                T.reads()
                T.writes()
                with T.sblock("B_i0_partition"):
                    T.reads()
                    T.writes()
                    for i0, j_0, j_1 in T.grid(7, 2, 4):
                        with T.sblock("B_i0"):
                            vi = T.axis.spatial(7, i0)
                            vj = T.axis.spatial(8, j_0 * 4 + j_1)
                            T.reads(A[0:7, 0:8])
                            T.writes(B[0:7, 0:8])
                            B[vi, vj] = A[vi, vj] * T.float32(2.0) + T.float32(1.0)
                with T.sblock("B_i1_partition"):
                    T.reads()
                    T.writes()
                    for i1 in range(7, 11):
                        for j in range(8):
                            with T.sblock("B_i1"):
                                vi, vj = T.axis.remap("SS", [i1, j])
                                T.reads(A[7:11, 0:8])
                                T.writes(B[7:11, 0:8])
                                B[vi, vj] = A[vi, vj] * T.float32(2.0) + T.float32(1.0)
                with T.sblock("B_i2_partition"):
                    T.reads()
                    T.writes()
                    for i2 in range(11, 14):
                        for j in range(8):
                            with T.sblock("B_i2"):
                                vi, vj = T.axis.remap("SS", [i2, j])
                                T.reads(A[11:14, 0:8])
                                T.writes(B[11:14, 0:8])
                                B[vi, vj] = A[vi, vj] * T.float32(2.0) + T.float32(1.0)
