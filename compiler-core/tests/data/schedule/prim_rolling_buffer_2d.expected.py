# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((10, 6), "float32"), C: T.Buffer((8, 4), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        B = T.sblock_alloc_buffer((4, 6))
        for i_0 in range(4):
            for ax0, ax1 in T.grid(4, 6):
                with T.sblock("B"):
                    vi = T.axis.opaque(10, i_0 * 2 + ax0)
                    vj = T.axis.spatial(6, ax1)
                    T.where(i_0 < 1 or 2 <= ax0)
                    T.reads(A[vi, vj])
                    T.writes(B[vi % 4, vj])
                    B[vi % 4, vj] = A[vi, vj] * T.float32(2.0)
            for i_1, j, di, dj in T.grid(2, 4, 3, 3):
                with T.sblock("C"):
                    vi = T.axis.opaque(8, i_0 * 2 + i_1)
                    vj, vdi, vdj = T.axis.remap("SRR", [j, di, dj])
                    T.reads(B[(vi + vdi) % 4, vj + vdj])
                    T.writes(C[vi, vj])
                    with T.init():
                        C[vi, vj] = T.float32(0.0)
                    C[vi, vj] = C[vi, vj] + B[(vi + vdi) % 4, vj + vdj]
