# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16, 16), "float32"), D: T.Buffer((16, 16), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        B = T.sblock_alloc_buffer((16, 16))
        C = T.sblock_alloc_buffer((16, 16))
        for i, j in T.grid(16, 16):
            with T.sblock("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(A[vi, vj])
                T.writes(B[vi, vj])
                T.sblock_attr({"buffer_dim_align": [[0, 0, 32, 1]]})
                B[vi, vj] = A[vi, vj] * T.float32(2.0)
        for i, j in T.grid(16, 16):
            with T.sblock("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(B[vi, vj])
                T.writes(C[vi, vj])
                C[vi, vj] = B[vi, vj] + T.float32(1.0)
        for i, j in T.grid(16, 16):
            with T.sblock("D"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(C[vi, vj])
                T.writes(D[vi, vj])
                D[vi, vj] = T.max(C[vi, vj], T.float32(0.0))
