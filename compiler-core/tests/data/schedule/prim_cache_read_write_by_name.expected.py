# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(X: T.Buffer((32, 16), "float32"), Y: T.Buffer((32, 16), "float32"), Z: T.Buffer((32, 16), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        Y_shared = T.sblock_alloc_buffer((32, 16), scope="shared")
        Z_local = T.sblock_alloc_buffer((32, 16), scope="local")
        for ax0, ax1 in T.grid(32, 16):
            with T.sblock("Y_shared"):
                v0, v1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(Y[v0, v1])
                T.writes(Y_shared[v0, v1])
                Y_shared[v0, v1] = Y[v0, v1]
        for i, j in T.grid(32, 16):
            with T.sblock("Z"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(X[vi, vj], Y_shared[vi, vj])
                T.writes(Z_local[vi, vj])
                Z_local[vi, vj] = T.float32(3.0) * X[vi, vj] + Y_shared[vi, vj]
        for ax0, ax1 in T.grid(32, 16):
            with T.sblock("Z_local"):
                v0, v1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(Z_local[v0, v1])
                T.writes(Z[v0, v1])
                Z[v0, v1] = Z_local[v0, v1]
