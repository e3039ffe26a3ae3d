# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((12,), "float32"), C: T.Buffer((9,), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        B = T.sblock_alloc_buffer((4,))
        for i_0 in range(3):
            for ax0 in range(4):
                with T.sblock("B"):
                    vi = T.axis.opaque(10, i_0 * 3 + ax0)
                    T.where(i_0 < 1 or 1 <= ax0)
                    T.reads(A[vi:vi + 3])
                    T.writes(B[vi % 4])
                    B[vi % 4] = A[vi] + A[vi + 1] + A[vi + 2]
            for i_1 in range(3):
                with T.sblock("C"):
                    vi = T.axis.opaque(9, i_0 * 3 + i_1)
                    T.reads(B[T.min(vi % 4, (vi + 1) % 4):T.min(vi % 4, (vi + 1) % 4) + (T.max(vi % 4, (vi + 1) % 4) + 1 - T.min(vi % 4, (vi + 1) % 4))])
                    T.writes(C[vi])
                    C[vi] = B[vi % 4] + B[(vi + 1) % 4]
