# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def bmm_relu():
        T.func_attr({"tirx.noalias": True})
        T.evaluate(0)
