# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((8, 32), "float32"), B: T.Buffer((8, 32), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for i0, j0 in T.grid(1, 4):
            with T.sblock("B_o"):
                vi_o, vj_o = T.axis.remap("SS", [i0, j0])
                T.reads(A[0:8, vj_o * 8:vj_o * 8 + 8])
                T.writes(B[0:8, vj_o * 8:vj_o * 8 + 8])
                for i1, j1 in T.grid(8, 8):
                    with T.sblock("B"):
                        vi_i, vj_i = T.axis.remap("SS", [i1, j1])
                        T.reads(A[vi_i, vj_o * 8 + vj_i])
                        T.writes(B[vi_i, vj_o * 8 + vj_i])
                        B[vi_i, vj_o * 8 + vj_i] = A[vi_i, vj_o * 8 + vj_i] - T.float32(4.0)
