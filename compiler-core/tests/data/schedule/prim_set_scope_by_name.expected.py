# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(X: T.Buffer((8, 24), "float32"), Y: T.Buffer((8, 24), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        E_local = T.sblock_alloc_buffer((8, 24), scope="local")
        for i, j in T.grid(8, 24):
            with T.sblock("E"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(X[vi, vj])
                T.writes(E_local[vi, vj])
                E_local[vi, vj] = T.exp(X[vi, vj])
        for i, j in T.grid(8, 24):
            with T.sblock("Y"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(E_local[vi, vj])
                T.writes(Y[vi, vj])
                Y[vi, vj] = T.log(E_local[vi, vj] + T.float32(1.0))
