# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((8, 16), "float32"), C: T.Buffer((8, 16), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        B = T.sblock_alloc_buffer((8, 16))
        B_local = T.sblock_alloc_buffer((4, 8, 4), scope="local")
        for i in range(8):
            for ax0 in range(16):
                with T.sblock("B"):
                    vi, vj = T.axis.remap("SS", [i, ax0])
                    T.reads(A[vi, vj])
                    T.writes(B[vi, vj])
                    B[vi, vj] = A[vi, vj] * T.float32(2.0)
            for j in range(16):
                with T.sblock("B_local"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    T.reads(B[vi, vj])
                    T.writes(B_local[vj // 4, vi, vj % 4])
                    B_local[vj // 4, vi, vj % 4] = B[vi, vj]
            for j in range(16):
                with T.sblock("C"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    T.reads(B_local[vj // 4, vi, vj % 4])
                    T.writes(C[vi, vj])
                    C[vi, vj] = B_local[vj // 4, vi, vj % 4] + T.float32(1.0)
