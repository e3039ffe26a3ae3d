# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(X: T.Buffer((32,), "float32"), P: T.Buffer((32,), "float32"), Q: T.Buffer((32,), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        S = T.sblock_alloc_buffer((32,))
        S_local = T.sblock_alloc_buffer((32,), scope="local")
        for i in range(32):
            with T.sblock("S"):
                vi = T.axis.spatial(32, i)
                T.reads(X[vi])
                T.writes(S[vi])
                S[vi] = X[vi] * X[vi]
        for ax0 in range(32):
            with T.sblock("S_local"):
                v0 = T.axis.spatial(32, ax0)
                T.reads(S[v0])
                T.writes(S_local[v0])
                S_local[v0] = S[v0]
        for i in range(32):
            with T.sblock("P"):
                vi = T.axis.spatial(32, i)
                T.reads(S_local[vi])
                T.writes(P[vi])
                P[vi] = S_local[vi] + T.float32(1.0)
        for i in range(32):
            with T.sblock("Q"):
                vi = T.axis.spatial(32, i)
                T.reads(S_local[vi])
                T.writes(Q[vi])
                Q[vi] = S_local[vi] - T.float32(1.0)
