# Pass input: R.sum over one axis
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 8), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        with R.dataflow():
            gv: R.Tensor((4,), dtype="float32") = R.sum(x, axis=[1], keepdims=False)
            R.output(gv)
        return gv
