# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((6, 16), "float32"), B: T.Buffer((16, 5), "float32"), C: T.Buffer((6, 5), "float32")):
        T.func_attr({"tirx.noalias": True})
        with T.sblock("root"):
            T.reads()
            T.writes()
            with T.sblock("C_i_common"):
                T.reads()
                T.writes()
                with T.sblock("C_i0_partition"):
                    T.reads()
                    T.writes()
                    for i0, j, k in T.grid(2, 5, 16):
                        with T.sblock("C_i0"):
                            vi, vj, vk = T.axis.remap("SSR", [i0, j, k])
                            T.reads(A[0:2, 0:16], B[0:16, 0:5])
                            T.writes(C[0:2, 0:5])
                            with T.init():
                                C[vi, vj] = T.float32(0.0)
                            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
                with T.sblock("C_i1_partition"):
                    T.reads()
                    T.writes()
                    for i1 in range(2, 5):
                        for j, k in T.grid(5, 16):
                            with T.sblock("C_i1"):
                                vi, vj, vk = T.axis.remap("SSR", [i1, j, k])
                                T.reads(A[2:5, 0:16], B[0:16, 0:5])
                                T.writes(C[2:5, 0:5])
                                with T.init():
                                    C[vi, vj] = T.float32(0.0)
                                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
                with T.sblock("C_i2_partition"):
                    T.reads()
                    T.writes()
                    for i2 in range(5, 6):
                        for j, k in T.grid(5, 16):
                            with T.sblock("C_i2"):
                                vi, vj, vk = T.axis.remap("SSR", [i2, j, k])
                                T.reads(A[5, 0:16], B[0:16, 0:5])
                                T.writes(C[5, 0:5])
                                with T.init():
                                    C[vi, vj] = T.float32(0.0)
                                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
