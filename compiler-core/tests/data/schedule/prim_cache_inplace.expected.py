# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16,), "float32"), D: T.Buffer((16,), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        B = T.sblock_alloc_buffer((16,))
        D_local = T.sblock_alloc_buffer((16,), scope="local")
        for i in range(16):
            with T.sblock("B"):
                vi = T.axis.spatial(16, i)
                T.reads(A[vi])
                T.writes(B[vi])
                B[vi] = A[vi] * T.float32(2.0)
        for ax0 in range(16):
            with T.sblock("D_local"):
                v0 = T.axis.spatial(16, ax0)
                T.reads(D[v0])
                T.writes(D_local[v0])
                D_local[v0] = D[v0]
        with T.sblock("update"):
            T.reads(D_local[0:16], B[0:16])
            T.writes(D_local[0:16])
            for i in range(16):
                D_local[i] = D_local[i] * T.float32(0.5) + B[i]
        for ax0 in range(16):
            with T.sblock("D_local"):
                v0 = T.axis.spatial(16, ax0)
                T.reads(D_local[v0])
                T.writes(D[v0])
                D[v0] = D_local[v0]
