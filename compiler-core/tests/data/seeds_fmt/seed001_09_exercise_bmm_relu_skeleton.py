# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def bmm_relu():
        T.func_attr({"tir.noalias": True})
        T.evaluate(0)